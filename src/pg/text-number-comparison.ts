/**
 * `customer_id::text = 1`, `x::varchar IN (1, 2)`: PostgreSQL has no operator between a string type and a
 * number (42883, no implicit cast from text); DuckDB casts the string to the number and answered. Refused
 * where the parse alone says the types: a cast to a string type beside an integer or numeric constant.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { names, type Node } from './rewrite-nodes.js';

const STRINGS: Readonly<Record<string, string>> = { text: 'text', varchar: 'character varying', bpchar: 'character' };

/** PostgreSQL's name of an operand's type where the parse says it: a cast to a string type, a number constant. */
function spelled(n: Node | undefined): { name: string; string: boolean } | undefined {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  const cast = tn && !tn.arrayBounds?.length ? STRINGS[names(tn.names).at(-1) ?? ''] : undefined;
  if (cast) return { name: cast, string: true };
  if (n?.A_Const?.ival) return { name: 'integer', string: false };
  if (n?.A_Const?.fval) return { name: 'numeric', string: false };
  return undefined;
}

/**
 * Throws 42883 when a comparison `l op r` (as the client wrote them) sets a string cast against a number
 * constant; `op` is PostgreSQL's operator (`=` for IN's items, `>=`/`<=` for BETWEEN's bounds).
 */
export function textNumberRefused(op: string, l: Node | undefined, r: Node | undefined): void {
  const [a, b] = [spelled(l), spelled(r)];
  if (!a || !b || a.string === b.string) return;
  throw new SqlError(
    SQLSTATE.undefinedFunction,
    `operator does not exist: ${a.name} ${op} ${b.name}`,
    undefined,
    'No operator matches the given name and argument types. You might need to add explicit type casts.',
  );
}

/** The same for `x IN (…)` and `x BETWEEN a AND b` (the first item PostgreSQL would refuse). */
export function textNumberItemsRefused(kind: unknown, x: Node | undefined, items: readonly Node[]): void {
  const between = String(kind).includes('BETWEEN');
  items.forEach((item, i) => textNumberRefused(between ? (i === 0 ? '>=' : '<=') : '=', x, item));
}
