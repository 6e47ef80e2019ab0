/**
 * Composition root: repositories (resolver over stores), the DuckDB engine, the attached-version
 * cache and the wire server, wired together from one validated configuration.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { AttachedVersions, type Attached } from './cache/attached-versions.js';
import { SqlError, SQLSTATE } from './errors.js';
import { attachCatalog, openCatalog } from './lake/index.js';
import { openRepository, type Repository, type SignaturePolicy } from './resolver/repository.js';
import { createEngine, restrictFileAccess } from './sql/engine.js';
import { join } from 'node:path';
import { relationInfoStatement } from './sql/compat/index.js';
import { openStore } from './store/index.js';
import { WireServer } from './wire/server.js';
import { quoteIdent, type SessionLimits, type VersionLease, type VersionSource } from './wire/session.js';
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
  limits: SessionLimits;
  tls?: { cert: string; key: string; mode: 'required' | 'optional' };
}

interface AttachedVersion extends Attached {
  readonly versionId: string;
  readonly catalogInfoSql: string;
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
      resolvedAt: new Date(),
      release: lease.release,
    };
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
    const meta = `__fdl_meta_${++this.seq}`;
    const conn = await this.engine.connect();
    try {
      const catalog = await openCatalog(conn, version.catalogFile, meta);
      const files = await version.ensureFiles(catalog.tables.flatMap((t) => t.files));
      try {
        await attachCatalog(conn, catalog, dbName, (rel) => version.locate(rel));
      } catch (e) {
        files.release();
        await conn.run(`DETACH DATABASE IF EXISTS ${quoteIdent(meta)}`).catch(() => undefined);
        throw e;
      }
      const engine = this.engine;
      const catalogInfoSql = relationInfoStatement([
        ...catalog.tables.map((t) => ({
          schema: t.schema,
          name: t.name,
          kind: 'table' as const,
          sizeBytes: t.files.reduce((n, f) => n + (f.kind === 'data' ? f.size : 0), 0),
        })),
        ...catalog.views.map((v) => ({ schema: v.schema, name: v.name, kind: 'view' as const })),
      ]);
      return {
        dbName,
        versionId,
        catalogInfoSql,
        async dispose() {
          const c = await engine.connect();
          try {
            await c.run(`DETACH DATABASE IF EXISTS ${quoteIdent(dbName)}`);
            await c.run(`DETACH DATABASE IF EXISTS ${quoteIdent(meta)}`);
          } finally {
            c.disconnectSync();
            files.release();
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

/** `*` matches within one path component; a lone `*` matches every ref and version. */
export function refPatternMatches(pattern: string, name: string): boolean {
  if (pattern === '*' || pattern === '**') return true;
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');
  return re.test(name);
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
    const repos = new Map<string, Repository>();
    for (const r of config.repos) {
      const store = await openStore(r.location);
      const repo = await openRepository(r.name, store, {
        signatures: r.signatures,
        allowedSigners: r.allowedSigners,
        cacheDir: config.cacheDir,
        refTtlMs: config.refTtlMs,
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
    const versions = new Versions(repos, engine, config.maxIdleVersions, config.users);
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
    await this.versions.attached.clear();
    this.engine.closeSync();
  }
}
