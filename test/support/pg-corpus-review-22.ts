/**
 * Corpus statements of session 45 (issue 25): SQL as BI tools (Metabase, Superset, Grafana, Tableau,
 * Power BI) write it over the fixture's tables — date_trunc / extract / to_char with time zones, AT TIME
 * ZONE, interval arithmetic, percentile_cont / percentile_disc WITHIN GROUP, string_agg with ORDER BY,
 * DISTINCT ON, LATERAL, FILTER, GROUPING SETS / ROLLUP / CUBE with GROUPING(), window frames (ROWS, RANGE
 * and GROUPS with offsets, EXCLUDE), NULLS FIRST/LAST defaults, numeric scales in CASE/COALESCE, integer
 * and numeric division, bool aggregates, casts with typmods. `REVIEW_22` must be PostgreSQL's answer or its
 * error with PostgreSQL's SQLSTATE (never refused, never excused), among them `f(x) OVER (…)` of a
 * function that is neither an aggregate nor a window function: PostgreSQL's 42809, where the gateway
 * answered `lower(name) over ()` as if the OVER were not there and DuckDB's own error was 42704.
 */
export const REVIEW_22 = [
  // a plain function with OVER: 42809 (it answered, or was 42704)
  'select lower(name) over (), order_id from sales.orders join sales.customers using (customer_id) limit 1',
  'select upper(name) over () from sales.customers',
  'select abs(qty) over (partition by status) from sales.orders limit 1',
  'select round(avg(amount), 2) over () from sales.orders',
  'select pg_catalog.length(name) over () from sales.customers',
  'select coalesce(qty, 0) over () from sales.orders limit 1',
  "select sum(qty) over (), count(*) over (), row_number() over (order by order_id), string_agg(status, ',') over () is not null from sales.orders order by order_id limit 2",
  // date_trunc, extract, to_char, AT TIME ZONE (Metabase, Superset, Grafana, Tableau)
  "select date_trunc('week', ordered_at)::date, count(*) from sales.orders group by 1 order by 1",
  "select date_trunc('month', ordered_at at time zone 'UTC' at time zone 'America/New_York'), count(*) from sales.orders group by 1 order by 1",
  'select extract(dow from ordered_at), extract(isodow from ordered_at), extract(week from ordered_at), extract(quarter from ordered_at), extract(doy from ordered_at) from sales.orders order by order_id limit 5',
  "select to_char(ordered_at, 'YYYY-MM-DD HH24:MI:SS'), to_char(ordered_at, 'Mon DD, YYYY'), to_char(ordered_at, 'Day'), to_char(ordered_at, 'FMDay FMMonth') from sales.orders order by order_id limit 3",
  "select ordered_at at time zone 'America/New_York', (ordered_at at time zone 'UTC') at time zone 'Asia/Kolkata' from sales.orders order by order_id limit 3",
  "select date_trunc('quarter', ordered_at), extract(year from ordered_at)::int, to_char(date_trunc('month', ordered_at), 'YYYY-MM') from sales.orders order by order_id limit 3",
  "select date_trunc('week', ordered_at at time zone 'Europe/Berlin') from sales.orders order by order_id limit 3",
  "select (date_trunc('month', ordered_at) + interval '1 month - 1 day')::date from sales.orders order by order_id limit 3",
  "select ordered_at::timestamptz at time zone 'Europe/Berlin' from sales.orders order by order_id limit 3",
  "select ordered_at at time zone 'Asia/Kathmandu', timezone('America/Sao_Paulo', ordered_at) from sales.orders order by order_id limit 2",
  "select date_trunc('day', ordered_at::timestamptz, 'Europe/Berlin') from sales.orders order by order_id limit 2",
  "select date_part('year', ordered_at)::text || '-Q' || date_part('quarter', ordered_at)::text from sales.orders order by order_id limit 2",
  "select concat(extract(year from ordered_at), '-', extract(month from ordered_at)) from sales.orders order by order_id limit 2",
  "select to_char(ordered_at, 'YYYY\"W\"IW'), to_char(ordered_at, 'HH12:MI AM') from sales.orders order by order_id limit 3",
  'select to_timestamp(extract(epoch from ordered_at)) from sales.orders order by order_id limit 2',
  'SELECT floor(extract(epoch from ordered_at)/300)*300 AS "time", count(*) FROM sales.orders GROUP BY 1 ORDER BY 1 LIMIT 3',
  'SELECT extract(epoch from date_trunc(\'hour\', ordered_at)) AS "time", sum(amount) FROM sales.orders GROUP BY 1 ORDER BY 1 LIMIT 3',
  'SELECT DATE_TRUNC(\'day\', ordered_at) AS __timestamp, SUM(amount) AS "SUM(amount)" FROM sales.orders GROUP BY DATE_TRUNC(\'day\', ordered_at) ORDER BY "SUM(amount)" DESC, 1 LIMIT 3',
  'SELECT CAST(EXTRACT(YEAR FROM "orders"."ordered_at") AS INTEGER) AS "yr", CAST(SUM("orders"."amount") AS DOUBLE PRECISION) AS "sum" FROM "sales"."orders" "orders" GROUP BY 1 ORDER BY 1',
  'SELECT CAST(TRUNC(EXTRACT(QUARTER FROM "orders"."ordered_at")) AS INTEGER) AS "qr" FROM "sales"."orders" "orders" GROUP BY 1 ORDER BY 1',
  'SELECT ("source"."ordered_at" AT TIME ZONE \'UTC\' AT TIME ZONE \'America/Los_Angeles\')::date AS "ordered_at", count(*) AS "count" FROM sales.orders "source" GROUP BY 1 ORDER BY 1 ASC LIMIT 4',
  "SELECT date_trunc('week', (\"ordered_at\" + INTERVAL '1 day')) - INTERVAL '1 day' AS \"w\", count(*) FROM sales.orders GROUP BY 1 ORDER BY 1 LIMIT 3",
  'SELECT CAST(extract(dow FROM "ordered_at") AS integer) + 1 AS d, count(*) FROM sales.orders GROUP BY 1 ORDER BY 1',
  "SELECT to_char(ordered_at, 'YYYY-MM') m, round(avg(amount)::numeric, 2) FROM sales.orders GROUP BY 1 ORDER BY 1",
  // interval arithmetic
  "select ordered_at + interval '1 month', ordered_at - interval '1 day 2 hours', ordered_at - timestamp '2024-01-01', (ordered_at - timestamp '2024-01-01') / 2 from sales.orders order by order_id limit 3",
  "select signup - date '2024-01-01', signup + 7, signup + interval '1 week', age(signup) is not null from sales.customers order by customer_id limit 3",
  "SELECT interval '1 month' - interval '1 day', interval '25 hours', interval '1.5 days', interval '1 year 13 months'",
  "SELECT date '2024-01-31' + interval '1 month', timestamp '2024-02-29 10:00' - interval '1 year', date '2024-03-10' - date '2024-02-01'",
  'select extract(epoch from max(ordered_at) - min(ordered_at)) from sales.orders',
  'select min(ordered_at), max(ordered_at)::date, max(signup) - min(signup) from sales.orders join sales.customers using (customer_id)',
  'SELECT ordered_at::date - lag(ordered_at::date) OVER (ORDER BY order_id) FROM sales.orders ORDER BY order_id LIMIT 3',
  // ordered-set aggregates, string_agg, array_agg, json_agg
  'select percentile_cont(0.5) within group (order by amount), percentile_disc(0.5) within group (order by amount), percentile_disc(0.9) within group (order by qty) from sales.orders',
  'select status, percentile_cont(array[0.25, 0.5, 0.75]) within group (order by amount) from sales.orders group by 1 order by 1',
  'select percentile_disc(0.5) within group (order by ordered_at), percentile_disc(0.5) within group (order by status) from sales.orders',
  'SELECT "status", percentile_cont(0.95) WITHIN GROUP (ORDER BY "amount" DESC) FROM sales.orders GROUP BY 1 ORDER BY 1',
  'SELECT percentile_disc(array[0.1, 0.5]) WITHIN GROUP (ORDER BY qty) FROM sales.orders',
  'SELECT mode() WITHIN GROUP (ORDER BY status) FROM sales.orders',
  "select string_agg(status, ', ' order by order_id desc) from sales.orders where order_id < 6",
  "select string_agg(distinct status, ',' order by status) from sales.orders",
  "select customer_id, string_agg(qty::text, '|' order by qty, order_id) from sales.orders group by 1 order by 1 limit 3",
  "SELECT array_to_string(array_agg(DISTINCT status ORDER BY status), '/') FROM sales.orders",
  'select array_agg(qty order by order_id) from sales.orders where order_id < 4',
  'select json_agg(status order by order_id) from sales.orders where order_id < 3',
  "select json_build_object('id', order_id, 'amount', amount) from sales.orders order by order_id limit 2",
  // DISTINCT ON, LATERAL, FILTER, EXISTS
  'select distinct on (customer_id) customer_id, order_id, amount from sales.orders order by customer_id, amount desc, order_id',
  'select distinct on (status) status, ordered_at from sales.orders order by status, ordered_at desc',
  'SELECT DISTINCT ON (status) status, amount FROM sales.orders ORDER BY status, amount DESC NULLS LAST, order_id',
  'select c.name, l.order_id from sales.customers c cross join lateral (select order_id from sales.orders o where o.customer_id = c.customer_id order by amount desc, order_id limit 2) l order by 1, 2 limit 6',
  'select c.customer_id, l.n from sales.customers c left join lateral (select count(*) n from sales.orders o where o.customer_id = c.customer_id and qty > 8) l on true order by 1 limit 5',
  'SELECT * FROM sales.customers c, LATERAL (SELECT max(amount) m FROM sales.orders o WHERE o.customer_id = c.customer_id) x ORDER BY c.customer_id LIMIT 3',
  "select count(*) filter (where qty > 3), sum(amount) filter (where status = 'paid'), avg(qty) filter (where qty < 5) from sales.orders",
  'SELECT status, sum(amount) FILTER (WHERE qty > 2) / NULLIF(count(*), 0) FROM sales.orders GROUP BY 1 ORDER BY 1',
  'select order_id from sales.orders o where exists (select 1 from sales.customers c where c.customer_id = o.customer_id and vip) order by order_id limit 3',
  'SELECT "orders"."status" AS "status", COUNT(DISTINCT "orders"."customer_id") AS "ctd" FROM "sales"."orders" "orders" GROUP BY 1 ORDER BY 1',
  'select status, count(*) from sales.orders group by 1 having count(*) > 20 order by 2 desc, 1',
  // GROUPING SETS, ROLLUP, CUBE with GROUPING()
  'select status, customer_id, sum(qty), grouping(status, customer_id) from sales.orders group by grouping sets ((status), (customer_id), ()) order by 1 nulls first, 2 nulls first',
  "select status, date_trunc('month', ordered_at), sum(amount) from sales.orders group by rollup (status, date_trunc('month', ordered_at)) order by 1, 2",
  'select status, vip, count(*), grouping(status), grouping(vip) from sales.orders join sales.customers using (customer_id) group by cube (status, vip) order by 1, 2, 5',
  'SELECT status, GROUPING(status) AS g, sum(qty) FROM sales.orders GROUP BY ROLLUP(status) ORDER BY g, status',
  "SELECT coalesce(status, 'Total'), sum(amount) FROM sales.orders GROUP BY ROLLUP(status) ORDER BY 1",
  'SELECT extract(year from ordered_at), extract(month from ordered_at), sum(amount) FROM sales.orders GROUP BY CUBE(1, 2) ORDER BY 1 NULLS FIRST, 2 NULLS FIRST',
  'SELECT status, customer_id % 2, count(*), grouping(status, customer_id % 2) FROM sales.orders GROUP BY GROUPING SETS (status, customer_id % 2) ORDER BY 1, 2',
  // window frames: ROWS, RANGE and GROUPS with offsets, EXCLUDE, named windows
  'select order_id, sum(qty) over (order by order_id rows between 2 preceding and 1 following) from sales.orders order by order_id limit 6',
  'select order_id, sum(qty) over (order by qty range between 1 preceding and 1 following) from sales.orders order by order_id limit 6',
  'select order_id, sum(qty) over (order by order_id rows between 1 preceding and 1 following exclude current row) from sales.orders order by order_id limit 6',
  'select order_id, count(*) over (order by qty groups between 1 preceding and current row exclude ties) from sales.orders order by order_id limit 6',
  "select order_id, sum(amount) over (order by ordered_at range between interval '1 day' preceding and current row) from sales.orders order by order_id limit 6",
  'select order_id, first_value(amount) over w, last_value(amount) over w, nth_value(amount, 2) over w from sales.orders window w as (partition by status order by order_id) order by order_id limit 6',
  'SELECT order_id, avg(amount) OVER (ORDER BY order_id ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) FROM sales.orders ORDER BY order_id LIMIT 3',
  'SELECT order_id, sum(qty) OVER (ORDER BY order_id RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM sales.orders ORDER BY order_id LIMIT 3',
  'SELECT order_id, sum(qty) OVER (ORDER BY order_id ROWS UNBOUNDED PRECEDING EXCLUDE GROUP) FROM sales.orders ORDER BY order_id LIMIT 3',
  "SELECT order_id, max(qty) OVER (PARTITION BY status ORDER BY ordered_at RANGE BETWEEN INTERVAL '7 days' PRECEDING AND CURRENT ROW) FROM sales.orders ORDER BY order_id LIMIT 5",
  'select ntile(4) over (order by amount, order_id), percent_rank() over (order by amount), cume_dist() over (order by amount) from sales.orders order by order_id limit 4',
  'select lag(amount, 1, 0) over (order by order_id), lead(amount) over (order by order_id) from sales.orders order by order_id limit 3',
  'select lag(amount, 1, 0.5) over (order by order_id) from sales.orders order by order_id limit 3',
  'select rank() over (order by qty), dense_rank() over (order by qty desc nulls last) from sales.orders order by order_id limit 4',
  'select round(100.0 * count(*) / sum(count(*)) over (), 2) from sales.orders group by status order by 1',
  // NULL ordering defaults
  'select email from sales.customers order by email desc limit 3',
  'select x from (values (1), (null), (3)) t(x) order by x desc',
  'select x from (values (1), (null), (3)) t(x) order by x',
  'select x from (values (1), (null)) t(x) order by x nulls first',
  'select qty from sales.orders order by qty desc nulls first limit 3',
  // numeric scales in CASE/COALESCE, integer and numeric division, rounding, bool aggregates, casts with typmods
  'select case when qty > 3 then amount else 0 end from sales.orders order by order_id limit 4',
  'select case when qty > 3 then 1.5 else 2 end, coalesce(null, 1, 2.50), case when qty > 3 then 1.50 else 2.125 end from sales.orders order by order_id limit 4',
  'SELECT case when qty > 5 then amount when qty > 2 then qty else 0.5 end FROM sales.orders ORDER BY order_id LIMIT 4',
  'select coalesce(amount, 0), coalesce(amount, 0.5), nullif(amount, 0) from sales.orders order by order_id limit 3',
  'SELECT coalesce(sum(amount), 0), coalesce(avg(qty), 0) FROM sales.orders WHERE qty > 100',
  'select greatest(1.5, 2), least(1.5, 1)',
  'select 7 / 2, -7 / 2, 7 % -3, 7.0 / 2, 7 / 2.0, 1 / 3::numeric, 2::numeric / 3, 10::numeric / 4',
  'SELECT 7 / 2 AS a, 7::numeric / 2 AS b, 7 / 2::float8 AS c, (7 / 2)::numeric(5,2) AS d, 1 / 3 * 3',
  'select sum(qty) / count(*), sum(qty)::numeric / count(*), avg(qty)::int, count(*) / 3 from sales.orders',
  'SELECT count(*)::float / 3, count(*)::numeric / 3, (count(*) * 100)::numeric / sum(qty) FROM sales.orders',
  'select cast(1 as numeric) / 3 * 3, 1::numeric(10,4) / 3',
  'select sum(qty::numeric) / 7, avg(qty)::numeric(10,3) from sales.orders',
  "select sum(case when status = 'paid' then amount end) / nullif(sum(amount), 0) from sales.orders",
  'select status, count(*) * 100.0 / (select count(*) from sales.orders) from sales.orders group by 1 order by 1',
  'select avg(amount)::numeric(10,2), sum(amount)::float8, max(amount) - min(amount) from sales.orders',
  'SELECT avg(qty)::numeric(10,2), avg(amount)::int, sum(qty)::float4 FROM sales.orders',
  'SELECT round(12.345, 2), round(-12.345, 2), round(2.5), round(-2.5), round(2.5::float8), round(3.5::float8), trunc(-1.99)',
  'SELECT cast("amount" as numeric(18,4)) AS "C1", cast(qty as float8) / nullif(cast(qty as float8), 0) FROM sales.orders ORDER BY order_id LIMIT 3',
  'select bool_and(qty > 1), bool_or(qty > 8), every(qty > 0) from sales.orders',
  'select status, bool_and(vip), bool_or(vip) from sales.orders join sales.customers using (customer_id) group by 1 order by 1',
  'SELECT bool_and(vip), bool_or(vip), count(*) FILTER (WHERE vip) FROM sales.customers',
  'select amount::numeric(10,0), amount::numeric(5,1), qty::numeric(4,2), 123.456::numeric(5,2), name::varchar(3), name::char(10) from sales.orders join sales.customers using (customer_id) order by order_id limit 3',
  'select 12345.678::numeric(6,2)',
  "SELECT '1.999'::numeric(3,1), '12.5'::numeric(2,0), 0.5::int, 1.5::int, 2.5::int, (-2.5)::int, 2.5::float8::int",
  "SELECT 'abcdef'::varchar(3), 'ab'::char(4) || 'x', length('ab'::char(4)), 'ab  '::char(4) = 'ab'",
  "select substr(status, 1, 3), split_part(email, '@', 2), position('@' in email) from sales.orders join sales.customers using (customer_id) order by order_id limit 3",
];

/** Refused with a hint (0A000, 42883) or PostgreSQL's answer; never excused by a documented difference. */
export const REVIEW_22_REFUSED = [
  // to_char's zone pattern of a timestamptz, to_char of an interval, numeric picture formats
  "SELECT to_char(ordered_at::timestamptz, 'YYYY-MM-DD HH24:MI:SS TZ') FROM sales.orders ORDER BY order_id LIMIT 2",
  "SELECT to_char(interval '1 day 03:04:05', 'HH24:MI:SS'), to_char(1234.5, 'FM9,999.90')",
  // json_agg of a whole row: DuckDB's JSON prints it differently
  'select json_agg(x) from (select order_id, amount from sales.orders where order_id < 3 order by 1) x',
  // PostgreSQL answers these; the gateway refuses with a hint (left for a later session: issue 25)
  "SELECT sum(ordered_at - timestamp '2024-01-01'), avg(ordered_at - timestamp '2024-01-01') FROM sales.orders",
  'SELECT status, round(avg(amount), 2), round(stddev_samp(amount), 2), min(qty), max(qty) FROM sales.orders GROUP BY status ORDER BY status',
  "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY qty), percentile_cont(0.25) WITHIN GROUP (ORDER BY ordered_at - timestamp '2024-01-01') FROM sales.orders",
  'SELECT div(-7, 2)',
];

/**
 * Differences docs/compatibility.md lists, shown by these statements: numerics of several scales in one
 * column of a set operation, a VALUES list or a subquery (one scale per column); a jsonb value as a
 * subquery's output (typed json); a numeric division per row over a window's sum or a decimal cast.
 */
export const REVIEW_22_DOCUMENTED = [
  'select 1.5 union all select 2 union all select 3.125',
  'select amount from sales.orders where order_id < 3 union select 1 order by 1',
  'select * from (values (1.5), (2), (3.125)) t(x)',
  'select x from (select order_id, case when qty > 3 then 1.5 else 2 end x from sales.orders) s order by order_id limit 4',
  'select x from (select jsonb_agg(qty order by order_id) x from sales.orders where order_id < 3) s',
  'select x from (select \'{"a":1}\'::jsonb x) s',
  'SELECT order_id, amount - lag(amount) OVER (ORDER BY order_id) AS delta, amount / sum(amount) OVER () AS share FROM sales.orders ORDER BY order_id LIMIT 3',
  'select cast(amount as decimal(10,2)) / 3, cast(amount as double precision) / 3 from sales.orders order by order_id limit 2',
  'SELECT cast(qty AS numeric) / 3, cast(amount AS int) / 3 FROM sales.orders ORDER BY order_id LIMIT 2',
];
