/**
 * A remote version's tables, made readable per statement: the files its filters can reach (the
 * pruning judge) are fetched (or found cached) and pinned, then each table's view is kept when it
 * already reads them and its other files are still cached, else rebuilt over exactly those. Files a
 * statement cannot reach hold no row that could change its answer, so a view over any superset of
 * the needed files answers it exactly; the budget can evict the rest between statements.
 */
import { countedFiles, countedRows, materializeTable, type LakeCatalog, type LakeTable } from '../lake/index.js';
import type { DownloadProgress, VerifiedVersion } from '../resolver/repository.js';
import { Slots } from '../serial.js';
import type { StatementFiles, StatementHold } from './lease.js';
import type { PruningJudge } from './pruning.js';
import type { ViewsDatabase } from './views-database.js';

export const NO_HOLD: StatementHold = { bound: () => undefined, release: () => undefined };

export class RemoteTables {
  /** Per table, the data files its view reads now. */
  private readonly inView = new Map<LakeTable, Set<number>>();
  /** View changes wait for statements between their fetch and their bind (see StatementHold). */
  private readonly viewLock = new Slots();
  /** Changes with every view rebuilt (StatementHold.views). */
  private views = 0;

  constructor(
    private readonly viewsDb: ViewsDatabase,
    private readonly version: VerifiedVersion,
    private readonly catalog: LakeCatalog,
    private readonly dbName: string,
    private readonly prune: PruningJudge | null,
  ) {}

  /** Fetch and pin what `statement` reads of `wanted` (a view names them all), and make the views read it. */
  async ensure(wanted: { schema: string; name: string }[], statement?: StatementFiles): Promise<StatementHold> {
    const { catalog, prune, dbName, version } = this;
    // A DuckLake view may read any table: consider them all when one is named.
    const viaView = wanted.some((w) => catalog.views.some((v) => v.schema === w.schema && v.name === w.name));
    const tables = viaView
      ? catalog.tables
      : catalog.tables.filter((t) => wanted.some((w) => w.schema === t.schema && w.name === t.name));
    if (tables.length === 0) return NO_HOLD;
    // Every file of every table already in its view and still cached: the view is kept whatever
    // the filters reach, so the judge's EXPLAIN is skipped (its answer could only be a subset).
    const pinnedAll = statement && prune ? await this.holdIfAllInView(tables) : null;
    const judged = statement && prune && !pinnedAll ? await prune.judge(statement, dbName) : null;
    const needed = new Map(
      tables.map((t) => [
        t,
        judged ? (judged.get(t.tableId) ?? new Set<number>()) : new Set(t.dataFiles.map((f) => f.id)),
      ]),
    );
    // `count(*) FROM t`: files the catalog counts exactly are neither fetched nor read
    const counting = statement && prune && !statement.params?.length ? await prune.countOnly(statement, dbName) : null;
    const counted = counting && needed.has(counting) ? countedFiles(counting, catalog.snapshotId) : [];
    if (counting && counted.length) {
      const skip = new Set(counted.map((f) => f.id));
      needed.set(counting, new Set([...needed.get(counting)!].filter((id) => !skip.has(id))));
    }
    const leases: { release(): void }[] = pinnedAll ? [pinnedAll] : [];
    let unlock: (() => void) | null = null;
    const bound = () => {
      unlock?.();
      unlock = null;
    };
    const release = () => {
      bound();
      leases.splice(0).forEach((l) => l.release());
    };
    const locate = (rel: string) => version.locate(rel);
    try {
      // 1. fetch (or find cached) and pin what the statement needs, all tables in one budget check
      const files = tables.flatMap((t) => filesOf(t, needed.get(t)!));
      if (files.length) leases.push(await version.ensureFiles(files, progressNotice(statement?.notice)));
      // 2. each view: kept when it already reads the needed files and its other files are all still
      //    cached (pinned too: DuckDB binds the statement to the whole view); else rebuilt over
      //    exactly the needed ones, so a statement never pins files it does not read
      unlock = await this.viewLock.acquire();
      const rebuild: { t: LakeTable; need: ReadonlySet<number>; counted?: number }[] = [];
      for (const t of tables) {
        const need = needed.get(t)!;
        const current = this.inView.get(t);
        if (t === counting && counted.length) {
          // a view for this statement alone (bound before the lock is given back); the next one rebuilds
          rebuild.push({ t, need, counted: countedRows(counted, catalog.snapshotId) });
          continue;
        }
        if (current && [...need].every((id) => current.has(id))) {
          const { lease, missing } = await version.holdCached(
            filesOf(t, new Set([...current].filter((id) => !need.has(id)))),
          );
          if (missing.size === 0) {
            leases.push(lease);
            continue;
          }
          lease.release();
        }
        rebuild.push({ t, need });
      }
      if (rebuild.length) {
        // every changed view in one change of the read-only views database (views-database.ts)
        await this.viewsDb.change(async (c, db) => {
          for (const r of rebuild) await materializeTable(c, catalog, r.t, db, locate, r.need, r.counted);
        });
        for (const r of rebuild) {
          if (r.counted === undefined) this.inView.set(r.t, new Set(r.need));
          else this.inView.delete(r.t);
        }
        this.views++;
      }
      const views = this.views;
      const relock = async (): Promise<boolean> => {
        const u = await this.viewLock.acquire();
        if (this.views !== views) {
          u();
          return false;
        }
        unlock = u;
        return true;
      };
      return { bound, release, views, relock };
    } catch (e) {
      release();
      throw e;
    }
  }

  /** A pin on every file of `tables` when each table's view reads all its files and all are cached; else null. */
  private async holdIfAllInView(tables: readonly LakeTable[]): Promise<{ release(): void } | null> {
    if (!tables.every((t) => this.inView.get(t)?.size === t.dataFiles.length)) return null;
    const { lease, missing } = await this.version.holdCached(
      tables.flatMap((t) => filesOf(t, new Set(t.dataFiles.map((f) => f.id)))),
    );
    if (missing.size === 0) return lease;
    lease.release();
    return null;
  }
}

/** A table's data files among `ids`, with their delete files. */
function filesOf(t: LakeTable, ids: ReadonlySet<number>): { path: string; size: number | undefined }[] {
  const sizes = new Map(t.files.map((f) => [f.path, f.size]));
  return t.dataFiles
    .filter((f) => ids.has(f.id))
    .flatMap((f) => [
      { path: f.path, size: Number.isFinite(f.size) ? f.size : undefined },
      ...(f.delete ? [{ path: f.delete.path, size: sizes.get(f.delete.path) }] : []),
    ]);
}

/** A NOTICE with files, MB and rate for a fetch that has run longer than 2 s, then every 2 s. */
function progressNotice(notice: ((message: string) => void) | undefined): (p: DownloadProgress) => void {
  let last = 0;
  return (p) => {
    if (!notice || p.elapsedMs < 2000 || p.elapsedMs - last < 2000) return;
    last = p.elapsedMs;
    const mb = (n: number) => (n / 1e6).toFixed(1);
    notice(
      `fetching data files: ${p.files} of ${p.totalFiles} files, ${mb(p.bytes)} of ${mb(p.totalBytes)} MB, ${mb(p.bytes / (p.elapsedMs / 1000))} MB/s`,
    );
  };
}
