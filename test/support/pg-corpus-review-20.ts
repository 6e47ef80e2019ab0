/**
 * Corpus statements of session 43 (issue 25): what analysts and BI tools write that answered otherwise
 * than PostgreSQL 15, or failed. `REVIEW_20` must be PostgreSQL's answer (never refused, never excused):
 * avg of intervals (interval_avg: it was 1 µs off), json_agg(DISTINCT x ORDER BY x) (42000), EXISTS
 * (SELECT FROM …) (42601), GROUP BY DISTINCT of plain expressions (42601), time zone abbreviations in
 * input (22007) and in AT TIME ZONE (CET, PST: ICU zones with summer time; IST, BST, AST: other places,
 * an hour or more off in silence), to_char's IYYY, IW, ID, W and TH suffix (refused). `REVIEW_20_REFUSED`
 * must be refused with a hint or the same, never excused: sqrt/exp/ln/log/power of numeric (PostgreSQL's
 * numeric at its own scale; they were DuckDB's doubles), GROUP BY DISTINCT over grouping sets, dynamic
 * zone abbreviations (MSK), extract(julian …) (numeric in PostgreSQL, a double here), generate_series of numerics in FROM or starting at a smaller scale than its step. Lead: stddev, variance,
 * corr, covar and regr_* of floats cast to numeric (DuckDB's DECIMAL(18,3): three places in silence).
 */
export const REVIEW_20 = [
  // avg(interval): the fields summed apart, divided as interval_div
  "select avg(x) from (values (interval '1 mon'), (interval '2 hours'), (interval '1 second')) t(x)",
  "select avg(x), avg(distinct x), avg(x) filter (where x > interval '1 hour') from (values (interval '1 day'), (interval '25 hours'), (interval '1 month 1 second'), (interval '1 day')) t(x)",
  "select x, avg(x) over (order by x), avg(x) over () + interval '1 second' from (values (interval '1 mon'), (interval '2 hours'), (interval '1 second')) t(x) order by x",
  "select status, avg(ordered_at - timestamp '2024-01-01 00:00:00.000001') from sales.orders group by 1 order by 1",
  "select status, avg(distinct ordered_at - timestamp '2024-01-01'), json_build_object('a', avg(ordered_at - timestamp '2024-01-01')) from sales.orders group by 1 order by 1",
  'select avg(x), avg(y), avg(z) from (values (1, 1.5, 2.5::float8), (2, 2.25, 3)) t(x, y, z)',
  // json_agg(DISTINCT x ORDER BY x)
  'select json_agg(distinct status order by status) from sales.orders',
  'select country, json_agg(distinct status order by status desc), json_agg(distinct qty) from sales.orders join sales.customers using (customer_id) group by 1 order by 1',
  // an empty select list under EXISTS; GROUP BY DISTINCT of plain expressions
  'select count(*) from sales.customers c where not exists (select from sales.orders o where o.customer_id = c.customer_id)',
  'select c.name from sales.customers c where exists (select from sales.orders o where o.customer_id = c.customer_id and o.qty > 4) order by 1',
  'select status, count(*) from sales.orders group by distinct status order by 1',
  'select status, qty, count(*) from sales.orders group by distinct status, qty, status order by 1, 2',
  // time zone abbreviations: a fixed offset in input and in AT TIME ZONE
  "select '2024-01-01 10:00 EST'::timestamptz, '2024-07-01 10:00 EDT'::timestamptz, '2024-07-01 10:00 PST'::timestamptz, '2024-07-01 10:00 CEST'::timestamptz, '2024-07-01 10:00:30.5 nzdt'::timestamptz",
  "select '2024-07-01 10:00 CET'::timestamptz, timestamptz '2024-07-01 10:00 JST', '2024-07-01 PST'::timestamptz, '2024-07-01 10:00 MSK'::timestamp, '2024-07-01 10:00 PST'::timestamp",
  "select count(*) from sales.orders where ordered_at::timestamptz > '2024-01-03 10:00 EST'",
  "select timestamptz '2024-07-01 10:00+00' at time zone 'PST', timestamptz '2024-07-01 10:00+00' at time zone 'CEST', timestamptz '2024-07-01 10:00+00' at time zone 'CET', timestamptz '2024-07-01 10:00+00' at time zone 'EST'",
  "select timestamptz '2024-07-01 10:00+00' at time zone 'ist', timestamptz '2024-07-01 10:00+00' at time zone 'AST', timestamptz '2024-07-01 10:00+00' at time zone 'BST', timestamptz '2024-07-01 10:00+00' at time zone 'NST'",
  "select timestamp '2024-07-01 10:00' at time zone 'PST', date '2024-07-01' at time zone 'CET', timezone('EDT', timestamptz '2024-07-01 10:00+00')",
  "select order_id, ordered_at at time zone 'PDT', ordered_at at time zone 'UTC' at time zone 'CET' from sales.orders order by order_id limit 3",
  // to_char: ISO year/week/day, week of month, ordinal suffixes
  "select to_char(timestamp '2024-03-05 14:07:09', 'W'), to_char(timestamp '2024-03-05', 'DDth'), to_char(timestamp '2024-03-05', 'DDTH')",
  "select to_char(timestamp '2024-03-05', 'IYYY-IW-ID'), to_char(date '2021-01-03', 'IYYY-IW-ID'), to_char(date '2021-01-03', 'iyyy-\"W\"FMiw id')",
  "select to_char(ordered_at, 'FMDDth \"of\" FMMonth, YYYY'), to_char(ordered_at, 'DDDth Q W w HH24th MIth FMMMth FMDth IWth'), to_char(ordered_at, 'IYYY-\"W\"IW') from sales.orders order by order_id",
  "select to_char(d, 'FMDDth FMDDTH DDth W') from generate_series(date '2024-01-01', date '2024-01-31', interval '1 day') d",
  // generate_series of numeric constants in a select list: numeric rows at start's scale
  'select generate_series(1.0, 2.0, 0.5)',
  'select generate_series(-1.50, 1, 0.25), 1',
  'select generate_series(2.0, 1.05, -0.5), generate_series(1.5, 3)',
  'select generate_series(0.1, 0.35, 0.1) as x order by 1 desc',
  'select x * 2 from (select generate_series(1.0, 2.0, 0.5) x) s',
  // json_typeof / jsonb_typeof (BI tools probe a JSON column's shape with them; they were 42883)
  "select jsonb_typeof('1'::jsonb), jsonb_typeof('{}'), jsonb_typeof('\"x\"'), jsonb_typeof('[1]'::jsonb), jsonb_typeof('null'::jsonb), jsonb_typeof(null::jsonb), jsonb_typeof('true'), jsonb_typeof('1.5e300'), json_typeof('-0.5'::json)",
  "select jsonb_typeof('{\"a\": {\"b\": [1, \"x\", null, false]}}'::jsonb -> 'a' -> 'b' -> 1), json_typeof(json_build_object('a', 1) -> 'a'), jsonb_typeof('123456789012345678901234567890')",
  // numbers of integers and floats through sqrt/exp/ln/log/power stay double precision, as PostgreSQL's
  'select sqrt(2), exp(1), ln(2), log(2), log10(100), power(2, 0.5::float8), 2 ^ 10, sqrt(qty), sqrt(amount::float8), exp(qty / 10.0::float8) from sales.orders order by order_id limit 2',
  'select sqrt(amount) from sales.orders where false',
  'select sqrt(x) from (values (null::numeric)) t(x)',
  // statistical aggregates cast to numeric (DuckDB's own cast of their DOUBLE was DECIMAL(18,3): 139.077)
  'select round(stddev(amount)::numeric, 4), stddev(amount::float8)::numeric, cast(var_samp(amount::float8) as numeric), round(stddev(qty)::numeric, 6) from sales.orders',
  'select round(corr(amount, qty)::numeric, 6), round(stddev_pop(amount)::numeric, 4), round(regr_r2(amount, qty)::numeric, 6), regr_slope(amount::float8, qty)::numeric from sales.orders',
  'select status, round(stddev(amount)::numeric, 2) as s from sales.orders group by 1 order by 1',
];

/** Refused with a hint (0A000) or PostgreSQL's answer; never excused by a documented difference. */
export const REVIEW_20_REFUSED = [
  'select sqrt(2::numeric), exp(1::numeric), ln(2::numeric), log(2::numeric), power(2::numeric, 0.5)',
  'select sqrt(amount), ln(amount), log10(amount) from sales.orders order by order_id limit 3',
  'select 2.0 ^ 3',
  'select power(qty, 0.5) from sales.orders order by order_id limit 1',
  'select log(2, 8)',
  'select status, count(*) from sales.orders group by distinct rollup(status), rollup(status) order by 1',
  "select '2024-07-01 10:00 MSK'::timestamptz",
  "select timestamptz '2024-07-01 10:00+00' at time zone 'MSK'",
  "select time '10:00' at time zone 'PST'",
  'select extract(julian from ordered_at) from sales.orders order by order_id limit 2',
  "select extract(julian from date '2024-01-01')",
  'select * from generate_series(1.0, 2.0, 0.5)',
  'select generate_series(1, 2, 0.5)',
];
