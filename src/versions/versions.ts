/**
 * The version service: for a session's `repo@ref`, resolve the ref, authorize the user, verify
 * the version (signature, expiry, catalog and data hashes), attach it once and lease it.
 */
import type { RepositoryEngine } from '../engine/engines.js';
import { AttachedVersions } from '../cache/attached-versions.js';
import type { FileCache } from '../cache/file-cache.js';
import type { RefCache } from '../cache/ref-cache.js';
import type { ResultCache } from '../cache/result-cache.js';
import type { VerificationLedger } from '../state/verification-ledger.js';
import { SqlError, SQLSTATE } from '../errors.js';
import type { Repository } from '../resolver/repository.js';
import type { SystemTable, SystemViewName } from '../text/system-views.js';
import { attachVersion, type AttachedVersion } from './attach.js';
import type { Grants } from './grants.js';
import { resolveGranted } from './granted-ref.js';
import { META_PREFIX, type VersionLease, type VersionSource } from './lease.js';
import { systemTable } from './system-tables.js';
import { LISTING_DATABASES, listingLease } from './listing.js';
import { addListingCatalog } from './version-catalogs.js';

export interface VersionCaches {
  files: FileCache;
  refs: RefCache;
  results: ResultCache;
  verification: VerificationLedger;
}

export class Versions implements VersionSource {
  private seq = 0;
  readonly attached: AttachedVersions<AttachedVersion>;

  constructor(
    private readonly repos: Map<string, Repository>,
    /** The DuckDB instances of a repository (engine/engines.ts): its versions are attached in the sessions' one, their views written by the builder. */
    private readonly engineFor: (repo: string) => Promise<RepositoryEngine>,
    maxIdle: { versions: number; bytes: number },
    readonly grants: Grants,
    readonly caches: VersionCaches,
    /** How long a verdict on an attached version (expired or not, local files unchanged) stands: the ref TTL. */
    private readonly recheckMs: number,
    /** Parquet bytes of a version's small tables built as native DuckDB tables (versions/native-tables.ts). */
    private readonly nativeTableBytes = 0,
  ) {
    this.attached = new AttachedVersions(maxIdle.versions, maxIdle.bytes);
  }

  /** The served repositories; with `user`, only those the user may see (grants name them). */
  repositories(user?: string): string[] {
    const all = [...this.repos.keys()];
    return user === undefined ? all : all.filter((r) => this.grants.seesRepository(user, r));
  }

  /**
   * The databases `user` may connect to by a repository's name alone (pg_database, \l): a user limited
   * by grants sees a repository's name only when its HEAD is theirs to read. A name they could not
   * connect to would tell them what is served beyond their grants.
   */
  async databases(user: string): Promise<string[]> {
    const seen = this.repositories(user);
    if (!this.grants.restricts(user)) return seen;
    // A store that does not answer in time leaves its name out: a login lists databases (pg_database) for
    // every repository the user is granted, and one stalled store had held every such login (attacker review,
    // session 50).
    const readable = await Promise.all(
      seen.map((name) =>
        withinDeadline(
          resolveGranted(this.grants, user, this.repos.get(name)!, name, '').then(
            () => true,
            () => false,
          ),
          LISTING_DEADLINE_MS,
          false,
        ),
      ),
    );
    return seen.filter((_, i) => readable[i]);
  }

  repository(name: string): Repository | undefined {
    return this.repos.get(name);
  }

  freshVersion(repoName: string, ref: string): string | undefined {
    return this.repos.get(repoName)?.freshVersion(ref);
  }

  isMoving(lease: VersionLease): boolean {
    return lease.kind === 'branch' || lease.kind === 'head' || lease.kind === 'request';
  }

  async acquire(repoName: string, ref: string, user: string): Promise<VersionLease> {
    const repo = this.repos.get(repoName);
    if (!repo && LISTING_DATABASES.has(repoName) && this.repositories(user).length > 0) {
      if (ref !== '')
        throw new SqlError(
          SQLSTATE.invalidCatalogName,
          `database "${repoName}" has no refs: it lists the served repositories`,
          undefined,
          `Name a repository and its ref: ${this.repositories(user)[0]}~${ref}`,
        );
      await addListingCatalog(await this.engineFor(this.repositories(user)[0]!));
      return listingLease(repoName);
    }
    // A repository the user's grants do not name answers exactly like one that is not served.
    if (!repo || !this.grants.seesRepository(user, repoName))
      throw new SqlError(SQLSTATE.invalidCatalogName, `database "${repoName}" does not exist`);
    const res = await resolveGranted(this.grants, user, repo, repoName, ref);
    // An attached version may have expired since it was attached: same refusal as at attach.
    await repo.checkNotExpired(res.versionId);
    const lease = await this.lease(repo, res.versionId);
    return {
      repo: repoName,
      requested: ref,
      ref: res.ref,
      kind: ref === '' ? 'head' : res.kind,
      versionId: res.versionId,
      dbName: lease.value.dbName,
      attachId: lease.value.attachId,
      ensureTables: (tables, statement) => lease.value.ensureTables(tables, statement),
      hasPendingTables: () => lease.value.hasPendingTables(),
      countingStatement: (sql, searchSchemas) =>
        lease.value.countingStatement?.(sql, searchSchemas) ?? Promise.resolve(null),
      revalidate: (reads) => lease.value.revalidate(reads),
      unchangedAfter: (reads) => lease.value.unchangedAfter(reads),
      watchPlan: (reads) => lease.value.watchPlan?.(reads) ?? [],
      hasTable: (schema, table) => lease.value.hasTable(schema, table),
      relationColumns: (schema, name) => lease.value.relationColumns?.(schema, name),
      definesFunction: (name) => lease.value.definesFunction(name),
      namespace: lease.value.namespace,
      resolvedAt: new Date(),
      release: lease.release,
    };
  }

  systemTable(
    view: Exclude<SystemViewName, 'session'>,
    ctx: { repo: string; user: string; versionId: string },
  ): Promise<SystemTable> {
    return systemTable(this, view, ctx);
  }

  /** The attached version (attaching it when needed), leased until released. */
  async lease(repo: Repository, versionId: string) {
    const dbName = `${repo.name}@${versionId}`;
    const engine = await this.engineFor(repo.name);
    // attached per engine: one that replaced a broken one (engine-failure.ts) attaches anew
    return this.attached.acquire(`${dbName}#${engine.id}`, () =>
      attachVersion(
        engine,
        repo,
        versionId,
        dbName,
        `${META_PREFIX}${++this.seq}`,
        this.recheckMs,
        this.nativeTableBytes,
      ),
    );
  }

  /**
   * The repository's engine `engineId` was replaced (engines.ts retire): its attached versions are
   * let go of — now when idle, else when their last session releases them — so that nothing holds
   * the broken instance (its connections, catalog and views files) any more.
   */
  retireEngine(repoName: string, engineId: number): Promise<void> {
    const prefix = `${repoName}@`;
    const suffix = `#${engineId}`;
    return this.attached.retire((key) => key.startsWith(prefix) && key.endsWith(suffix));
  }

  close(): Promise<void> {
    return this.attached.clear();
  }
}

/** How long listing the databases a user may read waits for one repository's HEAD. */
const LISTING_DEADLINE_MS = 2_000;

/** `work`'s value, or `otherwise` once `ms` have passed first. */
function withinDeadline<T>(work: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
