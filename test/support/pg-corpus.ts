/**
 * The differential corpus: statements over the fixture's sales schema (the PostgreSQL twin holds the
 * same rows, support/sales-mirror.ts), each run on PostgreSQL 15 and the gateway in text and binary,
 * and classified: the same answer; refused with a precise SQLSTATE and a hint; or a documented,
 * deliberate difference listed in docs/compatibility.md ("Differential corpus: documented differences").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitDataRow, type QueryResult, type RawPg } from './raw-pg.js';
import { REVIEW_2, REVIEW_3, REVIEW_4 } from './pg-corpus-review.js';
import { REVIEW_5 } from './pg-corpus-review-5.js';
import { REVIEW_6, REVIEW_6_SCALED } from './pg-corpus-review-6.js';
import { REVIEW_7, REVIEW_7_CONTROLS, REVIEW_7_KEPT } from './pg-corpus-review-7.js';
import { REVIEW_ROWS } from './pg-corpus-rows.js';
import { REVIEW_FUNCS } from './pg-corpus-review-funcs.js';
import { REVIEW_8 } from './pg-corpus-review-8.js';
import { REVIEW_11 } from './pg-corpus-review-11.js';
import { REVIEW_15 } from './pg-corpus-review-15.js';
import { REVIEW_16 } from './pg-corpus-review-16.js';
import { REVIEW_17, REVIEW_17_ANSWERED, REVIEW_17_DOCUMENTED } from './pg-corpus-review-17.js';
import { REVIEW_18, REVIEW_18_ANSWERED, REVIEW_18_DOCUMENTED } from './pg-corpus-review-18.js';
import { REVIEW_19 } from './pg-corpus-review-19.js';
import { REVIEW_20, REVIEW_20_REFUSED } from './pg-corpus-review-20.js';
import { REVIEW_21, REVIEW_21_DOCUMENTED, REVIEW_21_REFUSED } from './pg-corpus-review-21.js';
import { REVIEW_22, REVIEW_22_DOCUMENTED, REVIEW_22_REFUSED } from './pg-corpus-review-22.js';
import { REVIEW_23, REVIEW_23_REFUSED } from './pg-corpus-review-23.js';
import { REVIEW_24, REVIEW_24_REFUSED } from './pg-corpus-review-24.js';
import { REVIEW_25A, REVIEW_25A_REFUSED } from './pg-corpus-review-25a.js';
import { REVIEW_25B, REVIEW_25B_REFUSED } from './pg-corpus-review-25b.js';
import { REVIEW_49 } from './pg-corpus-review-49.js';
import { REVIEW_50, REVIEW_50_REFUSED } from './pg-corpus-review-50.js';
import { REVIEW_51, REVIEW_51_DOCUMENTED, REVIEW_51_REFUSED } from './pg-corpus-review-51.js';
import { REVIEW_52_LEAD } from './pg-corpus-review-52-lead.js';
import { REVIEW_55_LEAD } from './pg-corpus-review-55-lead.js';
import { REVIEW_52I } from './pg-corpus-review-52i.js';
import { REVIEW_52, REVIEW_52_REFUSED } from './pg-corpus-review-52.js';
import { REVIEW_53, REVIEW_53_REFUSED } from './pg-corpus-review-53.js';
import { REVIEW_55N, REVIEW_55N_REFUSED } from './pg-corpus-review-55n.js';
import { REVIEW_54 } from './pg-corpus-review-54.js';
import { REVIEW_55 } from './pg-corpus-review-55.js';
import { REVIEW_56, REVIEW_56_REFUSED } from './pg-corpus-review-56.js';
import { LEAD_57 } from './pg-corpus-lead-57.js';
import { REVIEW_57 } from './pg-corpus-review-57.js';
import { REVIEW_58, REVIEW_58_REFUSED } from './pg-corpus-review-58.js';
import { REVIEW_58T } from './pg-corpus-review-58t.js';
import { REVIEW_25D, REVIEW_25D_REFUSED } from './pg-corpus-review-25d.js';
import { REVIEW_25C, REVIEW_25C_REFUSED } from './pg-corpus-review-25c.js';
import { REVIEW_13, REVIEW_13_DOCUMENTED } from './pg-corpus-review-13.js';
import { REVIEW_14 } from './pg-corpus-review-14.js';
import { REVIEW_9, REVIEW_9_FLOAT_AGGREGATES } from './pg-corpus-review-9.js';
import { REVIEW_10, REVIEW_10_DOCUMENTED } from './pg-corpus-review-10.js';

const FROM = 'from sales.orders join sales.customers using (customer_id)';
const INTS = ['qty', 'customer_id', 'order_id'];
const TEXTS = ['name', 'status', 'email', 'country'];

const INT_EXPRS = [
  '{c} + 1',
  '{c} - 3',
  '{c} * 2',
  '{c} / 2',
  '{c} % 3',
  '-{c}',
  'abs({c} - 5)',
  '{c} / 0',
  '{c} % 0',
  '{c}::text',
  '{c}::numeric',
  '{c}::float8 / 3',
  '{c}::int2',
  'greatest({c}, 3)',
  'least({c}, 3)',
  '{c} between 2 and 4',
  '{c} in (1, 2, 3)',
  'nullif({c}, 2)',
  'coalesce(nullif({c}, 2), 0)',
  "case when {c} > 2 then 'big' else 'small' end",
  '{c} & 3',
  '{c} | 4',
  '{c} # 5',
  '{c} << 1',
  '{c} >> 1',
  '~{c}',
  'sqrt({c})',
  'power({c}, 2)',
  '{c} ^ 2',
  'mod({c}, 4)',
  'div({c}, 4)',
  'sign({c} - 3)',
  'ceil({c} / 3.0)',
  'floor({c} / 3.0)',
  'round({c} / 3.0, 2)',
  'trunc({c} / 3.0, 1)',
  'width_bucket({c}, 0, 10, 5)',
  '{c}::bigint * 1000000000',
  'gcd({c}, 6)',
  'lcm({c}, 4)',
  'exp({c} / 10.0)',
  'ln({c} + 1)',
  'log({c} + 1)',
  'log10({c} + 1)',
  'cbrt({c})',
  '{c} / 7.0',
  '{c}::numeric / 7',
  'pg_typeof({c})',
  "format('%s-%s', {c}, {c} * 2)",
  '({c}, {c} + 1)',
  'row({c}, null)',
  '{c}::float4',
  '{c}::numeric(6,2)',
  '{c}::text::int8',
  '{c} = any(array[1, 2])',
];
const NUM_EXPRS = [
  '{c} + 1',
  '{c} * 2',
  '{c} / 3',
  '{c} / 0',
  'round({c})',
  'round({c}, 1)',
  'trunc({c})',
  'ceil({c})',
  'floor({c})',
  '{c}::int4',
  '{c}::text',
  '{c}::float8',
  'abs(-{c})',
  '{c}::numeric(10,1)',
  '{c} % 7',
  'sign({c})',
  'scale({c})',
  '{c} > 50',
  "to_char({c}, '999.99')",
  'pg_typeof({c})',
  '{c} * 1.5',
  '{c} - 0.005',
  '{c}::numeric',
  'sum({c}) over (order by order_id)',
  '{c} * {c}',
  'sqrt({c})',
];
const TEXT_EXPRS = [
  'upper({c})',
  'lower({c})',
  'length({c})',
  'char_length({c})',
  'octet_length({c})',
  "{c} || '!'",
  'concat({c}, 1, null)',
  "concat_ws('-', {c}, 'x')",
  'substr({c}, 2, 3)',
  'substring({c} from 2 for 3)',
  'left({c}, 2)',
  'right({c}, 2)',
  "lpad({c}, 12, '*')",
  "rpad({c}, 12, '*')",
  'trim({c})',
  "ltrim({c}, 'C')",
  "rtrim({c}, 'r')",
  "btrim({c}, 'C')",
  "replace({c}, 'a', 'A')",
  'reverse({c})',
  'repeat({c}, 2)',
  "position('a' in {c})",
  "strpos({c}, 'e')",
  "split_part({c}, ' ', 2)",
  'initcap({c})',
  'md5({c})',
  'ascii({c})',
  "{c} like 'C%'",
  "{c} ilike 'c%'",
  "{c} ~ '^C'",
  "{c} ~* 'o'",
  "{c} !~ 'x'",
  "regexp_replace({c}, '[aeiou]', '_')",
  "regexp_replace({c}, '[aeiou]', '_', 'g')",
  "translate({c}, 'aeiou', 'AEIOU')",
  "format('[%s]', {c})",
  'quote_literal({c})',
  'quote_ident({c})',
  "string_to_array({c}, ' ')",
  "starts_with({c}, 'C')",
  '{c}::char(4)',
  '{c}::varchar(3)',
  "{c} = 'paid'",
  "{c} < 'M'",
  '{c} is null',
  "coalesce({c}, '?')",
  "{c} similar to 'C%'",
  "regexp_matches({c}, 'a')",
  "array_to_string(string_to_array({c}, ' '), '+')",
  // (a NULL is 22004 in PostgreSQL, raised or not by DuckDB depending on whether its plan formats the
  // rows a LIMIT drops: the identifier form is compared over values, NULL in its own statement)
  "format('%I', coalesce({c}, 'none'))",
  "format('%L', {c})",
  "{c} not like '%e%'",
  'pg_typeof({c})',
  '{c} || 1',
  'upper({c}) collate "C"',
];
const DATE_EXPRS = [
  '{c} + 1',
  '{c} - 1',
  "{c} + interval '1 month'",
  "{c} - date '2023-01-01'",
  'extract(year from {c})',
  'extract(month from {c})',
  'extract(dow from {c})',
  'extract(doy from {c})',
  'extract(epoch from {c})',
  "date_part('day', {c})",
  "date_trunc('month', {c})",
  "date_trunc('year', {c})",
  "to_char({c}, 'YYYY-MM')",
  '{c}::timestamp',
  '{c}::text',
  "{c} > date '2023-06-01'",
  "age(date '2025-01-01', {c})",
  'make_date(2020, 1, 1) - {c}',
  '{c} + 7',
  "to_char({c}, 'FMDD/FMMM/YYYY Dy')",
  'pg_typeof({c})',
  "{c} between date '2023-01-01' and date '2023-12-31'",
];
const TS_EXPRS = [
  "date_trunc('hour', {c})",
  "date_trunc('day', {c})",
  "date_trunc('week', {c})",
  "date_trunc('quarter', {c})",
  'extract(hour from {c})',
  'extract(minute from {c})',
  'extract(epoch from {c})',
  '{c}::date',
  '{c}::time',
  '{c}::text',
  "{c} + interval '90 minutes'",
  "{c} - interval '1 day 2 hours'",
  "{c} - timestamp '2024-01-01'",
  "to_char({c}, 'YYYY-MM-DD HH24:MI')",
  "to_char({c}, 'Day DD Month')",
  "to_char({c}, 'yyyy-mm-dd hh24:mi:ss')",
  "to_char({c}, 'fmdd fmMonth yyyy, q')",
  'to_char({c}, \'YY-MM "h" dd\')',
  "date_bin(interval '1 hour', {c}, timestamp '2000-01-01')",
  "{c} at time zone 'UTC'",
  "{c} at time zone 'America/New_York'",
  "age({c}, timestamp '2024-01-01')",
  "justify_hours({c} - timestamp '2024-01-01')",
  '{c}::timestamptz',
  "date_part('isodow', {c})",
  'extract(week from {c})',
  "to_char({c}, 'HH12:MI AM')",
  "{c} > timestamp '2024-02-01'",
  'pg_typeof({c})',
  'extract(quarter from {c})',
];
const BOOL_EXPRS = [
  'not {c}',
  '{c} and true',
  '{c} or null',
  '{c}::int',
  '{c}::text',
  '{c} is true',
  '{c} is distinct from false',
  'case when {c} then 1 end',
];
const AGGS = [
  'count({c})',
  'count(distinct {c})',
  'min({c})',
  'max({c})',
  'sum({c})',
  'avg({c})',
  'stddev({c})',
  'variance({c})',
  "string_agg({c}::text, ',' order by {c}::text)",
  'array_agg({c} order by {c})',
  'json_agg({c} order by {c})',
  'bool_and({c} is not null)',
  'percentile_cont(0.5) within group (order by {c})',
  'mode() within group (order by {c})',
  'count(*) filter (where {c} is null)',
];
const WINDOWS = [
  'row_number() over (order by {c}, order_id)',
  'rank() over (order by {c})',
  'dense_rank() over (order by {c})',
  'lag({c}) over (order by order_id)',
  'lead({c}, 2) over (order by order_id)',
  'first_value({c}) over (partition by status order by order_id)',
  'ntile(3) over (order by order_id)',
  'cume_dist() over (order by {c})',
  'percent_rank() over (order by {c})',
  'count({c}) over (order by order_id rows between 1 preceding and 1 following)',
  'last_value({c}) over (order by order_id rows between unbounded preceding and unbounded following)',
];
const ALL_COLUMNS = [
  'order_id',
  'customer_id',
  'amount',
  'qty',
  'ordered_at',
  'status',
  'name',
  'email',
  'country',
  'signup',
  'vip',
];
const AGG_COLUMNS = ['qty', 'amount', 'customer_id', 'ordered_at', 'name', 'status', 'signup'];

const FIXED = [
  'select generate_series(1, 5)',
  'select generate_series(1, 10, 3), 1 as x',
  "select generate_series(date '2024-01-01', date '2024-01-05', interval '1 day')",
  "select d::date from generate_series(timestamp '2024-01-01', timestamp '2024-01-07', interval '2 days') d",
  'select a from generate_series(1, 3) a',
  'select * from generate_series(1, 4)',
  'select n, n * 2 from generate_series(1, 4) as t(n)',
  'select unnest(array[1, 2, 3])',
  "select * from unnest(array['a', 'b']) with ordinality",
  'select status, count(*) from sales.orders group by rollup (status) order by 1',
  'select status, qty, count(*) from sales.orders group by grouping sets ((status), (qty), ()) order by 1, 2',
  'select status, qty > 2, count(*) from sales.orders group by cube (status, qty > 2) order by 1, 2',
  'select status, grouping(status), count(*) from sales.orders group by rollup (status) order by 1',
  'select 1 union select 2 order by 1',
  'select 1 union all select 1',
  'select 2 except select 1',
  'select 1 intersect select 1',
  "select interval '1 day' + interval '25 hours'",
  "select interval '1 month' * 3",
  "select interval '90 minutes'",
  "select interval '1 year 2 months 3 days 04:05:06'",
  "select date '2024-02-29' + interval '1 year'",
  "select timestamp '2024-03-10 01:30' + interval '1 hour'",
  "select timestamptz '2024-06-01 12:00+02'",
  "select timestamptz '2024-06-01 12:00+02' at time zone 'Asia/Tokyo'",
  "select '2024-01-01'::date - '2023-01-01'::date",
  "select extract(epoch from interval '1 day 1 hour')",
  "select justify_days(interval '35 days')",
  "select justify_interval(interval '1 mon -1 hour')",
  'select 7 / 2, -7 / 2, 7 % -3, 7.0 / 2, 2 ^ 10, 10 / 3.0',
  'select 1 / 0',
  'select 1.5 / 0',
  'select 1::float8 / 0',
  'select 5 % 0',
  'select 1234567890123456789012345678901234567::numeric',
  'select 0.1 + 0.2',
  'select 0.1::float8 + 0.2',
  'select 1e300 * 10',
  'select 123.456::numeric(5,1)',
  'select 99.995::numeric(4,2)',
  "select '1.50'::numeric * 2",
  'select 10::numeric / 4',
  'select round(2.5), round(-2.5), round(2.5::float8)',
  "select 'abc'::char(2), 'a'::char(3) || 'b', 'abcd'::varchar(2)",
  "select 'x'::text || null",
  "select concat('a', null, 'b')",
  "select row(1, 'a', null)",
  'select (1, 2) = (1, 2)',
  "select (1, 'x') < (2, 'a')",
  "select row(1, 2.5, 'a b', date '2024-01-01')",
  "select format('%s, %s and %s', 'a', 'b', 'c')",
  "select format('%2$s %1$s', 'world', 'hello')",
  "select format('%%')",
  "select json_build_object('a', 1, 'b', 'x')",
  "select to_json('x'::text)",
  'select to_json(array[1, 2])',
  "select '{\"a\": 1}'::json -> 'a'",
  'select \'{"a": {"b": 2}}\'::json #>> \'{a,b}\'',
  'select json_agg(x) from generate_series(1, 3) x',
  "select json_array_length('[1, 2, 3]')",
  'select array[1, 2] || 3',
  'select array[1, 2] || array[3]',
  'select array_length(array[1, 2, 3], 1)',
  'select cardinality(array[1, 2])',
  'select array[1, 2, 3] @> array[2]',
  "select array_to_string(array['a', null, 'c'], ',')",
  "select array_to_string(array['a', null, 'c'], ',', '*')",
  "select string_to_array('a,b,,c', ',')",
  "select array_position(array['a', 'b'], 'b')",
  'select array_remove(array[1, 2, 1], 1)',
  'select array_cat(array[1], array[2])',
  'select (array[10, 20, 30])[2]',
  'select (array[10, 20, 30])[2:3]',
  "select encode('abc'::bytea, 'hex')",
  "select decode('616263', 'hex')",
  "select md5('abc')",
  "select 'abc'::bytea",
  "select to_char(timestamp '2024-03-05 14:07:09', 'YYYY-MM-DD HH24:MI:SS.MS')",
  "select to_char(date '2024-03-05', 'Month DD, YYYY')",
  "select to_date('2024-03-05', 'YYYY-MM-DD')",
  "select to_timestamp('05/03/2024 14:07', 'DD/MM/YYYY HH24:MI')",
  "select to_number('1,234.50', '9G999D99')",
  'select to_timestamp(0)',
  "select age(timestamp '2024-03-01', timestamp '2024-01-01')",
  "select date_trunc('month', date '2024-03-15')",
  "select date_trunc('day', timestamptz '2024-03-15 10:00+00')",
  "select pg_typeof(1), pg_typeof(1.5), pg_typeof('a'::text), pg_typeof(now())",
  'select pg_size_pretty(12345678::bigint)',
  "select initcap('o''brien mc-donald')",
  'select width_bucket(15, 0, 100, 10)',
  "select split_part('a.b.c', '.', -1)",
  "select left('abc', -1), right('abc', -1)",
  "select repeat('ab', 0)",
  "select lpad('abc', 2)",
  "select 'A' < 'a', 'a' < 'B'",
  "select upper('ß'), lower('Ä')",
  "select length('Zoë'), octet_length('Zoë')",
  "select chr(9731), ascii('☃')",
  "select 'x' || 1 || true",
  "select true::text, false::int, 't'::boolean, 'yes'::boolean",
  'select 1::boolean, 0::boolean',
  'select null::int is null, null = null, null is distinct from null',
  'select coalesce(null, null, 3)',
  'select greatest(1, null, 3), least(null, 2)',
  'select nullif(1, 1), nullif(1, 2)',
  "select case 1 when 1 then 'one' end",
  "select 'abc' ~ 'b', 'abc' ~ '^b'",
  "select regexp_replace('aaa', 'a', 'b')",
  "select regexp_replace('aaa', 'a', 'b', 'g')",
  "select regexp_replace('Hello', 'L', 'x', 'gi')",
  "select regexp_matches('abc123', '[0-9]+')",
  "select substring('hello' from 'l+')",
  "select 'abc' similar to 'a%'",
  'select gen_random_uuid() is not null',
  'select now() is not null, current_date is not null',
  'select 5::int2 * 10000',
  'select 2147483647::int4 + 1',
  'select 9223372036854775807::int8 + 1',
  'select (-2147483648)::int4 / -1',
  'select 32767::int2 + 1::int2',
  "select 'NaN'::float8, 'Infinity'::float8, '-Infinity'::float8",
  "select 'NaN'::numeric",
  'select 1.0e-5::float8, 1.0e16::float8, 123456789.123::float4',
  'select 0.1::float4',
  'select 100000000000000000000::float8',
  'select 3.14159265358979::float8',
  'select -0.0::float8',
  'select count(*) from sales.orders tablesample bernoulli (100)',
  'select count(*) from sales.orders tablesample system (0)',
  'select exists (select 1 from sales.orders where qty > 3)',
  'select (select max(qty) from sales.orders)',
  'select c.name, (select count(*) from sales.orders o where o.customer_id = c.customer_id) from sales.customers c order by c.customer_id',
  'select c.customer_id, o.order_id from sales.customers c left join sales.orders o on o.customer_id = c.customer_id and exists (select 1 from sales.orders x where x.order_id = o.order_id and x.qty > 3) order by 1, 2 nulls first',
  'select count(*) from sales.customers c where not exists (select 1 from sales.orders o where o.customer_id = c.customer_id)',
  'select status, count(*) filter (where qty > 2), avg(qty)::numeric(6,3) from sales.orders group by status order by status',
  'select distinct on (status) status, order_id from sales.orders order by status, order_id desc',
  "select * from (values (1, 'a'), (2, null)) as v(n, s) order by n",
  'select 1 as a, 2 as a',
  'select 1 limit 0',
  'select 1 offset 1',
  'select order_id from sales.orders order by order_id fetch first 3 rows only',
  'select qty from sales.orders order by qty desc, order_id limit 3 offset 2',
  'with t as (select qty from sales.orders) select max(qty) from t',
  'with recursive r(n) as (select 1 union all select n + 1 from r where n < 5) select sum(n) from r',
  "select current_setting('TimeZone')",
  "select 'a' = 'a '::char(2)",
  "select 'a '::varchar = 'a'",
  "select length('a '::char(3))",
];

/** Statements the gateway once refused and now answers: a refusal of one is a failure, not a third state. */
export const MUST_ANSWER: ReadonlySet<string> = new Set([
  ...REVIEW_17_ANSWERED,
  ...REVIEW_18_ANSWERED,
  ...REVIEW_19,
  ...REVIEW_20,
  ...REVIEW_21,
  ...REVIEW_22,
  ...REVIEW_23,
  ...REVIEW_24,
  ...REVIEW_25A,
  ...REVIEW_25B,
  ...REVIEW_49,
  ...REVIEW_25D,
  ...REVIEW_25C,
  ...REVIEW_50,
  ...REVIEW_51,
  ...REVIEW_52_LEAD,
  ...REVIEW_52I,
  ...REVIEW_52,
  ...REVIEW_53,
  ...REVIEW_55_LEAD,
  ...REVIEW_55N,
  ...REVIEW_54,
  ...REVIEW_55,
  ...REVIEW_56,
  ...LEAD_57,
  ...REVIEW_57,
  ...REVIEW_58,
  ...REVIEW_58T,
]);

/**
 * Answers that once failed outright (issue 25, session 34): the same as PostgreSQL or refused with a
 * hint, never excused by a documented difference (the broad `avg`/`sum` row would hide an error).
 */
export const NEVER_EXCUSED: readonly string[] = [
  // a caller's table alias or column named like a macro's lambda (v, w, x, sx, y) answered 42803
  'select round(avg(x), 4) from (values (1),(2)) v(x)',
  'select round(avg(x), 4) from (select 1 as x) v',
  'select round(avg(qty), 4), sum(qty) / count(*), round(sum(amount) / count(*), 4) from sales.orders v',
  'select round(avg(sx), 2), round(avg(y), 3) from (values (1, 2::bigint), (4, 7)) w(sx, y)',
  'select z.x, round(avg(z.x), 4) from (values (1),(2),(2)) z(x) group by z.x order by 1',
  // the same for interval / number's lambdas: `w.rm` bound to the caller's w(rm) and answered -209 days
  "select a / 2, a / 7 from (values (interval '1 mon 3 days', 7, 9)) w(a, rm, f)",
  "select a / 2, a / 7 from (values (interval '1 mon 3 days', 7, 9)) v(a, m, f)",
  // pg_catalog-qualified calls (pg_dump, Metabase, sqlsmith): the typed rewrite answered 42703 on pg_catalog.sum
  'SELECT pg_catalog.sum(x0) FROM (VALUES (1::bigint),(2)) v(x0)',
  'select pg_catalog.sum(qty), round(pg_catalog.avg(qty), 4), round(pg_catalog.avg(amount), 4), pg_catalog.sum(order_id) from sales.orders',
  'select pg_catalog.round(2.5::float8), pg_catalog.round(2.5), pg_catalog.round(qty::float8 / 2) from sales.orders order by order_id limit 3',
  "select pg_catalog.date_trunc('month', ordered_at::date), pg_catalog.octet_length(status), pg_catalog.btrim(' a ') from sales.orders order by order_id limit 2",
  "select * from pg_catalog.generate_series(date '2024-01-01', date '2024-01-03', interval '1 day')",
  "select pg_catalog.format('%s-%s', 1, 2), pg_catalog.encode('ab'::bytea, 'hex'), pg_catalog.initcap('ab cd')",
  // numerics shown at a scale per value (session 36): the broad avg/stddev row must not hide them
  ...REVIEW_4,
  ...REVIEW_5,
  // session 37: subscripts, DST, PostgreSQL's text of arrays, records and booleans, LIKE operators, errors
  ...REVIEW_6,
  // session 37: row NULL tests, outer joins' NULL rows, row comparisons, records in arrays
  ...REVIEW_ROWS,
  // session 37: numeric constants in exponent form, sha2 of bytea, regex escapes, settings, errors
  ...REVIEW_FUNCS,
  // session 38: a value's text (arrays, records, booleans, intervals, floats) in ::text, concat, format, ||
  ...REVIEW_7,
  // session 38: DISTINCT aggregates' order, extract(epoch) of aggregates, to_hex, json_agg's values, FROM functions, SQLSTATEs
  ...REVIEW_8,
  // session 39 (lead): aggregates and LATERAL columns in generate_series and date_trunc
  ...REVIEW_11,
  // session 40: untyped literals beside arithmetic operators (psqlODBC's inlined Decimal parameters)
  ...REVIEW_15,
  ...REVIEW_16,
  // session 41: a float cast to numeric without a typmod, at each value's own scale
  ...REVIEW_17,
  // session 42: multidimensional array_length, avg in JSON, to_timestamp's trailing input, timestamp ± time, …
  ...REVIEW_18,
  // session 42: function-style casts, date(x)'s name, date/time literals with a zone (pgjdbc simple mode)
  ...REVIEW_19,
  // session 43: avg(interval), json_agg(DISTINCT … ORDER BY), EXISTS (SELECT FROM), zone abbreviations, to_char's ISO fields, numeric math refused
  ...REVIEW_20,
  ...REVIEW_20_REFUSED,
  // session 44: scalar subqueries of several rows (21000), PostgreSQL's SQLSTATEs for the same errors
  ...REVIEW_21,
  ...REVIEW_21_REFUSED,
  // session 45: BI tools' SQL (time buckets, ordered-set aggregates, grouping sets, window frames), f(x) OVER () of a plain function (42809)
  ...REVIEW_22,
  ...REVIEW_22_REFUSED,
  // session 46: PostgreSQL's SQLSTATEs for the same failures, regular-expression ANY/ALL, string_to_table, -2147483648
  ...REVIEW_23,
  ...REVIEW_23_REFUSED,
  ...REVIEW_24,
  ...REVIEW_24_REFUSED,
  // session 48: float4 beside other numbers, char(n) padding, errors where DuckDB answered, SQLSTATEs, to_char
  ...REVIEW_25A,
  ...REVIEW_25A_REFUSED,
  // session 48 (part B): avg arithmetic's scale, set operations' types, pg_typeof of literals, bit strings, to_date, JSON
  ...REVIEW_25B,
  ...REVIEW_25B_REFUSED,
  // session 49 (lead): number-like literals compared with integers
  ...REVIEW_49,
  // session 50: round of parameters and integers, int2 beside int4 constants, text = number, twice-named columns, SQLSTATEs
  ...REVIEW_50,
  ...REVIEW_50_REFUSED,
  // session 51: numeric arithmetic past 18 digits, char(n) through grouping, SQLSTATEs and PostgreSQL's words
  ...REVIEW_51,
  ...REVIEW_51_REFUSED,
  // session 52 (lead): justify_hours, justify_days, justify_interval
  ...REVIEW_52_LEAD,
  // session 52 (s52-interval): intervals equal by value but spelled in other fields, small types, lenient errors
  ...REVIEW_52I,
  // session 52: errors where PostgreSQL answers (jsonb containment, regex functions, JSON paths, clocks, time input)
  ...REVIEW_52,
  ...REVIEW_52_REFUSED,
  // session 53: to_char of numbers with PostgreSQL's numeric format patterns (a table of values × pictures)
  ...REVIEW_53,
  ...REVIEW_53_REFUSED,
  // session 55 (lead): unquoted aliases folded to lower case
  ...REVIEW_55_LEAD,
  // session 55 (s55-numbers): to_number with PostgreSQL's numeric pictures (a table of texts × pictures)
  ...REVIEW_55N,
  ...REVIEW_55N_REFUSED,
  // session 54: float8/float4 overflow and underflow 22003 (DuckDB: Infinity or 0), …
  ...REVIEW_54,
  // session 55: an alias inside an ORDER BY/GROUP BY expression (42703), …
  ...REVIEW_55,
  // session 56: silent differences the session-55 review left (date_part/extract of ±infinity, …)
  ...REVIEW_56,
  ...REVIEW_56_REFUSED,
  // session 57 (lead): a NULL of numeric inside arithmetic (integer division, pg_typeof "null")
  ...LEAD_57,
  // session 57: char without a length, ±infinity timestamptz as text, reg* values by name in || and JSON
  ...REVIEW_57,
  // session 58: text constants and text values read as timestamps and numerics (22007, 0A000); an internal macro's 42725 refused
  ...REVIEW_58,
  ...REVIEW_58_REFUSED,
  // session 58: varchar, oid and name result types
  ...REVIEW_58T,
  // session 49 (part D): json/jsonb arrows' member text, negative LIMIT/OFFSET, generate_subscripts, float constants, DISTINCT's ORDER BY, float %, date_bin of aggregates, DateStyle dates
  ...REVIEW_25D,
  ...REVIEW_25D_REFUSED,
  // session 49: the column names of FROM subqueries, LATERAL subqueries and CTEs (count, ?column?, column1; a name given twice)
  ...REVIEW_25C,
  ...REVIEW_25C_REFUSED,
  // session 40: the C locale reported everywhere, round(float, n) 42883, numeric scales in arrays, subscripts, …
  ...REVIEW_13,
  // session 39: numeric scale of the value chosen, lag/lead defaults, sub-microsecond input, bpchar comparisons
  ...REVIEW_9,
  // session 39: numeric without a typmod beside fractions, ANY/ALL over NULL elements, float to numeric(p,s), …
  ...REVIEW_10,
  // session 40: to_char's TM, aggregates in json_build_object, interval signs, ORM functions
  ...REVIEW_14,
];

/** Silent differences a new user found (issue 25 review): each must now be PostgreSQL's answer or refused. */
const REVIEWED = [
  // S2: a value cast to numeric keeps its scale (integers scale 0)
  'select order_id, amount::numeric, (qty * 2)::numeric, (order_id / 3)::numeric, qty::numeric + 0.5 from sales.orders order by order_id limit 5',
  'select order_id, (amount / 3)::numeric from sales.orders order by order_id limit 3',
  // a refused cast inside a function or an aggregate stays refused (it answered a NULL per row, the aggregate dropped)
  'select round(avg(amount)::numeric, 2) from sales.orders',
  'select count(*) from sales.orders where round(amount::numeric, 0) > 100',
  'select status, round(sum(amount)::numeric, 2) from sales.orders group by status order by 1',
  'select round(1.5::float8::numeric)',
  // S3: sum's result types; integer division of an int8 sum by a count is numeric division
  'select sum(order_id) / count(*), sum(qty) / count(*), sum(customer_id) / count(*) from sales.orders',
  'select sum(qty), sum(customer_id), sum(order_id), sum(amount), sum(qty::float4), sum(qty::float8) from sales.orders',
  'select status, sum(order_id) / count(*) as mean_id, sum(qty) from sales.orders group by status order by status',
  'select order_id, sum(qty) over (order by order_id), sum(order_id) over (partition by status order by order_id) from sales.orders order by order_id limit 6',
  // S4: numeric division and avg are numeric (values exact; see the scale note in docs/compatibility.md)
  "select 1::numeric / 3, 7.0 / 2, 10::numeric / 4, 10 / 3.0, 1.5 / 0.7, 100000::numeric / 3, 0.05 / 7, 2 / 3.0, '2.50'::numeric / 2",
  'select avg(qty), avg(amount), avg(order_id), avg(customer_id), avg(qty::float8) from sales.orders',
  'select status, avg(qty), sum(amount) / sum(qty), round(avg(amount), 2) from sales.orders group by status order by status',
  'select round(avg(qty), 2), round(avg(amount)::numeric, 1), avg(qty)::numeric(10,3), round(sum(amount) / count(*), 3) from sales.orders',
  'select avg(amount) filter (where qty > 2), avg(distinct qty), round(avg(distinct amount), 4) from sales.orders',
  // S5: round(float8) half to even, round(numeric) half away from zero
  'select round(2.5::float8), round(-2.5::float8), round(3.5::float8), round(0.5::float8), round(2.5), round(-2.5), round(0.5)',
  'select order_id, round(qty / 2.0), round(qty::float8 / 2), round(amount) from sales.orders order by order_id limit 8',
  // S6: PostgreSQL's input functions and error codes
  "select '1.5'::int",
  "select ' 12 '::int, '+3'::int2, '-9223372036854775808'::int8",
  "select '99999'::int2",
  "select 'x1'::bigint",
  'select 2147483648::bigint::int',
  'select 70000::int2',
  "select '2024-02-30'::date",
  "select 'abc'::date",
  "select '2024-13-01'::date",
  "select cast('12' as integer) + 1",
  "select integer '42'",
  // S8: result types
  "select 'a' || null, null || 'b', 'a' || null::text",
  "select date '2024-03-01' - date '2024-01-01', current_date - current_date",
  "select order_id, signup - date '2023-01-01', ordered_at::date - signup from sales.orders join sales.customers using (customer_id) order by order_id limit 4",
  // errors where PostgreSQL answers
  'select extract(year from ordered_at), sum(amount) / count(*) from sales.orders group by 1 order by 1',
  'select extract(month from signup) / 2.0 from sales.customers order by customer_id limit 3',
  "select timestamptz '2024-01-01 12:00+00'",
  "select timestamptz '2024-06-01 12:00:30-03', '2024-06-01 08:00+0530'::timestamptz",
  "select '2024-01-01 12:00 UTC'::timestamptz, timestamp with time zone '2024-01-01 00:00+01'",
  'select \'{"a": {"b": [1,2]}}\'::json #>> \'{a,b}\'',
  'select \'{"a": {"b": [1,2]}}\'::json #> \'{a,b}\'',
  'select \'{"a": {"b": [1,2]}}\'::jsonb #>> \'{a,b,1}\'',
  "select '{\"a\": [1,2,3]}'::json #>> '{a,-1}'",
  "select '{\"a\": 1}'::json #>> '{x}'",
  "select name from sales.customers where name ilike any(array['a%', '%e%']) order by 1",
  "select name from sales.customers where name like any(array['Customer 1%', 'O%']) order by 1",
  "select name from sales.customers where name not ilike all(array['%1%', '%2%']) order by 1",
  'select order_id from sales.orders order by qty using <, order_id using > limit 5',
  'select order_id, qty from sales.orders order by qty using >, order_id limit 5',
  "select 'on'::boolean, 'yes'::boolean, 't'::boolean, 'OFF'::boolean, ' n '::boolean, 'TRUE'::bool, '1'::boolean",
  "select 'o'::boolean",
  "select 'maybe'::boolean",
];

/** SQL as BI tools generate it (Metabase, Superset, Tableau): date truncation, bins, frames, grouping sets, intervals, zones. */
const O = '"sales"."orders"';
const BI = [
  `SELECT date_trunc('month', ${O}."ordered_at") AS "ordered_at", count(*) AS "count" FROM ${O} GROUP BY date_trunc('month', ${O}."ordered_at") ORDER BY date_trunc('month', ${O}."ordered_at") ASC`,
  `SELECT (date_trunc('week', (${O}."ordered_at" + INTERVAL '1 day')) + INTERVAL '-1 day') AS "ordered_at", sum(${O}."amount") AS "sum" FROM ${O} GROUP BY 1 ORDER BY 1 ASC`,
  `SELECT CAST(extract(dow from ${O}."ordered_at") AS integer) + 1 AS "dow", count(*) AS "count" FROM ${O} GROUP BY 1 ORDER BY 1`,
  `SELECT CAST(extract(hour from ${O}."ordered_at") AS integer) AS "h", avg(${O}."qty") AS "avg" FROM ${O} GROUP BY 1 ORDER BY 1`,
  `SELECT ${O}."status" AS "status", sum(${O}."amount") AS "sum" FROM ${O} GROUP BY ${O}."status" ORDER BY "sum" DESC, "status" ASC LIMIT 10`,
  `SELECT ((floor(((${O}."amount" - 0.0) / 50.0)) * 50.0) + 0.0) AS "amount", count(*) AS "count" FROM ${O} GROUP BY 1 ORDER BY 1 ASC`,
  `SELECT CAST(${O}."ordered_at" AS date) AS "d", count(distinct ${O}."customer_id") AS "count" FROM ${O} GROUP BY 1 ORDER BY 1 LIMIT 5`,
  `SELECT CAST(date_trunc('quarter', ${O}."ordered_at") AS date) AS "q", sum(${O}."qty") AS "sum", avg(${O}."amount") AS "avg" FROM ${O} GROUP BY 1 ORDER BY 1`,
  `SELECT count(*) AS "count" FROM ${O} WHERE (${O}."ordered_at" >= timestamp '2024-01-05' AND ${O}."ordered_at" < timestamp '2024-01-05' + INTERVAL '7 day')`,
  `SELECT ${O}."status" AS "status", count(*) AS "count", (CAST(count(*) AS float) / CAST(sum(count(*)) OVER () AS float)) AS "share" FROM ${O} GROUP BY 1 ORDER BY 1`,
  `SELECT DATE_TRUNC('day', ordered_at) AS __timestamp, COUNT(*) AS count FROM sales.orders GROUP BY DATE_TRUNC('day', ordered_at) ORDER BY count DESC, __timestamp LIMIT 5`,
  `SELECT status AS status, SUM(amount) AS "SUM(amount)" FROM sales.orders GROUP BY status ORDER BY "SUM(amount)" DESC LIMIT 10000`,
  `SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY qty) AS p90, percentile_disc(0.5) WITHIN GROUP (ORDER BY amount) AS p50 FROM sales.orders`,
  `SELECT CAST(EXTRACT(YEAR FROM "orders"."ordered_at") AS BIGINT) AS "yr:ordered_at:ok", SUM(CAST(1 AS BIGINT)) AS "sum:Number of Records:ok" FROM "sales"."orders" "orders" GROUP BY 1`,
  `SELECT SUM("orders"."amount") AS "sum:amount:ok", ("orders"."qty" IS NULL) AS "io:qty null" FROM "sales"."orders" "orders" GROUP BY 2`,
  `SELECT CAST(TRUNC(EXTRACT(MONTH FROM "orders"."ordered_at")) AS INTEGER) AS "mn:ordered_at:ok", AVG(CAST("orders"."qty" AS DOUBLE PRECISION)) AS "avg:qty:ok" FROM "sales"."orders" "orders" GROUP BY 1`,
  `SELECT CAST(DATE_TRUNC('QUARTER', CAST("orders"."ordered_at" AS DATE)) AS DATE) AS "tqr:ordered_at:ok", SUM((CASE WHEN "orders"."qty" > 2 THEN 1 ELSE 0 END)) AS "sum:big:ok" FROM "sales"."orders" "orders" GROUP BY 1`,
  'select order_id, sum(amount) over (order by ordered_at rows between 2 preceding and current row) from sales.orders order by order_id limit 8',
  'select order_id, avg(qty) over (partition by status order by order_id rows between unbounded preceding and current row) from sales.orders order by order_id limit 8',
  "select order_id, count(*) over (order by ordered_at range between interval '1 day' preceding and current row) from sales.orders order by order_id limit 8",
  'select order_id, sum(qty) over (order by order_id groups between 1 preceding and 1 following) from sales.orders order by order_id limit 8',
  'select order_id, first_value(amount) over w, last_value(amount) over w from sales.orders window w as (partition by status order by order_id rows between unbounded preceding and unbounded following) order by order_id limit 8',
  'select status, qty, sum(amount), count(*) from sales.orders group by grouping sets ((status, qty), (status), ()) order by 1, 2 limit 12',
  "select status, date_trunc('month', ordered_at), sum(qty) from sales.orders group by rollup (status, date_trunc('month', ordered_at)) order by 1, 2",
  'select status, country, count(*) from sales.orders join sales.customers using (customer_id) group by cube (status, country) order by 1, 2, 3 limit 15',
  "select order_id, ordered_at - interval '1 week', ordered_at + interval '1 month 2 days', ordered_at - interval '36 hours' from sales.orders order by order_id limit 4",
  "select order_id, extract(epoch from ordered_at - timestamp '2024-01-01'), ordered_at - timestamp '2024-01-01' from sales.orders order by order_id limit 4",
  "select interval '1 day' * 1.5, interval '1 hour' / 4, interval '2 months' - interval '1 day', -interval '3 days'",
  "select order_id, ordered_at at time zone 'UTC' at time zone 'Europe/Paris' from sales.orders order by order_id limit 3",
  "select order_id, (ordered_at::timestamptz at time zone 'America/New_York')::date from sales.orders order by order_id limit 3",
  "select timezone('Asia/Tokyo', timestamptz '2024-03-01 00:00:00+00'), timestamptz '2024-03-10 12:00:00+00' at time zone 'America/Los_Angeles'",
  "select date_trunc('week', timestamp '2024-03-06 10:00'), date_trunc('decade', timestamp '2024-05-05'), date_trunc('quarter', timestamp '2024-05-05')",
  "select date_part('epoch', timestamp '2024-01-01 00:00:01'), date_part('week', date '2024-12-30'), date_part('isoyear', date '2024-12-30')",
  "select to_char(ordered_at, 'YYYY-MM-DD'), count(*) from sales.orders group by 1 order by 2 desc, 1 limit 5",
  'select count(distinct status), count(distinct customer_id) filter (where qty > 2) from sales.orders',
  'select customer_id, sum(amount) as total from sales.orders group by customer_id having sum(amount) > 500 order by total desc limit 5',
  'select status, sum(qty) * 1.0 / count(*), sum(amount) / nullif(count(*), 0) from sales.orders group by status order by status',
  "select coalesce(status, '(none)'), count(*) from sales.orders group by 1 order by 1",
  'select order_id, amount, amount - lag(amount) over (order by order_id), round(100.0 * amount / sum(amount) over (), 2) from sales.orders order by order_id limit 5',
];

/** Result types of operators, functions and casts, one expression a statement (RowDescription OIDs against PostgreSQL 15). */
const OPERATOR_TYPES = [
  'qty + qty',
  'qty * qty',
  'qty - 1::int2',
  'qty + 1::int8',
  'qty + 1.5',
  'qty + 1.5::float8',
  'qty + 1.5::float4',
  'customer_id + order_id',
  'customer_id * 2::int8',
  'order_id / 2',
  'amount + amount',
  'amount * amount',
  'amount - 1',
  'amount + 1.5',
  'amount * 1.5::float8',
  'amount % 7',
  '-amount',
  '1::int8 + 1',
  '2.5 * 2',
  '2.5::float4 * 2',
  '10::int8 / 3',
  '2 ^ 3',
  '2.0 ^ 3',
  "ordered_at + interval '1 day'",
  "ordered_at - interval '1 hour'",
  'ordered_at::date + 1',
  'ordered_at::date - 1',
  "ordered_at::date + interval '1 day'",
  "ordered_at::date + time '10:00'",
  'ordered_at - ordered_at',
  'ordered_at::time',
  "ordered_at::time - time '01:00'",
  "interval '1 day' * 2",
  "interval '1 hour' * 1.5",
  "status || 'x'",
  "'x' || status",
  'name || email',
  "status = 'open'",
  "status < 'p'",
  'qty > 1.5',
  'amount > 10',
  'amount = 13.73',
  "ordered_at > date '2024-01-01'",
  'vip and true',
  'not vip',
  'abs(amount)',
  'abs(customer_id)',
  '-customer_id',
  'power(qty, 2)',
  'power(amount, 2)',
  'exp(qty)',
  'ln(amount)',
  'ceil(amount)',
  'floor(amount)',
  'round(amount, 1)',
  'trunc(amount)',
  'trunc(amount, 1)',
  'ceil(qty::float8)',
  'floor(qty::float8 / 3)',
  'mod(amount, 3)',
  'greatest(amount, 2)',
  'least(customer_id, order_id)',
  'coalesce(amount, 0)',
  'nullif(qty, 1)',
  'case when qty > 1 then amount else 0 end',
  'upper(status)',
  'substr(status, 2)',
  "replace(status, 'o', '0')",
  "lpad(status, 10, ' ')",
  'reverse(status)',
  'chr(65)',
  'amount::int',
  'amount::float8',
  'qty::float4',
  'qty::int8',
  'customer_id::int2',
  '1.5::int',
  "'1.5'::numeric::int",
  '2.5::int',
  '(-2.5)::int',
  '3.5::float8::int',
  '2.5::float8::int',
  'ordered_at::text',
  'amount::text',
  'vip::text',
  'make_date(2024, 1, 1)',
  'make_timestamp(2024, 1, 1, 0, 0, 0)',
  "date_trunc('day', ordered_at)",
  'to_json(qty)',
  'to_json(amount)',
  `'{"a":1}'::json -> 'a'`,
  `'{"a":1}'::json ->> 'a'`,
  "'[1,2]'::json -> 0",
  'md5(status)',
  'status::bytea',
  "split_part(status, 'p', 1)",
];

/** Every statement of the corpus, each once. */
export function corpusStatements(): string[] {
  const out: string[] = [];
  const apply = (templates: string[], cols: string[]) => {
    for (const c of cols)
      for (const t of templates)
        out.push(`select order_id, ${t.replaceAll('{c}', c)} as v ${FROM} order by order_id limit 12`);
  };
  apply(INT_EXPRS, INTS);
  apply(NUM_EXPRS, ['amount']);
  apply(TEXT_EXPRS, TEXTS);
  apply(DATE_EXPRS, ['signup', 'ordered_at::date']);
  apply(TS_EXPRS, ['ordered_at']);
  apply(BOOL_EXPRS, ['vip', '(qty > 2)', '(name is null)']);
  apply(TEXT_EXPRS, ["(status || '/' || country)"]);
  for (const c of AGG_COLUMNS) {
    for (const a of AGGS) {
      const agg = a.replaceAll('{c}', c);
      out.push(`select ${agg} ${FROM}`);
      out.push(`select status, ${agg} ${FROM} group by status order by status`);
    }
  }
  for (const c of ['qty', 'amount', 'name', 'ordered_at'])
    for (const w of WINDOWS) out.push(`select order_id, ${w.replaceAll('{c}', c)} ${FROM} order by order_id`);
  // NULL ordering: PostgreSQL puts NULLs last ascending and first descending.
  for (const c of ALL_COLUMNS) {
    for (const dir of ['', ' desc', ' nulls first', ' desc nulls last'])
      out.push(`select ${c}, order_id ${FROM} order by ${c}${dir}, order_id`);
    out.push(`select ${c} ${FROM} order by order_id`);
  }
  out.push(
    ...FIXED,
    ...REVIEWED,
    ...REVIEW_2,
    ...REVIEW_3,
    ...REVIEW_4,
    ...BI,
    ...NEVER_EXCUSED,
    ...REVIEW_6_SCALED,
    ...REVIEW_7_KEPT,
    ...REVIEW_7_CONTROLS,
    ...REVIEW_9_FLOAT_AGGREGATES.map((a) => a.sql),
    ...REVIEW_10_DOCUMENTED,
    ...REVIEW_13_DOCUMENTED,
    ...REVIEW_17_DOCUMENTED,
    ...REVIEW_18_DOCUMENTED,
    ...REVIEW_21_DOCUMENTED,
    ...REVIEW_22_DOCUMENTED,
    ...REVIEW_51_DOCUMENTED,
  );
  for (const e of OPERATOR_TYPES) out.push(`select order_id, ${e} as v ${FROM} order by order_id limit 2`);
  return [...new Set(out)];
}

export interface Answer {
  error?: { code: string; hint?: string };
  columns?: Array<[string, number]>;
  text?: Array<Array<string | null>>;
  binary?: Array<Array<string | null>>;
}

const rowsOf = (r: QueryResult, enc: BufferEncoding) =>
  r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString(enc))));

/** One statement in text and in binary on one connection (`params`: bound as untyped text, PostgreSQL infers their types). */
export async function answer(c: RawPg, sql: string, params?: string[]): Promise<Answer> {
  const t = await c.query(sql, params ? { params } : {});
  if (t.error) return { error: { code: t.error.code, ...(t.error.hint ? { hint: t.error.hint } : {}) } };
  const b = await c.query(sql, { resultFormats: [1], ...(params ? { params } : {}) });
  if (b.error) return { error: { code: b.error.code, ...(b.error.hint ? { hint: b.error.hint } : {}) } };
  return {
    columns: (t.rowDescription?.fields ?? []).map((f) => [f.name, f.dataTypeID]),
    text: rowsOf(t, 'utf8'),
    binary: rowsOf(b, 'hex'),
  };
}

export type State = 'same' | 'refused' | 'documented' | 'undocumented';

/** A documented difference: a pattern over statement texts and why (docs/compatibility.md). */
export interface Documented {
  pattern: RegExp;
  source: string;
}

/** The documented differences, read from docs/compatibility.md so the doc and the test agree. */
export function documentedDifferences(root: string): Documented[] {
  const doc = readFileSync(join(root, 'docs', 'compatibility.md'), 'utf8');
  const start = doc.indexOf('### Differential corpus: documented differences');
  if (start < 0) throw new Error('docs/compatibility.md has no "Differential corpus: documented differences" section');
  const section = doc
    .slice(start)
    .split(/\n#{2,3} /)[0]!
    .split('\n')
    .slice(1)
    .join('\n');
  const out: Documented[] = [];
  for (const line of section.split('\n')) {
    // A pattern is the first cell, in backquotes; `\|` stands for the regex alternation bar (markdown tables).
    const m = /^\|\s*`((?:[^`\\]|\\.)+)`\s*\|/.exec(line);
    if (m) out.push({ pattern: new RegExp(m[1]!.replaceAll('\\|', '|'), 'i'), source: m[1]! });
  }
  return out;
}

/** Same answer; refused with a precise SQLSTATE and a hint; or different. */
/**
 * `sql` without an ORDER BY anywhere has no row order in either server (a GROUP BY's order follows the
 * plan's hash table): its rows are compared as multisets.
 */
export function compare(pg: Answer, gw: Answer, sql?: string): 'same' | 'refused' | 'different' {
  if (JSON.stringify(pg) === JSON.stringify(gw)) return 'same';
  if (
    sql !== undefined &&
    !/\border\s+by\b/i.test(sql) &&
    JSON.stringify(unordered(pg)) === JSON.stringify(unordered(gw))
  )
    return 'same';
  if (pg.error && gw.error && pg.error.code === gw.error.code) return 'same';
  if (gw.error && ['0A000', '42883'].includes(gw.error.code) && gw.error.hint) return 'refused';
  return 'different';
}

function unordered(a: Answer): Answer {
  const sorted = (rows?: Array<Array<string | null>>) => rows?.map((r) => JSON.stringify(r)).sort();
  return { ...a, text: sorted(a.text) as never, binary: sorted(a.binary) as never };
}
