/**
 * Attach one verified version to DuckDB: its frozen catalog as a hidden metadata database, one
 * view per table in a database named `repo@version`, dataset.json descriptions as comments.
 * Local repositories are read in place; remote ones fetch a table's files when a query first
 * touches the table (its view is a placeholder until then).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Attached } from '../cache/attached-versions.js';
import { attachCatalog, materializeTable, openCatalog, PruneIndex, type LakeCatalog, type LakeTable, type Survivors } from '../lake/index.js';
import type { StatementFiles, VersionLease } from './lease.js';
import { LRUCache } from 'lru-cache';
import { lit, qi } from '../lake/sql.js';
import type { DownloadProgress, Repository } from '../resolver/repository.js';
import { relationInfoStatement } from '../sql/compat/index.js';

/** An attached version: what a lease exposes of it (versions/lease.ts), plus the cache's bookkeeping. */
export interface AttachedVersion
  extends Attached,
    Pick<VersionLease, 'versionId' | 'ensureTables' | 'hasPendingTables' | 'revalidate' | 'hasTable' | 'definesFunction' | 'catalogInfoSql'> {
  readonly dataset: unknown;
}

/**
 * Opens (verifies) `versionId` of `repo` and attaches it as `dbName`, its catalog as `metaName`.
 * While attached, `revalidate` (called before anything runs against the version) re-checks it once
 * `recheckMs` has passed (an expired.json that appeared refuses it) and, for a local version, before
 * every statement: each file and the catalog are stat'ed against the verification ledger and
 * re-hashed only when their identity (size, mtime, ctime, inode) changed.
 */
export async function attachVersion(engine: DuckDBInstance, repo: Repository, versionId: string, dbName: string, metaName: string, recheckMs: number): Promise<AttachedVersion> {
  const version = await repo.openVersion(versionId);
  const conn = await engine.connect();
  try {
    const catalog = await openCatalog(conn, version.catalogFile, metaName);
    const remote = !repo.store.localPath;
    const pins: { release(): void }[] = [];
    const locate = (rel: string) => version.locate(rel);
    // Local files are read in place: every byte is verified before any view can read it.
    const allFiles = catalog.tables.flatMap((t) => t.files);
    let checkedAt = Date.now();
    let rechecking: Promise<void> | null = null;
    const due = () => Date.now() - checkedAt >= recheckMs;
    const recheck = () =>
      (rechecking ??= (async () => {
        await repo.checkNotExpired(versionId);
        checkedAt = Date.now();
      })().finally(() => (rechecking = null)));
    // A local file rewritten after verification is caught before the next statement reads it: one
    // stat per file (the ledger answers unchanged ones), shared by statements starting together.
    let restating: Promise<void> | null = null;
    const restat = () =>
      (restating ??= (async () => {
        // inlined rows are read from the catalog at query time: it is re-checked like the data files
        await version.recheckCatalog();
        (await version.ensureFiles(allFiles)).release();
      })().finally(() => (restating = null)));
    try {
      if (!remote) pins.push(await version.ensureFiles(allFiles));
      await attachCatalog(conn, catalog, dbName, locate, { deferTables: remote });
      await applyDatasetComments(conn, dbName, catalog, version.dataset);
    } catch (e) {
      await conn.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`).catch(() => undefined);
      throw e;
    }
    // Remote tables: each view reads the files fetched so far, a set that only grows. A statement
    // needs the files its filters can reach (PruneIndex); files it cannot reach hold no row that
    // could change its answer, so a view over any superset of the needed files answers it exactly.
    const prune = remote ? await buildPruning(engine, catalog, `${metaName}_prune`) : null;
    const tableState = new Map<LakeTable, { inView: Set<number>; materialized: boolean; chain: Promise<void> }>();
    const complete = (t: LakeTable) => {
      const s = tableState.get(t);
      return !!s && s.materialized && s.inView.size === t.dataFiles.length;
    };
    const grow = (t: LakeTable, needed: ReadonlySet<number>, progress: (p: DownloadProgress) => void): Promise<void> => {
      let s = tableState.get(t);
      if (!s) tableState.set(t, (s = { inView: new Set(), materialized: false, chain: Promise.resolve() }));
      const state = s;
      const run = state.chain.then(async () => {
        const missing = t.dataFiles.filter((f) => needed.has(f.id) && !state.inView.has(f.id));
        if (missing.length === 0 && state.materialized) return;
        const sizes = new Map(t.files.map((f) => [f.path, f.size]));
        const files = missing.flatMap((f) => [
          { path: f.path, size: Number.isFinite(f.size) ? f.size : undefined },
          ...(f.delete ? [{ path: f.delete.path, size: sizes.get(f.delete.path) }] : []),
        ]);
        if (files.length) pins.push(await version.ensureFiles(files, progress));
        const next = new Set([...state.inView, ...missing.map((f) => f.id)]);
        const c = await engine.connect();
        try {
          await materializeTable(c, catalog, t, dbName, locate, next);
        } finally {
          c.disconnectSync();
        }
        state.inView = next;
        state.materialized = true;
      });
      // A failed download leaves the view as it was; the next statement tries again.
      state.chain = run.catch(() => undefined);
      return run;
    };
    const ensureTables = async (wanted: { schema: string; name: string }[], statement?: StatementFiles) => {
      if (!remote) return;
      // A DuckLake view may read any table: consider them all when one is named.
      const viaView = wanted.some((w) => catalog.views.some((v) => v.schema === w.schema && v.name === w.name));
      const tables = (viaView ? catalog.tables : catalog.tables.filter((t) => wanted.some((w) => w.schema === t.schema && w.name === t.name)))
        .filter((t) => !complete(t));
      if (tables.length === 0) return;
      // A statement naming this version's database explicitly is judged unpruned (the judge resolves names in its own database).
      const judged = statement && prune && !statement.sql.toLowerCase().includes(dbName.toLowerCase()) ? await prune.judge(statement) : null;
      const progress = progressNotice(statement?.notice);
      await Promise.all(tables.map((t) => grow(t, judged ? judged.get(t.tableId) ?? new Set() : new Set(t.dataFiles.map((f) => f.id)), progress)));
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
      hasPendingTables: () => remote && !catalog.tables.every(complete),
      revalidate: async () => {
        if (due()) await recheck();
        if (!remote) await restat();
      },
      async dispose() {
        const c = await engine.connect();
        try {
          await c.run(`DETACH DATABASE IF EXISTS ${qi(dbName)}`);
          await c.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`);
          if (prune) await prune.dispose();
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

/**
 * The pruning judge of a remote version: one DuckDB connection holding the statistics database,
 * used by one statement at a time. null when the statistics database cannot be built (every
 * file is then fetched, as before pruning existed).
 */
async function buildPruning(engine: DuckDBInstance, catalog: LakeCatalog, name: string) {
  const conn = await engine.connect();
  let index: PruneIndex;
  try {
    index = await PruneIndex.build(conn, catalog, name);
  } catch {
    conn.disconnectSync();
    return null;
  }
  let turn: Promise<unknown> = Promise.resolve();
  // A dashboard repeats its statements: the verdict depends only on the text and the search path.
  const verdicts = new LRUCache<string, { s: Survivors | null }>({ max: 512 });
  return {
    judge(statement: StatementFiles): Promise<Survivors | null> {
      const key = `${statement.searchSchemas.join('\0')}\n${statement.sql}`;
      const known = verdicts.get(key);
      if (known) return Promise.resolve(known.s);
      const run = turn.then(() => index.survivors(conn, statement.sql, statement.searchSchemas));
      turn = run.catch(() => undefined);
      return run.then((s) => (verdicts.set(key, { s }), s));
    },
    async dispose() {
      await turn;
      await index.dispose(conn).catch(() => undefined);
      conn.disconnectSync();
    },
  };
}

/** A NOTICE with files, MB and rate for a fetch that has run longer than 2 s, then every 2 s. */
function progressNotice(notice: ((message: string) => void) | undefined): (p: DownloadProgress) => void {
  let last = 0;
  return (p) => {
    if (!notice || p.elapsedMs < 2000 || p.elapsedMs - last < 2000) return;
    last = p.elapsedMs;
    const mb = (n: number) => (n / 1e6).toFixed(1);
    notice(`fetching data files: ${p.files} of ${p.totalFiles} files, ${mb(p.bytes)} of ${mb(p.totalBytes)} MB, ${mb(p.bytes / (p.elapsedMs / 1000))} MB/s`);
  };
}

/**
 * dataset.json descriptions become table and column comments (what BI tools display) where the
 * DuckLake catalog has none of its own.
 */
async function applyDatasetComments(conn: DuckDBConnection, dbName: string, catalog: LakeCatalog, dataset: unknown): Promise<void> {
  const schemas = (dataset as { schemas?: Record<string, { tables?: Record<string, { description?: unknown; columns?: Record<string, unknown> }> }> } | null)?.schemas;
  if (!schemas || typeof schemas !== 'object') return;
  for (const t of catalog.tables) {
    const d = schemas[t.schema]?.tables?.[t.name];
    if (!d) continue;
    const target = `${qi(dbName)}.${qi(t.schema)}.${qi(t.name)}`;
    if (!t.comment && typeof d.description === 'string') await conn.run(`COMMENT ON VIEW ${target} IS ${lit(d.description)}`);
    for (const c of t.columns) {
      const text = d.columns?.[c.name];
      if (!c.comment && typeof text === 'string') await conn.run(`COMMENT ON COLUMN ${target}.${qi(c.name)} IS ${lit(text)}`);
    }
  }
}
