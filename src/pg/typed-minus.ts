/**
 * `a - b` whose answer depends on the operands' types: date - date is int4, and timestamptz -
 * timestamptz is the elapsed time (PostgreSQL's timestamptz_mi: microseconds apart, justified to days
 * of 24 hours), where DuckDB counts calendar days in the session's zone (`1 day` across a DST change
 * in Europe/Berlin, PostgreSQL `1 day 01:00:00`). The rewrite cannot see types: the `_pgsem_minus`
 * overloads (pg-macros.ts) let DuckDB's binder pick by the operands' types, any other pair keeping
 * DuckDB's own `-`.
 */
import { dateMinus, dispatch, tagOf } from './pg-result-types.js';
import { COMPAT_DB } from './catalog/names.js';
import type { Node } from './rewrite-nodes.js';
import { timestamptzInput } from './pg-input.js';

const MINUS_MACRO = '_pgsem_minus';

/** A side no datetime subtraction can have: a number, or an interval written as one (`ts - interval '1 day'`). */
function neverDatetime(n: Node | undefined): boolean {
  const c = (n?.A_Const ?? n?.TypeCast?.arg?.A_Const) as Node | undefined;
  const type = (n?.TypeCast?.typeName?.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval;
  // a number, bare or as the rewrite spells it (int4Constant casts an integer constant)
  return !!c?.ival || !!c?.fval || (!!c && type === 'interval');
}

/** Whether a walked side already holds a typed minus: its tag would copy it again (chains would double per level). */
function holdsTypedMinus(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(holdsTypedMinus);
  if (!n || typeof n !== 'object') return false;
  const fc = (n as Node).FuncCall as Node | undefined;
  if (fc && (fc.funcname as Node[]).slice(-1)[0]?.String?.sval === MINUS_MACRO) return true;
  return Object.values(n as Node).some(holdsTypedMinus);
}

/** The typed minus of two walked sides, or undefined (DuckDB's `-` as written). */
export function typedMinus(l: Node, r: Node): Node | undefined {
  if (neverDatetime(l) || neverDatetime(r) || holdsTypedMinus(l) || holdsTypedMinus(r)) return undefined;
  return dateMinus(l, r);
}

const isStringLiteral = (n: Node | undefined): boolean => typeof n?.A_Const?.sval?.sval === 'string';

/**
 * `x - '…'` (or `'…' - x`): PostgreSQL reads the untyped literal as x's own type when an operator
 * of that type pair exists (timestamptz - timestamptz, date - date, …), so `ts - '2024-01-01'` is an
 * interval and `ts - '1 day'` 22007; DuckDB found two candidates (42725). The literal is cast to
 * x's type by `_pgsem_likeof` where x is a date, time, timestamp or interval; any other pair keeps
 * DuckDB's reading. Returns the walked sides, the literal replaced.
 */
export function literalLikeOther(l: Node, r: Node): [Node, Node] | undefined {
  const [lit, other] =
    isStringLiteral(r) && !isStringLiteral(l) ? [r, l] : isStringLiteral(l) && !isStringLiteral(r) ? [l, r] : [];
  if (!lit || !other) return undefined;
  const cast = likeOf(other, lit);
  if (!cast) return undefined;
  return lit === r ? [l, cast] : [cast, r];
}

/**
 * `x < '2024-01-01 10:00+00'`: a date/time literal with a zone PostgreSQL reads but DuckDB's reader does not
 * (a time without seconds before a zone, a date and a zone: pg-input.ts timestamptzInput) beside a timestamptz
 * is read respelled (`_pgsem_tzlit`; it was 22007), beside a timestamp without its zone, beside any other type as
 * written. Returns the walked sides, the literal replaced.
 */
export function zonedLiteralBeside(l: Node, r: Node): [Node, Node] | undefined {
  const [lit, other] =
    isStringLiteral(r) && !isStringLiteral(l) ? [r, l] : isStringLiteral(l) && !isStringLiteral(r) ? [l, r] : [];
  if (!lit || !other || other.A_Const) return undefined;
  const read = zonedRead(other, lit);
  if (!read) return undefined;
  return lit === r ? [l, read] : [read, r];
}

/**
 * The same for the literals among `items` read as `other`'s type: `x BETWEEN '…' AND '…'`, `x IN ('…', …)`,
 * `coalesce`/`greatest`/`least` (pgjdbc's simple query mode inlines `setDate` as `'2024-02-10 +00'` in each).
 * Undefined when none is such a literal.
 */
export function zonedLiteralsAmong(other: Node | undefined, items: readonly Node[]): Node[] | undefined {
  if (!other || other.A_Const || isStringLiteral(other)) return undefined;
  let changed = false;
  const out = items.map((item) => {
    const read = isStringLiteral(item) ? zonedRead(other, item) : undefined;
    if (read) changed = true;
    return read ?? item;
  });
  return changed ? out : undefined;
}

function zonedRead(other: Node, lit: Node): Node | undefined {
  const respelled = timestamptzInput(String(lit.A_Const.sval.sval));
  const tag = respelled && tagOf(other);
  if (!respelled || tag === undefined) return undefined;
  return {
    FuncCall: {
      funcname: [COMPAT_DB, 'pgcat', '_pgsem_tzlit'].map((sval) => ({ String: { sval } })),
      args: [tag, lit, respelled],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
}

/** A string literal read as `other`'s type (`_pgsem_likeof`), or undefined when no tag stands for `other`. */
export function likeOf(other: Node, lit: Node): Node | undefined {
  if (other.A_Const) return undefined;
  const tag = tagOf(other);
  if (tag === undefined) return undefined;
  return {
    FuncCall: {
      funcname: [COMPAT_DB, 'pgcat', '_pgsem_likeof'].map((sval) => ({ String: { sval } })),
      args: [tag, lit],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
}

/**
 * `coalesce(x, 'n/a')`: PostgreSQL reads the literals as x's type (`coalesce(qty, 'n/a')` is 22P02);
 * DuckDB made the whole a VARCHAR. Only one value beside string literals and NULLs; undefined otherwise.
 */
export function coalesceLiterals(args: Node[]): Node[] | undefined {
  const values = args.filter((a) => !a.A_Const);
  if (values.length !== 1 || !args.some(isStringLiteral)) return undefined;
  const out = args.map((a) => (isStringLiteral(a) ? likeOf(values[0]!, a) : a));
  return out.every((a) => a !== undefined) ? (out as Node[]) : undefined;
}

/** Whether a side is written as a time value (`time '10:00'`, `x::time`): `+` beside it may be timestamp + time. */
function writtenAsTime(n: Node | undefined): boolean {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return !!tn && (tn.names as Node[]).slice(-1)[0]?.String?.sval === 'time' && !tn.arrayBounds?.length;
}

/**
 * `timestamp + time` (either order, timestamptz too): PostgreSQL casts the time to an interval, DuckDB has
 * no such operator (42883). Only where a side is written as a time: `_pgsem_tplus` (pg-macros.ts) keeps
 * DuckDB's `+` for every other pair of types (date + time, time + interval).
 */
export function timePlus(origL: Node, origR: Node, l: Node, r: Node): Node | undefined {
  if (!writtenAsTime(origL) && !writtenAsTime(origR)) return undefined;
  return dispatch('tplus', [l, r], [l, r]);
}
