/**
 * Corpus statements of session 51 (issue 25): silent or wrongly worded differences a new user meets.
 * `REVIEW_51` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused); `REVIEW_51_DOCUMENTED` a difference docs/compatibility.md lists.
 */
export const REVIEW_51 = [
  // numeric + - * past 18 digits: PostgreSQL's exact answer (DuckDB's 64-bit DECIMAL overflowed, 22003 in its words)
  'select 999999999999999999::numeric + 1, 999999999999999999::numeric - -1, -999999999999999999::numeric - 1',
  'select 999999999999999999::numeric * 10, 1234567890123456::numeric * 1000, 12345678901234567.8 * 10',
  'select 1.5::numeric * 2.25, 1.5 * 2.25, 0.1::numeric + 0.20, 1.50::numeric * 2, 99999999999.5::numeric * 99999999999',
  'select 9999999999999999999999999999999999999::numeric + 1, 0.0000000001::numeric * 0.000000001',
  'select amount + 9999999999999999.99, amount * 99999999999999999.9 from sales.orders order by order_id limit 3',
  'select sum(amount + 9999999999999999.99), avg(amount * 99999999999999999.9) from sales.orders',
  'select x + 1, x * 10 from (values (999999999999999999::numeric + 0)) v(x)',
  'select sum(999999999999999999::numeric * qty) from sales.orders',
  'select status, sum(amount - 9999999999999999.99) from sales.orders group by status order by status',
  // PostgreSQL's square and cube root operators (float8): DuckDB has none (42883)
  'select |/ 25, ||/ 27, |/ 25.0, ||/ -27, |/ 2',
  'select |/ -1',
  'select |/ qty, ||/ amount from sales.orders order by order_id limit 3',
  // a select-list alias inside an ORDER BY / GROUP BY expression with one FROM item: the item's column, else 42703
  'select qty as x from sales.orders order by x + 1',
  'select qty as x from sales.orders o order by x * 2',
  'select qty as x, count(*) from sales.orders group by x + 1',
  'select qty as amount from sales.orders order by amount + 1, order_id limit 3',
  'select status as s, count(*) from sales.orders group by s order by s',
  // a qualifier no FROM item goes by: 42P01 in PostgreSQL's words
  'select t.x',
  'select o.nosuch from sales.orders o',
  // an untyped string beside an array is an array literal: 22P02 without `{` (DuckDB: 42000 "Cannot concatenate lists")
  "select array[1,2] || 'x'",
  "select 'x' || array[1,2]",
  // regexp_split_to_array/_table with PostgreSQL's regular expressions, as ~ and regexp_replace (new-user review
  // 51: `.` and `[^…]` stopped at a newline, `\b` was a word boundary)
  "select regexp_split_to_array(E'a\\nb', '.')",
  "select * from regexp_split_to_table(E'x\\ny', 'x.') t",
  "select regexp_split_to_array('a b', '\\b')",
  "select regexp_split_to_array(E'a\\nb', '.', 'n')",
  "select regexp_split_to_array('a, b ,c', '\\s*,\\s*')",
  "select x from regexp_split_to_table('a1b22c', '[^a-z]+') x",
];

/** Refused with a hint where DuckDB's answer would differ from PostgreSQL's. */
export const REVIEW_51_REFUSED = [
  // a pattern that can match nothing: DuckDB splits at an empty match otherwise than PostgreSQL (`\y` split `foo bar` into characters)
  "select regexp_split_to_array('foo bar', '\\y')",
  "select regexp_split_to_array('foo bar', '\\s*')",
  "select regexp_split_to_table('foo bar', '^')",
];

export const REVIEW_51_DOCUMENTED = [
  // past 38 digits: DuckDB's DECIMAL holds no more (22003 with a hint; PostgreSQL's numeric answers)
  'select 99999999999999999999999999999999999999::numeric + 1',
  'select 9999999999999999999999::numeric * 99999999999999999999',
  // a subquery's numeric of at most 18 digits: DuckDB's 18-digit sum (22003 with a hint to cast it to numeric(38, s))
  'select x + 1 from (select 999999999999999999::numeric as x) v',
  // a char(n) in a VALUES list: unpadded (PostgreSQL's bpchar shows `a  `), so that rows compare ignoring the padding
  "select x from (values ('a'::char(3))) v(x)",
  "select x, count(*) from (values ('a'::char(3)), ('a')) v(x) group by x",
];
