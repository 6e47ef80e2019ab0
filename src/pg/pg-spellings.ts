/**
 * Small PostgreSQL spellings DuckDB reads differently or not at all, for the rewrite: `a # b` (xor),
 * `cardinality(array)`, `substring(s from pattern)` (a regular expression), integer constants typed
 * int4 in arithmetic; refused: numeric NaN/Infinity (DuckDB's DECIMAL has neither), jsonb_build_object.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { re2Pattern } from './are-pattern.js';
import { call, str, strConst, typedAs, type Node } from './rewrite-nodes.js';
import { jsonScalarColumn } from './json-sets.js';

/** `a # b`: PostgreSQL's bitwise xor; `#` is a syntax error in DuckDB, whose spelling is xor(a, b). */
export function xorOperator(lexpr: Node, rexpr: Node): Node {
  const l = rexpr.A_Const ? lexpr : int4Constant(lexpr);
  const r = lexpr.A_Const ? rexpr : int4Constant(rexpr);
  return call(['xor'], [l, r]);
}

/**
 * `cardinality(array)`: the number of elements (int4), 0 for an empty array. DuckDB's cardinality
 * reads only maps (42000 on a list); a list of lists (a PostgreSQL multidimensional array, whose
 * cardinality counts every element) is refused rather than counted by rows.
 */
export function cardinalityCall(arg: Node): Node {
  const nested = {
    A_Expr: {
      kind: 'AEXPR_LIKE',
      name: [str('~~')],
      lexpr: call(['typeof'], [arg]),
      rexpr: strConst('%[][]'),
    },
  };
  // Raised at run time as 0A000 with a hint (engine/duckdb-errors.ts reads `what|hint`).
  const refusal = call(
    ['error'],
    [
      strConst(
        'cardinality() of a multidimensional array is not supported by fdl-gateway|Use len(flatten(a)) for the number of elements of a list of lists.',
      ),
    ],
  );
  return {
    CaseExpr: {
      args: [{ CaseWhen: { expr: nested, result: castInt4(refusal) } }],
      defresult: castInt4(call(['len'], [arg])),
    },
  };
}

/**
 * `substring(s from 'pattern')` with a constant text pattern: PostgreSQL's regular-expression form,
 * the first match, or the first parenthesized group's when the pattern has one; NULL without a match.
 * A pattern that is not a constant text is left as written (DuckDB's error, never another answer).
 */
export function regexSubstring(args: Node[]): Node | undefined {
  const pattern = args[1]?.A_Const?.sval?.sval as string | undefined;
  if (args.length !== 2 || pattern === undefined) return undefined;
  const group = /(^|[^\\])\((?!\?)/.test(pattern.replace(/\\\\/g, '')) ? 1 : 0;
  const [s, p] = [args[0]!, strConst(re2Pattern(pattern))];
  return {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: call(['regexp_matches'], [s, p]),
            result: call(['regexp_extract'], [s, p, { A_Const: { ival: { ival: group } } }]),
          },
        },
      ],
    },
  };
}

/**
 * An integer constant operand of `+ - * #` is int4 in PostgreSQL (int2 * 10000 computes in int4);
 * DuckDB narrows an integer literal to the other side's type (smallint, and raises 22003).
 */
export function int4Constant(n: Node): Node {
  const v = n?.A_Const?.ival;
  if (!v || typeof (v.ival ?? 0) !== 'number') return n;
  return castInt4(n);
}

/** `'NaN'::numeric`, `'Infinity'::numeric`: PostgreSQL has them, DuckDB's DECIMAL has not. */
export function numericSpecialRefused(text: string): SqlError | undefined {
  if (!/^\s*[+-]?(?:nan|inf|infinity)\s*$/i.test(text)) return undefined;
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'numeric NaN and Infinity are not supported by fdl-gateway',
    undefined,
    "DuckDB's DECIMAL has no NaN or infinity: use double precision ('NaN'::float8), or test for the value before the cast.",
  );
}

/** `x::timestamptz(p)`, `x::interval(p)`: PostgreSQL rounds the seconds to p digits; DuckDB has no such typmod. */
export function precisionRefused(type: string): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    `${type}(p) with a precision is not supported by fdl-gateway`,
    undefined,
    type === 'interval'
      ? 'Cast to interval without a precision (PostgreSQL rounds its seconds to p digits).'
      : "Cast without a precision, and truncate with date_trunc('second', x) (PostgreSQL rounds to p digits).",
  );
}

const castInt4 = (arg: Node): Node => ({ TypeCast: { arg, typeName: { names: [str('int4')], typemod: -1 } } });

/**
 * `jsonb_build_object(…)`: PostgreSQL prints jsonb in its normal form (keys shorter-first, `{"a": 1}`
 * spacing, numbers as numeric); json_build_object keeps the arguments' order and json's `{"a" : 1}` text.
 */
export function jsonbBuildObjectRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'jsonb_build_object() is not supported by fdl-gateway',
    undefined,
    "Use json_build_object(…) (json: the keys in the order given, PostgreSQL's json text), or a constant '{…}'::jsonb.",
  );
}

/** The names a SELECT's FROM items go by (aliases, else table names), joins included. */
export function fromItemNames(from: Node[] | undefined, into = new Set<string>()): Set<string> {
  for (const item of from ?? []) {
    const range = (item.RangeVar ?? item.RangeSubselect ?? item.RangeFunction) as Node | undefined;
    const named = (range?.alias?.aliasname as string | undefined) ?? (item.RangeVar?.relname as string | undefined);
    if (named && !scalarFunctionAlias(item.RangeFunction as Node | undefined)) into.add(named);
    if (item.JoinExpr) fromItemNames([item.JoinExpr.larg, item.JoinExpr.rarg], into);
  }
  return into;
}

/** Set-returning functions of one column of a scalar type (unnest of a one-dimensional array among them). */
const SCALAR_SRFS = new Set([
  'generate_series',
  'range',
  'unnest',
  'generate_subscripts',
  'string_to_table',
  'regexp_split_to_table',
]);

/**
 * `FROM generate_series(1, 3) x`: one function of one scalar column, its alias without a column list:
 * in PostgreSQL `x` is then that column (`array_agg(x)`, `count(distinct x)`), never a record.
 */
function scalarFunctionAlias(rf: Node | undefined): boolean {
  if (jsonScalarColumn(rf)) return true;
  if (!rf || rf.ordinality || rf.is_rowsfrom || rf.alias?.colnames) return false;
  const calls = (rf.functions as Node[] | undefined) ?? [];
  if (calls.length !== 1) return false;
  const fc = ((calls[0]!.List?.items as Node[] | undefined)?.[0] ?? (calls[0] as Node[] | undefined)?.[0])?.FuncCall as
    Node | undefined;
  const name = (fc?.funcname as Node[] | undefined)?.slice(-1)[0]?.String?.sval as string | undefined;
  return name !== undefined && SCALAR_SRFS.has(name) && (name !== 'unnest' || (fc!.args as Node[]).length === 1);
}

/**
 * A whole-row reference in a select list (`select t, t.a from … t`): PostgreSQL sends a record, DuckDB
 * a struct. In the outermost select list it is wrapped as `struct_pack(fdl_pg_row := t)`, which the
 * wire sends as PostgreSQL's record (2249) in text and binary (pg/oids.ts `typedWrapper`), and a
 * column that happens to share the FROM item's name (which PostgreSQL, like DuckDB, prefers) as that
 * column. Inside a subquery, where the struct would meet other operators, a struct is refused 0A000
 * with a hint at bind time. The target list with those items wrapped, or undefined.
 */
export function wholeRowTargets(select: Node, outermost: boolean): Node[] | undefined {
  const rows = fromItemNames(select.fromClause as Node[] | undefined);
  if (rows.size === 0 || !select.targetList) return undefined;
  let wrapped = false;
  const targets = (select.targetList as Node[]).map((t) => {
    const fields = t.ResTarget?.val?.ColumnRef?.fields as Node[] | undefined;
    const name = fields?.length === 1 ? (fields[0]!.String?.sval as string | undefined) : undefined;
    if (!name || !rows.has(name)) return t;
    wrapped = true;
    const row = t.ResTarget.val as Node;
    const val = outermost ? typedAs('row', row) : structRefused(row, name);
    return { ResTarget: { ...t.ResTarget, name: t.ResTarget.name ?? name, val } };
  });
  return wrapped ? targets : undefined;
}

function structRefused(row: Node, name: string): Node {
  const isStruct = {
    A_Expr: { kind: 'AEXPR_LIKE', name: [str('~~')], lexpr: call(['typeof'], [row]), rexpr: strConst('STRUCT(%') },
  };
  const refusal = call(
    ['error'],
    [
      strConst(
        `a whole-row reference (${name}) inside a subquery is not supported by fdl-gateway|PostgreSQL uses a record here and the gateway cannot: list the columns (${name}.*), or build a record with row(${name}.a, ${name}.b).`,
      ),
    ],
  );
  return { CaseExpr: { args: [{ CaseWhen: { expr: isStruct, result: refusal } }], defresult: row } };
}

/**
 * `substr(s, start [, count])`, `substring(s from start for count)`: PostgreSQL counts positions before
 * the first as characters that are not there (`substr('hello', -2, 5)` is `he`, a start ≤ 0 without a
 * count the whole string); DuckDB counts a negative start from the end. A negative count is 22011.
 */
export function substrCall(args: Node[]): Node {
  const [s, start, count] = args as [Node, Node, Node | undefined];
  const first = call(['greatest'], [start, { A_Const: { ival: { ival: 1 } } }]);
  if (!count) return call(['substr'], [s, first]);
  const op = (name: string, lexpr: Node, rexpr: Node): Node => ({
    A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr, rexpr },
  });
  const zero = { A_Const: { ival: { ival: 0 } } };
  const length = call(['greatest'], [op('-', op('+', start, count), first), zero]);
  return {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: op('<', count, zero),
            result: call(['error'], [strConst('negative substring length not allowed')]),
          },
        },
      ],
      defresult: call(['substr'], [s, first, length]),
    },
  };
}

/**
 * `corr(y, x)`, `regr_slope(y, x)` where a variance is zero (one row, a constant column): PostgreSQL's
 * NULL, not DuckDB's NaN. `aggregate` is the call as written (FILTER, OVER, DISTINCT kept for var_pop).
 */
export function zeroVarianceNull(name: 'corr' | 'regr_slope', aggregate: Node): Node {
  const [y, x] = aggregate.args as [Node, Node];
  const zero = (v: Node): Node => ({
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [str('=')],
      lexpr: { FuncCall: { ...aggregate, funcname: [str('var_pop')], args: [v] } },
      rexpr: { A_Const: { ival: { ival: 0 } } },
    },
  });
  const expr = name === 'corr' ? { BoolExpr: { boolop: 'OR_EXPR', args: [zero(x), zero(y)] } } : zero(x);
  return {
    CaseExpr: {
      args: [{ CaseWhen: { expr, result: { A_Const: { isnull: true } } } }],
      defresult: { FuncCall: { ...aggregate, funcname: [str(name)] } },
    },
  };
}

/**
 * `lpad(s, n, fill)` / `rpad(…)` with an empty fill: PostgreSQL returns `s` cut to n characters (no
 * padding), DuckDB fails 22023 when padding is needed. The length is held to the text's where the fill
 * is empty; a non-empty constant fill (the usual call) is left as written.
 */
export function emptyFillPad(fc: Node, args: Node[]): Node | undefined {
  const [s, n, fill] = args as [Node, Node, Node];
  const constant = fill.A_Const?.sval?.sval as string | undefined;
  if (typeof constant === 'string' && constant !== '') return undefined;
  const held = castInt4(call(['least'], [n, call(['length'], [s])]));
  const length =
    constant === ''
      ? held
      : {
          CaseExpr: {
            args: [{ CaseWhen: { expr: eq(fill, strConst('')), result: held } }],
            defresult: n,
          },
        };
  return { FuncCall: { ...fc, args: [s, length, fill] } };
}

const eq = (l: Node, r: Node): Node => ({ A_Expr: { kind: 'AEXPR_OP', name: [str('=')], lexpr: l, rexpr: r } });
