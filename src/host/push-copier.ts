/**
 * One file of a push, SRC → DST: skipped when DST already has it (and it is the same file), else
 * downloaded with the size and sha256 its version records, checked, and created, under the version's
 * write journal. A file DST holds with other content is never overwritten.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '../store/index.js';
import { hashFile } from './repo.js';
import type { WriteTarget } from './target.js';
import { checkInterrupt } from './interrupt.js';
import type { WriteJournal } from './write-journal.js';

/** What a push counts as it copies files (a part of its report). */
export interface CopyCounts {
  filesCopied: number;
  filesPresent: number;
}

/** What a version records of a file: its size and sha256, when it does. */
export interface Expect {
  sha256?: string;
  size?: number;
}

/** A file DST already holds with other content (an expiry written there in other words). */
export class OtherContent extends Error {}

/** One file SRC → DST: skipped when DST already has it (checked), else downloaded, checked, created. */
export class FileCopier {
  private n = 0;
  /** Keys this run wrote: met again (a file later versions share), they are not "already there". */
  private readonly wrote = new Set<string>();
  /** The version being copied: every key is recorded before it is created, for rollback. */
  journal: WriteJournal | null = null;
  constructor(
    private readonly source: ObjectStore,
    private readonly target: WriteTarget,
    private readonly dstStore: ObjectStore,
    private readonly tmp: string,
    private readonly report: CopyCounts,
    private readonly afterFile?: (key: string) => void,
  ) {}

  /** `keep`: also leave a checked local copy there (the catalog and files.json are read afterwards). */
  async copy(srcKey: string, dstKey: string, want: Expect, keep?: string): Promise<void> {
    if (await this.present(dstKey, want)) {
      if (!this.wrote.has(dstKey)) this.report.filesPresent++;
      if (keep) await this.dstStore.download(dstKey, keep, { sha256: want.sha256, expectedSize: want.size });
      return;
    }
    const file = keep ?? join(this.tmp, `file-${this.n++}`);
    await this.source.download(srcKey, file, { sha256: want.sha256, expectedSize: want.size });
    try {
      await this.journal?.intend(dstKey);
      // taken meanwhile (another push of the same repository): not ours to roll back
      if (!(await this.target.create(dstKey, { file }))) this.journal?.forget(dstKey, new Error('taken'));
    } finally {
      if (!keep) await rm(file, { force: true });
    }
    this.report.filesCopied++;
    this.wrote.add(dstKey);
    this.afterFile?.(dstKey);
  }

  async createBytes(key: string, body: Buffer): Promise<void> {
    if (this.journal) await this.journal.intend(key);
    else checkInterrupt();
    if (!(await this.target.create(key, body))) {
      this.journal?.forget(key, new Error('taken'));
      const cur = await this.target.read(key);
      if (!cur?.body.equals(body))
        throw new OtherContent(`${key} already exists in ${this.target.location} with other content`);
      this.report.filesPresent++;
      return;
    }
    this.report.filesCopied++;
    this.afterFile?.(key);
  }

  /** Creates are atomic, so a file DST has is whole; it must still be the same file. */
  private async present(key: string, want: Expect): Promise<boolean> {
    const h = await this.dstStore.head(key);
    if (!h) return false;
    const where = `${key} in ${this.target.location}`;
    if (want.size !== undefined && h.size !== want.size)
      throw new Error(`${where} has ${h.size} bytes, expected ${want.size}: left as it is`);
    if (want.sha256 && this.target.localPath) {
      if ((await hashFile(this.target.localPath(key))).sha256 !== want.sha256)
        throw new Error(`${where}: sha256 differs: left as it is`);
    }
    return true;
  }
}
