/**
 * Corpus statements of session 49 (issue 25, part C): the column names of a FROM subquery, a LATERAL
 * subquery and a CTE, which DuckDB gave as its expressions' text (`count_star()`, `max(amount)`,
 * `(now() IS NOT NULL)`, VALUES' `col0`) and whatever reads them differed: a star over it, `t.*`, a
 * reference by PostgreSQL's name (Superset's `SELECT … FROM (<query>) AS virtual_table`), `row_to_json(t)`'s
 * keys. `REVIEW_25C` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused,
 * never excused); `REVIEW_25C_REFUSED` 0A000 with a hint where the gateway cannot give PostgreSQL's answer.
 */
export const REVIEW_25C = [
  // JSON of a derived table's or a CTE's rows: keys as PostgreSQL names the columns (count, not count_star())
  'select row_to_json(t) from (select status, count(*) from sales.orders group by 1) t order by row_to_json(t)::text',
  'select json_agg(t order by status) from (select status, count(*) from sales.orders group by 1) t',
  'select to_json(t) from (select status, max(customer_id), min(qty) from sales.orders group by 1) t order by t.status',
  'with c as (select status, count(*), sum(qty) from sales.orders group by 1) select row_to_json(c) from c order by c.status',
  'select json_agg(x) from (select order_id, qty * 2, qty::int from sales.orders order by order_id limit 3) x',
  // a star over it, and t.*
  'select * from (select status, count(*), max(amount), now() is not null from sales.orders group by 1) t order by 1',
  'select t.* from (select status, count(*) from sales.orders group by 1) t order by 1',
  'select * from (select 1) t',
  "select * from (select 1 + 1, 'a', null, 2.5) t",
  "select * from (select exists (select 1), case when qty > 1 then 1 end, qty::int, '1'::int, extract(year from ordered_at), coalesce(qty, 0), array[qty], upper(status)::text from sales.orders) t order by 3, 2 limit 3",
  "select * from (select amount::text, order_id::int4 + 1, qty * 2, status || 'x', -qty, (qty), date_trunc('month', ordered_at) from sales.orders order by order_id limit 2) t",
  "select * from (select nullif(qty, 1), greatest(qty, 2), least(qty, 2), row(qty, 1) is not null, interval '1 day', date '2024-01-01', trim(status) from sales.orders order by order_id limit 2) t",
  'select * from (select (select max(qty) from sales.orders), (select 1 as one), (select count(*) from sales.customers)) t',
  'select * from (select count(*), count(distinct status), max(qty), max(order_id) from sales.orders) t',
  // referenced by PostgreSQL's name, as BI tools wrap a query (42703 before)
  'select count from (select status, count(*) from sales.orders group by 1) t order by 1',
  'SELECT status, "count" FROM (select status, count(*) from sales.orders group by 1) AS virtual_table ORDER BY "count" DESC LIMIT 1000',
  'select status, max from (select status, max(amount) from sales.orders group by status) s where max > 600 order by 1',
  'select "?column?" from (select qty * 2 from sales.orders order by order_id limit 3) t order by 1',
  'select sum(count), max(sum) from (select status, count(*), sum(amount) from sales.orders group by 1) t',
  'select int4, "case", coalesce from (select 1::int, case when true then 1 end, coalesce(null, 2)) t',
  "select extract, date_part from (select extract(month from ordered_at), date_part('day', ordered_at) from sales.orders order by order_id limit 2) t order by 1, 2",
  // CTEs: their own column list names the first columns, PostgreSQL's rule the rest
  'with t(a) as (select status, count(*) from sales.orders group by 1) select * from t order by 1',
  'with t as (select status, count(*) from sales.orders group by 1) select status, count from t order by count',
  'with a as (select qty * 2 from sales.orders), b as (select max("?column?") from a) select * from b',
  'with recursive r as (select 1 union all select "?column?" + 1 from r where "?column?" < 3) select * from r order by 1',
  // LATERAL subqueries and nested derived tables
  'select c.name, l.* from sales.customers c, lateral (select count(*), max(amount) from sales.orders o where o.customer_id = c.customer_id) l order by 1 limit 3',
  'select c.name, l.count from sales.customers c cross join lateral (select count(*) from sales.orders o where o.customer_id = c.customer_id) l order by 1 limit 3',
  'select * from (select * from (select status, count(*) from sales.orders group by 1) i) o order by 1',
  'select o.count + 1 from (select i.count from (select status, count(*) from sales.orders group by 1) i) o order by 1',
  'select * from sales.customers c join (select customer_id, count(*), sum(qty) from sales.orders group by 1) o using (customer_id) order by customer_id limit 3',
  // a set operation inside names its columns after its left-most branch
  "select * from (select status, count(*) from sales.orders group by 1 union all select 'x', 1) t order by 1",
  "select * from (select upper(status) from sales.orders union select lower('X')) t order by 1",
  "select * from ((select 1 + 1, 'a') union all (select 3, 'b')) t order by 1",
  // VALUES in a subquery or a CTE: column1, column2, … (DuckDB col0, col1, …)
  "select column1, column2 from (values (1, 'a'), (2, 'b')) t order by 1",
  "with v as (values (1, 'a'), (2, 'b')) select column2 from v order by column1",
  "select * from (values (1, 'a')) t(x)",
  "select t.column2 from (values (1, 'a')) t(x)",
  "select * from (select 1, 'x' union all values (2, 'y')) t order by 1",
  "select * from (values (1, 'x') union all select 2, 'y') t order by 1",
  // a name given twice: both shown by it, a reference to it ambiguous (42702), DuckDB's x_1 unknown (42703)
  'select * from (select qty, qty from sales.orders order by order_id limit 3) t',
  'select * from (select count(*), count(*) from sales.orders) t',
  'select * from (select 1 + 1, 2 + 2) t',
  'select qty from (select qty, qty from sales.orders) t limit 3',
  'select t.qty from (select qty, qty from sales.orders) t limit 3',
  'select qty_1 from (select qty, qty from sales.orders) t limit 3',
  'select count from (select count(*), count(distinct status) from sales.orders) t',
  'select count_1 from (select count(*), count(distinct status) from sales.orders) t',
  'select count(*) from (select qty, qty from sales.orders) t',
  'with c as (select qty, qty from sales.orders) select qty from c limit 1',
  'select * from (select qty, qty from sales.orders) t where qty > 3',
];

/** Refused 0A000 with a hint (PostgreSQL answers them; the gateway cannot give the same answer). */
export const REVIEW_25C_REFUSED = [
  // the whole row of a subquery naming two columns alike: PostgreSQL's record has the name twice, DuckDB's struct cannot
  "select row_to_json(t) from (select 1 + 1, 'a') t",
  'select to_json(t) from (select qty, qty from sales.orders order by order_id limit 1) t',
];
