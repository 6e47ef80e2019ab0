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
];
