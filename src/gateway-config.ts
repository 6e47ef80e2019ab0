/**
 * What a gateway is built from and what it reports: the one validated configuration (cli/config.ts
 * fills it), the settings a reload cannot change, the hooks the service layer watches, and the cache
 * and HEAD figures it is asked for.
 */
import type { DataHashPolicy, SignaturePolicy } from './resolver/repository.js';
import type { ServerObserver } from './wire/server.js';
import type { SessionLimits } from './wire/session.js';
import type { GrantedUser } from './versions/grants.js';
import type { AuthMethod } from './wire/auth.js';

export interface RepoConfig {
  name: string;
  location: string;
  signatures?: SignaturePolicy;
  allowedSigners?: string;
  dataHashes?: DataHashPolicy;
}

export interface UserConfig extends GrantedUser {
  password?: string;
}

export interface GatewayConfig {
  repos: RepoConfig[];
  auth: AuthMethod;
  users: Record<string, UserConfig>;
  host: string;
  port: number;
  cacheDir: string;
  /** Tag ledger and verification ledger; outside cacheDir (default `<cacheDir>.state`). */
  stateDir?: string;
  maxConnections: number;
  /** Sessions of one user (default: half of maxConnections under password authentication; none under trust). */
  maxConnectionsPerUser?: number;
  /**
   * Users whose sessions are refused until a time (epoch ms): a statement of theirs was stopped for
   * memory just before the previous serving process died (service/supervisor.ts). Read at start.
   */
  heldOff?: ReadonlyMap<string, number>;
  /** DuckDB calls one user's sessions may run at once (engine/engine-calls.ts; default 2 of 6). */
  maxEngineCallsPerUser?: number;
  /** A DuckDB call still running this long after its statement was stopped wedges the process (default 60 s). */
  stuckCallGraceMs?: number;
  /** Sockets that may be authenticating at once, apart from the sessions. */
  maxAuthenticating: number;
  /** Of those, from one source address (default: half of maxAuthenticating). */
  maxAuthenticatingPerAddress?: number;
  maxMessageBytes: number;
  /** Bytes of large incomplete messages all connections together may hold (default 256 MiB). */
  maxPendingMessageBytes?: number;
  startupTimeoutMs: number;
  /** How long a logged-in client may wait for its session to open (its version's first open included). */
  sessionOpenTimeoutMs: number;
  refTtlMs: number;
  maxIdleVersions: number;
  /** Bytes the idle attached versions may hold together, by their catalogs' estimate (versions/version-footprint.ts). */
  maxIdleVersionBytes: number;
  /** Parquet bytes of a version's small tables copied into native DuckDB tables when it opens (versions/native-tables.ts); 0: none. */
  nativeTableBytes: number;
  memoryLimit?: string;
  threads?: number;
  maxTempDirectorySize?: string;
  /** Byte budget of the disk cache of remote files. */
  cacheMaxBytes: number;
  /** Parallel downloads of remote data files (default 8). */
  downloadConcurrency?: number;
  /** Memory for results of repeatable queries (0 = off). */
  resultCacheBytes: number;
  s3: { endpoint?: string; region?: string; forcePathStyle?: boolean };
  limits: SessionLimits;
  tls?: { cert: string; key: string; mode: 'required' | 'optional' };
  /** Expect a PROXY protocol header (HAProxy send-proxy-v2) on every connection. */
  proxyProtocol?: boolean;
}

/** What the service layer watches (metrics); every hook is optional. */
export interface GatewayObserver extends ServerObserver {
  statement?(entry: Record<string, unknown>): void;
  /** The memory watchdog stopped a statement of `user` (memory past its line: the process may die next). */
  memoryStopped?(user: string): void;
  startup?(sqlstate: string): void;
  versionFailure?(sqlstate: string): void;
}

/** Cache figures for metrics and the status page. */
export interface CacheReport {
  files: { entries: number; bytes: number; maxBytes: number; downloadedBytes: number; hits: number; misses: number };
  results: { entries: number; bytes: number; hits: number; misses: number; enabled: boolean };
  versions: { attached: number };
  /** Data integrity: files remembered as verified, bytes hashed, and mismatches from every source (local, downloads, cache). */
  verification: { entries: number; hashedBytes: number; mismatches: number };
}

export interface HeadDescription {
  versionId: string;
  title: string | null;
  description: string | null;
  license: string | null;
  homepage: string | null;
  tables: {
    schema: string;
    name: string;
    description: string | null;
    columns: { name: string; type: string; description: string | null }[];
  }[];
}

/** Settings read once at start; a reload that changes them is logged and they keep their old value. */
export const RESTART_ONLY = [
  'host',
  'port',
  'cacheDir',
  'stateDir',
  'proxyProtocol',
  'tls',
  's3',
  'memoryLimit',
  'threads',
  'maxTempDirectorySize',
  'cacheMaxBytes',
  'resultCacheBytes',
  'maxMessageBytes',
  'maxPendingMessageBytes',
  'maxAuthenticating',
  'maxAuthenticatingPerAddress',
  'refTtlMs',
  'maxIdleVersions',
  'maxIdleVersionBytes',
  'nativeTableBytes',
] as const;
