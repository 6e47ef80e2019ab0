/**
 * Corpus statements from the new-user review of session 40 (psqlODBC without server-side prepare inlines
 * Decimal parameters as untyped literals): an untyped string literal beside an arithmetic operator is read
 * as the other operand's type; each answered DuckDB's 42725 "Could not choose a best candidate function"
 * where PostgreSQL answers; never excused by a documented row.
 */
export const REVIEW_15 = [
  "select qty * '2' from sales.orders order by order_id limit 5",
  "select '2' * qty from sales.orders order by order_id limit 5",
  "select round(cast(amount as numeric(10,2)) * '1.1', 2) from sales.orders order by order_id limit 5",
  "select amount::numeric(10,2) * '1.1' from sales.orders order by order_id limit 5",
  "select '1.1' * amount::numeric(10,2) from sales.orders order by order_id limit 5",
  "select amount::numeric(10,2) * '-0.5' from sales.orders order by order_id limit 5",
  "select interval '1 day' * '2'",
  "select '1.5' * interval '1 day'",
  "select interval '3 days' / '2'",
  "select '5' + 3",
  "select '1.5' + 2.25",
  "select 2 * '3'",
  "select '5' + qty from sales.orders order by order_id limit 5",
  "select amount::numeric(10,2) + '0.005' from sales.orders order by order_id limit 5",
  // PostgreSQL's integer input: a fraction beside an integer is 22P02; not a number beside numeric too
  "select qty * '2.5' from sales.orders",
  "select amount::numeric(10,2) * 'abc' from sales.orders",
  // an attacker review: a trailing sign read as part of the digits (22P02 'Could not convert string "12454.8-"')
  // a numeric division per row: the double quotient's shortest text as the decimal (a direct cast lost the last bits)
  'select order_id, floor(extract(epoch from ordered_at) / 60) * 60 as t, floor(extract(epoch from ordered_at) / 3600) * 3600 as h from sales.orders order by order_id',
  'select order_id, round(amount::numeric(10,2) / 2, 2) as half, round(amount / 4, 2) as quarter from sales.orders order by order_id',
  "select to_number('12,454.8-', '99G999D9S'), to_number('12,454.8', '99G999D9S'), to_number('-12,454.8', 'S99G999D9')",
];
