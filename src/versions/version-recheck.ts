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

export class VersionRecheck {
  private checkedAt = Date.now();
  private rechecking: Promise<void> | null = null;
  private readonly allFiles: LakeTable['files'];
  private readonly tables: LakeTable[];
  private readonly tablesByName: Map<string, LakeTable[]>;
  private readonly viewNames: Set<string>;

  constructor(
    private readonly repo: Repository,
    private readonly version: VerifiedVersion,
    private readonly versionId: string,
    catalog: LakeCatalog,
    private readonly recheckMs: number,
    /** Local files are read in place: they are re-checked per statement (remote ones are pinned in the file cache). */
    private readonly local: boolean,
    /** Called with the tables whose files have just verified, before the statement runs. */
    private readonly onVerified?: (tables: readonly LakeTable[]) => Promise<void>,
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
    return (async () => {
      if (this.due()) await this.recheck();
      if (reading) await this.restat(reads);
    })();
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
    const tables = this.tablesRead(reads);
    const files = tables.flatMap((t) => t.files);
    if (files.length) (await this.version.ensureFiles(files)).release();
    await this.onVerified?.(tables);
  }

  private tablesRead(reads: VersionReads): LakeTable[] {
    if (reads === 'all') return this.tables;
    const names = reads.map((r) => `${r.schema.toLowerCase()}.${r.name.toLowerCase()}`);
    if (names.some((n) => this.viewNames.has(n))) return this.tables;
    return names.flatMap((n) => this.tablesByName.get(n) ?? []);
  }
}
