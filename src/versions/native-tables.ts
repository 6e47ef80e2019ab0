/**
 * Which tables of a local version are built as native DuckDB tables in its views database instead of views
 * over read_parquet. DuckDB keeps the plan of a statement over a native table and runs it again in
 * 0.2–0.3 ms; over read_parquet (its multi-file reader opts out of the statement cache) every execution is
 * bound, optimized and planned again, 4–5 ms (docs/performance.md, sessions 51–52). Dashboards mostly read
 * small tables (dimensions), so the small ones are copied once, when the version's views database is built,
 * from the very SQL the view would hold (lake/tablesql.ts): the same rows, order, types and names.
 *
 * Only tables whose every file has verified (local versions read in place: versions/attach.ts) and that fit
 * the ceilings below; a remote version's tables and a local table whose files did not verify stay views.
 * The ceilings bound a copy twice: its Parquet bytes before it is made (what it reads), and its DuckDB blocks
 * once it is checkpointed (what the sessions' buffer pool keeps of it once read; lake/attach.ts
 * `nativeBlockBytes`): Parquet's encodings do not bound the second (one long value repeated).
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LakeCatalog, LakeTable } from '../lake/index.js';

/** Parquet bytes (data and delete files) of a table built as a native table, at most; and its copy's DuckDB blocks. */
export const NATIVE_TABLE_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Parquet bytes of all a version's native tables, at most, by default (`nativeTableBytes`): what its views database
 * copies; and their copies' DuckDB blocks, what the buffer pool may hold of them.
 */
export const NATIVE_VERSION_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Wall ms a version's copies may take together, in the open slot they share with every repository's first logins
 * (versions/attach.ts): Parquet bytes bound the files, not the rows they encode; a copy still running then is
 * interrupted and its table, and the rest, are views (lake/attach.ts `nativeBudgetMs`).
 */
export const NATIVE_VERSION_BUILD_MS = 5_000;

/** A table's Parquet bytes as its catalog records them (undefined: a size not known, never built). */
function parquetBytes(t: LakeTable): number | undefined {
  let n = 0;
  for (const f of t.files) {
    if (!Number.isFinite(f.size) || f.size < 0) return undefined;
    n += f.size;
  }
  return n;
}

/**
 * The tables of `catalog` to build as native tables: of those `verified` says yes to, the smallest first
 * while the version's total stays within NATIVE_VERSION_MAX_BYTES (so the most tables fit).
 */
export function nativeTables(
  catalog: LakeCatalog,
  verified: (t: LakeTable) => boolean,
  limits: { table: number; version: number } = { table: NATIVE_TABLE_MAX_BYTES, version: NATIVE_VERSION_MAX_BYTES },
): Set<LakeTable> {
  const candidates = catalog.tables
    .filter(verified)
    .map((t) => ({ t, bytes: parquetBytes(t) }))
    .filter((c): c is { t: LakeTable; bytes: number } => c.bytes !== undefined && c.bytes <= limits.table)
    .sort((a, b) => a.bytes - b.bytes);
  const chosen = new Set<LakeTable>();
  let total = 0;
  for (const c of candidates) {
    if (total + c.bytes > limits.version) break;
    total += c.bytes;
    chosen.add(c.t);
  }
  return chosen;
}

/**
 * Each file of `tables` by its identity (device, inode, size, mtime and ctime in nanoseconds), read before the
 * files are verified and again once they are copied: a store writer who swaps a file in after its hash and back
 * after the copy (a rename changes the ctime) would otherwise leave the copy holding bytes no hash saw, which the
 * per-statement re-check, finding the hashed file again, would never refuse. The folders above each file, up to
 * the repository's root, are part of it (device, inode, ctime): a folder renamed away and back leaves the file's
 * own identity untouched, but not the folder's ctime. (A publish adding files beside them meanwhile changes it
 * too: that open fails once, XX001, and the next opens the version again.)
 */
export function fileIdentities(tables: Iterable<LakeTable>, locate: (rel: string) => string): Map<string, string> {
  const ids = new Map<string, string>();
  // Files share their folders: each folder is read once a call (a table of 1,000 files in one partition folder
  // took ~5,000 stats, on the event loop, where ~1,000 do).
  const folders = new Map<string, string>();
  for (const t of tables) {
    for (const f of t.files) {
      const path = locate(f.path);
      ids.set(path, identityOf(path, f.path, folders));
    }
  }
  return ids;
}

/** The identity of `path` (a stat, 'absent' if there is none): the file's with its size and mtime, a folder's without. */
function statIdentity(path: string, folder: boolean): string {
  try {
    const st = statSync(path, { bigint: true });
    return folder ? `${st.dev}:${st.ino}:${st.ctimeNs}` : `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'absent';
  }
}

/**
 * The file's identity and its folders', `rel` its path in the data folder (its folders, the data folder, the root);
 * `folders` the folders' identities read so far in this call.
 */
function identityOf(path: string, rel: string, folders: Map<string, string>): string {
  const ids = [statIdentity(path, false)];
  let p = path;
  for (let i = 1; i <= rel.split('/').length + 1; i++) {
    p = dirname(p);
    let id = folders.get(p);
    if (id === undefined) folders.set(p, (id = statIdentity(p, true)));
    ids.push(id);
  }
  return ids.join('/');
}

/** The first file of `tables` whose identity is not the one `before` holds (undefined: none changed). */
export function changedSince(
  before: ReadonlyMap<string, string>,
  tables: Iterable<LakeTable>,
  locate: (rel: string) => string,
): string | undefined {
  const folders = new Map<string, string>();
  for (const t of tables) {
    for (const f of t.files) {
      const path = locate(f.path);
      if (before.get(path) !== identityOf(path, f.path, folders)) return f.path;
    }
  }
  return undefined;
}
