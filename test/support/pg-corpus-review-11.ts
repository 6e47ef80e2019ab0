/**
 * Corpus statements from the new-user review of session 39 that the lead fixed: each failed with
 * DuckDB's "Macro … has multiple overloads" (an aggregate or a LATERAL's outer column in a typed
 * macro's argument) where PostgreSQL answers; never excused by a documented row.
 */
export const REVIEW_11 = [
  // a month spine from the data's own range
  "select generate_series(date_trunc('month', min(ordered_at)), max(ordered_at), interval '1 month') as m from sales.orders",
  "select generate_series(min(ordered_at), max(ordered_at), interval '1 week') as w from sales.orders",
  "select generate_series(min(ordered_at)::date, max(ordered_at)::date, interval '1 month') as m from sales.orders",
  "select date_trunc('month', min(ordered_at)) as first_month, date_trunc('day', max(ordered_at)) as last_day from sales.orders",
  // per-row series in a LATERAL
  "select order_id, x from sales.orders, lateral generate_series(ordered_at::date, ordered_at::date + 2, interval '1 day') x order by 1, 2 limit 9",
  // date_bin with an untyped stride and origin (DuckDB's time_bucket could not choose an overload)
  "select date_bin('15 minutes', ordered_at, '2024-01-01') as b, count(*) from sales.orders group by 1 order by 1 limit 5",
  "select date_bin('1 day', ordered_at, timestamp '2024-01-01 06:00') as b, count(*) from sales.orders group by 1 order by 1 limit 5",
  "select date_bin('2 hours', ordered_at::timestamptz, timestamptz '2024-01-01 00:30:00+00') as b from sales.orders order by order_id limit 3",
  "select date_bin(interval '90 minutes', timestamp '2024-03-05 10:47', timestamp '2000-01-01')",
  "select date_bin('1 month', ordered_at, '2024-01-01') from sales.orders",
  // a line comment ends at \r, as PostgreSQL's scanner ends it (the shared rewrite's key dropped the code after it)
  "select count(*) from sales.orders where status = any('{open,returned}') -- c\rand amount > 200",
  "select count(*) from sales.orders where status = any('{open,returned}') --\r/*\n and false --*/",
];
