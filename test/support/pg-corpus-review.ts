/**
 * Corpus statements from the second new-user review of issue 25 (support/pg-corpus.ts runs them with
 * the others): each gave a different answer or none, and must now be PostgreSQL's or a refusal.
 */
export const REVIEW_2 = [
  // extract is numeric (PostgreSQL 14+): scale 6 for second and epoch, 3 for milliseconds, 0 for a date's epoch
  'select extract(year from ordered_at), extract(epoch from ordered_at), extract(second from ordered_at), extract(milliseconds from ordered_at), extract(microseconds from ordered_at), extract(dow from ordered_at) from sales.orders order by order_id limit 3',
  'select extract(day from signup), extract(epoch from signup), extract(month from signup) from sales.customers order by customer_id limit 3',
  "select extract(epoch from interval '1 year 2 months 3 days 04:05:06.5'), extract(second from interval '1 minute 2.25 seconds'), extract(hour from interval '30 hours'), extract(epoch from time '12:00:01.5'), extract(second from timestamptz '2024-01-01 10:00:03.123456+00')",
  // int4 results: length, position, ntile, grouping, array_length; octet_length of text
  "select ntile(3) over (order by order_id), length(status), char_length(status), strpos(status, 'e'), position('p' in status) from sales.orders order by order_id limit 3",
  "select length('abc'), char_length('héllo'), array_length(array[1, 2], 1), octet_length('Zoë'), octet_length('abc'::bytea)",
  'select octet_length(status), octet_length(name) from sales.orders join sales.customers using (customer_id) order by order_id limit 3',
  'select status, grouping(status), count(*) from sales.orders group by rollup (status) order by 1',
  // date arguments of date_trunc and generate_series are timestamptz; untyped strings too
  "select date_trunc('day', date '2024-03-15'), date_trunc('month', signup) from sales.customers order by customer_id limit 3",
  "select date_trunc('hour', timestamptz '2024-03-15 10:30+00'), date_trunc('month', timestamp '2024-03-15 10:30'), date_trunc('day', interval '1 day 5 hours')",
  "select generate_series(date '2024-01-01', date '2024-01-03', interval '1 day')",
  "select * from generate_series(date '2024-01-01', date '2024-01-03', interval '1 day')",
  "select generate_series('2024-01-01', '2024-01-03', interval '1 day')",
  "select * from generate_series('2024-01-01', '2024-01-03', interval '1 day') d",
  "select d::date, count(o.order_id) from generate_series('2024-01-01', '2024-01-05', interval '1 day') d left join sales.orders o on o.ordered_at::date = d::date group by 1 order by 1",
  // BETWEEN SYMMETRIC, WITH TIES (refused), array || element, interval / number
  'select order_id from sales.orders where qty between symmetric 4 and 2 order by 1',
  'select x between symmetric 1 and null, x not between symmetric 3 and 1 from (values (1), (2), (null::int)) v(x)',
  'select order_id, qty from sales.orders order by qty fetch first 2 rows with ties',
  "select array[1, 2] || 3, 0 || array[1, 2], array['a'] || 'b'::text, '{1,2}'::int[] || 3",
  'select array[1, 2] || null',
  'select null || array[1]',
  'select null::int || array[1]',
  "select interval '1 day' / 2, interval '3 hours' / 4, interval '1 month' / 3",
  "select interval '1 month' / 7, interval '1 day 1 hour' / 3, interval '-5 days' / 2, interval '1 year' / 5, interval '3 hours' / 2.5, interval '1 mon 1 day' / 0.3",
  "select order_id, interval '1 day' * qty / 4, interval '90 minutes' / qty from sales.orders order by order_id limit 3",
  "select interval '1 day' / 0",
  // jsonb: PostgreSQL's normal form of a constant (key order, duplicates, numbers, spacing); ?, ?|, ?&
  'select \'{"b":2,"a":1}\'::jsonb = \'{"a":1,"b":2}\'::jsonb, \'{"a":[1,2]}\'::jsonb = \'{"a":[2,1]}\'::jsonb',
  'select \'{"b":2,"a":{"d":1,"c":null}, "a2": [1,  2]}\'::jsonb ->> \'a\', \'{"b": 1, "b": 2}\'::jsonb ->> \'b\', \'{"n": 1.50e1}\'::jsonb ->> \'n\'',
  "select '{\"a\":1,\"b\":2}'::jsonb ? 'a', '{\"a\":1}'::jsonb ?| array['b','a'], '{\"a\":1}'::jsonb ?& array['a','b'], '[\"a\",1]'::jsonb ? 'a', '[\"a\",1]'::jsonb ? '1', '\"a\"'::jsonb ? 'a', '{\"a\":1}'::jsonb ?& array[]::text[], '{\"a\":1}'::jsonb ?| array[null,'a']",
  'select \'{"a":1\'::jsonb',
  // a float cast to text: PostgreSQL's shortest digits (100, not 100.0; exponent outside [1e-4, 1e15), float4 1e6)
  'select 100::float8::text, 1e20::float8::text, 1.5e-7::float8::text, 0.1::float8::text, (1/3::float8)::text',
  'select 100::float4::text, 0.1::float4::text, 1e7::float4::text, 123456.7::float4::text, 1e15::float8::text, 1e14::float8::text, 0.0001::float8::text, 0.00001::float8::text',
  'select order_id, amount::float8::text, (qty * 100)::float8::text, cast(qty::float8 / 3 as text), qty::text, amount::text, ordered_at::text from sales.orders order by order_id limit 4',
  "select 'NaN'::float8::text, 'Infinity'::float8::text, (-0.0::float8)::text, 1.7976931348623157e308::float8::text, 5e-324::float8::text, 123456789012345678::float8::text, (-1.5)::float4::text",
  // round(float::numeric, n): the float's numeric at 15 significant digits, rounded half away from zero
  'select order_id, round(amount::float8::numeric, 2), round(amount::numeric, 2), round(amount::numeric, 3), round(qty::numeric, 1), round((qty::float8 / 3)::numeric, 4), round(amount::float8::numeric) from sales.orders order by order_id limit 4',
  'select round(2.675::float8::numeric, 2), round(1.005::float8::numeric, 2), round((-2.5)::float8::numeric), round(1e20::float8::numeric, 2), round(1234.5::float8::numeric, -2), round(0.1::float4::numeric, 5), round((1/3::float8)::numeric, 13)',
  'select round(f::numeric, 3) from (values (0.1::float8), (2.0005), (null), (-1e-15), (123456789.123456789)) v(f)',
  "select round('NaN'::float8::numeric, 2)",
  // timestamptz with a zone name; current_setting of a name PostgreSQL does not know is 42704
  "select timestamptz '2024-01-01 12:00 Europe/Paris', '2024-06-01 08:30:15 America/New_York'::timestamptz, timestamptz '2024-01-01 12:00:00.25 Asia/Tokyo'",
  "select order_id, ordered_at::timestamptz at time zone 'Europe/Paris', timestamptz '2024-06-01 12:00:00+00' at time zone 'Europe/Paris' from sales.orders order by order_id limit 2",
  "select current_setting('threads')",
  "select current_setting('memory_limit')",
  "select current_setting('x.y')",
  "select current_setting('x.y', true), current_setting('TimeZone')",
  // set_config applies the setting as SET does, as a statement of its own; inside a larger select list it is refused (0A000)
  "select set_config('search_path', 'sales', false), current_setting('search_path')",
  "select set_config('search_path', 'sales', false)",
  "select current_setting('search_path')",
  "SELECT pg_catalog.set_config('search_path', '', false)",
  'show search_path',
  "select set_config('TimeZone', 'Asia/Tokyo', false) as tz, set_config('DateStyle', 'ISO, MDY', false)",
  "select timestamptz '2024-03-01 00:00:00+00', current_setting('TimeZone')",
  "select set_config('TimeZone', 'UTC', true)",
  "select set_config('no_such_setting', 'x', false)",
  "select set_config('TimeZone', 'UTC', false), set_config('search_path', '\"$user\", public', false)",
  'show lc_ctype',
  'show lc_collate',
  // a whole-row reference is a record in PostgreSQL: sent as one in the outermost select list (a table's row type is 2249 here, documented), refused inside a subquery
  "select t from (select 1 as a, 'a' as b) t",
  'select c from sales.customers c order by customer_id limit 2',
  // inside a subquery or an expression avg keeps one scale per column, stddev double precision (documented)
  'select a from (select avg(qty) as a, sum(amount) / count(*) as m from sales.orders) s',
  'select round(stddev(qty), 3), variance(amount) + 0 from sales.orders',
  'select x from (select name::char(4) as x from sales.customers) s order by 1 limit 2',
  'select t from (select pg_typeof(qty) as t from sales.orders limit 1) s',
  'select o, o.order_id from sales.orders o order by order_id limit 2',
  'select c, o.order_id from sales.orders o left join sales.customers c on c.customer_id = o.customer_id + 100 order by 2 limit 2',
  'select 1, customers from sales.customers order by customer_id limit 2',
  "select t from (select 1 as t, 'a' as b) t",
  "select 1, t from (select 1 as a, 'a' as b) t",
  // numeric division per row goes through double precision (documented: exact division per row costs ~100 µs a value)
  'select order_id, amount / qty, amount::numeric / 7, qty::numeric / 3 from sales.orders order by order_id limit 8',
  // case mapping under the C locale both report: ASCII letters only
  "select initcap('élan vital ÉCOLE'), upper('straße é'), lower('ÉCOLE Ä'), initcap('o''brien mc-donald 2nd'), upper(null), lower('ABC')",
  'select upper(name), lower(country), initcap(lower(name)) from sales.customers order by customer_id limit 3',
  'select round((qty::float8 / 7)::numeric, 20) from sales.orders',
];

/** Leftovers of issue 25 (session 35): once errors or documented differences, now PostgreSQL's answer or a refusal. */
export const REVIEW_3 = [
  'select 5::int2 * 10000, 300::smallint + 32767, 2::int2 - 40000, 7 * 5000::int2',
  'select order_id, qty # 5, customer_id # 3, order_id # order_id, 12 # 10 from sales.orders order by order_id limit 4',
  "select cardinality(array[1, 2]), cardinality(array[]::int[]), cardinality(null::int[]), cardinality(array['a', null])",
  'select cardinality(array[[1, 2], [3, 4]])',
  "select substring('hello' from 'l+'), substring('hello' from 'x'), substring('foobar' from 'o(b.)'), substring('abc123' from '[0-9]+'), substring(null from 'a')",
  "select order_id, substring(status from '^.'), substring(email from '@(.*)$') from sales.orders join sales.customers using (customer_id) order by order_id limit 4",
  "select 'NaN'::numeric",
  "select 'Infinity'::numeric",
  "select btrim('xxhixx', 'x'), btrim('  a  '), btrim(name, 'C') from sales.customers order by customer_id limit 3",
  // round(integer, n) is numeric at scale n
  'select round(order_id::bigint, 4), round(qty, 2), round(customer_id, 0), round(-7::bigint, 3), round(amount, 3), round(qty::float8 / 3) from sales.orders order by order_id limit 3',
  'select round(sum(qty), 2), round(count(*), 1), round(avg(qty), 4) from sales.orders',
  "select jsonb_build_object('a', 1, 'b', 'x')",
  // a setting with a unit, as SHOW prints it (pg_settings keeps the base-unit number)
  "select current_setting('work_mem'), current_setting('maintenance_work_mem'), current_setting('temp_buffers'), current_setting('autovacuum_naptime'), current_setting('checkpoint_timeout')",
  'show work_mem',
  'show autovacuum_naptime',
  "select setting, unit from pg_settings where name = 'work_mem'",
];

/** Session 36: numerics PostgreSQL shows at a scale per value; round with a variable scale. */
export const REVIEW_4 = [
  // avg, variance, stddev of integers and numerics: select_div_scale per value (the outermost select list)
  'select avg(x) from (values (1),(2),(2)) t(x)',
  'select avg(x), variance(x), stddev(x), var_samp(x), stddev_samp(x), var_pop(x), stddev_pop(x) from (values (1),(2),(2),(100000)) t(x)',
  'select avg(x), variance(x), stddev(x) from (values (1.25::numeric(10,2)),(2),(2)) t(x)',
  'select avg(qty), avg(amount), variance(qty), stddev(amount), var_pop(order_id), stddev_pop(customer_id) from sales.orders',
  'select status, avg(qty) a, stddev(amount) from sales.orders group by status order by a desc',
  'select status, variance(amount), var_samp(qty::bigint) from sales.orders group by status order by 2',
  'select variance(x), stddev(x), var_pop(x), avg(x) from (values (2),(2)) t(x)',
  'select variance(x), stddev(x), var_pop(x), stddev_pop(x), avg(x) from (values (2)) t(x)',
  'select variance(x), avg(x) from (values (2)) t(x) where x > 5',
  'select avg(x), stddev(x) from (values (1::bigint),(-7)) t(x)',
  'select avg(x), stddev(x), variance(x) from (values (0.00001),(0.00002)) t(x)',
  'select avg(x::float8), stddev(x::float8), variance(x::float4) from (values (1),(2)) t(x)',
  'select avg(qty) filter (where qty > 2), avg(distinct qty), pg_catalog.stddev(amount) from sales.orders',
  // round(numeric, n) with n from a column or a cast constant: scale n per value
  'select order_id, round(amount, qty) from sales.orders order by order_id limit 6',
  'select round(amount, qty - 3), round(qty, qty - 5), round(customer_id::bigint, qty - 4) from sales.orders order by order_id limit 6',
  'select round(amount, qty) r from sales.orders order by r, order_id limit 6',
  "select round(amount, CAST('7' AS integer)), round(1.5, '2'::int), round(amount, 3::int2) from sales.orders order by order_id limit 2",
  'select round(amount, -1), round(amount, 12), round(qty, -1) from sales.orders order by order_id limit 3',
  // inside an expression the per-value scale is lost: refused
  'select round(amount, qty) + 1 from sales.orders order by order_id limit 4',
  'select round(amount, qty)::text from sales.orders order by order_id limit 4',
  // a numeric division over aggregates and a windowed avg as select-list items: PostgreSQL's scale per value
  'select sum(amount) / count(*), sum(order_id) / count(*), sum(qty) * 1.0 / count(*), sum(qty) / count(*) from sales.orders',
  'select status, sum(amount) / nullif(count(*), 0), sum(amount) / count(*) filter (where qty > 100) from sales.orders group by status order by status',
  'select sum(amount) / 0 from sales.orders',
  'select order_id, avg(amount) over w, avg(qty) over w, variance(qty) over w, stddev_pop(amount) over w from sales.orders window w as (order by order_id rows 2 preceding) order by order_id limit 5',
  // avg and percentile_cont of dates and timestamps do not exist in PostgreSQL (42883); percentile_cont of numbers is float8
  'select avg(ordered_at), avg(signup) from sales.orders join sales.customers using (customer_id)',
  'select round(avg(signup)) from sales.customers',
  'select order_id, avg(ordered_at) over (order by order_id) from sales.orders order by order_id limit 2',
  'select percentile_cont(0.5) within group (order by signup) from sales.customers',
  'select status, percentile_cont(0.5) within group (order by amount), percentile_cont(0.9) within group (order by qty) from sales.orders group by 1 order by 1',
  // date_part is double precision
  "select date_part('day', signup), date_part('epoch', timestamp '2024-01-01 00:00:01'), date_part('isoyear', date '2024-12-30'), date_part('dow', ordered_at) from sales.orders join sales.customers using (customer_id) order by order_id limit 2",
  // sign, gcd/lcm result types, AT TIME ZONE's column name, a record's unknown fields
  'select order_id, sign(customer_id - 3), sign(amount), sign(qty - 3), sign(qty::float8), sign(-amount) from sales.orders order by order_id limit 3',
  'select order_id, gcd(qty, 6), lcm(customer_id, 4), gcd(order_id, 6), lcm(qty, order_id) from sales.orders order by order_id limit 3',
  "select order_id, ordered_at::timestamptz at time zone 'Europe/Paris', (ordered_at::timestamptz at time zone 'America/New_York')::date from sales.orders order by order_id limit 2",
  "select row(1, 'a', null), row(qty, null, 'x y'), (1, 'a'::text, null::int) from sales.orders order by order_id limit 2",
  // generate_series of int4 constants in a select list is int4
  'select generate_series(-2, 2), generate_series(1, 2)',
  'select x from (select generate_series(1, 3) x) s where x > 1',
  // whole-row references beside other select items: PostgreSQL's record text and binary (session 36)
  "select t, t.a from (select 1 as a, 'x' as b) t",
  "select t from (select 1 as a, 'a b' as b, null::int as c, date '2024-01-01' as d, 2.50 as n, '(\"q\")' as q) t",
  "select 1, t from (select 1 as t, 'a' as b) t",
  'select t.*, t from (select 1 as a, true as b) t order by 1',
  'select x from (select t from (select 1 as a) t) x',
  'select count(*) from (select t from (select 1 as a) t) x',
];
