/**
 * Corpus statements of session 57 (issue 25, helper s57-pg): silent differences the session-56 review left.
 * `REVIEW_57` must be PostgreSQL's answer (never refused, never excused); `REVIEW_57_PARAMS` the same with
 * parameters, described at Parse (Describe of the statement) as they are sent, in text and binary.
 */
export const REVIEW_57 = [
  // char/character without a length is char(1) (PostgreSQL's grammar): over columns too (it kept the whole text)
  "select 'abc'::char, cast('abc' as character), status::char, cast(status as character) from sales.orders order by order_id limit 3",
  "select count(*) from sales.orders where status::char = 'o'",
  'select status::char, count(*) from sales.orders group by 1 order by 1',
  "select x::char, x::character from (values ('xyz'), (null), ('')) v(x) order by 1",
  // ±infinity of timestamptz as text (it was NULL: the zone offset of an infinite value is NULL), timestamp and date too
  "select 'infinity'::timestamptz::text, '-infinity'::timestamptz::text, 'infinity'::timestamp::text, '-infinity'::date::text, 'infinity'::date::text",
  "select concat('infinity'::timestamptz, 'x'), format('%s', '-infinity'::timestamptz), 'infinity'::timestamptz || '', format('%s', '-infinity'::timestamp)",
  "select x::text, concat(x, '') from (select 'infinity'::timestamptz union all select '-infinity' union all select '2024-01-01 10:00+00' union all select null) v(x) order by x",
  // reg* values by name in || and the JSON builders (they were the OID's digits)
  "select 'int4'::regtype || 'x', 'x' || 'sales.orders'::regclass, to_json('int4'::regtype), json_build_object('t', 'text'::regtype, 'n', 'pg_catalog'::regnamespace)",
  "select json_build_array('int4'::regtype, 1), to_json(t.oid::regtype) from pg_type t where t.oid = 23",
  "select t.oid::regtype || '', json_build_object('x', t.oid::regtype) from pg_type t where t.oid in (23, 25) order by 1",
];

/** `types`: declared in Parse (0 or absent: PostgreSQL infers them). */
export const REVIEW_57_PARAMS: ReadonlyArray<{ sql: string; params: (string | null)[]; types?: number[] }> = [
  // a parameter inferred numeric beside a numeric one: described numeric, as sent (Describe said float8); the
  // count and the numeric echo below were already PostgreSQL's (controls)
  { sql: 'select $1::numeric / $2', params: ['7', '2'] },
  { sql: 'select $1::numeric / $2, $3::int + 1', params: ['7', '2', '3'] },
  { sql: 'select count(*) from sales.orders where amount > $1::numeric / $2', params: ['7', '2'] },
  // typed parameters echoed as PostgreSQL writes them (float8 `3`, `-0`, `Infinity`; arrays `{1,2}`; bytea `\x00ff`; bool `t`)
  { sql: 'select $1::text, $2::text, $3::text', params: ['3.0', '-0.0', 'inf'], types: [701, 701, 701] },
  { sql: "select $1::float8::text, concat($1::float8, 'x'), format('%s', $1::float8)", params: ['3.0'] },
  { sql: 'select $1::text', params: ['{1,2,NULL}'], types: [1007] },
  { sql: 'select $1::int4[]::text', params: ['{1,2,NULL}'] },
  { sql: 'select $1::text, $1', params: ['{1,2}'], types: [1007] },
  { sql: 'select $1::text', params: ['\\x00ff'], types: [17] },
  { sql: "select $1::bytea::text, concat($1::bytea, '')", params: ['\\x00ff'] },
  { sql: "select format('%s', $1)", params: ['\\x00ff'], types: [17] },
  { sql: "select concat($1, 'x')", params: ['true'], types: [16] },
  { sql: "select $1::text || 'x'", params: ['3.0'], types: [701] },
  { sql: 'select $1::numeric, $1::numeric::text', params: ['3.0'], types: [1700] },
];
