/**
 * Every escape payload of the containment tests (test/containment.test.ts, test/admission.test.ts,
 * the EXPLAIN-quote and CTE-scope payloads, pg_get_viewdef, the emulation's internals) run
 * once with admission switched off (FDL_TEST_ADMISSION=off): the engine line alone — DuckDB's own
 * binding of the statement (analysis/side-effects.ts), one sealed instance per repository, the locked
 * configuration — answers each with its exact SQLSTATE, writes nothing, reads nothing of the other
 * repository, and another session's answers stay the same.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';
import { fileListing as listing } from './support/files.js';

describe('every escape payload with admission off', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/odd_names');
  const granted = () => repos.path('repos/basic');
  const secret = () => repos.path('repos/odd_names');
  const target = () => join(granted(), 'data', 'evil');
  let attacker: RawPg;
  let other: RawPg;

  before(async () => {
    gw = await startGateway(
      ['--repo', `granted=${granted()}`, '--repo', `secret=${secret()}`, '--cache-dir', join(repos.dir, 'cache')],
      {
        env: { FDL_TEST_ADMISSION: 'off', FDL_TEST_ADMISSION_I_AM_A_TEST: 'yes' },
      },
    );
    attacker = await RawPg.connect({ port: gw.port, host: gw.host, user: 'mallory', database: 'granted@v1' });
    other = await RawPg.connect({ port: gw.port, host: gw.host, user: 'alice', database: 'granted@v1' });
  });
  after(async () => {
    await attacker?.close();
    await other?.close();
    await gw?.stop();
    repos.cleanup();
  });

  const rows = async (c: RawPg, sql: string) => {
    const r = await c.simple(sql);
    assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
    return r.dataRows.map((d) => d.toString('hex'));
  };
  const state = async () =>
    JSON.stringify({
      files: listing(repos.dir).filter((l) => !l.includes('/cache/')),
      targets: ['', '.csv', '.db', '.log', '.parquet'].filter((s) => existsSync(target() + s)),
      other: await rows(other, 'SELECT count(*), sum(amount)::VARCHAR FROM sales.orders'),
      otherViews: await rows(other, 'SELECT count(*) FROM sales.customers'),
      otherCatalog: await rows(
        other,
        "SELECT c.oid::int8, c.relname, c.relkind, format_type(a.atttypid, a.atttypmod), quote_ident(a.attname) FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relnamespace <> 'pg_catalog'::regnamespace AND a.attnum > 0 ORDER BY 1, 4, 5",
      ),
      // DuckDB's own current_setting (the PostgreSQL one answers 42704 for DuckDB-only names, as PostgreSQL does)
      otherSettings: await rows(
        other,
        "SELECT system.main.current_setting('threads'), system.main.current_setting('memory_limit'), current_setting('TimeZone')",
      ),
    });

  test('each payload: its exact SQLSTATE, nothing written, nothing of the other repository read', async () => {
    const meta = (p: string) => `${p}/versions/*/ducklake.duckdb`;
    const payloads: [string, string][] = [
      // the two differentials
      [`EXPLAIN(ANALYZE ') SELECT ') COPY (SELECT 1) TO '${target()}.parquet' --' AS a`, '42601'],
      [
        `EXPLAIN(ANALYZE ') SELECT ') SELECT error(string_agg(x::VARCHAR, ',')) FROM read_parquet('${secret()}/data/**/*.parquet') x --' AS a`,
        '42601',
      ],
      [
        `WITH a AS (SELECT * FROM '${secret()}/data/**/*.parquet'), "${secret()}/data/**/*.parquet" AS (SELECT 1) SELECT * FROM a`,
        '42501',
      ],
      [
        `WITH a AS (SELECT * FROM duckdb_databases()), "duckdb_databases" AS (SELECT 1) SELECT string_agg(path, ',') FROM a WHERE path LIKE '%odd_names%'`,
        '42501',
      ],
      // the instance's own state that names the server's files or other versions' databases (issue 23)
      ["SELECT string_agg(path, ',') FROM duckdb_databases()", '42501'],
      ['SELECT * FROM pragma_database_size()', '42501'],
      ['SELECT * FROM duckdb_settings()', '42501'],
      // what EXPLAIN ANALYZE would run, spelled plainly and under the gateway's EXPLAIN
      [`EXPLAIN ANALYZE COPY (SELECT 1) TO '${target()}.csv'`, '42501'],
      ['EXPLAIN ANALYZE CREATE OR REPLACE VIEW sales.orders AS SELECT 1 AS forged', '25006'],
      ['EXPLAIN ANALYZE SELECT * FROM checkpoint()', '42501'],
      ["EXPLAIN ANALYZE SELECT * FROM enable_logging(storage := 'file')", '42501'],
      // file reads
      ["SELECT * FROM read_csv('/etc/passwd')", '42501'],
      ["SELECT * FROM read_text('/etc/hostname')", '42501'],
      [`SELECT * FROM read_parquet('${secret()}/data/**/*.parquet')`, '42501'],
      [`SELECT * FROM '${secret()}/data/**/*.parquet'`, '42501'],
      [`SELECT * FROM read_blob('${meta(secret())}')`, '42501'],
      [`SELECT * FROM read_text('${granted()}/refs/tags/v1')`, '42501'],
      [`SELECT count(*) FROM glob('${granted()}/**')`, '42501'],
      [`SELECT * FROM read_duckdb('${meta(granted())}')`, '42501'],
      ["SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))", '42501'],
      [`SELECT * FROM parquet_full_metadata('${granted()}/data/**/*.parquet')`, '42501'],
      ["SELECT * FROM sniff_csv('/etc/passwd')", '42501'],
      ["SELECT * FROM sales.orders o, LATERAL (SELECT * FROM read_blob('/etc/hostname')) x", '42501'],
      // side-effecting table functions DuckDB runs despite the configuration lock
      [`SELECT * FROM enable_logging(storage := 'file', storage_path := '${target()}.log')`, '42501'],
      ['SELECT * FROM enable_profiling()', '42501'],
      ['SELECT * FROM enable_peg_parser()', '42501'],
      ['SELECT * FROM checkpoint()', '42501'],
      ['SELECT * FROM force_checkpoint()', '42501'],
      // writes and engine statements
      ['CREATE OR REPLACE VIEW sales.orders AS SELECT 1 AS forged', '25006'],
      ['INSERT INTO sales.orders SELECT * FROM sales.orders', '25006'],
      ['CREATE TABLE t AS SELECT 1', '25006'],
      [`COPY (SELECT 1) TO '${target()}.parquet' (FORMAT parquet)`, '42501'],
      [`COPY sales.orders TO '${target()}.csv'`, '42501'],
      ['SET GLOBAL threads = 1', '42501'],
      ["SET GLOBAL TimeZone = 'Asia/Tokyo'", '42501'],
      [`ATTACH '${target()}.db' AS x`, '42501'],
      ['CHECKPOINT', '42501'],
      ['PRAGMA enable_profiling', '42501'],
      ['CALL enable_logging()', '42501'],
      ['INSTALL httpfs', '42501'],
      // the other repository by name, its catalogs and its views' SQL
      ['SELECT * FROM "secret@v1".main."UPPER case"', '0A000'],
      ["SELECT string_agg(pg_get_viewdef(oid), ' ') FROM pg_class", 'ok:'],
      ['FROM pg_get_viewdef(1)', '42501'],
      ['SELECT * FROM fdl_pg.pgcat._rel', 'ok:'],
      ["SELECT string_agg(sql, ' ') FROM duckdb_views()", '42501'],
      // the catalog emulation every session of the repository reads: its macros, views, tables and version rows
      ['CREATE TABLE fdl_pg.pgcat.forged AS SELECT 1 AS x', '25006'],
      [
        "INSERT INTO fdl_pg_versions.pgcat._rel_by_db (db, oid, relname, nspname, relkind) VALUES (current_database(), 424242, 'forged', 'main', 'r')",
        '25006',
      ],
      ["UPDATE fdl_pg.pgcat._types SET fmt = 'forged'", '25006'],
      ['DELETE FROM fdl_pg_versions.pgcat._cols_by_db', '25006'],
      ['CREATE OR REPLACE VIEW fdl_pg.pgcat.pg_class AS SELECT 1 AS forged', '25006'],
      ["CREATE OR REPLACE MACRO fdl_pg.pgcat.format_type(oid, typmod) AS 'forged'", '25006'],
      ["CREATE OR REPLACE MACRO fdl_pg.pgcat._pgsem_likeof(a, b) AS 'forged'", '25006'],
      ['DROP VIEW fdl_pg.pgcat.pg_namespace', '25006'],
      ["EXPLAIN ANALYZE CREATE OR REPLACE MACRO fdl_pg.pgcat.quote_ident(x) AS 'forged'", '25006'],
      // DuckDB itself lets a raw connection detach a read-only database and attach an empty one in its
      // place (no setting forbids it): the statement-type check refuses both (docs/security.md)
      ['DETACH fdl_pg_versions', '42501'],
      ["ATTACH ':memory:' AS fdl_pg_forged", '42501'],
    ];
    const before = await state();
    const wrong: string[] = [];
    for (const [sql, want] of payloads) {
      const r = await attacker.simple(sql);
      const got = r.error ? r.error.code : 'ok:';
      if (got !== want) wrong.push(`${sql}: expected ${want}, got ${got} ${r.error?.message ?? ''}`);
      const answered = r.dataRows.map(String).join('\n') + (r.error?.message ?? '');
      assert.ok(
        !answered.includes(secret()) && !answered.includes('odd_names'),
        `${sql} answered something of the other repository`,
      );
      assert.equal(await state(), before, `state changed after ${sql}`);
    }
    assert.deepEqual(wrong, []);
  });

  test("the version's views database cannot be changed past every layer (attached READ_ONLY: test/views-read-only.test.ts)", async () => {
    // the listing that would show it names every attached database's absolute path: refused by the engine line too
    const r = await attacker.simple(
      "SELECT database_name, readonly FROM duckdb_databases() WHERE database_name LIKE 'granted@%' ORDER BY 1",
    );
    assert.equal(r.error?.code, '42501', r.error?.message);
    const before = await state();
    for (const sql of [
      'CREATE OR REPLACE VIEW sales.orders AS SELECT 1 AS forged',
      `CREATE OR REPLACE VIEW "granted@v1".sales.orders AS SELECT 1 AS forged`,
    ]) {
      assert.equal((await attacker.simple(sql)).error?.code, '25006', sql);
      assert.equal(await state(), before, sql);
    }
  });
});
