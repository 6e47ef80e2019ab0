/**
 * Corpus statements of session 58 (issue 25, helper s58-err): errors where PostgreSQL answers, found by the
 * new-user and attacker reviews of session 57. `REVIEW_58` must be PostgreSQL's answer (never refused, never
 * excused); `REVIEW_58_PARAMS` the same with parameters declared as pgjdbc's setString declares them, described
 * at Parse and run in text and binary; `REVIEW_58_REFUSED` answered 42725 naming an internal macro.
 */
export const REVIEW_58 = [
  // a string constant cast to text, then read as a timestamp or a numeric (22007 and 0A000 on main)
  "select '2024-01-01 00:00+03'::text::timestamptz a, '2024-01-01 00:00 +3'::varchar::timestamp b, cast(cast('2024-01-01 10:00 Europe/Paris' as text) as timestamptz) c",
  "select '1.2300'::text::numeric a, '1.2300'::varchar::numeric(10,2) b, '2024-01-01'::text::date c, cast(cast('-0.50' as text) as numeric) d",
  // a computed text read as a timestamp: seconds missing before the offset, a one-digit offset (22007 on main)
  "select (left(ordered_at::text, 16) || '+03')::text::timestamptz a, (left(ordered_at::text, 16) || ' -3')::varchar::timestamp b, left(ordered_at::text, 16)::text::timestamptz c from sales.orders order by order_id limit 3",
];

/** `types`: declared in Parse (1043 varchar, as pgjdbc's setString; 25 text). */
export const REVIEW_58_PARAMS: ReadonlyArray<{ sql: string; params: (string | null)[]; types?: number[] }> = [
  { sql: 'select $1::timestamptz', params: ['2024-01-01 00:00+03'], types: [1043] },
  {
    sql: 'select $1::timestamp, cast($2 as timestamptz)',
    params: ['2024-01-01 00:00+03', '2024-01-01 10:00 -3'],
    types: [25, 1043],
  },
  {
    sql: 'select count(*) from sales.orders where ordered_at < $1::timestamptz and status <> $2',
    params: ['2024-01-02 00:00+03', 'open'],
    types: [1043, 1043],
  },
  { sql: 'select $1::timestamptz', params: [null], types: [1043] },
  // undeclared: already PostgreSQL's (a control)
  { sql: 'select $1::timestamptz', params: ['2024-01-01 00:00+03'] },
];

/**
 * Refused with 0A000 and a hint that names no macro (PostgreSQL answers the first two and has no json_group_array):
 * a column of an enclosing query inside a subquery with its own FROM, typed by the rewrite's macros.
 */
export const REVIEW_58_REFUSED = [
  'select (select y * 2 from (select 1 as k) q) from (select 1.5::float8 as y) t',
  'select (select y * 2 from (select 1 as k) q) from (select 1::int as y) t',
  'select json_group_array(x)::text from (values (1),(2)) v(x)',
];
