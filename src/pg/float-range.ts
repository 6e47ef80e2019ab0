/**
 * The rewrite's calls of the float checks (float-range-macros.ts): `l op r`, the typed minus, exp, power
 * and sum, each checked as PostgreSQL's float.c where its result is a float (22003 on overflow and underflow).
 */
import { COMPAT_DB } from './catalog/names.js';
import { tagOf } from './pg-result-types.js';
import type { Node } from './rewrite-nodes.js';

const macro = (name: string, args: Node[]): Node => ({
  FuncCall: {
    funcname: [COMPAT_DB, 'pgcat', name].map((sval) => ({ String: { sval } })),
    args,
    funcformat: 'COERCE_EXPLICIT_CALL',
  },
});

/** A float check's call in a printed text (the planner counts them: stages.ts float_check). */
export const FLOAT_CHECK_CALL = /\b_pgsem_f(?:tree|prod)\(/g;

/** A checked tree (`_pgsem_ftree(tag, plain, finite)`, `_pgsem_fprod(tag, plain, finite, nonzero)`) taken apart. */
interface Tree {
  tag: Node;
  plain: Node;
  /** every leaf finite */
  finite: Node;
  /** of a product: every leaf nonzero */
  nonzero?: Node;
}

function treeOf(n: Node): Tree | undefined {
  const fc = n.FuncCall as Node | undefined;
  const name = (fc?.funcname as Node[] | undefined)?.slice(-1)[0]?.String?.sval;
  if (name !== '_pgsem_ftree' && name !== '_pgsem_fprod') return undefined;
  const [tag, plain, finite, nonzero] = fc!.args as Node[];
  return { tag: tag!, plain: plain!, finite: finite!, ...(nonzero ? { nonzero } : {}) };
}

const and = (a: Node, b: Node): Node => ({ BoolExpr: { boolop: 'AND_EXPR', args: [a, b] } });
const operator = (op: string, a: Node, b: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: op } }], lexpr: a, rexpr: b },
});

/**
 * A side of `op` as a part of its tree: a checked tree merged (its plain arithmetic and leaves), any other
 * value a leaf; a product's leaves are kept only while the tree is all products. Undefined when no tag can
 * stand for its type (an aggregate DuckDB cannot bind inside a macro's typed argument).
 */
function side(n: Node, product: boolean): Tree | undefined {
  const t = treeOf(n);
  if (t) return product ? t : { tag: t.tag, plain: t.plain, finite: t.finite };
  const tag = tagOf(n);
  if (tag === undefined) return undefined;
  return {
    tag,
    plain: n,
    finite: macro('_pgsem_ffin', [tag, n]),
    ...(product ? { nonzero: macro('_pgsem_fnz', [tag, n]) } : {}),
  };
}

/**
 * The most printed nodes an operand may have for its tree to be checked. A check holds its operands three times
 * (tag, plain arithmetic, finiteness), so checks nested through calls (`round(round(x * 1.1, 2) * 1.1, 2)`) or
 * over scalar subqueries multiplied the text: nine nested rounds printed 6,243,062 nodes (54001 where they
 * answered), thirty `(select count(*) from pg_settings)` added up 54001 where they ran. Past this an operation is
 * DuckDB's own (an overflow there is DuckDB's Infinity, documented).
 */
const MAX_CHECKED_OPERAND = 256;

/**
 * Whether `n`'s plain arithmetic prints more than MAX_CHECKED_OPERAND nodes (counted up to there only) or holds a
 * subquery, which a check would repeat: each copy a join of its own for DuckDB's optimizer to order.
 */
function tooLargeToCheck(n: Node): boolean {
  let count = 0;
  const stack: unknown[] = [plainOf(n)];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (++count > MAX_CHECKED_OPERAND || (v as Node).SubLink) return true;
    for (const c of Object.values(v)) if (c && typeof c === 'object') stack.push(c);
  }
  return false;
}

/** A side's plain arithmetic where it is a checked tree (the typed minus reads it, float-range.ts floatCheckedMinus). */
export const plainOf = (n: Node): Node => treeOf(n)?.plain ?? n;

const tree = (t: Tree): Node =>
  macro(t.nonzero ? '_pgsem_fprod' : '_pgsem_ftree', [t.tag, t.plain, t.finite, ...(t.nonzero ? [t.nonzero] : [])]);

/**
 * A number constant below 2^969: added to or subtracted from a finite float it cannot overflow (the largest
 * float's step is 2^971), nor underflow (a sum is 0 only of equal values): `order_id + 1` needs no check,
 * and its macros cost DuckDB's bind more than the rest of a point query's planning.
 */
function smallConstant(n: Node): boolean {
  const c = (n.A_Const ?? n.TypeCast?.arg?.A_Const) as Node | undefined;
  if (c?.ival !== undefined) return true;
  const v = Number(c?.fval?.fval);
  return Number.isFinite(v) && Math.abs(v) < 2 ** 969;
}

/**
 * `l op r` (walked sides) checked as PostgreSQL where its result is a float: the tree of `+ - *` it ends
 * is checked once, as a whole (float-range-macros.ts; an underflow only in a tree of products). Undefined
 * for another operator, where a side has no tag, or where `notFloat` knows neither side is a float: DuckDB's.
 */
export function floatChecked(op: string, l: Node, r: Node, notFloat?: (n: Node) => boolean): Node | undefined {
  if (op !== '+' && op !== '-' && op !== '*') return undefined;
  if (op !== '*' && (smallConstant(l) || smallConstant(r))) return undefined;
  // neither side a float (operand-types.ts): DuckDB's operator is the one the check would pick
  if (notFloat?.(l) && notFloat(r)) return undefined;
  if (tooLargeToCheck(l) || tooLargeToCheck(r)) return undefined;
  const product = op === '*';
  const [a, b] = [side(l, product), side(r, product)];
  if (!a || !b) return undefined;
  return tree({
    tag: operator(op, a.tag, b.tag),
    plain: operator(op, a.plain, b.plain),
    finite: and(a.finite, b.finite),
    ...(a.nonzero && b.nonzero ? { nonzero: and(a.nonzero, b.nonzero) } : {}),
  });
}

/**
 * The typed minus `m` (typed-minus.ts, built over the sides' plain arithmetic, plainOf) of the walked
 * sides `l - r`, checked as PostgreSQL where it is a float difference.
 */
export function floatCheckedMinus(l: Node, r: Node, m: Node, notFloat?: (n: Node) => boolean): Node {
  if (smallConstant(l) || smallConstant(r) || tooLargeToCheck(l) || tooLargeToCheck(r)) return m;
  if (notFloat?.(l) && notFloat(r)) return m;
  const [tag, a, b] = [tagOf(m), side(l, false), side(r, false)];
  return tag === undefined || !a || !b ? m : tree({ tag, plain: m, finite: and(a.finite, b.finite) });
}

/** exp(x) of a float: the walked call `r` checked (dexp). */
export const floatCheckedExp = (r: Node, x: Node): Node => macro('_pgsem_fexp', [r, x]);

/** power(x, y), `x ^ y` of floats: the walked call `r` checked (dpow). */
export const floatCheckedPower = (r: Node, x: Node, y: Node): Node => macro('_pgsem_fpow', [r, x, y]);

/**
 * sum(x) of floats (`sum` the walked call with its DISTINCT, FILTER and OVER): 22003 where it overflowed
 * though no row is infinite or NaN, as float8pl at each row; `typed` the call's other typed form.
 */
export function floatCheckedSum(sum: Node, arg: Node, typed: Node): Node | undefined {
  const tag = tagOf(arg);
  if (tag === undefined) return undefined;
  const fc = sum.FuncCall as Node;
  const finite = macro('_pgsem_ffin', [tag, plainOf(arg)]);
  const flag: Node = {
    FuncCall: {
      ...fc,
      funcname: [{ String: { sval: 'bool_or' } }],
      args: [{ BoolExpr: { boolop: 'NOT_EXPR', args: [finite] } }],
    },
  };
  return macro('_pgsem_fsum', [tag, typed, flag]);
}
