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
];
