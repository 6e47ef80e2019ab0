/**
 * Corpus statements of session 52 (issue 25, helper s52-interval): silent differences and types.
 * `REVIEW_52I` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused,
 * never excused); `REVIEW_52I_PARAMS` the same with parameters bound as untyped text (or `types`).
 */
export const REVIEW_52I = [
  // intervals equal by value but spelled in other fields: DuckDB took the second for the first (new-user review 51)
  "select ordered_at + interval '1 month' a, ordered_at + interval '30 days' b from sales.orders where order_id = 1",
  "select max(ordered_at + interval '1 month'), max(ordered_at + interval '30 days') from sales.orders",
  "select sum(extract(epoch from ordered_at + interval '1 month')), sum(extract(epoch from ordered_at + interval '30 days')) from sales.orders",
  "select order_id from sales.orders where ordered_at + interval '1 month' = timestamp '2024-02-01 09:37' and ordered_at + interval '30 days' = timestamp '2024-01-31 09:37'",
  "select ordered_at + interval '1 month' a, ordered_at + interval '30 days' b, count(*) from sales.orders group by 1, 2 order by 1, 2 limit 4",
  "select order_id, case when qty > 2 then ordered_at + interval '1 month' else ordered_at + interval '30 days' end, case when qty > 2 then ordered_at + interval '30 days' else ordered_at + interval '1 month' end from sales.orders order by order_id limit 4",
  "select order_id, max(ordered_at + interval '1 month') over (order by order_id), max(ordered_at + interval '30 days') over (order by order_id) from sales.orders order by order_id limit 4",
  "select order_id, ordered_at + '1 mon'::interval, ordered_at + cast('30 days' as interval), ordered_at + interval '1 month' from sales.orders order by order_id limit 3",
  "select date_trunc('day', ordered_at + interval '1 month') d, count(*) from sales.orders group by date_trunc('day', ordered_at + interval '1 month') order by 1 limit 3",
  "select interval '1 month', interval '30 days', interval '1 day', interval '24 hours', interval '1 year', interval '360 days'",
  "select order_id, ordered_at + interval '1 year', ordered_at + interval '360 days', ordered_at + interval '12 months' from sales.orders order by order_id limit 2",
  "select ordered_at::date + interval '1 month', ordered_at::date + interval '30 days', null::timestamp + interval '30 days' from sales.orders where order_id = 1",
  "select count(*) over (order by ordered_at range between interval '1 day' preceding and current row), ordered_at + interval '24 hours' from sales.orders order by order_id limit 4",
  // name and "char" sent as themselves (19, 18; they were text), "char" one byte of its input
  'select \'abc\'::name, \'x\'::"char", \'xyz\'::"char", \'\'::"char", null::name, null::"char"',
  'select name::name, status::"char", pg_typeof(name::name), pg_typeof(status::"char") from sales.customers join sales.orders using (customer_id) order by order_id limit 3',
  "select x::\"char\" from (values ('ab'), (null), ('')) v(x) order by 1",
  'select \'é\'::"char", count(*) from sales.orders where status::"char" = \'o\'',
  // an SQL EXECUTE over the extended protocol in the portal's formats (binary rows were sent as text)
  "prepare s52i_days as select $1::date - $2::date, 'ab'::name, ordered_at from sales.orders where order_id = $3",
  "execute s52i_days('2024-03-01', '2024-01-01', 1)",
];

/** With parameters: the values written in at Bind (a DuckDB prepared parameter is folded into a constant too). */
export const REVIEW_52I_PARAMS: ReadonlyArray<{ sql: string; params: (string | null)[]; types?: number[] }> = [
  {
    sql: 'select ordered_at + $1::interval, ordered_at + $2::interval from sales.orders where order_id = 1',
    params: ['1 month', '30 days'],
  },
  {
    sql: 'select max(ordered_at + $1::interval), max(ordered_at + $2::interval) from sales.orders',
    params: ['1 mon', '30 days'],
  },
  {
    sql: "select max(ordered_at + $1::interval), max(ordered_at + interval '30 days') from sales.orders",
    params: ['1 month'],
  },
  {
    sql: "select count(*) from sales.orders where ordered_at + $1::interval = timestamp '2024-02-01 09:37' and ordered_at + $2::interval = timestamp '2024-01-31 09:37'",
    params: ['1 month', '30 days'],
  },
  // declared interval (psycopg 3's timedelta is sent so)
  {
    sql: 'select max(ordered_at + $1), max(ordered_at + $2) from sales.orders',
    params: ['1 mon', '30 days'],
    types: [1186, 1186],
  },
  {
    sql: 'select ordered_at + $1::interval, ordered_at + $2::interval from sales.orders where order_id = 1',
    params: ['1 month', null],
  },
];
