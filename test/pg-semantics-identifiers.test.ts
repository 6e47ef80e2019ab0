/**
 * pg/identifier-case.ts: which quoted names a statement asks DuckDB's catalog about (PostgreSQL keeps
 * a quoted name's case; DuckDB matches any case). Names the statement defines, a struct's fields, a
 * pinned version and lower-case names are never looked up, so they are never refused. The answers
 * against PostgreSQL 15 are in the corpus (`REVIEW_7`, `REVIEW_7_CONTROLS`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quotedCaseNames } from '../src/pg/identifier-case.js';

const asked = (sql: string) => {
  const n = quotedCaseNames(sql);
  return n ? { columns: [...n.columns].sort(), relations: [...n.relations].sort() } : undefined;
};

test('quoted names with an upper-case letter are looked up unless the statement defines them', () => {
  assert.deepEqual(asked('select "Order_Id" from sales.orders'), { columns: ['Order_Id'], relations: [] });
  assert.deepEqual(asked('select o."Qty" from sales.orders o'), { columns: ['Qty'], relations: [] });
  assert.deepEqual(asked('select * from sales."Orders"'), { columns: [], relations: ['Orders'] });
  assert.deepEqual(asked('select * from "Sales".orders'), { columns: [], relations: ['Sales'] });
  assert.deepEqual(asked('select 1 from t group by "Status"'), { columns: ['Status'], relations: [] });
});

test('names the statement defines, fields, pinned versions and folded names are not looked up', () => {
  for (const sql of [
    'select order_id, "order_id" from sales.orders',
    'select t."X", "X" from (select 1 as "X") t',
    'with "Cte" as (select 1 as "A") select "A", "Cte"."A" from "Cte"',
    'select qty as "Qty" from sales.orders order by "Qty"',
    'select "O".qty from sales.orders "O"',
    'select "T"."B" from (values (1, 2)) "T"("A", "B")',
    'select s."Foo" from t',
    'select t.s."Foo" from t',
    'select * from "Repo@v1".orders',
    'select "Repo@v1".orders.qty from "Repo@v1".orders',
    `select 'a "Quoted" text' from t -- "Comment"`,
    `select 'b' collate "C"`,
  ])
    assert.equal(asked(sql), undefined, sql);
});
