/**
 * `qty = '1.5'`, `qty in ('1.5', '3')`, `order_id between '1e1' and '20'`: PostgreSQL reads an untyped
 * string literal compared with a value as the value's type, through that type's input function, so beside
 * an integer `'1.5'` is `22P02`. DuckDB casts it with its own string-to-integer cast, which rounds decimals
 * and reads exponents, hex and padding: the count came back for `qty = 2` (new-user review, session 49).
 * The rewrite cannot see types: the literal becomes `_pgsem_likeof(<the value's tag>, '1.5')`, whose
 * overloads (pg-macros.ts) read it by PostgreSQL's integer input beside an integer and leave it as it was
 * beside anything else. Only literals whose text is a number that is not a plain integer are read so:
 * for a plain integer and any other text both casts agree, and a text keeps DuckDB's own comparison.
 */
import { likeOf as likeOfValue } from './typed-minus.js';
import { int4Constant } from './pg-spellings.js';
import type { Node } from './rewrite-nodes.js';

/**
 * Numbers DuckDB's integer cast accepts and PostgreSQL 15's integer input refuses: a fraction, an
 * exponent, a radix prefix, digit separators (PostgreSQL 15 reads none of these as an integer).
 */
const NUMBER = String.raw`\s*[+-]?(?:\d[\d_]*\.\d*|\.\d+|\d[\d_]*(?:\.\d*)?[eE][+-]?\d+|0[xXbBoO][\da-fA-F_]+|\d+_[\d_]*)\s*`;
const NOT_PLAIN_INTEGER = new RegExp(`^${NUMBER}$`);

/** Such a literal anywhere in a statement's text (the rewrite pre-check: rewrite-precheck.ts). */
export const NUMBER_LIKE_LITERAL = new RegExp(`'${NUMBER}'`);

function numberLike(n: Node | undefined): boolean {
  const s = n?.A_Const?.sval?.sval;
  return typeof s === 'string' && NOT_PLAIN_INTEGER.test(s);
}

/** A value the literal is read beside: not a constant, or an integer constant (`3 = '3.0'` is 22P02 too). */
const typedSide = (n: Node): boolean => !n.A_Const || (n.A_Const as Node).ival !== undefined;
/** The literal read as `other`'s type; an integer constant is int4 (PostgreSQL's type of it). */
const likeOf = (other: Node, lit: Node): Node | undefined => likeOfValue(int4Constant(other), lit);

/** `x op '…'` or `'…' op x` with such a literal read as x's type; undefined when neither side is one. */
export function comparedLiteral(l: Node, r: Node): [Node, Node] | undefined {
  if (numberLike(r) && typedSide(l)) {
    const read = likeOf(l, r);
    return read ? [l, read] : undefined;
  }
  if (numberLike(l) && typedSide(r)) {
    const read = likeOf(r, l);
    return read ? [read, r] : undefined;
  }
  return undefined;
}

/** The items of `x IN (…)` or `x BETWEEN … AND …` so read beside x; undefined when none is such a literal. */
export function comparedLiteralsAmong(other: Node | undefined, items: readonly Node[]): Node[] | undefined {
  if (!other || !typedSide(other) || !items.some(numberLike)) return undefined;
  const out = items.map((item) => (numberLike(item) ? likeOf(other, item) : item));
  return out.every((item) => item !== undefined) ? (out as Node[]) : undefined;
}
