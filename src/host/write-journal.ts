/**
 * What one run of a publisher command writes, so that a failure (or SIGINT/SIGTERM, interrupt.ts)
 * leaves nothing behind. A pending marker (versions/<id>/pending) is created before any data file
 * and removed at commit. It names the writer (host, boot, pid and the process's start time) and
 * every key outside the version folder the run is about to write, recorded *before* the write:
 * `fdl gc` keeps everything a live writer may still reference, and clears a dead writer's debris
 * (its folder and the keys its marker lists) at once. Rollback removes, newest first, every key the
 * run recorded (version.json before its data), unless the branch already names the version (then it
 * is published and only the marker goes).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { checkInterrupt } from './interrupt.js';
import { readRef } from './refs-writer.js';
import type { WriteTarget } from './target.js';

export const PENDING_MARKER = 'pending';

/** Who wrote a pending marker: enough to tell, on the same host, whether that process still runs. */
export interface WriterId {
  host: string;
  pid: number;
  /** /proc/sys/kernel/random/boot_id: a pid from before a reboot names another process. */
  boot?: string;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat): a reused pid has another. */
  start?: number;
}

export interface MarkerBody extends WriterId {
  started: string;
  /** Keys outside versions/<id>/ this run writes (data files; local scratch folders end in '/'). */
  keys: string[];
}

const readProc = (p: string): string | null => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
};

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
export function processStart(pid: number): number | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const v = Number(fields[19]);
  return Number.isFinite(v) ? v : null;
}

export function thisWriter(): WriterId {
  const boot = readProc('/proc/sys/kernel/random/boot_id')?.trim();
  const start = processStart(process.pid);
  return { host: hostname(), pid: process.pid, ...(boot ? { boot } : {}), ...(start !== null ? { start } : {}) };
}

/**
 * 'alive' or 'dead' when the writer ran on this host (its pid checked with signal 0 and, where
 * recorded, its boot and start time); 'unknown' for another host's writer (judged by age alone).
 */
export function writerState(w: WriterId | null): 'alive' | 'dead' | 'unknown' {
  if (!w || w.host !== hostname()) return 'unknown';
  const me = thisWriter();
  if (w.boot && me.boot && w.boot !== me.boot) return 'dead';
  try {
    process.kill(w.pid, 0);
  } catch (e) {
    if ((e as { code?: string }).code !== 'EPERM') return 'dead'; // EPERM: alive, someone else's
  }
  if (w.start !== undefined) {
    const start = processStart(w.pid);
    if (start !== null && start !== w.start) return 'dead'; // the pid was reused
  }
  return 'alive';
}

export class WriteJournal {
  private readonly keys: string[] = [];
  private readonly tempDirs: string[] = [];
  private readonly marker: string;
  private readonly body: MarkerBody;

  private constructor(
    private readonly target: WriteTarget,
    readonly versionId: string,
  ) {
    this.marker = `versions/${versionId}/${PENDING_MARKER}`;
    this.body = { started: new Date().toISOString(), ...thisWriter(), keys: [] };
  }

  /** Writes the marker; everything after it is recorded with `intend` before it is written. */
  static async begin(target: WriteTarget, versionId: string): Promise<WriteJournal> {
    checkInterrupt();
    const j = new WriteJournal(target, versionId);
    if (!(await target.create(j.marker, j.bytes())))
      throw new Error(`${j.marker} already exists in ${target.location}`);
    j.keys.push(j.marker);
    return j;
  }

  private bytes(): Buffer {
    return Buffer.from(JSON.stringify(this.body) + '\n');
  }

  /**
   * Before `key` is written: recorded for rollback and, outside the version folder, in the marker
   * (a dead writer's debris is then known by name). Throws once a signal has arrived.
   */
  async intend(key: string): Promise<void> {
    checkInterrupt();
    this.keys.push(key);
    if (!key.startsWith(`versions/${this.versionId}/`)) {
      this.body.keys.push(key);
      await this.target.put(this.marker, this.bytes());
    }
  }

  /** `key` was not written after all (the name was taken): rollback must leave it alone. Returns `error` to throw. */
  forget(key: string, error: Error): Error {
    const i = this.keys.lastIndexOf(key);
    if (i >= 0) this.keys.splice(i, 1);
    const j = this.body.keys.lastIndexOf(key);
    if (j >= 0) this.body.keys.splice(j, 1); // in the marker with its next write
    return error;
  }

  /** A scratch folder inside a local target (key prefix `rel`), removed on rollback; recorded in the marker before it is made. */
  async tempDir(rel: string): Promise<void> {
    checkInterrupt();
    const prefix = rel.endsWith('/') ? rel : `${rel}/`;
    this.tempDirs.push(prefix);
    this.body.keys.push(prefix);
    await this.target.put(this.marker, this.bytes());
  }

  /**
   * The files this run wrote that are no longer there (removed while it ran, e.g. by a gc that took
   * it for dead): checked with a stat each before the branch moves, so a version never names data
   * that is gone.
   */
  async missing(): Promise<string[]> {
    const gone: string[] = [];
    for (const key of this.keys) if (!(await this.target.exists(key))) gone.push(key);
    return gone;
  }

  /** The version is published: the marker goes (a crash before this leaves a marker gc clears). */
  async commit(): Promise<void> {
    await this.target.remove(this.marker);
  }

  /**
   * Undo after a failure; the original error is what the caller reports. With `refKey`, a version
   * the branch already names is kept (published). Returns whether the version was removed.
   */
  async rollback(refKey?: string): Promise<boolean> {
    for (const d of this.tempDirs) await this.target.removeTree?.(d).catch(() => undefined);
    if (refKey !== undefined) {
      const now = await readRef(this.target, refKey).catch(() => null);
      if (now === this.versionId) {
        await this.commit();
        return false;
      }
    }
    for (const key of [...this.keys].reverse()) await this.target.remove(key).catch(() => undefined);
    return true;
  }
}
