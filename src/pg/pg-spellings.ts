/**
 * Small PostgreSQL spellings DuckDB reads differently or not at all, for the rewrite: `a # b` (xor),
 * `cardinality(array)`, `substring(s from pattern)` (a regular expression), integer constants typed
 * int4 in arithmetic; refused: numeric NaN/Infinity (DuckDB's DECIMAL has neither), jsonb_build_object.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { call, str, strConst, type Node } from './rewrite-nodes.js';

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
  const [s, p] = [args[0]!, strConst(pattern)];
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

const castInt4 = (arg: Node): Node => ({ TypeCast: { arg, typeName: { names: [str('int4')], typemod: -1 } } });

/**
 * `jsonb_build_object(…)`: PostgreSQL prints jsonb in its normal form (keys shorter-first, `{"a": 1}`
 * spacing, numbers as numeric); DuckDB's json_object keeps its own order and compact text.
 */
export function jsonbBuildObjectRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'jsonb_build_object() is not supported by fdl-gateway',
    undefined,
    "Use json_build_object(…) (json; DuckDB's compact spacing), or a constant '{…}'::jsonb.",
  );
}
