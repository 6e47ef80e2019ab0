/**
 * `x::float8 % 2`: PostgreSQL has no `%` for double precision or real (42883); DuckDB answered fmod's
 * value. Refused where the parse alone says an operand is a float: a cast to float8 or float4.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { names, type Node } from './rewrite-nodes.js';

const FLOATS: Readonly<Record<string, string>> = { float8: 'double precision', float4: 'real' };

/** PostgreSQL's name of an operand's type where the parse says it: a float cast, an integer or numeric constant. */
function spelled(n: Node | undefined): string | undefined {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  if (tn && !tn.arrayBounds?.length) return FLOATS[names(tn.names).at(-1) ?? ''];
  if (n?.A_Const?.ival) return 'integer';
  if (n?.A_Const?.fval) return 'numeric';
  return undefined;
}

/** Throws 42883 for `%` with a float operand (`l`, `r` as the client wrote them). */
export function floatModuloRefused(l: Node | undefined, r: Node | undefined): void {
  const [a, b] = [spelled(l), spelled(r)];
  const float = [a, b].find((t) => t === 'double precision' || t === 'real');
  if (!float) return;
  throw new SqlError(
    SQLSTATE.undefinedFunction,
    `operator does not exist: ${a ?? 'unknown'} % ${b ?? 'unknown'}`,
    undefined,
    'No operator matches the given name and argument types. You might need to add explicit type casts.',
  );
}
