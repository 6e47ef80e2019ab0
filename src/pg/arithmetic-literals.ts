/**
 * `qty * '2'`, `'5' + 3`, `amount::numeric(10,2) * '1.1'`, `interval '1 day' * '2'`: PostgreSQL reads an
 * untyped string literal beside an arithmetic operator as the other operand's type (or, where no such
 * operator exists, the one candidate's: interval * float8); DuckDB found several candidates (42725).
 * psqlODBC without server-side prepare (Tableau, Power BI) inlines Decimal parameters this way.
 * The rewrite cannot see types: `_pgsem_lit_add` / `_pgsem_lit_mul` overloads let DuckDB's binder pick
 * by the other operand's type; `-` keeps typed-minus.ts (its date/time pairs).
 */
import { COMPAT_DB } from './catalog/names.js';
import { tagOf } from './pg-result-types.js';
import type { Node } from './rewrite-nodes.js';

const ADDITIVE = new Set(['+', '%']);
const MULTIPLICATIVE = new Set(['*', '/']);

/** A plain decimal number (the form PostgreSQL's numeric input and the SQL scanner read alike), trimmed. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

const INTEGERS = ['SMALLINT', 'INTEGER', 'BIGINT'];
const FLOATS = ['FLOAT', 'DOUBLE'];

/** The literal read as the other operand's type; integers keep PostgreSQL's integer input (`_pgsem_likeof`). */
const overloads = (name: string, interval: string): Array<[string, string]> => [
  ...INTEGERS.map((t): [string, string] => [`${name}(a ${t}, s, n)`, '_pgsem_likeof(a, s)']),
  [`${name}(a DECIMAL, s, n)`, 'n'],
  ...FLOATS.map((t): [string, string] => [`${name}(a ${t}, s, n)`, 'CAST(s AS DOUBLE)']),
  [`${name}(a INTERVAL, s, n)`, interval],
  [`${name}(a, s, n)`, 's'],
];

export const ARITHMETIC_LITERAL_MACROS: ReadonlyArray<[string, string]> = [
  ...overloads('_pgsem_lit_add', 'CAST(s AS INTERVAL)'),
  // interval * interval does not exist: the one candidate is interval * float8 (and float8 * interval)
  ...overloads('_pgsem_lit_mul', 'CAST(s AS DOUBLE)'),
];

const literalText = (n: Node | undefined): string | undefined => {
  const s = n?.A_Const?.sval?.sval;
  return typeof s === 'string' ? s : undefined;
};

/** The literal as a numeric value: a DECIMAL constant when plainly written, else DuckDB's cast (22P02 when no number). */
function asNumeric(text: string): Node {
  const t = text.trim();
  if (PLAIN_NUMBER.test(t)) {
    const neg = t.startsWith('-');
    const digits = t.replace(/^[+-]/, '');
    const c: Node = { A_Const: digits.includes('.') ? { fval: { fval: digits } } : { ival: { ival: Number(digits) } } };
    if (/^\d+$/.test(digits) && !Number.isSafeInteger(Number(digits))) c.A_Const = { fval: { fval: digits } };
    return neg ? { A_Expr: { kind: 'AEXPR_OP', name: [{ String: { sval: '-' } }], rexpr: c } } : c;
  }
  return {
    TypeCast: {
      arg: { A_Const: { sval: { sval: text } } },
      typeName: {
        names: [{ String: { sval: 'numeric' } }],
        typmods: [{ A_Const: { ival: { ival: 38 } } }, { A_Const: { ival: { ival: 10 } } }],
        typemod: -1,
      },
    },
  };
}

/** The type tag of the side beside the literal: a number constant is its own; undefined when none stands for it. */
function tagBeside(other: Node): Node | undefined {
  if (other.A_Const) return other.A_Const.ival || other.A_Const.fval ? other : undefined;
  if (literalText(other) !== undefined) return undefined;
  return tagOf(other) as Node | undefined;
}

/** `x op '…'` or `'…' op x` with the literal read as x's type; undefined for any other operator or pair. */
export function arithmeticLiteral(op: string, l: Node, r: Node): [Node, Node] | undefined {
  const macro = ADDITIVE.has(op) ? '_pgsem_lit_add' : MULTIPLICATIVE.has(op) ? '_pgsem_lit_mul' : undefined;
  if (!macro) return undefined;
  const [lt, rt] = [literalText(l), literalText(r)];
  if ((lt === undefined) === (rt === undefined)) return undefined;
  const [text, other] = lt !== undefined ? [lt, r] : [rt!, l];
  const tag = tagBeside(other);
  if (tag === undefined) return undefined;
  const read: Node = {
    FuncCall: {
      funcname: [COMPAT_DB, 'pgcat', macro].map((sval) => ({ String: { sval } })),
      args: [tag, { A_Const: { sval: { sval: text } } }, asNumeric(text)],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
  return lt !== undefined ? [read, r] : [l, read];
}
