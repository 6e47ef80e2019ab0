/**
 * Arguments DuckDB 1.5.6 trusts that an ordinary SELECT could make fatal, read from its parse tree:
 *  - `lead`/`lag` over an empty window with the offset -2^63 crash the process (SIGSEGV: every
 *    session of every repository dropped) when the offset is a constant, a constant expression or a
 *    parameter (all folded before the window runs); an offset read per row does not. PostgreSQL's
 *    offset is an int4: here a constant offset must be an integer literal in int4's range, and an
 *    offset that is neither a literal nor read from the row (a parameter, a constant expression) is
 *    refused.
 *  (`reservoir_quantile`, whose sample reserved per group failed an allocation that invalidated the
 *  engine, is refused by name: analysis/containment.ts.)
 * Pure; iterative, so a deep tree cannot exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { pushMembers } from './json-objects.js';

const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;

type Node = Record<string, unknown>;

/** An integer constant's value, or null when the node is not one (a JSON number, or text beyond 2^53). */
function integerLiteral(n: Node | undefined): number | null {
  // `1::integer`, as the PostgreSQL rewrite writes constants; `CAST('1' AS integer)::INTEGER`, a bound value under a client's cast
  while (n?.class === 'CAST') n = n.child as Node | undefined;
  if (!n || n.class !== 'CONSTANT') return null;
  const value = n.value as { type?: { id?: string }; is_null?: boolean; value?: unknown } | undefined;
  const id = value?.type?.id ?? '';
  if (value?.is_null) return null;
  const v = value?.value;
  // a string cast to an integer (`CAST('7' AS integer)`, as clients and the catalog's probes write one)
  const read = id === 'VARCHAR' && typeof v === 'string' && /^\s*[+-]?\d{1,10}\s*$/.test(v) ? Number(v) : v;
  if (!/INT|VARCHAR/.test(id)) return null;
  return typeof read === 'number' && Number.isSafeInteger(read) ? read : null;
}

/** Whether an expression reads a column (evaluated per row, never folded to one constant). */
function readsRow(n: Node): boolean {
  const stack: unknown[] = [n];
  while (stack.length) {
    const x = stack.pop();
    if (!x || typeof x !== 'object') continue;
    if ((x as Node).class === 'COLUMN_REF') return true;
    pushMembers(stack, x);
  }
  return false;
}

export function checkArgumentBounds(tree: unknown): void {
  const stack: unknown[] = [tree];
  while (stack.length) {
    const x = stack.pop();
    if (!x || typeof x !== 'object') continue;
    const n = x as Node;
    if ((n.type === 'WINDOW_LEAD' || n.type === 'WINDOW_LAG') && n.offset_expr) checkOffset(n);
    pushMembers(stack, n);
  }
}

function checkOffset(n: Node): void {
  const offset = n.offset_expr as Node;
  const literal = integerLiteral(offset);
  if (literal !== null ? literal >= INT4_MIN && literal <= INT4_MAX : offset.class !== 'CONSTANT' && readsRow(offset))
    return;
  const fn = String(n.function_name ?? 'lead');
  throw new SqlError(
    SQLSTATE.featureNotSupported,
    `${fn}() with this offset is not supported by fdl-gateway`,
    undefined,
    `Write the offset as an integer literal within int4's range (as PostgreSQL's ${fn}(value, integer)), or read it from a column.`,
  );
}
