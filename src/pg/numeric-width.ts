/**
 * numeric + - * past 18 digits. DuckDB keeps the sum, difference or product of two DECIMALs of at most
 * 18 digits in 64 bits (DECIMAL(18,s)) and raises an overflow past it (`999999999999999999::numeric + 1`),
 * where PostgreSQL's numeric answers. An operand of 19 digits takes DuckDB's own 128-bit rule instead: the
 * result's width grows as the operands need, up to 38 digits, and only a result past 38 overflows
 * (22003 in PostgreSQL's words, engine/duckdb-errors.ts). So a numeric constant in such arithmetic is cast
 * to DECIMAL(19 or more, its scale): exact, and no wider than needed (a DECIMAL(38,0) beside a fraction in
 * a set operation or CASE would round the fraction away).
 */
import { exactDecimal } from './numeric-literal.js';
import { castTo, intConst, type Node } from './parse-nodes.js';

/** The narrowest DECIMAL width DuckDB computes in 128 bits. */
export const WIDE_DECIMAL_DIGITS = 19;

/** A fraction constant is widened from this many digits (the pre-check's WIDE_FRACTION: 11 characters with the point). */
const FRACTION_DIGITS_WIDENED = 10;

/** Casts the rewrite made at a numeric constant's own width (pg-calls.ts exactNumeric): free to widen. */
const ownWidth = new WeakSet<object>();

/** Marks `cast` (a DECIMAL(w, s) cast of a constant at the value's own width) as widenable. */
export function markOwnWidth(cast: Node): Node {
  ownWidth.add(cast);
  return cast;
}

const typmodsOf = (n: Node): [number, number] | undefined => {
  const mods = n.TypeCast?.typeName?.typmods as Node[] | undefined;
  const w = mods?.[0]?.A_Const?.ival?.ival;
  const s = mods?.[1]?.A_Const?.ival?.ival ?? 0;
  return typeof w === 'number' && typeof s === 'number' ? [w, s] : undefined;
};

/** `n` at 19 digits or more when it is a numeric constant DuckDB holds in 64 bits; else undefined. */
function widened(n: Node): Node | undefined {
  // `-999999999999999999::numeric`: the minus of a constant
  const minus = n.A_Expr as Node | undefined;
  if (minus?.kind === 'AEXPR_OP' && !minus.lexpr && minus.name?.length === 1 && minus.name[0]?.String?.sval === '-') {
    const inner = minus.rexpr ? widened(minus.rexpr as Node) : undefined;
    return inner && { A_Expr: { ...minus, rexpr: inner } };
  }
  if (ownWidth.has(n)) {
    const mods = typmodsOf(n);
    if (!mods || mods[0] >= WIDE_DECIMAL_DIGITS) return undefined;
    const tc = n.TypeCast as Node;
    return markOwnWidth({
      TypeCast: { ...tc, typeName: { ...tc.typeName, typmods: [intConst(WIDE_DECIMAL_DIGITS), intConst(mods[1])] } },
    });
  }
  // `9999999999999999.99`: DuckDB reads a decimal constant as DECIMAL(its digits, its scale)
  const text = n.A_Const?.fval?.fval;
  // (digits alone past int4 are PostgreSQL's int8, not numeric: `qty - 2147483648`)
  if (typeof text !== 'string' || !text.includes('.') || /e/i.test(text)) return undefined;
  const value = exactDecimal(text);
  // Under 10 digits, as the pre-check reads it (rewrite-precheck.ts WIDE_FRACTION): the same answer whether or not
  // another part of the text takes the rewrite, and no wider copies inside macros that name an operand twice
  // (nine nested `round(x * 1.1, 2)` grew past the composed-text ceiling).
  const digits = value ? value.wholeDigits + value.scale : 0;
  if (!value || digits < FRACTION_DIGITS_WIDENED || digits >= WIDE_DECIMAL_DIGITS) return undefined;
  return markOwnWidth(castTo(n, 'decimal', [intConst(WIDE_DECIMAL_DIGITS), intConst(value.scale)]));
}

/**
 * The operands of `l op r` (+, -, *) with one numeric constant widened so DuckDB computes in 128 bits;
 * undefined when neither is such a constant.
 */
export function widenedOperands(l: Node, r: Node): [Node, Node] | undefined {
  const wl = widened(l);
  if (wl) return [wl, r];
  const wr = widened(r);
  return wr ? [l, wr] : undefined;
}
