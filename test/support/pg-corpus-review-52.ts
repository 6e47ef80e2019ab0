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
  // PostgreSQL 15's regexp_match/_like/_count/_substr/_instr (42883, regexp_count 0A000 before), patterns read as ARE
  "select regexp_match('foobarbequebaz', '(bar)(beque)'), regexp_match('abc', 'x'), regexp_match('abc', 'b'), regexp_match('b', '(a*)'), regexp_match(null, 'a')",
  "select regexp_match('ab', '(a)(x)?'), regexp_match('abc', '(x)?c'), regexp_match('abc', '(a|(z))b'), regexp_match('AbC', 'b(c)', 'i'), regexp_match(E'a\\nb', 'a.b', 'n')",
  "select regexp_match('abc', 'b', 'g')",
  "select regexp_like('Abc', 'b', 'g')",
  "select regexp_like('abc', 'b', 'z')",
  "select regexp_like('ABC', 'b', 'i'), regexp_like('ABC', 'b', 'ic'), regexp_like('ABC', 'b', 'ci'), regexp_like(E'a\\nb', 'a.b'), regexp_like(E'a\\nb', 'a.b', 'n'), regexp_like('a b', '\\yb'), regexp_like('x', null)",
  "select regexp_count('abc', 'x*'), regexp_count('abcabc', 'b', 3), regexp_count('aaa', 'aa'), regexp_count('abc', 'x*', 4), regexp_count('abc', 'x*', 5), regexp_count('abc', 'b', 10), regexp_count(null, 'a')",
  "select regexp_count('abcabc', 'b'), regexp_count('ab12cd345', '[0-9]+'), regexp_count('abcABC', 'b', 1, 'i'), regexp_count(E'a\\nb\\nc', '^.', 1, 'n'), regexp_count('héllo wörld', 'ö')",
  "select regexp_count('abc', 'b', 0)",
  "select regexp_substr('abc', 'b', 1, 0)",
  "select regexp_substr('abc', '(b)', 1, 1, '', -1)",
  "select regexp_substr('abc', '(b)', 1, 1, '', 5), regexp_substr('abc', '(b)', 1, 1, '', 1), regexp_substr('abcbd', 'b.', 1, 2), regexp_substr('abc', 'b', 10), regexp_substr('abc', '(x)?c', 1, 1, '', 1)",
  "select regexp_substr('ab12cd345', '[0-9]+', 1, 2), regexp_substr('ab12cd345', '([a-z])([0-9])', 1, 2, '', 2), regexp_substr('abc', 'b', 1, 1, null)",
  "select regexp_instr('abcbd', 'b.', 1, 2), regexp_instr('abcbd', 'b.', 1, 2, 1), regexp_instr('abc', 'x'), regexp_instr('abcbd', 'b', 3), regexp_instr('abc', 'b', 1, 1, 1), regexp_instr('héllo wörld', 'ö')",
  "select regexp_instr('abc', 'b', 1, 1, 2)",
  "select regexp_instr('abc', 'b', 1, 0)",
  "select name, regexp_match(email, '@(.*)$'), regexp_substr(email, '[a-z]+', 1, 2), regexp_instr(email, '@'), regexp_count(email, '[aeiou]'), regexp_like(name, '^[A-M]') from sales.customers order by customer_id limit 4",
  "select regexp_count(status, 'p', qty), regexp_substr(status, '[a-z]', 1, qty), regexp_instr(status, '[aeiou]', 1, qty) from sales.orders order by order_id limit 5",
  "select status, count(*) from sales.orders where regexp_like(status, 'ED$', 'i') group by status order by status",
  // json[b]_extract_path(_text) (42883 before): PostgreSQL's #> and #>>
  `select jsonb_extract_path('{"a":{"b":[1,2]}}', 'a', 'b'), jsonb_extract_path_text('{"a":{"b":[1,2]}}', 'a', 'b', '1'), jsonb_extract_path(null, 'a')`,
  `select json_extract_path('{"a":{"b":[1,2]}}', 'a', 'b'), json_extract_path_text('{"a":{"b":"x"}}', 'a', 'b'), json_extract_path_text('{"a":1}', 'z')`,
  `select jsonb_extract_path('{"b":2,"a":{"y":1,"x":2}}', variadic array['a']), jsonb_extract_path_text('{"a":[{"k":"v"}]}', 'a', '0', 'k')`,
  `select jsonb_extract_path_text(j, 'k'), jsonb_extract_path(j, 'k') from (values ('{"k":"v"}'::jsonb), ('{}'), (null)) t(j)`,
  // jsonb_pretty of a constant: PostgreSQL's layout (42883 before)
  `select jsonb_pretty('{"a":{},"b":[[],{}],"c":"x", "d":null, "aa": [1, 2.50]}'), jsonb_pretty('[]'), jsonb_pretty('1'), jsonb_pretty(null), jsonb_pretty('{"k":[{"a":1}]}'::jsonb)`,
  // quote_nullable (42883 before); quote_literal of a backslash writes E'…' (it wrote 'a\b')
  "select quote_nullable(null), quote_nullable('it''s'), quote_nullable(42), quote_nullable(1.50), quote_nullable(true), quote_nullable(E'a\\\\b'), quote_nullable(date '2024-01-01')",
  "select quote_literal(E'a\\\\b'), format('%L', E'a\\\\b'), quote_literal('it''s\\\\'), format('%L', true)",
  'select quote_nullable(name), quote_nullable(amount), quote_nullable(ordered_at), quote_nullable(vip) from sales.orders join sales.customers using (customer_id) order by order_id limit 3',
  // scale and min_scale of numerics (42883 before)
  'select scale(1.50), scale(amount), min_scale(1.500), min_scale(0.000), scale(1), scale(null::numeric), min_scale(amount), scale(amount * 1.5), scale(sum(amount) over ()) from sales.orders order by order_id limit 2',
  "select min_scale(10.00), min_scale(-0.10), scale(0::numeric), scale(1e-4), scale(2.5::numeric(10,4)), scale(qty), scale('1.50'::numeric) from sales.orders order by order_id limit 2",
  // statement_timestamp(), clock_timestamp(), timeofday() (42883 before); their values are the clock's, so compared by their relations
  "select clock_timestamp() >= now(), statement_timestamp() >= now(), clock_timestamp() >= statement_timestamp(), pg_typeof(clock_timestamp()), pg_typeof(statement_timestamp()), pg_typeof(timeofday()), length(timeofday()), timeofday() like '% UTC'",
  'select count(*), min(clock_timestamp()) >= statement_timestamp() from sales.orders',
  // a time of day with AM/PM (22008 before)
  "select '10:00 PM'::time, '10:00 am'::time, time '12:30 AM', '12:00 PM'::time, '1:05:30.5 pm'::time, cast('11:59 pm' as time)",
  "select count(*) from sales.orders where ordered_at::time > '09:00 AM'::time",
  // AT TIME ZONE an interval (42883 before): a fixed offset east of UTC
  "select timestamp '2024-01-01 10:00' at time zone interval '+05:30', timestamptz '2024-01-01 10:00+00' at time zone interval '-03:00', ordered_at at time zone interval '01:00' from sales.orders order by order_id limit 2",
  "select timestamp '2024-01-01 10:00' at time zone interval '1 day'",
];

/** Refused with a hint where DuckDB's answer would differ from PostgreSQL's. */
export const REVIEW_52_REFUSED = [
  // neither side a constant of at most 64 values: the macros' work is one side's elements times the other's
  // at each level, uninterruptible (attacker review 52: 127 s past the timeout)
  `with a as (select '[[1,2],[3,4]]'::jsonb j) select j @> j from a`,
  `select x <@ y from (values ('[[1]]'::jsonb, '[[1,2]]'::jsonb)) v(x, y)`,
  `select ('[' || repeat('1,', 64) || '1]')::jsonb @> ('[' || repeat('1,', 64) || '1]')::jsonb`,
  `select '[${Array.from({ length: 64 }, (_, i) => i).join(',')}]'::jsonb @> '[${Array.from({ length: 64 }, (_, i) => i).join(',')}]'`,
  // a right side nested past 8 levels: one macro per level (a macro cannot call itself)
  `select '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}'::jsonb @> '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":1}}}}}}}}}'`,
  // an optional group that can match an empty string, matching nothing: DuckDB's '' is either PostgreSQL's NULL or ''
  "select regexp_match('ab', '(a)(x*)?')",
  // a start past 1 with an anchor: PostgreSQL still sees the text before the start
  "select regexp_count('abc', '^b', 2)",
  // positions of a group; of a pattern that can match an empty string
  "select regexp_instr('abc', '(b)(c)', 1, 1, 0, '', 2)",
  "select regexp_instr('abc', 'x*')",
  // jsonb_pretty of a value that is not a constant; scale of a division (PostgreSQL's scale varies per value)
  `select jsonb_pretty(x) from (values ('{}'::jsonb)) v(x)`,
  'select scale(amount / 3) from sales.orders',
];
