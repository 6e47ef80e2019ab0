/**
 * The work a statement costs the gateway, counted (issue 26): each statement text is analysed once,
 * prepared by DuckDB at most once per distinct parameter-type signature, its ref checked and its
 * version re-validated at most once per statement. Counted by the gateway itself
 * (fdl_statement_work_total in /metrics, src/stages.ts), through a real `fdl serve` and node-postgres.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, FIXTURES } from './support/gateway.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';
import { serialize } from 'pg-protocol';
import { buildBind, RawPg, splitDataRow } from './support/raw-pg.js';
import { serveWithMetrics, workCounts, type Served } from './support/work-counts.js';

const WORK = [
  'analysis',
  'duckdb_prepare',
  'type_probe',
  'bind_check',
  'verdict_reuse',
  'prune_explain',
  'ref_check',
  'revalidation',
  'guard_install',
] as const;
type Counts = Record<(typeof WORK)[number], number>;

const serve = serveWithMetrics;
const counts = (s: Served): Promise<Counts> => workCounts(s, WORK);

/** Texts PostgreSQL's grammar has parsed so far (fdl_statement_work_total{work="pg_parse"}). */
async function pgParses(s: Served): Promise<number> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const m = /^fdl_statement_work_total\{work="pg_parse"\} (\d+)$/m.exec(text);
  assert.ok(m, 'pg_parse is in /metrics');
  return Number(m[1]);
}

/** Texts that ran another text's plan, differing from it only inside comments (fdl_statement_work_total{work="plan_shared"}). */
async function plansShared(s: Served): Promise<number> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const m = /^fdl_statement_work_total\{work="plan_shared"\} (\d+)$/m.exec(text);
  assert.ok(m, 'plan_shared is in /metrics');
  return Number(m[1]);
}

/** DuckDB calls that started or read a statement's result so far (fdl_statement_work_total{work="result_call"}). */
async function resultCalls(s: Served): Promise<number> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const m = /^fdl_statement_work_total\{work="result_call"\} (\d+)$/m.exec(text);
  assert.ok(m, 'result_call is in /metrics');
  return Number(m[1]);
}

/** Float checks (pg/float-range.ts) in the texts DuckDB prepared so far (fdl_statement_work_total{work="float_check"}). */
async function floatChecks(s: Served): Promise<number> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const m = /^fdl_statement_work_total\{work="float_check"\} (\d+)$/m.exec(text);
  assert.ok(m, 'float_check is in /metrics');
  return Number(m[1]);
}

/** Statements the gateway's stage clock has closed so far (fdl_statement_stage_seconds_count). */
async function statementCount(s: Served): Promise<number> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const m = /^fdl_statement_stage_seconds_count\{stage="decode"\} (\d+)$/m.exec(text);
  assert.ok(m, 'fdl_statement_stage_seconds_count is in /metrics');
  return Number(m[1]);
}

/** What `work` cost, counted by the gateway. */
async function cost(s: Served, work: () => Promise<unknown>): Promise<Counts> {
  const before = await counts(s);
  await work();
  const after = await counts(s);
  const d = {} as Counts;
  for (const w of WORK) d[w] = after[w] - before[w];
  return d;
}

const POINT = 'select $1::int + order_id as n from sales.orders where order_id = $2';

describe('statement work: once per text, once per signature, once per statement', () => {
  let s: Served;
  let c: pg.Client;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    // HEAD: a moving ref, so every statement has a ref to check. The result cache is on: a miss is the case that re-validated twice.
    s = await serve(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
    c = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic' });
    await c.connect();
  });

  after(async () => {
    await c?.end();
    s?.proc.kill('SIGTERM');
    await new Promise((r) => (s?.proc.exitCode !== null ? r(null) : s.proc.once('exit', r)));
    repos.cleanup();
  });

  test('a new text with parameters (unnamed Parse/Bind/Execute): one analysis, one DuckDB prepare, one ref check, one re-validation', async () => {
    let rows: unknown[] = [];
    const d = await cost(s, async () => (rows = (await c.query({ text: POINT, values: [100, 3] })).rows));
    assert.deepEqual(rows, [{ n: '103' }]); // int + bigint: bigint
    // DuckDB binds it once for the engine's line (side-effects.ts), parameters and all
    assert.deepEqual(d, {
      analysis: 1,
      duckdb_prepare: 1,
      type_probe: 0,
      bind_check: 1,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 1,
      revalidation: 1,
      guard_install: 0,
    });
  });

  test('the same text with new parameters, unnamed and named: nothing analysed or prepared again; one ref check and one re-validation per statement', async () => {
    const seen: unknown[] = [];
    const d = await cost(s, async () => {
      for (let i = 0; i < 5; i++) seen.push((await c.query({ text: POINT, values: [1000 + i, 1 + i] })).rows[0]);
      for (let i = 0; i < 5; i++)
        seen.push((await c.query({ name: 'point', text: POINT, values: [2000 + i, 1 + i] })).rows[0]);
    });
    assert.deepEqual(
      seen,
      [1001, 1003, 1005, 1007, 1009, 2001, 2003, 2005, 2007, 2009].map((n) => ({ n: String(n) })),
    );
    assert.deepEqual(d, {
      analysis: 0,
      duckdb_prepare: 0,
      type_probe: 0,
      bind_check: 0,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 10,
      revalidation: 10,
      guard_install: 0,
    });
  });

  test('a new text without parameters (simple Query, a result-cache miss): analysed, bound for the engine line and prepared once; checked once', async () => {
    let rows: unknown[] = [];
    const d = await cost(
      s,
      async () => (rows = (await c.query('select count(*)::int as n from sales.orders where qty > 3')).rows),
    );
    assert.equal(typeof (rows[0] as { n: number }).n, 'number');
    assert.deepEqual(d, {
      analysis: 1,
      duckdb_prepare: 1,
      type_probe: 0,
      bind_check: 1,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 1,
      revalidation: 1,
      guard_install: 0,
    });
    // answered from the result cache: nothing planned, still one check of the ref and of the files
    const again = await cost(s, () => c.query('select count(*)::int as n from sales.orders where qty > 3'));
    assert.deepEqual(again, {
      analysis: 0,
      duckdb_prepare: 0,
      type_probe: 0,
      bind_check: 0,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 1,
      revalidation: 1,
      guard_install: 0,
    });
  });

  test('a result bounded to one chunk (its own LIMIT, an aggregate without groups, or the rows of the tables DuckDB binds it to) runs in one DuckDB call; one nothing bounds is streamed (its start, its chunk, its end); both answer every row once', async () => {
    const run = async (q: string | pg.QueryConfig) => {
      const before = await resultCalls(s);
      const rows = (await c.query<Record<string, unknown>>(q)).rows;
      return { rows, calls: (await resultCalls(s)) - before };
    };
    const bounded = await run('select order_id from sales.orders order by order_id limit 3');
    assert.deepEqual(
      bounded.rows.map((r) => Number(r.order_id)),
      [1, 2, 3],
    );
    assert.equal(bounded.calls, 1);
    // a table function's rows bound nothing: streamed
    const streamed = await run('select i as order_id from range(1, 10) t(i) where i <= 3 order by i');
    assert.deepEqual(streamed.rows, bounded.rows);
    assert.equal(streamed.calls, 3);
    // the 50 rows of the version's table (a native copy: DuckDB's storage counts them) bound what a filter, a
    // GROUP BY, a window, a join of two such tables can give: one call each, every row (issue 26)
    const byTable = await run('select order_id from sales.orders where order_id <= 3 order by order_id');
    assert.deepEqual(byTable.rows, bounded.rows);
    assert.equal(byTable.calls, 1);
    for (const q of [
      'select status, count(*)::int as n from sales.orders group by status order by status',
      'select count(*) over ()::int as n from sales.orders where order_id <= 3',
      'select c.name, sum(o.amount) as total from sales.orders o join sales.customers c on c.customer_id = o.customer_id group by c.name order by total desc, c.name',
      'with c as materialized (select * from sales.customers) select a.customer_id from c a, c b where a.customer_id = b.customer_id order by 1',
      'select c.customer_id, count(o.order_id)::int as n from (select * from sales.customers where customer_id > 2) c left join sales.orders o using (customer_id) group by 1 order by 1',
    ]) {
      const r = await run(q);
      assert.ok(r.rows.length > 1, q);
      assert.equal(r.calls, 1, q);
    }
    // the point query of issue 26, repeated with new parameters (unnamed and named): one call a statement
    const points: unknown[] = [];
    const before = await resultCalls(s);
    for (let i = 1; i <= 4; i++) {
      points.push(...(await c.query({ text: POINT, values: [10, i] })).rows);
      points.push(...(await c.query({ name: 'point-calls', text: POINT, values: [20, i] })).rows);
    }
    assert.deepEqual(
      points,
      [11, 21, 12, 22, 13, 23, 14, 24].map((n) => ({ n: String(n) })),
    );
    assert.equal((await resultCalls(s)) - before, 8);
    // three of them may give more rows than one chunk holds (the bound multiplies their rows): streamed
    const cube = await run(
      'select count(*) over ()::int as n from sales.orders a, sales.orders b, sales.orders c where a.order_id = 1 and b.order_id = 1',
    );
    assert.ok(cube.rows.length > 1);
    assert.ok(cube.calls > 1, `streamed: ${cube.calls} calls`);
    // the bound itself (2,048 rows, DuckDB's chunk): one call, however many chunks DuckDB's result holds
    const atBound = await run('select i from range(5000) t(i) order by i limit 2048');
    assert.deepEqual(
      atBound.rows.map((r) => Number(r.i)),
      Array.from({ length: 2048 }, (_, i) => i),
    );
    assert.equal(atBound.calls, 1);
    // past the bound, a parameter, a percentage: streamed, every row
    const past = await run('select i from range(5000) t(i) order by i limit 2049');
    assert.equal(past.rows.length, 2049);
    assert.ok(past.calls > 1, `streamed: ${past.calls} calls`);
    const param = await run({ text: 'select i from range(10) t(i) order by i limit $1', values: [4] });
    assert.deepEqual(
      param.rows.map((r) => Number(r.i)),
      [0, 1, 2, 3],
    );
    assert.ok(param.calls > 1, `streamed: ${param.calls} calls`);
    // DuckDB's bound plan: an aggregate without groups is one row, whatever it reads (the engine line's
    // bind, then its verdict for the same shape with new literals); GROUP BY, UNNEST, a window are not
    const aggregate = await run('select count(*)::int as n, sum(amount) as total from sales.orders where qty >= 2');
    assert.equal(aggregate.rows.length, 1);
    assert.equal(aggregate.calls, 1);
    const sameShape = await run('select count(*)::int as n, sum(amount) as total from sales.orders where qty >= 3');
    assert.ok(Number(sameShape.rows[0]!.n) <= Number(aggregate.rows[0]!.n));
    assert.equal(sameShape.calls, 1);
    for (const q of [
      'select count(*)::int as n, unnest([1, 2, 3]) as k from sales.orders order by k',
      // several grouping sets by DuckDB's parse, whatever the words: a comment inside them (DuckDB's own syntax
      // reaches the plan check as written) was read as one set, 1 call (attacker review, session 55)
      'from sales.orders select count(*)::int as n group by grouping/**/sets ((status), ())',
      'select count(*)::int as n from sales.orders group by grouping sets ((status), ())',
      'select count(*)::int as n from sales.orders group by rollup (status)',
      'select i::int as n from range(5) t(i), sales.orders where order_id = 1',
    ]) {
      const r = await run(q);
      assert.ok(r.rows.length > 1, q);
      assert.ok(r.calls > 1, `${q}: streamed, ${r.calls} calls`);
    }
    // a cursor over a bounded result, fetched in parts (portals suspended): every row once, in order
    await c.query('begin');
    await c.query('declare k cursor for select order_id from sales.orders order by order_id limit 5');
    const parts: number[][] = [];
    for (let i = 0; i < 3; i++) parts.push((await c.query('fetch 2 from k')).rows.map((r) => Number(r.order_id)));
    await c.query('commit');
    assert.deepEqual(parts, [[1, 2], [3, 4], [5]]);
  });

  test("a new text that differs from a planned one only in its literals (a dashboard's new values): analysed and prepared, the engine line's verdict reused, not bound again", async () => {
    const text = (qty: number, id: number) =>
      `select count(*)::int as n from sales.orders where qty >= ${qty} and order_id between 1 and ${id} limit 5`;
    const first = await cost(s, () => c.query(text(1, 40)));
    assert.deepEqual(
      { bind_check: first.bind_check, verdict_reuse: first.verdict_reuse },
      { bind_check: 1, verdict_reuse: 0 },
    );
    const rows: unknown[] = [];
    const next = await cost(s, async () => {
      for (const [q, id] of [
        [2, 30],
        [3, 20],
        [4, 10],
      ] as const)
        rows.push((await c.query(text(q, id))).rows[0]);
    });
    // each is the second text of its lexed form: its shape (`qty >= $1`, BETWEEN's bound kept) is planned,
    // whose engine-line bind, with a parameter, is a shape of its own: bound once, then its verdict reused
    assert.deepEqual(next, {
      analysis: 3,
      duckdb_prepare: 3,
      type_probe: 0,
      bind_check: 1,
      verdict_reuse: 2,
      prune_explain: 0,
      ref_check: 3,
      revalidation: 3,
      guard_install: 0,
    });
    // the answers are each text's own
    const own = await Promise.all(
      [
        [2, 30],
        [3, 20],
        [4, 10],
      ].map(
        async ([q, id]) =>
          (await c.query(`select count(*)::int as n from sales.orders where qty >= ${q} and order_id <= ${id}`))
            .rows[0],
      ),
    );
    assert.deepEqual(rows, own);
    // a literal where the binder reads it (a function's argument) is part of the shape: bound again
    const fn = await cost(s, () => c.query(`select count(*)::int as n from sales.orders where qty >= abs(5)`));
    const fn2 = await cost(s, () => c.query(`select count(*)::int as n from sales.orders where qty >= abs(6)`));
    assert.deepEqual([fn.bind_check, fn2.bind_check, fn2.verdict_reuse], [1, 1, 0]);
  });

  test('each statement has its time by stage: a new text spends it analysing, preparing and executing; a repeat of a planned one does not analyse', async () => {
    const stage = async () => {
      const text = await (await fetch(`http://${s.http}/metrics`)).text();
      const read = (what: string, st: string) =>
        Number(new RegExp(`^fdl_statement_stage_seconds_${what}\\{stage="${st}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      return {
        count: read('count', 'execution'),
        analysis: read('sum', 'analysis'),
        prepare: read('sum', 'prepare'),
        execution: read('sum', 'execution'),
      };
    };
    const a = await stage();
    await c.query({ text: `${POINT} -- stages`, values: [1, 2] });
    const b = await stage();
    assert.equal(b.count - a.count, 1, 'one statement ended');
    for (const st of ['analysis', 'prepare', 'execution'] as const) assert.ok(b[st] > a[st], `time spent in ${st}`);
    await c.query({ text: `${POINT} -- stages`, values: [3, 4] });
    const d = await stage();
    assert.equal(d.count - b.count, 1);
    assert.equal(d.analysis, b.analysis, 'a planned text is not analysed again');
    assert.equal(d.prepare, b.prepare, 'nor prepared again');
    assert.ok(d.execution > b.execution);
  });

  test("a new text the PostgreSQL rewrite changes: analysed once (its text and the client's, for the column names, in one DuckDB call)", async () => {
    const text =
      "select c.relname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnum + 0 from pg_catalog.pg_class c join pg_catalog.pg_attribute a on a.attrelid = c.oid where c.relname = 'orders' and a.attname = 'qty'";
    let r: pg.QueryResult | undefined;
    const d = await cost(s, async () => (r = await c.query(text)));
    assert.deepEqual(
      r!.fields.map((f) => f.name),
      ['relname', 'format_type', '?column?'],
    );
    assert.deepEqual(
      r!.rows.map((row) => Object.values(row)),
      [['orders', 'smallint', 4]],
    );
    assert.equal(d.analysis, 1, JSON.stringify(d));
    assert.equal(d.duckdb_prepare, 1, JSON.stringify(d));
  });

  test("a text another session planned over the same version and search path is not bound again for the engine line (prepared, as every session's own); another search path binds it again", async () => {
    // a catalog text; the other session has the result cache off, so it plans it (with the cache, the
    // first session's answer is its answer, unplanned: answered-texts.test.ts)
    const text =
      "select c.relname, a.attname from pg_catalog.pg_class c join pg_catalog.pg_attribute a on a.attrelid = c.oid where c.relname = 'customers' and a.attnum = 1";
    const first = await cost(s, () => c.query(text));
    assert.equal(first.bind_check, 1, JSON.stringify(first));
    const other = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic' });
    await other.connect();
    try {
      await other.query('set fdl.result_cache = off');
      let rows: unknown[] = [];
      const again = await cost(s, async () => (rows = (await other.query(text)).rows));
      assert.deepEqual(rows, [{ relname: 'customers', attname: 'customer_id' }]);
      assert.deepEqual(again, {
        analysis: 0,
        duckdb_prepare: 1,
        type_probe: 0,
        bind_check: 0,
        verdict_reuse: 1,
        prune_explain: 0,
        ref_check: 1,
        revalidation: 1,
        guard_install: 0,
      });
      await other.query('set search_path = sales');
      const moved = await cost(s, async () => (rows = (await other.query(text)).rows));
      assert.deepEqual(rows, [{ relname: 'customers', attname: 'customer_id' }]);
      assert.equal(moved.bind_check, 1, JSON.stringify(moved));
      assert.equal(moved.duckdb_prepare, 1, JSON.stringify(moved));
    } finally {
      await other.end();
    }
  });

  test('a catalog text judged on one version is not bound again on the next of the same namespace (tags v1, v2: the same tables and columns); another namespace (dev: a table more) and a text reading the version bind again', async () => {
    const text =
      "select c.relname, a.attname, a.attnum from pg_catalog.pg_class c join pg_catalog.pg_attribute a on a.attrelid = c.oid where c.relname = 'orders' and a.attnum = 2";
    const reading = 'select count(*)::int as n from sales.orders where order_id > 1';
    const on = async (database: string, work: (k: pg.Client) => Promise<unknown>) => {
      const k = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database });
      await k.connect();
      try {
        await k.query('set fdl.result_cache = off');
        return await cost(s, () => work(k));
      } finally {
        await k.end();
      }
    };
    const both = (k: pg.Client) => k.query(text).then(() => k.query(reading));
    const v1 = await on('basic@v1', both);
    assert.equal(v1.bind_check, 2, JSON.stringify(v1));
    let rows: unknown[] = [];
    const v2 = await on('basic@v2', async (k) => (rows = (await k.query(text)).rows));
    assert.deepEqual(rows, [{ relname: 'orders', attname: 'customer_id', attnum: 2 }]);
    assert.deepEqual([v2.bind_check, v2.verdict_reuse], [0, 1], JSON.stringify(v2));
    // over v2's own files: bound again
    const read = await on('basic@v2', (k) => k.query(reading));
    assert.deepEqual([read.bind_check, read.verdict_reuse], [1, 0], JSON.stringify(read));
    const dev = await on('basic@dev', (k) => k.query(text));
    assert.deepEqual([dev.bind_check, dev.verdict_reuse], [1, 0], JSON.stringify(dev));
  });

  test("a session's DuckDB connection goes to the next session: its guards are not created again, and nothing the first session set is seen by the next", async () => {
    const open = async () => {
      const k = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic' });
      await k.connect();
      return k;
    };
    const look = async (k: pg.Client) =>
      (
        await k.query(`select current_setting('myapp.tenant', true) as tenant, current_setting('TimeZone') as tz,
          current_setting('search_path') as path, (select count(*)::int from orders) as orders,
          to_char(timestamptz '2024-01-01 00:00:00+00', 'HH24') as hour`)
      ).rows[0];
    // A connection of its own to compare with: opened while the next one is in use, so not the reused one.
    const fresh = await open();
    const first = await open();
    const expected = await look(fresh);
    assert.deepEqual([expected.tenant, expected.tz, expected.hour], [null, 'UTC', '00']);
    const d = await cost(s, async () => {
      await first.query("set myapp.tenant = 'acme'");
      await first.query("set timezone = 'Asia/Tokyo'");
      assert.notDeepEqual(await look(first).catch(() => null), expected);
      await first.query('set search_path = pg_catalog');
      await assert.rejects(first.query('select count(*) from orders'), (e: { code?: string }) => e.code === '42P01');
      await first.end();
      // The connection is reset after the session's socket closes: a next session that arrives first
      // gets a new connection, so one install in four is allowed; at least three reuse one.
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < 4; i++) {
        const next = await open();
        assert.deepEqual(await look(next), expected);
        await next.end();
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    await fresh.end();
    assert.ok(d.guard_install <= 1, JSON.stringify(d));
  });

  test('declared parameter types: prepared once per signature in a session, unspecified types (0) the same signature as none; another session analyses nothing again', async () => {
    const text = 'select $1 + order_id as n from sales.orders where order_id = $2 -- signatures';
    const open = () => RawPg.connect({ port: s.port, user: 'tester', database: 'basic' });
    const raw = await open();
    const other = await open();
    try {
      const run = async (k: RawPg, paramTypes: number[], params: string[]) => {
        const r = await k.query(text, { paramTypes, params });
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        return r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString()));
      };
      const prepares = async (k: RawPg, paramTypes: number[], params: string[], want: string) => {
        let rows: unknown[] = [];
        const d = await cost(s, async () => (rows = await run(k, paramTypes, params)));
        assert.deepEqual(rows, [[want]], `${JSON.stringify(paramTypes)}: ${JSON.stringify(params)}`);
        assert.equal(d.ref_check, 1, JSON.stringify(d));
        assert.equal(d.revalidation, 1, JSON.stringify(d));
        return { analysis: d.analysis, duckdb_prepare: d.duckdb_prepare };
      };
      // int4, int8: the text's first plan
      assert.deepEqual(await prepares(raw, [23, 20], ['10', '3'], '13'), { analysis: 1, duckdb_prepare: 1 });
      // int8, int8: another signature, the same text (not analysed again)
      assert.deepEqual(await prepares(raw, [20, 20], ['20', '3'], '23'), { analysis: 0, duckdb_prepare: 1 });
      // each signature seen before: nothing prepared
      assert.deepEqual(await prepares(raw, [23, 20], ['30', '4'], '34'), { analysis: 0, duckdb_prepare: 0 });
      assert.deepEqual(await prepares(raw, [20, 20], ['40', '4'], '44'), { analysis: 0, duckdb_prepare: 0 });
      // nothing declared, in both spellings a driver may send: one signature
      assert.deepEqual(await prepares(raw, [], ['50', '5'], '55'), { analysis: 0, duckdb_prepare: 1 });
      assert.deepEqual(await prepares(raw, [0, 0], ['60', '5'], '65'), { analysis: 0, duckdb_prepare: 0 });
      assert.deepEqual(await prepares(raw, [23, 0], ['70', '6'], '76'), { analysis: 0, duckdb_prepare: 1 });
      assert.deepEqual(await prepares(raw, [23], ['80', '6'], '86'), { analysis: 0, duckdb_prepare: 0 });
      // another session: its own DuckDB prepare, the text's analysis kept for the process
      assert.deepEqual(await prepares(other, [23, 20], ['90', '2'], '92'), { analysis: 0, duckdb_prepare: 1 });
      assert.deepEqual(await prepares(other, [23, 20], ['91', '2'], '93'), { analysis: 0, duckdb_prepare: 0 });
    } finally {
      await raw.close();
      await other.close();
    }
  });

  test('N executions of one text with new parameters, unnamed and named, under two type signatures: analysed once, prepared by DuckDB once per signature, each statement one ref check and one re-validation', async () => {
    const N = 12;
    const text = 'select $1 + order_id as n from sales.orders where order_id = $2 -- n executions';
    const raw = await RawPg.connect({ port: s.port, user: 'tester', database: 'basic' });
    try {
      const answer = (r: { error?: unknown; dataRows: Buffer[] }) => {
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        return r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString()));
      };
      // order_ids the version holds (some of 1..50 are deleted rows)
      const ids = answer(await raw.simple(`select order_id from sales.orders order by 1 limit ${N}`)).map((r) =>
        Number(r[0]),
      );
      assert.equal(ids.length, N);
      const want: (string | undefined)[][][] = [];
      const got: (string | undefined)[][][] = [];
      const statementsBefore = await statementCount(s);
      const d = await cost(s, async () => {
        for (let i = 0; i < N; i++) {
          // undeclared parameters: PostgreSQL's grammar types them, the first Parse plans the text
          got.push(answer(await raw.query(text, { params: [String(100 * i), String(ids[i])] })));
          want.push([[String(100 * i + ids[i]!)]]);
        }
        for (let i = 0; i < N; i++) {
          // int8, int8 declared: another signature of the same text
          got.push(
            answer(await raw.query(text, { paramTypes: [20, 20], params: [String(7 + i), String(ids[N - 1 - i])] })),
          );
          want.push([[String(7 + i + ids[N - 1 - i]!)]]);
        }
        // a named statement of the second signature, bound N times
        raw.send(Buffer.concat([serialize.parse({ name: 'n_exec', text, types: [20, 20] }), serialize.sync()]));
        assert.equal((await raw.untilReady()).error, undefined);
        for (let i = 0; i < N; i++) {
          raw.send(
            Buffer.concat([
              buildBind({ statement: 'n_exec', params: [String(-ids[i]!), String(ids[i])] }),
              serialize.describe({ type: 'P' }),
              serialize.execute({ rows: 0 }),
              serialize.sync(),
            ]),
          );
          got.push(answer(await raw.untilReady()));
          want.push([['0']]);
        }
      });
      assert.deepEqual(got, want);
      // 3N statements closed by the stage clock (a Parse with its Sync runs nothing: no statement's split)
      assert.equal((await statementCount(s)) - statementsBefore, 3 * N);
      // Per signature one DuckDB prepare and one bind for the engine line; the undeclared `$1 +` one
      // probe for PostgreSQL's operator typing; the named Parse's Sync settles its ref too (3N + 1)
      // and re-validates nothing (it reads nothing)
      assert.deepEqual(d, {
        analysis: 1,
        duckdb_prepare: 2,
        type_probe: 1,
        bind_check: 2,
        verdict_reuse: 0,
        prune_explain: 0,
        ref_check: 3 * N + 1,
        revalidation: 3 * N,
        guard_install: 0,
      });
    } finally {
      await raw.close();
    }
  });

  test('parameters the client declared: the PostgreSQL grammar is not run for their types; undeclared ones are typed by it', async () => {
    const open = () => RawPg.connect({ port: s.port, user: 'tester', database: 'basic' });
    const raw = await open();
    try {
      const run = async (text: string, paramTypes: number[], want: string) => {
        const before = await pgParses(s);
        const r = await raw.query(text, { paramTypes, params: ['10', '3'] });
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        assert.deepEqual(
          r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString())),
          [[want]],
        );
        return (await pgParses(s)) - before;
      };
      // every parameter declared (int4, int8): nothing for the grammar to infer
      assert.equal(
        await run('select $1 + order_id as n from sales.orders where order_id = $2 -- declared', [23, 20], '13'),
        0,
      );
      // one left unspecified: the grammar reads the text for it
      assert.equal(
        await run('select $1 + order_id as n from sales.orders where order_id = $2 -- half', [23, 0], '13'),
        1,
      );
      assert.equal(await run('select $1 + order_id as n from sales.orders where order_id = $2 -- none', [], '13'), 1);
    } finally {
      await raw.close();
    }
  });

  test("`$1::int + order_id` over an integer column: no float check in the text DuckDB prepares (the client's own); over a float column one", async () => {
    const planned = async (text: string, values: unknown[]) => {
      const before = await floatChecks(s);
      let rows: unknown[] = [];
      const d = await cost(s, async () => (rows = (await c.query({ text, values })).rows));
      assert.equal(d.analysis, 1, `${text}: planned`);
      return { rows, checks: (await floatChecks(s)) - before };
    };
    assert.deepEqual(await planned(`${POINT} and qty > 0`, [100, 3]), { rows: [{ n: '103' }], checks: 0 });
    const { order_id, qty } = (await c.query('select order_id, qty from sales.orders where order_id = 3')).rows[0];
    assert.deepEqual(await planned('select $1::int * order_id - qty as n from orders o where order_id = $2', [2, 3]), {
      rows: [{ n: String(2 * Number(order_id) - Number(qty)) }],
      checks: 0,
    });
    // (f64 is DOUBLE: `$1::int + f64` is checked as PostgreSQL's float8pl)
    const { f64 } = (await c.query('select f64 from all_types where id = 1')).rows[0];
    assert.deepEqual(await planned('select $1::int + f64 as n from all_types where id = $2', [100, 1]), {
      rows: [{ n: 100 + f64 }],
      checks: 1,
    });
  });

  test("a new text the rewrite changes, with parameters for PostgreSQL to type (a dashboard's new constant): the PostgreSQL grammar parses it once, not its rewritten text again", async () => {
    // `$1::int + f64` is float-checked (pg/float-range.ts): DuckDB runs a rewritten text whose parameters are typed from its tree
    const text = (k: number) => `select $1::int + f64 as n from all_types where id = $2 and ${k} > 0`;
    // the first text of its shape is parsed once more, as a shape (pg/rewrite-shapes.ts: once per shape)
    for (const [k, a, b] of [
      [4101, 7, 2],
      [4102, 8, 3],
      [4103, 9, 4],
    ] as const) {
      const before = await pgParses(s);
      const rows = (await c.query({ text: text(k), values: [a, b] })).rows;
      if (k !== 4101) assert.equal((await pgParses(s)) - before, 1, `constant ${k}`);
      const point = 'select $1::int + f64 as n from all_types where id = $2';
      assert.deepEqual(rows, (await c.query({ text: point, values: [a, b] })).rows);
      assert.equal(rows.length, 1);
    }
  });

  test('a rewritten text with new integers in its comparisons (simple protocol): no PostgreSQL parse again, its shape planned once, the answer of its own values', async () => {
    const text = (c: number, q: number) =>
      `select count(*)::int as n, sum(amount) as total from sales.orders where customer_id = ${c} and qty >= ${q} -- shape`;
    const byParams = async (c2: number, q: number) =>
      (
        await c.query({
          text: 'select count(*)::int as n, sum(amount) as total from sales.orders where customer_id = $1 and qty >= $2',
          values: [c2, q],
        })
      ).rows;
    await c.query(text(1, 1));
    for (const [i, [cust, q]] of (
      [
        [2, 1],
        [3, 2],
        [5, 3],
        [6, 40000], // past int2: the text planned as itself (its rewrite shared by shape)
      ] as const
    ).entries()) {
      let rows: unknown[] = [];
      const before = await pgParses(s);
      const d = await cost(s, async () => (rows = (await c.query(text(cust, q))).rows));
      if (i === 0) {
        // the shape's second text plans the shape, its constants parameters (session/constant-sharing.ts)
        assert.equal(d.analysis, 1, 'the shape is analysed (DuckDB parse) once');
      } else {
        assert.equal((await pgParses(s)) - before, 0, `customer ${cust}, qty ${q}`);
        assert.equal(d.analysis, i === 3 ? 1 : 0, 'a text of the shape runs its plan: nothing analysed');
      }
      // (a parameter beside qty is int2, as PostgreSQL infers it: past its range compared as int4)
      const own =
        q > 32767
          ? (
              await c.query(
                `select count(*)::int as n, sum(amount) as total from sales.orders where customer_id = ${cust} and qty::int4 >= ${q}`,
              )
            ).rows
          : await byParams(cust, q);
      assert.deepEqual(rows, own);
    }
  });

  test('a text that differs from a planned one only inside its comments (a tag per statement) runs its plan: nothing analysed, parsed or prepared again; its own answer', async () => {
    const tagged = (tag: string) => `${POINT} /* request ${tag} */`;
    assert.deepEqual((await c.query({ text: tagged('0'), values: [10, 1] })).rows, [{ n: '11' }]);
    const seen: unknown[] = [];
    const shared = await plansShared(s);
    const before = await pgParses(s);
    const d = await cost(s, async () => {
      for (let i = 1; i <= 4; i++) seen.push((await c.query({ text: tagged(`${i}`), values: [10 * i, i] })).rows[0]);
      // named: a Parse of its own text, the same plan
      seen.push((await c.query({ name: 'tagged', text: tagged('named'), values: [50, 5] })).rows[0]);
      seen.push((await c.query({ name: 'tagged', text: tagged('named'), values: [60, 6] })).rows[0]);
    });
    assert.deepEqual(
      seen,
      [11, 22, 33, 44, 55, 66].map((n) => ({ n: String(n) })),
    );
    assert.deepEqual(d, {
      analysis: 0,
      duckdb_prepare: 0,
      type_probe: 0,
      bind_check: 0,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 6,
      revalidation: 6,
      guard_install: 0,
    });
    assert.equal((await plansShared(s)) - shared, 5);
    assert.equal((await pgParses(s)) - before, 0);
    // the simple protocol, a line comment with its line end
    const line = (tag: string) => `select order_id from sales.orders -- ${tag}\nwhere order_id = 3`;
    assert.deepEqual((await c.query(line('a'))).rows, [{ order_id: '3' }]);
    const simple = await cost(s, async () => assert.deepEqual((await c.query(line('b'))).rows, [{ order_id: '3' }]));
    assert.deepEqual([simple.analysis, simple.duckdb_prepare], [0, 0]);
  });

  test('comments that planning reads, or that change what the text says, are not shared: each text answers as when planned alone', async () => {
    const base = 'select order_id from sales.orders where order_id = 3';
    const ok = async (sql: string) => (await c.query(sql)).rows;
    const fails = async (sql: string) => {
      const e = await c.query(sql).then(
        () => null,
        (x: { code?: string }) => x,
      );
      return e?.code;
    };
    assert.deepEqual(await ok(`${base} /* a */`), [{ order_id: '3' }]);
    const shared = await plansShared(s);
    // the internal-name refusal reads the whole text, comments included
    assert.equal(await fails(`${base} /* fdl_pg */`), '42P01');
    // a comment left open: the scanners' error, not the planned text's rows
    assert.equal(await fails(`${base} /* a`), '42601');
    // a comment nested in a comment: planned as itself (its rows, here the same)
    assert.deepEqual(await ok(`${base} /* /* b */ */`), [{ order_id: '3' }]);
    // the rewrite reads `xmin` from the whole text: planned as itself
    const xmin = await cost(s, async () => assert.deepEqual(await ok(`${base} /* xmin */`), [{ order_id: '3' }]));
    assert.equal(xmin.analysis, 1);
    assert.equal((await plansShared(s)) - shared, 0);
    // a line comment ends a string's continuation differently from a block comment: not one shape
    assert.deepEqual(await ok(`select 'a' -- x\n'b' as v`), [{ v: 'ab' }]);
    assert.equal(await fails(`select 'a' /* x */ 'b' as v`), '42601');
    assert.equal((await plansShared(s)) - shared, 0);
  });

  test('undeclared parameters PostgreSQL types differently from DuckDB: prepared once per parameter-type signature', async () => {
    // `amount > $1 * 2`: PostgreSQL types $1 by operator resolution (int4 here; DuckDB alone cannot); `qty = $2` by qty.
    const text = 'select order_id from sales.orders where amount > $1 * 2 and qty = $2 and order_id = 4';
    let rows: unknown[] = [];
    const first = await cost(s, async () => (rows = (await c.query({ text, values: [0, 5] })).rows));
    assert.deepEqual(rows, [{ order_id: '4' }]);
    // one probe asks DuckDB what `amount > x * 2` makes x; the statement itself is prepared once, typed so
    assert.deepEqual(first, {
      analysis: 1,
      duckdb_prepare: 1,
      type_probe: 1,
      bind_check: 1,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 1,
      revalidation: 1,
      guard_install: 0,
    });
    const repeat = await cost(s, () => c.query({ text, values: [1, 5] }));
    assert.deepEqual(repeat, {
      analysis: 0,
      duckdb_prepare: 0,
      type_probe: 0,
      bind_check: 0,
      verdict_reuse: 0,
      prune_explain: 0,
      ref_check: 1,
      revalidation: 1,
      guard_install: 0,
    });
  });

  test("a text another session planned over the same version and search path: its parameters' types and result shape are not probed again, only prepared on the session's own connection", async () => {
    // `amount * $1`: PostgreSQL types $1 by operator resolution (a probe); `amount > $2`: numeric, so the
    // result's shape is probed with the parameter typed (pg/result-shape.ts)
    const texts = [
      'select order_id, amount * $1 as scaled from sales.orders where order_id = $2 -- probed types',
      'select order_id, amount from sales.orders where amount > $1 and qty >= $2 order by order_id limit 2',
    ];
    const values = [
      [2, 3],
      [10, 2],
    ];
    const open = async () => {
      const k = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic' });
      await k.connect();
      await k.query('set fdl.result_cache = off');
      return k;
    };
    const first = await open();
    const second = await open();
    try {
      for (const [i, text] of texts.entries()) {
        const run = async (k: pg.Client) => {
          const r = await k.query({ text, values: values[i] });
          return { rows: r.rows, types: r.fields.map((f) => [f.name, f.dataTypeID]) };
        };
        let mine: unknown;
        const planned = await cost(s, async () => (mine = await run(first)));
        assert.ok(planned.type_probe >= 1, `${text}: ${JSON.stringify(planned)}`);
        let theirs: unknown;
        const again = await cost(s, async () => (theirs = await run(second)));
        // the same answer, typed the same
        assert.deepEqual(theirs, mine, text);
        // (the engine line's verdict: bound, or reused by shape, as that test above says; one of the two)
        const { bind_check, verdict_reuse, ...rest } = again;
        assert.equal(bind_check + verdict_reuse, 1, `${text}: ${JSON.stringify(again)}`);
        assert.deepEqual(
          rest,
          {
            analysis: 0,
            duckdb_prepare: 1,
            type_probe: 0,
            prune_explain: 0,
            ref_check: 1,
            revalidation: 1,
            guard_install: 0,
          },
          text,
        );
      }
      // another search path is another scope: probed again
      await second.query('set search_path = sales');
      const moved = await cost(s, () => second.query({ text: texts[0]!, values: values[0] }));
      assert.ok(moved.type_probe >= 1, JSON.stringify(moved));
    } finally {
      await first.end();
      await second.end();
    }
  });
});

describe('statement work over a remote version: no EXPLAIN or prepare that cannot change what runs', () => {
  let s3: S3Server;
  let s: Served;
  let c: pg.Client;
  const work = copyFixtures();

  before(async () => {
    s3 = await startS3('lake');
    await s3.upload(join(FIXTURES, 'repos', 'partitioned'), 'partitioned/');
    s = await serve(
      [
        '--repo',
        'r=s3://lake/partitioned/',
        ...s3Flags(s3.endpoint),
        '--cache-dir',
        join(work.dir, 'cache'),
        '--result-cache-bytes',
        '0',
      ],
      S3_ENV,
    );
    c = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'r@main' });
    await c.connect();
  });

  after(async () => {
    await c?.end();
    s?.proc.kill('SIGTERM');
    await new Promise((r) => (s?.proc.exitCode !== null ? r(null) : s.proc.once('exit', r)));
    await s3?.close();
    work.cleanup();
  });

  const BY_RANGE = 'select count(*)::int as n, sum(amount)::varchar as total from main.ev where ts >= $1 and ts < $2';
  const MARCH = ['2025-03-01', '2025-04-01'];
  const MAY = ['2025-05-01', '2025-06-01'];

  test('a parameterised statement is prepared again only when its values need other files; with every file in view, not even the EXPLAIN', async () => {
    const run = (values: string[]) => c.query({ name: 'by_range', text: BY_RANGE, values }).then((r) => r.rows[0]);
    const first = await cost(s, () => run(MARCH));
    // planned (one prepare), then prepared over the files March's values reach under their view lock
    assert.equal(first.duckdb_prepare, 2, JSON.stringify(first));
    assert.equal(first.prune_explain, 1);
    const seen: unknown[] = [];
    const again = await cost(s, async () => {
      for (let i = 0; i < 3; i++) seen.push(await run(MARCH));
    });
    // the same files: the views were kept, DuckDB's statement already reads them
    assert.deepEqual(
      { prepare: again.duckdb_prepare, explain: again.prune_explain, analysis: again.analysis },
      { prepare: 0, explain: 3, analysis: 0 },
    );
    const may = await cost(s, () => run(MAY));
    // other files: the view is rebuilt over them, so the statement is prepared again
    assert.deepEqual({ prepare: may.duckdb_prepare, explain: may.prune_explain }, { prepare: 1, explain: 1 });
    // every file of the table in its view (a full read), all cached: nothing to judge or prepare again
    const whole = (
      await c.query(
        'select count(*)::int as n, sum(amount)::varchar as total from main.ev where amount is not null or amount is null',
      )
    ).rows[0];
    await run(MARCH); // prepared once over the full view
    const full = await cost(s, async () => {
      seen.push(await run(MARCH));
      seen.push(await run(MAY));
    });
    assert.deepEqual({ prepare: full.duckdb_prepare, explain: full.prune_explain }, { prepare: 0, explain: 0 });
    // and the answers are those of a statement written with the values as literals
    const literal = async (v: string[]) =>
      (
        await c.query(
          `select count(*)::int as n, sum(amount)::varchar as total from main.ev where ts >= '${v[0]}' and ts < '${v[1]}'`,
        )
      ).rows[0];
    const march = await literal(MARCH);
    const mayRow = await literal(MAY);
    assert.ok((march as { n: number }).n > 0 && (mayRow as { n: number }).n > 0, JSON.stringify([march, mayRow]));
    assert.deepEqual(seen, [march, march, march, march, mayRow]);
    assert.ok((whole as { n: number }).n > (march as { n: number }).n);
  });
});
