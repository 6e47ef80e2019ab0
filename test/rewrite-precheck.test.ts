/**
 * The rewrite's pre-check (pg/rewrite.ts needsPgRewrite) against the rewrite itself, both ways:
 * what it flags is what the PostgreSQL-grammar walk changes; what it lets pass gives DuckDB's answer
 * unchanged (checked by running both texts); the over-matches that remain are the documented ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { needsPgRewrite, rewriteParsed } from '../src/pg/rewrite.js';

const NEEDS = [
  // `*` and `+` between names or casts: a float result is checked for overflow (float-range.ts)
  'select 1::real * 2::real as n',
  'select x * x, x + x from range(3) t(x)',
  'select relname from pg_class',
  `select 'a'::"char" as c`,
  'select 1::oid as o',
  'select x from t where a = any($1)',
  'select x from t where a <> all(array[1, 2])',
  `select 'b' collate "C" as s`,
  `select 'b' COLLATE "default" as s`,
  `select 'b' collate pg_catalog."POSIX" as s`,
  `select s from t where s ~ 'x'`,
  `select s from t where s !~* 'x'`,
  `select '{1,2}'::int[] as a`,
  'select current_user',
  `select 'pg_class'::regclass`,
  `select 'ab'::char(3) as c`,
  // float4 beside another number is float8 (float4-widening.ts); chr's 54000, OVERLAPS (compat macros)
  'select 2 * 1.5::real as n',
  'select chr(65) as c',
  `select (date '2024-01-01', date '2024-02-01') overlaps (date '2024-01-15', date '2024-03-01') as o`,
  `select cast('ab' as char(3)) as c`,
  // char without a length is char(1) in PostgreSQL's grammar (DuckDB: VARCHAR, the whole text)
  `select 'abc'::char as c`,
  `select cast('abc' as character) as c`,
  'select generate_series(1, 3)',
  `select format('%s!', 1) as f`,
  'select count(*) from t tablesample bernoulli (50)',
  'select 1 / x from range(3) t(x)',
  'select 1.5::numeric as n',
  `select ' 12 '::int as n`,
  `select cast('on' as boolean) as b`,
  `select timestamptz '2024-01-01 12:00+00' as t`,
  'select current_timestamp(0) as t',
  'select localtime(2) as t',
  `select j #>> '{a,b}' as v from (select '{}'::json as j) t`,
  `select s from (select 'a' as s) t where s ilike any(array['a%'])`,
  // ILIKE folds ASCII letters only in PostgreSQL's C locale ('ÄB' ILIKE 'ä%' is false), all of Unicode in DuckDB
  `select 'ab' not ilike 'B%' as c`,
  'select x from range(3) t(x) order by x using >',
  'select sum(x) as s from range(3) t(x)',
  'select round(x) as r from range(3) t(x)',
  `select 'a' || null as s`,
  `select current_date - date '2024-01-01' as d`,
  // LIKE's default escape is a backslash in PostgreSQL: a pattern that may hold one
  `select 'a_b' like 'a\\_b' as b`,
  'select s from t where s not ilike $1',
  'select s from t where s like p',
  `select s from t where s like 'a' || p`,
  // LIKE as its operators, with the same escape; subscripts PostgreSQL bounds; a minus whose rule depends on types
  `select 'ab' ~~ 'a%' as b`,
  `select 'ab' !~~ 'a%' as b`,
  'select (array[1, 2])[-1] as e, (array[1, 2])[0:1] as s',
  'select a - b as d from (select 2 as a, 1 as b) t',
  // row semantics (pg/pg-rows.ts, pg/pg-json-values.ts)
  'select (a, b) is null as n from (values (1, 2)) v(a, b)',
  'select count(t.*) as n from range(3) t(x)',
  'select count(t) as n from (select 1 as x) t',
  'select t is null as n from (select 1 as x) t',
  'select x from (select 1 as x) t where t is not null',
  // a whole row named by a FROM item anywhere in the list (names gathered in one pass, not by a backreference)
  'select 1 as one, t from (select 1 as x) t',
  'select t from (select 1 as x) as t',
  'select a.x from (select 1 as x) a join (select 2 as y) b on true where b is null',
  'select count(c) as n from (select 1 as x) c',
  'select (1, 2) = (1, null) as b',
  'select (x, 1) not in (select 1, 2) as b from range(3) t(x)',
  `select row_to_json(row(1, 'a')) as j`,
  // a value's text as PostgreSQL writes it (pg/pg-text.ts)
  `select concat(1, true) as c, concat_ws(',', 1.5::float8) as w`,
  `select 'a' || x as s from range(3) t(x)`,
  `select array_to_string(array[true], ',') as s`,
  `select (1, 'a')::text as r`,
  // PostgreSQL's special date/time words, an untyped literal beside a date, bit_length's int4
  `select 'today'::date as d, timestamp 'yesterday' as t`,
  `select current_date - '2024-01-01' as n`,
  `select bit_length('abc') as b`,
  // a FROM subquery's, a LATERAL subquery's and a CTE's columns named as PostgreSQL names them (pg/inner-names.ts)
  'select * from (select count(*) from range(3)) t',
  'select * from range(2) r(x), lateral (select x + 1) l',
  'with c as (select 1 + 1) select * from c',
  'with c as materialized (select max(x) from range(3) t(x)) select * from c',
  'select * from range(2) r, (select 1 + 1) s',
  'select * from t, (select 1 + 1) s',
  'select column1 from (values (1)) v',
];

/** Not flagged: DuckDB gives the same answer as for the rewritten text (or the rewrite leaves it). */
const PLAIN = [
  'select 1 as x union all (select 2)',
  `select 'b' collate nocase as s`,
  `select 'pg_class ~ collate "C"' as s`,
  'select 1 as x -- pg_class ~',
  'select 2 = any_value(2) as b',
  'select [1, 2] as l',
  'select [1, 2][1] as e, 5 - 3 as n, 5 -1 as m',
  `select 'x' as "ANY"`,
  `select 'ab' like 'a%' as b`,
  // scalar subqueries after a comma of a select list: their columns' names are not seen
  'select x, (select 1 from range(1)), (select 2) from range(3) t(x)',
];

/** The documented over-matches: flagged, but the walk changes nothing. */
const OVER = [
  'select ~5 as n',
  // a window call PostgreSQL answers (nth_value's n above 0): flagged for its refusals, nothing changed
  'select nth_value(1, 2) over () as n',
  'select 7 / 2 as n',
  // a call's argument list before a comparison looks like a row constructor's
  'select greatest(1, 2) = 2 as b',
  // a concatenation of constants only: their text is already PostgreSQL's
  `select 'a' || 'b' as s`,
  // a FROM subquery whose items are columns or named: DuckDB names them as PostgreSQL
  'select * from (select x, x as y from range(3) t(x)) s',
];

test('the pre-check flags exactly what the rewrite changes', async () => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const rows = async (sql: string) => JSON.stringify((await conn.runAndReadAll(sql)).getRowObjectsJson());
  try {
    for (const sql of NEEDS) {
      assert.equal(needsPgRewrite(sql), true, `flagged: ${sql}`);
      assert.notEqual(rewriteParsed(sql).sql, sql, `the rewrite changes: ${sql}`);
    }
    for (const sql of PLAIN) {
      assert.equal(needsPgRewrite(sql), false, `not flagged: ${sql}`);
      const rewritten = rewriteParsed(sql).sql;
      if (rewritten !== sql)
        assert.equal(await rows(sql), await rows(rewritten), `same answer without the rewrite: ${sql} / ${rewritten}`);
    }
    for (const sql of OVER) {
      assert.equal(needsPgRewrite(sql), true, `over-match still flagged: ${sql}`);
      const r = rewriteParsed(sql);
      assert.equal(r.sql, sql, `nothing changed: ${sql}`);
      assert.equal(r.rewritten, false);
    }
  } finally {
    conn.disconnectSync();
  }
});
