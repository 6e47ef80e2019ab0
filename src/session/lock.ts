/**
 * LOCK TABLE as PostgreSQL answers it in a read-only transaction: only inside a block (25P01), and
 * every relation must exist and be readable (the wire checks them by planning a read of each). Nothing
 * ever writes a version, so the modes that exclude only writers (ACCESS SHARE, ROW SHARE, ROW
 * EXCLUSIVE) hold by themselves: a no-op. The stronger modes would have to block other readers, which
 * the gateway cannot do: refused (25006), as PostgreSQL refuses them on a hot standby.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { Statement } from '../text/classify.js';

const SHARED_MODES = new Set(['ACCESS SHARE', 'ROW SHARE', 'ROW EXCLUSIVE']);

/** The reads that prove each relation exists and is granted, or the refusal. */
export function interpretLock(stmt: Extract<Statement, { kind: 'lock' }>, inBlock: boolean): string[] {
  if (!inBlock) throw new SqlError(SQLSTATE.noActiveTransaction, 'LOCK TABLE can only be used in transaction blocks');
  if (!SHARED_MODES.has(stmt.mode)) {
    throw new SqlError(
      SQLSTATE.readOnlyTransaction,
      `cannot execute LOCK TABLE in ${stmt.mode} mode: versions served by fdl-gateway are read-only`,
      undefined,
      'ACCESS SHARE, ROW SHARE and ROW EXCLUSIVE are accepted.',
    );
  }
  return stmt.relations.map((r) => `SELECT 1 FROM ${r} LIMIT 0`);
}
