/**
 * Containment, end to end: escape attempts through every path a statement can take into DuckDB
 * (simple Query, unnamed and named extended Parse, a cursor, COPY … TO STDOUT, EXPLAIN, EXPLAIN
 * ANALYZE, SQL-level PREPARE/EXECUTE, system views), each refused with its exact SQLSTATE *and* followed by proof that nothing
 * changed: no new or changed file in the repository, cache or attack targets, the attacking session's
 * settings as they were, and another session's results unchanged. Then ordinary analytic statements
 * that must still work, and the ceilings (COPY and Execute(n) row caps, statement size and nesting,
 * statement_timeout as a ceiling, a 1 MB statement not stalling another session).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { buildBind, RawPg, type QueryResult } from './support/raw-pg.js';
import { fileListing as listing } from './support/files.js';

type Path = 'simple' | 'unnamed' | 'named' | 'cursor' | 'copy' | 'explain' | 'explain-analyze' | 'prepare';
const PATHS: Path[] = ['simple', 'unnamed', 'named', 'cursor', 'copy', 'explain', 'explain-analyze', 'prepare'];

let seq = 0;
/** Send `sql` through `path`; the first error's SQLSTATE, or 'ok'. Leaves the session idle. */
async function through(c: RawPg, path: Path, sql: string): Promise<string> {
  let r: QueryResult;
  switch (path) {
    case 'simple':
      r = await c.simple(sql);
      break;
    case 'unnamed':
      r = await c.query(sql);
      break;
    case 'named': {
      const name = `s${++seq}`;
      c.send(
        Buffer.concat([
          serialize.parse({ name, text: sql, types: [] }),
          buildBind({ statement: name }),
          serialize.execute({ rows: 0 }),
          serialize.sync(),
        ]),
      );
      r = await c.untilReady();
      break;
    }
    case 'cursor':
      r = await c.simple(`BEGIN; DECLARE cur${++seq} CURSOR FOR ${sql}; FETCH 5 FROM cur${seq}`);
      await c.simple('ROLLBACK');
      break;
    case 'copy':
      r = await c.simple(`COPY (${sql}) TO STDOUT`);
      break;
    case 'explain':
      r = await c.simple(`EXPLAIN ${sql}`);
      break;
    case 'explain-analyze':
      r = await c.simple(`EXPLAIN ANALYZE ${sql}`);
      break;
    case 'prepare':
      r = await c.simple(`PREPARE sqlp${++seq} AS ${sql}`);
      if (!r.error) r = await c.simple(`EXECUTE sqlp${seq}`);
      break;
  }
  return r.error?.code ?? 'ok';
}

describe('containment: escape attempts through every path are refused and change nothing', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const repoDir = () => repos.path('repos/basic');
  const cacheDir = () => join(repos.dir, 'cache');
  const target = join(tmpdir(), `fdl-containment-${process.pid}`);
  let attacker: RawPg;
  let other: RawPg;

  const parquet = () => {
    const dir = join(repoDir(), 'data', 'sales', 'orders');
    return join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.parquet'))!,
    );
  };

  before(async () => {
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify({ maxResultRows: 1000, statementTimeoutMs: 20_000 }));
    gw = await startGateway([
      '--repo',
      `basic=${repoDir()}`,
      '--repo',
      `other=${repoDir()}`,
      '--config',
      join(repos.dir, 'config.json'),
      '--cache-dir',
      cacheDir(),
    ]);
    attacker = await RawPg.connect({ port: gw.port, host: gw.host, user: 'mallory', database: 'basic@v1' });
    other = await RawPg.connect({ port: gw.port, host: gw.host, user: 'alice', database: 'basic@v1' });
  });
  after(async () => {
    await attacker?.close();
    await other?.close();
    await gw?.stop();
    repos.cleanup();
  });

  /** What must not change: files, the attacker's own settings, another session's answers. */
  async function state(): Promise<string> {
    const rows = async (c: RawPg, sql: string) => {
      const r = await c.simple(sql);
      assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
      return r.dataRows.map((d) => d.toString('hex')).join(',');
    };
    return JSON.stringify({
      files: listing(repos.dir),
      targets: ['', '.csv', '.db', '.log', '.parquet'].filter((s) => existsSync(target + s)),
      other: await rows(
        other,
        "SELECT count(*), sum(amount)::VARCHAR, '2024-01-01 00:00:00+00'::TIMESTAMPTZ::VARCHAR FROM sales.orders",
      ),
      otherSettings: await rows(other, 'SHOW ALL'),
      attacker: await rows(
        attacker,
        "SELECT count(*), '2024-01-01 00:00:00+00'::TIMESTAMPTZ::VARCHAR FROM sales.orders",
      ),
      attackerSettings: await rows(attacker, 'SHOW ALL'),
      unqualified: (await attacker.simple('SELECT * FROM orders')).error?.code,
    });
  }

  test('≥ 100 escape attempts: the exact SQLSTATE, and nothing changed afterwards', async () => {
    const attacks: [string, string][] = [
      ["SELECT * FROM read_csv('/etc/passwd')", '42501'],
      ["SELECT * FROM read_text('/etc/hostname')", '42501'],
      [`SELECT * FROM '${repoDir()}/data/**/*.parquet'`, '42501'],
      [`SELECT * FROM "${parquet()}"`, '42501'],
      [`FROM/**/'${cacheDir()}/**'`, '42501'],
      ["WITH c AS (SELECT * FROM '/etc/passwd') SELECT * FROM c", '42501'],
      ["SELECT * FROM sales.orders o, LATERAL (SELECT * FROM read_blob('/etc/hostname')) x", '42501'],
      [`SELECT (SELECT count(*) FROM glob('${repoDir()}/**'))`, '42501'],
      [`SELECT * FROM read_duckdb('${cacheDir()}/x.db')`, '42501'],
      ["SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))", '42501'],
      [`SELECT * FROM parquet_full_metadata('${parquet()}')`, '42501'],
      [`SELECT * FROM enable_logging(storage := 'file', storage_path := '${target}.log')`, '42501'],
      ['SELECT * FROM enable_profiling()', '42501'],
      ['SELECT * FROM enable_peg_parser()', '42501'],
      ['SELECT * FROM duckdb_settings()', '42501'],
      ['SELECT * FROM duckdb_databases', '42P01'],
      ["SELECT system.main.current_setting('temp_directory')", '42501'],
      ["SELECT write_log('x', log_type := 'QueryLog')", '42501'],
      ['SELECT * FROM system.main.duckdb_tables', '0A000'], // another database: PostgreSQL's cross-database refusal
      [`SUMMARIZE "${parquet()}"`, '42501'],
      [`DESCRIBE '${parquet()}'`, '42501'],
      ["SELECT * FROM query_table('sales.orders')", '42501'],
      ["SELECT * FROM sniff_csv('/etc/passwd')", '42501'],
      ["SELECT * FROM fdl.versions, read_text('/etc/hostname')", '42501'],
      ['CREATE OR REPLACE VIEW sales.orders AS SELECT 1 AS x', '25006'],
      ['INSERT INTO sales.orders SELECT * FROM sales.orders', '25006'],
      [`COPY sales.orders TO '${target}.csv'`, '42501'],
      [`COPY (SELECT 1) TO '${target}.parquet' (FORMAT parquet)`, '42501'],
      ['CREATE TABLE t AS SELECT 1', '25006'],
      ['SET GLOBAL threads = 1', '42501'],
      ["SET GLOBAL TimeZone = 'Asia/Tokyo'", '42501'],
      [`ATTACH '${target}.db' AS x`, '42501'],
      ['INSTALL httpfs', '42501'],
      ['PRAGMA enable_profiling', '42501'],
      ['CALL enable_logging()', '42501'],
      ['SET VARIABLE x = 1', '42501'],
      ['USE memory', '42501'],
      ['CHECKPOINT', '42501'],
      [`LOAD '${target}'`, '42501'],
      // DuckDB's syntax, which the PostgreSQL rewrite never reads: DuckDB's own built-in would answer
      // (has_table_privilege true for anything, current_database the attached database's name)
      ["FROM sales.orders SELECT has_table_privilege('nosuch', 'SELECT')", '0A000'],
      ['FROM range(1) SELECT current_database()', '0A000'],
      ['SELECT [1] AS l, pg_catalog.version()', '0A000'],
    ];
    const before = await state();
    const wrong: string[] = [];
    let n = 0;
    for (const [sql, code] of attacks) {
      for (const path of PATHS) {
        n++;
        const got = await through(attacker, path, sql);
        if (got !== code) wrong.push(`${path}: ${sql}: expected ${code}, got ${got}`);
      }
      assert.equal(await state(), before, `state changed after ${sql}`);
    }
    assert.ok(n >= 100, `${n} attempts`);
    assert.deepEqual(wrong, []);
  });

  test('≥ 50 ordinary analytic statements still work', async () => {
    const ok: string[] = [
      'SELECT 1',
      'SELECT count(*) FROM sales.orders',
      "FROM sales.orders SELECT date_trunc('month', ordered_at) AS m, count(*) GROUP BY ALL ORDER BY m", // a value-only emulated name in DuckDB's syntax
      'SELECT status, count(*), sum(amount) FROM sales.orders GROUP BY status ORDER BY status',
      'SELECT o.order_id, c.name FROM sales.orders o JOIN sales.customers c USING (customer_id) ORDER BY 1 LIMIT 5',
      'SELECT c.country, count(o.order_id) FROM sales.customers c LEFT JOIN sales.orders o ON o.customer_id = c.customer_id GROUP BY ALL ORDER BY 1',
      'SELECT order_id, row_number() OVER (PARTITION BY status ORDER BY amount DESC) FROM sales.orders ORDER BY 1',
      'SELECT order_id, lag(amount) OVER (ORDER BY order_id), lead(amount, 2) OVER (ORDER BY order_id) FROM sales.orders',
      'SELECT order_id, sum(amount) OVER (ORDER BY ordered_at ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM sales.orders',
      'SELECT ntile(4) OVER (ORDER BY amount), rank() OVER (ORDER BY qty), dense_rank() OVER (ORDER BY qty) FROM sales.orders',
      'SELECT first_value(order_id) OVER w, last_value(order_id) OVER w FROM sales.orders WINDOW w AS (ORDER BY order_id)',
      'WITH big AS (SELECT * FROM sales.orders WHERE amount > 10) SELECT count(*) FROM big',
      'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT sum(i) FROM n',
      'WITH a AS (SELECT customer_id FROM sales.orders), b AS (SELECT DISTINCT customer_id FROM a) SELECT count(*) FROM b',
      'SELECT * FROM range(5)',
      'SELECT * FROM generate_series(1, 5)',
      'SELECT unnest([1, 2, 3])',
      'SELECT * FROM unnest([1, 2, 3]) AS t(x)',
      'SELECT x FROM range(3) r(x) CROSS JOIN LATERAL (SELECT x * 2 AS y) l',
      "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s)",
      'VALUES (1), (2)',
      'TABLE sales.customers',
      'FROM sales.orders LIMIT 2',
      'SELECT customer_id FROM sales.orders UNION SELECT customer_id FROM sales.customers',
      'SELECT customer_id FROM sales.customers EXCEPT SELECT customer_id FROM sales.orders',
      'SELECT customer_id FROM sales.customers INTERSECT SELECT customer_id FROM sales.orders',
      'SELECT * FROM sales.orders WHERE customer_id IN (SELECT customer_id FROM sales.customers WHERE vip)',
      'SELECT * FROM sales.customers c WHERE EXISTS (SELECT 1 FROM sales.orders o WHERE o.customer_id = c.customer_id)',
      'SELECT (SELECT max(amount) FROM sales.orders) AS top',
      "SELECT date_trunc('month', ordered_at) AS m, sum(amount) FROM sales.orders GROUP BY 1 ORDER BY 1",
      "SELECT strftime(ordered_at, '%Y-%m') FROM sales.orders LIMIT 3",
      "SELECT upper(name), length(email), coalesce(country, '?') FROM sales.customers",
      "SELECT regexp_replace(email, '@.*', '') FROM sales.customers",
      "SELECT CASE WHEN amount > 50 THEN 'big' ELSE 'small' END, count(*) FROM sales.orders GROUP BY 1",
      'SELECT amount::INTEGER, qty::VARCHAR, CAST(order_id AS DOUBLE) FROM sales.orders LIMIT 3',
      'SELECT list(order_id ORDER BY order_id) FROM sales.orders',
      "SELECT string_agg(name, ', ') FROM sales.customers",
      'SELECT median(amount), quantile_cont(amount, 0.9), stddev(amount) FROM sales.orders',
      'SELECT approx_count_distinct(customer_id) FROM sales.orders',
      'SELECT status, count(*) FILTER (WHERE qty > 1) FROM sales.orders GROUP BY ROLLUP (status)',
      'SELECT * FROM sales.orders QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1',
      'SELECT * FROM sales.orders ORDER BY amount DESC NULLS LAST LIMIT 3',
      "SELECT {'a': 1, 'b': [1, 2]} AS s",
      'SELECT [x * 2 FOR x IN [1, 2, 3]]',
      'SELECT list_transform([1, 2], x -> x + 1)',
      'DESCRIBE sales.orders',
      'SUMMARIZE sales.orders',
      'EXPLAIN SELECT count(*) FROM sales.orders',
      'EXPLAIN ANALYZE SELECT count(*) FROM sales.orders',
      'SELECT * FROM fdl.session',
      'SELECT * FROM fdl.versions',
      'SELECT * FROM fdl.refs',
      'SELECT count(*) FROM "basic@v2".sales.orders',
      'SELECT a.n - b.n FROM (SELECT count(*) n FROM "basic@v2".sales.orders) a, (SELECT count(*) n FROM sales.orders) b',
      "SELECT relname FROM pg_catalog.pg_class WHERE relname = 'orders'",
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = 'sales' ORDER BY 2",
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders' ORDER BY ordinal_position",
      'SELECT nspname FROM pg_namespace ORDER BY 1',
      "SELECT current_setting('TimeZone'), current_database(), current_user, version()",
      "SELECT now() > TIMESTAMP '2000-01-01'",
      'SELECT md5(name), hash(email) FROM sales.customers LIMIT 1',
      'SELECT * FROM sales.orders USING SAMPLE 50%',
    ];
    assert.ok(ok.length >= 50);
    const failed: string[] = [];
    for (const sql of ok) {
      const r = await attacker.simple(sql);
      if (r.error) failed.push(`${sql}: ${r.error.code} ${r.error.message}`);
      else if (!/^(SELECT|EXPLAIN|SHOW)/.test(r.commandTag ?? '') && r.dataRows.length === 0)
        failed.push(`${sql}: no rows (${r.commandTag})`);
    }
    assert.deepEqual(failed, []);
    // The same statements through the extended protocol (unnamed Parse) give the same rows.
    for (const sql of ok.slice(0, 20)) {
      const a = await attacker.simple(sql);
      const b = await attacker.query(sql);
      assert.deepEqual(b.dataRows, a.dataRows, sql);
    }
  });

  test('SQL-level PREPARE / EXECUTE / DEALLOCATE of admitted statements work as in PostgreSQL', async () => {
    const rows = async (sql: string) => {
      const r = await attacker.simple(sql);
      assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
      return { tag: r.commandTag, rows: r.dataRows.length };
    };
    assert.deepEqual(await rows('PREPARE big(int) AS SELECT order_id FROM sales.orders WHERE qty > $1'), {
      tag: 'PREPARE',
      rows: 0,
    });
    const all = (await rows('SELECT order_id FROM sales.orders WHERE qty > 1')).rows;
    assert.deepEqual(await rows('EXECUTE big(1)'), { tag: `SELECT ${all}`, rows: all });
    assert.deepEqual(await rows('EXECUTE big(0 + 1)'), { tag: `SELECT ${all}`, rows: all });
    assert.equal((await attacker.simple('EXECUTE big')).error?.code, '42601');
    assert.equal((await attacker.simple('PREPARE big AS SELECT 1')).error?.code, '42P05');
    assert.equal(
      (await attacker.simple("EXECUTE big((SELECT count(*) FROM read_text('/etc/hostname')))")).error?.code,
      '42501',
    );
    assert.deepEqual(await rows('DEALLOCATE big'), { tag: 'DEALLOCATE', rows: 0 });
    assert.equal((await attacker.simple('EXECUTE big(1)')).error?.code, '26000');
  });

  test('no absolute server path in view definitions or catalog views', async () => {
    for (const sql of [
      "SELECT pg_get_viewdef('sales.orders'::regclass)",
      "SELECT string_agg(pg_get_viewdef(c.oid), ' ') FROM pg_class c WHERE c.relkind = 'v'",
      "SELECT string_agg(definition, ' ') FROM pg_views",
      "SELECT string_agg(view_definition, ' ') FROM information_schema.views",
    ]) {
      const r = await attacker.simple(sql);
      assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
      const text = r.dataRows.map((d) => d.toString()).join('\n');
      assert.ok(!text.includes(repos.dir) && !text.includes(cacheDir()), `${sql} shows a server path`);
    }
    // A table has no definition (NULL, as in PostgreSQL): not even its files' names (test/catalog-no-internals.test.ts).
    assert.doesNotMatch(
      (await attacker.simple("SELECT pg_get_viewdef('sales.orders'::regclass)")).dataRows[0]!.toString(),
      /parquet/,
    );
  });

  test('row cap holds for COPY … TO STDOUT and across repeated Execute(n)', async () => {
    const before = await state();
    const copy = await attacker.simple('COPY (SELECT * FROM range(5000)) TO STDOUT');
    assert.equal(copy.error?.code, '54000');
    const under = await attacker.simple('COPY (SELECT * FROM range(900)) TO STDOUT');
    assert.equal(under.error, undefined);
    assert.equal(under.commandTag, 'COPY 900');
    // One portal, three Execute(400): the third passes 1,000 rows.
    await attacker.simple('BEGIN');
    attacker.send(
      Buffer.concat([
        serialize.parse({ text: 'SELECT * FROM range(5000)', types: [] }),
        buildBind({}),
        serialize.execute({ rows: 400 }),
        serialize.execute({ rows: 400 }),
        serialize.execute({ rows: 400 }),
        serialize.sync(),
      ]),
    );
    const r = await attacker.untilReady();
    assert.equal(r.error?.code, '54000');
    assert.ok(r.dataRows.length <= 1000, `${r.dataRows.length} rows sent`);
    await attacker.simple('ROLLBACK');
    assert.equal(await state(), before);
  });

  test('statement_timeout is a ceiling: a session may lower it, never raise or disable it', async () => {
    const off = await attacker.simple('SET statement_timeout = 0');
    assert.equal(off.error, undefined);
    const warning = off.messages.find((m) => m.code === 'N');
    assert.match(String((warning?.parsed as { message?: string } | undefined)?.message), /cannot exceed/);
    assert.equal((warning?.parsed as { severity?: string }).severity, 'WARNING');
    const show = async () => (await attacker.simple('SHOW statement_timeout')).dataRows[0]!.subarray(11).toString();
    assert.equal(await show(), '20s');
    await attacker.simple("SET statement_timeout = '1h'");
    assert.equal(await show(), '20s');
    await attacker.simple("SET statement_timeout = '5s'");
    assert.equal(await show(), '5s');
    await attacker.simple('RESET statement_timeout');
    assert.equal(await show(), '20s');
  });

  test('statement size and nesting ceilings', async () => {
    const before = await state();
    const long = await attacker.simple(`SELECT 1 AS "${'x'.repeat(300 * 1024)}"`);
    assert.equal(long.error?.code, '54000');
    const deep = await attacker.simple(`SELECT ${'('.repeat(2000)}1${')'.repeat(2000)}`);
    assert.equal(deep.error?.code, '54001');
    const deepExtended = await attacker.query(`SELECT ${'['.repeat(900)}1${']'.repeat(900)}`);
    assert.equal(deepExtended.error?.code, '54001');
    // Another session's worst-case SELECT 1 while big texts are handled: test/ceilings.test.ts.
    assert.equal(await state(), before);
  });
});
