/**
 * Corpus statements from the ninth review of issue 25 (session 39): silent differences a new user
 * found, each seen differing on the old code and now PostgreSQL's answer or a refusal with a precise
 * SQLSTATE and a hint; never excused by a documented row.
 */
export const REVIEW_9 = [
  // numeric CASE, COALESCE, GREATEST, LEAST: the scale of the value chosen (DuckDB padded to the column's)
  'select order_id, case when qty > 2 then amount else 0.5 end from sales.orders order by order_id limit 6',
  'select case when true then 7 else 0.5 end, case when false then 7.0 else 0.5 end, case 1 when 2 then 1.25 else 3 end',
  'select greatest(1.3700, 2.5), greatest(1.37, 2), least(1.5, 1.50), greatest(2, 2.0), least(null, 2.50, 3)',
  'select coalesce(null, 1.50, 2.5), coalesce(null::numeric, 2), coalesce(qty, 0.5) from sales.orders order by order_id limit 2',
  'select order_id, greatest(amount, 30), least(amount, 30.0), coalesce(nullif(qty, 2), 2.5) from sales.orders order by order_id limit 4',
  'select case qty when 1 then 1.5 when 2 then 2 else amount end as x, count(*) from sales.orders group by 1 order by 1 limit 5',
  'select distinct case when qty > 3 then 1.5 else 2 end from sales.orders order by 1',
  // an integer constant beside a smallint is int4 (coalesce, greatest, CASE)
  'select order_id, coalesce(qty, 0), greatest(qty, 3), case when qty > 2 then qty else 0 end from sales.orders order by order_id limit 3',
  // lag/lead with a default: the common type of the value and the default, the default's own scale
  'select order_id, lag(qty, 2, 0) over (order by order_id) from sales.orders order by order_id limit 4',
  'select order_id, lead(qty, 1, -1) over (order by order_id desc), lag(qty, 1, 5000000000) over (order by order_id) from sales.orders order by order_id limit 4',
  'select order_id, lead(amount, 1, 0) over (order by order_id), lag(customer_id, 1, 0) over (order by order_id) from sales.orders order by order_id desc limit 2',
  'select order_id, lead(amount, 1, 0.5) over (order by order_id), lag(amount, 2, 1) over (order by order_id) from sales.orders order by order_id desc limit 3',
  'select order_id, coalesce(lag(amount, 1, 0) over (order by order_id), 1) from sales.orders order by order_id limit 2',
  // fractions of a second past microseconds: rounded as PostgreSQL's input (DuckDB truncated)
  "select timestamp '2024-01-01 10:00:00.1234567', '2024-01-01 10:00:00.9999995'::timestamp, timestamptz '2024-01-01 10:00:00.1234565+00'",
  "select '2024-01-01 10:00:00.0000005'::timestamp, time '10:00:00.1234567', '2024-12-31 23:59:59.9999999'::timestamp",
  "select '2024-01-01 10:00:00.1234995'::timestamp(3), timestamp(2) '2024-01-01 10:00:00.9949999'",
  // a string constant compared with char(n) is bpchar: trailing spaces ignored
  "select 'a'::char(3) = 'a  ', 'a'::char(3) = 'a', 'ab'::char(3) in ('ab ', 'x'), 'b  ' > 'a'::char(3)",
  "select count(*) from sales.customers where country::char(4) = 'DE  '",
  // a record's column name
  "select row(1, 'a')::text, (1, 'x', null)::text",
  // correlated subqueries whose outer column reaches a typed macro: 42725 (DuckDB binds a macro's typed
  // arguments without the outer query); a window over an outer column refused with a hint (it was 42000)
  'select (select sum(o2.qty) / o.qty from sales.orders o2) from sales.orders o order by order_id limit 3',
  "select (select o.ordered_at - '2024-01-01') from sales.orders o order by order_id limit 3",
  'select (select o.amount::numeric) from sales.orders o order by order_id limit 3',
  'select (select extract(epoch from o.ordered_at - o2.ordered_at) from sales.orders o2 where o2.order_id = 1) from sales.orders o order by order_id limit 2',
  "select (select date_trunc('month', o.ordered_at)) from sales.orders o order by order_id limit 2",
  'select (select amount::numeric + qty) from sales.orders order by order_id limit 2',
  "select (select date_trunc('day', ordered_at) - ordered_at) from sales.orders order by order_id limit 2",
  'select c.customer_id, (select sum(o.qty) / c.customer_id from sales.orders o where o.customer_id = c.customer_id) from sales.customers c order by 1 limit 3',
  'select (select o.amount::numeric * 2 from sales.customers c where c.customer_id = o.customer_id) from sales.orders o order by order_id limit 2',
  'with t as (select qty, order_id from sales.orders) select (select t.qty::numeric + 0.5) from t order by order_id limit 2',
  'select (select sum(o.amount) over ()) from sales.orders o order by order_id limit 2',
  // probed as a new user: date_trunc's centuries begin in …01, an interval's `+2 hours`, power's errors (2201F,
  // DuckDB answered NaN and infinity); string_to_array's null string (42883 without a hint); every() answered (it was refused 42883)
  "select date_trunc('century', ordered_at), date_trunc('decade', ordered_at), date_trunc('century', date '2000-06-01'), date_trunc('millennium', timestamptz '2000-01-01 00:00+00') from sales.orders order by order_id limit 2",
  "select date_trunc('CENTURY', ordered_at::date), date_trunc('millennium', signup) from sales.orders join sales.customers using (customer_id) order by order_id limit 2",
  "select interval '-1 days +2 hours', '-1 days +2 hours'::interval, interval '+3 hours', interval '1 day +1.5 hours'",
  'select every(vip), bool_and(vip) from sales.customers',
  'select country, every(vip) from sales.customers group by country order by 1',
  "select string_to_array('a b c', ' ', 'b'), string_to_array('a,,c', ',', ''), string_to_array('x', ',', null)",
  "select name, string_to_array(name, ' ', 'Customer') from sales.customers order by customer_id limit 2",
  'select (-8) ^ (1.0/3)',
  'select 0 ^ -1',
  'select power(-8::float8, 0.5)',
  'select power(0, -2)',
  'select order_id, (qty - 3) ^ 2, power(qty - 3, 0.5) from sales.orders order by order_id limit 3',
];

/**
 * float8 aggregates over many rows: DuckDB adds in another order than PostgreSQL (a documented
 * difference); each value is PostgreSQL's within `tolerance`, relative (pg-corpus.test.ts).
 */
export const REVIEW_9_FLOAT_AGGREGATES: ReadonlyArray<{ sql: string; tolerance: number }> = [
  {
    sql: 'select sum(a.amount::float8 * b.qty / c.amount::float8), avg(a.amount::float8 / b.amount::float8 + c.qty) from sales.orders a, sales.orders b, sales.orders c',
    tolerance: 1e-12,
  },
  // variance and stddev by another algorithm too (PostgreSQL's Youngs-Cramer, DuckDB's Welford)
  {
    sql: 'select stddev(x::float8 / 7), variance(x::float8 * 1.1) from generate_series(1, 2000000) x',
    tolerance: 1e-9,
  },
];
