/**
 * Corpus statements from the seventh round of issue 25 (session 38): a value's text as PostgreSQL
 * writes it — arrays, records, booleans, intervals, bytea and floats inside `::text`, concat(),
 * concat_ws(), format(), array_to_string() and `||` — each seen differing on the old code and now
 * PostgreSQL's answer or a refusal with a precise SQLSTATE and a hint; never excused by a documented row.
 */
export const REVIEW_7 = [
  // arrays cast to text: PostgreSQL's array text, not DuckDB's list text ([1, 2])
  'select array[1,2]::text, cast(array[true,false] as text), array[array[1,2],array[3,4]]::text',
  `select array['a b', null, 'c"d']::text, array['NULL', '', 'a,b', E'a\\\\b']::text, '{1,2}'::int[]::text`,
  "select array[timestamp '2024-01-01 10:00']::text, array[1.0::float8, 1e20, 0.1]::text, array[null::int]::text",
  'select array_agg(qty order by order_id)::text from sales.orders where order_id < 5',
  'select status, array_agg(order_id order by order_id)::text from sales.orders where order_id < 7 group by status order by status',
  // concat, concat_ws, format: each value by its output function (a boolean is t, a float has no .0)
  "select concat(true, array['a b','c']), concat('a', 1.50, null, true), concat(1.0::float8, 0.1::float4)",
  "select concat_ws(',', true, 2, array[1,2]), concat_ws(' - ', name, country, vip) from sales.customers order by customer_id limit 3",
  'select concat(vip, qty) from sales.orders join sales.customers using (customer_id) order by order_id limit 3',
  "select format('%s %s', true, array[1,2]), format('%L', true), format('%s', row(1,'a')), format('%s', (1, null, ''))",
  "select format('%s', vip), format('%L', vip) from sales.customers order by customer_id limit 3",
  "select concat('{', array['x'], '}'), concat(array[true,false])",
  'select concat(array_agg(qty order by order_id)) from sales.orders where order_id < 5',
  "select format('%s', array_agg(status order by order_id)) from sales.orders where order_id < 4",
  "select concat(bool_and(qty > 0), '/', max(qty), '/', bool_or(qty > 8)) from sales.orders",
  // intervals and bytea: IntervalStyle postgres (mons), bytea's \x text
  "select 'a' || interval '14 months 3 days', concat(interval '14 months 3 days', 'x'), concat('\\x41'::bytea, 'x')",
  "select concat(interval '-1 day 2 hours', '|', interval '1 year -2 mons', '|', interval '-3 hours', '|', interval '0')",
  "select concat(interval '1 mon -1 day', '|', interval '-1 mon 3 days -04:00:00', '|', interval '100 hours 0.5 seconds')",
  "select (interval '1 month' * qty)::text, interval '1 month 1 day' * qty || '' from sales.orders order by order_id limit 3",
  // floats inside || and concat: float8out's digits
  "select 'n=' || qty::float8, 'f=' || (qty / 2.0)::float4, qty::float8 || '' from sales.orders order by order_id limit 3",
  // records cast to text: record_out
  "select row(1, 'a b', null)::text as r, (1,'a')::text as s, row(1, row(2, 'a b'))::text as t",
  // array_to_string: the elements' output text, a NULL element written as the third argument
  "select array_to_string(array[true,false], ','), array_to_string(array[1.0::float8, 2.5], ',')",
  // (refused 42883 on the old code: DuckDB's array_to_string has no third argument)
  "select array_to_string(array[1.0::float8, null, 2.5], ',', '*')",
  "select array_to_string(array_agg(vip order by customer_id), '') from sales.customers",
  // inside subqueries (correlated): the text by the value's type name at run time
  "select (select concat(o.qty, true, 1.0::float8, interval '14 months')) from sales.orders o order by order_id limit 2",
  "select (select concat(max(o2.amount::float8), '|', bool_or(o2.qty > o.qty)) from sales.orders o2) from sales.orders o order by order_id limit 2",
  // a value with no faithful text is refused (0A000 with a hint), not shown as DuckDB's struct or list text
  "select t::text from (select 1 as a, 'x' as b) t",
  "select concat(t) from (select 1 as a, 'x' as b) t",
  'select (select array[o.qty]::text) from sales.orders o order by order_id limit 2',
  // a quoted name keeps its case: it names only what is spelled so (DuckDB matched any case)
  'select "Order_Id" from sales.orders limit 1',
  'select o."Qty" from sales.orders o limit 1',
  'select count(*) from sales.orders group by "Status"',
  'select * from sales."Orders" limit 1',
  'select * from "Sales".orders limit 1',
  // an untyped literal beside a date/time value in a subtraction is read as that value's type (DuckDB: 42725)
  "select timestamptz '2024-01-02 00:00' - '2024-01-01', date '2024-01-02' - '2024-01-01', '2024-01-05' - date '2024-01-01'",
  "select timestamptz '2024-01-02 00:00' - '1 day'",
  "select date '2024-01-02' - '1'",
  "select ordered_at - '2024-01-01', ordered_at::date - '2024-01-01' from sales.orders order by order_id limit 2",
  "select ordered_at - '1 hour' from sales.orders order by order_id limit 2",
  "select now() - '2024-01-01' > interval '1 day', time '10:00' - '09:30'",
  // PostgreSQL's special date/time inputs (DuckDB: 22007)
  "select 'yesterday'::date < current_date, 'epoch'::date, 'infinity'::timestamp, 'today'::timestamp <= now()",
  "select date 'today' - date 'yesterday', timestamp 'tomorrow' - timestamp 'today', 'now'::timestamptz <= now()",
  "select count(*) from sales.orders where ordered_at < 'today'::date - 7",
  // bit_length is int4 (DuckDB: bigint)
  "select bit_length('abc'), bit_length(status) from sales.orders order by order_id limit 2",
  // extract's time zone fields: numeric of a timestamptz, PostgreSQL's 0A000 of a timestamp (DuckDB answered 0)
  "select extract(timezone from now()), extract(timezone_hour from timestamptz '2024-01-01 00:00+02'), extract(timezone_minute from now())",
  'select extract(timezone from ordered_at) from sales.orders limit 1',
  // to_hex: lower-case, an int4 in 32 bits (DuckDB: upper case, 64 bits); of a smallint PostgreSQL's 42725
  'select to_hex(255), to_hex(-1), to_hex(-1::int8), to_hex(2147483647), to_hex(order_id), to_hex(customer_id) from sales.orders order by order_id limit 2',
  'select to_hex(qty) from sales.orders order by order_id limit 2',
];

/** Quoted names the statement defines itself, answered alike before and after: never refused. */
export const REVIEW_7_CONTROLS = [
  'select t."X", "X" from (select 1 as "X") t',
  'with "Cte" as (select 1 as "A") select "A", "Cte"."A" from "Cte"',
  'select qty as "Qty" from sales.orders order by "Qty", order_id limit 2',
  'select "O".qty from sales.orders "O" where "O".qty > 8 order by order_id limit 2',
  'select "T"."B" from (values (1, 2)) "T"("A", "B")',
];

/** `||` inside a subquery keeps DuckDB's text of a float (documented in docs/compatibility.md). */
export const REVIEW_7_KEPT = [
  'select order_id, amount - avg(amount) over () from sales.orders order by order_id limit 2',
  'select (select o.status || 1.0::float8 || o.qty) from sales.orders o order by order_id limit 2',
];
