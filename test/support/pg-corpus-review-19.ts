/**
 * Corpus statements of session 42 (issue 24, the lead): what a client's first hour sends that DuckDB
 * reads otherwise. A type's name called as a function (`int4(x)`, `text(x)`, `"numeric"(x)`: a cast to
 * PostgreSQL, "function int4() does not exist" before), named by its function (`date(x)` is `date`, it
 * was named after its column); date/time literals with a zone that DuckDB's reader refuses (pgjdbc's
 * simple query mode inlines `setDate` as `'2024-02-10 +00'`, of no type, beside a timestamp column: 22007
 * before); a timestamp (without time zone) literal naming a zone, which PostgreSQL ignores. Each must be
 * answered as PostgreSQL answers it (never refused, never excused).
 */
export const REVIEW_19 = [
  // function-style casts, named by the function; in expressions, aggregates and WHERE
  'select int8(qty), int4(amount), int2(qty), float8(qty), float4(qty), text(qty), bool(qty > 3) from sales.orders order by order_id',
  // (varchar, bpchar and name values are sent as text, as `x::varchar` is: DuckDB has one string type)
  'select "numeric"(qty), "timestamp"(ordered_at), timestamptz(ordered_at), length(name(status)), "varchar"(qty) = \'2\' from sales.orders order by order_id',
  'select pg_catalog.int4(amount), pg_catalog.text(order_id) || status, upper(text(qty)) from sales.orders order by order_id',
  "select int4('12'), float8('1.5'), bool('yes'), date('2024-02-10'), jsonb('{\"a\": 1}'), bytea('ab'), oid(5)",
  'select status, sum(int4(amount)), count(int8(qty)), max(text(ordered_at)) from sales.orders group by 1 order by 1',
  "select order_id from sales.orders where int4(amount) between 100 and 200 and text(qty) <> '3' order by order_id",
  // date(x) is named date, as any call; the other forms of a cast keep the column's name
  'select date(ordered_at), date ( ordered_at ), pg_catalog.date(ordered_at), date((ordered_at)), date(ordered_at) as d from sales.orders order by order_id',
  "select ordered_at::date, cast(ordered_at as date), date '2024-01-01', (date(ordered_at)) from sales.orders order by order_id",
  'select date(ordered_at), count(*) from sales.orders group by 1 order by 1',
  // a date with a zone beside a timestamp or a date column (pgjdbc setDate in simple mode), typed or not
  "select count(*) from sales.orders where ordered_at >= '2024-02-10 +00'",
  "select count(*) from sales.orders where ordered_at < '2024-02-14 +05' and ordered_at > '2024-01-10 -03:30'",
  "select count(*) from sales.customers where signup < '2023-06-01 +00'",
  "select '2024-02-10 +00'::timestamptz, '2024-02-10 +03'::timestamptz, '2024-02-10 Z'::timestamptz, '2024-02-10 UTC'::timestamptz",
  // the same literal as a BETWEEN bound, an IN item, a coalesce/greatest/least argument (new-user review)
  "select count(*) from sales.orders where ordered_at between '2024-01-02' and '2024-01-05 +00'",
  "select count(*) from sales.orders where ordered_at not between '2024-01-02 +00' and '2024-01-05 +00'",
  "select count(*) from sales.orders where ordered_at in ('2024-01-01 09:37:00 +00', '2024-01-05 +00')",
  "select count(*) from sales.orders where ordered_at > coalesce('2024-01-03 +00', ordered_at)",
  "select greatest(max(ordered_at), '2030-03-01+00'), least(min(ordered_at), '2020-01-01 +00') from sales.orders",
  // a timestamp literal naming a zone: the zone ignored, as PostgreSQL's input does
  "select '2024-02-10 +00'::timestamp, timestamp '2024-02-10 10:00+05', '2024-02-14 02:30:00 Europe/Paris'::timestamp, '2024-02-10 10:00:00.5-08'::timestamp",
  "select count(*) from sales.orders where ordered_at < '2024-02-14 02:30+05'",
];
