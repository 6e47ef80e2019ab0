/**
 * `x = ANY(array)` and `x <> ALL(array)` by PostgreSQL's three-valued rule. The rewrite runs them as
 * DuckDB's list_contains (DuckDB plans `= ANY(list)` as a subquery, which an outer join's condition
 * cannot hold), but list_contains skips NULL elements: `1 = ANY(ARRAY[2, NULL])` answered false
 * (PostgreSQL NULL) and `customer_id <> ALL(ARRAY[2, NULL])` kept every other row (PostgreSQL none).
 */
import { call, coalesce, intConst, strConst, type Node } from './parse-nodes.js';

const bool = (b: boolean): Node => ({ A_Const: { boolval: { boolval: b } } });
const nullConst: Node = { A_Const: { isnull: true } };
const isNull = (arg: Node): Node => ({ NullTest: { arg, nulltesttype: 'IS_NULL' } });
const when = (expr: Node, result: Node): Node => ({ CaseWhen: { expr, result } });
const op = (name: string, lexpr: Node, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: name } }], lexpr, rexpr },
});

/**
 * `x = ANY(list)`: true when an element equals x; else NULL when the list is NULL, x is NULL (and the
 * list is not empty) or an element is NULL; else false. The list is read only by list_contains,
 * list_count and list_aggregate: with len() or `IS NULL` of an untyped `$n` DuckDB typed no parameter
 * after it (`status <> ALL($1) AND customer_id = ANY($2)` answered 42P18 at Describe).
 */
export function equalsAny(list: Node, x: Node): Node {
  const nonNull = call('list_count', [list]);
  // Every element, NULLs too; NULL for an empty list (an aggregate of no rows).
  const all = call('len', [call('list_aggregate', [list, strConst('list')])]);
  return {
    CaseExpr: {
      args: [
        when(call('list_contains', [list, x]), bool(true)),
        when(isNull(nonNull), nullConst),
        when(op('=', coalesce([all, intConst(0)]), intConst(0)), bool(false)),
        when({ BoolExpr: { boolop: 'OR_EXPR', args: [isNull(x), op('<', nonNull, all)] } }, nullConst),
      ],
      defresult: bool(false),
    },
  };
}

/** `x <> ALL(list)`: the negation of `x = ANY(list)`, NULL staying NULL. */
export function differsFromAll(list: Node, x: Node): Node {
  return { BoolExpr: { boolop: 'NOT_EXPR', args: [equalsAny(list, x)] } };
}
