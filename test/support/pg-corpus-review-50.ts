/**
 * Corpus statements of session 50 (issue 25): silent differences the last new-user review left.
 * `REVIEW_50` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused); `REVIEW_50_REFUSED` 0A000/42883 with a hint where the gateway does not give PostgreSQL's answer.
 * (Parameters as drivers send them: test/clients/twins_server_binding.py.)
 */
export const REVIEW_50 = [
  // round of an integer is double precision (PostgreSQL casts it to float8, its preferred type); DuckDB kept the integer
  'select round(1), round(qty), round(qty::int8), round(customer_id), round(2.5::float4) from sales.orders order by order_id limit 3',
  'select round(1::int2 * 1000), round(-3), pg_typeof(round(qty)) from sales.orders order by order_id limit 1',
  // an integer constant beside a smallint is int4 (22003 where PostgreSQL answered)
  'select qty * 10000, qty + 32767 from sales.orders order by order_id limit 3',
  'select max(qty * 10000) from sales.orders',
  'select 40000 - qty, qty * 1000 * 1000, sum(qty * 100000) over () from sales.orders order by order_id limit 3',
  'select status, max(qty * 10000) from sales.orders group by status order by status',
  'select count(*) from sales.orders where qty * 10000 > 50000',
  // the same beside other types: as before
  'select customer_id * 1000, order_id + 1, amount * 3, amount - 1 from sales.orders order by order_id limit 3',
  // a string cast compared with a number: no such operator (42883); DuckDB cast the string and answered
  'select customer_id::text = 1 from sales.orders order by order_id limit 1',
  'select count(*) from sales.orders where customer_id::varchar in (1, 2)',
  'select count(*) from sales.orders where customer_id::text between 1 and 2.5',
  'select count(*) from sales.orders where 1.5 < status::text',
  "select count(*) from sales.orders where customer_id::text = '1'",
  // a number-like literal beside an integer constant: PostgreSQL's integer input (22P02)
  "select 3 = '3.0'",
  "select 3 in ('3.0', '4')",
  "select 3 = '3', 3 in ('3', '4')",
  // a FROM subquery's column given twice, read in ORDER BY or GROUP BY: ambiguous (42702); DuckDB read the first
  'select * from (select qty, qty from sales.orders) t order by qty limit 1',
  'select * from (select qty, qty from sales.orders) t order by t.qty limit 1',
  'select count(*) from (select qty, qty from sales.orders) t group by qty',
  'select count(*) from (select qty, amount as qty from sales.orders) t group by t.qty',
  'with w as (select qty, qty from sales.orders) select count(*) from w group by qty',
  'select * from (select 1 as a, 2 as a) t order by a',
  'select 1 from (select qty, qty from sales.orders) t order by qty + 1 limit 1',
  // an explicit alias of the select list is what a bare ORDER BY name reads: answered
  'select 1 as qty from (select qty, qty from sales.orders) t order by qty limit 1',
  'select count(*) as n from (select qty, qty from sales.orders) t group by 1 order by n',
  'select count(*) from (select qty, qty from sales.orders) t(a, b) group by a order by a',
  // a column USING merges, and the same table joined again beside it: the unqualified name is ambiguous (42702)
  'select order_id from sales.orders a join sales.orders b using (order_id) join sales.orders c on true limit 1',
  'select order_id from sales.orders a join sales.orders b using (order_id), sales.orders c limit 1',
  'select customer_id from sales.orders join sales.customers using (customer_id) join sales.orders o2 on true limit 1',
  'select count(*) from sales.orders a join sales.orders b using (order_id) join sales.orders c on true where order_id < 3',
  // merged again, qualified, or beside a table without the column: answered
  'select order_id from sales.orders a join sales.orders b using (order_id) join sales.orders c using (order_id) order by 1 limit 2',
  'select a.order_id from sales.orders a join sales.orders b using (order_id) join sales.orders c on true order by 1 limit 2',
  'select order_id from sales.orders a join sales.orders b using (order_id) join sales.customers c on true order by 1 limit 2',
  // an alias inside an ORDER BY / GROUP BY expression without FROM: no such column (42703)
  'select 1 as x order by x + 1',
  'select 1 as x, 2 as y order by x, y + 1',
  'select 1 as x group by x + 1',
  'select 1 as x order by x',
  // SQLSTATEs: GROUP BY n out of range 42P10, set operations of different widths 42601
  'select status, count(*) from sales.orders group by 3',
  'select 1 union select 1, 2',
  'select qty from sales.orders intersect select qty, status from sales.orders',
  // to_char takes two arguments (42883, not 0A000)
  'select to_char(now())',
  "select to_char(ordered_at, 'YYYY', 1) from sales.orders",
  // a date's digits alone: YYYYMMDD, YYMMDD
  "select '20240105'::date, '991231'::date, '000101'::date, date '20240105', cast(' 19990108 ' as date)",
  "select '20241305'::date",
  // a time of day whose fraction rounds up past 23:59:59 is 24:00:00 (the lead, after the session's new-user review: 00:00:00)
  "select '23:59:59.9999999'::time, time '23:59:59.9999996', '12:00:59.9999999'::time, '23:59:59.9999994'::time",
  "select '23:59:59.9999999+02'::timetz, '23:59:59.9999999'::time = '24:00:00'::time",
];

export const REVIEW_50_REFUSED = [
  // PostgreSQL 15 has them; DuckDB does not (0A000 with what to write instead, not 42883)
  'select div(7, 2)',
  "select regexp_count('abcabc', 'b')",
  'select pg_client_encoding()',
  "select pg_catalog.hashtext('a')",
];
