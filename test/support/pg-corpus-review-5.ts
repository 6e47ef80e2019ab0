/**
 * Corpus statements from the fifth new-user review of issue 25 (on `fdl demo`): each answered
 * differently from PostgreSQL 15 in silence, and must now be PostgreSQL's answer or a refusal with a hint.
 */
export const REVIEW_5 = [
  // percent of total: numeric × count / count keeps numeric division's scale (a count's type tag was a NULL
  // that DuckDB's decimal arithmetic folded to an untyped NULL, so the division was integer division)
  'select status, round(100.0 * count(*) / (select count(*) from sales.orders), 1) from sales.orders group by 1 order by 1',
  'select count(*) * 1.0 / 7, round(1.5 * count(*) / 700, 4), 100.0 * count(*) / 7 from sales.orders',
  'select order_id, status, round(100.0 * count(*) over (partition by status) / count(*) over (), 1) from sales.orders order by order_id limit 5',
  'select count(*) from sales.orders having round(1.5 * count(*) / 7, 2) > 17',
  'select status, count(*) from sales.orders group by 1 having round(1.5 * count(*) / 7, 2) > 3.5 order by 1',
  'select status, round(count(*) * 100.0 / sum(count(*)) over (), 2) from sales.orders group by 1 order by 1',
  // numeric and interval division in HAVING (DuckDB's HAVING binder took a lambda's `v.x` for a column: 42000)
  'select status, count(*) from sales.orders group by 1 having sum(amount) / count(*) > 20 order by 1',
  "select status from sales.orders group by 1 having interval '1 day' * count(*) / 7 > interval '4 days' order by 1",
  // `interval 'N' unit` in a statement the gateway rewrites: the deparsed `CAST('1' AS interval day)` was 1 second
  "select date_trunc('month', ordered_at) + interval '1' month - interval '1' day from sales.orders where order_id = 1",
  "select interval '1' day, 'a'::text",
  "select interval '1' day, interval '2' hour, interval '3' minute",
  "select interval '-1.5' hour, interval '2.5' hour, interval '2.7' day, interval '1.5' month, interval '1.7' year, interval '-2.5' minute, interval ' 3 ' day, interval '+4' day, interval '2.25' second, 'a'::text",
  "select order_id, ordered_at + interval '2' hour, to_char(ordered_at + interval '1' day, 'YYYY-MM-DD') from sales.orders order by order_id limit 3",
  // a field qualifier the gateway cannot apply: refused (0A000), never read without it
  "select interval '1 day 3 hours' hour, 'a'::text",
  "select interval '1-2' year to month, 'a'::text",
  // LIKE's default escape is a backslash in PostgreSQL (DuckDB's LIKE has none): in statements not otherwise rewritten
  "select 'a_b' like 'a\\_b', 'a_b' ilike 'A\\_B', 'axb' not like 'a\\_b', 'a%' like 'a\\%', 'ab' like 'a\\b', 'a\\b' like 'a\\\\b'",
  "select name from sales.customers where name like 'Customer\\ 1%' order by 1",
  "select count(*) from sales.orders where status not ilike 'o\\pen'",
  "select 'a_b' like 'a\\_b' escape '#', 'a#_b' like 'a#_b' escape '#', 'a_b' like 'a#_b' escape '#'",
  // bytea constants in PostgreSQL's hex and escape formats (DuckDB read `\xdeadbeef` as one byte and six letters)
  "select '\\xdeadbeef'::bytea, octet_length('\\xdeadbeef'::bytea), bytea '\\xDE AD', cast('\\x' as bytea)",
  "select 'a\\\\b'::bytea, '\\141\\000z'::bytea, octet_length('\\001\\377'::bytea), 'héllo'::bytea, md5('\\x00ff'::bytea)",
  "select '\\xzz'::bytea",
  "select '\\x123'::bytea",
  "select 'a\\b'::bytea",
  // substr before the first character: PostgreSQL counts positions that are not there (DuckDB counted from the end)
  "select substr('hello', -2, 5), substr('hello', 0, 2), substr('hello', -2), substr('hello', 0), substring('hello' from -1 for 3), substring('hello', 2), substr('hello', 2, 10), substr('hello', 9)",
  'select order_id, substr(status, qty - 3, 4), substring(status from qty - 2) from sales.orders order by order_id limit 6',
  "select substr('hello', 2, -1)",
  // corr and regr_slope where a variance is zero: PostgreSQL's NULL, not NaN
  'select corr(y, x), regr_slope(y, x), corr(x, y), regr_slope(x, y), regr_intercept(y, x) from (values (1.0::float8, 2.0::float8), (1, 3)) v(x, y)',
  'select status, corr(qty, order_id * 0), regr_slope(amount, customer_id - customer_id) from sales.orders group by status order by 1',
  'select corr(qty, amount) filter (where order_id = 1), regr_slope(qty, 5) from sales.orders',
  'select order_id, regr_slope(qty, 2) over (order by order_id rows 1 preceding), corr(2, qty) over (partition by status) from sales.orders order by order_id limit 4',
];
