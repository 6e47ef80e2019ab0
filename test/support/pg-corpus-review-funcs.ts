/**
 * Corpus statements from the new-user review of issue 25 in session 37 (numeric constants, sha2, regex escapes, settings): each
 * answered differently from PostgreSQL 15 in silence, and must now be PostgreSQL's answer or a
 * refusal with a hint (never excused by a documented difference).
 */
export const REVIEW_FUNCS = [
  // numeric constants in exponent form: the exact decimal of the text (they gave 0.000, 0.0000, 6.02e+23 …)
  "select '1e-4'::numeric, '2.5e-4'::decimal, 1.0e-7::numeric, 1.23e-5::numeric, 6.02e23::numeric",
  'select 1e-4, 2.5e-4, 1.0e-7, 6.02e23, 1e3, 1.5E+2, -1e-2, 1.50e2',
  "select 1e-4 + 1, '1e-4'::numeric * 3, sum(1e-4) from sales.orders",
  'select count(*) from sales.orders where amount > 2e1',
  // beyond DECIMAL(38,s): refused with a hint, never rounded
  "select '1e-40'::numeric",
  'select 1e400',
  // sha256 is bytea (it answered hex text: encode(…, 'hex') encoded it twice, length 64); length of bytea its bytes
  "select sha256('abc'::bytea), encode(sha256('abc'::bytea), 'hex'), sha256('abc')",
  'select order_id, sha256(status::bytea) from sales.orders order by order_id limit 2',
  "select sha256('abc'::bytea), length(sha256('abc'::bytea)), encode(sha256('abc'::bytea), 'hex'), encode(sha256('abc'::bytea), 'base64')",
  'select sha256(status::bytea), length(email::bytea) from sales.orders join sales.customers using (customer_id) order by order_id limit 3',
  "select length('\\x00ff'::bytea), length('abc'), length(name), octet_length('\\x00ff'::bytea) from sales.customers order by customer_id limit 2",
  // jsonb -> and #> of a jsonb are jsonb (3802), printed in jsonb's normal form (they were json 114)
  "select '{\"a\":1}'::jsonb -> 'a', '{\"a\":1}'::jsonb ->> 'a', '{\"a\":[1]}'::jsonb #> '{a}', '[1,2]'::jsonb -> 0",
  "select '{\"a\":1}'::jsonb, '{\"b\": {\"c\": [1, 2]}}'::jsonb -> 'b', '{\"a\":null}'::jsonb -> 'a', '{\"a\":1}'::jsonb -> 'x'",
  "select '{\"a\": {\"b\": 2}}'::jsonb -> 'a' -> 'b', cast('{\"a\":1}' as jsonb)",
  // date - date is int4 whatever spells the dates (a column, an aggregate: it was int8); time - time an interval
  'select signup - signup, max(signup) over () - signup from sales.customers order by customer_id limit 3',
  'select max(signup) - min(signup) from sales.customers',
  "select cast(ordered_at as date) - cast(ordered_at as date), d - d from sales.orders, (select date '2024-01-01' d) t order by order_id limit 2",
  "select time '10:00' - time '09:30', time '09:00' - time '10:00:01.5'",
  "select ordered_at::time - ordered_at::time, ordered_at::time - time '12:00' from sales.orders order by order_id limit 3",
  "select order_id - 1, qty - customer_id, amount - 1.5, ordered_at - ordered_at, ordered_at - interval '1 day', signup - 1 from sales.orders join sales.customers using (customer_id) order by order_id limit 2",
  // PostgreSQL's regular expressions: `\b` is a backspace, `\y` a word boundary, `\Z` the end; `\&` in a replacement the match
  "select regexp_replace('a b', '\\b', 'X', 'g'), regexp_replace('abc', 'b', '<\\&>'), regexp_replace('a b', '\\y', 'X', 'g'), regexp_replace('ab cd', '\\Y', 'X', 'g')",
  "select regexp_replace('ab cd', '\\A', 'X', 'g'), regexp_replace('ab cd', '\\Z', 'X', 'g'), regexp_replace('a\\b', '\\B', '/'), regexp_replace('a]b', '[]]', 'X')",
  "select regexp_replace('abc', '(b)', '[\\1\\\\\\0\\x]'), regexp_replace('a1b', '[[:digit:]]', '#'), regexp_replace('abc', 'B', 'x', 'gi')",
  "select 'a b' ~ '\\yb', 'a' || chr(8) ~ '\\b', 'abc' ~ '\\Ac\\Z', 'abc' ~* '\\yA', substring('foo bar' from '\\y(b\\w+)')",
  "select regexp_replace(status, '^(.)', '\\&\\&'), status ~ '\\yen', status !~ '\\b' from sales.orders order by order_id limit 3",
  // RE2 has no look-ahead for ARE's word start and end: refused with a hint
  "select regexp_replace('ab cd', '\\m', 'X', 'g')",
  "select 'ab' ~ 'b\\M'",
  // PostgreSQL's `.` and `[^…]` match a newline unless a flag says otherwise (n, p, w)
  "select regexp_replace(E'a\\nb', '.', 'X', 'g'), E'a\\nb' ~ 'a.b', regexp_replace(E'a\\nb', '^b', 'X', 'g'), E'a\\nb' ~ 'a[^x]b'",
  "select regexp_replace(E'a\\nb', '^b', 'X', 'gn'), regexp_replace(E'a\\nb', 'a.b', 'X', 'n'), regexp_replace(E'a\\nb', 'a[^x]b', 'X', 'p'), regexp_replace(E'a\\nb', '^b', 'X', 'w'), regexp_replace(E'a\\nb', 'a.b', 'X', 'w')",
  // to_char's quoted text: a backslash quotes the next character inside quotes, and a double quote outside them
  "select to_char(timestamp '2024-01-02', '\"YYYY\"'), to_char(timestamp '2024-01-02', '\\YYYY'), to_char(timestamp '2024-01-02', '\"a\\\"b\" YYYY'), to_char(timestamp '2024-01-02', 'YYYY\\\"MM')",
  "select to_char(ordered_at, '\"YYYY\"'), to_char(ordered_at, '\\YYYY'), to_char(ordered_at, '\"Year: \"YYYY'), to_char(ordered_at, '\"100%\" YYYY') from sales.orders order by order_id limit 2",
  // regproc catalog columns shown as function names, as PostgreSQL's regproc output (they came back as OIDs: 42)
  "select typname from pg_type where typinput::text = 'array_in' and typname in ('_int4', '_text', 'int4') order by 1",
  "select typinput, typoutput, typreceive, typsend, typmodin, typmodout, typanalyze, typsubscript from pg_type where typname in ('int4', '_int4', 'numeric', 'varchar') order by oid",
  "select t.typname, t.typinput, t.typoutput::text from pg_type t where t.typname like 'int%' order by t.typinput, 1",
  "select proname, prosupport, prosupport::text from pg_proc where proname in ('int4in', 'array_in') order by 1",
  "select t.typname from pg_type t join pg_proc p on p.oid = t.typinput where p.proname = 'int4in'",
  // PostgreSQL's answer or its SQLSTATE, never DuckDB's words: JSON set-returning functions (they were 42501; answered since REVIEW_24)
  'select * from json_each(\'{"a":1}\')',
  "select json_array_elements('[1,2]')",
  "select * from jsonb_array_elements_text('[1]') as t(v)",
  // a relation size by name; timestamptz::time; timestamptz(p) and interval(p) refused; ISO 8601 intervals; a zero step
  "select pg_total_relation_size('sales.orders') >= 0, pg_relation_size('sales.orders') >= 0, pg_table_size('sales.orders') > 0",
  "select pg_total_relation_size('sales.nosuch')",
  'select max(ordered_at::timestamptz::time), min(cast(ordered_at::timestamptz as time)), max(ordered_at::time) from sales.orders',
  "select '2024-01-01 10:00:00.567+00'::timestamptz(0)",
  "select interval '1.2345 seconds'::interval(2)",
  "select 'P3D'::interval, 'P1Y2M'::interval, 'PT1H30M'::interval, interval 'P2W', 'P1DT2H3M4.5S'::interval, 'P-1D'::interval",
  'select generate_series(1, 5, 0)',
  'select * from generate_series(1, 5, 0)',
  'select generate_series(1, 5, 2), generate_series(5, 1, -2)',
  // sum(interval) and to_char(interval) (DuckDB has neither): 0A000 with a hint, not DuckDB's candidate list
  "select sum(interval '1 day') from sales.orders",
  'select status, sum(ordered_at - ordered_at) from sales.orders group by 1 order by 1',
  "select to_char(interval '1 day 3 hours', 'HH24:MI')",
];
