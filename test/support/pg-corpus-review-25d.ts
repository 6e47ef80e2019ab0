/**
 * Corpus statements of session 49 (issue 25, part D): silent differences and wrong SQLSTATEs a review left.
 * `REVIEW_25D` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused); `REVIEW_25D_REFUSED` 0A000/42883 with a hint where the gateway cannot give PostgreSQL's answer.
 */
export const REVIEW_25D = [
  // json/jsonb arrows: members DuckDB prints as PostgreSQL does stay answered
  'select \'[{"a":1}]\'::json ->> 0, \'[{"a":1}]\'::json -> 0',
  'select \'{"a": {"b": 1}}\'::jsonb ->> \'a\', \'{"a": {"b": 1}}\'::jsonb -> \'a\'',
  'select \'{"a": {"c": 1, "b": [1, 2]}}\'::jsonb #>> \'{a}\', \'{"a": {"b": [1, 2]}}\'::jsonb -> \'a\' ->> \'b\'',
  'select \'{"a": {"b": 1,  "c": [1, 2]}}\'::json -> \'a\' ->> \'b\', \'{"a": "x y", "n": 0}\'::json ->> \'a\', \'{"n": 0}\'::json -> \'n\'',
  'select j ->> \'a\' from (select \'{"a": "\\u00e9"}\'::json as j) t',
  "select ('{\"a\": 1.50}'::json ->> 'a')::float8, ('{\"a\": 1.50}'::json ->> 'a')::numeric(6,2)",
  "select '{\"a\": \"{x\"}'::json ->> 'a', '{\"a\": \"1.5\"}'::json ->> 'a', '[1, 2]'::json -> 0, '[1, 2]'::json ->> 1",
  "select json_build_object('a', status) ->> 'a' from sales.orders order by order_id limit 3",
  "select count(*) from sales.orders where json_build_object('s', status, 'q', qty) ->> 'q' = '2'",
  // a member's NULL test reads no text (the guard is dropped)
  "select j ->> 'a' is null, j ->> 'a' is not null, j ->> 'z' is null from (select '{\"a\": [1, 2]}'::json as j) t",
  "select count(*) from sales.orders where json_build_object('s', status, 'a', json_build_array(1, 2)) ->> 'a' is not null",
  // a negative LIMIT / OFFSET: PostgreSQL's 2201W / 2201X (it was 42000)
  'select 1 limit -1',
  'select 1 offset -1',
  'select order_id from sales.orders order by 1 limit 2 offset -3',
  'select 1 fetch first -1 rows only',
  // generate_subscripts: integer (it was bigint), in FROM (it was 42501), reversed (it was 42883)
  'select generate_subscripts(array[1,2,3], 1)',
  'select generate_subscripts(array[status], 1) from sales.orders order by 1 limit 2',
  'select * from generate_subscripts(array[1,2,3], 1)',
  'select s from generate_subscripts(array[10,20,30], 1) s',
  'select generate_subscripts(array[1,2,3], 1, true)',
  'select * from generate_subscripts(array[10,20,30], 1, false) with ordinality',
  'select a[i] from (select array[5,6,7] as a) t, generate_subscripts(t.a, 1) i order by 1',
  // an exponent constant cast to a float (it was 0A000: made an exact numeric first)
  'select 1e300::float8, 1e-300::float8, -2.5e10::float8, 1e3::float4, 0e5::float8',
  'select 1.5e300::float8 * 2',
  // SELECT DISTINCT ordered by a column it does not select: PostgreSQL's 42P10 (it answered)
  'select distinct status from sales.orders order by qty',
  'select distinct status from sales.orders order by sales.orders.qty',
  'select distinct status as s from sales.orders order by s',
  'select distinct o.status from sales.orders o order by o.status',
  // % of a float: PostgreSQL's 42883 (it answered fmod's value)
  'select amount::float8 % 1 from sales.orders',
  'select 7 % 2.5::float4',
  // date_bin of an aggregate's or a window's value (it was 42725)
  "select date_bin('1 day', max(ordered_at), timestamp '2024-01-01') from sales.orders",
  "select date_bin(interval '1 day', max(ordered_at), timestamp '2024-01-01') from sales.orders",
  "select date_bin('15 minutes', min(ordered_at), '2024-01-01') from sales.orders",
  "select status, date_bin('1 hour', max(ordered_at::timestamptz), '2024-01-01 00:07') from sales.orders group by 1 order by 1",
  "select date_bin('1 day', lag(ordered_at) over (order by order_id), timestamp '2024-01-01') from sales.orders order by order_id limit 3",
];

/** Refused 0A000/42883 with a hint (PostgreSQL answers them; the gateway cannot give the same text). */
export const REVIEW_25D_REFUSED = [
  // json: a member's text is the input's own in PostgreSQL (spaces, 1.50, escapes); DuckDB's is compact
  'select \'[{"a": 1}]\'::json ->> 0',
  'select \'[{"a": 1}]\'::json -> 0',
  'select \'{"a": {"b":1,  "c": [1, 2]}}\'::json #> \'{a}\'',
  'select \'{"a": {"b":1,  "c": [1, 2]}}\'::json #>> \'{a}\'',
  'select \'{"a": {"b":1,  "c": [1, 2]}}\'::json -> \'a\' -> \'c\'',
  "select '{\"a\": 1.50}'::json ->> 'a'",
  "select '{\"a\": 1e2}'::json -> 'a', '{\"a\": 1e2}'::json ->> 'a'",
  "select '{\"a\": -0}'::json -> 'a'",
  "select j -> 'a', j ->> 'a' from (select '{\"a\": {\"b\": 1}}'::json as j) t",
  'select j -> \'a\' from (select \'{"a": "\\u00e9"}\'::json as j) t',
  "select json_build_object('a', json_build_array(1,2)) ->> 'a'",
  // jsonb: a number as numeric (1.50), an object's keys sorted where the input was not a constant
  "select '{\"a\": 1.50}'::jsonb ->> 'a'",
  'select \'{"a": {"c": 1.50, "b": 1e2}}\'::jsonb -> \'a\'',
  'select ((\'{"a":{"c":1,"b":2}}\'::text)::jsonb) ->> \'a\'',
  // a date in DateStyle's order (the rewrite does not know the session's order; it was 22007)
  "select '01/02/2024'::date",
  "select date '1/2/2024'",
  "select '01/02/2024 10:00'::timestamp",
];
