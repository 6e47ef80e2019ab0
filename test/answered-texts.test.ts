/**
 * A text the result cache answered for one session is answered for the next session of the same
 * scope without being planned again (session/answered-texts.ts, issue 24's catalog speed: psql sends
 * each catalog text once per session, and each paid DuckDB's prepare even when its rows came from the
 * cache). Counted by the gateway itself (fdl_statement_work_total, src/stages.ts) through a real
 * `fdl serve`, with real psql and node-postgres; and every condition planning reads still plans
 * again: another search_path or TimeZone, a grants reload, a moved branch, a failed block, a text
 * that is not repeatable.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, FIXTURES, waitFor } from './support/gateway.js';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import { serveWithMetrics, workCounts, type Served } from './support/work-counts.js';
import { describeProbe, runProbe } from './support/probe.js';
import { ResultCache, type ResultKey } from '../src/cache/result-cache.js';
import { AnsweredTexts } from '../src/session/answered-texts.js';
import type { VersionLease } from '../src/versions/lease.js';

const basic = (
  JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: { basic: { refs: Record<string, string> } };
  }
).repos.basic;

/** psql 15's `\d` list query. */
const PSQL_LIST = `SELECT n.nspname as "Schema", c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 's' THEN 'special' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r','p','v','m','S','f','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast'
  AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2`;

const WORK = ['analysis', 'duckdb_prepare', 'bind_check'] as const;
type Counts = Record<(typeof WORK)[number], number>;

const serve = serveWithMetrics;
const counts = (s: Served): Promise<Counts> => workCounts(s, WORK);

/** What `work` cost, counted by the gateway. */
async function cost(s: Served, work: () => Promise<unknown>): Promise<Counts> {
  const before = await counts(s);
  await work();
  const after = await counts(s);
  const d = {} as Counts;
  for (const w of WORK) d[w] = after[w] - before[w];
  return d;
}

const NOTHING: Counts = { analysis: 0, duckdb_prepare: 0, bind_check: 0 };

describe('a text answered for one session is answered for the next without a plan', () => {
  let s: Served;
  const repos = copyFixtures('repos/basic');
  const configFile = join(repos.dir, 'gateway.json');
  const branch = () => join(repos.path('repos/basic'), 'refs', 'heads', 'main');
  const config = (users: object) =>
    writeFileSync(configFile, JSON.stringify({ auth: 'trust', repos: { basic: repos.path('repos/basic') }, users }));
  const reloads = () => (s.stderr().match(/"event":"reload"/g) ?? []).length;

  before(async () => {
    config({});
    // --ref-ttl 0: a branch moved on disk is read at the next statement
    s = await serve(['--config', configFile, '--cache-dir', join(repos.dir, 'cache'), '--ref-ttl', '0']);
  });
  after(async () => {
    s?.proc.kill('SIGTERM');
    await new Promise((r) => (s?.proc.exitCode !== null ? r(null) : s.proc.once('exit', r)));
    repos.cleanup();
  });

  const open = async (options: { user?: string; database?: string } = {}) => {
    const c = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic@main', ...options });
    await c.connect();
    return c;
  };
  /** One session's answer of `sql` (simple Query): its columns (name, type) and rows. */
  const answer = async (sql: string, setup: string[] = [], options: { user?: string } = {}) => {
    const c = await open(options);
    try {
      for (const q of setup) await c.query(q);
      const r = await c.query({ text: sql, rowMode: 'array' });
      return { fields: r.fields.map((f) => [f.name, f.dataTypeID, f.tableID, f.columnID]), rows: r.rows };
    } finally {
      await c.end();
    }
  };
  /** `sql` in a session of its own: its answer and what answering it cost. */
  const measured = async (sql: string, setup: string[] = [], options: { user?: string } = {}) => {
    let got: Awaited<ReturnType<typeof answer>> | undefined;
    // the session's own set-up statements are planned outside the measure
    const c = await open(options);
    try {
      for (const q of setup) await c.query(q);
      const d = await cost(s, async () => {
        const r = await c.query({ text: sql, rowMode: 'array' });
        got = { fields: r.fields.map((f) => [f.name, f.dataTypeID, f.tableID, f.columnID]), rows: r.rows };
      });
      return { ...got!, cost: d };
    } finally {
      await c.end();
    }
  };

  test("psql's \\dt, run again by a new psql: answered without analysis, bind or DuckDB prepare; the same output", async () => {
    const psql = async () => {
      const r = await runProbe(
        'psql',
        [
          `host=127.0.0.1 port=${s.port} dbname=basic@main user=me connect_timeout=10`,
          '-X',
          '-P',
          'pager=off',
          '-c',
          '\\dt *.*',
        ],
        { timeoutMs: 30_000 },
      );
      assert.equal(r.code, 0, describeProbe(r));
      assert.doesNotMatch(r.stderr, /ERROR|WARNING|FATAL/, describeProbe(r));
      return r.stdout;
    };
    const first = await psql();
    assert.match(first, /orders/);
    let again = '';
    const d = await cost(s, async () => (again = await psql()));
    assert.equal(again, first);
    assert.deepEqual(d, NOTHING);
  });

  test("the next session gets the first one's columns and rows; its own session-bound texts are still planned", async () => {
    const first = await measured(PSQL_LIST);
    assert.ok(first.rows.length > 0);
    assert.ok(first.cost.duckdb_prepare >= 1, JSON.stringify(first.cost));
    const next = await measured(PSQL_LIST);
    assert.deepEqual(next.cost, NOTHING);
    assert.deepEqual([next.fields, next.rows], [first.fields, first.rows]);
    // a data query too: the RowDescription's table OIDs and attnums as planned
    const data = 'SELECT order_id, qty FROM sales.orders ORDER BY order_id LIMIT 3';
    const planned = await measured(data);
    const remembered = await measured(data);
    assert.deepEqual(remembered.cost, NOTHING);
    assert.deepEqual([remembered.fields, remembered.rows], [planned.fields, planned.rows]);
    assert.notEqual(planned.fields[0]![2], 0, 'a plain column names its table');
    // never recorded, so never remembered: each session its own backend
    const pid = 'SELECT pg_backend_pid()';
    const a = await measured(pid);
    const b = await measured(pid);
    assert.ok(b.cost.duckdb_prepare >= 1, JSON.stringify(b.cost));
    assert.notDeepEqual(a.rows, b.rows);
  });

  test('another search_path or TimeZone, another user: planned again, with their own answer', async () => {
    const text = `SELECT c.relname, pg_catalog.pg_table_is_visible(c.oid) AS visible, now() > '2000-01-01' AS later FROM pg_catalog.pg_class c WHERE c.relname = 'orders'`;
    const tz = `SELECT to_char(timestamptz '2024-01-01 00:00:00+00', 'HH24') AS hour`;
    await measured(text);
    await measured(tz);
    for (const [sql, setup] of [
      [PSQL_LIST, ['SET search_path = main']],
      [PSQL_LIST, ['SET search_path = sales, main']],
      [tz, ["SET TimeZone = 'Asia/Tokyo'"]],
    ] as const) {
      const again = await measured(sql, [...setup]);
      assert.ok(again.cost.duckdb_prepare >= 1, `${setup}: ${JSON.stringify(again.cost)}`);
      const off = await answer(sql, [...setup, 'SET fdl.result_cache = off']);
      assert.deepEqual([again.fields, again.rows], [off.fields, off.rows], `${setup}`);
      // and remembered in that scope in turn
      assert.deepEqual((await measured(sql, [...setup])).cost, NOTHING, `${setup}`);
    }
    const tokyo = await answer(tz, ["SET TimeZone = 'Asia/Tokyo'"]);
    assert.deepEqual(tokyo.rows, [['09']]);
    assert.deepEqual((await answer(tz)).rows, [['00']]);
    const other = await measured(PSQL_LIST, [], { user: 'someone' });
    assert.ok(other.cost.duckdb_prepare >= 1, JSON.stringify(other.cost));
  });

  test('in a failed block the text is refused (25P02) as planning refuses it, and nothing is answered', async () => {
    await measured(PSQL_LIST);
    const raw = await RawPg.connect({ port: s.port, user: 'tester', database: 'basic@main' });
    try {
      await raw.simple('BEGIN');
      const failed = await raw.simple('SELECT 1/0');
      assert.equal(failed.error?.code, '22012');
      const refused = await raw.simple(PSQL_LIST);
      assert.equal(refused.error?.code, '25P02');
      assert.equal(refused.dataRows.length, 0);
      assert.equal(refused.rowDescription, undefined);
      await raw.simple('ROLLBACK');
      // out of the block: answered, without a plan
      let rows = 0;
      const d = await cost(s, async () => (rows = (await raw.simple(PSQL_LIST)).dataRows.length));
      assert.ok(rows > 0);
      assert.deepEqual(d, NOTHING);
    } finally {
      await raw.close();
    }
  });

  test('the extended protocol (Parse, Describe, Execute) still describes and answers the text', async () => {
    const planned = await answer(PSQL_LIST);
    const raw = await RawPg.connect({ port: s.port, user: 'tester', database: 'basic@main' });
    try {
      const r = await raw.query(PSQL_LIST);
      assert.equal(r.error, undefined, JSON.stringify(r.error));
      assert.deepEqual(
        r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID, f.tableID, f.columnID]),
        planned.fields,
      );
      assert.deepEqual(
        r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString() ?? null)),
        planned.rows,
      );
    } finally {
      await raw.close();
    }
  });

  test('after a grants reload, the next session plans the text again', async () => {
    await measured(PSQL_LIST);
    assert.deepEqual((await measured(PSQL_LIST)).cost, NOTHING);
    const n = reloads();
    config({ tester: {} });
    s.proc.kill('SIGHUP');
    await waitFor(() => reloads() > n, 'the reload', 20_000);
    const after = await measured(PSQL_LIST);
    assert.ok(after.cost.duckdb_prepare >= 1, JSON.stringify(after.cost));
    assert.deepEqual((await measured(PSQL_LIST)).cost, NOTHING, 'remembered again under the new grants');
  });

  test('a moved branch: the next session reads the version it moved to, planned again', async () => {
    const count = 'SELECT count(*)::int AS n FROM sales.orders';
    const before = await measured(count);
    assert.deepEqual((await measured(count)).cost, NOTHING);
    const original = readFileSync(branch(), 'utf8');
    try {
      writeFileSync(branch(), `${basic.refs['refs/tags/v1']}\n`); // main now points where v1 does (50 orders)
      const moved = await measured(count);
      assert.deepEqual(moved.rows, [[50]]);
      assert.notDeepEqual(before.rows, moved.rows);
      assert.ok(moved.cost.duckdb_prepare >= 1, JSON.stringify(moved.cost));
    } finally {
      writeFileSync(branch(), original);
    }
    // back on the first version: its answer again, as remembered for it
    const back = await measured(count);
    assert.deepEqual(back.rows, before.rows);
  });
});

test('a remembered answer leaves with its result-cache entry; memory is bounded', () => {
  const results = new ResultCache({ maxBytes: 4096, maxEntryBytes: 2048 });
  const answered = new AnsweredTexts(results);
  const lease = { versionId: 'v', dbName: 'db', attachId: 'a' } as VersionLease;
  const scope = { user: 'u', lease, settings: 's1', generation: 0, resultFormats: [] };
  const key = (sql: string): ResultKey => ({
    versionId: 'v',
    database: 'db',
    attachId: 'a',
    user: 'u',
    sql,
    settings: 's1',
    paramTypes: [],
    resultFormats: [],
    paramFormats: [],
    params: [],
  });
  const fields = [{ name: 'x', typeOid: 23, typeLen: 4, typeMod: -1, format: 0 as const }];
  const rows = (n: number) => ({ rows: Buffer.alloc(n), rowCount: 1 });
  results.set(key('q1'), rows(1000));
  answered.remember('text one', scope, { fields, key: key('q1'), reads: undefined });
  answered.remember('text one again', scope, { fields, key: key('q1'), reads: undefined });
  assert.ok(answered.lookup('text one', scope));
  assert.equal(answered.lookup('text one', { ...scope, generation: 1 }), undefined, 'another generation');
  assert.equal(answered.lookup('text one', { ...scope, settings: 's2' }), undefined, 'other settings');
  // a result never kept (over the entry limit) is never remembered
  answered.remember('too large', scope, { fields, key: key('q2'), reads: undefined });
  assert.equal(answered.lookup('too large', scope), undefined);
  // q1 evicted by newer results: both texts answered by it leave with it
  results.set(key('q3'), rows(2000));
  results.set(key('q4'), rows(2000));
  assert.equal(results.has(key('q1')), false);
  assert.equal(answered.lookup('text one', scope), undefined);
  assert.equal(answered.size, 0);
});
