/**
 * Values inside JSON as PostgreSQL writes them (datum_to_json), where DuckDB's `to_json` differs:
 * timestamps in ISO 8601 with a `T` (timestamptz with its `+00:00` offset), numerics with their scale
 * (`28.80`), floats as float8out prints them (`100`, NaN quoted). Used by `json_build_object` (also
 * PostgreSQL's `{"k" : v, …}` spacing) and a record's JSON — `row_to_json`, `to_json`, `json_agg` of
 * `row(…)` (fields f1…fn); of a whole-row reference, whose fields the rewrite cannot see, refused 0A000
 * when DuckDB would print one of them differently.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { COMPAT_DB } from './catalog/names.js';
import { dispatch, tagOf } from './pg-result-types.js';
import { call, names, str, strConst, type Node } from './rewrite-nodes.js';

const NUMBERS = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'];
/** Types DuckDB could cast implicitly into the TIMESTAMP overload: each named, so it keeps its own JSON. */
const OTHERS = ['VARCHAR', 'BOOLEAN', 'DATE', 'TIME', 'INTERVAL', 'UUID'];
const BC_REFUSED = `error('a timestamp before year 1 inside JSON is not supported by fdl-gateway|Format it yourself: to_char(ts, ''YYYY-MM-DD"T"HH24:MI:SS BC'').')`;

/** Every type DuckDB could cast implicitly to DECIMAL: named, so such a value keeps its own JSON. */
const JSON_KEPT = [...NUMBERS, 'UHUGEINT', 'DOUBLE', 'FLOAT', ...OTHERS];
/** The types whose avg is numeric (pg-macros.ts AVG). */
const EXACT = [
  'DECIMAL',
  'HUGEINT',
  'UBIGINT',
  'UHUGEINT',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
];

const JSONB_REFUSED = `CAST(error('jsonb_agg() of a value whose jsonb text differs from its json text (a json value, a list, a record, a float with an exponent) is not supported by fdl-gateway|Aggregate json instead: json_agg(x).') AS JSON)`;

/** A json value (a nested json_build_object; it binds to the VARCHAR overload) is embedded as written: to_json would respace it. */
const AS_WRITTEN = "CASE WHEN typeof(x) = 'JSON' THEN CAST(x AS JSON) ELSE to_json(x) END";

export const JSON_VALUE_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_jv(t TIMESTAMP, x)',
    `CASE WHEN CAST(x AS VARCHAR) LIKE '%(BC)%' THEN ${BC_REFUSED} ELSE to_json(replace(CAST(x AS VARCHAR), ' ', 'T')) END`,
  ],
  [
    '_pgsem_jv(t TIMESTAMP WITH TIME ZONE, x)',
    `CASE WHEN CAST(x AS VARCHAR) LIKE '%(BC)%' THEN ${BC_REFUSED} ELSE to_json(regexp_replace(replace(CAST(x AS VARCHAR), ' ', 'T'), '([+-][0-9][0-9])$', '\\1:00')) END`,
  ],
  ['_pgsem_jv(t DECIMAL, x)', 'CAST(CAST(x AS VARCHAR) AS JSON)'],
  // The text's overload is picked by the tag `t`: an aggregate `x` (`sum(amount)`) matched every one.
  ...['DOUBLE', 'FLOAT'].map((t): [string, string] => [
    `_pgsem_jv(t ${t}, x)`,
    'CASE WHEN isnan(x) OR isinf(x) THEN to_json(_pgsem_text(t, x)) ELSE CAST(_pgsem_text(t, x) AS JSON) END',
  ]),
  ...[...NUMBERS, ...OTHERS].map((t): [string, string] => [`_pgsem_jv(t ${t}, x)`, AS_WRITTEN]),
  ['_pgsem_jv(t, x)', AS_WRITTEN],
  // avg of integers and numerics (by its argument's tag `t`; a, s, n: avg, sum, count) and numeric division
  // (by the quotient's tag `v`): the quotient's text at PostgreSQL's scale (`4.0000000000000000`), where
  // DECIMAL(38,20) printed 20 decimals. Every other type keeps its own JSON, as _pgsem_avg and _pgsem_div answer.
  ...EXACT.map((t): [string, string] => [
    `_pgsem_javg(t ${t}, a, s, n)`,
    'CASE WHEN n = 0 THEN NULL ELSE CAST(_pgsem_ndivtext(s, n) AS JSON) END',
  ]),
  ...['FLOAT', 'DOUBLE'].map((t): [string, string] => [
    `_pgsem_javg(t ${t}, a, s, n)`,
    '_pgsem_jv(CAST(1 AS DOUBLE), a)',
  ]),
  ...[
    ['DATE', 'date'],
    ['TIMESTAMP', 'timestamp without time zone'],
    ['TIMESTAMP WITH TIME ZONE', 'timestamp with time zone'],
    ['TIME', 'time without time zone'],
  ].map(([t, pg]): [string, string] => [
    `_pgsem_javg(t ${t}, a, s, n)`,
    `CAST(CASE WHEN a IS NULL OR true THEN error('function avg(${pg}) does not exist') END AS JSON)`,
  ]),
  ...['VARCHAR', 'BOOLEAN', 'INTERVAL', 'UUID'].map((t): [string, string] => [
    `_pgsem_javg(t ${t}, a, s, n)`,
    'to_json(a)',
  ]),
  ['_pgsem_javg(t, a, s, n)', 'to_json(a)'],
  [
    '_pgsem_jdiv(v DECIMAL, a, b)',
    'CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE CAST(_pgsem_ndivtext(a, b) AS JSON) END',
  ],
  ['_pgsem_jdiv(v INTERVAL, a, b)', '_pgsem_jv(v, _pgsem_idiv(a, b))'],
  ...JSON_KEPT.filter((t) => t !== 'INTERVAL').map((t): [string, string] => [
    `_pgsem_jdiv(v ${t}, a, b)`,
    '_pgsem_jv(v, a / b)',
  ]),
  ['_pgsem_jdiv(v, a, b)', 'to_json(a / b)'],
  // DISTINCT json_agg's texts, aggregated beside their values (pairs ordered by the value: jsonAggOfValues).
  ['_pgsem_jtexts(l)', "list_transform(l, lambda fdl_pg_e: fdl_pg_e['j'])"],
  // jsonb_agg's elements: json's text where jsonb's normal form is the same; where it is not (a json value,
  // respaced and its keys sorted; a float printed with an exponent, which jsonb writes as a numeric) refused.
  ...[...NUMBERS, 'UHUGEINT', 'DECIMAL', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', ...OTHERS].map(
    (t): [string, string] => [
      `_pgsem_jbv(t ${t}, x)`,
      t === 'VARCHAR'
        ? `CASE WHEN typeof(x) = 'JSON' THEN ${JSONB_REFUSED} ELSE _pgsem_jv(t, x) END`
        : '_pgsem_jv(t, x)',
    ],
  ),
  ...[
    ['DOUBLE', '1e15'],
    ['FLOAT', '1e6'],
  ].map(([t, large]): [string, string] => [
    `_pgsem_jbv(t ${t}, x)`,
    `CASE WHEN abs(x) >= ${large} OR (x <> 0 AND abs(x) < 1e-4) THEN ${JSONB_REFUSED} ELSE _pgsem_jv(t, x) END`,
  ]),
  ['_pgsem_jbv(t, x)', JSONB_REFUSED],
];

const concat = (parts: Node[]): Node =>
  parts.reduce((l, r) => ({ A_Expr: { kind: 'AEXPR_OP', name: [str('||')], lexpr: l, rexpr: r } }));
const asType = (arg: Node, type: string): Node => ({
  TypeCast: { arg, typeName: { names: [str(type)], typemod: -1 } },
});

/** A value's JSON text as PostgreSQL writes it; `null` for NULL. An operand no tag can stand for keeps DuckDB's `to_json`. */
function jsonText(v: Node): Node {
  // A truth value is `true`/`false` in both; and DuckDB cannot pick an overload for a comparison of an
  // outer query's column inside a subquery (SQLAlchemy's identity options: `'always', a.attidentity = 'a'`).
  // A json value (`x::json`, a nested json_agg) is embedded as written, as PostgreSQL's json keeps its text.
  const value = isJson(v)
    ? v
    : ((isTruthValue(v) ? undefined : (exactQuotientJson(v) ?? dispatch('jv', [v], [v]))) ?? call(['to_json'], [v]));
  return { CoalesceExpr: { args: [asType(value, 'varchar'), strConst('null')] } };
}

/** A value's text inside jsonb_agg: its json text where jsonb's is the same, else refused (`_pgsem_jbv`). */
function jsonbText(v: Node): Node {
  if (isJson(v)) throw jsonbRefused();
  const value = isTruthValue(v) ? call(['to_json'], [v]) : dispatch('jbv', [v], [v]);
  if (!value) throw jsonbRefused();
  return { CoalesceExpr: { args: [asType(value, 'varchar'), strConst('null')] } };
}

const jsonbRefused = (): SqlError =>
  new SqlError(
    SQLSTATE.featureNotSupported,
    'jsonb_agg() of a json value, or of a value whose type the rewrite cannot tell, is not supported by fdl-gateway',
    undefined,
    "jsonb's normal form of such values is not emulated: aggregate json instead, json_agg(x).",
  );

/**
 * `to_json(x)` of a value that is not a record: its JSON as PostgreSQL writes it (a timestamp with a `T`,
 * a numeric with its scale); DuckDB's to_json wrote `"2024-01-21 01:04:00"`. Undefined where DuckDB's stays.
 */
export function scalarToJson(v: Node): Node | undefined {
  if (isJson(v) || isTruthValue(v)) return undefined;
  const value = exactQuotientJson(v) ?? dispatch('jv', [v], [v]);
  return value ? asType(value, 'json') : undefined;
}

/**
 * An avg or a numeric division the rewrite made exact (`_pgsem_avg`, `_pgsem_div`: DECIMAL(38,20)): its JSON
 * at PostgreSQL's own scale, as the wire shows it as a select-list item of its own (shown-numeric.ts).
 */
function exactQuotientJson(v: Node): Node | undefined {
  const fc = v.FuncCall as Node | undefined;
  const name = fc ? names(fc.funcname as Node[]).join('.') : '';
  const args = (fc?.args ?? []) as Node[];
  if (args.length !== 4) return undefined;
  // _pgsem_avg(argument's tag, avg, sum, count): the argument's tag picks the rule, as in _pgsem_avg
  if (name === `${COMPAT_DB}.pgcat._pgsem_avg`) return call([COMPAT_DB, 'pgcat', '_pgsem_javg'], args);
  // _pgsem_div(ta, tb, a, b): the quotient's type (its tag) picks the rule
  const tag = name === `${COMPAT_DB}.pgcat._pgsem_div` ? tagOf(v) : undefined;
  return tag && call([COMPAT_DB, 'pgcat', '_pgsem_jdiv'], [tag, args[2]!, args[3]!]);
}

const isJson = (v: Node): boolean =>
  names(v.TypeCast?.typeName?.names as Node[] | undefined).join('.') === 'json' &&
  !v.TypeCast.typeName.arrayBounds?.length;

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
/** A comparison, a boolean connective or a NULL/boolean test: its value is a boolean. */
function isTruthValue(v: Node): boolean {
  const op = names(v.A_Expr?.name as Node[] | undefined).slice(-1)[0];
  return (
    (v.A_Expr?.kind === 'AEXPR_OP' && op !== undefined && COMPARISONS.has(op)) ||
    !!v.BoolExpr ||
    !!v.NullTest ||
    !!v.BooleanTest
  );
}

/** An object key: a string constant escaped now (PostgreSQL's escape_json is JSON's); anything else as text, NULL refused. */
function jsonKey(k: Node, position: number): Node {
  const s = k.A_Const?.sval?.sval as string | undefined;
  if (s !== undefined) return strConst(JSON.stringify(s));
  // PostgreSQL's words; DuckDB's error() is 22023, as PostgreSQL's code for it.
  const nullKey = call(['error'], [strConst(`argument ${position} cannot be null`)]);
  return { CoalesceExpr: { args: [asType(call(['to_json'], [asType(k, 'varchar')]), 'varchar'), nullKey] } };
}

/** `json_build_object(k, v, …)`: PostgreSQL's text, `{"k" : v, "k2" : v2}`. */
export function jsonBuildObject(args: Node[]): Node {
  if (args.length % 2 !== 0) {
    throw new SqlError(
      SQLSTATE.invalidParameterValue,
      'argument list must have even number of elements',
      undefined,
      'The arguments of json_build_object() must consist of alternating keys and values.',
    );
  }
  const parts: Node[] = [strConst('{')];
  for (let i = 0; i < args.length; i += 2) {
    parts.push(strConst(i === 0 ? '' : ', '), jsonKey(args[i]!, i + 1), strConst(' : '), jsonText(args[i + 1]!));
  }
  parts.push(strConst('}'));
  return asType(concat(parts), 'json');
}

/** `json_build_array(v, …)`: PostgreSQL's text, `[1, "a", null]`. */
export function jsonBuildArray(args: Node[]): Node {
  const parts: Node[] = [strConst('[')];
  args.forEach((v, i) => parts.push(strConst(i === 0 ? '' : ', '), jsonText(v)));
  parts.push(strConst(']'));
  return asType(concat(parts), 'json');
}

/**
 * `json_object_agg(k, v)` (ORDER BY, FILTER kept): PostgreSQL's text `{ "k" : v, "k2" : v2 }`, the key
 * as its text, a value as PostgreSQL writes it in JSON; no rows, NULL; a NULL key refused as PostgreSQL.
 */
export function jsonObjectAgg(fc: Node, key: Node, value: Node): Node {
  const nullKey = call(['error'], [strConst('field name must not be null')]);
  const k = { CoalesceExpr: { args: [asType(call(['to_json'], [asType(key, 'varchar')]), 'varchar'), nullKey] } };
  const pair = concat([k, strConst(' : '), jsonText(value)]);
  const list = { FuncCall: { ...fc, funcname: [str('list')], args: [pair] } };
  return asType(concat([strConst('{ '), call(['array_to_string'], [list, strConst(', ')]), strConst(' }')]), 'json');
}

export const isJsonBuildArray = (fc: Node): boolean => {
  const n = names(fc.funcname);
  return n[n.length - 1] === 'json_build_array' && (n.length === 1 || (n.length === 2 && n[0] === 'pg_catalog'));
};

/** `row_to_json(row(a, b))`: `{"f1":a,"f2":b}` as PostgreSQL names a record's fields. */
export function recordToJson(fields: Node[]): Node {
  const parts: Node[] = [strConst('{')];
  fields.forEach((f, i) => parts.push(strConst(`${i === 0 ? '' : ','}"f${i + 1}":`), jsonText(f)));
  parts.push(strConst('}'));
  return asType(concat(parts), 'json');
}

/** `row_to_json(t)` of a whole-row reference: DuckDB's, unless a field's type prints differently (refused when read). */
export function wholeRowToJson(fc: Node, row: Node): Node {
  // DuckDB's type text of the struct (`STRUCT(a TIMESTAMP, …)`) names every field's type, nested ones too.
  const differs = call(
    ['regexp_matches'],
    [call(['typeof'], [row]), strConst('TIMESTAMP|DECIMAL|DOUBLE|FLOAT|BLOB|\\[\\]')],
  );
  const refusal = call(
    ['error'],
    [
      strConst(
        "row_to_json() of a row with timestamp, numeric, float, bytea or array columns is not supported by fdl-gateway|DuckDB's JSON prints them differently: json_build_object('a', t.a, 'b', t.b) prints them as PostgreSQL.",
      ),
    ],
  );
  return {
    CaseExpr: {
      args: [{ CaseWhen: { expr: differs, result: refusal } }],
      defresult: { FuncCall: { ...fc, args: [row] } },
    },
  };
}

export const isJsonBuildObject = (fc: Node): boolean => {
  const n = names(fc.funcname);
  return n[n.length - 1] === 'json_build_object' && (n.length === 1 || (n.length === 2 && n[0] === 'pg_catalog'));
};

/**
 * `json_agg(x)` (ORDER BY, DISTINCT, FILTER and OVER kept): each value written as PostgreSQL writes it —
 * a nested `json_build_object` as written, numerics with their scale, timestamps with a `T` — where
 * DuckDB's `to_json` would respace and reformat them. With DISTINCT, DuckDB orders only by the
 * aggregated expression: the value and its text are aggregated as a pair, ordered by the value.
 * `jsonb`: jsonb_agg's elements, json's text where it is jsonb's normal form too, else refused (`_pgsem_jbv`).
 */
export function jsonAggOfValues(fc: Node, value: Node, jsonb = false): Node {
  const text = jsonb ? jsonbText(value) : jsonText(value);
  let list: Node;
  if (fc.agg_distinct) {
    const pair = call(['struct_pack'], [named('k', value), named('j', text)]);
    // (compared without their positions in the text: `json_agg(distinct s order by s)` names s twice)
    const spelled = (n: unknown) => JSON.stringify(n, (k, v: unknown) => (k === 'location' ? undefined : v));
    const same = spelled(value);
    const order = ((fc.agg_order ?? []) as Node[]).map((o) =>
      spelled(o.SortBy?.node) === same ? { SortBy: { ...o.SortBy, node: pair } } : o,
    );
    list = call(
      [COMPAT_DB, 'pgcat', '_pgsem_jtexts'],
      [{ FuncCall: { ...fc, funcname: [str('list')], args: [pair], agg_order: order } }],
    );
  } else list = { FuncCall: { ...fc, funcname: [str('list')], args: [text] } };
  return asType(concat([strConst('['), call(['array_to_string'], [list, strConst(', ')]), strConst(']')]), 'json');
}

const named = (name: string, arg: Node): Node => ({ NamedArgExpr: { arg, name, argnumber: -1 } });
