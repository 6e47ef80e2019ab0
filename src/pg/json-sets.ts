/**
 * PostgreSQL's JSON set-returning functions (json_each, jsonb_array_elements_text, json_object_keys, …)
 * in FROM and in a select list. Each becomes a compat macro returning the members as a list, unnested:
 * the members' text is DuckDB's re-print of them, which is PostgreSQL's text only where nothing is
 * re-printed differently — json keeps its input text, jsonb prints its normal form (`, ` and `: `, keys
 * by length then bytes). The macro checks that at run time and refuses the rest (0A000 with a hint):
 * a number or escape DuckDB re-prints (`1.50`, `1e2`, `\u00e9`), spacing inside a json member
 * container, a jsonb object nested below the members, duplicate jsonb keys. Non-container input raises
 * PostgreSQL's 22023 with its words; a NULL argument yields no rows.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { jsonbText } from './pg-jsonb.js';
import { refuse } from './pg-calls.js';
import { call, compat, names, str, strConst, typedAs, type Node } from './rewrite-nodes.js';

type Kind = 'elements' | 'each' | 'keys';
interface JsonSetFunction {
  kind: Kind;
  jsonb: boolean;
  text: boolean;
}

const FUNCTIONS: ReadonlyMap<string, JsonSetFunction> = new Map(
  (['json', 'jsonb'] as const).flatMap((t): Array<[string, JsonSetFunction]> => [
    [`${t}_array_elements`, { kind: 'elements', jsonb: t === 'jsonb', text: false }],
    [`${t}_array_elements_text`, { kind: 'elements', jsonb: t === 'jsonb', text: true }],
    [`${t}_each`, { kind: 'each', jsonb: t === 'jsonb', text: false }],
    [`${t}_each_text`, { kind: 'each', jsonb: t === 'jsonb', text: true }],
    [`${t}_object_keys`, { kind: 'keys', jsonb: t === 'jsonb', text: true }],
  ]),
);

/** Whether `name` is one of PostgreSQL's JSON set-returning functions this module answers. */
export const isJsonSetFunction = (name: string | undefined): boolean => name !== undefined && FUNCTIONS.has(name);

// A JSON string token (RE2): the text between its quotes, escapes included.
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const J = 'CAST(j AS JSON)';
const T = 'CAST(j AS VARCHAR)';
const C = `CAST(json(${J}) AS VARCHAR)`;
const NULL_JSON = "CAST('null' AS JSON)";
const ARRAY = `list_transform(CAST(${J} AS JSON[]), lambda m: coalesce(m, ${NULL_JSON}))`;
const ENTRIES = `list_transform(map_entries(CAST(${J} AS MAP(VARCHAR, JSON))), lambda e: {'key': e.key, 'value': coalesce(e.value, ${NULL_JSON})})`;
/** jsonb's key order: shorter first, then by bytes (DuckDB compares VARCHAR bytewise). */
const byJsonbKey = (list: string, key: string) =>
  `list_transform(list_sort(list_transform(${list}, lambda x: {'n': strlen(${key}), 'x': x})), lambda s: s.x)`;
const uniqueKeys = (keys: string) => `len(list_distinct(${keys})) = len(${keys})`;
const containers = (members: string) => `len(list_filter(${members}, lambda m: json_type(m) IN ('ARRAY', 'OBJECT')))`;
const objects = (members: string) => `len(list_filter(${members}, lambda m: json_type(m) = 'OBJECT'))`;

const REFUSED_HINT =
  "PostgreSQL keeps json's text and prints jsonb's normal form; DuckDB re-prints numbers such as 1.50 or 1e2, escapes, spacing inside nested values and nested jsonb objects' key order. Read the members with ->> (as text) or cast the numbers: (j ->> 'k')::numeric.";

/** What PostgreSQL raises for a value of the wrong shape (22023), by function. */
function shapeErrors(name: string, f: JsonSetFunction): { scalar: string; other: string } {
  if (f.kind === 'keys') return { scalar: `cannot call ${name} on a scalar`, other: `cannot call ${name} on an array` };
  if (f.kind === 'elements')
    return f.jsonb
      ? { scalar: 'cannot extract elements from a scalar', other: 'cannot extract elements from an object' }
      : { scalar: `cannot call ${name} on a scalar`, other: `cannot call ${name} on a non-array` };
  return f.jsonb
    ? { scalar: `cannot call ${name} on a non-object`, other: `cannot call ${name} on a non-object` }
    : { scalar: 'cannot deconstruct a scalar', other: 'cannot deconstruct an array as an object' };
}

/** A member's text: a string's characters, a JSON null NULL, else its JSON (spaced as jsonb's). */
const memberText = (m: string, jsonb: boolean) =>
  `CASE json_type(${m}) WHEN 'VARCHAR' THEN json_extract_string(${m}, '$') WHEN 'NULL' THEN NULL ELSE ${jsonb ? `_pgsem_jsp(CAST(${m} AS VARCHAR))` : `CAST(${m} AS VARCHAR)`} END`;
/** A member as jsonb prints it: a container spaced, a scalar as DuckDB prints it (checked stable). */
const memberJsonb = (m: string) =>
  `CASE WHEN json_type(${m}) IN ('ARRAY', 'OBJECT') THEN CAST(_pgsem_jsp(CAST(${m} AS VARCHAR)) AS JSON) ELSE ${m} END`;

/**
 * The macros of one function: `_pgsem_<name>(j)` its members (elements, values or keys) as a list;
 * for json_each and relatives `_pgsem_<name>_k(j)` the keys, in the same order.
 */
function macros(name: string, f: JsonSetFunction): Array<[string, string]> {
  const errors = shapeErrors(name, f);
  const expected = f.kind === 'elements' ? 'ARRAY' : 'OBJECT';
  const refused = `${name}() of a value whose members DuckDB prints differently is not supported by fdl-gateway|${REFUSED_HINT}`;
  // typed: a statement described before its parameters are bound sees the list's type (not NULL's)
  const guarded = (exact: string, list: string, type = f.text ? 'VARCHAR[]' : 'JSON[]') =>
    `CAST(CASE WHEN j IS NULL THEN NULL
      WHEN json_type(${J}) <> '${expected}' THEN error(CASE WHEN json_type(${J}) IN ('ARRAY', 'OBJECT') THEN '${errors.other}' ELSE '${errors.scalar}' END)
      WHEN NOT (${exact}) THEN error('${refused.replaceAll("'", "''")}')
      ELSE ${list} END AS ${type})`;
  const stable = `_pgsem_jstable(${T}, ${C})`;
  if (f.kind === 'keys') {
    const keys = `map_keys(CAST(${J} AS MAP(VARCHAR, JSON)))`;
    return f.jsonb
      ? [[`_pgsem_${name}(j)`, guarded(`strpos(${T}, '\\u0000') = 0 AND ${uniqueKeys(keys)}`, byJsonbKey(keys, 'x'))]]
      : [[`_pgsem_${name}(j)`, guarded(`strpos(${T}, '\\u0000') = 0`, keys)]];
  }
  const members = f.kind === 'elements' ? ARRAY : `list_transform(${ENTRIES}, lambda e: e.value)`;
  // json: a member container's text is the input's own, so only where the input has no spacing at all
  const exact = f.jsonb
    ? `${stable} AND _pgsem_jbraces(${C}) = ${f.kind === 'each' ? 1 : 0} + ${objects(members)}
        AND list_bool_and(list_transform(${members}, lambda m: json_type(m) <> 'OBJECT' OR (json_keys(m) = ${byJsonbKey('json_keys(m)', 'x')} AND ${uniqueKeys('json_keys(m)')})))
        ${f.kind === 'each' ? `AND ${uniqueKeys(`map_keys(CAST(${J} AS MAP(VARCHAR, JSON)))`)}` : ''}`
    : `${stable} AND (trim(${T}) = ${C} OR ${containers(members)} = 0)`;
  // jsonb_each iterates its keys in jsonb's order
  const entries = f.jsonb ? byJsonbKey(ENTRIES, 'x.key') : ENTRIES;
  const value = (m: string) => (f.text ? memberText(m, f.jsonb) : f.jsonb ? memberJsonb(m) : m);
  if (f.kind === 'elements')
    return [[`_pgsem_${name}(j)`, guarded(exact, `list_transform(${ARRAY}, lambda m: ${value('m')})`)]];
  return [
    [`_pgsem_${name}(j)`, guarded(exact, `list_transform(${entries}, lambda e: ${value('e.value')})`)],
    [`_pgsem_${name}_k(j)`, guarded(exact, `list_transform(${entries}, lambda e: e.key)`, 'VARCHAR[]')],
  ];
}

/**
 * `FROM json_array_elements(j) e` (one function of one column, an alias without column names): in
 * PostgreSQL `e` is then that column, never a record. The column's name (`value`, or the alias for the
 * keys), else undefined.
 */
export function jsonScalarColumn(rf: Node | undefined): string | undefined {
  if (!rf || rf.ordinality || rf.is_rowsfrom || !rf.alias || rf.alias.colnames) return undefined;
  const calls = (rf.functions as Node[] | undefined) ?? [];
  const fc = calls.length === 1 ? (calls[0]?.List?.items?.[0]?.FuncCall as Node | undefined) : undefined;
  const f = FUNCTIONS.get(names(fc?.funcname).slice(-1)[0] ?? '');
  if (!f || f.kind === 'each') return undefined;
  return f.kind === 'keys' ? String(rf.alias.aliasname) : 'value';
}

/** The FROM items of `from` (joins' sides too) that are such a column: alias → column, added to `into`. */
export function jsonScalarAliases(from: Node[] | undefined, into: Map<string, string>): Map<string, string> {
  for (const item of from ?? []) {
    if (item.JoinExpr) jsonScalarAliases([item.JoinExpr.larg, item.JoinExpr.rarg], into);
    const named = (item.RangeVar ?? item.RangeSubselect ?? item.RangeFunction)?.alias?.aliasname as string | undefined;
    const column = jsonScalarColumn(item.RangeFunction as Node | undefined);
    if (named && column) into.set(named, column);
    else if (named) into.delete(named);
  }
  return into;
}

/** An untyped string constant read as jsonb is normalised first, as PostgreSQL's jsonb_in does. */
function argument(name: string, args: Node[] | undefined): Node {
  if (args?.length !== 1)
    throw new SqlError(
      SQLSTATE.undefinedFunction,
      `function ${name} with ${args?.length ?? 0} arguments does not exist`,
      undefined,
      `${name} takes one json${FUNCTIONS.get(name)!.jsonb ? 'b' : ''} value.`,
    );
  const sval = args[0]!.A_Const?.sval?.sval as string | undefined;
  return FUNCTIONS.get(name)!.jsonb && typeof sval === 'string' ? strConst(jsonbText(sval)) : args[0]!;
}

/**
 * In a select list: the members unnested (DuckDB zips several set-returning calls of one select list
 * as PostgreSQL does, the shorter padded with NULLs). `shown`: an outermost select-list item, where a
 * jsonb member is sent as jsonb. json_each and relatives return records there: refused.
 */
export function jsonSetInSelect(name: string, args: Node[] | undefined, shown: boolean): Node {
  const f = FUNCTIONS.get(name)!;
  if (f.kind === 'each')
    throw refuse(
      `${name}() in a select list (PostgreSQL returns records)`,
      `Call it in FROM: SELECT key, value FROM ${name}(j).`,
    );
  const rows = call(['unnest'], [compat(`_pgsem_${name}`, [argument(name, args)])]);
  return f.jsonb && !f.text && shown ? typedAs('jsonb', rows) : rows;
}

/** In ROWS FROM (…) beside other functions, or with OVER: 0A000. */
export function jsonSetElsewhereRefused(name: string): SqlError {
  return refuse(
    `${name}() in ROWS FROM or with OVER`,
    `Call it alone in FROM: SELECT * FROM ${name}(j) WITH ORDINALITY.`,
  );
}

/**
 * In FROM (`rf` its RangeFunction, of this one function): a subquery of its columns, named as
 * PostgreSQL names them (`value`; `key`, `value`; the function's name or the alias for the keys), the
 * alias' column names first, then `ordinality`. DuckDB reads the subquery laterally, as PostgreSQL
 * reads a function in FROM.
 */
export function jsonSetInFrom(name: string, args: Node[] | undefined, rf: Node): Node {
  const f = FUNCTIONS.get(name)!;
  if (f.jsonb && !f.text)
    throw refuse(
      `${name}() in FROM (its values would be sent as json, not jsonb)`,
      `Use ${name}_text(j) in FROM for the values as text, or ${name.replace('jsonb', 'json')}(j::json) for json.`,
    );
  // The argument computed once, in a FROM of its own: each macro names its value many times, and a
  // long argument (json_build_object's) copied into each made a new text bind for over a second.
  const arg: Node = { ColumnRef: { fields: [str('fdl_json_arg'), str('j')] } };
  const argFrom: Node = {
    RangeSubselect: {
      subquery: {
        SelectStmt: {
          targetList: [{ ResTarget: { name: 'j', val: argument(name, args) } }],
          limitOption: 'LIMIT_OPTION_DEFAULT',
          op: 'SETOP_NONE',
        },
      },
      alias: { aliasname: 'fdl_json_arg' },
    },
  };
  const own = f.kind === 'each' ? ['key', 'value'] : f.kind === 'elements' ? ['value'] : [rf.alias?.aliasname ?? name];
  const lists =
    f.kind === 'each'
      ? [compat(`_pgsem_${name}_k`, [arg]), compat(`_pgsem_${name}`, [arg])]
      : [compat(`_pgsem_${name}`, [arg])];
  const items = lists.map((l) => call(['unnest'], [l]));
  if (rf.ordinality)
    items.push(
      call(['unnest'], [call(['generate_series'], [{ A_Const: { ival: { ival: 1 } } }, call(['len'], [lists[0]!])])]),
    );
  const written = names(rf.alias?.colnames);
  if (written.length > items.length)
    throw new SqlError(
      '42P10',
      `table "${rf.alias?.aliasname ?? name}" has ${items.length} columns available but ${written.length} columns specified`,
    );
  const columns = [...own, ...(rf.ordinality ? ['ordinality'] : [])].map((c, i) => written[i] ?? c);
  return {
    RangeSubselect: {
      lateral: true,
      subquery: {
        SelectStmt: {
          targetList: items.map((val, i) => ({ ResTarget: { name: columns[i], val } })),
          fromClause: [argFrom],
          limitOption: 'LIMIT_OPTION_DEFAULT',
          op: 'SETOP_NONE',
        },
      },
      alias: { aliasname: rf.alias?.aliasname ?? name, colnames: columns.map(str) },
    },
  };
}

/** The macros of the catalog emulation (pg-macros.ts): helpers, then each function's. */
export const JSON_SET_MACROS: ReadonlyArray<[string, string]> = [
  // the text without the whitespace between tokens
  ['_pgsem_jsq(t)', `array_to_string(regexp_extract_all(t, '${STRING}|[^\\s"]+'), '')`],
  // compact JSON spaced as jsonb prints it
  [
    '_pgsem_jsp(c)',
    `array_to_string(list_transform(regexp_extract_all(c, '${STRING}|[,:]|[^",:]+'), lambda x: CASE x WHEN ',' THEN ', ' WHEN ':' THEN ': ' ELSE x END), '')`,
  ],
  // `{` tokens of compact JSON
  ['_pgsem_jbraces(c)', `len(list_filter(regexp_extract_all(c, '${STRING}|[{]'), lambda x: x = '{'))`],
  // members DuckDB prints as the input has them: no number or escape re-printed, no NUL
  ['_pgsem_jstable(t, c)', `_pgsem_jsq(t) = c AND strpos(t, '\\u0000') = 0`],
  ...[...FUNCTIONS].flatMap(([name, f]) => macros(name, f)),
];
