/**
 * Corpus statements of session 56 (issue 25, helper s56-pg): silent differences the session-55 review left.
 * `REVIEW_56` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused); `REVIEW_56_REFUSED` refused with a hint (0A000/42883), never excused.
 */
export const REVIEW_56 = [
  // date_part of ±infinity: PostgreSQL 15's ±Infinity for the year-like fields and epoch, NULL for the others (DuckDB: NULL for all)
  "select date_part('epoch', 'infinity'::timestamp), date_part('year', '-infinity'::timestamp), date_part('month', 'infinity'::timestamp), date_part('year', '-infinity'::date), date_part('century', 'infinity'::timestamptz)",
  "select date_part('isoyear', x), date_part('julian', x), date_part('decade', x), date_part('mil', x), date_part('day', x) from (values ('infinity'::timestamp), ('2024-01-01'), ('-infinity'), (null)) t(x) order by 1",
  "select extract(month from '-infinity'::date), extract(hour from 'infinity'::timestamptz), extract(year from date '2024-03-01'), extract(epoch from timestamp '2024-03-01 10:00')",
  "select date_part('year', max(ordered_at)), extract(year from max(ordered_at)), date_part('year', interval '2 years'), extract(epoch from interval '1 day') from sales.orders",
  // ARRAY[…]::numeric[] of constants shown: each element at its own scale, as without the cast (it was padded: {1.500,2.000})
  'select array[1.5, 2]::numeric[]',
  'select array[[1.5, 2], [3, null]]::numeric[], array[1.25, 2, 10.5]::numeric[] as a, array[1, 2]::numeric[]',
  'select array[null, null]::numeric[], array[]::numeric[], array[1.5, null]::numeric[]',
  'select order_id, array[1.5, 2.25]::numeric[], array[amount::numeric] from sales.orders order by order_id limit 3',
  // a number followed at once by a letter: PostgreSQL 15's lexer says 42601 (DuckDB read `0x263A` as `0 AS x263a`)
  'select 0x263A',
  'select 1_000',
  'select 0b101, 0o17',
  'select 1abc',
  'select order_id from sales.orders order by 1desc',
  'select 12.5e3x',
  'select 1e3, 1.5e-2, .5, 2::int, t1.x, \'a1b\' as s1, 3 as "1x" from (select 1 as x) t1',
  // second 60 of a time of day: the next minute's start, up to 24:00:00 (DuckDB's reader refused it, 22008)
  "select '23:59:60'::time, time '10:00:60.5', '10:59:60'::time, '24:00:00'::time",
  "select '23:59:60.5'::time",
  // json has no comparison operators in PostgreSQL (42883); DuckDB compared the texts
  "select '1'::json = '1'::json",
  'select \'{"a": 1}\'::json <> \'{"a": 1}\'',
  'select count(*) from sales.orders where cast(status as json) = \'"open"\'::json',
  "select '1'::jsonb = '1.0'::jsonb, ('{\"a\": 1}'::json ->> 'a') = '1'",
];

export const REVIEW_56_REFUSED = [
  // extract's numeric ±Infinity: DuckDB's DECIMAL has none (it was NULL)
  "select extract(epoch from 'infinity'::timestamp)",
  "select extract(year from '-infinity'::date)",
  "select extract(year from x) from (values ('infinity'::timestamptz), ('2024-01-01')) t(x)",
];
