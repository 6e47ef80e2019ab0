/**
 * Corpus statements of session 47 (issue 25): PostgreSQL's JSON set-returning functions, which were
 * refused 0A000 — json_each(_text), json(b)_array_elements(_text), json(b)_object_keys, jsonb_each_text
 * in FROM (column names, aliases, WITH ORDINALITY, LATERAL over a table's rows) and in a select list
 * (zipped with other set-returning calls as PostgreSQL does), jsonb's key order and spacing, PostgreSQL's
 * 22023 for a value of the wrong shape, no rows for NULL. `REVIEW_24` must be PostgreSQL's answer or its
 * error with PostgreSQL's SQLSTATE (never refused, never excused); `REVIEW_24_REFUSED` 0A000 with a hint:
 * members DuckDB prints differently from PostgreSQL (json's own text, jsonb's numerics), jsonb values in
 * FROM (they would be sent as json), records in a select list.
 */
export const REVIEW_24 = [
  // in FROM: PostgreSQL's column names, an alias' column names, WITH ORDINALITY
  'select * from json_array_elements(\'[1,2,{"a":[1,2]}]\')',
  'select * from json_array_elements(\'[1, 2, "x"]\') with ordinality',
  'select value, ordinality from json_array_elements_text(\'[1,"x",null,{"a":1}]\') with ordinality e',
  'select * from json_each(\'{"b":1,"a":[1,2],"c":null}\')',
  'select * from json_each_text(\'{"b":1,"a":[1,2],"c":null,"d":"x\\ny"}\') with ordinality as t(k, v, n)',
  'select * from json_object_keys(\'{"b":1,"a":2,"b":3}\')',
  "select * from json_array_elements_text('[1,2]') as t(v)",
  'select * from json_array_elements(\'[1,"two",[3]]\') with ordinality as e(v, n)',
  "select * from json_array_elements('[]')",
  "select * from json_object_keys('{}')",
  // jsonb: keys by length then bytes, one value per key, spaced as jsonb prints
  'select * from jsonb_object_keys(\'{"bb":1,"a":2,"c":3}\')',
  'select k from jsonb_object_keys(\'{"bb":1,"a":2,"c":3}\') k',
  'select * from jsonb_each_text(\'{"bb":1,"a":[1,2],"c":{"x":1}}\')',
  'select * from jsonb_each_text(\'{"a":1,"a":2}\')',
  'select * from jsonb_object_keys(\'{"a":1,"a":2,"b":3}\')',
  'select * from jsonb_each_text(\'{"a":{"c":1,"b":2}}\')',
  'select * from jsonb_array_elements_text(\'[1,"x",null,{"b":1,"a":2}]\')',
  "select * from jsonb_array_elements_text('[true, false, null, 1.5, -0, 1e3]')",
  // a one-column function's alias is its column (it was a record: ->> answered NULL)
  'select e->>\'a\' from json_array_elements(\'[{"a":1},{"a":2}]\') e',
  'select sum((e->>\'n\')::int) from json_array_elements(\'[{"n":1},{"n":5}]\') e',
  "select t from json_array_elements_text('[1,2]') as t",
  'select value->>\'name\' as name, (value->>\'qty\')::int as qty from json_array_elements(\'[{"name":"x","qty":2},{"name":"y","qty":3}]\') order by 2 desc',
  "select * from json_array_elements_text('[1,2]') a, json_array_elements_text('[3,4]') b order by 1, 2",
  // LATERAL over a table's rows
  "select o.order_id, e.key, e.value from sales.orders o, json_each(json_build_object('s', o.status, 'q', o.qty)) e where o.order_id < 4 order by 1, 2",
  "select o.order_id, e.* from sales.orders o cross join lateral json_each_text(json_build_object('s', o.status, 'a', o.amount)) with ordinality e where o.order_id < 3 order by 1, e.ordinality",
  "select order_id, k from sales.orders, json_object_keys(json_build_object('s', status, 'q', qty)) k where order_id < 3 order by 1, 2",
  "select order_id, x from sales.orders, jsonb_array_elements_text(('[' || qty || ', \"' || status || '\"]')::jsonb) x where order_id < 4 order by 1, 2",
  "select key, count(*) from sales.orders, json_each_text(json_build_object('s', status)) group by key",
  // in a select list: one row per member, several calls zipped (the shorter padded with NULLs)
  'select jsonb_array_elements(\'[1,{"b":1,"a":2},[3,4]]\')',
  'select jsonb_array_elements(\'[1,{"b":1,"a":2},[3,4]]\') as x, 1 as y',
  'select json_array_elements(\'[1,2,3]\'), json_array_elements_text(\'["a","b"]\')',
  'select json_object_keys(\'{"a":1,"b":2}\'), generate_series(1,3)',
  'select jsonb_object_keys(\'{"bb":1,"a":2}\')',
  'select jsonb_array_elements_text(\'[1,2]\') as a, jsonb_object_keys(\'{"x":1,"yy":2,"z":3}\') as b',
  "select order_id, jsonb_array_elements_text(('[' || qty || ', \"' || status || '\"]')::jsonb) from sales.orders where order_id < 3 order by 1, 2",
  'select status, json_array_elements_text(json_agg(order_id)) from sales.orders where order_id < 5 group by status order by 1, 2',
  "select json_array_elements_text(j) from (values ('[1,2]'::json), (null), ('[3]')) v(j) order by 1",
  'select j, jsonb_object_keys(j::jsonb) from (values (\'{"b":1,"a":2}\'), (\'{"c":3}\')) v(j) order by 1, 2',
  "select json_array_elements('[1,2]') from sales.orders where false",
  // NULL: no rows; the wrong shape: PostgreSQL's 22023
  'select * from json_array_elements(null)',
  'select json_array_elements(null)',
  'select * from jsonb_array_elements_text(null::jsonb)',
  "select * from json_array_elements('1')",
  'select * from json_array_elements(\'{"a":1}\')',
  "select * from jsonb_array_elements_text('1')",
  "select * from jsonb_array_elements_text('{}')",
  "select * from json_each('[]')",
  "select * from json_each('1')",
  "select * from jsonb_each_text('[]')",
  "select * from json_object_keys('[]')",
  "select * from jsonb_object_keys('2')",
  'select json_array_elements_text(\'"x"\')',
  'select * from json_each(\'{"a":1}\') as t(k, v, extra)',
];

/** Refused 0A000 with a hint (PostgreSQL answers them; the gateway cannot give the same text or type). */
export const REVIEW_24_REFUSED = [
  // members DuckDB re-prints: json keeps its own text (1.50, 1e3, escapes, spacing inside a member), jsonb its numerics
  "select * from json_array_elements('[1.50, 2]')",
  "select * from json_array_elements('[1, [2, 3]]')",
  "select * from json_array_elements_text('[true, false, null, 1.5, -0, 1e3]')",
  'select * from json_each_text(\'{"a" : {"b" : 1}}\')',
  "select * from jsonb_array_elements_text('[1.50, 2]')",
  'select * from jsonb_array_elements_text(\'[{"x":{"b":1,"a":2}}]\')',
  // jsonb values in FROM (sent as json), a record per row in a select list
  "select * from jsonb_array_elements('[1,2]')",
  'select * from jsonb_each(\'{"a":1}\')',
  'select json_each(\'{"a":1}\')',
  'select jsonb_each_text(\'{"a":1}\')',
  // beside another function in ROWS FROM (DuckDB's own json_each has other columns)
  "select * from rows from (json_array_elements_text('[1,2,3]'), generate_series(1, 2))",
];
