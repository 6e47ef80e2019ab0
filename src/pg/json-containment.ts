/**
 * jsonb's containment operators `@>` and `<@` as PostgreSQL 15 decides them (JsonbDeepContains): an
 * object contains an object whose every key it has with a contained value; an array contains an array
 * whose every scalar element equals one of its scalars and whose every container element is contained
 * in one of its containers of the same kind; a top-level array also contains a lone scalar it holds.
 * DuckDB's json_contains searches every level (`'{"a":{"b":1}}'` "contains" `'{"b":1}'`), so the rewrite
 * calls these macros instead. A macro cannot call itself: one macro per level of the right side's
 * nesting, `CONTAINMENT_DEPTH` deep, and past that a row is refused (0A000).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { COMPAT_DB } from './catalog/names.js';
import { jsonbText } from './pg-jsonb.js';

type Node = Record<string, any>;

/** Levels of the right side's nesting answered; a deeper right side is refused when a row reaches it. */
export const CONTAINMENT_DEPTH = 8;

const str = (sval: string): Node => ({ String: { sval } });
const sem = (fn: string, args: Node[]): Node => ({
  FuncCall: { funcname: [COMPAT_DB, 'pgcat', `_pgsem_${fn}`].map(str), args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
const asJson = (arg: Node): Node => ({ TypeCast: { arg, typeName: { names: [str('json')], typemod: -1 } } });

/** `x::jsonb`, `to_jsonb(x)`, `jsonb_build_object(…)`, …: syntactically a jsonb value. */
export function isJsonbValued(n: Node | undefined): boolean {
  const names = (n?.TypeCast?.typeName as Node | undefined)?.names as Node[] | undefined;
  if (names && String(names[names.length - 1]?.String?.sval).toLowerCase() === 'jsonb') return true;
  const fn = n?.FuncCall?.funcname as Node[] | undefined;
  const name = String(fn?.[fn.length - 1]?.String?.sval ?? '').toLowerCase();
  return name === 'to_jsonb' || (name.startsWith('jsonb_') && name !== 'jsonb_typeof' && !name.endsWith('_text'));
}

/**
 * An untyped string that only JSON reads (`'{"a": 1}'`, `'[1, 2]'`: no array literal starts so), which
 * PostgreSQL resolves to jsonb beside a jsonb column.
 */
function isJsonLiteral(n: Node | undefined): boolean {
  const text = n?.A_Const?.sval?.sval;
  if (typeof text !== 'string' || !/^\s*(?:\{\s*"|\[)/.test(text)) return false;
  try {
    jsonbText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `l @> r`, `l <@ r` where a side as written is jsonb or a string only JSON reads: PostgreSQL's containment of the rewritten sides;
 * undefined for other operands (arrays).
 */
export function jsonContainment(op: string, written: Node[], l: Node, r: Node): Node | undefined {
  if ((op !== '@>' && op !== '<@') || !written.some((n) => isJsonbValued(n) || isJsonLiteral(n))) return undefined;
  const [outer, inner] = op === '@>' ? [l, r] : [r, l];
  const small = (n: Node | undefined) => {
    const v = constantJson(n);
    return v !== undefined && jsonNodes(v) <= MAX_CONSTANT_NODES;
  };
  if (!small(written[0]) && !small(written[1]))
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `jsonb containment without a side that is a constant of at most ${MAX_CONSTANT_NODES} values is not supported by fdl-gateway`,
      undefined,
      `Write one side as a literal: doc @> '{"status": "paid"}'. The macros compare every element of one side with every element of the other at each level, in work DuckDB cannot interrupt.`,
    );
  return sem('jcontains', [asJson(outer), asJson(inner)]);
}

/**
 * The values (objects, arrays, scalars) a constant side may hold: each element of one side is compared with
 * the other's at its level, so with one side this small a row's work is at most this many times the other's
 * size. Two columns of 14 KB arrays of arrays had one row take 127 s, past statement_timeout and cancel
 * (attacker review 52).
 */
export const MAX_CONSTANT_NODES = 64;

/** The parsed JSON of a side written as a string constant, or cast from one (`'{…}'::jsonb`); else undefined. */
function constantJson(n: Node | undefined): unknown {
  const cast = n?.TypeCast as Node | undefined;
  const text = (cast ? cast.arg : n)?.A_Const?.sval?.sval;
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function jsonNodes(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + jsonNodes(x), 0);
  if (v !== null && typeof v === 'object') return 1 + Object.values(v).reduce((n: number, x) => n + jsonNodes(x), 0);
  return 1;
}

const MAP = 'MAP(VARCHAR, JSON)';
/** A JSON null read out of a MAP or a list is SQL NULL in DuckDB: kept as JSON's null (a key of null value is there). */
const NULL_KEPT = (x: string) => `coalesce(${x}, CAST('null' AS JSON))`;
const CONTAINER = "json_type(r) IN ('OBJECT', 'ARRAY')";
const TOO_DEEP = `error('jsonb containment of a right side nested more than ${CONTAINMENT_DEPTH} levels deep is not supported by fdl-gateway|Test the inner part on its own: (j -> ''a'' -> ''b'') @> ''{…}''::jsonb.')`;

/** Level k: `l` contains the container `r` (an object or an array); the children through level k − 1. */
function level(k: number): Array<[string, string]> {
  const child = `_pgsem_jv${k - 1}`;
  return [
    [
      `_pgsem_jc${k}(l, r)`,
      `CASE WHEN json_type(l) IS DISTINCT FROM json_type(r) THEN false
        ELSE coalesce(list_bool_and(list_transform(
          CASE json_type(r)
            WHEN 'OBJECT' THEN list_transform(map_entries(CAST(r AS ${MAP})), lambda fdl_je${k}: {
              'c': CASE WHEN map_contains(CAST(l AS ${MAP}), fdl_je${k}.key) THEN [${NULL_KEPT(`CAST(l AS ${MAP})[fdl_je${k}.key]`)}] ELSE [] END,
              'v': ${NULL_KEPT(`fdl_je${k}.value`)}})
            ELSE list_transform(_pgsem_jelems(r), lambda fdl_je${k}: {'c': _pgsem_jelems(l), 'v': fdl_je${k}}) END,
          lambda fdl_jp${k}: coalesce(list_bool_or(list_transform(fdl_jp${k}.c, lambda fdl_jl${k}: ${child}(fdl_jl${k}, fdl_jp${k}.v))), false))), true) END`,
    ],
    [
      `_pgsem_jv${k}(a, r)`,
      `CASE WHEN a IS NULL THEN false WHEN ${CONTAINER} THEN _pgsem_jc${k}(a, r) ELSE _pgsem_jeq(a, r) END`,
    ],
  ];
}

/** A number's kind: DuckDB types JSON numbers by their text, PostgreSQL compares them as numeric. */
const KIND = (x: string) =>
  `CASE json_type(${x}) WHEN 'BIGINT' THEN 'NUMBER' WHEN 'UBIGINT' THEN 'NUMBER' WHEN 'DOUBLE' THEN 'NUMBER' ELSE json_type(${x}) END`;

export const JSON_CONTAINMENT_MACROS: ReadonlyArray<[string, string]> = [
  ['_pgsem_jelems(x)', `list_transform(CAST(x AS JSON[]), lambda fdl_jn: ${NULL_KEPT('fdl_jn')})`],
  // two scalars equal as jsonb's: numbers by value (integers exactly, others as doubles), strings by their text
  [
    '_pgsem_jeq(a, b)',
    `CASE WHEN ${KIND('a')} IS DISTINCT FROM ${KIND('b')} THEN false
      WHEN json_type(a) IN ('BIGINT', 'UBIGINT') AND json_type(b) IN ('BIGINT', 'UBIGINT') THEN CAST(a AS HUGEINT) = CAST(b AS HUGEINT)
      WHEN json_type(a) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN CAST(a AS DOUBLE) = CAST(b AS DOUBLE)
      WHEN json_type(a) = 'VARCHAR' THEN (a ->> '$') = (b ->> '$')
      ELSE CAST(a AS VARCHAR) = CAST(b AS VARCHAR) END`,
  ],
  ['_pgsem_jv0(a, r)', `CASE WHEN a IS NULL THEN false WHEN ${CONTAINER} THEN ${TOO_DEEP} ELSE _pgsem_jeq(a, r) END`],
  ...Array.from({ length: CONTAINMENT_DEPTH }, (_, i) => level(i + 1)).flat(),
  // the top: a raw scalar on the right is contained in an array holding it, or in an equal scalar
  [
    '_pgsem_jcontains(l, r)',
    `CASE WHEN l IS NULL OR r IS NULL THEN NULL
      WHEN ${CONTAINER} THEN _pgsem_jc${CONTAINMENT_DEPTH}(l, r)
      WHEN json_type(l) = 'ARRAY' THEN coalesce(list_bool_or(list_transform(_pgsem_jelems(l), lambda fdl_jt: _pgsem_jeq(fdl_jt, r))), false)
      ELSE _pgsem_jeq(l, r) END`,
  ],
];
