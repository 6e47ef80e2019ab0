/**
 * Corpus statements of session 52 (issue 25): errors where PostgreSQL 15 answers, found by the new-user
 * review of session 51. `REVIEW_52` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE
 * (never refused, never excused); `REVIEW_52_REFUSED` refused with a hint where the answer would differ.
 */
export const REVIEW_52 = [
  // jsonb containment @> and <@ (42883 "json @> json" before): PostgreSQL's rule, not DuckDB's json_contains (which searches every level)
  `select '{"a":1,"b":2}'::jsonb @> '{"a":1}', '{"a":{"b":1}}'::jsonb @> '{"b":1}', '[[1,2]]'::jsonb @> '[1]', '[1,2,[3]]'::jsonb @> '3'`,
  `select '[1,2]'::jsonb @> '1', '1'::jsonb @> '[1]', '{"a":1.0}'::jsonb @> '{"a":1}', '"a"'::jsonb @> '"a"', '{"a":[1]}'::jsonb @> '{"a":1}'`,
  `select '{"a":1}'::jsonb <@ '{"a":1,"b":2}', null::jsonb @> '{}', '{}'::jsonb @> '{}', '[]'::jsonb @> '[]', '[1]'::jsonb <@ '[]'`,
  `select '[{"a":1},{"b":2}]'::jsonb @> '[{"a":1,"b":2}]', '[{"a":1,"b":2}]'::jsonb @> '[{"a":1},{"b":2}]', '["a",1]'::jsonb @> '["1"]'`,
  `select '{"a":[1,2,{"x":"y"}],"b":null}'::jsonb @> '{"a":[{"x":"y"}],"b":null}', '[null]'::jsonb @> 'null', '{"a":null}'::jsonb @> '{"b":null}', '{"a":1}'::jsonb @> '{"a":null}'`,
  `select '{"a":true}'::jsonb @> '{"a":true}', '{"a":true}'::jsonb @> '{"a":"true"}', '{"a":12345678901234567}'::jsonb @> '{"a":12345678901234567}'`,
  `select '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}'::jsonb @> '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}'`,
  `select x @> '{"a":1}', x <@ '{"a":1, "b": 2}', '[1,2]' <@ x, x @> '[]' from (values ('{"a":1}'::jsonb), ('{"a":2}'), (null), ('[]')) v(x)`,
  `select order_id from (select order_id, ('{"s":"' || status || '","q":' || qty || '}')::jsonb j from sales.orders) t where j @> '{"s":"shipped"}' order by order_id limit 5`,
  `select x ? 'a', x ?| array['b','c'], x ?& array['a','b'] from (values ('{"a":1,"b":2}'::jsonb), ('["a"]'), (null)) v(x)`,
];

/** Refused with a hint where DuckDB's answer would differ from PostgreSQL's. */
export const REVIEW_52_REFUSED = [
  // a right side nested past 8 levels: one macro per level (a macro cannot call itself)
  `select '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}'::jsonb @> '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}'`,
];
