/**
 * `x = ANY(array)` and `x <> ALL(array)` by PostgreSQL's three-valued rule. The rewrite runs them as
 * DuckDB's list_contains (DuckDB plans `= ANY(list)` as a subquery, which an outer join's condition
 * cannot hold), but list_contains skips NULL elements: `1 = ANY(ARRAY[2, NULL])` answered false
 * (PostgreSQL NULL) and `customer_id <> ALL(ARRAY[2, NULL])` kept every other row (PostgreSQL none).
 */
import { call, intConst, strConst, type Node } from './parse-nodes.js';

const bool = (b: boolean): Node => ({ A_Const: { boolval: { boolval: b } } });
const nullConst: Node = { A_Const: { isnull: true } };
const isNull = (arg: Node): Node => ({ NullTest: { arg, nulltesttype: 'IS_NULL' } });
const when = (expr: Node, result: Node): Node => ({ CaseWhen: { expr, result } });
const op = (name: string, lexpr: Node, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: name } }], lexpr, rexpr },
});

/**
 * `x = ANY(list)`: true when an element equals x; else NULL when the list is NULL; else false when it
 * is empty; else NULL when x is NULL or an element is NULL; else false. The list is read only by
 * list_contains, list_count and list_position over list_aggregate: DuckDB stopped typing the parameters
 * after an untyped `$n` read by len() or `IS NULL` (`status <> ALL($1) AND customer_id = ANY($2)`
 * answered 42P18 at Describe), and after a declared one (`CAST($1 AS VARCHAR[])`) read by len() of it
 * (ruby-pg's `status = any($1) and qty >= $2` with $1 text[]: 42P18).
 */
export function equalsAny(list: Node, x: Node): Node {
  const nonNull = call('list_count', [list]);
  const hasNull: Node = {
    NullTest: {
      arg: call('list_position', [call('list_aggregate', [list, strConst('list')]), nullConst]),
      nulltesttype: 'IS_NOT_NULL',
    },
  };
  const empty: Node = {
    BoolExpr: {
      boolop: 'AND_EXPR',
      args: [op('=', nonNull, intConst(0)), { BoolExpr: { boolop: 'NOT_EXPR', args: [hasNull] } }],
    },
  };
  return {
    CaseExpr: {
      args: [
        when(call('list_contains', [list, x]), bool(true)),
        when(isNull(nonNull), nullConst),
        when(empty, bool(false)),
        when({ BoolExpr: { boolop: 'OR_EXPR', args: [isNull(x), hasNull] } }, nullConst),
      ],
      defresult: bool(false),
    },
  };
}

/** `x <> ALL(list)`: the negation of `x = ANY(list)`, NULL staying NULL. */
export function differsFromAll(list: Node, x: Node): Node {
  return { BoolExpr: { boolop: 'NOT_EXPR', args: [equalsAny(list, x)] } };
}
