/**
 * Texts that differ only in a constant compared with a column run one plan of their shape, the
 * constant bound as a parameter (issue 24: sqlsmith's start-up sent 697 such texts, each analysed,
 * bound and prepared anew): counted by the gateway (fdl_statement_work_total, src/stages.ts), and
 * answered as PostgreSQL 15 answers the same texts over the same tables — rows, column names and
 * types, and the SQLSTATE of a constant PostgreSQL's input function refuses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyFixtures } from './support/gateway.js';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { RawPg, splitDataRow, type QueryResult } from './support/raw-pg.js';
import { serveWithMetrics, workCounts, type Served } from './support/work-counts.js';

const WORK = ['analysis', 'duckdb_prepare', 'bind_check', 'constants_shared'] as const;

describe('texts differing only in a compared constant: one plan', () => {
  let s: Served;
  let c: RawPg;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    s = await serve();
    c = await RawPg.connect({ port: s.port, user: 'me', database: 'basic@v2' });
  });
  after(async () => {
    await c?.close().catch(() => undefined);
    s?.proc.kill();
    repos.cleanup();
  });
  const serve = () =>
    serveWithMetrics(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);

  /** What `texts`, run in turn on the session, cost the gateway; each answers one row. */
  async function cost(texts: string[]) {
    const before = await workCounts(s, WORK);
    for (const t of texts) {
      const r = await c.simple(t);
      assert.equal(r.error, undefined, `${t}: ${r.error?.message}`);
    }
    const after = await workCounts(s, WORK);
    return Object.fromEntries(WORK.map((w) => [w, after[w] - before[w]])) as Record<(typeof WORK)[number], number>;
  }

  test("sqlsmith's `… from pg_proc where oid = '<oid>'`, 12 oids: the first text planned alone, then the shape once", async () => {
    const oids = (await c.simple('select oid from pg_proc order by oid limit 12')).dataRows.map((d) =>
      splitDataRow(d)[0]!.toString(),
    );
    assert.equal(oids.length, 12);
    const texts = oids.map((o) => `select unnest(proargtypes) from pg_proc where oid = '${o}'`);
    const d = await cost(texts.slice(0, 8));
    // a text met alone costs what it did; the second of its shape plans the shape, which the rest run
    assert.deepEqual(d, { analysis: 2, duckdb_prepare: 2, bind_check: 2, constants_shared: 7 });
    // another session: the shape is known to take its constants, planned at its first text
    const other = await RawPg.connect({ port: s.port, user: 'me', database: 'basic@v2' });
    try {
      const before = await workCounts(s, WORK);
      for (const t of texts.slice(8)) assert.equal((await other.simple(t)).error, undefined);
      const after = await workCounts(s, WORK);
      assert.deepEqual(Object.fromEntries(WORK.map((w) => [w, after[w] - before[w]])), {
        analysis: 0,
        duckdb_prepare: 1,
        bind_check: 0,
        constants_shared: 4,
      });
    } finally {
      await other.close();
    }
  });

  test('names and integers beside columns: a table read by name, a row by key', async () => {
    const texts = ['orders', 'customers', 'pg_class'].map(
      (t) =>
        `select attname, atttypid from pg_attribute join pg_class c on (c.oid = attrelid) join pg_namespace n on n.oid = relnamespace where not attisdropped and attname = 'oid' and relname = '${t}' and nspname = 'sales'`,
    );
    const d = await cost([
      ...texts,
      ...[1, 2, 3].map((k) => `select count(*) from sales.orders where order_id = ${k}`),
    ]);
    assert.equal(d.duckdb_prepare, 4, JSON.stringify(d));
    assert.equal(d.constants_shared, 4, JSON.stringify(d));
  });

  test('a constant whose type decides the plan stays in the text: each its own plan', async () => {
    const d = await cost([
      "select 'a' as x from pg_class where relname = 'pg_class'",
      "select 'b' as x from pg_class where relname = 'pg_class'",
      'select relname from pg_class order by relname limit 1',
      'select relname from pg_class order by relname limit 2',
      "select relname from pg_class where relname like 'pg_clas%'",
      "select relname from pg_class where relname like 'pg_cla%'",
    ]);
    // the select lists' constants, LIMIT and LIKE stay in the text: the second select list's text plans its
    // own shape (`select 'b' as x … relname = $1`), the others are planned as themselves
    assert.equal(d.duckdb_prepare, 6, JSON.stringify(d));
    assert.equal(d.constants_shared, 1, JSON.stringify(d));
  });
});

describe('a shared plan answers as PostgreSQL 15', () => {
  let twins: PgTwins | undefined;
  before(
    async () => {
      twins = await startPgTwins();
    },
    { timeout: 120_000 },
  );
  after(
    async () => {
      await twins?.stop();
    },
    { timeout: 30_000 },
  );

  /** Columns (name, type OID) and rows, or the SQLSTATE. */
  const answer = (r: QueryResult) =>
    r.error
      ? { error: r.error.code }
      : {
          columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]),
          rows: r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString()))),
        };

  const texts = [
    ...['3', ' 3 ', '+3', '0', '-1', 'abc', '', '3.5', '1e2', '99999999999999999999'].map(
      (v) => `select order_id, status from sales.orders where order_id = '${v}' order by 1`,
    ),
    ...['2', '70000', 'x'].map((v) => `select count(*) from sales.orders where qty = '${v}'`),
    // an int4 constant beside int2 past int2's range: compared as int4, as PostgreSQL's int24 operators
    ...[1, 2, 40000].map((v) => `select count(*) from sales.orders where qty >= ${v}`),
    ...['3', '2147483648'].map((v) => `select count(*) from sales.orders where customer_id < '${v}'`),
    ...[3, 4, 2147483647].map((v) => `select order_id from sales.orders where ${v} = order_id order by 1`),
    ...[3, 7].map(
      (v) =>
        `select count(*) from sales.orders o join sales.customers c on c.customer_id = o.customer_id and c.customer_id >= ${v}`,
    ),
    ...['DE', "it's", ''].map(
      (v) => `select name from sales.customers where country = '${v.replace(/'/g, "''")}' order by 1`,
    ),
    ...['orders', 'customers', 'nope'].map(
      (t) =>
        `select attname from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace where not attisdropped and attnum > 0 and relname = '${t}' and nspname = 'sales' order by attnum`,
    ),
    // abs(int4) has PostgreSQL's OID in both catalogs
    ...['1397', 'abc', '0'].map((v) => `select proname from pg_proc where oid = '${v}'`),
    'select proname from pg_proc where oid = 1397',
    "select count(*) from sales.orders group by status having status = 'shipped'",
  ];

  for (const t of texts) {
    test(t, async () => {
      const pg = answer(await twins!.conns.pg.simple(t));
      const gw = answer(await twins!.conns.gw.simple(t));
      assert.deepEqual(gw, pg);
      // a refused constant leaves the session as it was: the next statement answers
      const next = await twins!.conns.gw.simple('select 1 as one');
      assert.equal(next.error, undefined);
      assert.equal(next.dataRows.length, 1);
    });
  }
});
