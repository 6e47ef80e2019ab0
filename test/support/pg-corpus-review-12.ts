/**
 * Corpus statements of numeric division per row (the new-user review of session 40): DuckDB divided
 * the decimals as doubles (DECIMAL(38,16)), so a value just below a whole minute or a half cent was
 * rounded to it, and the quotient printed at scale 16; PostgreSQL's numeric_div is exact. Each answered
 * differently on the old code; never excused by a documented row.
 */
export const REVIEW_12 = [
  // Grafana's $__timeGroup: extract(epoch) is numeric in PostgreSQL 15 (38 of 80 rows were in the previous minute)
  'select order_id, floor(extract(epoch from ordered_at)/60)*60 from sales.orders order by order_id limit 80',
  'select order_id, extract(epoch from ordered_at) / 3600 from sales.orders order by order_id limit 5',
  // half cents: round of an exact quotient (5 of 640 rows were a cent off)
  'select order_id, round(amount::numeric(10,2)/2, 2) from sales.orders order by order_id',
  // the quotient shown at PostgreSQL's scale per value, in ORDER BY and DISTINCT too
  'select order_id, amount / 3 from sales.orders order by order_id limit 20',
  'select order_id, amount / 3 from sales.orders order by amount / 3 desc, order_id limit 10',
  'select distinct amount / 2 from sales.orders order by 1 limit 5',
  'select order_id, qty::numeric / 7.0, amount / qty, 100.0 * amount / (select sum(amount) from sales.orders) from sales.orders order by order_id limit 20',
  'select order_id, amount / 0.7, -amount / 3, amount / -7.25 from sales.orders order by order_id limit 10',
  'select order_id, qty::numeric / 3, order_id::numeric / 60000, amount / 1000000 from sales.orders order by order_id limit 10',
  // inside an aggregate: the exact value at 20 decimals
  'select sum(amount / qty) from sales.orders',
];
