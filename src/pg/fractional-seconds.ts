/**
 * `time(p)`, `timetz(p)`, `timestamp(p)`, `timestamptz(p)`: PostgreSQL rounds the fractional seconds to
 * p digits, half up (`'12:34:56.789'::time(1)` = `12:34:56.8`). DuckDB refuses a precision on TIME
 * and reads `timestamp(1)` as TIMESTAMP_MS, truncated. The rewrite casts without the precision and
 * rounds with `_pgsem_fprec` (pg-value-macros.ts); a precision of 6 or more is no rounding.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { compat, type Node } from './rewrite-nodes.js';

/** The types whose typmod is a fractional-seconds precision, as the PostgreSQL grammar names them. */
export const FRACTIONAL_SECOND_TYPES: ReadonlySet<string> = new Set(['time', 'timetz', 'timestamp', 'timestamptz']);

/** The cast `cast` (already without its typmod) rounded to the precision in `typmods`. */
export function fractionalPrecision(cast: Node, typmods: Node[]): Node {
  const c = typmods[0]?.A_Const as Node | undefined;
  const p = typmods.length === 1 && c?.ival ? Number(c.ival.ival ?? 0) : undefined;
  if (p === undefined || p < 0) {
    throw new SqlError(
      SQLSTATE.invalidParameterValue,
      'the precision of a time or timestamp type must be an integer from 0 to 6',
      undefined,
      "Write the precision as a number: '12:34:56.789'::time(1).",
    );
  }
  if (p >= 6) return cast;
  return compat('_pgsem_fprec', [cast, { A_Const: { ival: { ival: 10 ** (6 - p) } } }]);
}
