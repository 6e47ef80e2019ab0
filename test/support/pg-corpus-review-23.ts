/**
 * Corpus statements of session 46 (issue 25, a new user's review): PostgreSQL's SQLSTATE for the same
 * failure (date_trunc/date_part of an unknown unit 22023, to_timestamp past the range 22008, ORDER BY n
 * past the select list 42P10, two FROM items named alike 42712, which the gateway answered),
 * regular-expression ANY/ALL over listed patterns (DuckDB's parser had none: 42601), string_to_table in
 * FROM and in a select list (it was 42501 in FROM), sum/min/max of a float's numeric at PostgreSQL's
 * scale (they printed 16 decimals), a subquery's bare NULL as text, -2147483648 as int4. `REVIEW_23` must be PostgreSQL's answer or its
 * error with PostgreSQL's SQLSTATE (never refused, never excused); `REVIEW_23_REFUSED` 0A000 with a hint.
 */
export const REVIEW_23 = [
  // PostgreSQL's SQLSTATEs (were 22P02, 22P02, 42000)
  "select date_trunc('bogus', ordered_at) from sales.orders",
  "select date_part('bogus', ordered_at), extract(epoch from ordered_at) from sales.orders",
  "select date_trunc('fortnight', signup) from sales.customers",
  'select to_timestamp(1e20)',
  'select to_timestamp(-1e20)',
  'select 1 from sales.orders order by 2',
  'select status, count(*) from sales.orders group by 1 order by 3',
  // two FROM items named alike: PostgreSQL's 42712 (the gateway answered, the later name shadowing the earlier)
  'select 1 from sales.orders a, sales.customers a',
  'select 1 from sales.orders a join sales.customers a using (customer_id)',
  'select count(*) from sales.orders, sales.orders',
  'select count(*) from sales.orders o, (select 1) o',
  'select count(*) from sales.orders a, sales.customers A',
  'select count(*) from generate_series(1,3) g, generate_series(1,2) g',
  'with t as (select 1 x) select count(*) from t, t',
  // … and what PostgreSQL accepts: an aliased join hides its tables' names, a subquery has FROM of its own
  'select count(*) from (sales.orders o join sales.customers c using (customer_id)) j, sales.orders o',
  'select count(*) from generate_series(1,3), generate_series(1,2)',
  'select count(*) from sales.orders o where exists (select 1 from sales.orders o where o.qty > 3)',
  'select count(*) from sales.orders o, lateral (select 1 from sales.customers o) x',
  'select count(*) from (values (1)) v(x), (values (2)) w(y)',
  'select count(*) from sales.orders a union all select count(*) from sales.customers a',
  // regular-expression ANY/ALL (were 42601)
  "select 'abc' ~ any(array['a', 'x']), 'abc' ~* all(array['A', 'x']), 'abc' !~ any(array['a', null])",
  "select name from sales.customers where name ~ any(array['^C', '1$']) order by 1",
  "select name ~* some(array['CUST', 'zzz']), name !~* all(array['x', 'y']) from sales.customers order by customer_id limit 3",
  "select status from sales.orders where status ~ any('{^p,^s}') order by order_id limit 5",
  "select null::text ~ any(array['a']), 'ab' ~ any(array['b', 'c']::text[])",
  // string_to_table (was 42501 in FROM, 42883 in a select list)
  "select string_to_table('a,b,c', ',')",
  "select string_to_table('a,b,c', ','), 1 as x",
  "select * from string_to_table('a,b,c', ',')",
  "select * from string_to_table('a,b,,c', ',', '') t",
  "select x from string_to_table('abc', null) as t(x)",
  "select * from string_to_table('', ',')",
  "select * from string_to_table('abc', '') with ordinality",
  "select s, count(*) from sales.orders, string_to_table(status, 'i') s group by 1 order by 1",
  "select string_to_table(status, 'a') from sales.orders order by order_id, 1 limit 5",
  // sum/min/max of a float's numeric as a select-list item: PostgreSQL's scale (DECIMAL(38,16) printed 16 decimals)
  'select sum(x::numeric), avg(x::numeric), min(x::numeric) from (values (1.5::float8),(2.25::float8),(0.1::float8)) v(x)',
  'select sum(amount::float8::numeric), avg(amount::float8::numeric) from sales.orders',
  'select sum(qty::float8::numeric), max(amount::float8::numeric) from sales.orders',
  'select status, sum(amount::float8::numeric), min(amount::float8::numeric) from sales.orders group by status order by 2 desc',
  'select sum(amount::float8::numeric) filter (where qty > 3), sum(qty::float4::numeric) from sales.orders',
  'select order_id, sum(amount::float8::numeric) over (order by order_id) from sales.orders order by order_id limit 5',
  'select max(amount::float8::numeric) over (partition by status) from sales.orders order by order_id limit 3',
  "select s, max(x::numeric), sum(x::numeric), min(x::numeric) from (values ('a', 1.5::float8), ('a', 2.25::float8), ('b', 0.1::float8)) v(s, x) group by s order by s",
  'select sum(amount::numeric), sum(qty::numeric), min(amount::numeric), max(qty::numeric) from sales.orders',
  'select sum(x::numeric), max(x::numeric) from (values (null::float8)) v(x)',
  // a bare NULL item of a subquery or CTE is text in PostgreSQL (it was int4); a set operation's branches resolve it together
  'select (select null), (select null::int), (select 1)',
  'select (select null) from sales.orders limit 1',
  'select x from (select null as x) s',
  'select x, y from (select null, 2 as y) s(x, y)',
  'with t as (select null as x, 1 as y) select x, y from t',
  "select x from (select null as x union select 'a') s order by 1",
  'select x from (select null as x union all select 1) s order by 1',
  'select count(*) from sales.orders where exists (select null)',
  // -2147483648 is int4 (was bigint)
  'select -2147483648, -2147483649, - 2147483648, 2147483648, -9223372036854775808',
  'select pg_typeof(-2147483648), -2147483648 / 2, abs(-2147483647 - 1)',
  'select qty - 2147483648 from sales.orders order by order_id limit 1',
  // an interval's years are a count, with no BC shift (was -1 for interval '1 day'; session 47's new-user review)
  "select i, extract(year from i), extract(years from i), date_trunc('century', i), date_trunc('millennium', i) from (values (interval '1 day'), (interval '400 days'), (interval '-14 months'), (interval '150 years 3 months'), (interval '1999 years')) t(i)",
  'select extract(year from age(o.ordered_at, c.signup)) * 12 + extract(month from age(o.ordered_at, c.signup)) from sales.orders o join sales.customers c using (customer_id) order by o.order_id limit 5',
  'select sum(extract(year from age(o.ordered_at, c.signup))), extract(year from max(o.ordered_at - c.signup)) from sales.orders o join sales.customers c using (customer_id)',
  // width_bucket with its bounds reversed counts down from the first, as PostgreSQL (was 0 / 3 / 0), and its 2201G
  'select width_bucket(5, 10, 0, 2), width_bucket(10, 10, 0, 2), width_bucket(0, 10, 0, 2), width_bucket(qty, 10, 0, 4), width_bucket(9.99999, 0, 10, 4) from sales.orders order by order_id limit 3',
  'select width_bucket(amount, 100, 0, 5), count(*) from sales.orders group by 1 order by 1',
  'select width_bucket(1, 1, 1, 3)',
  'select width_bucket(qty, 0, 10, 0) from sales.orders',
  // to_char's FF3/FF6 and IDDD, printed as literal text before (`13:05:09.FF3`; IDDD read as ID then DD)
  "select to_char(t, 'HH24:MI:SS.FF3'), to_char(t, 'SS.FF6'), to_char(t, 'IDDD'), to_char(t, 'IYYY-IDDD'), to_char(t, 'FMIDDD'), to_char(t, 'IDDDth'), to_char(t, 'ss.ff3') from (values (timestamp '2024-12-30 13:05:09.123456'), (timestamp '2021-01-03 00:00:00.5'), (timestamp '2020-12-31 23:59:59.999999')) v(t)",
  "select to_char(ordered_at, 'IYYY-IDDD HH24:MI:SS.FF3') from sales.orders order by order_id limit 3",
];

/** Refused 0A000 with a hint (they were 42501, which sent users looking for a grant; PostgreSQL answers them). */
export const REVIEW_23_REFUSED = [
  // digits past DECIMAL(38,16)'s 16th place (PostgreSQL's numeric holds them)
  'select sum(x::numeric) from (values (1e-20::float8),(1e20::float8)) v(x)',
  'select setseed(0.5)',
  'select pg_sleep(0)',
  // a regular-expression ANY over an expression: its left side would be copied per pattern
  "select upper(name) ~ any(array['a']) from sales.customers",
  // over an empty array cast to text[] (its rewritten cast is no longer an ARRAY[…] list)
  "select 'a' ~ any(array[]::text[]), 'a' ~ all(array[]::text[])",
  // jsonb || jsonb merges in PostgreSQL; the texts were joined (`{"a": 1}{"b": 2}`, typed text; session 47's new-user review)
  `select '{"a":1}'::jsonb || '{"b":2}'::jsonb, '[1,2]'::jsonb || '[3]'::jsonb`,
  `select '{"a":1}'::jsonb || '{"b":2}'`,
  `select status, cast(json_build_object('n', count(*)) as jsonb) || '{"k":1}'::jsonb from sales.orders group by 1 order by 1`,
  // to_char's FF1, FF2, FF4, FF5 (printed as literal text before)
  "select to_char(ordered_at, 'SS.FF2') from sales.orders",
];
