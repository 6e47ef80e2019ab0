/**
 * The DuckDB prepared statements one user's sessions hold, together, are bounded by count (issue 23).
 * Each holds DuckDB's plan outside memory_limit (measured RSS, idle, per statement: `select <n>`
 * ≈ 12–14 KB, a 3-table join of the fixtures ≈ 144 KB, psql's `\d` catalog query ≈ 390 KB), and a
 * user may hold many: 1000 named statements per session, in as many sessions as they may open.
 * Refusing at a low count would break pooled clients (pgjdbc keeps up to 256 server-prepared
 * statements per connection, pools of 10–20 connections), so past the budget the user's least
 * recently used statements that no portal is starting or reading give their DuckDB statement back
 * (plan.ts releaseOperatorState, as under memory pressure): everything the client was told stays
 * (parameter types, row description) and DuckDB prepares the text again at its next run (plan.ts
 * preparedDuck; a changed result shape is refused 0A000, as PostgreSQL refuses a cached plan whose
 * result type changed). Named and unnamed statements, portals' and the statement cache's alike.
 * Process-wide; a user's entry goes with their last live statement.
 */
import { releaseOperatorState, type HandleBudget, type PreparedStmt } from './plan.js';

/**
 * Live DuckDB statements one user may hold across their sessions unless configured otherwise
 * (`maxPreparedHandles`): 1,024 of psql's catalog query hold ≈ 400 MB, of a 3-table join ≈ 130 MB,
 * of `select <n>` ≈ 14 MB. A pool of 4 connections × 256 statements keeps them all; a larger pool's
 * least recent ones are prepared again when next run (≈ 1–20 ms each).
 */
export const DEFAULT_MAX_PREPARED_HANDLES = 1024;

/**
 * Each user's plans holding a live DuckDB statement, least recently used first (a Map keeps
 * insertion order), each with whether its session's connection runs a DuckDB call now.
 */
const byUser = new Map<string, Map<PreparedStmt, () => boolean>>();

/**
 * The budget a session of `user` counts its plans' DuckDB statements in, letting go past `max`;
 * `busy`: whether the session's connection runs a DuckDB call now (its statements then stay, as
 * under memory pressure, wire/session.ts).
 */
export function handleBudget(user: string, max: number, busy: () => boolean): HandleBudget {
  return {
    used(s) {
      let live = byUser.get(user);
      if (!live) byUser.set(user, (live = new Map()));
      live.delete(s);
      live.set(s, busy);
      // the least recent first; one in use stays (it is tried again at the next use)
      for (const [old, running] of live) {
        if (live.size <= max) break;
        if (old !== s && !running()) releaseOperatorState(old);
      }
    },
    gone(s) {
      const live = byUser.get(user);
      if (live?.delete(s) && live.size === 0) byUser.delete(user);
    },
  };
}
