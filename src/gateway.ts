/**
 * Composition root: repositories (resolver over stores), the DuckDB engine, the version service
 * and the wire server, wired together from one validated configuration. Wiring only.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { openRepository, type DataHashPolicy, type Repository, type SignaturePolicy } from './resolver/repository.js';
import { VerificationLedger } from './cache/verification-ledger.js';
import { createEngine, restrictFileAccess } from './sql/engine.js';
import { join } from 'node:path';
import { openStore } from './store/index.js';
import { FileCache } from './cache/file-cache.js';
import { RefCache } from './cache/ref-cache.js';
import { ResultCache } from './cache/result-cache.js';
import { consistentFunctions } from './sql/determinism.js';
import { WireServer } from './wire/server.js';
import type { SessionLimits } from './wire/session.js';
import { Grants, type GrantedUser } from './versions/grants.js';
import { Versions } from './versions/versions.js';
import type { Logger } from 'pino';
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
  maxMessageBytes: number;
  startupTimeoutMs: number;
  refTtlMs: number;
  maxIdleVersions: number;
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
}

export class Gateway {
  private constructor(
    readonly address: { host: string; port: number },
    private readonly server: WireServer,
    private readonly versions: Versions,
    private readonly engine: DuckDBInstance,
  ) {}

  static async start(config: GatewayConfig, log: Logger): Promise<Gateway> {
    await mkdir(config.cacheDir, { recursive: true });
    const stateDir = config.stateDir ?? `${config.cacheDir}.state`;
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    // One file cache and one ref cache for all repositories: one byte budget, one set of counters.
    const fileCache = await FileCache.open(join(config.cacheDir, 'files'), { maxBytes: config.cacheMaxBytes, downloadConcurrency: config.downloadConcurrency });
    const verification = await VerificationLedger.open(join(stateDir, 'verified.json'));
    fileCache.onMismatch = (name, detail) => {
      verification.countMismatch();
      log.warn({ event: 'integrity', cached: name, detail }, `cached file ${name} differs from its content address; deleted, fetched again`);
    };
    const refCache = new RefCache({ ttlMs: config.refTtlMs });
    const repos = new Map<string, Repository>();
    for (const r of config.repos) {
      const store = await openStore(r.location, { s3: config.s3 });
      const repo = await openRepository(r.name, store, {
        signatures: r.signatures,
        allowedSigners: r.allowedSigners,
        cacheDir: config.cacheDir,
        stateDir,
        refTtlMs: config.refTtlMs,
        dataHashes: r.dataHashes,
        verification,
        onIntegrityFailure: (f) => log.warn({ event: 'integrity', repository: f.repository, version: f.version, file: f.file }, f.message),
        fileCache,
        refCache,
      });
      repos.set(r.name, repo);
    }
    const engine = await createEngine({
      memoryLimit: config.memoryLimit,
      threads: config.threads,
      tempDirectory: join(config.cacheDir, 'duckdb-tmp'),
      maxTempDirectorySize: config.maxTempDirectorySize,
    });
    // Clients can reach no file but the served repositories and the cache.
    await restrictFileAccess(engine, [...[...repos.values()].flatMap((r) => (r.store.localPath ? [r.store.location] : [])), config.cacheDir]);
    // An entry of at most 1 MiB: a session records at most that much of a result it may cache.
    const results = new ResultCache({ maxBytes: config.resultCacheBytes, maxEntryBytes: 1024 * 1024 });
    const versions = new Versions(repos, engine, config.maxIdleVersions, new Grants(config.users), { files: fileCache, refs: refCache, results, verification }, config.refTtlMs);
    const probe = await engine.connect();
    const consistent = await consistentFunctions(probe).finally(() => probe.disconnectSync());
    const tls = config.tls
      ? { context: createSecureContext({ cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }), required: config.tls.mode === 'required' }
      : null;
    const server = new WireServer(
      { host: config.host, port: config.port, maxConnections: config.maxConnections },
      {
        versions,
        connectDuckDB: () => engine.connect(),
        maxMessageBytes: config.maxMessageBytes,
        limits: config.limits,
        results: results.enabled ? { cache: results, consistentFunctions: consistent } : null,
        tls,
        startupTimeoutMs: config.startupTimeoutMs,
        authFor: (user) => ({ method: config.auth, stored: Object.hasOwn(config.users, user) ? config.users[user]!.password : undefined }),
        defaultRepository: () => (repos.size === 1 ? [...repos.keys()][0]! : null),
        log,
      },
    );
    const address = await server.listen();
    return new Gateway(address, server, versions, engine);
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.versions.close();
    await this.versions.caches.verification.flush();
    this.engine.closeSync();
  }
}
