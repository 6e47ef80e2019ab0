/**
 * Admission by allowlist, without sockets: DuckDB's own parse (analysis/analysis.ts) and the allowlist
 * (analysis/containment.ts) against a real DuckDB. The function snapshot makes a DuckDB upgrade that adds
 * a function fail here until someone decides about it (FDL_UPDATE_FUNCTIONS=1 rewrites the snapshot).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import {
  admit,
  allowedFunctions,
  ALLOWED_TABLE_FUNCTIONS,
  FUNCTION_KINDS,
  REFUSED_FUNCTIONS,
  type AdmissionContext,
} from '../src/analysis/containment.js';
import { FIXTURES } from './support/gateway.js';
import { redactServerPaths } from '../src/engine/duckdb-errors.js';

const SNAPSHOT = join(FIXTURES, 'duckdb-functions.json');

describe('admission: DuckDB functions are allowed or refused on purpose', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  test('every built-in in duckdb_functions() has a decision recorded in the snapshot', async () => {
    const allowed = await allowedFunctions(conn);
    const r = await conn.runAndReadAll(
      `SELECT DISTINCT function_type, lower(function_name) FROM duckdb_functions() WHERE database_name = 'system' ORDER BY ALL`,
    );
    const decisions: Record<string, 'allowed' | 'refused'> = {};
    for (const [type, name] of r.getRows().map((row) => row.map(String) as [string, string])) {
      const callable = (FUNCTION_KINDS as readonly string[]).includes(type)
        ? allowed.has(name)
        : ALLOWED_TABLE_FUNCTIONS.has(name);
      decisions[`${type}:${name}`] = callable ? 'allowed' : 'refused';
    }
    // Written only on request: a missing snapshot fails below instead of agreeing with itself.
    if (process.env.FDL_UPDATE_FUNCTIONS === '1') {
      writeFileSync(
        SNAPSHOT,
        JSON.stringify(
          { note: 'Reviewed decisions about DuckDB functions: see src/analysis/containment.ts', functions: decisions },
          null,
          1,
        ) + '\n',
      );
    }
    assert.ok(
      existsSync(SNAPSHOT),
      `${SNAPSHOT} is missing: review the decisions and write it with FDL_UPDATE_FUNCTIONS=1`,
    );
    const reviewed = (JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as { functions: Record<string, string> }).functions;
    const undecided = Object.keys(decisions).filter((k) => reviewed[k] === undefined);
    const changed = Object.keys(decisions).filter((k) => reviewed[k] !== undefined && reviewed[k] !== decisions[k]);
    assert.deepEqual(
      undecided,
      [],
      'functions DuckDB added since the snapshot: allow them (FDL_UPDATE_FUNCTIONS=1) or add them to REFUSED_FUNCTIONS',
    );
    assert.deepEqual(changed, [], 'decisions that differ from the reviewed snapshot');
    // The dangerous ones are refused whatever the snapshot says.
    for (const f of [
      'scalar:current_setting',
      'scalar:write_log',
      'scalar:json_serialize_plan',
      'scalar:nextval',
      'scalar:sleep_ms',
      'scalar:variant_normalize',
      'scalar:variant_bytes_to_variant',
      'table:read_csv',
      'table:read_duckdb',
      'table:json_execute_serialized_sql',
      'table:parquet_full_metadata',
      'table:enable_logging',
      'table:enable_profiling',
      'table:enable_peg_parser',
      'table:glob',
      'table:duckdb_settings',
      'macro:pg_get_viewdef',
      'macro:pg_get_constraintdef',
      'macro:get_block_size',
    ]) {
      if (decisions[f] !== undefined) assert.equal(decisions[f], 'refused', f);
    }
    for (const f of REFUSED_FUNCTIONS) assert.ok(!allowed.has(f), f);
  });

  test('statements: admitted, unknown (42P01), refused (42501/25006), or not parsed (42601)', async () => {
    const tables = new Set([
      'v@1:weird.schema.x/y',
      'v@1:weird.schema.Ünïcode tbl',
      'fdl_pg:pgcat._rel',
      'v@1:main.t',
      'v@1:main.t[1]',
      'v@1:sales.orders',
      'v@1:main.some_view',
      'v@2:main.t',
      'fdl_pg:pgcat.pg_class',
    ]);
    const ctx: AdmissionContext = {
      functions: await allowedFunctions(conn),
      versionDb: 'v@1',
      pinnedDbs: ['v@2'],
      compatDb: 'fdl_pg',
      hasRelation: (db, s, t) => tables.has(`${db}:${s}.${t}`),
      definesFunction: (db, name) => db === 'v@1' && name === 'my_macro',
    };
    const outcome = async (sql: string): Promise<string> => {
      try {
        admit(await analyze(conn, sql), ctx);
        return 'ok';
      } catch (e) {
        return (e as { sqlstate?: string }).sqlstate ?? String(e);
      }
    };
    const cases: [string, string][] = [
      ['SELECT 1', 'ok'],
      ['SELECT count(*) FROM t', 'ok'],
      ['SELECT * FROM sales.orders o JOIN t ON true', 'ok'],
      ['SELECT * FROM "v@1".sales.orders', 'ok'],
      ['SELECT * FROM "v@2".main.t', 'ok'],
      ['SELECT * FROM "v@2".t', 'ok'],
      ['SELECT * FROM fdl_pg.pgcat.pg_class', 'ok'],
      ['SELECT fdl_pg.pgcat.anything(1)', 'ok'],
      ['SELECT my_macro(1) FROM t', 'ok'],
      ['SELECT main.my_macro(1) FROM t', 'ok'],
      ['SELECT "V@1".my_macro(1) FROM t', '42501'],
      ['SELECT "OTHER@9".my_macro(1) FROM t', '42501'],
      ['SELECT * FROM "OTHER@9".my_macro(1)', '42501'],
      ['WITH x AS (SELECT * FROM t) SELECT * FROM x', 'ok'],
      ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r', 'ok'],
      ['SELECT row_number() OVER (), lag(1) OVER () FROM t', 'ok'],
      ['SELECT * FROM range(3), generate_series(1, 2), unnest([1, 2])', 'ok'],
      ['SELECT unnest([1, 2])', 'ok'],
      ['FROM t', 'ok'],
      ['TABLE t', 'ok'],
      ['VALUES (1), (2)', 'ok'],
      ['DESCRIBE t', 'ok'],
      ['SUMMARIZE SELECT * FROM t', 'ok'],
      ['EXPLAIN SELECT * FROM t', 'ok'],
      ['EXPLAIN ANALYZE SELECT * FROM t', 'ok'],
      ['SELECT * FROM nope', '42P01'],
      // a version table whose name only looks like a glob is that table (DuckDB binds entries first)
      ['SELECT * FROM main."t[1]"', 'ok'],
      ['SELECT * FROM "t[1]"', 'ok'],
      ['SELECT * FROM "t[2]"', '42501'],
      ['SELECT * FROM main."t[2]"', '42501'],
      ['SELECT * FROM sales.nope', '42P01'],
      ['SELECT * FROM "v@9".main.t', '3D000'],
      ["SELECT * FROM '/etc/passwd'", '42501'],
      ['SELECT * FROM "/etc/passwd"', '42501'],
      ["FROM 'data/**/*.parquet'", '42501'],
      ["SELECT * FROM/**/'x.csv'", '42501'],
      ["SELECT * FROM (SELECT * FROM 'a.parquet')", '42501'],
      ["WITH c AS (SELECT * FROM 'a.csv') SELECT * FROM c", '42501'],
      ["SELECT * FROM t, LATERAL (SELECT * FROM 'https://example.invalid/x.parquet')", '42501'],
      ['SELECT * FROM (WITH "a.csv" AS (SELECT 1) SELECT 1), "a.csv"', '42501'],
      ['SUMMARIZE "/etc/passwd"', '42501'],
      ['DESCRIBE "/etc/passwd"', '42501'],
      ["SELECT * FROM read_csv('/etc/passwd')", '42501'],
      ["SELECT * FROM read_duckdb('x.db')", '42501'],
      ["SELECT * FROM json_execute_serialized_sql('{}')", '42501'],
      ["SELECT * FROM parquet_full_metadata('x')", '42501'],
      ["SELECT * FROM enable_logging(storage := 'file')", '42501'],
      ['SELECT * FROM enable_profiling()', '42501'],
      ['SELECT * FROM duckdb_settings()', '42501'],
      ['SELECT * FROM duckdb_databases', '42P01'],
      ["SELECT current_setting('temp_directory')", '42501'],
      // the client's own text (not the rewrite's): a name the emulation answers would be DuckDB's built-in
      ["FROM t SELECT has_table_privilege('nosuch', 'SELECT')", '0A000'],
      ['FROM t SELECT pg_catalog.current_database()', '0A000'],
      ["SELECT [1] AS l, pg_has_role('x', 'y', 'USAGE')", '0A000'],
      ["FROM t SELECT date_trunc('day', TIMESTAMP '2020-01-02 03:04')", 'ok'],
      ["SELECT write_log('x')", '42501'],
      ['SELECT sleep_ms(100000)', '42501'],
      ["SELECT nextval('s')", '42501'],
      ['SELECT system.main.version()', '42501'],
      ['SELECT other.main.my_macro()', '42501'],
      // any database but the session's own, internal ones included: PostgreSQL's cross-database refusal
      ['SELECT * FROM __fdl_meta_1.main.ducklake_data_file', '0A000'],
      ['SELECT * FROM system.main.duckdb_settings', '0A000'],
      ['SELECT * FROM t AT (VERSION => 1)', '42501'],
      ["EXPLAIN ANALYZE COPY t TO '/tmp/x.csv'", '42501'],
      ['EXPLAIN ANALYZE CREATE OR REPLACE VIEW t AS SELECT 1', '25006'],
      ['EXPLAIN /**/ ANALYZE SELECT 1', 'ok'],
      // EXPLAIN's head is read by the gateway as plain words; a quote there is no option value
      ["EXPLAIN(ANALYZE ') SELECT ') COPY (SELECT 1) TO '/tmp/x.csv' --' AS a", '42601'],
      ["EXPLAIN (FORMAT 'json') SELECT 1", '42601'],
      ['EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM t', 'ok'],
      ['EXPLAIN (ANALYZE off, COSTS, BUFFERS true) SELECT * FROM t', 'ok'],
      ['EXPLAIN (FORMAT XML) SELECT 1', '0A000'],
      ['EXPLAIN (NOPE) SELECT 1', '42601'],
      ["EXPLAIN SELECT * FROM 'x.parquet'", '42501'],
      // CTE scopes as DuckDB binds them: a body sees only earlier CTEs, a recursive one also itself
      ['WITH a AS (SELECT * FROM \'x/**/*.parquet\'), "x/**/*.parquet" AS (SELECT 1) SELECT * FROM a', '42501'],
      ['WITH a AS (SELECT * FROM duckdb_databases), duckdb_databases AS (SELECT 1) SELECT * FROM a', '42P01'],
      ['WITH RECURSIVE a AS (SELECT 1 UNION ALL SELECT 1 FROM b), b AS (SELECT 2) SELECT * FROM a', '42P01'],
      ['WITH RECURSIVE a AS (SELECT * FROM duckdb_views), duckdb_views AS (SELECT 1) SELECT * FROM a', '42P01'],
      ['WITH duckdb_views AS (SELECT * FROM duckdb_views) SELECT * FROM duckdb_views', '42P01'],
      ['WITH x AS (SELECT 1) SELECT * FROM (WITH y AS (SELECT * FROM x) SELECT * FROM y)', 'ok'],
      ['WITH a AS (WITH b AS (SELECT 5) SELECT * FROM b) SELECT * FROM b', '42P01'],
      ['SELECT * FROM (WITH b AS (SELECT 3) SELECT 1) q, b', '42P01'],
      ['WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b', 'ok'],
      // DuckDB folds ASCII letters only: "ünïcode" is not the table "Ünïcode"
      ['SELECT * FROM "Weird.Schema"."x/y"', 'ok'],
      ['SELECT * FROM "weird.schema"."X/Y"', 'ok'],
      ['SELECT * FROM "Weird.Schema"."Ünïcode tbl"', 'ok'],
      ['SELECT * FROM "Weird.Schema"."ünïcode tbl"', '42501'], // unresolved: DuckDB would try it as a file
      ['SELECT * FROM "Weird.Schema"."a/b"', '42501'],
      // DuckDB's catalog-reading macros see every attached database
      ['FROM pg_get_viewdef(1)', '42501'],
      ['SELECT pg_get_viewdef(1)', '42501'],
      ['SELECT pg_get_constraintdef(1)', '42501'],
      // values built from huge constant counts are refused before DuckDB folds them at prepare
      ['SELECT len(range(300000000))', '54000'],
      ["SELECT repeat('x', 1500000000)", '54000'],
      ['SELECT count(*) FROM range(300000000)', 'ok'],
      // a qualified type name probes other attached databases (binds or not): refused from the parse
      ['SELECT CAST(\'x\' AS "V@2".main.t)', '42501'],
      ['SELECT \'x\'::"BASIC@0123456789abcdef".main.sometype', '42501'],
      ['SELECT \'x\'::"V@2".t', '42501'],
      ["SELECT TRY_CAST('x' AS otherdb.main.sometype[])", '42501'],
      ["SELECT '1'::INTEGER, 2::VARCHAR[], CAST(3 AS DECIMAL(4, 1))", 'ok'],
      // … and so does a type named by a string
      ['SELECT make_type(\'"V@2".main.foo\')', '42501'],
      ["SELECT make_type('__fdl_meta_2.main.foo')", '42501'],
      ["SELECT cast_to_type('x', make_type('system.main.foo'))", '42501'],
      ["SELECT cast_to_type('1', 1)", '42501'],
      // SHOW … FROM lists any attached catalog or schema
      ['FROM (SHOW TABLES FROM "__fdl_meta_4")', '42501'],
      ['FROM (SHOW TABLES FROM "V@2".main)', '42501'],
      ['SELECT * FROM (SHOW TABLES FROM sales)', '42501'],
      // the emulation's internal relations are the rewrite's alone
      ['SELECT * FROM fdl_pg.pgcat._rel', '42P01'],
      ["EXPLAIN SELECT * FROM read_text('/etc/hostname')", '42501'],
      ['SET GLOBAL threads = 1', '42501'],
      ["COPY (SELECT 1) TO '/tmp/x'", '42501'],
      ['CREATE TABLE x AS SELECT 1', '25006'],
      ["ATTACH 'x.db'", '42501'],
      ['SELECT 1; SELECT 2', '42601'],
      ['SELEC 1', '42601'],
    ];
    const wrong: string[] = [];
    for (const [sql, expected] of cases) {
      const got = await outcome(sql);
      if (got !== expected) wrong.push(`${sql}: expected ${expected}, got ${got}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('a statement is parsed once: the analysis is memoized by text', async () => {
    const sql = 'SELECT 41 + 1 AS memo_probe';
    const first = await analyze(conn, sql);
    assert.equal(await analyze(conn, sql), first);
  });

  test('error texts name files without the server path', () => {
    assert.equal(
      redactServerPaths('No files found that match the pattern "/srv/fdl/cache/files/ab/cd.parquet"'),
      'No files found that match the pattern "…/cd.parquet"',
    );
    assert.equal(redactServerPaths("Could not convert 'a/b/c' to INT; 1/0"), "Could not convert 'a/b/c' to INT; 1/0");
  });
});
