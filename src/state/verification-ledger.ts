/**
 * Files whose bytes were hashed and matched what a signed version says, remembered with the
 * identity of what was hashed (size, mtime, ctime, inode, device). A file is trusted again without
 * re-hashing only while all of those are unchanged; any change means hash again. Kept in the
 * state directory (never in the cache: wiping or filling the cache must not forge trust), written
 * atomically, loaded at startup. Also counts hashing work and mismatches for fdl.cache and metrics.
 */
import { NotRegularFileError, openRegular } from '../regular-file.js';
import { createHash } from 'node:crypto';
import { statSync, type Stats } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SqlError, SQLSTATE } from '../errors.js';
import { writeFileAtomic } from '../atomic-file.js';
import { degraded } from '../degraded.js';
import { Slots } from '../serial.js';

/** Longer than any file system's timestamp granularity we read from (ext4/xfs: a clock tick; some: 1 s). */
const RACY_MS = 2000;

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

interface Entry extends FileIdentity {
  sha256: string;
}

export interface VerificationStats {
  /** Files remembered as verified. */
  entries: number;
  /** Files hashed since start, and their bytes. */
  hashed: number;
  hashedBytes: number;
  /** Uses answered by the ledger without hashing. */
  hits: number;
  /** Files whose size or sha256 differed from what the version says. */
  mismatches: number;
}

export class VerificationLedger {
  /** Each write replaces the whole file: one at a time. */
  private readonly writes = new Slots();
  private dirty = false;
  private counters = { hashed: 0, hashedBytes: 0, hits: 0, mismatches: 0 };

  private constructor(
    private readonly file: string | null,
    private readonly entries: Map<string, Entry>,
  ) {}

  /** `file` null keeps the ledger in memory only. An unreadable ledger is started afresh (it only saves work). */
  static async open(file: string | null): Promise<VerificationLedger> {
    const entries = new Map<string, Entry>();
    if (file) {
      await mkdir(dirname(file), { recursive: true });
      try {
        const raw = JSON.parse(await readFile(file, 'utf8')) as { files?: Record<string, Entry> };
        for (const [p, e] of Object.entries(raw.files ?? {})) {
          if (
            e &&
            typeof e.sha256 === 'string' &&
            [e.size, e.mtimeMs, e.ctimeMs, e.ino, e.dev].every((n) => typeof n === 'number')
          )
            entries.set(p, e);
        }
      } catch {
        // absent or damaged: every file is hashed again before use, which is always safe
      }
    }
    return new VerificationLedger(file, entries);
  }

  /**
   * Ensures the file at `path` has `size` bytes and, when `sha256` is given, those bytes: answered
   * from the ledger while the file's identity is unchanged, else hashed (streaming) and recorded.
   * Throws XX001 naming `name` on a mismatch; the file stays untrusted until it verifies.
   * `stats`: the file's stats when the caller already took them (null: no such file).
   */
  async verify(
    path: string,
    name: string,
    expect: { size?: number; sha256?: string },
    stats?: Stats | null,
  ): Promise<void> {
    let st;
    if (stats === null) throw new SqlError(SQLSTATE.dataCorrupted, `data file missing: ${name}`);
    try {
      // synchronous: a few microseconds, where a thread-pool round trip costs ~20 µs per file and
      // statements of a local version re-stat the files they read
      st = stats ?? statSync(path);
    } catch (e) {
      throw new SqlError(SQLSTATE.dataCorrupted, `data file missing: ${name}`, (e as { code?: string }).code); // the message would quote the absolute path
    }
    if (!st.isFile()) throw new SqlError(SQLSTATE.dataCorrupted, `data file missing: ${name} is not a file`);
    if (expect.size !== undefined && st.size !== expect.size) {
      this.forget(path);
      this.counters.mismatches++;
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `size mismatch: ${name}`,
        `the file has ${st.size} bytes, the signed version says ${expect.size}`,
      );
    }
    if (!expect.sha256) return;
    const want = expect.sha256.toLowerCase();
    const known = this.entries.get(path);
    if (known && known.sha256 === want && sameIdentity(known, st)) {
      this.counters.hits++;
      return;
    }
    const got = await hashFile(path).catch((e: unknown) => {
      if (!(e instanceof NotRegularFileError)) throw e;
      this.forget(path);
      this.counters.mismatches++;
      throw new SqlError(SQLSTATE.dataCorrupted, `not a regular file: ${name}`);
    });
    this.counters.hashed++;
    this.counters.hashedBytes += got.size;
    const after = await stat(path);
    if (got.sha256 !== want || got.size !== st.size) {
      this.forget(path);
      this.counters.mismatches++;
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `sha256 mismatch: ${name}`,
        `the signed version says ${want}, the file hashes to ${got.sha256}`,
      );
    }
    // Swapped between the stat and the open (the path, or a folder above it), or changed while being
    // hashed: the bytes verified are not the file the path names; nothing may read it as verified.
    if (!sameIdentity(identity(st), got.opened) || !sameIdentity(identity(st), after)) {
      this.counters.mismatches++;
      throw new SqlError(SQLSTATE.dataCorrupted, `data file changed while it was verified: ${name}`);
    }
    // Racily clean (as git's index): a file written within the timestamp granularity of now could be
    // rewritten again with the same size and mtime; it is hashed again until its mtime is settled.
    if (Date.now() - Math.max(st.mtimeMs, st.ctimeMs) < RACY_MS) return;
    this.entries.set(path, { ...identity(st), sha256: want });
    this.schedulePersist();
  }

  /**
   * Whether `verify` would pass at once, from the stats given (the ledger's answer; the caller counts
   * its hits): decided without waiting. False when `verify` must run — to hash the file, or to say
   * why it is refused — so both give the same answer.
   */
  verifiedNow(path: string, expect: { size?: number; sha256?: string }, st: Stats | null): boolean {
    if (!st?.isFile() || (expect.size !== undefined && st.size !== expect.size)) return false;
    if (!expect.sha256) return true;
    const known = this.entries.get(path);
    return !!known && known.sha256 === expect.sha256.toLowerCase() && sameIdentity(known, st);
  }

  /** Files verifiedNow found unchanged, counted as the ledger's hits. */
  countHits(n: number): void {
    this.counters.hits += n;
  }

  /** A mismatch found elsewhere (a download), counted with the ledger's own. */
  countMismatch(): void {
    this.counters.mismatches++;
  }

  stats(): VerificationStats {
    return { entries: this.entries.size, ...this.counters };
  }

  /** Resolves when what is recorded so far is on disk. */
  async flush(): Promise<void> {
    await this.writes.idle();
  }

  private forget(path: string): void {
    if (this.entries.delete(path)) this.schedulePersist();
  }

  private schedulePersist(): void {
    const file = this.file;
    if (!file || this.dirty) return;
    this.dirty = true;
    // Coalesced: many files verified at once become one atomic write of the whole map.
    void this.writes.run(async () => {
      await new Promise((r) => setTimeout(r, 20));
      this.dirty = false;
      await writeFileAtomic(file, JSON.stringify({ files: Object.fromEntries(this.entries) })).catch((e: unknown) =>
        // nothing is trusted wrongly: files not recorded are hashed again after a restart
        degraded(
          'ledger_write',
          `cannot write the verification ledger: ${(e as { code?: string }).code ?? (e as Error).message}`,
        ),
      );
    });
  }
}

function identity(st: FileIdentity): FileIdentity {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.dev === b.dev;
}

/**
 * sha256 of a file in one streaming read, with the stats of the file opened: the bytes hashed are that
 * file's, which is not the one a stat by path saw before if a store writer swapped the path (or a folder
 * above it) in between.
 */
export async function hashFile(path: string): Promise<{ sha256: string; size: number; opened: Stats }> {
  const h = createHash('sha256');
  let size = 0;
  const fh = await openRegular(path);
  const opened = await fh.stat().catch(async (e: unknown) => {
    await fh.close();
    throw e;
  });
  for await (const chunk of fh.createReadStream({ highWaterMark: 1024 * 1024 })) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size, opened };
}
