/**
 * Corpus statements for PostgreSQL's row semantics (issue 25, a new user's review of `fdl demo`): each
 * answered differently from PostgreSQL 15 in silence (DuckDB's structs: NULL only as a whole, nested
 * NULLs equal, `count(t.*)` = `count(*)`, unnamed fields collapsed), and must now be PostgreSQL's answer
 * or a refusal with a hint (pg/pg-rows.ts).
 */
export const REVIEW_ROWS = [
  // a row IS NULL when every field is NULL, IS NOT NULL when none is
  'select row(null,null) is null, row(1,null) is not null',
  'select row(null,null) is null, row(1,null) is null, row(1,null) is not null, row(1,2) is not null, row(null,null) is not null',
  'select count(*) from (values (null::int, null::int), (1, null), (1, 2)) v(a, b) where (a, b) is null',
  'select count(*) from (values (null::int, null::int), (1, null), (1, 2)) v(a, b) where (a, b) is not null',
  // the row an outer join adds for a missing match is all NULLs: not counted, IS NULL
  "select count(o.*), count(o) from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4 where c.country = 'FR'",
  'select c.customer_id from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4 where o is null order by 1',
  'select c.customer_id, o is null, o is not null from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4 order by 1, 2 limit 6',
  'select count(x.*) from sales.customers c left join lateral (select * from sales.orders o where o.customer_id = c.customer_id and o.qty > 4) x on true',
  'select c.country, count(x) from sales.customers c left join lateral (select * from sales.orders o where o.customer_id = c.customer_id and o.qty > 4) x on true group by 1 order by 1',
  // row comparisons field by field with SQL's NULL logic
  'select row(1,null) = row(1,null), row(1,2) = row(1,2), row(1,null) <> row(2,null), row(1,null) < row(2,null), (1,null) < (1,2), (null,1) <= (2,1), (1,2) >= (1,2), (1,3) > (1,2)',
  'select count(*) from sales.orders where (customer_id, qty) not in (select customer_id, null::bigint from sales.orders where customer_id < 5)',
  'select count(*) from sales.orders where (customer_id, qty) in (select customer_id, qty from sales.orders where customer_id < 5)',
  'select (1, 2) in ((1, null), (3, 4)), (1, 2) not in ((1, null), (3, 4)), (1, 2) in ((1, 2), (null, 4))',
  'select (1, null::int) in (select 1, 2), (1, 2) = any (select 1, 2), (1, 2) <> all (select 1, null::int), (3, 2) > all (select 1, 2)',
  'select (1, 2) = (select 1, 2), (1, 2) = (select 1, null::int), (1, 2) < (select 2, 1 where false)',
  'select order_id from sales.orders o where (o.customer_id, o.qty) = (select c.customer_id, 2::bigint from sales.customers c where c.customer_id = o.customer_id) order by 1',
  'select order_id, (customer_id, qty) < (3, 2), (customer_id, null::int) = (2, 1) from sales.orders order by order_id limit 6',
  // arrays of records: PostgreSQL's record[] the gateway cannot send, refused
  "select array[row(1,'a')]",
  'select array[(1,2)]',
  'select array_agg(row(order_id, status)) from sales.orders where order_id < 3',
  'select array_agg(c) from sales.customers c where customer_id < 3',
];
