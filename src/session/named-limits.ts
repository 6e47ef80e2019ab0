/**
 * The caps on a session's named objects: prepared statements (Parse, PREPARE) and portals (Bind,
 * DECLARE), each holding a DuckDB prepared statement. The unnamed one and a replaced name do not count.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** Named statements, and named portals, a session may hold at once unless configured otherwise. */
export const DEFAULT_MAX_NAMED = 1000;

export interface NamedLimits {
  /** Named prepared statements (Parse, PREPARE) a session may hold (default 1000). */
  maxPreparedStatements?: number;
  /** Named portals and cursors (Bind, DECLARE) a session may hold (default 1000). */
  maxPortals?: number;
}

/** 53400 when one more named statement would pass the cap. */
export function roomForStatement(statements: ReadonlyMap<string, unknown>, name: string, limits: NamedLimits): void {
  const max = limits.maxPreparedStatements ?? DEFAULT_MAX_NAMED;
  if (hasRoom(statements, name, max)) return;
  throw new SqlError(
    SQLSTATE.configurationLimitExceeded,
    `too many prepared statements in this session: the limit (maxPreparedStatements) is ${max}`,
    undefined,
    'Close or DEALLOCATE prepared statements the session no longer needs.',
  );
}

/** 53400 when one more named portal or cursor would pass the cap. */
export function roomForPortal(portals: ReadonlyMap<string, unknown>, name: string, limits: NamedLimits): void {
  const max = limits.maxPortals ?? DEFAULT_MAX_NAMED;
  if (hasRoom(portals, name, max)) return;
  throw new SqlError(
    SQLSTATE.configurationLimitExceeded,
    `too many portals and cursors in this session: the limit (maxPortals) is ${max}`,
    undefined,
    'Close portals and cursors the session no longer needs.',
  );
}

function hasRoom(named: ReadonlyMap<string, unknown>, name: string, max: number): boolean {
  return name === '' || named.has(name) || named.size - (named.has('') ? 1 : 0) < max;
}
