/**
 * DuckDB invalidates a whole instance when one of its own assertions fails (an "INTERNAL Error"):
 * from then on every call of every connection of it fails ("FATAL Error: … database has been
 * invalidated"). One statement meeting such a DuckDB bug would leave its repository unusable for
 * every user until a restart. A failure of this kind is told apart from a statement's own error
 * here (a session that met an internal error asks its connection whether the instance still works);
 * the session that meets it ends, and the repository's engine is replaced (engines.ts), so clients
 * reconnect to a working one, as PostgreSQL's clients do after a backend crash.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/**
 * DuckDB's own assertion failed ("INTERNAL Error"). Raised while binding or planning, only the
 * statement failed; raised while it ran, DuckDB invalidated the instance (`invalidated` once that is
 * known: every later call says so with a "FATAL Error").
 */
export class EngineInternalError extends SqlError {
  constructor(
    message: string,
    readonly invalidated: boolean,
  ) {
    super(SQLSTATE.internalError, message);
  }
}

/**
 * DuckDB's words for an internal error, and for every call of an instance it invalidated: read from
 * the start of the message only, where DuckDB names the kind of error. A client's own text can be
 * anywhere after it (`select error('database has been invalidated')` is an "Invalid Input Error"):
 * read anywhere, it made the gateway replace the repository's engine for every session.
 */
export function isInternalMessage(message: string): boolean {
  return /^(INTERNAL|FATAL) Error:/.test(message);
}

export function isInvalidatedMessage(message: string): boolean {
  return /^FATAL Error: (?:Failed: )?database has been invalidated/.test(message);
}

/** What the session's client is told as it is ended (PostgreSQL's words after a backend crash). */
export function engineRestartNotice(repo: string): SqlError {
  return new SqlError(
    SQLSTATE.crashShutdown,
    `terminating connection because the query engine of database "${repo}" failed`,
    'DuckDB stopped on an internal error; the gateway started a new engine for this database.',
    'In a moment you should be able to reconnect to the database and repeat your command.',
  );
}

let failures = 0;

/** Counts an engine replaced after a failure (fdl_engine_failures_total). */
export function countEngineFailure(): void {
  failures++;
}

export function engineFailures(): number {
  return failures;
}
