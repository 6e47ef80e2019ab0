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
  'select count(o.*), count(o) from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4',
  'select c.customer_id from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4 where o is null order by 1',
  'select c.customer_id, o is null, o is not null from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and o.qty > 4 where c.customer_id > 17 order by 1, 2',
  'select count(x.*) from sales.customers c left join lateral (select * from sales.orders o where o.customer_id = c.customer_id and o.qty > 4) x on true',
  'select c.country, count(x) from sales.customers c left join lateral (select * from sales.orders o where o.customer_id = c.customer_id and o.qty > 4) x on true group by 1 order by 1',
  // row comparisons field by field with SQL's NULL logic (the ANY/ALL one also stopped the old code's DuckDB
  // connection: an internal error, after which every statement of the session failed)
  'select row(1,null) = row(1,null), row(1,2) = row(1,2), row(1,null) <> row(2,null), row(1,null) < row(2,null), (1,null) < (1,2), (null,1) <= (2,1), (1,2) >= (1,2), (1,3) > (1,2)',
  'select count(*) from sales.orders where (customer_id, qty) not in (select customer_id, null::bigint from sales.orders where customer_id < 5)',
  // a guard (answered the same before): IN as a filter is one EXISTS, NOT IN keeps its NULL case
  'select count(*) from sales.orders where (customer_id, qty) in (select customer_id, qty from sales.orders where customer_id < 5) and qty > 1',
  'select status, count(*) from sales.orders group by status having (status, count(*)) in (select status, 80 - count(*) from sales.orders group by status) or true order by 1',
  'select order_id, (customer_id, qty) in (select customer_id, null::bigint from sales.orders where customer_id < 3) from sales.orders order by order_id limit 5',
  'select (1, 2) in ((1, null), (3, 4)), (1, 2) not in ((1, null), (3, 4)), (1, 2) in ((1, 2), (null, 4))',
  'select order_id, (customer_id, qty) < any (select 3, null::bigint), (customer_id, qty) <> all (select customer_id, null::bigint from sales.orders where customer_id < 3) from sales.orders order by order_id limit 5',
  'select (1, 2) = (select 1, 2), (1, 2) = (select 1, null::int), (1, 2) < (select 2, 1 where false)',
  'select order_id from sales.orders o where (o.customer_id, o.qty) = (select c.customer_id, 2::bigint from sales.customers c where c.customer_id = o.customer_id) order by 1',
  'select order_id, (customer_id, qty) < (3, 2), (customer_id, null::int) = (2, 1) from sales.orders order by order_id limit 6',
  // arrays of records: PostgreSQL's record[] the gateway cannot send, refused
  "select array[row(1,'a')]",
  'select array[(1,2)]',
  'select array_agg(row(order_id, status)) from sales.orders where order_id < 3',
  'select array_agg(c) from sales.customers c where customer_id < 3',
  // records in JSON: fields f1…fn; timestamps ISO 8601 with a T, numerics with their scale, floats as float8out
  "select row_to_json(row(1,'a'))",
  'select row_to_json(row(order_id, ordered_at, amount, status, null::int)) from sales.orders where order_id < 3 order by order_id',
  // a guard (answered the same before): a row without such columns is not refused
  'select row_to_json(c) from sales.customers c where customer_id = 1',
  'select row_to_json(o) from sales.orders o where order_id = 1',
  "select json_build_object('t', ordered_at) from sales.orders where order_id = 1",
  "select json_build_object('t', ordered_at, 'a', amount, 'n', 2.50, 'q', qty, 's', status, 'b', qty > 2, 'z', null, 'f', 100::float8, 'g', 'NaN'::float8) from sales.orders where order_id = 1",
  "select json_build_object('t', ordered_at::timestamptz, 'd', ordered_at::date, 'x', 'a\"b') from sales.orders where order_id = 1",
  "select json_build_object('n', count(*), 'm', max(ordered_at), 'a', sum(amount)) from sales.orders",
  "select json_build_object('k', json_build_object('i', 1), 'l', array[1,2]), json_build_object()",
  'select json_build_object(null, 1)',
  // json_agg / to_json of records: PostgreSQL's row_to_json text, a record element after ", \n "
  'select json_agg(row(order_id, status)) from sales.orders where order_id < 3',
  'select json_agg(c order by customer_id desc) from sales.customers c where customer_id < 3',
  'select json_agg(o) from sales.orders o where order_id < 3',
  "select to_json(row(1, 'a')), to_json(row(order_id, ordered_at)) from sales.orders where order_id = 1",
  'select to_json(o) from sales.orders o where order_id = 1',
];
