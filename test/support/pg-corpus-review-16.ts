/**
 * Corpus statements of session 41: typed calls nested in arithmetic (each level bound twice by DuckDB
 * before: nine levels took 18 s), and numeric division per row kept at 15 significant digits (the
 * quotient's text cast cost ~7 µs a row); never excused by a documented row.
 */
export const REVIEW_16 = [
  'select order_id, round(round(round(amount::numeric(10,2) * 1.1, 2) * 1.1, 2) * 1.1, 2) from sales.orders order by order_id',
  'select order_id, round(amount::numeric(10,2) / 2 / 2 / 5, 4) from sales.orders order by order_id',
  'select order_id, floor(extract(epoch from ordered_at) / 60 / 60) * 3600 from sales.orders order by order_id',
  'select order_id, round((amount::numeric(10,2) - 1) / 2 - 1, 3) from sales.orders order by order_id',
  'select qty, sum(round(amount::numeric(10,2) / 2, 2)) from sales.orders group by qty order by qty',
  'select o.order_id, (select round(o.amount::numeric(10,2) / 2 / 2, 2)) from sales.orders o order by 1 limit 5',
  // a new-user review: avg over a window inside an expression was double precision (4.72 for 4.725 rounded)
  'select order_id, round(avg(qty) over (), 2), avg(qty) over ()::numeric(10,2), round(avg(qty) over (partition by status), 1) from sales.orders order by order_id limit 5',
  'select round(a, 2) from (select order_id, avg(qty) over (partition by status) a from sales.orders) x order by order_id limit 5',
  'select order_id, round(avg(amount::numeric(10,2)) over (order by order_id rows between 2 preceding and current row), 3) from sales.orders order by order_id limit 8',
  // constants cast with a typmod fold as numeric (they were divided per row through double precision)
  'select 22 / 7::numeric(10,4), 1 / 3::numeric(10,2), 1.005::numeric(10,2), 7::numeric(10,4), 123.456::numeric(4,1) * 2, -2.5::numeric(3,0)',
  // a value too wide for numeric(p,s): 22003 numeric field overflow (was 22P02 in DuckDB's words)
  'select 12345::numeric(3,1)',
  'select amount::numeric(3,1) from sales.orders',
  "select 'abc'::numeric(3,1)",
  // an attacker review: the aggregate was its own type tag, which DuckDB cannot type (42725 "multiple overloads")
  "select length(string_agg(status, ',')), octet_length(string_agg(status, '')), length(string_agg(status, ',' order by status)) from sales.orders",
  "select status, length(string_agg(status, ',')) from sales.orders group by status order by status",
  // a new-user review: quoted text in to_timestamp/to_date's format (ISO 8601's T) was passed with its quotes
  `select to_timestamp('2024-01-05T10:11', 'YYYY-MM-DD"T"HH24:MI'), to_date('2024 x 01 05', 'YYYY "x" MM DD')`,
  // a new-user review: a scalar set-returning function's alias is its column, not a record (0A000 before)
  'select array_agg(x), count(distinct x), json_agg(x) from generate_series(1::int8, 3) x',
  "select (select array_agg(x order by x desc) from generate_series(1::int8, 3) x), (select string_agg(u, '-') from unnest(array['a', 'b']) u)",
  // a new-user review: a two-dimensional constructor cast to text[] became a list of its rows' text (silently)
  "select array[array['a', 'b'], array['c', 'd']]::text[], array[[1, 2], [3, 4]]::int8[]",
];
