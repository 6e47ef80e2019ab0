/**
 * A numeric cast to float8 or float4 (`1.1::numeric::real`, `amount::float8`): PostgreSQL reads the
 * numeric's decimal text (numeric_float8 is float8in of numeric_out), one correctly rounded step. DuckDB
 * converted a DECIMAL's integer and divided it by a power of ten in binary, rounding twice: 1 ulp off for
 * many values of more than 7 (float4) or 15 (float8) digits. Typed by a tag (pg-result-types.ts): only a
 * numeric goes through its text; every other type keeps DuckDB's cast.
 */
import { FLOAT_OF } from './numeric-float-macros.js';
import { dispatch } from './pg-result-types.js';
import type { Node } from './rewrite-nodes.js';

/** `cast` (the walked `arg` cast to float8 or float4, `type`) read from the numeric's text where `arg` is a numeric. */
export function numericFloatCast(type: string, arg: Node, cast: Node): Node {
  if (!(type in FLOAT_OF)) return cast;
  // A numeric constant is its text already: DuckDB reads a string as float8in does, rounding once — and the
  // cast of a constant stays a cast of a constant, whose type error messages name (`nosuch(2.5::float8)`).
  const digits = (arg as { A_Const?: { fval?: { fval?: unknown } } }).A_Const?.fval?.fval;
  if (typeof digits === 'string' && cast.TypeCast)
    return { TypeCast: { ...cast.TypeCast, arg: { A_Const: { sval: { sval: digits } } } } };
  return dispatch(`to${type}`, [arg], [arg]) ?? cast;
}
