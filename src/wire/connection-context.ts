/**
 * What a connection is given by the server that accepted it (the composition root's services,
 * limits and hooks), and what it tells the status page about itself.
 */
import type { SecureContext } from 'node:tls';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ServerRoot } from '../sql/duckdb-errors.js';
import type { AuthMethod } from './auth.js';
import type { Connection } from './connection.js';
import type { SessionLimits, SessionResults, VersionSource } from './session.js';

export interface ConnectionContext {
  versions: VersionSource;
  connectDuckDB(): Promise<DuckDBConnection>;
  /** Register for CancelRequest lookups; returns the key data to send. */
  register(conn: Connection): { pid: number; secret: number };
  unregister(pid: number): void;
  /** Move an authenticated connection into a session slot; false when every slot is taken. */
  claimSessionSlot(conn: Connection): boolean;
  cancel(pid: number, secret: number): void;
  maxMessageBytes: number;
  limits: SessionLimits;
  /** Results of repeatable queries, shared by all sessions; null when disabled. */
  results: SessionResults | null;
  /** TLS answers SSLRequest with 'S'; `required` refuses plaintext sessions. */
  tls: { context: SecureContext; required: boolean } | null;
  startupTimeoutMs: number;
  /** How `user` must authenticate and the verifier on file (undefined for unknown users). */
  authFor(user: string): { method: AuthMethod; stored: string | undefined };
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
}
