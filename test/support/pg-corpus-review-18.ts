/**
 * Corpus statements of session 42, the remaining differences the last reviews found: array_length and
 * array_upper/lower of a multidimensional array, avg and numeric division inside JSON at PostgreSQL's
 * scale, to_timestamp/to_date with input past the pattern, length(null), lpad/rpad with an empty fill,
 * timetz input with an offset, current_timestamp(p) and kin, timestamp ± time; each answered
 * differently (a value, or an error where PostgreSQL answers). `REVIEW_18_ANSWERED` must answer
 * (pg-corpus.test.ts `MUST_ANSWER`); none is excused by a documented row.
 */
export const REVIEW_18_ANSWERED = [
  // a list of lists is PostgreSQL's multidimensional array: its second dimension counted (it was NULL)
  'select array_length(array[[1,2],[3,4]], 1), array_length(array[[1,2],[3,4]], 2), array_length(array[[1,2],[3,4]], 3), array_length(array[1], 2), array_length(array[1], -1)',
  'select array_length(array[[1,2,3],[3,4,5]], 2), array_upper(array[[1,2,3],[3,4,5]], 2), array_lower(array[[1,2,3],[3,4,5]], 2), array_lower(array[1,2], 2), array_upper(array[1,2], 1), array_lower(array[1,2], 1)',
  "select array_length('{}'::int[], 1), array_upper('{}'::int[], 1), array_lower('{}'::int[], 1), array_length(null::int[], 1)",
  "select array_length(array[['a','b'],['c','d']], 2), array_length(array[[[1,2,3]]], 3), array_length(array[[[1,2,3]]], 2), array_length(array[[[1,2,3]]], 4)",
  'select order_id, array_length(array[[qty, order_id]], 2), array_length(array[qty, order_id], 2), array_upper(array[qty], 1) from sales.orders order by order_id limit 3',
  // avg and numeric division inside JSON: PostgreSQL's scale (they were padded to 20 decimals)
  "select json_build_object('a', avg(qty)) from sales.orders",
  "select json_build_object('a', avg(amount), 'b', sum(amount)) from sales.orders",
  "select status, json_build_object('avg', avg(qty), 'n', count(*)) from sales.orders group by status order by 1",
  'select to_json(avg(qty)), to_json(avg(amount)), to_json(avg(qty::float8)), to_json(avg(qty::float4)) from sales.orders',
  'select json_build_array(avg(qty), avg(qty::float8), sum(qty) / count(*)) from sales.orders',
  "select json_build_object('a', sum(amount) / 3, 'c', max(amount) / 7) from sales.orders",
  "select json_build_object('b', sum(amount) / sum(qty)) from sales.orders",
  // controls, answered before too: no rows (null), and quotients whose PostgreSQL scale is 20
  "select json_build_object('a', avg(qty) filter (where qty > 100)) from sales.orders",
  "select json_build_object('b', avg(amount * 0.0001)) from sales.orders",
  "select json_build_object('c', avg(amount * 0.000001)) from sales.orders",
  "select json_build_object('a', avg(distinct qty)) from sales.orders",
  "select json_build_object('b', avg(order_id)) from sales.orders",
  // to_timestamp/to_date: input past the pattern's end is ignored (it failed 22023)
  "select to_timestamp('2024-01-01 10:00:00Z', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('2024-01-01T10:00:00Z', 'YYYY-MM-DD\"T\"HH24:MI:SS'), to_date('2024-01-01Z', 'YYYY-MM-DD')",
  "select to_timestamp('2024-01-01 10:00:00.123456Z', 'YYYY-MM-DD HH24:MI:SS.US'), to_timestamp('2024-01-01 10:00:00+02', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('20240101xyz', 'YYYYMMDD'), to_date('2024-01-01 10:00', 'YYYY-MM-DD')",
  "select to_timestamp('2024-01-01 10', 'YYYY-MM-DD'), to_timestamp('05 Mar 2024 trailing', 'DD Mon YYYY'), to_timestamp('2024-01-01 10:00 PM!', 'YYYY-MM-DD HH12:MI AM')",
  "select to_timestamp(ordered_at::text || 'Z', 'YYYY-MM-DD HH24:MI:SS'), to_date(signup::text || ' x', 'YYYY-MM-DD') from sales.orders join sales.customers using (customer_id) order by order_id limit 3",
  // input that ends before the pattern: the rest zero (22007)
  "select to_timestamp('2024-01-01', 'YYYY-MM-DD HH24:MI:SS'), to_timestamp('2024-01-01 10', 'YYYY-MM-DD HH24:MI'), to_date('2024', 'YYYY-MM-DD'), to_date('2024-01', 'YYYY-MM-DD')",
  "select to_timestamp('2024-01-01 ', 'YYYY-MM-DD HH24'), to_timestamp('2024-01-01 10:00', 'YYYY-MM-DD HH12:MI AM'), to_timestamp(null, 'YYYY-MM-DD HH24:MI:SS')",
  // an untyped NULL is text (42725: DuckDB could not choose)
  'select length(null), length(null::text), char_length(null), octet_length(null), bit_length(null)',
  // an empty fill pads nothing (DuckDB: 22023)
  "select lpad('x', 5, ''), rpad('x', 5, ''), lpad('x', 0, ''), lpad('xyz', 2, ''), lpad(status, 10, '') from sales.orders order by order_id limit 2",
  "select lpad(status, 10, nullif(status, status)), rpad(status, 12, case when qty > 2 then '' else '*' end) from sales.orders order by order_id limit 4",
  // timetz input with an offset after a time without seconds (22008)
  "select '10:00+02'::timetz, '10:00:00.5-03:30'::timetz, timetz '10:00 -03', '10:00+2'::timetz",
  // current_timestamp(p) and kin: rounded to p digits (42883 "function current_timestamp() does not exist")
  "select current_timestamp(0) = date_trunc('second', current_timestamp(0)), pg_typeof(current_timestamp(0)), pg_typeof(localtimestamp(2))",
  'select extract(microseconds from current_timestamp(0))::int % 1000000, extract(microseconds from localtimestamp(0))::int % 1000000, extract(microseconds from current_time(0))::int % 1000000, extract(microseconds from localtime(0))::int % 1000000',
  'select pg_typeof(current_time(1)), pg_typeof(localtime(3)), pg_typeof(current_time), pg_typeof(localtime), pg_typeof(localtimestamp)',
  'select (extract(microseconds from current_timestamp(2))::int % 10000) = 0, current_timestamp(6) = current_timestamp',
  // timestamp ± time: the time read as an interval (42883)
  "select timestamp '2024-01-01 01:00' + time '10:30:15', ordered_at + time '01:00', time '01:00' + ordered_at from sales.orders order by order_id limit 2",
  "select timestamptz '2024-01-01 01:00+00' + time '10:30:15', time '10:30:15' + timestamptz '2024-01-01 01:00+00'",
  "select timestamp '2024-01-01' - time '10:00', timestamptz '2024-01-01 00:00+00' - time '10:00:30.5', ordered_at - time '09:00' from sales.orders order by order_id limit 2",
  "select date '2024-01-01' - time '10:00', date '2024-01-01' + time '10:00', time '10:00' + date '2024-01-01', time '10:00' + interval '1 hour', time '10:00' - interval '1 hour'",
  'select ordered_at + ordered_at::time, ordered_at - ordered_at::time from sales.orders order by order_id limit 2',
];

/**
 * An error as PostgreSQL's (its SQLSTATE); PostgreSQL types DuckDB has none of, and records in JSON with fields
 * DuckDB prints otherwise: refused with a hint.
 */
export const REVIEW_18_REFUSED = [
  // PostgreSQL's 22007 (a text the pattern cannot read), not an answer
  "select to_timestamp('2024-01-01 xx', 'YYYY-MM-DD HH24:MI:SS')",
  "select '12.34'::money",
  'select cast(amount as money) from sales.orders order by order_id limit 2',
  "select '(1,2)'::point",
  // refused before too (DuckDB's JSON of a whole row prints them otherwise): they stay refused, never answered otherwise
  'select json_agg(o) from (select order_id, amount, ordered_at from sales.orders order by order_id limit 3) o',
  'select to_json(o) from (select order_id, amount, ordered_at, qty::float8 / 3 as f from sales.orders order by order_id limit 3) o',
];

export const REVIEW_18 = [...REVIEW_18_ANSWERED, ...REVIEW_18_REFUSED];

/**
 * float4/float8 arithmetic past the type's range answers Infinity or 0 where PostgreSQL raises 22003, and
 * sum(float4) adds in double precision where PostgreSQL adds in float4 (docs/compatibility.md).
 */
export const REVIEW_18_DOCUMENTED = [
  'select 1e30::real * 1e10::real, 1e-30::real * 1e-30::real',
  'select sum(qty::float4), sum(amount::real), avg(amount::real) from sales.orders',
];
