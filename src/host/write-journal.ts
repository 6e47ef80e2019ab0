/**
 * What one run of a publisher command wrote, so that a failure leaves nothing behind. A pending
 * marker (versions/<id>/pending) is created before any data file and removed at commit: `fdl gc`
 * keeps everything a writer with a fresh marker may still reference. Rollback removes, newest
 * first, every key the run created (version.json before its data), unless the branch already
 * names the version (then it is published and only the marker goes).
 */
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { readRef } from './refs-writer.js';
import type { WriteTarget } from './target.js';

export const PENDING_MARKER = 'pending';

export class WriteJournal {
  private readonly keys: string[] = [];
  private readonly tempDirs: string[] = [];

  private constructor(private readonly target: WriteTarget, readonly versionId: string) {}

  /** Writes the marker; everything after it is recorded with `created`. */
  static async begin(target: WriteTarget, versionId: string): Promise<WriteJournal> {
    const j = new WriteJournal(target, versionId);
    const marker = `versions/${versionId}/${PENDING_MARKER}`;
    const body = Buffer.from(JSON.stringify({ started: new Date().toISOString(), host: hostname(), pid: process.pid }) + '\n');
    if (!(await target.create(marker, body))) throw new Error(`${marker} already exists in ${target.location}`);
    j.keys.push(marker);
    return j;
  }

  created(key: string): void {
    this.keys.push(key);
  }

  /** A local scratch folder inside the target (removed on rollback). */
  tempDir(dir: string): void {
    this.tempDirs.push(dir);
  }

  /** The version is published: the marker goes (a crash before this leaves a marker gc clears). */
  async commit(): Promise<void> {
    await this.target.remove(`versions/${this.versionId}/${PENDING_MARKER}`);
  }

  /** Undo after a failure; the original error is what the caller reports. */
  async rollback(refKey: string): Promise<void> {
    for (const d of this.tempDirs) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    const now = await readRef(this.target, refKey).catch(() => null);
    if (now === this.versionId) return this.commit();
    for (const key of [...this.keys].reverse()) await this.target.remove(key).catch(() => undefined);
  }
}
