/**
 * Corpus statements of session 49 (issue 25, the lead): silent differences the new-user review found.
 * `REVIEW_49` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never excused).
 */
export const REVIEW_49 = [
  // a number-like string literal compared with an integer is read by PostgreSQL's integer input (22P02); DuckDB rounded it
  "select count(*) from sales.orders where qty = '1.5'",
  "select count(*) from sales.orders where '1.5' = qty",
  "select count(*) from sales.orders where qty > '1.5'",
  "select count(*) from sales.orders where qty in ('1.5', '3')",
  "select count(*) from sales.orders where qty between '1.5' and '2.5'",
  "select count(*) from sales.orders where qty not between '1' and '2.5'",
  "select count(*) from sales.orders where order_id = '1e1'",
  "select count(*) from sales.orders where qty <> ' 2.0 '",
  "select count(*) from sales.orders where customer_id = '0x10'",
  "select case when qty = '2.5' then 'y' else 'n' end, count(*) from sales.orders group by 1 order by 1",
  // the same literals beside other types, and plain integers: answered as before
  "select count(*) from sales.orders where qty in ('2', '3')",
  "select count(*) from sales.orders where qty = ' 2 '",
  "select count(*) from sales.orders where amount > '50.5'",
  "select count(*) from sales.orders where amount between '10.25' and '1e2'",
  "select count(*) from sales.orders where status = '1.5'",
  "select count(*) from sales.orders where status in ('1.5', 'shipped')",
];
