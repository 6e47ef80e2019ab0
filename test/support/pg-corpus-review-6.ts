/**
 * Corpus statements from the sixth round of issue 25 (session 37): known silent differences, each now
 * PostgreSQL's answer or a refusal with a precise SQLSTATE and a hint; never excused by a documented row.
 */
export const REVIEW_6 = [
  // array subscripts outside the bounds: NULL (an element) or clamped (a slice); DuckDB counted a negative one from the end
  'select (array[10, 20, 30])[-1], (array[10, 20, 30])[0], (array[10, 20, 30])[4], (array[10, 20, 30])[null]',
  'select (array[10, 20, 30])[-1:2], (array[10, 20, 30])[0:2], (array[10, 20, 30])[2:5], (array[10, 20, 30])[-3:-1], (array[10, 20, 30])[3:1], (array[10, 20, 30])[0:0], (array[10, 20, 30])[null:2]',
  'select (array[10, 20, 30])[:-1], (array[10, 20, 30])[-1:], (array[10, 20, 30])[:2], (array[10, 20, 30])[2:]',
  'select order_id, (array[10, 20, 30])[qty - 3], (array[10, 20, 30])[qty - 4:qty - 2] from sales.orders order by order_id limit 6',
  "select (string_to_array('a,b,c', ','))[-1], (string_to_array(status, 'e'))[0] from sales.orders order by order_id limit 2",
  // LIKE spelled as its operators (~~, !~~, ~~*, !~~*): PostgreSQL's default escape is a backslash, as for LIKE
  "select 'a_b' ~~ 'a\\_b', 'axb' ~~ 'a\\_b', 'a_b' !~~ 'a\\_b', 'A_B' ~~* 'a\\_b', 'A_B' !~~* 'a\\_b', 'a%' ~~ 'a\\%', 'ab' ~~ 'a\\b'",
  "select count(*) from sales.orders where status !~~ 'o\\pen' and status !~~* 'P%'",
  "select 'a_b' operator(pg_catalog.~~) 'a\\_b'",
  // DuckDB's errors where PostgreSQL answers, or errs with another SQLSTATE
  "select lpad('abc', 5), rpad('abc', 5), lpad('abc', 2), rpad('abc', 2), lpad(status, 8), rpad(status, 3) from sales.orders order by order_id limit 2",
  "select generate_series('2024-01-01', '2024-01-05', '1 day')",
  "select generate_series('1', '3')",
  "select generate_series('2024-01-01'::timestamp, '2024-01-05', interval '1 day')",
  "select count(*) from generate_series('2024-01-01'::date, '2024-01-05'::date, '1 day')",
  "select '12:34'::time(1), '12:34:56.789'::time(1), '12:34:56.789'::time(0), '12:34:56.789'::time, '12:34:56.25'::time(1), '12:34:56.789'::time(6)",
  "select '12:34:56.789+02'::timetz(1), '2024-01-01 12:34:56.789'::timestamp(1), '2024-01-01 12:34:56.789'::timestamptz(0), '2024-01-01 12:34:56.5'::timestamp(0)",
  "select cast(ordered_at as time(0)), ordered_at::timestamp(0), (ordered_at + interval '0.55 s')::timestamp(1) from sales.orders order by order_id limit 2",
  "select '2024-01-01 12:34:56.789'::timestamp(3) without time zone, cast('2024-01-01 12:34:56.789+00' as timestamp(2) with time zone)",
  // avg(x) / b, b / avg(x): DuckDB's "Overflow in multiplication of INT128"; now avg's own numeric divided, as PostgreSQL
  'select avg(qty) / 2 from sales.orders',
  'select sum(qty) / avg(qty), 2 / avg(qty) from sales.orders',
  'select status, avg(amount) / 3, avg(qty) / count(*) from sales.orders group by status order by 1',
  'select status, 100 / avg(amount), avg(amount) / 2.5 from sales.orders group by status order by 2',
  'select avg(qty) / 2, avg(qty) / 2.5, avg(distinct qty) / 3, avg(qty) filter (where qty > 2) / 2 from sales.orders',
];

/** The same inside an expression: the value, at avg's one scale per column (documented in docs/compatibility.md). */
export const REVIEW_6_SCALED = ['select avg(qty) / 2 + 1, avg(qty) * 2, avg(qty) - 1 from sales.orders'];

/**
 * Run in a session whose TimeZone is Europe/Berlin (DST from 2024-03-31 02:00 to 2024-10-27 03:00), on
 * both servers: timestamptz arithmetic across a DST change. Never excused.
 */
export const IN_BERLIN = [
  // timestamptz - timestamptz is the time elapsed (DuckDB counted calendar days in the zone: `1 day`)
  "select timestamptz '2024-03-31 12:00' - timestamptz '2024-03-30 12:00', timestamptz '2024-10-27 12:00' - timestamptz '2024-10-26 12:00'",
  "select timestamptz '2024-03-31 12:00' - timestamptz '2024-01-30 12:00', timestamptz '2024-10-27 01:00' - timestamptz '2024-10-27 04:00'",
  "select order_id, timestamptz '2024-10-27 12:00' - ordered_at::timestamptz, (ordered_at + interval '300 days')::timestamptz - ordered_at::timestamptz from sales.orders order by order_id limit 4",
  "select (timestamptz '2024-03-31 12:00' - timestamptz '2024-03-30 12:00') * 2, extract(epoch from timestamptz '2024-03-31 12:00' - timestamptz '2024-03-30 12:00')",
  "select timestamptz '2024-03-31 12:00' - timestamp '2024-03-30 12:00', date '2024-03-31' - timestamptz '2024-03-30 12:00', timestamp '2024-03-31 12:00' - timestamp '2024-03-30 12:00'",
  "select '2024-03-31 12:00'::timestamptz - '2024-03-30 12:00'::timestamptz",
  "select status, max(ordered_at::timestamptz + interval '90 days') - min(ordered_at::timestamptz) from sales.orders group by status order by status",
  "select order_id, (ordered_at + interval '100 days')::timestamptz - lag(ordered_at::timestamptz) over (order by order_id) from sales.orders order by order_id limit 4",
  // age() and interval arithmetic around DST (already PostgreSQL's: kept so)
  "select age(timestamptz '2024-03-31 12:00', timestamptz '2024-03-30 12:00'), age(timestamptz '2024-10-28', timestamptz '2024-10-26 12:00'), age(timestamptz '2024-03-31 03:30', timestamptz '2024-03-31 01:30')",
  "select timestamptz '2024-03-30 12:00' + interval '1 day', timestamptz '2024-03-30 12:00' + interval '24 hours', timestamptz '2024-10-26 12:00' + interval '1 day 1 hour', timestamptz '2024-03-31 12:00' - interval '36 hours'",
  "select generate_series(timestamptz '2024-03-31 00:00', timestamptz '2024-03-31 04:00', interval '1 hour')",
];
