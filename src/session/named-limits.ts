/**
 * The caps on a session's named objects: prepared statements (Parse, PREPARE) and portals (Bind,
 * DECLARE), each holding a DuckDB prepared statement. The unnamed one and a replaced name do not count.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { UserHoldings } from './user-holdings.js';

/** Each session's named statements, by user: the text budget is one user's, across their sessions. */
export const userStatements = new UserHoldings<ReadonlyMap<string, { sql: string }>>();

/** Named statements, and named portals, a session may hold at once unless configured otherwise. */
export const DEFAULT_MAX_NAMED = 1000;

/**
 * Characters of text a session's named statements may hold together. DuckDB's prepared statement
 * holds far more than its text: `… where order_id in (<28,000 integers>)` (≈ 170 KB) held ≈ 6 MB,
 * and 190 of them on two connections took RSS past memoryLimit, so every other user's statement
 * failed 53200 while they were idle (the memory watchdog stops only running statements). 4 MiB of
 * text is ≈ 150 MB of DuckDB's memory at that ratio. The budget is per user, across all their
 * sessions (userStatements): per session, 100 sessions of one user held 100 × that.
 */
export const DEFAULT_MAX_PREPARED_TEXT = 4 * 1024 * 1024;

/**
 * Named statements one user's sessions may hold together unless configured otherwise. Besides its
 * DuckDB statement (session/handle-budget.ts) the gateway keeps its own record of each named
 * statement, whatever its text: its analysis, row description and text, ≈ 21 KB of heap for a 3-table
 * join. An attacker review held 14 sessions × 1,000 of them: ≈ 300 MB of records with every DuckDB
 * statement given back. 4,096 × ≈ 21 KB ≈ 86 MB; long texts are held by the text budget as well.
 */
export const DEFAULT_MAX_PREPARED_PER_USER = 4096;

export interface NamedLimits {
  /** Named prepared statements (Parse, PREPARE) a session may hold (default 1000). */
  maxPreparedStatements?: number;
  /** Named portals and cursors (Bind, DECLARE) a session may hold (default 1000). */
  maxPortals?: number;
  /** Named prepared statements one user's sessions may hold together (DEFAULT_MAX_PREPARED_PER_USER). */
  maxPreparedStatementsPerUser?: number;
  /** Characters of text one user's named statements, in all their sessions, may hold together (DEFAULT_MAX_PREPARED_TEXT). */
  maxPreparedText?: number;
  /** Live DuckDB prepared statements one user's sessions may hold before the least recently used let theirs go (session/handle-budget.ts). */
  maxPreparedHandles?: number;
}

/** 53400 when one more named statement (of `text`) would pass the cap on their count or on their text. */
export function roomForStatement(
  statements: ReadonlyMap<string, { sql: string }>,
  name: string,
  limits: NamedLimits,
  text = '',
): void {
  const max = limits.maxPreparedStatements ?? DEFAULT_MAX_NAMED;
  let count = 1;
  if (name !== '') {
    const maxText = limits.maxPreparedText ?? DEFAULT_MAX_PREPARED_TEXT;
    let held = text.length;
    for (const [n, s] of statements)
      if (n !== '' && n !== name) {
        held += s.sql.length;
        count++;
      }
    for (const other of userStatements.others(statements))
      for (const [n, s] of other)
        if (n !== '') {
          held += s.sql.length;
          count++;
        }
    if (held > maxText)
      throw new SqlError(
        SQLSTATE.configurationLimitExceeded,
        `prepared statements of this user's sessions would hold ${held} characters of text: the limit is ${maxText}`,
        undefined,
        'Close or DEALLOCATE prepared statements the session no longer needs, or pass long value lists as parameters.',
      );
  }
  if (!hasRoom(statements, name, max))
    throw new SqlError(
      SQLSTATE.configurationLimitExceeded,
      `too many prepared statements in this session: the limit (maxPreparedStatements) is ${max}`,
      undefined,
      'Close or DEALLOCATE prepared statements the session no longer needs.',
    );
  const maxPerUser = limits.maxPreparedStatementsPerUser ?? DEFAULT_MAX_PREPARED_PER_USER;
  if (name !== '' && count > maxPerUser)
    throw new SqlError(
      SQLSTATE.configurationLimitExceeded,
      `too many prepared statements in this user's sessions: the limit (maxPreparedStatementsPerUser) is ${maxPerUser}`,
      undefined,
      'Close or DEALLOCATE prepared statements the sessions no longer need, or prepare the same statements under fewer names.',
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
