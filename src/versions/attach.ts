/**
 * Attach one verified version to DuckDB: its frozen catalog as a hidden metadata database, one
 * view per table (a small verified local table: a native DuckDB table, native-tables.ts) in a database named `repo@version`, dataset.json descriptions as comments.
 * Local repositories are read in place; remote ones fetch a table's files when a query first
 * touches the table (its view is a placeholder until then: remote-tables.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RepositoryEngine } from '../engine/engines.js';
import type { Attached } from '../cache/attached-versions.js';
import {
  attachCatalog,
  catalogRowCount,
  filesToProbe,
  materializeTable,
  openCatalog,
  type LakeCatalog,
  type LakeTable,
} from '../lake/index.js';
import type { VersionLease } from './lease.js';
import { lit, qi } from '../lake/sql.js';
import type { Repository, VerifiedVersion } from '../resolver/repository.js';
import { relationInfoStatement } from '../pg/catalog/index.js';
import { foldIdentifier } from '../text/identifier.js';
import { degraded } from '../degraded.js';
import { isSqlError, SqlError, SQLSTATE } from '../errors.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';
import { watchedEngineWork } from '../engine/engine-calls.js';
import { EngineInternalError } from '../engine/engine-failure.js';
import { localCounting } from './local-counting.js';
import { buildPruning } from './pruning.js';
import { NO_HOLD, RemoteTables } from './remote-tables.js';
import { VersionRecheck } from './version-recheck.js';
import { ViewsDatabase } from './views-database.js';
import { admittedBodies } from '../analysis/catalog-bodies.js';
import { addVersionCatalog, forgetVersionRows } from './version-catalogs.js';
import { Slots } from '../serial.js';
import { idleVersionBytes } from './version-footprint.js';
import { versionNamespace } from './version-namespace.js';
import {
  changedSince,
  fileIdentities,
  NATIVE_TABLE_MAX_BYTES,
  NATIVE_VERSION_BUILD_MS,
  nativeTables,
} from './native-tables.js';

/**
 * Versions whose catalog is read or whose views are built at once, process-wide. Each is DuckDB work on
 * libuv's thread pool (8 threads, cli/threadpool.ts) outside the sessions' engine-call slots, and its
 * length is the catalog's, which a store writer decides within the catalog ceilings
 * (lake/catalog-ceilings.ts): eight versions opened at once held all eight threads and no login of any
 * repository answered (attacker review, session 48). Fetching and verifying files takes no slot.
 */
export const VERSION_OPEN_SLOTS = 2;
const openSlots = new Slots(VERSION_OPEN_SLOTS);
/**
 * One of them per repository at a time: a store writer's slow catalogs queue behind each other, not in front
 * of another repository's first logins.
 */
const repositorySlots = new WeakMap<RepositoryEngine, Slots>();

/**
 * `work` in one of the process's open slots, and in its repository's. Watched for a named pipe's open as a
 * statement's calls are (engine-calls.ts); one that never returns (a pipe the release cannot find) counts as stuck
 * after the grace and gives back its process slot: two such had held both and no repository could open a version.
 * Its repository's slot stays held (that repository's other opens wait, each statement up to its own timeout), and
 * so does its thread of libuv's pool: one per repository at most.
 */
function inOpenSlot<T>(engine: RepositoryEngine, work: () => Promise<T>): Promise<T> {
  let own = repositorySlots.get(engine);
  if (!own) repositorySlots.set(engine, (own = new Slots(1)));
  return own.run(async () => {
    const release = await openSlots.acquire();
    let held = true;
    const giveBack = () => {
      if (held) release();
      held = false;
    };
    try {
      return await watchedEngineWork(work, giveBack);
    } finally {
      giveBack();
    }
  });
}

/** An attached version: what a lease exposes of it (versions/lease.ts), plus the cache's bookkeeping. */
export interface AttachedVersion
  extends
    Attached,
    Pick<
      VersionLease,
      | 'versionId'
      | 'attachId'
      | 'ensureTables'
      | 'hasPendingTables'
      | 'revalidate'
      | 'unchangedAfter'
      | 'watchPlan'
      | 'hasTable'
      | 'relationColumns'
      | 'definesFunction'
      | 'countingStatement'
      | 'namespace'
    > {
  readonly dataset: unknown;
}

/**
 * Opens (verifies) `versionId` of `repo` and attaches it as `dbName`, its catalog as `metaName`, in
 * the repository's sessions' instance; its views are written by the builder (views-database.ts).
 * While attached, `revalidate` (called before anything runs against the version) re-checks it
 * (version-recheck.ts).
 */
export async function attachVersion(
  engine: RepositoryEngine,
  repo: Repository,
  versionId: string,
  dbName: string,
  metaName: string,
  recheckMs: number,
  /** Parquet bytes of its small tables built as native DuckDB tables (native-tables.ts). */
  nativeTableBytes = 0,
): Promise<AttachedVersion> {
  const version = await repo.openVersion(versionId);
  const conn = await engine.sessions.connect();
  try {
    const views = ViewsDatabase.plan(engine, dbName, { file: version.catalogFile, alias: metaName });
    // the catalog's own views and macros judged before anything is built from them (analysis/catalog-bodies.ts)
    const admitted = await inOpenSlot(engine, async () =>
      admittedBodies(conn, await openCatalog(conn, version.catalogFile, metaName), dbName),
    ).catch((e: unknown) => {
      throw (!isSqlError(e) && changedWhileRead(version, versionId)) || e;
    });
    for (const w of admitted.warnings) degraded('view_dropped', `version ${versionId}: ${w}`);
    const catalog = admitted.catalog;
    const remote = !repo.store.localPath;
    const pins: { release(): void }[] = [];
    const locate = (rel: string) => version.locate(rel);
    // a deletion vector decoded into a view that lasts is read hashed: a file swapped in after its check never is
    const readBytes = (rel: string) => version.readVerified({ path: rel });
    // Local tables whose files did not verify at attach (absent, or other bytes): a placeholder view
    // that reads nothing, replaced by the real view once a statement finds the files verified.
    const unverified = new Set<LakeTable>();
    // undefined, without a promise, when no table verified now needs its view (the usual case)
    const repair = (verified: readonly LakeTable[]): Promise<void> | undefined => {
      if (unverified.size === 0) return undefined;
      const due = verified.filter((t) => unverified.has(t));
      if (due.length === 0) return undefined;
      return (async () => {
        // changes are serial: a table another statement built meanwhile is not built again
        const built: LakeTable[] = [];
        await views.change(async (c, db) => {
          for (const t of due.filter((t) => unverified.has(t))) {
            // its footers are read by path for the view's shape, which lasts the version's life: the files by
            // identity before a hash of their own, compared after the build (the statement's re-check hashed them
            // before this change began: a file swapped in since then was taken for the hashed one)
            const identities = fileIdentities([t], locate);
            (await version.ensureFiles(t.files)).release();
            await materializeTable(c, catalog, t, db, locate, undefined, undefined, readBytes);
            if (changedSince(identities, [t], locate) !== undefined)
              throw new SqlError(
                SQLSTATE.dataCorrupted,
                `a data file of ${t.schema}.${t.name} in version ${versionId} changed while it was read`,
                undefined,
                'Its store was written meanwhile; the next statement checks it again.',
              );
            built.push(t);
          }
        });
        for (const t of built) unverified.delete(t);
      })();
    };
    const recheck = new VersionRecheck(repo, version, versionId, catalog, recheckMs, !remote, repair);
    const catalogInfoSql = relationInfoStatement([
      ...catalog.tables.map((t) => ({
        schema: t.schema,
        name: t.name,
        kind: 'table' as const,
        rowCount: catalogRowCount(t, catalog.snapshotId),
        sizeBytes: t.files.reduce((n, f) => n + (f.kind === 'data' ? f.size : 0), 0),
      })),
      ...catalog.views.map((v) => ({ schema: v.schema, name: v.name, kind: 'view' as const })),
    ]);
    let cataloged = false;
    // a view or macro DuckDB could not create leaves the database other than the catalog says
    let dropped = false;
    // small verified local tables as native DuckDB tables (native-tables.ts); decided once their files verified
    let native: ReadonlySet<LakeTable> = new Set();
    // Local files are read in place: every byte is verified before any statement can read it.
    // Each table on its own: a table with a corrupt or missing file gets a placeholder view, and
    // every statement that reads it is refused (XX001) by the re-check before it runs, until the
    // file verifies again (then its view is built); the other tables are served.
    // the files a copy may read, as they are before their hashes (changedSince, below)
    const copyable = remote
      ? []
      : [...nativeTables(catalog, () => true, { table: NATIVE_TABLE_MAX_BYTES, version: nativeTableBytes })];
    // and the tables whose footers the build reads by path for their views' shapes (lake/probe.ts), which last
    // the version's life: a footer swapped in meanwhile mapped the genuine file's columns wrongly for good
    // (attacker review, session 53)
    const probed = remote ? [] : catalog.tables.filter((t) => filesToProbe([t]).size > 0);
    const identities = fileIdentities([...copyable, ...probed], locate);
    try {
      if (!remote) {
        for (const t of catalog.tables) {
          try {
            pins.push(await version.ensureFiles(t.files));
          } catch (e) {
            if (!isSqlError(e) || e.sqlstate !== SQLSTATE.dataCorrupted) throw e;
            unverified.add(t);
          }
        }
      }
      if (!remote)
        native = nativeTables(catalog, (t) => !unverified.has(t) && copyable.includes(t), {
          table: NATIVE_TABLE_MAX_BYTES,
          version: nativeTableBytes,
        });
      // The views database is built by the repository's views builder and attached here READ_ONLY
      // (views-database.ts): no statement, whatever passed it, can replace a view. Views that change
      // later (a remote table's over the files a statement needs, an unverified local table's once
      // its files verify) change in a copy, in the builder too.
      await inOpenSlot(engine, () =>
        views.build(async (b, file) => {
          const built = await attachCatalog(b, catalog, dbName, locate, {
            deferTables: remote,
            placeholders: unverified,
            native,
            nativeBudgetMs: NATIVE_VERSION_BUILD_MS,
            readBytes,
            // what the sessions' buffer pool may keep of the copies: their blocks, by the same ceilings
            nativeBlockBytes: { table: NATIVE_TABLE_MAX_BYTES, version: nativeTableBytes },
            file,
          });
          // the tables whose copies finished in time (the others are views)
          native = built.native;
          // what was read of the catalog, here and by the builder, is what was hashed (local-verify.ts fingerprint)
          if (!remote && !version.unchangedNow([]))
            throw new SqlError(
              SQLSTATE.dataCorrupted,
              `the catalog of version ${versionId} changed while it was read`,
              undefined,
              'Its store was written meanwhile; the next statement opens the version again.',
            );
          // a copy, or a view's shape, holds only bytes whose hash was checked: no file read changed since before its hash
          const changed = changedSince(identities, [...native, ...probed], locate);
          if (changed !== undefined)
            throw new SqlError(
              SQLSTATE.dataCorrupted,
              `data file ${changed} of version ${versionId} changed while it was read`,
              undefined,
              'Its store was written meanwhile; the next statement opens the version again.',
            );
          // a view or macro that cannot be created is left out (or dangling); the operator hears of it
          for (const w of built.warnings) degraded('view_dropped', `version ${versionId}: ${w}`);
          dropped = built.warnings.length > 0;
          await applyDatasetComments(b, dbName, catalog, version.dataset, native);
          // the catalog emulation's rows of the version, read from the views database while the builder
          // has it: written into the emulation's per-version database, attached READ_ONLY (version-catalogs.ts)
          await addVersionCatalog(engine, dbName, catalogInfoSql);
          cataloged = true;
        }),
      );
    } catch (e) {
      await conn.run(`DETACH DATABASE IF EXISTS ${qi(dbName)}`).catch(() => undefined);
      await conn.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`).catch(() => undefined);
      if (cataloged) await forgetVersionRows(engine, dbName).catch(() => undefined);
      await views.remove().catch(() => undefined);
      // DuckDB's failure to read a file swapped meanwhile (a named pipe released empty, other bytes) is the store's
      const changed = remote || isSqlError(e) ? undefined : changedSince(identities, [...copyable, ...probed], locate);
      throw (
        (!isSqlError(e) && !remote && changedWhileRead(version, versionId, changed && `data file ${changed}`)) ||
        openFailure(e, versionId)
      );
    }
    // Remote tables: a statement needs the files its filters can reach (pruning.ts, remote-tables.ts).
    const prune = remote ? await buildPruning(engine, catalog, `${metaName}_prune`) : null;
    const tables = remote ? new RemoteTables(views, version, catalog, dbName, prune) : null;
    // Local tables: `count(*) FROM t` is answered from the catalog's record counts where they are exact.
    // (a native table holds its rows: counted by DuckDB without reading a file)
    const counting = remote ? null : localCounting(engine.sessions, catalog, locate, native, readBytes);
    const tableNames = new Set(catalog.tables.map((t) => `${foldIdentifier(t.schema)}.${foldIdentifier(t.name)}`));
    const macroNames = new Set(catalog.macros.map((m) => foldIdentifier(m.name)));
    const relationColumns = new Map<string, ReadonlyMap<string, string> | null>([
      ...catalog.views.map((v): [string, null] => [`${foldIdentifier(v.schema)}.${foldIdentifier(v.name)}`, null]),
      ...catalog.tables.map((t): [string, ReadonlyMap<string, string>] => [
        `${foldIdentifier(t.schema)}.${foldIdentifier(t.name)}`,
        new Map(t.columns.map((c) => [foldIdentifier(c.name), c.type])),
      ]),
    ]);
    return {
      dbName,
      heldBytes: idleVersionBytes(catalog, native.size ? await views.fileBytes() : 0),
      versionId,
      attachId: metaName,
      hasTable: (schema, table) => tableNames.has(`${schema}.${table}`),
      relationColumns: (schema, name) => relationColumns.get(`${foldIdentifier(schema)}.${foldIdentifier(name)}`),
      definesFunction: (name) => macroNames.has(name),
      namespace: dropped ? undefined : versionNamespace(catalog),
      dataset: version.dataset,
      ensureTables: async (wanted, statement) => {
        if (tables) return tables.ensure(wanted, statement);
        // before DuckDB binds the statement: the views of unverified tables it reads are built once
        // their files verify (else XX001 naming the file)
        if (unverified.size) await recheck.revalidate(wanted);
        return NO_HOLD;
      },
      hasPendingTables: () => remote || unverified.size > 0,
      countingStatement: (sql, searchSchemas) =>
        counting?.statement(sql, searchSchemas, dbName) ?? Promise.resolve(null),
      revalidate: (reads = 'all') => recheck.revalidate(reads),
      unchangedAfter: (reads = 'all') => recheck.unchangedAfter(reads),
      watchPlan: (reads = 'all') => recheck.watchPlan(reads),
      async dispose() {
        // Every step is taken even when one fails: in an engine that was replaced (engine-failure)
        // nothing can be detached, but the connections held to it and the files must still go.
        const steps = [
          async () => {
            const c = await engine.sessions.connect();
            try {
              await c.run(`DETACH DATABASE IF EXISTS ${qi(dbName)}`);
              await c.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`);
            } finally {
              c.disconnectSync();
            }
          },
          () => forgetVersionRows(engine, dbName),
          async () => prune?.dispose(),
          async () => counting?.dispose(),
          () => views.remove(),
        ];
        const failed: unknown[] = [];
        for (const step of steps) await step().catch((e: unknown) => failed.push(e));
        for (const p of pins) p.release();
        version.close();
        if (failed.length > 0) throw failed[0];
      },
    };
  } catch (e) {
    version.close();
    throw e;
  } finally {
    conn.disconnectSync();
  }
}

/**
 * dataset.json descriptions become table and column comments (what BI tools display) where the
 * DuckLake catalog has none of its own.
 */
async function applyDatasetComments(
  conn: DuckDBConnection,
  dbName: string,
  catalog: LakeCatalog,
  dataset: unknown,
  native: ReadonlySet<LakeTable>,
): Promise<void> {
  const schemas = (
    dataset as {
      schemas?: Record<
        string,
        { tables?: Record<string, { description?: unknown; columns?: Record<string, unknown> }> }
      >;
    } | null
  )?.schemas;
  if (!schemas || typeof schemas !== 'object') return;
  for (const t of catalog.tables) {
    const d = schemas[t.schema]?.tables?.[t.name];
    if (!d) continue;
    const target = `${qi(dbName)}.${qi(t.schema)}.${qi(t.name)}`;
    if (!t.comment && typeof d.description === 'string')
      await conn.run(`COMMENT ON ${native.has(t) ? 'TABLE' : 'VIEW'} ${target} IS ${lit(d.description)}`);
    for (const c of t.columns) {
      const text = d.columns?.[c.name];
      if (!c.comment && typeof text === 'string')
        await conn.run(`COMMENT ON COLUMN ${target}.${qi(c.name)} IS ${lit(text)}`);
    }
  }
}

/**
 * An open that failed while what it read by path was swapped (the catalog, or a data file named): XX001 as the
 * open's own checks say it, not DuckDB's error over the other bytes (a named pipe released empty reads as "not a
 * valid DuckDB database file", 58030, or a failed build, XX000). undefined: nothing changed, the failure is DuckDB's.
 */
function changedWhileRead(version: VerifiedVersion, versionId: string, dataFile?: string): SqlError | undefined {
  const what = dataFile ?? (version.unchangedNow([]) ? undefined : 'the catalog');
  if (what === undefined) return undefined;
  return new SqlError(
    SQLSTATE.dataCorrupted,
    `${what} of version ${versionId} changed while it was read`,
    undefined,
    'Its store was written meanwhile; the next statement opens the version again.',
  );
}

/**
 * A failure while building a version's views, told to the client without the builder's internals (its
 * database names, its memory figures: attacker review, session 49); the operator reads them in the log.
 */
function openFailure(e: unknown, versionId: string): unknown {
  if (isSqlError(e)) return e;
  // an engine DuckDB invalidated is replaced by the caller (engine-failure.ts): that error goes on as it is
  const engineError = fromDuckDB(e);
  if (engineError instanceof EngineInternalError && engineError.invalidated) return engineError;
  const detail = e instanceof Error ? e.message : String(e);
  degraded('version_open', `version ${versionId}: ${detail}`);
  const memory = /out of memory/i.test(detail);
  return new SqlError(
    memory ? SQLSTATE.outOfMemory : SQLSTATE.internalError,
    `version ${versionId} could not be opened: building its views ${memory ? 'ran out of memory' : 'failed'}`,
  );
}
