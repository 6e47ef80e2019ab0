/**
 * The temp spill ceiling on every path. DuckDB's own max_temp_directory_size holds for a spilling
 * aggregate but not for a window's sort (measured: 538 MB written against 50MB), so a watchdog
 * measures DuckDB's temp directory and, once it holds more than the limit, calls `onExceeded`:
 * the gateway ends idle sessions' suspended results (their spilled temp) first, then stops the
 * statements running now, each with 53100 naming the limit. DuckDB deletes their temp files itself.
 *
 * Cheap by construction: an idle gateway has no temp files, and a poll that finds none is one synchronous
 * readdir per folder on the event loop (≈ 20 µs of CPU, no thread hop); only while files are there, one
 * readdir and a stat per temp file on libuv's pool every `pollMs` (≈ 200 µs of CPU and five pool tasks
 * a poll with two folders), never two at once.
 */
import { readdirSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { degraded } from '../degraded.js';

/** Size with DuckDB's units: KB/MB/GB/TB are decimal, KiB/MiB/GiB/TiB binary, no unit is MB. */
export function parseByteSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b|bytes)?\s*$/i.exec(text);
  if (!m) throw new Error(`not a size: ${JSON.stringify(text)} (e.g. 10GB, 300MiB)`);
  const unit = (m[2] ?? 'mb').toLowerCase();
  if (unit === 'b' || unit === 'bytes') return Math.floor(Number(m[1]));
  const power = 'kmgt'.indexOf(unit[0]!) + 1;
  const base = unit.includes('i') ? 1024 : 1000;
  return Math.floor(Number(m[1]) * base ** power);
}

/**
 * Bytes on disk under `dir`: files directly in it and in its folders (one per repository's DuckDB
 * instance, each writing its files flat); 0 when it does not exist.
 */
export async function directoryBytes(dir: string, depth = 1): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    // absent: nothing written yet; unreadable: the ceiling cannot see, and must say so
    if ((e as { code?: string }).code !== 'ENOENT')
      degraded(
        'temp_dir_unreadable',
        `cannot read the temp directory (the temp ceiling does not see it): ${(e as { code?: string }).code ?? (e as Error).message}`,
      );
    return 0;
  }
  let total = 0;
  for (const name of names) {
    const st = await stat(join(dir, name)).catch(() => null);
    // Disk in use, not the apparent size: DuckDB's temp files may be sparse.
    if (st?.isFile()) total += st.blocks * 512;
    else if (st?.isDirectory() && depth > 0) total += await directoryBytes(join(dir, name), depth - 1);
  }
  return total;
}

/**
 * Whether `dir` certainly holds no file where directoryBytes counts (it, or its folders to `depth`), read
 * by their entries' types alone, synchronously: a folder of a few entries reads in microseconds. Any
 * entry that is not a plain folder (a file, a link, a type the file system does not report) or a folder
 * that cannot be read says no: directoryBytes measures then, and reports what it cannot read.
 */
export function holdsNoFiles(dir: string, depth = 1): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return (e as { code?: string }).code === 'ENOENT';
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) return false;
    if (depth > 0 && !holdsNoFiles(join(dir, entry.name), depth - 1)) return false;
  }
  return true;
}

export interface TempCeilingOptions {
  dir: string;
  /** The configured ceiling as written (`10GB`): named in the error. */
  limit: string;
  /** Told when the directory holds more than the limit; again at the next poll while it still does. */
  onExceeded: (usedBytes: number) => void;
  /** Told at each poll that finds the directory within the limit. */
  onWithin?: () => void;
  pollMs?: number;
}

export class TempCeiling {
  readonly limitBytes: number;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  /** Highest use seen since start (for tests and the status page). */
  peakBytes = 0;

  constructor(private readonly opts: TempCeilingOptions) {
    this.limitBytes = parseByteSize(opts.limit);
  }

  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs ?? 50);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * One measurement; calls onExceeded when over the limit. Answered without a promise when no temp
   * file is there (the idle gateway's every poll), so no pool thread wakes for it.
   */
  poll(): number | Promise<number> {
    if (this.polling) return 0;
    if (holdsNoFiles(this.opts.dir)) {
      this.opts.onWithin?.();
      return 0;
    }
    return this.measure();
  }

  private async measure(): Promise<number> {
    this.polling = true;
    try {
      const used = await directoryBytes(this.opts.dir);
      if (used > this.peakBytes) this.peakBytes = used;
      if (used > this.limitBytes) this.opts.onExceeded(used);
      else this.opts.onWithin?.();
      return used;
    } finally {
      this.polling = false;
    }
  }
}
