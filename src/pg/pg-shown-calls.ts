/**
 * The rewrite's side of pg/shown-numeric.ts: an outermost select-list item whose numeric result has a
 * display scale PostgreSQL picks per value — `avg(x)`, `variance(x)`, `stddev(x)`… of integers and
 * numerics, `round(x, n)` with n not a constant — is built as a struct of exact parts that the wire
 * sends as numeric. Elsewhere (inside an expression, a subquery) the scale cannot travel with the
 * value: avg keeps its DECIMAL(38,20) (documented), round with a variable n is refused.
 */
import { dispatch } from './pg-result-types.js';
import { str, strConst, type Node } from './rewrite-nodes.js';

/** PostgreSQL's variance and standard deviation aggregates, by the kind shown-numeric.ts computes. */
const VARIANCES: Readonly<Record<string, string>> = {
  variance: 'var_samp',
  var_samp: 'var_samp',
  var_pop: 'var_pop',
  stddev: 'stddev_samp',
  stddev_samp: 'stddev_samp',
  stddev_pop: 'stddev_pop',
};

export const isVariance = (name: string | undefined): boolean => name !== undefined && name in VARIANCES;

/** The outermost SELECTs of a parse (not set operations): their select lists are what the client is sent. */
export function outermostSelects(tree: unknown): Set<Node> {
  const out = new Set<Node>();
  for (const raw of ((tree as Node | null)?.stmts ?? []) as Node[]) {
    const select = raw?.stmt?.SelectStmt as Node | undefined;
    if (select?.targetList && (!select.op || select.op === 'SETOP_NONE')) out.add(select);
  }
  return out;
}

/**
 * The FuncCall bodies that are items of those select lists, as written (the walk meets these same
 * objects): only there may a value be a struct the wire sends as another type (numeric, bpchar, regtype).
 */
export function shownItems(outermost: ReadonlySet<Node>): Set<Node> {
  const out = new Set<Node>();
  for (const select of outermost) {
    for (const t of select.targetList as Node[]) {
      const val = t?.ResTarget?.val as Node | undefined;
      if (val?.FuncCall) out.add(val.FuncCall as Node);
      if (val?.A_Expr?.kind === 'AEXPR_OP') out.add(val.A_Expr as Node);
      if (val?.TypeCast) out.add(val.TypeCast as Node);
      if (val?.ColumnRef) out.add(val.ColumnRef as Node);
    }
  }
  return out;
}

/**
 * `avg(x)`, `variance(x)`… as an outermost select-list item (`out`: the walked call, its FILTER
 * kept): the count, Σx (and Σx²) of integers and numerics in a struct, floats as DuckDB answers.
 * Undefined when no typed form applies (DISTINCT of a variance: Σx² of distinct x is not distinct x²).
 */
export function shownAggregate(name: string, out: Node, arg: Node): Node | undefined {
  const agg = (fn: string, a: Node = arg): Node => ({ FuncCall: { ...out, funcname: [str(fn)], args: [a] } });
  if (name === 'avg')
    return dispatch(out.over ? 'shown_wavg' : 'shown_avg', [arg], [agg('avg'), agg('count'), agg('sum')]);
  const kind = VARIANCES[name];
  if (!kind || out.agg_distinct) return undefined;
  const square = dispatch('square', [arg], [arg]);
  return (
    square && dispatch('shown_var', [arg], [agg(kind), strConst(kind), agg('count'), agg('sum'), agg('sum', square)])
  );
}

/** `round(x, n)` as an outermost select-list item, n any expression: numeric at scale n per value. */
export function shownRound(arg: Node, places: Node): Node | undefined {
  return dispatch('shown_round', [arg], [arg, places]);
}

/** `round(x, n)` inside an expression, n not a constant: refused for integers and numerics (the scale would be lost). */
export function variableRound(arg: Node, places: Node): Node | undefined {
  return dispatch('roundv', [arg], [arg, places]);
}

/** `a / b` over aggregates as an outermost select-list item: numeric division shown at its own scale. */
export function shownDivision(l: Node, r: Node): Node | undefined {
  return dispatch('shown_div', [l, r], [l, r]);
}

/**
 * `avg(x) / b` (`avgFirst`) or `b / avg(x)` as an outermost select-list item: the count and Σx of avg's
 * argument (its DISTINCT and FILTER kept) beside b, so the wire divides avg's own numeric as PostgreSQL.
 * `avg` is the walked call (DuckDB's avg, the order key), `call` the original avg with walked arguments.
 */
export function shownAvgDivision(avgFirst: boolean, call: Node, avg: Node, other: Node): Node | undefined {
  const agg = (fn: string): Node => ({ FuncCall: { ...call, funcname: [str(fn)] } });
  const arg = (call.args as Node[] | undefined)?.[0];
  if (!arg || call.over || call.agg_star || (call.args as Node[]).length !== 1) return undefined;
  return dispatch(avgFirst ? 'shown_avgdiv' : 'shown_divavg', [arg, other], [avg, agg('count'), agg('sum'), other]);
}
