/**
 * Corpus statements of session 48 (issue 25, part A): the new-user review's remaining silent differences.
 * `REVIEW_25A` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused): float4 beside an integer or a numeric is float8 (700 → 701, `0.33333334` → `0.3333333333333333`),
 * char(n) loses its padding through ::text/::varchar and keeps it in concat and octet_length, errors where
 * DuckDB answered (chr(0), nth_value(x, 0), negative frame offsets, an aggregate's ORDER BY or DISTINCT under
 * OVER, postfix `!`), PostgreSQL's SQLSTATEs (an unknown zone 22023, a date field past its range 22008, an
 * unknown record field 42703), `(row(…)).f1`, OVERLAPS, to_char's SP suffix and FMYYYY, to_date and
 * to_timestamp without a year (1 BC). `REVIEW_25A_REFUSED`: 0A000 with a hint.
 */
export const REVIEW_25A = [
  // float4 with an integer or a numeric: double precision, as PostgreSQL's float48 operators
  'select 1/3::real, 2 * 1.5::real, 1.5::numeric + 1::real',
  'select 1::real + 1::int8, 1::real - 2, 3 - 1::real, 1::int2 * 0.1::real, 7::real / 2.5',
  'select 1::float4 / 3, qty::float4 * 1.1, qty::float4 + 1 from sales.orders order by order_id limit 1',
  'select qty::float4 / 3, 1::real / qty, amount * 0.5::real from sales.orders order by order_id limit 4',
  'select 0.1::real = 0.1, 16777216::real = 16777217, 0.1::real < 0.1, 0.5::real = 0.5',
  'select order_id from sales.orders where qty::real * 1.1 > 3.3 order by order_id',
  // float4 beside float4 stays real; a float4 column of a derived table too
  'select 1::real * 2::real, 0.1::real + 0.2::real',
  'select x * 1.5::real, 2.5::real * y, y * 1::real, x::numeric - 1::real from (values (1, 2::real)) t(x, y)',
  'select 1::real / 0',
  // char(n): ::text and ::varchar(n) drop the padding, concat and octet_length keep it
  "select 'ab'::char(4)::text, length('ab'::char(4)), 'ab'::char(4)::varchar(6)",
  "select concat('ab'::char(4), '|'), 'ab'::char(4) || '|', concat_ws(',', 'ab'::char(4), 'c')",
  "select octet_length('ab'::char(4)), char_length('ab '::char(4)), octet_length('ab'::varchar(4))",
  "select cast(cast('ab' as char(4)) as text), cast('ab' as char(4)) || 'x'",
  "select status::char(8)::text, concat(status::char(8), '|'), octet_length(status::char(8)) from sales.orders order by order_id limit 3",
  // errors where DuckDB answered
  'select chr(0)',
  'select chr(-1)',
  'select chr(1114112)',
  'select chr(65), chr(qty + 64) from sales.orders order by order_id limit 2',
  'select nth_value(x, 0) over () from (values (1)) t(x)',
  'select nth_value(qty, -1) over (order by order_id) from sales.orders',
  'select sum(x) over (order by x rows between -1 preceding and current row) from (values (1)) t(x)',
  'select sum(x) over (order by x rows between 1 preceding and -2 following) from (values (1)) t(x)',
  'select sum(x) over (order by x range between -1 preceding and current row) from (values (1)) t(x)',
  'select 5!',
  "select string_agg(x::text, ',' order by x) over () from (values (1),(2)) t(x)",
  'select count(distinct qty) over () from sales.orders',
  // PostgreSQL's SQLSTATEs
  "select to_date('2024-13-01', 'YYYY-MM-DD')",
  "select to_timestamp('2024-01-32', 'YYYY-MM-DD')",
  "select now() at time zone 'Nowhere/Zone'",
  "select timestamp '2024-01-01' at time zone 'foo'",
  'select generate_series(1, 3, 0)',
  'select * from generate_series(1, 3, 0)',
  "select (row(1,'x')).f1",
  "select (row(1,'x')).f3",
  // OVERLAPS, PostgreSQL's NULL rules and an interval end
  "select (date '2024-01-01', date '2024-02-01') overlaps (date '2024-01-15', date '2024-03-01')",
  "select (date '2024-02-01', date '2024-01-01') overlaps (date '2024-01-15', date '2024-03-01'), (date '2024-01-01', date '2024-01-15') overlaps (date '2024-01-15', date '2024-03-01')",
  "select (timestamp '2024-01-01', interval '1 day') overlaps (timestamp '2024-01-01 12:00', interval '1 hour')",
  "select (date '2024-01-01', null::date) overlaps (date '2024-01-15', date '2024-03-01'), (null::date, date '2024-01-20') overlaps (date '2024-01-15', date '2024-03-01'), (date '2024-01-20', null::date) overlaps (date '2024-01-15', date '2024-03-01')",
  "select order_id from sales.orders where (ordered_at, ordered_at + interval '1 day') overlaps (timestamptz '2024-01-01', timestamptz '2024-02-01') order by order_id",
  // to_char's SP suffix, FMYYYY; to_date/to_timestamp without a year
  "select to_char(date '2024-03-05', 'DDSP'), to_char(date '2024-03-05', 'FMDDSP'), to_char(date '2024-03-05', 'MMSP-YYYY')",
  "select to_char(date '0099-03-05', 'FMYYYY'), to_char(date '0099-03-05', 'YYYY'), to_char(date '2024-03-05', 'FMYYYY'), to_char(date '0099-03-05', 'FMYYYYth')",
  "select to_char(date '0044-03-05 BC', 'FMYYYY')",
  "select to_timestamp('12:30', 'HH24:MI')",
  "select to_date('12', 'MM'), to_date('05 12', 'DD MM')",
];

/** Refused 0A000 with a hint: PostgreSQL answers, the gateway cannot give the same. */
export const REVIEW_25A_REFUSED = [
  // SQL's regular expressions with `#"` marking the part returned
  "select substring('abcdef' similar 'a#\"bc#\"%' escape '#')",
  "select substring(name from 'A%' for '#') from sales.customers order by 1 limit 1",
];
