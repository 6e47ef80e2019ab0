/**
 * Corpus statements of session 44 (issue 25, the new-user review's leftovers). `REVIEW_21` must be
 * PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never excused): a scalar
 * subquery returning several rows (DuckDB was set to answer its first row: now 21000), and errors
 * that are the same error in both but had DuckDB's code — a cast out of bigint's range (22P02),
 * sqrt of a negative number (2201F) and ln/log of zero (2201E) (both 22003), make_date past a month's
 * days (22008; it was 22P02), a regular expression RE2 cannot compile (2201B; 22023), a window function
 * called without OVER (42809; 42883 "Did you mean row"), ntile(0) (22014; 22023); width_bucket(x, thresholds)
 * (42501 "not allowed"); to_char's WW, CC, Y,YYY, YYY, Y, IYY, IY, I (refused); ILIKE and ~* over letters
 * outside ASCII (DuckDB folded all of Unicode, PostgreSQL's C locale only ASCII); jsonb_agg typed json, its
 * timestamps DuckDB's to_json text; to_json(array[1.5, 2]) (`[1.5,2.0]`); jsonb_array_length (42883). `REVIEW_21_REFUSED`
 * must be refused with a hint or the same, never excused.
 */
export const REVIEW_21 = [
  // a scalar subquery of several rows: 21000, uncorrelated and correlated; one row still answers
  'select (select x from (values (1), (2)) t(x))',
  'select qty, (select o2.order_id from sales.orders o2 where o2.qty = o.qty) from sales.orders o order by order_id limit 3',
  'select c.name from sales.customers c where c.customer_id = (select customer_id from sales.orders where qty > 4)',
  'select name, (select order_id from sales.orders o where o.customer_id = c.customer_id order by order_id limit 1) from sales.customers c order by 1 limit 3',
  'select (select qty from sales.orders where order_id = 1), (select max(qty) from sales.orders)',
  // the same error, PostgreSQL's SQLSTATE
  'select 1e20::bigint',
  "select 1e20::int8, 'x'",
  'select (amount * 1e18)::bigint from sales.orders',
  'select 40000::numeric::int2',
  'select sqrt(-1)',
  'select sqrt(-1::float8)',
  'select sqrt(qty - 4) from sales.orders order by order_id',
  'select ln(0)',
  'select ln(0::float8), 1',
  'select log(-1)',
  'select log10(0::numeric)',
  'select ln(qty - qty) from sales.orders',
  'select make_date(2020, 13, 1)',
  'select make_date(2024, 2, 30)',
  'select make_timestamp(2024, 13, 1, 0, 0, 0)',
  "select 'a' ~ '('",
  "select regexp_replace('a', '(', '')",
  "select status ~ '[a' from sales.orders",
  "select substring('abc' from '(')",
  'select row_number()',
  'select row_number() from sales.orders',
  'select rank() from sales.orders',
  'select lag(qty) from sales.orders',
  'select first_value(qty) from sales.orders',
  'select ntile(0) over () from sales.orders',
  'select ntile(qty - qty) over (order by order_id) from sales.orders',
  'select ntile(-1) over ()',
  // width_bucket(x, thresholds): PostgreSQL's bucket over ascending lower bounds (it was 42501 "not allowed")
  'select width_bucket(5, array[1, 3, 7])',
  'select width_bucket(0, array[1, 3, 7]), width_bucket(7, array[1, 3, 7]), width_bucket(9, array[1, 3, 7]), width_bucket(3, array[1, 3, 3, 7])',
  'select width_bucket(qty, array[1, 3, 5]), width_bucket(amount, array[10, 100.5, 1000]) from sales.orders order by order_id limit 5',
  'select width_bucket(null::int, array[1]), width_bucket(1, null::int[]), width_bucket(1, array[]::int[])',
  'select width_bucket(2, array[1, null, 3])',
  "select width_bucket(ordered_at, array[timestamp '2024-01-02', timestamp '2024-01-05']) from sales.orders order by order_id limit 4",
  'select width_bucket(2.5, array[1, 2.5, 4.75])',
  // to_char's WW, CC, Y,YYY, YYY, Y and the ISO year's IYY, IY, I (they were refused)
  "select to_char(timestamp '2024-03-05 14:07', 'WW CC IYY IY I YYY Y')",
  "select to_char(d, 'WW ww CC cc IYY iyy IY I YYY Y FMWW FMCC FMIYY FMYYY') from generate_series(date '2020-12-25', date '2021-01-10', interval '1 day') d",
  "select to_char(ordered_at, 'IYY-IW WWth CCth Yth'), to_char(ordered_at, 'Y,YYY y,yyy') from sales.orders order by order_id limit 5",
  "select to_char(date '0044-03-15 BC', 'CC YYY Y IYY Y,YYY'), to_char(date '12345-01-01', 'Y,YYY CC'), to_char(date '0999-01-01', 'Y,YYY CC')",
  "select to_char(date '2000-01-01', 'CC'), to_char(date '2001-01-01', 'CC'), to_char(date '1999-12-31', 'CC FMCCTH'), to_char(date '2024-12-30', 'IYYY IYY IY I WW')",
  "select to_char(timestamptz '2024-03-05 14:07+00', 'YYYY-MM-DD Invoice')",
  // ILIKE and ~* fold ASCII letters only, as PostgreSQL's C locale (DuckDB folded all of Unicode: 'ÄBC' ILIKE 'äbc' was true)
  "select 'ÄBC' ilike 'ä%', 'äbc' ilike 'ÄBC', 'abc' ilike 'ABC', 'ÄBC' ilike 'Äbc', 'ÄBC' not ilike 'ä%'",
  "select chr(8490) || 'x' ilike 'k%', chr(383) ilike 'S', 'Kx' ilike 'k%'",
  "select name from sales.customers where name ilike 'c%' order by 1 limit 3",
  "select count(*) from sales.customers where name ilike any (array['%1', 'C%2'])",
  "select 'ÄB' ilike any (array['ä%', 'x']), 'ÄB' ilike all (array['Ä%', '%b'])",
  "select 'a!%b' ilike 'A!%B' escape '!', status ~~* 'PAID', status !~~* 'paid' from sales.orders order by order_id limit 2",
  "select 'Abc' ~* 'abc', 'ÄBC' ~* 'bc', 'José' ~* 'jos', 'x' ~* 'ä', 'a' ~* (select 'A')",
  "select name ~* 'cus', name !~* 'CUS' from sales.customers order by 1 limit 2",
  "select status from sales.orders where status ~* '^PA' order by order_id limit 2",
  // jsonb_agg: typed jsonb (3802; it was json), its elements as jsonb writes them (timestamps with a T: it wrote DuckDB's to_json)
  'select jsonb_agg(ordered_at order by order_id) from sales.orders where order_id < 3',
  'select jsonb_agg(amount order by order_id), jsonb_agg(qty), jsonb_agg(status order by order_id desc) from sales.orders where order_id < 3',
  'select jsonb_agg(x) from (values (1.5::float8), (2)) t(x)',
  'select jsonb_agg(vip), jsonb_agg(signup order by customer_id) from sales.customers where customer_id < 3',
  'select jsonb_agg(x) from (values (null::int), (1)) t(x)',
  'select status, jsonb_agg(qty order by order_id) filter (where qty > 3) from sales.orders group by 1 order by 1',
  'select jsonb_agg(distinct status order by status), jsonb_agg(1)::text from sales.orders',
  "select jsonb_agg(x) from (values ('a\"b\\\\c'), ('é')) t(x)",
  // to_json of an ARRAY[…] of numeric constants of mixed scales: each element at its own scale (it was [1.5,2.0])
  'select to_json(array[1.5, 2])',
  'select to_json(array[1.50, 2.0]), to_json(array[1.5, 2.5]), to_json(array[1, 2])',
  "select json_build_object('a', array[1.5, 2]), json_build_array(array[1.5, null, 2], 1)",
  'select to_json(array[[1, 2.5], [3, 4]])',
  "select json_build_object('a', 1.50, 'b', array[1.5, 2.25]), pg_typeof(to_json(array[1.5, 2]))",
  // jsonb_array_length (it was 42883): int4, and PostgreSQL's 22023 for an object or a scalar
  "select jsonb_array_length('[1,2]'), jsonb_array_length('[]'), jsonb_array_length('[[1],2,{\"a\":3}]'::jsonb), jsonb_array_length(null)",
  'select jsonb_array_length(\'{"a":1}\')',
  "select jsonb_array_length('3')",
  "select jsonb_array_length('null')",
  'select jsonb_array_length(json_build_array(1, 2, 3)::jsonb)',
];

/** Refused with a hint (0A000, 42883) or PostgreSQL's answer; never excused by a documented difference. */
export const REVIEW_21_REFUSED = [
  "select regexp_matches(status, 'a{2,1}') from sales.orders",
  // thresholds out of order: PostgreSQL's answer follows its binary search
  'select width_bucket(2, array[3, 1])',
  // to_char's zone patterns: the zone's abbreviation depends on the value's type, which the rewrite does not know
  "select to_char(timestamp '2024-03-05 14:07', 'TZ')",
  // a case-insensitive regular expression where Unicode's folding and the C locale's differ
  "select 'Äbc' ~* 'äbc'",
  "select chr(8490) || 'x' ~* 'k'",
  "select 'Ä' ~* (select 'ä')",
  "select 'a' ~* '\\x41'",
  "select 'aXb' ilike 'axb' escape 'X'",
  // jsonb's normal form differs from json's text: json values, arrays, floats printed with an exponent
  'select jsonb_agg(x) from (values (1e20::float8)) t(x)',
  'select jsonb_agg(j) from (values (\'{"b":1,"a":2}\'::json)) t(j)',
  'select jsonb_agg(array[1, 2])',
  // SQL/JSON paths: 42883 with what to write instead
  "select jsonb_path_query('{\"a\":1}', '$.a')",
  "select jsonb_path_exists('{\"a\":1}', '$.a')",
];

/** Differences docs/compatibility.md lists, shown by these statements (smallint with an integer constant past 32,767). */
export const REVIEW_21_DOCUMENTED = ['select qty * 10000 from sales.orders order by order_id limit 3'];
