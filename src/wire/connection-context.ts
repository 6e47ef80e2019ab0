/**
 * What a connection is given by the server that accepted it (the composition root's services,
 * limits and hooks), and what it tells the status page about itself.
 */
import type { SecureContext } from 'node:tls';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ServerRoot } from '../engine/duckdb-errors.js';
import type { AuthMethod } from './auth.js';
import type { Connection } from './connection.js';
import type { SessionLimits, SessionResults, VersionSource } from './session.js';

export interface ConnectionContext {
  versions: VersionSource;
  /** A DuckDB connection on the instance of the session's repository (engine/engines.ts). */
  connectDuckDB(repo: string): Promise<DuckDBConnection>;
  /** DuckDB invalidated the instance `conn` belongs to (engine/engine-failure.ts): the repository gets a new one. */
  engineFailed?(repo: string, conn: DuckDBConnection): void;
  /** Register for CancelRequest lookups; returns the key data to send. */
  register(conn: Connection): { pid: number; secret: number };
  unregister(pid: number): void;
  /** Move an authenticated connection into a session slot; throws 53300 when every slot, or every one of the user's, is taken. */
  claimSessionSlot(conn: Connection, user: string): void;
  cancel(pid: number, secret: number): void;
  maxMessageBytes: number;
  limits: SessionLimits;
  /** Results of repeatable queries, shared by all sessions; null when disabled. */
  results: SessionResults | null;
  /** TLS answers SSLRequest with 'S'; `required` refuses plaintext sessions. */
  tls: { context: SecureContext; required: boolean } | null;
  startupTimeoutMs: number;
  /** After authentication: how long the session may take to open (its version's first open, memory turns). */
  sessionOpenTimeoutMs: number;
  /** How `user` logs in (the verifier on file is undefined for unknown users); `decoyIterations`: the PBKDF2 cost of configured verifiers, for unknown names. */
  authFor(user: string): { method: AuthMethod; stored: string | undefined; decoyIterations?: number };
  /** Bytes all connections together may hold of large messages not yet complete. */
  inputBudget: InputBudget;
  /** Repository used when the database names none (exactly one served), else null. */
  defaultRepository(): string | null;
  /** The server's folders (repositories, cache, temp, state) no client-visible error may name. */
  serverRoots?(): readonly ServerRoot[];
  log: ConnectionLog;
  /** Every finished statement's audit entry (sqlstate, ms), for metrics. */
  observeStatement?(entry: Record<string, unknown>): void;
  /** A session that passed startup (ok) or was refused during it (the SQLSTATE). */
  observeStartup?(sqlstate: string): void;
}

export interface ConnectionLog {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  /** Whether lines of this level are written (pino); absent: they are. */
  isLevelEnabled?(level: string): boolean;
  /** Lines of one session carry its request id (pino's child loggers). */
  child?(bindings: Record<string, unknown>): ConnectionLog;
}

/** A session as the status page shows it (no secrets: no SQL text, no passwords). */
export interface ConnectionInfo {
  pid: number;
  user: string;
  database: string;
  clientAddress: string | null;
  startedAt: Date;
  state: 'idle' | 'active' | 'idle in transaction';
  applicationName: string;
  /** How long the running statement has run (ms); null when none runs. Its text is not shown (literals). */
  statementMs: number | null;
}

/** A byte budget shared by every connection: `take` fails (false) rather than pass the maximum. */
export class InputBudget {
  private used = 0;

  constructor(public max: number) {}

  take(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used -= n;
  }
}
