/**
 * A computed value cast to jsonb is DuckDB's JSON in the text it was computed as, where PostgreSQL's jsonb is
 * the normal form (keys sorted, numbers as numeric, `{"a": 1}`): compared, ordered, grouped or cast to
 * text, the answers differed without a word (lead, session 54). Where its text is never read it answers as
 * PostgreSQL 15 does (a plain select-list item, the arrows, containment); elsewhere it is refused 0A000
 * with a hint, and the session goes on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { splitDataRow, type QueryResult, type RawPg } from './support/raw-pg.js';

let twins: PgTwins | undefined;
const conns: { pg?: RawPg; gw?: RawPg } = {};

before(
  async () => {
    twins = await startPgTwins();
    Object.assign(conns, twins.conns);
  },
  { timeout: 120_000 },
);
after(
  async () => {
    await twins?.stop();
  },
  { timeout: 30_000 },
);

const answer = (r: QueryResult) =>
  r.error
    ? { error: r.error.code }
    : {
        columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]),
        rows: r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString('utf8')))),
      };

// a computed object whose keys PostgreSQL sorts and whose number it prints as numeric
const OBJ = `('{"name": "' || name || '", "id": ' || customer_id || ', "v": 1.50, "b": {"y": 1, "x": 2}}')`;

const COMPACT = `('{"name":"' || name || '","b":{"y":1,"x":2}}')`;

describe('a computed value cast to jsonb', () => {
  test('where its text is never read: as PostgreSQL 15', async () => {
    for (const sql of [
      `select customer_id, ${OBJ}::jsonb as j from sales.customers where customer_id < 4 order by customer_id`,
      // (an arrow's own guard refuses a member of an input with spaces or numbers DuckDB prints anew: json-arrows.ts)
      `select ${COMPACT}::jsonb -> 'b' as b, ${COMPACT}::jsonb ->> 'name' as n from sales.customers where customer_id = 2`,
      `select count(*) from sales.customers where ${OBJ}::jsonb @> '{"b": {"x": 2}}' and ${OBJ}::jsonb ? 'id'`,
      `select jsonb_typeof(${COMPACT}::jsonb -> 'b') as t from sales.customers where customer_id = 1`,
      `select customer_id, k from sales.customers, jsonb_object_keys(${OBJ}::jsonb) k where customer_id < 3 order by 1, 2`,
      // a subquery's or a CTE's column read by its members only
      `select customer_id from (select customer_id, ${OBJ}::jsonb j from sales.customers) s where j @> '{"b": {"x": 2}}' and j ->> 'name' like 'A%' order by 1`,
      `with t(k) as (select ${OBJ}::jsonb from sales.customers) select count(*) from t where k ? 'v'`,
    ]) {
      const pg = answer(await conns.pg!.query(sql));
      assert.equal('error' in pg, false, `PostgreSQL answers ${sql}: ${JSON.stringify(pg)}`);
      assert.deepEqual(answer(await conns.gw!.query(sql)), pg, sql);
    }
  });

  test('where its text would be read: refused 0A000 with a hint, where it answered differently; the session goes on', async () => {
    for (const sql of [
      // PostgreSQL: t for Ada; the gateway compared the texts (f)
      `select ${OBJ}::jsonb = '{"b": {"x": 2, "y": 1}, "v": 1.5, "id": 1, "name": "Ada"}'::jsonb from sales.customers where customer_id = 1`,
      // the keys in the order computed
      `select (${OBJ}::jsonb)::text from sales.customers where customer_id = 1`,
      `select (${OBJ}::jsonb -> 'b')::text from sales.customers where customer_id = 1`,
      // ordered by the text, not by jsonb's order; grouped by the text
      `select ${OBJ}::jsonb as j from sales.customers order by j limit 2`,
      `select ${OBJ}::jsonb, count(*) from sales.customers group by 1`,
      `select distinct ('{"b": 1, "a": ' || (customer_id % 2) || '}')::jsonb from sales.customers`,
      // a subquery's or CTE's column shown, ordered, compared, or passed on by a star; a set operation's arm
      `select j from (select ${OBJ}::jsonb as j from sales.customers) s`,
      `select j ->> 'name' from (select ${OBJ}::jsonb as j from sales.customers) s order by j limit 2`,
      `with t(k) as (select ${OBJ}::jsonb from sales.customers) select k::text from t limit 1`,
      `select * from (select ${OBJ}::jsonb as j from sales.customers) s limit 1`,
      `select ${OBJ}::jsonb from sales.customers union select '{}'::jsonb`,
      // a whole-row reference of a subquery holding one, and jsonb arrays (attacker review, session 54)
      `select count(*) from (select ${OBJ}::jsonb as j from sales.customers) s where (s).j::text like '{"b"%'`,
      `select s from (select ${OBJ}::jsonb as j from sales.customers where customer_id = 1) s`,
      `select row_to_json(s) from (select ${OBJ}::jsonb as j from sales.customers where customer_id = 1) s`,
      `select (array[${OBJ}]::jsonb[])[1]::text from sales.customers where customer_id = 1`,
    ]) {
      const pg = await conns.pg!.query(sql);
      assert.equal(pg.error, undefined, `PostgreSQL answers ${sql}: ${pg.error?.message}`);
      const gw = await conns.gw!.query(sql);
      assert.equal(gw.error?.code, '0A000', `${sql}: ${JSON.stringify(answer(gw))}`);
      assert.match(gw.error?.message ?? '', /computed value cast to jsonb/);
      assert.match(gw.error?.hint ?? '', /->> 'k'/);
      const after = await conns.gw!.query('select 1 as x');
      assert.deepEqual(answer(after).rows, [['1']]);
    }
  });

  test("jsonb's normal form is bounded: a value past 262,144 characters 54000, nested past 2,000 levels 54001, at once; the session goes on", async () => {
    // An attacker review (session 54): the normal form, computed on the event loop, read each token from a copy of
    // the rest of the text (quadratic): a 10.8 MB parameter held every session 7.5 s, a shown value 5.7 s.
    const big = `{${Array.from({ length: 30000 }, (_, i) => `"k${i}": ${i}`).join(', ')}}`;
    const cases: [string, (string | null)[], string][] = [
      ['select length($1::jsonb::text) as n', [big], '54000'],
      [
        `select ('{' || string_agg('"k' || i || '": ' || i, ', ') || '}')::jsonb as j from range(30000) t(i)`,
        [],
        '54000',
      ],
      ['select $1::jsonb as j', ['['.repeat(5000) + ']'.repeat(5000)], '54001'],
    ];
    for (const [sql, params, code] of cases) {
      const t0 = Date.now();
      const r = await conns.gw!.query(sql, { params });
      assert.equal(r.error?.code, code, `${sql.slice(0, 60)}: ${JSON.stringify(answer(r)).slice(0, 200)}`);
      assert.ok(Date.now() - t0 < 5000, `${sql.slice(0, 60)}: answered after ${Date.now() - t0} ms`);
      assert.deepEqual(answer(await conns.gw!.query('select 1 as x')).rows, [['1']]);
    }
    // within the bound, as PostgreSQL
    const sql = 'select $1::jsonb::text as t';
    const params = [`{${Array.from({ length: 2000 }, (_, i) => `"k${2000 - i}": ${i}.50`).join(', ')}}`];
    assert.deepEqual(answer(await conns.gw!.query(sql, { params })), answer(await conns.pg!.query(sql, { params })));
  });

  test("a jsonb number past numeric's bounds is 22003 at once, as PostgreSQL's; within them the same text (attacker review, session 56)", async () => {
    // `1e100000000` (47 characters) had been written out digit by digit on the event loop: 11 s and 2.6 GB
    for (const j of ['{"a":1e100000000}', '[1e-100000000]', '[1e131072]', '[1e-16384]', '[0e-20000]']) {
      const sql = `select length('${j}'::jsonb::text) as n`;
      const t0 = Date.now();
      const [gw, pg] = [await conns.gw!.query(sql), await conns.pg!.query(sql)];
      assert.equal(pg.error?.code, '22003', j);
      assert.equal(gw.error?.code, '22003', `${j}: ${JSON.stringify(answer(gw)).slice(0, 200)}`);
      assert.ok(Date.now() - t0 < 3000, `${j}: answered after ${Date.now() - t0} ms`);
    }
    const sql = `select '[0e100000000, 1e300, 1e-300, 1.50, 2e3, -0.0, 12.5e-1, 100e-5]'::jsonb::text as t`;
    assert.deepEqual(answer(await conns.gw!.query(sql)), answer(await conns.pg!.query(sql)));
  });

  test('an untyped string compared with a jsonb value is jsonb, as PostgreSQL reads it (it was text, or an array literal: 22P02)', async () => {
    for (const sql of [
      `select '[1,2]'::jsonb = '[1,2]' as a, '[1,2]'::jsonb <> '[1, 2]' as b, '{"b":1}'::jsonb = '{"b":1}' as c, '[1,2]' = '[1,2]'::jsonb as d`,
      `select '[1,2]'::jsonb in ('[1,2]', '[3]') as a, '{"b":1,"a":2}'::jsonb not in ('{"a":2,"b":1}') as b`,
      `select count(*) from sales.customers where $1::jsonb = '{"a":2,"b":1}'`,
    ]) {
      const params = sql.includes('$1') ? ['{"b": 1, "a": 2}'] : [];
      const pg = answer(await conns.pg!.query(sql, { params }));
      assert.equal('error' in pg, false, `PostgreSQL answers ${sql}: ${JSON.stringify(pg)}`);
      assert.deepEqual(answer(await conns.gw!.query(sql, { params })), pg, sql);
    }
  });
});
