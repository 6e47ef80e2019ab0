/**
 * EXPLAIN names no internal database (issue 23): a remote version's view reads its inlined rows from
 * the frozen metadata (`__fdl_meta_N.main.ducklake_inlined_data_…`), and DuckDB's plan names that
 * table. The plan DuckDB itself produces for such a scan is rendered as a client would get it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { renderPlan } from '../src/text/explain.js';
import { redactServerPaths } from '../src/engine/duckdb-errors.js';

describe('EXPLAIN output without internal names', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await conn.run(`ATTACH ':memory:' AS __fdl_meta_2`);
    await conn.run(`CREATE TABLE __fdl_meta_2.main.ducklake_inlined_data_1_1 AS SELECT range AS n FROM range(10)`);
    await conn.run(`ATTACH ':memory:' AS "A@0190"`);
    await conn.run(`CREATE VIEW "A@0190".main.n AS SELECT n FROM __fdl_meta_2.main.ducklake_inlined_data_1_1`);
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  for (const analyze of [false, true])
    for (const format of ['text', 'json'] as const)
      test(`${analyze ? 'EXPLAIN ANALYZE' : 'EXPLAIN'} as ${format}: the frozen metadata's table is not named`, async () => {
        const r = await conn.runAndReadAll(
          `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) SELECT * FROM "A@0190".main.n WHERE n > 3`,
        );
        const raw = r.getRows().map((row) => String(row[1]));
        assert.ok(
          raw.some((t) => t.includes('__fdl_meta_2')),
          'DuckDB names the table (the premise)',
        );
        for (const json of raw) {
          const shown = renderPlan(json, format, redactServerPaths);
          assert.doesNotMatch(shown, /__fdl_|ducklake_inlined/);
          assert.match(shown, /SCAN/i, 'the plan is still shown');
        }
      });
});
