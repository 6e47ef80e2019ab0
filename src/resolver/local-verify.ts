/**
 * A local repository's catalog proven in place: hashed once, then only a stat while its size, mtime,
 * ctime, inode and device stay the same (a changed file is hashed again), and while the folders above it
 * up to the repository's root keep their device, inode and ctime: a folder renamed away and back (another
 * catalog read in between) leaves the file's own identity untouched but changes the folder's ctime.
 * XX001 names the file.
 */
import { createHash } from 'node:crypto';
import { statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { openRegular } from '../regular-file.js';
import { SqlError, SQLSTATE } from '../errors.js';

export class LocalVerifier {
  /**
   * Local catalogs already hashed, by path → the file's fingerprint and its folders' (`folders`: the folders
   * above it up to the repository's root), so an unchanged file is not re-hashed.
   */
  private readonly verified = new Map<string, { fp: string; folders: string[] }>();

  constructor(private readonly repoName: string) {}

  /**
   * Whether the file at `path` is, by one stat, the one hashed before (same fingerprint): decided
   * without waiting. False when `verify` must run (changed, never hashed, or unreadable: it says why).
   */
  unchangedNow(path: string, sha256: string): boolean {
    const known = this.verified.get(path);
    if (known === undefined) return false;
    return known.fp === `${fingerprintNow(path, sha256)}|${foldersNow(known.folders)}`;
  }

  /** Hashes a local file unless it was hashed before and its size/mtime/ctime/inode/device did not change. */
  async verify(path: string, id: string, file: string, sha256: string, size: number): Promise<void> {
    const key = `versions/${id}/${file}`;
    let st;
    try {
      st = statSync(path); // one stat on the event loop costs less than a thread-pool round trip
    } catch (e) {
      throw new SqlError(
        SQLSTATE.ioError,
        `cannot read ${key} of repository ${this.repoName}: ${(e as { code?: string }).code ?? 'I/O error'}`,
      );
    }
    const fp = fingerprint(st, sha256);
    // versions/<id>/<file> in the repository: the folders up to its root
    const folders = foldersAbove(path, key.split('/').length);
    const placed = foldersNow(folders);
    if (this.verified.get(path)?.fp === `${fp}|${placed}`) return;
    if (st.size !== size)
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `size mismatch: ${file} of version ${id} in repository ${this.repoName}`,
        `${key} has ${st.size} bytes, version.json says ${size}`,
      );
    const fh = await openRegular(path).catch((e: unknown) => {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `cannot read ${key} of repository ${this.repoName}: ${(e as { code?: string }).code ?? 'I/O error'}`,
      );
    });
    // the bytes hashed are the opened file's: a path swapped after the stat above is another file
    const opened = await fh.stat().then(
      (s) => fingerprint(s, sha256),
      async (e: unknown) => {
        await fh.close();
        throw e;
      },
    );
    const h = createHash('sha256');
    for await (const chunk of fh.createReadStream()) h.update(chunk as Buffer);
    const got = h.digest('hex');
    if (got !== sha256)
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `sha256 mismatch: ${file} of version ${id} in repository ${this.repoName}`,
        `${key}: version.json says ${sha256}, the file hashes to ${got}`,
      );
    // the path must still name the file hashed, unchanged while it was read: else a store writer swapped
    // it (or a folder above it) and the bytes verified are not those the path gives
    if (opened !== fp || fingerprintNow(path, sha256) !== fp || foldersNow(folders) !== placed)
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `${file} of version ${id} in repository ${this.repoName} changed while it was verified`,
      );
    this.verified.set(path, { fp: `${fp}|${placed}`, folders });
  }
}

/** A file's identity (size, mtime, ctime, inode, device) with the hash it must have. */
function fingerprint(st: Stats, sha256: string): string {
  return `${st.size}-${st.mtimeMs}-${st.ctimeMs}-${st.ino}-${st.dev}-${sha256}`;
}

/** The fingerprint of what `path` names now; undefined when it cannot be stat'ed. */
function fingerprintNow(path: string, sha256: string): string | undefined {
  try {
    return fingerprint(statSync(path), sha256);
  } catch {
    return undefined;
  }
}

/** The `n` folders above `path`, nearest first. */
function foldersAbove(path: string, n: number): string[] {
  const out: string[] = [];
  for (let p = dirname(path); out.length < n; p = dirname(p)) out.push(p);
  return out;
}

/** The folders' device, inode and ctime now (a rename changes a folder's ctime, a return does not undo it). */
function foldersNow(folders: readonly string[]): string {
  return folders
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.dev}-${st.ino}-${st.ctimeMs}`;
      } catch {
        return 'absent';
      }
    })
    .join('/');
}
