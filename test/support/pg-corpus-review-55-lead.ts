/**
 * Corpus statements of session 55 (issue 25, lead, from the new-user review): an unquoted alias is folded
 * to lower case as PostgreSQL folds every unquoted name (`count(*) AS Total` is column `total`); a quoted one
 * keeps its case. PostgreSQL's names and answers, never refused, never excused.
 */
export const REVIEW_55_LEAD = [
  'select 4 as A, 5 as "B", 6 as cC, 7 as "dD"',
  'select status as Status, count(*) as Total from sales.orders group by status order by Status',
  'select * from (select 1 as X, 2 as "Y") t',
  'with T as (select 1 as Val, 2 as "Raw") select * from T',
  'select * from (values (1, 2)) as v(A, "B")',
  'select V.A from (values (1)) as V(A)',
  'select order_id as OrderID, sum(qty) over (order by order_id) as RunningQty from sales.orders order by OrderID limit 3',
  'select Order_ID, STATUS from sales.orders order by ORDER_ID limit 2',
];
