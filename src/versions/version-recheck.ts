/**
 * An attached version re-checked before anything runs against it: once `recheckMs` has passed, its
 * expiry (an expired.json that appeared refuses it); for a local version, before every statement
 * that reads it, the catalog and the files of the tables the statement names — one stat each
 * against the verification ledger, re-hashed only when their identity (size, mtime, ctime, inode)
 * changed. A view of the version may read any table, so naming one re-checks them all.
 */
import type { LakeCatalog, LakeTable } from '../lake/index.js';
import type { Repository, VerifiedVersion } from '../resolver/repository.js';
import type { VersionReads } from './lease.js';
import { watchPlan, type WatchPlan } from './folder-watch.js';

export class VersionRecheck {
  private checkedAt = Date.now();
  private rechecking: Promise<void> | null = null;
  private readonly allFiles: LakeTable['files'];
  private readonly tables: LakeTable[];
  private readonly tablesByName: Map<string, LakeTable[]>;
  private readonly viewNames: Set<string>;
  /** Each plan's reads (kept by the plan, the same array every statement) → its tables and files. */
  /** Each files list's folders to watch while a statement reads them (worked out once). */
  private readonly plans = new WeakMap<LakeTable['files'], WatchPlan>();
  private readonly readsSeen = new WeakMap<readonly unknown[], { tables: LakeTable[]; files: LakeTable['files'] }>();

  constructor(
    private readonly repo: Repository,
    private readonly version: VerifiedVersion,
    private readonly versionId: string,
    catalog: LakeCatalog,
    private readonly recheckMs: number,
    /** Local files are read in place: they are re-checked per statement (remote ones are pinned in the file cache). */
    private readonly local: boolean,
    /** Called with the tables whose files have just verified, before the statement runs (undefined: nothing to do). */
    private readonly onVerified?: (tables: readonly LakeTable[]) => Promise<void> | undefined,
  ) {
    this.tables = catalog.tables;
    this.allFiles = catalog.tables.flatMap((t) => t.files);
    this.tablesByName = new Map(catalog.tables.map((t) => [`${t.schema.toLowerCase()}.${t.name.toLowerCase()}`, [t]]));
    this.viewNames = new Set(catalog.views.map((v) => `${v.schema.toLowerCase()}.${v.name.toLowerCase()}`));
  }

  /** Every file of the version (verified before any view can read it, for a local version). */
  get files(): LakeTable['files'] {
    return this.allFiles;
  }

  /** undefined, without a promise, when nothing is due (the usual case). */
  revalidate(reads: VersionReads = 'all'): Promise<void> | undefined {
    // a statement that reads no table of the version reads neither its files nor its catalog
    const reading = this.local && (reads === 'all' || reads.length > 0);
    if (!this.due() && !reading) return undefined;
    if (!this.due()) {
      // the usual case: every file as verified before (one stat each) and nothing to repair, without a promise
      const read = this.tablesRead(reads);
      if (this.version.unchangedNow(read.files)) return this.onVerified?.(read.tables);
    }
    return (async () => {
      if (this.due()) await this.recheck();
      if (reading) await this.restat(reads);
    })();
  }

  /**
   * Whether the files a statement read are still, by one stat each, the ones verified before it ran: a result is
   * kept in the result cache only then (a local file swapped in during the run, and back, served that run's rows;
   * kept, they were served again after the genuine file was back — attacker review, session 53). A remote
   * version's files are the file cache's own: unchanged.
   */
  unchangedAfter(reads: VersionReads = 'all'): boolean {
    if (!this.local || (reads !== 'all' && reads.length === 0)) return true;
    return this.version.unchangedNow(this.tablesRead(reads).files);
  }

  /**
   * The folders to watch while a statement reads the version's files in place (versions/folder-watch.ts): none for a
   * remote version (its files are the file cache's own) or a statement that reads no table.
   */
  watchPlan(reads: VersionReads = 'all'): WatchPlan {
    if (!this.local || (reads !== 'all' && reads.length === 0)) return [];
    const { files } = this.tablesRead(reads);
    let plan = this.plans.get(files);
    if (!plan) {
      // a local store's location is its real root, under which it resolved the files' paths (fs-store.ts)
      const root = this.repo.store.localPath ? this.repo.store.location : undefined;
      plan = watchPlan(
        files.map((f) => ({ path: this.version.locate(f.path), rel: f.path })),
        root,
      );
      this.plans.set(files, plan);
    }
    return plan;
  }

  private due(): boolean {
    return Date.now() - this.checkedAt >= this.recheckMs;
  }

  private recheck(): Promise<void> {
    return (this.rechecking ??= (async () => {
      await this.repo.checkNotExpired(this.versionId);
      this.checkedAt = Date.now();
    })().finally(() => (this.rechecking = null)));
  }

  private async restat(reads: VersionReads): Promise<void> {
    // inlined rows are read from the catalog at query time: it is re-checked like the data files
    await this.version.recheckCatalog();
    const { tables, files } = this.tablesRead(reads);
    if (files.length) (await this.version.ensureFiles(files)).release();
    await this.onVerified?.(tables);
  }

  /** The tables a statement reads, and their files; the same `reads` (a plan's) is worked out once. */
  private tablesRead(reads: VersionReads): { tables: LakeTable[]; files: LakeTable['files'] } {
    if (reads === 'all') return { tables: this.tables, files: this.allFiles };
    const known = this.readsSeen.get(reads);
    if (known) return known;
    const names = reads.map((r) => `${r.schema.toLowerCase()}.${r.name.toLowerCase()}`);
    const tables = names.some((n) => this.viewNames.has(n))
      ? this.tables
      : names.flatMap((n) => this.tablesByName.get(n) ?? []);
    const read = { tables, files: tables === this.tables ? this.allFiles : tables.flatMap((t) => t.files) };
    this.readsSeen.set(reads, read);
    return read;
  }
}
