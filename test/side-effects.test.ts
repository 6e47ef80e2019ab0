/**
 * The engine line's own check (analysis/side-effects.ts), on an in-process DuckDB: what only DuckDB's
 * binding shows — a file read inside a view the parse sees as a plain relation — is judged from the
 * bound plan, on each connection with its own catalog.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import { refuseSideEffects } from '../src/analysis/side-effects.js';
import { SqlError } from '../src/errors.js';

describe('the engine line judges the bound plan', () => {
  let dir: string;
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fdl-side-effects-'));
    writeFileSync(join(dir, 'notes.csv'), 'a,b\n1,2\n');
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    // a view the parse sees as a relation; only binding shows the file read inside it
    await conn.run(`CREATE VIEW notes AS SELECT content FROM read_text('${join(dir, 'notes.csv')}')`);
  });
  after(() => {
    conn?.disconnectSync();
    rmSync(dir, { recursive: true, force: true });
  });

  const verdict = async (c: DuckDBConnection, sql: string) => {
    try {
      await refuseSideEffects(c, sql, await analyze(c, sql));
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof SqlError, String(e));
      return `${e.sqlstate} ${e.message}`;
    }
  };

  test('a view the parse reads as a relation is the file read it binds to: refused', async () => {
    const sql = 'SELECT upper(content) FROM notes';
    assert.deepEqual((await analyze(conn, sql)).tableFunctions, []);
    assert.match(await verdict(conn, sql), /^42501 refused by the engine: table function read_text/);
  });

  test('reading operators and generators pass, parameters and all; each connection binds in its own catalog', async () => {
    assert.equal(await verdict(conn, 'SELECT x + $1::int FROM range(3) t(x) WHERE x < $2'), 'ok');
    const other = await instance.connect();
    try {
      assert.equal(await verdict(other, 'SELECT 1'), 'ok');
      assert.match(
        await verdict(other, 'SELECT * FROM notes'),
        /^42501 refused by the engine: table function read_text/,
      );
    } finally {
      other.disconnectSync();
    }
    // checks on one connection, at once: each binds its own text
    const texts = ['SELECT 1', 'SELECT * FROM notes', 'SELECT 2', 'SELECT count(*) FROM notes'];
    const got = await Promise.all(texts.map((t) => verdict(conn, t)));
    assert.deepEqual(
      got.map((g) => g.slice(0, 5)),
      ['ok', '42501', 'ok', '42501'],
    );
  });
});
