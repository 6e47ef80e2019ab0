/**
 * Corpus statements from the eighth review of issue 25 (session 38): silent differences and wrong
 * SQLSTATEs a new user found, each now PostgreSQL's answer or a refusal with a precise SQLSTATE and a
 * hint; never excused by a documented row.
 */
export const REVIEW_8 = [
  // DISTINCT aggregates: PostgreSQL sorts the distinct input; DuckDB's hash gave any order
  "select string_agg(distinct status, ',') from sales.orders",
  'select array_agg(distinct qty) from sales.orders',
  'select json_agg(distinct status) from sales.orders',
  "select json_agg(distinct qty), array_agg(distinct status), string_agg(distinct status, ',') filter (where qty > 3) from sales.orders",
  'select status, array_agg(distinct qty) from sales.orders group by status order by status',
  // extract(epoch from …) of an aggregate or a window: DuckDB's "Macro epoch() has multiple overloads"
  'select extract(epoch from max(ordered_at) - min(ordered_at)) from sales.orders',
  'select order_id, extract(epoch from ordered_at - lag(ordered_at) over (order by ordered_at)) from sales.orders order by order_id',
  'select status, extract(epoch from max(ordered_at) - min(ordered_at)) / 3600 as hours from sales.orders group by status order by status',
  // to_hex: lower case, int4's 32 bits; smallint ambiguous (42725) as in PostgreSQL
  'select to_hex(255), to_hex(-1), to_hex(-1::bigint), to_hex(5000000000), to_hex(null::int), to_hex(order_id) from sales.orders order by order_id limit 2',
  'select to_hex(qty) from sales.orders',
  // json_agg keeps a nested json value's text and writes its values as PostgreSQL (numeric scale, `T` in timestamps)
  "select json_agg(json_build_object('s', status, 'n', qty) order by order_id) from sales.orders",
  "select json_build_object('orders', json_agg(json_build_object('id', order_id) order by order_id)) from sales.orders",
  'select json_agg(amount order by order_id), json_agg(ordered_at order by order_id) from sales.orders where order_id < 4',
  // a set-returning function's alias names its column; regexp_split_to_table in FROM (it was 42501)
  "select * from unnest(array['a', 'b']) as tag",
  'select x + 1 from unnest(array[3, 1, 2]) x',
  "select * from unnest(array['a', 'b']) with ordinality as t",
  "select * from regexp_split_to_table('a b c', ' ')",
  "select x from regexp_split_to_table('a b c', ' ') as x",
  "select * from regexp_split_to_table('a b c', ' ') with ordinality",
  // the JSON-to-record functions: 0A000 with a hint (they were 42501 "permission denied")
  'select * from jsonb_to_recordset(\'[{"a":1,"b":"x"}]\') as x(a int, b text)',
  'select * from json_to_recordset(\'[{"a":1,"b":"x"}]\') as x(a int, b text)',
  // constant expressions with a numeric division: exact, as PostgreSQL (DuckDB divided decimals as doubles)
  'select 10 * 1.0 / 3, 100.0 * 2 / 3',
  'select (1 + 0.5) / 7, -(2.5 * 3) / 7, 1.0 / 3 / 3, (10 * 3)::numeric / 7',
  'select 1 / 3 * 1.0 / 7, (2 - 3) * 1.0 / 3, 10 * 1.0 / 3 + 1, 1.5e3 * 2 / 7',
  // grouping errors: 42803, as PostgreSQL (they were 42000)
  'select status, qty from sales.orders group by status',
  'select max(sum(qty)) from sales.orders',
  'select qty from sales.orders where sum(qty) > 1',
  'select sum(qty) from sales.orders group by sum(qty)',
];
