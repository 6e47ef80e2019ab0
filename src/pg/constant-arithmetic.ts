/**
 * A constant expression with a numeric division (`10 * 1.0 / 3`, `100.0 * 2 / 3`, `(1 + 0.5) / 7`):
 * PostgreSQL computes it in numeric, exactly (+, -, * exact; / as numeric_div), where DuckDB divides
 * its decimals as doubles (`3.3333333333333336`). The parts are evaluated here as PostgreSQL does and
 * the quotient folded by `constantDivision` (pg-result-types.ts), as a plain `7.0 / 2` already is.
 */
import { constantDivision, constantNumeric } from './pg-result-types.js';
import { exactDecimal } from './numeric-literal.js';
import { names, str, type Node } from './rewrite-nodes.js';

interface Exact {
  value: bigint;
  scale: number;
  numeric: boolean;
}

const INT4_MAX = 2n ** 31n - 1n;
const p10 = (n: number): bigint => 10n ** BigInt(n);
const rescaled = (x: Exact, scale: number): bigint => x.value * p10(scale - x.scale);

/** A plain decimal text (`-12.50`) as a numeric constant node, which constantNumeric reads with its scale. */
const numericText = (text: string): Node => ({
  TypeCast: { arg: { A_Const: { sval: { sval: text } } }, typeName: { names: [str('numeric')], typemod: -1 } },
});

/** A number as a numeric constant node (`'12.50'::numeric`). */
function numericNode(x: Exact): Node {
  const abs = (x.value < 0n ? -x.value : x.value).toString().padStart(x.scale + 1, '0');
  return numericText(`${x.value < 0n ? '-' : ''}${x.scale ? `${abs.slice(0, -x.scale)}.${abs.slice(-x.scale)}` : abs}`);
}

/** A plain decimal text as a numeric value; undefined for none. */
const textValue = (text: string | undefined): Exact | undefined =>
  text === undefined ? undefined : constantNumeric(numericText(text));

/** An integer result PostgreSQL computes in int4 must fit it (else PostgreSQL's overflow error, or int8: left to DuckDB). */
const fits = (x: Exact): Exact | undefined =>
  x.numeric || (x.value <= INT4_MAX && x.value >= -INT4_MAX - 1n) ? x : undefined;

/** The exact value of a constant expression of +, -, *, / and numeric casts; undefined for anything else. */
function evaluate(n: Node | undefined): Exact | undefined {
  const leaf = constantNumeric(n);
  if (leaf) return leaf;
  const fval = n?.A_Const?.fval?.fval as string | undefined;
  if (typeof fval === 'string') return textValue(exactDecimal(fval)?.plain); // `1.5e3`: numeric 1500
  const cast = n?.TypeCast as Node | undefined;
  if (cast) {
    const type = names(cast.typeName?.names as Node[] | undefined).slice(-1)[0];
    if ((type !== 'numeric' && type !== 'decimal') || cast.typeName?.typmods || cast.typeName?.arrayBounds?.length)
      return undefined;
    const inner = evaluate(cast.arg as Node);
    return inner && { ...inner, numeric: true };
  }
  const e = n?.A_Expr as Node | undefined;
  const op = names(e?.name as Node[] | undefined).join('.');
  if (!e || e.kind !== 'AEXPR_OP') return undefined;
  const b = evaluate(e.rexpr as Node);
  if (!b) return undefined;
  if (!e.lexpr) return op === '-' ? { ...b, value: -b.value } : op === '+' ? b : undefined;
  const a = evaluate(e.lexpr as Node);
  if (!a) return undefined;
  const numeric = a.numeric || b.numeric;
  const scale = Math.max(a.scale, b.scale);
  switch (op) {
    case '+':
      return fits({ value: rescaled(a, scale) + rescaled(b, scale), scale, numeric });
    case '-':
      return fits({ value: rescaled(a, scale) - rescaled(b, scale), scale, numeric });
    case '*':
      return fits({ value: a.value * b.value, scale: a.scale + b.scale, numeric });
    case '/': {
      if (b.value === 0n) return undefined; // 22012, raised by the divisor's guard
      if (!numeric) return { value: a.value / b.value, scale: 0, numeric }; // int4div truncates toward zero
      return textValue(constantDivision(numericNode(a), numericNode(b))?.TypeCast?.arg?.A_Const?.sval?.sval);
    }
    default:
      return undefined;
  }
}

/** `l / r` of constant expressions, one of them numeric: PostgreSQL's exact quotient as a constant; else undefined. */
export function constantQuotient(l: Node, r: Node): Node | undefined {
  const a = evaluate(l);
  const b = evaluate(r);
  if (!a || !b || !(a.numeric || b.numeric) || b.value === 0n) return undefined;
  return constantDivision(numericNode(a), numericNode(b));
}
