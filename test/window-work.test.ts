/**
 * Window aggregates that build a value (analysis/window-work.ts): over a frame that is not the whole
 * partition DuckDB builds every row's frame value in a segment tree, a vector at a time, in a call no
 * interrupt reaches: an attacker review's `string_agg(repeat('x',1000),'') over (order by i rows between
 * 10000 preceding and current row)` over 100,000 rows never answered its 57014, held the repository's
 * memory share and needed a restart. Each such statement is refused 54000 before DuckDB sees it, the
 * process stays idle and the session goes on; everyday windows answer as PostgreSQL 15 answers them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { refusedThenIdle } from './support/refused-then-idle.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { AGGREGATES_ANY_FRAME, SELECTORS } from '../src/analysis/window-work.js';

const TIMEOUT_MS = 3000;
/** Result types of a fixed size (BIT and BIGNUM: the size of their input, sums growing by a bit a doubling). */
const FIXED_SIZE =
  /^(?:BOOLEAN|U?TINYINT|U?SMALLINT|U?INTEGER|U?BIGINT|U?HUGEINT|FLOAT|DOUBLE|DECIMAL|BIGNUM|BIT|DATE|TIME|TIME WITH TIME ZONE|TIMESTAMP|TIMESTAMP WITH TIME ZONE|INTERVAL)$/;

const MESSAGE =
  /^a window aggregate that builds a value \((?:string_agg|array_agg|list|histogram|json_object_agg)\(\) as DuckDB runs it\) is served only over its whole partition/;

describe('window aggregates that build values', () => {
  let gw: RunningGateway;
  let cluster: PgCluster;
  const repos = copyFixtures('repos/nested');

  before(async () => {
    [gw, cluster] = await Promise.all([
      startGateway([
        '--repo',
        `nested=${repos.path('repos/nested')}`,
        '--cache-dir',
        join(repos.dir, 'cache'),
        '--statement-timeout',
        String(TIMEOUT_MS),
      ]),
      startPgCluster({ settings: { TimeZone: 'UTC' } }),
    ]);
  });
  after(async () => {
    gw?.proc.kill('SIGKILL'); // on the old code the refused statements still run in DuckDB
    await gw?.stop();
    await cluster?.stop();
    repos.cleanup();
  });

  test("the aggregates served over any frame are DuckDB's, each with a fixed-size result or one of its inputs", async () => {
    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    const reader = await duck.runAndReadAll(
      "select function_name, len(parameters)::int, return_type from duckdb_functions() where function_type = 'aggregate'",
    );
    const overloads = reader
      .getRows()
      .map(([name, arity, type]) => ({ name: String(name), arity: Number(arity), type: String(type) }));
    for (const [name, arities] of AGGREGATES_ANY_FRAME)
      for (const arity of arities) {
        const types = overloads.filter((o) => o.name === name && o.arity === arity).map((o) => o.type);
        assert.ok(types.length > 0, `${name} with ${arity} arguments is one of DuckDB's aggregates`);
        for (const type of types)
          if (SELECTORS.has(name)) assert.doesNotMatch(type, /\[\]$|^MAP|^STRUCT/, `${name}/${arity} returns ${type}`);
          else assert.match(type, FIXED_SIZE, `${name}/${arity} returns ${type}`);
      }
    // And none that builds a list, a map or a text from its rows is among them.
    for (const o of overloads)
      if (/\[\]$|^MAP/.test(o.type) || (o.type === 'VARCHAR' && !SELECTORS.has(o.name)))
        assert.ok(!AGGREGATES_ANY_FRAME.get(o.name)?.includes(o.arity), `${o.name}/${o.arity} returns ${o.type}`);
    duck.closeSync();
  });

  test('over frames other than the whole partition they are refused 54000 at once; the process stays idle', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'nested' });
    await c.connect();
    await c.query('select 1'); // the session's first statement sets it up: not a refusal's time
    const payloads = [
      // The review's statement: 10 MB per row, minutes in DuckDB past the client's 57014.
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over (order by i rows between 10000 preceding and current row) s from range(100000) t(i))",
      // The default frame with ORDER BY (cumulative): the last row builds the whole partition's value.
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over (order by i) s from range(100000) t(i))",
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over (order by i rows between unbounded preceding and current row) s from range(100000) t(i))",
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over (order by i range between 10000 preceding and 10000 following) s from range(100000) t(i))",
      "select max(len(s)) from (select array_agg(repeat('x',1000)) over (order by i rows between 10000 preceding and current row) s from range(100000) t(i))",
      "select max(len(s)) from (select list(repeat('x',1000)) over (partition by i % 2 order by i) s from range(100000) t(i))",
      // PostgreSQL's json_agg (DuckDB's list under the rewrite) and json_object_agg, cumulative.
      "select max(length(s::text)) from (select json_agg(repeat('x',1000)) over (order by i) s from generate_series(1, 100000) t(i)) q",
      'select max(length(s::text)) from (select json_object_agg(i, i) over (order by i) s from generate_series(1, 100000) t(i)) q',
      // A frame of a few rows still builds the segment tree's levels over the whole partition.
      'select max(cardinality(s)) from (select histogram(i) over (order by i rows between 2 preceding and current row) s from range(1000000) t(i))',
      // The whole partition but excluding rows, or DISTINCT: DuckDB then takes a per-row aggregator.
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over (rows between unbounded preceding and unbounded following exclude current row) s from range(100000) t(i))",
      // Named windows are read through: DuckDB's parse puts the frame on the call.
      "select max(strlen(s)) from (select string_agg(repeat('x',1000),'') over w s from range(100000) t(i) window w as (order by i rows 10000 preceding))",
    ];
    for (const sql of payloads) {
      await refusedThenIdle(c, gw.proc.pid!, sql, {
        code: '54000',
        message: MESSAGE,
        hint: /OVER \(PARTITION BY …\)/,
        withinMs: 1000,
      });
      // The session goes on.
      assert.equal((await c.query('select 1 as x')).rows[0].x, 1);
    }
    await c.end();
  });

  test('everyday windows answer as PostgreSQL 15 answers them', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'nested' });
    const p = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.user, database: cluster.database });
    await Promise.all([c.connect(), p.connect()]);
    const rows = `(values (1, 1, 'a'), (1, 2, 'bb'), (1, 3, 'a'), (2, 4, 'ccc'), (2, 5, null), (3, 6, 'dd')) v(g, i, x)`;
    const statements = [
      // Value-building aggregates over the whole partition (computed once per partition).
      `select g, i, length(string_agg(x, ',') over (partition by g)) as n from ${rows} order by i`,
      `select g, i, cardinality(array_agg(i) over (partition by g)) as n from ${rows} order by i`,
      `select g, i, json_agg(g) over (partition by g) as j from ${rows} order by i`,
      `select i, length(string_agg(x, '') over (order by i rows between unbounded preceding and unbounded following)) as n from ${rows} order by i`,
      `select i, length(string_agg(x, '') over ()) as n from ${rows} order by i`,
      // Bounded aggregates over any frame.
      `select i, sum(i) over (order by i) as s, count(x) over (partition by g order by i) as c, avg(i) over (order by i rows between 1 preceding and 1 following) as a from ${rows} order by i`,
      `select i, min(x) over (order by i rows between 2 preceding and current row) as lo, max(x) over (order by i range between unbounded preceding and current row) as hi from ${rows} order by i`,
      `select i, row_number() over (partition by g order by i) as r, lag(x) over (order by i) as l, lead(i, 2) over (order by i) as d, first_value(x) over (partition by g order by i) as f from ${rows} order by i`,
      `select i, bool_and(x is not null) over (order by i rows between 1 preceding and current row) as b, count(*) over (order by g groups between 1 preceding and current row) as n from ${rows} order by i`,
    ];
    for (const sql of statements) {
      const [ours, theirs] = await Promise.all([c.query(sql), p.query(sql)]);
      assert.deepEqual(ours.rows, theirs.rows, sql);
      assert.deepEqual(
        ours.fields.map((f) => [f.name, f.dataTypeID]),
        theirs.fields.map((f) => [f.name, f.dataTypeID]),
        sql,
      );
    }
    await Promise.all([c.end(), p.end()]);
  });
});
