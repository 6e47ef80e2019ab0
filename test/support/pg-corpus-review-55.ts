/**
 * Corpus statements of session 55 (issue 25, helper s55-floats). `REVIEW_55` must be PostgreSQL's answer or
 * its error with PostgreSQL's SQLSTATE (never refused, never excused): a select-list alias inside an ORDER
 * BY/GROUP BY expression read as the FROM item's column (42703 where it has none, which a typed macro's
 * overload choice turned into 42725).
 */
export const REVIEW_55 = [
  // an alias inside an ORDER BY/GROUP BY expression that reaches a typed macro (float check, division, round)
  'select qty as x from sales.orders order by x / 2',
  'select qty as x from sales.orders order by round(x, 1)',
  'select amount as x from sales.orders order by x::float8 * 2',
  'select qty as x, count(*) from sales.orders group by x - 1',
  'select qty as amount from sales.orders where qty > 2 order by amount * 2, order_id limit 3',
];
