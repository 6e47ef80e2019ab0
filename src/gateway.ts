/**
 * Composition root: repositories (resolver over stores), the DuckDB engine, the version service
 * and the wire server, wired together from one validated configuration; and what a running service
 * asks of them (reload, drain, sessions, cache figures, HEAD's description for the status page).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { openRepository, type Repository } from './resolver/repository.js';
import { VerificationLedger } from './state/verification-ledger.js';
import { connectSession, endSession, engineReadDirs } from './engine/engine.js';
import { warmSessions } from './gateway-warmup.js';
import { configureEngineCalls } from './engine/engine-calls.js';
import { baselineVariables } from './session/settings.js';
import { Engines } from './engine/engines.js';
import { ADMISSION_OFF_FOR_TESTS } from './analysis/containment.js';
import { countEngineFailure } from './engine/engine-failure.js';
import type { TempCeiling } from './engine/temp-ceiling.js';
import type { MemoryWatchdog } from './engine/memory-watchdog.js';
import { limitDataSegment, watchMemory, watchTempCeiling } from './gateway-ceilings.js';
import { describeHead } from './gateway-head.js';
import { join, resolve } from 'node:path';
import { openStore } from './store/index.js';
import { FileCache } from './cache/file-cache.js';
import { RefCache } from './cache/ref-cache.js';
import { ResultCache } from './cache/result-cache.js';
import { consistentFunctions } from './analysis/determinism.js';
import { WireServer } from './wire/server.js';
import type { ConnectionInfo } from './wire/connection.js';
import type { VersionSource } from './versions/lease.js';
import { SqlError, SQLSTATE } from './errors.js';
import type { ServerRoot } from './engine/duckdb-errors.js';
import { Grants } from './versions/grants.js';
import { Versions } from './versions/versions.js';
import { folderWatchLog } from './versions/folder-watch.js';
import type { Logger } from 'pino';
import { parseScramVerifier } from './wire/auth.js';
import { logDegradedTo } from './degraded.js';
import {
  RESTART_ONLY,
  type CacheReport,
  type GatewayConfig,
  type GatewayObserver,
  type HeadDescription,
  type RepoConfig,
  type UserConfig,
} from './gateway-config.js';

// The configuration's types live in gateway-config.ts; re-exported for the service and the CLI.
export type { CacheReport, GatewayConfig, GatewayObserver, HeadDescription, RepoConfig, UserConfig };

export class Gateway {
  /** Bumped by every applied reload: sessions re-authorize at their next transaction. */
  private generation = 0;

  private constructor(
    readonly address: { host: string; port: number },
    private readonly server: WireServer,
    private readonly versions: Versions,
    private config: GatewayConfig,
    /** The user table grants read from; replaced in place on reload. */
    private readonly users: Record<string, UserConfig>,
    readonly repos: Map<string, Repository>,
    private readonly shared: Shared,
    private readonly engines: Engines,
  ) {}

  static async start(config: GatewayConfig, log: Logger, observer: GatewayObserver = {}): Promise<Gateway> {
    logDegradedTo((fields, message) => log.warn({ event: 'degraded', ...fields }, message));
    configureEngineCalls({
      perUser: config.maxEngineCallsPerUser,
      stuckGraceMs: config.stuckCallGraceMs,
      report: (e) =>
        log.error(
          { event: 'engine_call_stuck', user: e.user, running_ms: e.runningMs, stuck: e.stuck },
          'a DuckDB call runs on after its statement was stopped: the process is wedged (/readyz 503) until it returns; drain and restart it',
        ),
      workReport: (e) =>
        log.error(
          { event: 'version_open_stuck', running_ms: e.runningMs, stuck: e.stuck },
          "a version's open has not returned (a file of the store does not answer): the process is wedged (/readyz 503) until it does; drain and restart it",
        ),
      fifoReport: (paths) =>
        log.error(
          { event: 'fifo_open_released', paths },
          "DuckDB's open of a named pipe where a repository file should be was released: the store was tampered with",
        ),
    });
    folderWatchLog.unwatched = (folder, code) =>
      log.warn(
        { event: 'folder_unwatched', folder, code },
        'a data folder cannot be watched: runs compare its ctime instead, and a publish into it during a run ends that run XX001',
      );
    folderWatchLog.swapped = (folders) =>
      log.warn(
        { event: 'integrity', folders },
        'a name on the way to a data file was renamed or replaced while a statement read it: the statement ended XX001',
      );
    if (ADMISSION_OFF_FOR_TESTS) {
      // Only the engine's line stands then: never in a served gateway by accident.
      if (process.env.FDL_TEST_ADMISSION_I_AM_A_TEST !== 'yes')
        throw new Error('FDL_TEST_ADMISSION=off is for the test suite only');
      log.warn({ event: 'admission-off' }, 'admission is OFF (test switch): only the engine line contains statements');
    }
    await mkdir(config.cacheDir, { recursive: true });
    const stateDir = config.stateDir ?? `${config.cacheDir}.state`;
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    // One file cache and one ref cache for all repositories: one byte budget, one set of counters.
    const fileCache = await FileCache.open(join(config.cacheDir, 'files'), {
      maxBytes: config.cacheMaxBytes,
      downloadConcurrency: config.downloadConcurrency,
    });
    const verification = await VerificationLedger.open(join(stateDir, 'verified.json'));
    fileCache.onMismatch = (name, detail) => {
      verification.countMismatch();
      log.warn(
        { event: 'integrity', cached: name, detail },
        `cached file ${name} differs from its content address; deleted, fetched again`,
      );
    };
    const refCache = new RefCache({ ttlMs: config.refTtlMs });
    const shared: Shared = {
      fileCache,
      refCache,
      verification,
      stateDir,
      log,
      results: null as unknown as ResultCache,
      tempCeiling: null,
      memoryWatchdog: null,
    };
    const repos = new Map<string, Repository>();
    for (const r of config.repos) repos.set(r.name, await openRepo(r, config, shared));
    const tempDirectory = join(config.cacheDir, 'duckdb-tmp');
    // What a process that died left there (spilled blocks) would count against the temp ceiling:
    // a cache directory is one gateway's, so nothing in it is another's.
    await rm(tempDirectory, { recursive: true, force: true });
    if (config.memoryLimit) limitDataSegment(config.memoryLimit, log);
    // One sealed DuckDB instance per repository: another repository's files are out of its reach.
    const engines = new Engines(
      {
        memoryLimit: config.memoryLimit,
        threads: config.threads,
        tempRoot: tempDirectory,
        maxTempDirectorySize: config.maxTempDirectorySize,
        repositories: repos.size,
        emulationDir: join(config.cacheDir, 'pg-catalog'),
      },
      (name) => {
        const repo = repos.get(name);
        if (!repo) return null;
        return engineReadDirs(
          repo.store.localPath
            ? { local: { root: repo.store.location, dataDir: repo.dataDir } }
            : { cacheArea: fileCache.areaDir(repo.store) },
        );
      },
    );
    // Built now, so a repository whose engine cannot start fails the start, not its first session.
    for (const name of repos.keys()) await engines.for(name);
    // An entry of at most 1 MiB: a session records at most that much of a result it may cache.
    const results = (shared.results = new ResultCache({
      maxBytes: config.resultCacheBytes,
      maxEntryBytes: 1024 * 1024,
    }));
    // Grants read this table; a reload replaces its contents in place.
    const users: Record<string, UserConfig> = { ...config.users };
    const versions = new Versions(
      repos,
      (repo) => engines.both(repo),
      { versions: config.maxIdleVersions, bytes: config.maxIdleVersionBytes },
      new Grants(users, () => (gateway?.config ?? config).auth !== 'trust'),
      { files: fileCache, refs: refCache, results, verification },
      config.refTtlMs,
      config.nativeTableBytes,
    );
    const probe = await (await engines.for([...repos.keys()][0] ?? '')).connect();
    const consistent = await consistentFunctions(probe).finally(() => probe.disconnectSync());
    const connectDuckDB = (repo: string) =>
      engines.connect(repo, (instance) => connectSession(instance, baselineVariables(config.limits)));
    // What the first client would wait for (its session connection, admission's sets) is ready before it comes.
    await warmSessions(repos.keys(), { connect: connectDuckDB, end: endSession });
    const tls = config.tls
      ? {
          context: createSecureContext({ cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }),
          required: config.tls.mode === 'required',
        }
      : null;
    let gateway: Gateway | null = null;
    const server = new WireServer(
      {
        host: config.host,
        port: config.port,
        maxConnections: config.maxConnections,
        maxConnectionsPerUser: perUserLimit(config),
        heldOff: config.heldOff,
        maxAuthenticating: config.maxAuthenticating,
        maxAuthenticatingPerAddress: config.maxAuthenticatingPerAddress,
        maxPendingMessageBytes: config.maxPendingMessageBytes,
        proxyProtocol: config.proxyProtocol,
      },
      {
        versions: observedVersions(versions, () => gateway?.generation ?? 0, observer),
        connectDuckDB,
        engineFailed: (repo, conn) => {
          const broken = engines.retire(repo, conn);
          if (!broken) return;
          void versions.retireEngine(repo, broken.id);
          countEngineFailure();
          log.error(
            { event: 'engine_failed', repo },
            'DuckDB invalidated the engine of this repository after an internal error; its sessions end, new ones get a new engine',
          );
        },
        maxMessageBytes: config.maxMessageBytes,
        limits: config.limits,
        results: results.enabled ? { cache: results, consistentFunctions: consistent } : null,
        tls,
        startupTimeoutMs: config.startupTimeoutMs,
        sessionOpenTimeoutMs: config.sessionOpenTimeoutMs,
        authFor: authFor(config, users),
        defaultRepository: () => (repos.size === 1 ? [...repos.keys()][0]! : null),
        serverRoots: () => serverRoots(repos, [config.cacheDir, stateDir]),
        log,
        observeStatement: observer.statement,
        observeStartup: observer.startup,
      },
      observer,
    );
    if (config.maxTempDirectorySize) {
      shared.tempCeiling = watchTempCeiling(config.maxTempDirectorySize, tempDirectory, server, log);
    }
    if (config.memoryLimit) {
      shared.memoryWatchdog = watchMemory(config.memoryLimit, server, log, observer.memoryStopped);
    }
    const address = await server.listen();
    gateway = new Gateway(address, server, versions, config, users, repos, shared, engines);
    return gateway;
  }

  /**
   * Apply a re-read configuration without dropping sessions: users, grants, authentication,
   * limits, the connection ceiling and the set of repositories. New repositories are opened
   * first; if one cannot be, nothing changes and the error says why. Returns the settings that
   * only a restart changes (kept at their old values).
   */
  async reload(next: GatewayConfig): Promise<{ ignored: string[]; added: string[]; removed: string[] }> {
    const old = this.config;
    const ignored = RESTART_ONLY.filter((k) => JSON.stringify(old[k]) !== JSON.stringify(next[k]));
    const same = (a: RepoConfig, b: RepoConfig | undefined) =>
      !!b &&
      a.location === b.location &&
      a.signatures === b.signatures &&
      a.allowedSigners === b.allowedSigners &&
      a.dataHashes === b.dataHashes;
    const before = new Map(old.repos.map((r) => [r.name, r]));
    const opened = new Map<string, Repository>();
    for (const r of next.repos) {
      if (same(r, before.get(r.name)) && this.repos.has(r.name)) continue;
      // A changed location needs an engine sealed to it: only a new name gets one (engines.ts).
      if (this.repos.has(r.name) && before.get(r.name)?.location !== r.location) {
        throw new Error(
          `repository ${r.name}: a new location for a served repository needs a restart (its DuckDB instance is sealed to the old one)`,
        );
      }
      opened.set(r.name, await openRepo(r, this.config, this.shared));
    }
    const wanted = new Set(next.repos.map((r) => r.name));
    const removed = [...this.repos.keys()].filter((n) => !wanted.has(n));
    for (const n of removed) this.repos.delete(n);
    for (const [n, repo] of opened) this.repos.set(n, repo);
    const listed = new Set(Object.keys(this.users));
    for (const k of Object.keys(this.users)) delete this.users[k];
    Object.assign(this.users, next.users);
    const kept = { ...next };
    for (const k of RESTART_ONLY) (kept as Record<string, unknown>)[k] = old[k];
    this.config = kept;
    configureEngineCalls({ perUser: next.maxEngineCallsPerUser, stuckGraceMs: next.stuckCallGraceMs });
    this.server.reconfigure({
      limits: next.limits,
      authFor: authFor(kept, this.users),
      maxConnections: next.maxConnections,
      maxConnectionsPerUser: perUserLimit(next),
    });
    this.generation++;
    // A user taken out of the table has no grants any more: their sessions end now (28000) rather
    // than read on with whatever "no entry" would mean. Under password authentication every
    // unlisted user goes (none could log in now).
    const gone = (user: string) => !Object.hasOwn(this.users, user) && (listed.has(user) || kept.auth !== 'trust');
    this.server.endSessions(
      gone,
      (user) =>
        new SqlError(
          SQLSTATE.invalidAuthorization,
          `terminating connection: user "${user}" is no longer in the gateway's configuration`,
        ),
    );
    return { ignored: [...ignored], added: [...opened.keys()], removed };
  }

  /**
   * What HEAD of a repository holds, for the status page: dataset.json's title, description and
   * licence, and every table and view with its columns and descriptions.
   */
  describeHead(repoName: string): Promise<HeadDescription> {
    return describeHead(this.versions, this.engines, repoName);
  }

  /** Sessions open now (status page). */
  sessions(): ConnectionInfo[] {
    return this.server.sessions();
  }

  caches(): CacheReport {
    const f = this.shared.fileCache.stats();
    const r = this.shared.results;
    return {
      files: {
        entries: f.entries,
        bytes: f.bytes,
        maxBytes: f.maxBytes,
        downloadedBytes: f.downloadedBytes,
        hits: f.hits,
        misses: f.misses,
      },
      results: { entries: r.size, bytes: r.bytes, hits: r.hits, misses: r.misses, enabled: r.enabled },
      versions: { attached: this.versions.attached.size },
      verification: (({ entries, hashedBytes, mismatches }) => ({ entries, hashedBytes, mismatches }))(
        this.shared.verification.stats(),
      ),
    };
  }

  /**
   * Graceful stop: refuse new connections, let running statements finish (cancelled after
   * `timeoutMs`), end idle sessions with 57P01, then detach every version. Nothing here blocks
   * the main thread: the DuckDB instance is left to the process exit (closing it synchronously
   * while a connection is still being released on DuckDB's threads can wait for ever). Resolves
   * false when DuckDB still runs a statement it cannot interrupt after every session has ended
   * (server.ts): versions are then left attached, and the process must end without waiting for it.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    const released = await this.server.drain(timeoutMs);
    this.shared.tempCeiling?.stop();
    this.shared.memoryWatchdog?.stop();
    if (released) await this.versions.close();
    await this.shared.verification.flush();
    return released;
  }

  /** Immediate stop (tests and embedders): close every session now, then detach versions. */
  async close(): Promise<void> {
    await this.server.close();
    this.shared.tempCeiling?.stop();
    this.shared.memoryWatchdog?.stop();
    await this.versions.close();
    await this.shared.verification.flush();
  }
}

function openRepo(r: RepoConfig, config: GatewayConfig, shared: Shared): Promise<Repository> {
  return openStore(r.location, { s3: config.s3 }).then((store) =>
    openRepository(r.name, store, {
      signatures: r.signatures,
      allowedSigners: r.allowedSigners,
      cacheDir: config.cacheDir,
      stateDir: shared.stateDir,
      refTtlMs: config.refTtlMs,
      dataHashes: r.dataHashes,
      verification: shared.verification,
      onIntegrityFailure: (f) =>
        shared.log.warn({ event: 'integrity', repository: f.repository, version: f.version, file: f.file }, f.message),
      fileCache: shared.fileCache,
      refCache: shared.refCache,
    }),
  );
}

/** What every repository of the gateway shares, and what a reload needs to open more. */
interface Shared {
  fileCache: FileCache;
  refCache: RefCache;
  verification: VerificationLedger;
  stateDir: string;
  log: Logger;
  results: ResultCache;
  tempCeiling: TempCeiling | null;
  memoryWatchdog: MemoryWatchdog | null;
}

function authFor(config: GatewayConfig, users: Record<string, UserConfig>) {
  // Unknown names are challenged at the cost configured users have (the most common one).
  const counts = new Map<number, number>();
  for (const u of Object.values(users)) {
    const v = u.password ? parseScramVerifier(u.password) : null;
    if (v) counts.set(v.iterations, (counts.get(v.iterations) ?? 0) + 1);
  }
  const decoyIterations = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 4096;
  return (user: string) => ({
    method: config.auth,
    stored: Object.hasOwn(users, user) ? users[user]!.password : undefined,
    decoyIterations,
  });
}

/**
 * Sessions one user may hold. Under password authentication half the slots by default: one leaked
 * password or runaway pool leaves the rest to others. Under trust any name logs in, so a limit by
 * name would only hold back honest clients: none unless configured.
 */
function perUserLimit(config: GatewayConfig): number {
  return (
    config.maxConnectionsPerUser ??
    (config.auth === 'trust' ? config.maxConnections : Math.max(1, Math.ceil(config.maxConnections / 2)))
  );
}

/** The version source sessions see: counts refusals by kind and carries the reload generation. */
function observedVersions(versions: Versions, generation: () => number, observer: GatewayObserver): VersionSource {
  return {
    async acquire(repo, ref, user) {
      try {
        const authorizedIn = generation();
        return { ...(await versions.acquire(repo, ref, user)), authorizedIn };
      } catch (e) {
        if (e instanceof SqlError) observer.versionFailure?.(e.sqlstate);
        throw e;
      }
    },
    freshVersion: (repo, ref) => versions.freshVersion(repo, ref),
    isMoving: (lease) => versions.isMoving(lease),
    repositories: (user) => versions.repositories(user),
    databases: (user) => versions.databases(user),
    systemTable: (view, ctx) => versions.systemTable(view, ctx),
    generation,
  };
}

/**
 * The folders of the server error texts must not name: each local repository's root (paths below
 * it become relative to it), the cache directory (with the file cache and DuckDB's temp directory
 * inside) and the state directory, as configured and as resolved.
 */
function serverRoots(repos: ReadonlyMap<string, Repository>, dirs: readonly string[]): ServerRoot[] {
  const out: ServerRoot[] = [];
  for (const r of repos.values()) if (r.store.localPath) out.push({ path: r.store.location, as: '' });
  for (const d of dirs) {
    for (const p of new Set([resolve(d), realOr(d)])) out.push({ path: p, as: '<server>' });
  }
  return out;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
