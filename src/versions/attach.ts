/**
 * Attach one verified version to DuckDB: its frozen catalog as a hidden metadata database, one
 * view per table in a database named `repo@version`, dataset.json descriptions as comments.
 * Local repositories are read in place; remote ones fetch a table's files when a query first
 * touches the table (its view is a placeholder until then).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Attached } from '../cache/attached-versions.js';
import { attachCatalog, countedFiles, countedRows, countingStatement, countingTableSql, countOnlyTable, materializeTable, openCatalog, PruneIndex, tableContext, type LakeCatalog, type LakeTable, type Survivors } from '../lake/index.js';
import type { StatementFiles, StatementHold, VersionLease, VersionReads } from './lease.js';
import { replaceQuotedIdentifiers } from '../text/split.js';
import { LRUCache } from 'lru-cache';
import { lit, qi } from '../lake/sql.js';
import type { DownloadProgress, Repository } from '../resolver/repository.js';
import { forgetVersionCatalog, relationInfoStatement, snapshotVersionCatalog } from '../pg/catalog/index.js';
import { foldIdentifier } from '../text/identifier.js';
import { degraded } from '../degraded.js';
import { isSqlError, SQLSTATE } from '../errors.js';

/** An attached version: what a lease exposes of it (versions/lease.ts), plus the cache's bookkeeping. */
export interface AttachedVersion
  extends Attached,
    Pick<VersionLease, 'versionId' | 'ensureTables' | 'hasPendingTables' | 'revalidate' | 'hasTable' | 'definesFunction' | 'catalogInfoSql' | 'countingStatement'> {
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
    // A local file rewritten after verification is caught before the next statement that can read it:
    // one stat per file of the tables it names (the ledger answers unchanged ones). A view of the
    // version may read any table, so naming one re-checks them all.
    const filesByName = new Map(catalog.tables.map((t) => [`${t.schema.toLowerCase()}.${t.name.toLowerCase()}`, t.files]));
    const viewNames = new Set(catalog.views.map((v) => `${v.schema.toLowerCase()}.${v.name.toLowerCase()}`));
    const filesRead = (reads: VersionReads) => {
      if (reads === 'all') return allFiles;
      const names = reads.map((r) => `${r.schema.toLowerCase()}.${r.name.toLowerCase()}`);
      if (names.some((n) => viewNames.has(n))) return allFiles;
      return names.flatMap((n) => filesByName.get(n) ?? []);
    };
    // Local tables with a file that failed verification at attach: placeholders until their files
    // verify (XX001 for every statement that reads them meanwhile); the other tables are served.
    const unverified = new Set<LakeTable>();
    const restat = async (reads: VersionReads) => {
      // inlined rows are read from the catalog at query time: it is re-checked like the data files
      await version.recheckCatalog();
      const files = filesRead(reads);
      if (files.length) (await version.ensureFiles(files)).release();
    };
    try {
      if (!remote) {
        // Each table's files are verified on their own: a corrupt file refuses the statements that
        // read its table (ensureTables and restat: XX001), not the whole version.
        for (const t of catalog.tables) {
          try {
            pins.push(await version.ensureFiles(t.files));
          } catch (e) {
            if (!isSqlError(e) || e.sqlstate !== SQLSTATE.dataCorrupted) throw e;
            unverified.add(t);
          }
        }
      }
      const { warnings } = await attachCatalog(conn, catalog, dbName, locate, {
        deferTables: remote || ((t) => unverified.has(t)),
        placeholderMessage: remote ? undefined : (t) => `fdl: a data file of table ${t.schema}.${t.name} failed verification`,
      });
      // a view or macro that cannot be created is left out (or dangling); the operator hears of it
      for (const w of warnings) degraded('view_dropped', `version ${versionId}: ${w}`);
      await applyDatasetComments(conn, dbName, catalog, version.dataset);
      await snapshotVersionCatalog(conn, dbName);
    } catch (e) {
      await conn.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`).catch(() => undefined);
      throw e;
    }
    // Remote tables: a statement needs the files its filters can reach (PruneIndex); files it
    // cannot reach hold no row that could change its answer, so a view over any superset of the
    // needed files answers it exactly. A view keeps the files earlier statements fetched while they
    // stay cached and the statements that read it need no other; otherwise it is rebuilt over the
    // files the statement needs, so the budget can evict the rest between statements.
    const prune = remote ? await buildPruning(engine, catalog, `${metaName}_prune`) : null;
    // Local tables: `count(*) FROM t` is answered from the catalog's record counts where they are exact.
    const counting = remote ? null : localCounting(engine, catalog, locate);
    const inView = new Map<LakeTable, Set<number>>();
    // View changes wait for statements between their fetch and their bind (see StatementHold).
    const viewLock = new Mutex();
    const filesOf = (t: LakeTable, ids: ReadonlySet<number>) => {
      const sizes = new Map(t.files.map((f) => [f.path, f.size]));
      return t.dataFiles.filter((f) => ids.has(f.id)).flatMap((f) => [
        { path: f.path, size: Number.isFinite(f.size) ? f.size : undefined },
        ...(f.delete ? [{ path: f.delete.path, size: sizes.get(f.delete.path) }] : []),
      ]);
    };
    const withConnection = async (work: (c: DuckDBConnection) => Promise<void>) => {
      const c = await engine.connect();
      try {
        await work(c);
      } finally {
        c.disconnectSync();
      }
    };
    const ensureTables = async (wanted: { schema: string; name: string }[], statement?: StatementFiles): Promise<StatementHold> => {
      // A DuckLake view may read any table: consider them all when one is named.
      const viaView = wanted.some((w) => catalog.views.some((v) => v.schema === w.schema && v.name === w.name));
      const tables = viaView ? catalog.tables : catalog.tables.filter((t) => wanted.some((w) => w.schema === t.schema && w.name === t.name));
      if (!remote) {
        // a local table that failed verification: its files verified again (XX001 while they do
        // not), then its real view replaces the placeholder before the statement binds
        for (const t of tables.filter((x) => unverified.has(x))) {
          (await version.ensureFiles(t.files)).release();
          const unlock = await viewLock.lock();
          try {
            if (unverified.has(t)) await withConnection((c) => materializeTable(c, catalog, t, dbName, locate));
            unverified.delete(t);
          } finally {
            unlock();
          }
        }
        return NO_HOLD;
      }
      if (tables.length === 0) return NO_HOLD;
      const judged = statement && prune ? await prune.judge(statement, dbName) : null;
      const needed = new Map(tables.map((t) => [t, judged ? judged.get(t.tableId) ?? new Set<number>() : new Set(t.dataFiles.map((f) => f.id))]));
      // `count(*) FROM t`: files the catalog counts exactly are neither fetched nor read
      const counting = statement && prune && !statement.params?.length ? await prune.countOnly(statement, dbName) : null;
      const counted = counting && needed.has(counting) ? countedFiles(counting, catalog.snapshotId) : [];
      if (counting && counted.length) {
        const skip = new Set(counted.map((f) => f.id));
        needed.set(counting, new Set([...needed.get(counting)!].filter((id) => !skip.has(id))));
      }
      const leases: { release(): void }[] = [];
      let unlock: (() => void) | null = null;
      const bound = () => {
        unlock?.();
        unlock = null;
      };
      const release = () => {
        bound();
        leases.splice(0).forEach((l) => l.release());
      };
      try {
        // 1. fetch (or find cached) and pin what the statement needs, all tables in one budget check
        const files = tables.flatMap((t) => filesOf(t, needed.get(t)!));
        if (files.length) leases.push(await version.ensureFiles(files, progressNotice(statement?.notice)));
        // 2. each view: kept when it already reads the needed files and its other files are all still
        //    cached (pinned too: DuckDB binds the statement to the whole view); else rebuilt over
        //    exactly the needed ones, so a statement never pins files it does not read
        unlock = await viewLock.lock();
        for (const t of tables) {
          const need = needed.get(t)!;
          const current = inView.get(t);
          if (t === counting && counted.length) {
            // a view for this statement alone (bound before the lock is given back); the next one rebuilds
            await withConnection((c) => materializeTable(c, catalog, t, dbName, locate, need, countedRows(counted, catalog.snapshotId)));
            inView.delete(t);
            continue;
          }
          if (current && [...need].every((id) => current.has(id))) {
            const { lease, missing } = await version.holdCached(filesOf(t, new Set([...current].filter((id) => !need.has(id)))));
            if (missing.size === 0) {
              leases.push(lease);
              continue;
            }
            lease.release();
          }
          await withConnection((c) => materializeTable(c, catalog, t, dbName, locate, need));
          inView.set(t, new Set(need));
        }
        return { bound, release };
      } catch (e) {
        release();
        throw e;
      }
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
    const tableNames = new Set(catalog.tables.map((t) => `${foldIdentifier(t.schema)}.${foldIdentifier(t.name)}`));
    const macroNames = new Set(catalog.macros.map((m) => foldIdentifier(m.name)));
    return {
      dbName,
      versionId,
      catalogInfoSql,
      hasTable: (schema, table) => tableNames.has(`${schema}.${table}`),
      definesFunction: (name) => macroNames.has(name),
      dataset: version.dataset,
      ensureTables,
      hasPendingTables: () => remote || unverified.size > 0,
      countingStatement: (sql, searchSchemas) => counting?.statement(sql, searchSchemas, dbName) ?? Promise.resolve(null),
      revalidate: (reads = 'all') => {
        // a statement that reads no table of the version reads neither its files nor its catalog
        const reading = !remote && (reads === 'all' || reads.length > 0);
        if (!due() && !reading) return undefined;
        return (async () => {
          if (due()) await recheck();
          if (reading) await restat(reads);
        })();
      },
      async dispose() {
        const c = await engine.connect();
        try {
          await c.run(`DETACH DATABASE IF EXISTS ${qi(dbName)}`);
          await c.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`);
          await forgetVersionCatalog(c, dbName);
          if (prune) await prune.dispose();
          if (counting) await counting.dispose();
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
  } catch (e) {
    degraded('prune_index', `no pruning index for ${name} (every file a statement reads is fetched): ${(e as Error).message.split('\n')[0]}`);
    conn.disconnectSync();
    return null;
  }
  let turn: Promise<unknown> = Promise.resolve();
  // A dashboard repeats its statements: the verdict depends only on the text and the search path.
  const verdicts = new LRUCache<string, { s: Survivors | null }>({ max: 512 });
  return {
    /**
     * The files `statement` needs. Names of this version's own database (a cross-version statement
     * names each version's database) are judged among the statistics views; other versions' tables
     * are left to their own judges.
     */
    judge(statement: StatementFiles, dbName: string): Promise<Survivors | null> {
      const own = dbName.toLowerCase();
      const sql = replaceQuotedIdentifiers(statement.sql, (name) => (name.toLowerCase() === own ? index.dbName : undefined));
      const key = `${statement.searchSchemas.join('\0')}\n${sql}`;
      const params = statement.params ?? [];
      const known = params.length ? undefined : verdicts.get(key);
      if (known) return Promise.resolve(known.s);
      const run = turn.then(() => index.survivors(conn, sql, statement.searchSchemas, params));
      turn = run.catch(() => undefined);
      return run.then((s) => (params.length ? s : (verdicts.set(key, { s }), s)));
    },
    /** The table a `count(*) FROM t` statement only counts, or null (lake/count-only.ts). */
    countOnly(statement: StatementFiles, dbName: string): Promise<LakeTable | null> {
      const run = turn.then(() => countOnlyTable(conn, statement.sql, catalog, statement.searchSchemas, dbName));
      turn = run.catch(() => undefined);
      return run;
    },
    async dispose() {
      await turn;
      await index.dispose(conn).catch(() => undefined);
      conn.disconnectSync();
    },
  };
}

/**
 * Counting statements over a local version (`SELECT count(*) FROM t`, lake/count-only.ts): data
 * files that need no row filter stand as their catalog record counts, the others (deletes,
 * rows newer than the snapshot) and inlined rows are read as the table's view reads them. The
 * counting relation of a table is built once (the version is frozen); one connection, one
 * statement at a time.
 */
function localCounting(engine: DuckDBInstance, catalog: LakeCatalog, locate: (rel: string) => string) {
  let conn: Promise<DuckDBConnection> | null = null;
  let turn: Promise<unknown> = Promise.resolve();
  const sources = new Map<LakeTable, Promise<string | null>>();
  const source = (c: DuckDBConnection, t: LakeTable): Promise<string | null> => {
    let s = sources.get(t);
    if (!s) {
      s = (async () => {
        const counted = countedFiles(t, catalog.snapshotId);
        if (counted.length === 0) return null;
        const skip = new Set(counted.map((f) => f.id));
        const read = new Set(t.dataFiles.filter((f) => !skip.has(f.id)).map((f) => f.id));
        const ctx = await tableContext(c, catalog, [t], locate, read);
        return countingTableSql(t, ctx, read, countedRows(counted, catalog.snapshotId));
      })();
      s.catch(() => sources.delete(t));
      sources.set(t, s);
    }
    return s;
  };
  return {
    statement(sql: string, searchSchemas: readonly string[], dbName: string): Promise<string | null> {
      // a cheap look first: most statements, counts with a filter among them, are never parsed here
      if (!/count\s*\(\s*\*\s*\)/i.test(sql) || /\b(where|group|having|join|limit|union|qualify|order|with)\b/i.test(sql)) return Promise.resolve(null);
      const run = turn.then(async () => {
        const c = await (conn ??= engine.connect());
        return countingStatement(c, sql, catalog, searchSchemas, dbName, (t) => source(c, t));
      });
      turn = run.catch(() => undefined);
      return run;
    },
    async dispose() {
      await turn;
      if (conn) (await conn).disconnectSync();
    },
  };
}

const NO_HOLD: StatementHold = { bound: () => undefined, release: () => undefined };

/** One holder at a time; waiters in arrival order. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves, once the lock is ours, to the function that gives it back (idempotent). */
  lock(): Promise<() => void> {
    let open!: () => void;
    const mine = new Promise<void>((r) => (open = r));
    const ready = this.tail.then(() => {
      let done = false;
      return () => {
        if (!done) {
          done = true;
          open();
        }
      };
    });
    this.tail = this.tail.then(() => mine);
    return ready;
  }
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
