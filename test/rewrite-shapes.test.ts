/**
 * The rewrite shared by texts of one shape (pg/rewrite-shapes.ts) against the rewrite of each text
 * itself (rewriteParsed): byte for byte the same answer — or the same error — for every corpus
 * statement and the rewrite's own cases, each run first with its integers as written and then with
 * other integers (other values, 0, int4's last, past int4); and a text of a shape seen before costs
 * no PostgreSQL parse.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { needsPgRewrite, rewriteForDuckDBDetailed, rewriteParsed, type RewriteResult } from '../src/pg/rewrite.js';
import { rewritesShared } from '../src/pg/rewrite-shapes.js';
import { pgParses } from '../src/pg/pg-parse.js';
import { mapCode } from '../src/text/split.js';
import { corpusStatements } from './support/pg-corpus.js';
import { basicHeadTypes } from './support/relation-types.js';
import type { RelationTypes } from '../src/pg/operand-types.js';

/** Texts whose integers the rewrite reads (or must not lose), beside the corpus. */
const VALUE_READ = [
  'select sum(qty) from sales.orders where qty > 3 limit 2',
  'select status, sum(qty) from sales.orders where qty >= 2 group by 1 order by 1',
  'select order_id, sum(qty) from sales.orders where amount between 3 and 3 + 20 group by 1 order by 2, 1',
  'select 1 / 4 as a, 7 % 3 as b, qty / 2 as c from sales.orders where qty = 1',
  'select generate_series(1, 3) as g where 1 = 1',
  'select count(*) from sales.orders tablesample bernoulli (50) where qty = 2',
  "select 'ab'::char(3) as c, 'x'::varchar(5) as v from sales.orders where order_id = 4",
  'select 1e-4 as e, 12.5 as d, 2147483648 as big from sales.orders where order_id = 5',
  "select order_id from sales.orders where status = '{1,2}' and qty in (1, 2, 3)",
  'select sum(qty) from sales.orders where qty = -5 or qty = - 6 or qty = -0 or qty = 007 or -0 = qty',
  'select order_id from sales.orders where qty between symmetric 5 and 1 and 3 = qty',
  'select (array[1, 2, 3])[2] as a, sum(qty) from sales.orders where customer_id <> 3 group by 1',
  'select order_id from sales.orders where (qty, customer_id) = (1, 2) and qty = 1',
  'select order_id, qty + 1 as q from sales.orders where qty * 2 > 3 and order_id = any(array[1, 2])',
  'select sum(amount) from sales.orders where qty = 3 /* xmin */',
  'select sum(amount) from sales.orders where qty = 3 -- float',
  'select relname from pg_class where relpages > 3 /* xmin */',
  // dollar quotes and backslashes, where a comment is PostgreSQL's and not the gateway's lexer's (or the other way)
  'select sum(qty) from sales.orders where status = $é$ -- $é$ and qty = 3',
  "select sum(qty) from sales.orders where status = éE'a\\' -- ' and qty = 5",
  'select sum(qty) from sales.orders where status = $$ -- $$ and qty = 3',
  "select date_trunc('day', ordered_at) as d, count(*) from sales.orders where amount between 10 and 10 + 20 group by 1 order by 1",
  'select relname from pg_class where relpages > 3 and oid = 16384 limit 10',
  'select c.relname from pg_catalog.pg_class c where c.relnatts >= 2 and c.oid operator(pg_catalog.=) 5',
  'select sum(x) as s from range(30) t(x) where x < 12 and x not between 3 and 9 and x not in (4, 5)',
  'select round(amount, 2) as r, sum(qty) filter (where qty > 1) as s from sales.orders where qty = 3 group by 1',
  // a comment that ends a string's continuation (a syntax error), one left open, one nested and left open
  "select 'a' /* c */\n'b' as v from sales.orders where qty = 3 and current_user is not null",
  'select current_user is not null as u from sales.orders where qty = 3 /* open',
  'select current_user is not null as u from sales.orders where qty = 3 /* /* nested */',
];

/** The text with every integer outside strings and comments given by `to(n)`. */
function withIntegers(sql: string, to: (n: number, k: number) => string): string {
  let k = 0;
  return mapCode(sql, (code) => code.replace(/(?<![\p{L}\p{N}_$.])\d+(?![\p{L}\p{N}_.])/gu, (d) => to(Number(d), k++)));
}

/** The rewrite of the text itself, as rewriteForDuckDBDetailed gave it before shapes: pre-check, then the walk. */
const own = (sql: string, types?: RelationTypes): RewriteResult =>
  needsPgRewrite(sql) ? rewriteParsed(sql, types) : { sql, rewritten: false };

const plain = (r: RewriteResult) =>
  JSON.stringify(r, (_k, v: unknown) => (v instanceof Map ? [...(v as Map<unknown, unknown>)] : v));

function outcome(f: () => RewriteResult): string {
  try {
    return plain(f());
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return `error ${err.code} ${err.message}`;
  }
}

for (const [label, types] of [
  ['', undefined],
  [", with the basic fixture's column types (float checks left out: pg/operand-types.ts)", basicHeadTypes()],
] as const)
  test(`a text of a shape seen before: the same rewrite as its own, byte for byte (or the same error)${label}`, () => {
    const texts = [...VALUE_READ, ...corpusStatements()];
    const variants: ((n: number, k: number) => string)[] = [
      (n) => String(n),
      (n, k) => String(n + 3 + k),
      (n) => (n === 0 ? '1' : '0'),
      (n, k) => String(k % 2 ? 2147483647 : 2),
      (n, k) => String(k % 2 ? 2147483648 : 1),
      (n, k) => String(n * 10 + k),
    ];
    for (const text of VALUE_READ) assert.ok(needsPgRewrite(text), `a text the rewrite reads: ${text}`);
    const sharedBefore = rewritesShared();
    let compared = 0;
    for (const text of texts) {
      for (const v of variants) {
        const sql = `${withIntegers(text, v)} /* ${compared} */`;
        assert.equal(
          outcome(() => rewriteForDuckDBDetailed(sql, types)),
          outcome(() => own(sql, types)),
          sql,
        );
        compared++;
      }
    }
    // the shapes were shared, not merely rewritten one by one
    assert.ok(rewritesShared() - sharedBefore > texts.length, `${rewritesShared() - sharedBefore} shared`);
  });

test('new integers in a comparison of a text rewritten before: no PostgreSQL parse; other integers are part of the shape', () => {
  const text = (c: number, q: number, limit: number) =>
    `select count(*)::int as n, sum(amount) as total from sales.orders where customer_id = ${c} and qty >= ${q} limit ${limit} -- ${c}.${q}`;
  const first = rewriteForDuckDBDetailed(text(1, 2, 5));
  assert.match(first.sql, /customer_id = 1\b[\s\S]*qty >= 2\b[\s\S]*LIMIT 5\b/);
  const parses = pgParses();
  const shared = rewritesShared();
  const next = rewriteForDuckDBDetailed(text(17, 4, 5));
  assert.equal(pgParses() - parses, 0, 'no PostgreSQL parse for new comparison values');
  assert.equal(rewritesShared() - shared, 1);
  assert.equal(next.sql, rewriteParsed(text(17, 4, 5)).sql);
  assert.match(next.sql, /customer_id = 17\b[\s\S]*qty >= 4\b[\s\S]*LIMIT 5\b/);
  // another LIMIT: another shape, rewritten as itself once
  const parsesBefore = pgParses();
  const other = rewriteForDuckDBDetailed(text(3, 4, 6));
  assert.ok(pgParses() - parsesBefore >= 1);
  assert.match(other.sql, /LIMIT 6\b/);
});
