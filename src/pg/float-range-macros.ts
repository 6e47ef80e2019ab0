/**
 * float8 and float4 results as PostgreSQL's float.c checks them: a result that overflowed to ±Infinity
 * from finite operands is 22003 "value out of range: overflow", a product or quotient that underflowed
 * to 0 from nonzero operands 22003 "value out of range: underflow" (float8_pl … float8_div, dexp, dpow,
 * and sum's float8pl); an operand that is already ±Infinity or NaN passes through. DuckDB answered
 * Infinity or 0. The rewrite cannot see types: the `_pgsem_f*` macros are typed by a tag of the result
 * (pg-result-types.ts), a float result checked, any other kept as DuckDB's own operator; float-range.ts calls them.
 *
 * Cost: a tree of `+ -` or of `*` is checked once, where its value is not finite (or a product's is 0) — one
 * CASE a row; its leaves are read again only on those rare rows. A check per operator would read each operand
 * several times, and DuckDB binds a macro's arguments twice a level (nested checks doubled the bind per level).
 */
import { EXACT_NUMBERS } from './pg-float-macros.js';

const OVERFLOW = "error('value out of range: overflow')";
const UNDERFLOW = "error('value out of range: underflow')";

/** Types DuckDB computes a float result in: each other number type has an overload of its own (the binder casts an INTEGER tag to a DOUBLE parameter). */
const FLOATS = ['DOUBLE', 'FLOAT'];
const OTHERS = [...EXACT_NUMBERS, 'VARCHAR', 'INTERVAL', 'DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'TIME'];

const inf = (x: string): string => `isinf(CAST(${x} AS DOUBLE))`;

/**
 * `a op b` checked as float.h's float8_pl/mi/mul/div (float4's alike): overflow when the result is infinite
 * and the operands are not (a quotient: the dividend), underflow when a product or quotient is 0 and
 * its dividend or factors are not (a quotient: and its divisor not infinite).
 */
export function checkedArithmetic(op: string, a: string, b: string): string {
  const r = `(${a} ${op} ${b})`;
  const overflow = op === '/' ? `isinf(${r}) AND NOT ${inf(a)}` : `isinf(${r}) AND NOT ${inf(a)} AND NOT ${inf(b)}`;
  if (op === '+' || op === '-') return `CASE WHEN ${overflow} THEN ${OVERFLOW} ELSE ${r} END`;
  const underflow = op === '/' ? `${r} = 0 AND ${a} <> 0 AND NOT ${inf(b)}` : `${r} = 0 AND ${a} <> 0 AND ${b} <> 0`;
  return `CASE WHEN ${r} = 0 OR isinf(${r}) THEN CASE WHEN ${overflow} THEN ${OVERFLOW} WHEN ${underflow} THEN ${UNDERFLOW} ELSE ${r} END ELSE ${r} END`;
}

/**
 * A function's float result `r` of finite arguments `args` (dexp: `exp(x)`; dpow: `power(x, y)`), as
 * float.c's checks: infinite is overflow, 0 underflow (for power only where the base is not 0).
 */
const checkedCall = (r: string, args: string[], underflowToo: string): string =>
  `CASE WHEN CAST(${r} AS DOUBLE) = 0 OR ${inf(r)} THEN CASE WHEN ${args.map((a) => `NOT ${inf(a)} AND NOT isnan(CAST(${a} AS DOUBLE))`).join(' AND ')} THEN CASE WHEN ${inf(r)} THEN ${OVERFLOW} WHEN ${underflowToo} THEN ${UNDERFLOW} ELSE ${r} END ELSE ${r} END ELSE ${r} END`;

export const FLOAT_RANGE_MACROS: ReadonlyArray<[string, string]> = [
  // A tree of `+ -` (ftree) or of `*` (fprod) over its leaves, float-range.ts: DuckDB's plain arithmetic `p` where
  // its float value is finite (a product's also not 0), else PostgreSQL's error where every leaf is finite (`f`;
  // of a product, and not 0: `z`): with finite operands an overflow anywhere leaves the tree's value infinite or
  // NaN, and a product of nonzero factors is 0 only by an underflow.
  ...FLOATS.flatMap((t): Array<[string, string]> => [
    // (asked as the error's condition: a NULL value is no overflow — `isfinite(NULL) OR NOT NULL` had raised it)
    [`_pgsem_ftree(t ${t}, p, f)`, `CASE WHEN NOT isfinite(p) AND f THEN ${OVERFLOW} ELSE p END`],
    [
      `_pgsem_fprod(t ${t}, p, f, z)`,
      `CASE WHEN (isfinite(p) AND p <> 0) OR NOT f THEN p WHEN p <> 0 THEN ${OVERFLOW} WHEN z THEN ${UNDERFLOW} ELSE p END`,
    ],
    [`_pgsem_ffin(t ${t}, x)`, 'isfinite(x)'],
    [`_pgsem_fnz(t ${t}, x)`, 'x <> 0'],
  ]),
  ...OTHERS.flatMap((t): Array<[string, string]> => [
    [`_pgsem_ftree(t ${t}, p, f)`, 'p'],
    [`_pgsem_fprod(t ${t}, p, f, z)`, 'p'],
    [`_pgsem_ffin(t ${t}, x)`, 'true'],
    [`_pgsem_fnz(t ${t}, x)`, EXACT_NUMBERS.includes(t) ? 'x <> 0' : 'true'],
  ]),
  ['_pgsem_ftree(t, p, f)', 'p'],
  ['_pgsem_fprod(t, p, f, z)', 'p'],
  ['_pgsem_ffin(t, x)', 'true'],
  ['_pgsem_fnz(t, x)', 'true'],
  // exp(x) (dexp) and power(x, y) (dpow) of floats; `r` the call, computed as DuckDB's.
  ['_pgsem_fexp(r, x)', checkedCall('r', ['x'], 'true')],
  ['_pgsem_fpow(r, x, y)', checkedCall('r', ['x', 'y'], 'CAST(x AS DOUBLE) <> 0')],
  // sum(x) of floats (float8pl at each row): infinite although no row is (`f`: a row is infinite or NaN).
  ...FLOATS.map((t): [string, string] => [
    `_pgsem_fsum(t ${t}, s, f)`,
    `CASE WHEN isinf(s) AND NOT f THEN ${OVERFLOW} ELSE s END`,
  ]),
  ...OTHERS.map((t): [string, string] => [`_pgsem_fsum(t ${t}, s, f)`, 's']),
  ['_pgsem_fsum(t, s, f)', 's'],
];

/** Names of the checking macros whose first argument is of the result's type: a tag of one is that argument's tag (pg-result-types.ts tagOf). */
export const FLOAT_CHECKED_CALL = /^_pgsem_(?:ftree|fprod|fexp|fpow)$/;
