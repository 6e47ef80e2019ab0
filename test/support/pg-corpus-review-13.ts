/**
 * Corpus statements from the new-user review of session 40 (issue 25): silent differences from
 * PostgreSQL 15, each seen differing on the old code and now PostgreSQL's answer or a refusal with a
 * precise SQLSTATE; never excused by a documented row.
 */
export const REVIEW_13 = [
  // the locale reported is C (as the twin's initdb --locale=C), whose case mapping is ASCII only, as upper/lower/initcap here
  'select datcollate, datctype, datlocprovider from pg_database where datname = current_database()',
  "select name, setting, reset_val, boot_val from pg_settings where name in ('lc_collate', 'lc_ctype', 'lc_messages', 'lc_monetary', 'lc_numeric', 'lc_time') order by 1",
  "select lower('ÄÖ É'), upper('äö é'), initcap('äbc élan ß'), datctype from pg_database where datname = current_database()",
  // round(x, n) of a float: PostgreSQL has no round(double precision, integer) (42883)
  'select round(qty::float8 / 3, 2) from sales.orders order by order_id limit 3',
  'select round(1.5::float8, 1)',
  'select round(qty::float4, 1) from sales.orders order by order_id limit 3',
  'select order_id, round(qty::float8, qty) from sales.orders order by order_id limit 3',
  'select order_id, round(qty::float8, qty) + 1 from sales.orders order by order_id limit 3',
  'select round(avg(qty::float8), 2) from sales.orders',
  // ARRAY[…] of numeric constants: each element keeps its own scale (DuckDB padded them to one: {1.0,2.5})
  'select array[1, 2.5]',
  'select array[1, 2.5]::text, array[1.50, 2, null, -0.5]::text',
  'select array[1.50, 2], array[1.50, 2, null, -0.5]',
  'select array[[1, 2.5], [3.25, 4]], array[[1, 2.5], [3.25, 4]]::text',
  'select array[1, 2.5] as a, 1 order by 1',
  'select order_id, array[1, 0.5] from sales.orders order by order_id limit 2',
  // a multi-dimensional array is subscripted in every dimension at once
  'select (array[[1,2],[3,4]])[1]',
  'select (array[[1,2],[3,4]])[1:1][2], (array[[1,2],[3,4]])[2][1:1]',
  'select (array[[1,2],[3,4]])[:1][2:], (array[[1,2],[3,4]])[1:1][3:4]',
  "select (array[['a','b'],['c','d']])[2], (array[['a','b'],['c','d']])[2][1]",
  'select a[1:2][2], a[1:1][1:2] from (select array[[1,2],[3,4]] as a) t',
  'select (array[[[1,2],[3,4]],[[5,6],[7,8]]])[1], (array[[[1,2],[3,4]],[[5,6],[7,8]]])[1][2], (array[[[1,2],[3,4]],[[5,6],[7,8]]])[1][2][1]',
  'select order_id, (array[[qty, 1], [2, 3]])[1], (array[[qty, 1], [2, 3]])[1][1] from sales.orders order by order_id limit 2',
  // generate_series over a plain timestamp column of the FROM item beside it (LATERAL): it was 42725
  "select order_id, x from sales.orders, lateral generate_series(ordered_at, ordered_at + interval '2 days', interval '1 day') x order by 1, 2 limit 6",
  "select order_id, x from sales.orders cross join lateral generate_series(ordered_at, ordered_at + interval '2 days', interval '1 day') x order by 1, 2 limit 4",
  "select order_id, x from sales.orders, generate_series(ordered_at, ordered_at + interval '1 day', interval '1 day') x order by 1, 2 limit 4",
  "select order_id, date_trunc('month', x) from sales.orders, lateral generate_series(ordered_at, ordered_at + interval '1 day', interval '1 day') x order by 1, 2 limit 4",
  // an untyped timestamptz constant DuckDB's reader cannot read (no seconds before a zone) beside a timestamp(tz): it was 22007
  "select ordered_at::timestamptz < '2024-01-01 10:00+00' from sales.orders order by order_id limit 2",
  "select count(*) from sales.orders where '2024-01-01 10:00 UTC' <= ordered_at::timestamptz",
  "select count(*) from sales.orders where ordered_at::timestamptz > '2024-01-01 10:00:00+1'",
  "select count(*) from sales.orders where ordered_at < '2024-01-01 10:00+00'",
  "select count(*) from sales.orders where ordered_at >= '2024-01-01 10:00 Europe/Paris'",
  // percentile_cont of float8 interpolated as PostgreSQL's float8_lerp (DuckDB's last digit differed); a fraction beyond 0–1 is 22003
  'select percentile_cont(0.33) within group (order by amount) from sales.orders',
  'select percentile_cont(0.1) within group (order by amount::float8 * 1.1) from sales.orders',
  'select status, percentile_cont(0.9) within group (order by amount) from sales.orders group by 1 order by 1',
  'select percentile_cont(1.5) within group (order by amount) from sales.orders',
  // a record beside || is refused (it was DuckDB's struct text: x{'customer_id': 1, …})
  "select 'x' || c from sales.customers c order by customer_id limit 1",
  // a whole-row reference cast to text as a select-list item: record_out's text (these were refused 0A000);
  // where the rows are sorted or deduplicated still refused (the struct would sort by its fields)
  'select c::text from sales.customers c where customer_id < 3',
  'select c::text, c.customer_id from sales.customers c order by c.customer_id limit 2',
  "select t::text as r from (select 1 as a, 'x y' as b, null::int as c, true as d, 1.50 as e) t",
  'select cast(o as text) from sales.orders o where order_id = 2',
  'select c::text from sales.customers c order by 1 limit 2',
];

/**
 * Run in Europe/Berlin (pg-corpus.test.ts, after IN_BERLIN): a zone's offset before standard time (LMT,
 * `+00:53:28`) written with its seconds in a value's text, as PostgreSQL's (DuckDB's cast dropped them).
 */
export const REVIEW_13_IN_BERLIN = [
  "select timestamptz '1880-01-01 00:00:00+00'::text, timestamptz '2024-01-01 00:00:00+00'::text",
  "select concat(timestamptz '1880-01-01 00:00:00+00', '|'), 'x' || timestamptz '1880-07-01 00:00:00+00'",
  "select array[timestamptz '1880-01-01 00:00:00+00']::text",
];

/**
 * Documented differences (docs/compatibility.md, "Differential corpus: documented differences"): one
 * element subscript of a two-dimensional array column is DuckDB's inner list, where PostgreSQL answers
 * NULL (float4 beside an integer is PostgreSQL's float8 since session 48: REVIEW_25A).
 */
export const REVIEW_13_DOCUMENTED = ['select a[1], a[2][2] from (select array[[1,2],[3,4]] as a) t'];
