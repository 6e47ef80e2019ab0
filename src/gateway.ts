/**
 * Composition root: repositories (resolver over stores), the DuckDB engine, the attached-version
 * cache and the wire server, wired together from one validated configuration.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { AttachedVersions, type Attached } from './cache/attached-versions.js';
import { SqlError, SQLSTATE } from './errors.js';
import { attachCatalog, materializeTable, openCatalog, type LakeCatalog, type LakeTable } from './lake/index.js';
import { openRepository, type Repository, type SignaturePolicy, type VersionInfo } from './resolver/repository.js';
import { createEngine, restrictFileAccess } from './sql/engine.js';
import { join } from 'node:path';
import { relationInfoStatement } from './sql/compat/index.js';
import { openStore } from './store/index.js';
import { FileCache } from './cache/file-cache.js';
import { RefCache } from './cache/ref-cache.js';
import { ResultCache } from './cache/result-cache.js';
import { consistentFunctions } from './sql/determinism.js';
import { WireServer, type ServerObserver } from './wire/server.js';
import type { ConnectionInfo } from './wire/connection.js';
import type { SystemTable, SystemViewName } from './sql/system-views.js';
import { META_PREFIX, quoteIdent, type SessionLimits, type VersionLease, type VersionSource } from './wire/session.js';
import type { Logger } from 'pino';
import type { AuthMethod } from './wire/auth.js';

export interface RepoConfig {
  name: string;
  location: string;
  signatures?: SignaturePolicy;
  allowedSigners?: string;
}

export interface UserConfig {
  password?: string;
  /** Repository → ref patterns the user may read (`tags/*`, `heads/main`, `requests/*`, `versions/*`, `*`). Absent: everything. */
  grants?: Record<string, string[]>;
}

export interface GatewayConfig {
  repos: RepoConfig[];
  auth: AuthMethod;
  users: Record<string, UserConfig>;
  host: string;
  port: number;
  cacheDir: string;
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
  /** Memory for results of repeatable queries (0 = off). */
  resultCacheBytes: number;
  s3: { endpoint?: string; region?: string; forcePathStyle?: boolean };
  limits: SessionLimits;
  tls?: { cert: string; key: string; mode: 'required' | 'optional' };
  /** Expect a PROXY protocol header (HAProxy send-proxy-v2) on every connection. */
  proxyProtocol?: boolean;
}

interface AttachedVersion extends Attached {
  readonly versionId: string;
  /** Make the named tables readable (remote repositories download a table's files on first use). */
  ensureTables(tables: { schema: string; name: string }[]): Promise<void>;
  hasPendingTables(): boolean;
  /** Whether the version has this table (names lower-cased). */
  hasTable(schema: string, table: string): boolean;
  /** Whether the version defines a macro of this name (lower-cased). */
  definesFunction(name: string): boolean;
  readonly catalogInfoSql: string;
  readonly dataset: unknown;
}

/** Versions for sessions: resolve the ref, attach the version once, lease it. */
class Versions implements VersionSource {
  private seq = 0;
  readonly attached: AttachedVersions<AttachedVersion>;

  constructor(
    private readonly repos: Map<string, Repository>,
    private readonly engine: DuckDBInstance,
    maxIdle: number,
    private readonly users: Record<string, UserConfig>,
    private readonly caches: { files: FileCache; refs: RefCache; results: ResultCache },
  ) {
    this.attached = new AttachedVersions(maxIdle);
  }

  repositories(): string[] {
    return [...this.repos.keys()];
  }

  isMoving(lease: VersionLease): boolean {
    return lease.kind === 'branch' || lease.kind === 'head' || lease.kind === 'request';
  }

  async acquire(repoName: string, ref: string, user: string): Promise<VersionLease> {
    const repo = this.repos.get(repoName);
    if (!repo) throw new SqlError(SQLSTATE.invalidCatalogName, `database "${repoName}" does not exist`);
    const res = await repo.resolve(ref);
    this.authorize(user, repoName, res.ref ?? `versions/${res.versionId}`);
    const key = `${repoName}@${res.versionId}`;
    const lease = await this.attached.acquire(key, () => this.attach(repo, res.versionId, key));
    return {
      repo: repoName,
      requested: ref,
      ref: res.ref,
      kind: ref === '' ? 'head' : res.kind,
      versionId: res.versionId,
      dbName: lease.value.dbName,
      catalogInfoSql: lease.value.catalogInfoSql,
      ensureTables: (tables) => lease.value.ensureTables(tables),
      hasPendingTables: () => lease.value.hasPendingTables(),
      hasTable: (schema, table) => lease.value.hasTable(schema, table),
      definesFunction: (name) => lease.value.definesFunction(name),
      resolvedAt: new Date(),
      release: lease.release,
    };
  }

  async systemTable(view: Exclude<SystemViewName, 'session'>, ctx: { repo: string; user: string; versionId: string }): Promise<SystemTable> {
    const repo = this.repos.get(ctx.repo)!;
    switch (view) {
      case 'refs': {
        const rows: SystemTable['rows'][number][] = [];
        for (const r of await repo.listRefs()) {
          if (!this.allowed(ctx.user, ctx.repo, r.name)) continue;
          const info = await repo.describeVersion(r.versionId).catch(() => null);
          rows.push([r.name.replace(/^refs\//, ''), r.kind, r.versionId, info?.version.created ?? null, info?.signature.status ?? null]);
        }
        return { columns: [['name', 'VARCHAR'], ['kind', 'VARCHAR'], ['version', 'VARCHAR'], ['created', 'TIMESTAMPTZ'], ['signature', 'VARCHAR']], rows };
      }
      case 'versions': {
        // History along first parents, as `git log --first-parent` shows it.
        const rows: SystemTable['rows'][number][] = [];
        let id: string | undefined = ctx.versionId;
        const seen = new Set<string>();
        while (id && !seen.has(id) && rows.length < 1000) {
          seen.add(id);
          const info: VersionInfo | null = await repo.describeVersion(id).catch(() => null);
          if (!info) break;
          const v = info.version as { created?: string; author?: string; message?: string };
          rows.push([id, v.created ?? null, v.author ?? null, v.message ?? null, info.signature.signer ?? null, info.signature.status, info.expired !== null]);
          id = info.version.parents[0];
        }
        return {
          columns: [['id', 'VARCHAR'], ['created', 'TIMESTAMPTZ'], ['author', 'VARCHAR'], ['message', 'VARCHAR'], ['signer', 'VARCHAR'], ['signature', 'VARCHAR'], ['expired', 'BOOLEAN']],
          rows,
        };
      }
      case 'dataset': {
        const lease = await this.acquireById(ctx.repo, ctx.versionId);
        const d = (lease?.value.dataset ?? {}) as Record<string, unknown>;
        lease?.release();
        const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
        return {
          columns: [['title', 'VARCHAR'], ['description', 'VARCHAR'], ['license', 'VARCHAR'], ['homepage', 'VARCHAR'], ['dataset', 'JSON']],
          rows: [[str('title'), str('description'), str('license'), str('homepage'), JSON.stringify(d)]],
        };
      }
      case 'cache': {
        const f = this.caches.files.stats();
        const r = this.caches.refs.stats();
        const a = this.attached;
        return {
          columns: [['cache', 'VARCHAR'], ['entries', 'BIGINT'], ['bytes', 'BIGINT'], ['hits', 'BIGINT'], ['misses', 'BIGINT'], ['downloads', 'BIGINT'], ['evictions', 'BIGINT']],
          rows: [
            ['files', f.entries, f.bytes, f.hits, f.misses, f.downloads, f.evictions],
            ['refs', r.entries, null, r.hits, r.misses, r.revalidations, null],
            ['versions', a.size, null, a.hits, a.misses, a.misses, a.evictions],
            ['results', this.caches.results.size, this.caches.results.bytes, this.caches.results.hits, this.caches.results.misses, null, null],
          ],
        };
      }
    }
  }

  /** The attached version of a session (already leased by it), for its dataset. */
  private async acquireById(repoName: string, versionId: string) {
    const repo = this.repos.get(repoName);
    if (!repo || !versionId) return null;
    const key = `${repoName}@${versionId}`;
    return this.attached.acquire(key, () => this.attach(repo, versionId, key));
  }

  private allowed(user: string, repoName: string, fullRef: string): boolean {
    try {
      this.authorize(user, repoName, fullRef);
      return true;
    } catch {
      return false;
    }
  }

  /** Refuse (42501) a ref the user's grants do not cover; users without grants read everything. */
  authorize(user: string, repoName: string, fullRef: string): void {
    const grants = Object.hasOwn(this.users, user) ? this.users[user]!.grants : undefined;
    if (!grants) return;
    const patterns = grants[repoName] ?? grants['*'];
    const name = fullRef.replace(/^refs\//, '');
    if (patterns && patterns.some((p) => refPatternMatches(p, name))) return;
    throw new SqlError(SQLSTATE.insufficientPrivilege, `permission denied: user "${user}" may not read ${repoName}@${name}`);
  }

  private async attach(repo: Repository, versionId: string, dbName: string): Promise<AttachedVersion> {
    const version = await repo.openVersion(versionId);
    const meta = `${META_PREFIX}${++this.seq}`;
    const conn = await this.engine.connect();
    try {
      const catalog = await openCatalog(conn, version.catalogFile, meta);
      // Local repositories are read in place; remote ones fetch a table's files when a query first
      // touches the table (its view is a placeholder until then).
      const remote = !repo.store.localPath;
      const pins: { release(): void }[] = [];
      const locate = (rel: string) => version.locate(rel);
      try {
        await attachCatalog(conn, catalog, dbName, locate, { deferTables: remote });
        await applyDatasetComments(conn, dbName, catalog, version.dataset);
      } catch (e) {
        await conn.run(`DETACH DATABASE IF EXISTS ${quoteIdent(meta)}`).catch(() => undefined);
        throw e;
      }
      const engine = this.engine;
      const ready = new Map<LakeTable, Promise<void>>();
      const ensureTables = async (wanted: { schema: string; name: string }[]) => {
        if (!remote) return;
        // A DuckLake view may read any table: fetch them all when one is named.
        const viaView = wanted.some((w) => catalog.views.some((v) => v.schema === w.schema && v.name === w.name));
        const tables = viaView ? catalog.tables : catalog.tables.filter((t) => wanted.some((w) => w.schema === t.schema && w.name === t.name));
        await Promise.all(
          tables.map((t) => {
            let p = ready.get(t);
            if (!p) {
              p = (async () => {
                pins.push(await version.ensureFiles(t.files));
                const c = await engine.connect();
                try {
                  await materializeTable(c, catalog, t, dbName, locate);
                } finally {
                  c.disconnectSync();
                }
              })();
              // A failed download may be retried by the next query.
              p.catch(() => ready.delete(t));
              ready.set(t, p);
            }
            return p;
          }),
        );
      };
      const catalogInfoSql = relationInfoStatement([
        ...catalog.tables.map((t) => ({
          schema: t.schema,
          name: t.name,
          kind: 'table' as const,
          sizeBytes: t.files.reduce((n, f) => n + (f.kind === 'data' ? f.size : 0), 0),
        })),
        ...catalog.views.map((v) => ({ schema: v.schema, name: v.name, kind: 'view' as const })),
      ]);
      const tableNames = new Set(catalog.tables.map((t) => `${t.schema.toLowerCase()}.${t.name.toLowerCase()}`));
      const macroNames = new Set(catalog.macros.map((m) => m.name.toLowerCase()));
      return {
        dbName,
        versionId,
        catalogInfoSql,
        hasTable: (schema, table) => tableNames.has(`${schema}.${table}`),
        definesFunction: (name) => macroNames.has(name),
        dataset: version.dataset,
        ensureTables,
        hasPendingTables: () => remote && ready.size < catalog.tables.length,
        async dispose() {
          const c = await engine.connect();
          try {
            await c.run(`DETACH DATABASE IF EXISTS ${quoteIdent(dbName)}`);
            await c.run(`DETACH DATABASE IF EXISTS ${quoteIdent(meta)}`);
          } finally {
            c.disconnectSync();
            for (const p of pins) p.release();
            version.close();
          }
        },
      };
    } catch (e) {
      version.close();
      throw e;
    } finally {
      conn.disconnectSync();
    }
  }
}

/**
 * dataset.json descriptions become table and column comments (what BI tools display) where the
 * DuckLake catalog has none of its own.
 */
async function applyDatasetComments(conn: DuckDBConnection, dbName: string, catalog: LakeCatalog, dataset: unknown): Promise<void> {
  const schemas = (dataset as { schemas?: Record<string, { tables?: Record<string, { description?: unknown; columns?: Record<string, unknown> }> }> } | null)?.schemas;
  if (!schemas || typeof schemas !== 'object') return;
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  for (const t of catalog.tables) {
    const d = schemas[t.schema]?.tables?.[t.name];
    if (!d) continue;
    const target = `${quoteIdent(dbName)}.${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;
    if (!t.comment && typeof d.description === 'string') await conn.run(`COMMENT ON VIEW ${target} IS ${lit(d.description)}`);
    for (const c of t.columns) {
      const text = d.columns?.[c.name];
      if (!c.comment && typeof text === 'string') await conn.run(`COMMENT ON COLUMN ${target}.${quoteIdent(c.name)} IS ${lit(text)}`);
    }
  }
}

/** `*` matches within one path component; a lone `*` matches every ref and version. */
export function refPatternMatches(pattern: string, name: string): boolean {
  if (pattern === '*' || pattern === '**') return true;
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');
  return re.test(name);
}

/** What the service layer watches (metrics); every hook is optional. */
export interface GatewayObserver extends ServerObserver {
  statement?(entry: Record<string, unknown>): void;
  startup?(sqlstate: string): void;
  versionFailure?(sqlstate: string): void;
}

/** Cache figures for metrics and the status page. */
export interface CacheReport {
  files: { entries: number; bytes: number; maxBytes: number; downloadedBytes: number; hits: number; misses: number };
  results: { entries: number; bytes: number; hits: number; misses: number; enabled: boolean };
  versions: { attached: number };
}

/** The status page reads as no configured user can be named (NUL never survives a startup packet). */
const STATUS_USER = '\u0000status';

export interface HeadDescription {
  versionId: string;
  title: string | null;
  description: string | null;
  license: string | null;
  homepage: string | null;
  tables: { schema: string; name: string; description: string | null; columns: { name: string; type: string; description: string | null }[] }[];
}

/** Settings read once at start; a reload that changes them is logged and they keep their old value. */
const RESTART_ONLY = ['host', 'port', 'cacheDir', 'tls', 's3', 'memoryLimit', 'threads', 'maxTempDirectorySize', 'cacheMaxBytes', 'resultCacheBytes', 'maxMessageBytes', 'refTtlMs', 'maxIdleVersions'] as const;

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
    private readonly shared: { fileCache: FileCache; refCache: RefCache; results: ResultCache; allowedDirs: string[] },
    private readonly engine: DuckDBInstance,
  ) {}

  static async start(config: GatewayConfig, log: Logger, observer: GatewayObserver = {}): Promise<Gateway> {
    await mkdir(config.cacheDir, { recursive: true });
    // One file cache and one ref cache for all repositories: one byte budget, one set of counters.
    const fileCache = await FileCache.open(join(config.cacheDir, 'files'), { maxBytes: config.cacheMaxBytes });
    const refCache = new RefCache({ ttlMs: config.refTtlMs });
    const repos = new Map<string, Repository>();
    for (const r of config.repos) repos.set(r.name, await openRepo(r, config, fileCache, refCache));
    const engine = await createEngine({
      memoryLimit: config.memoryLimit,
      threads: config.threads,
      tempDirectory: join(config.cacheDir, 'duckdb-tmp'),
      maxTempDirectorySize: config.maxTempDirectorySize,
    });
    // Clients can reach no file but the served repositories and the cache.
    const allowedDirs = [...[...repos.values()].flatMap((r) => (r.store.localPath ? [r.store.location] : [])), config.cacheDir];
    await restrictFileAccess(engine, allowedDirs);
    // An entry of at most 1 MiB: a session records at most that much of a result it may cache.
    const results = new ResultCache({ maxBytes: config.resultCacheBytes, maxEntryBytes: 1024 * 1024 });
    const users: Record<string, UserConfig> = { ...config.users };
    const versions = new Versions(repos, engine, config.maxIdleVersions, users, { files: fileCache, refs: refCache, results });
    const probe = await engine.connect();
    const consistent = await consistentFunctions(probe).finally(() => probe.disconnectSync());
    const tls = config.tls
      ? { context: createSecureContext({ cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }), required: config.tls.mode === 'required' }
      : null;
    let gateway: Gateway | null = null;
    const server = new WireServer(
      { host: config.host, port: config.port, maxConnections: config.maxConnections, proxyProtocol: config.proxyProtocol },
      {
        versions: observedVersions(versions, () => gateway?.generation ?? 0, observer),
        connectDuckDB: () => engine.connect(),
        maxMessageBytes: config.maxMessageBytes,
        limits: config.limits,
        results: results.enabled ? { cache: results, consistentFunctions: consistent } : null,
        tls,
        startupTimeoutMs: config.startupTimeoutMs,
        authFor: authFor(config, users),
        defaultRepository: () => (repos.size === 1 ? [...repos.keys()][0]! : null),
        log,
        observeStatement: observer.statement,
        observeStartup: observer.startup,
      },
      observer,
    );
    const address = await server.listen();
    gateway = new Gateway(address, server, versions, config, users, repos, { fileCache, refCache, results, allowedDirs }, engine);
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
    const same = (a: RepoConfig, b: RepoConfig | undefined) => !!b && a.location === b.location && a.signatures === b.signatures && a.allowedSigners === b.allowedSigners;
    const before = new Map(old.repos.map((r) => [r.name, r]));
    const opened = new Map<string, Repository>();
    for (const r of next.repos) {
      if (same(r, before.get(r.name)) && this.repos.has(r.name)) continue;
      const repo = await openRepo(r, this.config, this.shared.fileCache, this.shared.refCache);
      // DuckDB's file allowlist is fixed once external access is off: a new local folder must lie
      // inside one allowed at start.
      const local = repo.store.localPath ? repo.store.location : null;
      if (local && !this.shared.allowedDirs.some((d) => isInside(local, d))) {
        throw new Error(`repository ${r.name}: a local folder not served at start needs a restart (DuckDB's file allowlist is fixed)`);
      }
      opened.set(r.name, repo);
    }
    const wanted = new Set(next.repos.map((r) => r.name));
    const removed = [...this.repos.keys()].filter((n) => !wanted.has(n));
    for (const n of removed) this.repos.delete(n);
    for (const [n, repo] of opened) this.repos.set(n, repo);
    for (const k of Object.keys(this.users)) delete this.users[k];
    Object.assign(this.users, next.users);
    const kept = { ...next };
    for (const k of RESTART_ONLY) (kept as Record<string, unknown>)[k] = old[k];
    this.config = kept;
    this.server.reconfigure({ limits: next.limits, authFor: authFor(kept, this.users), maxConnections: next.maxConnections });
    this.generation++;
    return { ignored: [...ignored], added: [...opened.keys()], removed };
  }

  /**
   * What HEAD of a repository holds, for the status page: dataset.json's title, description and
   * licence, and every table and view with its columns and descriptions.
   */
  async describeHead(repoName: string): Promise<HeadDescription> {
    const lease = await this.versions.acquire(repoName, '', STATUS_USER);
    try {
      const d = await this.versions.systemTable('dataset', { repo: repoName, user: STATUS_USER, versionId: lease.versionId });
      const [title, description, license, homepage] = (d.rows[0] ?? []) as (string | null)[];
      const conn = await this.engine.connect();
      try {
        const db = lease.dbName.replace(/'/g, "''");
        const rels = (await conn.runAndReadAll(`SELECT schema_name, view_name, comment FROM duckdb_views() WHERE database_name = '${db}' AND NOT internal ORDER BY 1, 2`)).getRows();
        const cols = (await conn.runAndReadAll(`SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns() WHERE database_name = '${db}' ORDER BY schema_name, table_name, column_index`)).getRows();
        const tables = rels.map(([schema, name, comment]) => ({
          schema: String(schema),
          name: String(name),
          description: comment === null ? null : String(comment),
          columns: cols
            .filter((c) => c[0] === schema && c[1] === name)
            .map(([, , column, type, comment]) => ({ name: String(column), type: String(type), description: comment === null ? null : String(comment) })),
        }));
        return { versionId: lease.versionId, title: title ?? null, description: description ?? null, license: license ?? null, homepage: homepage ?? null, tables };
      } finally {
        conn.disconnectSync();
      }
    } finally {
      lease.release();
    }
  }

  /** Sessions open now (status page). */
  sessions(): ConnectionInfo[] {
    return this.server.sessions();
  }

  caches(): CacheReport {
    const f = this.shared.fileCache.stats();
    const r = this.shared.results;
    return {
      files: { entries: f.entries, bytes: f.bytes, maxBytes: f.maxBytes, downloadedBytes: f.downloadedBytes, hits: f.hits, misses: f.misses },
      results: { entries: r.size, bytes: r.bytes, hits: r.hits, misses: r.misses, enabled: r.enabled },
      versions: { attached: this.versions.attached.size },
    };
  }

  /**
   * Graceful stop: refuse new connections, let running statements finish (cancelled after
   * `timeoutMs`), end idle sessions with 57P01, then detach every version. Nothing here blocks
   * the main thread: the DuckDB instance is left to the process exit (closing it synchronously
   * while a connection is still being released on DuckDB's threads can wait for ever).
   */
  async drain(timeoutMs: number): Promise<void> {
    await this.server.drain(timeoutMs);
    await this.versions.attached.clear();
  }

  /** Immediate stop (tests and embedders): close every session now, then detach versions. */
  async close(): Promise<void> {
    await this.server.close();
    await this.versions.attached.clear();
  }
}

function openRepo(r: RepoConfig, config: GatewayConfig, fileCache: FileCache, refCache: RefCache): Promise<Repository> {
  return openStore(r.location, { s3: config.s3 }).then((store) =>
    openRepository(r.name, store, {
      signatures: r.signatures,
      allowedSigners: r.allowedSigners,
      cacheDir: config.cacheDir,
      refTtlMs: config.refTtlMs,
      fileCache,
      refCache,
    }),
  );
}

function authFor(config: GatewayConfig, users: Record<string, UserConfig>) {
  return (user: string) => ({ method: config.auth, stored: Object.hasOwn(users, user) ? users[user]!.password : undefined });
}

function isInside(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  const p = path.endsWith('/') ? path : `${path}/`;
  return p.startsWith(d);
}

/** The version source sessions see: counts refusals by kind and carries the reload generation. */
function observedVersions(versions: Versions, generation: () => number, observer: GatewayObserver): VersionSource {
  return {
    async acquire(repo, ref, user) {
      try {
        return await versions.acquire(repo, ref, user);
      } catch (e) {
        if (e instanceof SqlError) observer.versionFailure?.(e.sqlstate);
        throw e;
      }
    },
    isMoving: (lease) => versions.isMoving(lease),
    repositories: () => versions.repositories(),
    systemTable: (view, ctx) => versions.systemTable(view, ctx),
    generation,
  };
}
