/**
 * The result cache answers catalog statements too (issue 24, catalog speed): a catalog text whose
 * objects answer alike for every session with the same version attachment, user and settings
 * (pg/catalog/session-free.ts) is answered for the next such session from its recorded rows. What a
 * catalog answer depends on beyond that key — a session's own settings that the key leaves out, its
 * backend, the connected database name — keeps it out of the cache: each session, with the cache on,
 * gets exactly the rows it gets with the cache off.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { consistentFunctions, isRepeatable } from '../src/analysis/determinism.js';
import { analyze } from '../src/analysis/analysis.js';
import { isSessionFreeCatalogObject } from '../src/pg/catalog/install.js';
import { sessionFreeObjects } from '../src/pg/catalog/session-free.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { serveBasic, type RunningGateway } from './support/gateway.js';

/** psql 15's `\d` list query. */
const PSQL_LIST = `SELECT n.nspname as "Schema", c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 's' THEN 'special' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r','p','v','m','S','f','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast'
  AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2`;

/** psql 15's `\d <table>` texts that name relations through regclass (quote_ident) or read a list in FROM (unnest). */
const PSQL_DESCRIBE = [
  `SELECT c.oid::pg_catalog.regclass FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhparent AND i.inhrelid = '16384' AND c.relkind != 'p' AND c.relkind != 'I' ORDER BY inhseqno`,
  `SELECT c.relchecks, c.relkind, pg_catalog.array_to_string(c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', ')
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid) WHERE c.oid = '16384'`,
  `SELECT pg_catalog.quote_ident('select'), pg_catalog.quote_ident('current_timestamp'), pg_catalog.quote_ident('x')`,
];

/** Catalog statements whose answer depends on the session beyond the key: never cached. */
const SESSION_BOUND = [
  `SELECT setting FROM pg_catalog.pg_settings WHERE name = 'application_name'`,
  `SELECT current_setting('application_name')`,
  `SELECT pg_backend_pid()`,
  `SELECT pid, application_name FROM pg_catalog.pg_stat_activity`,
  `SELECT datname FROM pg_catalog.pg_database ORDER BY 1`,
  `SELECT current_database()`,
  `SELECT version()`,
  `SELECT table_catalog, table_name FROM information_schema.tables ORDER BY 2`,
];

describe('catalog statements: which are repeatable', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let consistent: Set<string>;
  const repeatable = async (sql: string) =>
    isRepeatable(
      await analyze(conn, rewriteForDuckDB(sql)),
      consistent,
      'v@1',
      { isVersionTable: () => false, isVersionFunction: () => false },
      isSessionFreeCatalogObject,
    );

  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    consistent = await consistentFunctions(conn);
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  test('relations, types, functions and the helpers over them are; settings, backends, clock and database names are not', async () => {
    for (const sql of [
      PSQL_LIST,
      `select proargtypes from pg_proc where oid = '2406'`,
      `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'sales.orders'::regclass`,
      `SELECT oid, typname FROM pg_type WHERE typname IN ('int4', 'text')`,
      `SELECT current_schema(), current_schemas(true)`,
      ...PSQL_DESCRIBE,
    ])
      assert.equal(await repeatable(sql), true, sql);
    for (const sql of [
      ...SESSION_BOUND,
      `SELECT relname, now() FROM pg_catalog.pg_class`,
      `SELECT relname FROM pg_catalog.pg_class WHERE random() < 2`,
      `SELECT x FROM read_csv('/etc/hosts') x`,
      `SELECT x FROM unnest([now()]) x`,
    ])
      assert.equal(await repeatable(sql), false, sql);
  });
});

test('a body is session-bound by what it calls, not by the words of its string literals', () => {
  const free = sessionFreeObjects([
    `CREATE MACRO fdl_pg.pgcat.words(x) AS contains(' current_timestamp now() localtime ', x)`,
    `CREATE MACRO fdl_pg.pgcat.clock() AS current_timestamp`,
    `CREATE MACRO fdl_pg.pgcat.quoted_clock() AS 'it''s ' || CAST(now() AS VARCHAR)`,
    `CREATE MACRO fdl_pg.pgcat.keyed() AS getvariable('pg_user') || getvariable('pg_search_schemas')[1]`,
    `CREATE MACRO fdl_pg.pgcat.unkeyed() AS getvariable('pg_application_name')`,
    `CREATE MACRO fdl_pg.pgcat.uses_clock() AS fdl_pg.pgcat.clock()`,
  ]);
  assert.deepEqual(
    ['words', 'clock', 'quoted_clock', 'keyed', 'unkeyed', 'uses_clock'].map((n) => free('pgcat', n)),
    [true, false, false, true, false, false],
  );
});

describe('catalog statements: through a real client', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await serveBasic();
  });
  after(() => gw?.stop());

  async function connect(options: { database?: string; application_name?: string } = {}): Promise<pg.Client> {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic@v1', ...options });
    await c.connect();
    return c;
  }
  const hits = async (c: pg.Client) =>
    Number((await c.query(`SELECT hits FROM fdl.cache WHERE cache = 'results'`)).rows[0].hits);
  const rows = async (c: pg.Client, sql: string) => (await c.query({ text: sql, rowMode: 'array' })).rows;

  test("psql's \\d in the next session is answered from the cache, with the same rows", async () => {
    const a = await connect();
    const b = await connect();
    try {
      const first = await rows(a, PSQL_LIST);
      assert.ok(first.length > 0);
      const before = await hits(a);
      assert.deepEqual(await rows(b, PSQL_LIST), first);
      assert.equal(await hits(a), before + 1, 'the second session was answered from the cache');
    } finally {
      await a.end();
      await b.end();
    }
  });

  test("psql's \\d <table> texts naming relations by regclass in the next session are answered from the cache", async () => {
    const a = await connect();
    const b = await connect();
    try {
      const sql = `SELECT c.oid::pg_catalog.regclass, c.oid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relname IN ('orders', 'customers') ORDER BY 2`;
      const first = await rows(a, sql);
      assert.equal(first.length, 2);
      const before = await hits(a);
      assert.deepEqual(await rows(b, sql), first);
      assert.equal(await hits(a), before + 1, 'the second session was answered from the cache');
    } finally {
      await a.end();
      await b.end();
    }
  });

  test("a statement whose columns are typed only by its parameters (SQLAlchemy 2's get_columns) is answered from the cache when its run was described as planned, never otherwise", async () => {
    const described = async (c: pg.Client, text: string, values: unknown[]) => {
      const r = await c.query({ text, values, rowMode: 'array' });
      return { fields: r.fields.map((f) => [f.name, f.dataTypeID, f.dataTypeModifier]), rows: r.rows };
    };
    // to_json of a parameter's sum: DuckDB types the column only with the value; node pg describes the portal
    const typedAtRun = `SELECT to_json(a.attnum + $1) AS j, a.attname FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relname = 'orders' AND a.attnum > 0 ORDER BY 2`;
    // a numeric parameter is planned with its value written in (session/value-plans.ts): each value its own text
    const typedByValue = `SELECT $1::numeric + 0 AS v, $1::numeric AS w`;
    const a = await connect();
    const b = await connect();
    const off = await connect();
    try {
      await off.query(`SET fdl.result_cache = off`);
      const first = await described(a, typedAtRun, [10]);
      assert.ok(first.rows.length > 3);
      const before = await hits(a);
      assert.deepEqual(await described(b, typedAtRun, [10]), first);
      assert.equal(await hits(a), before + 1, 'the second session was answered from the cache');
      assert.deepEqual(await described(off, typedAtRun, [10]), first);
      const byValue = await described(a, typedByValue, ['1.5']);
      assert.deepEqual(await described(b, typedByValue, ['1.5']), byValue);
      assert.deepEqual(await described(off, typedByValue, ['1.5']), byValue);
      // another value never gets the first one's answer
      assert.deepEqual((await described(b, typedByValue, ['2.25'])).rows, [['2.25', '2.25']]);
    } finally {
      await Promise.all([a.end(), b.end(), off.end()]);
    }
  });

  test('each session gets the rows it gets with the cache off: search_path, application name, backend, database name', async () => {
    const texts = [
      PSQL_LIST,
      `SELECT 'orders'::regclass::oid`,
      `SELECT current_schemas(false)`,
      `SELECT c.oid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relname = 'orders'`,
      ...SESSION_BOUND,
    ];
    const sessions = [
      await connect({ application_name: 'one' }),
      await connect({ application_name: 'two' }),
      await connect({ database: 'basic' }),
    ];
    try {
      for (const path of ['sales', 'main, sales', 'main']) {
        for (const c of sessions) {
          await c.query(`SET search_path = ${path}`);
          for (const sql of texts) {
            await c.query('SET fdl.result_cache = on');
            const cached = [await rows(c, sql).catch((e: Error) => e.message)];
            cached.push(await rows(c, sql).catch((e: Error) => e.message));
            await c.query('SET fdl.result_cache = off');
            const uncached = await rows(c, sql).catch((e: Error) => e.message);
            assert.deepEqual(cached, [uncached, uncached], `${sql} with search_path ${path}`);
          }
        }
      }
    } finally {
      for (const c of sessions) await c.end();
    }
  });
});

describe('catalog statements: a version attached again', () => {
  let gw: RunningGateway;
  // one idle version kept: reading two others detaches v1, and its next session attaches it anew
  before(async () => {
    gw = await serveBasic([], { config: { maxIdleVersions: 1 } });
  });
  after(() => gw?.stop());

  const oidOf = async (database: string, cache: 'on' | 'off') => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
    await c.connect();
    try {
      await c.query(`SET fdl.result_cache = ${cache}`);
      const r = await c.query(`SELECT c.oid::bigint AS oid FROM pg_catalog.pg_class c WHERE c.relname = 'orders'`);
      // RowDescription's table OID of a plain column (PQftable) names the same relation as pg_class
      const row = await c.query('SELECT * FROM sales.orders LIMIT 1');
      assert.equal(String(row.fields[0]!.tableID), String(r.rows[0]?.oid), `${database}: PQftable is pg_class.oid`);
      return String(r.rows[0]?.oid);
    } finally {
      await c.end();
    }
  };

  test("gets that attachment's OIDs, not the answer cached for the one before", async () => {
    const first = await oidOf('basic@v1', 'on');
    for (const other of ['basic@v2', 'basic@dev', 'basic@main']) await oidOf(other, 'off');
    const uncached = await oidOf('basic@v1', 'off');
    assert.notEqual(uncached, first, 'v1 was attached again (the views builder gave its relations new OIDs)');
    assert.equal(await oidOf('basic@v1', 'on'), uncached);
  });
});
