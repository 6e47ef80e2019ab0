/**
 * The JSON files of a repository (fdl.json, refs.json, version.json, expired.json), parsed
 * liberally: unknown fields are ignored, only what the reader relies on is checked.
 */
import { z } from 'zod';
import { SqlError, SQLSTATE } from '../errors.js';
import { isVersionId, refKind } from './names.js';

const sha256Hex = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .transform((s) => s.toLowerCase());
const size = z.number().int().nonnegative();

const FdlJson = z.looseObject({
  fdl: z.string(),
  id: z.string().optional(),
  data_dir: z.string().optional(),
  signers: z.array(z.string()).optional(),
});
export type FdlSettings = { fdl: string; id?: string; dataDir: string; signers: string[] };

const CatalogEntry = z.looseObject({
  path: z.string(),
  format: z.looseObject({ ducklake: z.string().optional() }),
  sha256: sha256Hex,
  size,
  snapshot_id: z.number().int().optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;

const FileEntry = z.looseObject({ sha256: sha256Hex, size });
export type FileEntry = z.infer<typeof FileEntry>;

const VersionJson = z.looseObject({
  fdl: z.string().optional(),
  id: z.string(),
  repository: z.string().optional(),
  parents: z.array(z.string()).optional(),
  created: z.string().optional(),
  author: z.string().optional(),
  message: z.string().optional(),
  catalogs: z.array(CatalogEntry).min(1),
  files: z.record(z.string(), FileEntry).optional(),
});
export type VersionRecord = z.infer<typeof VersionJson> & { parents: string[] };

/** Catalog formats this reader can open (lake/ reads DuckLake 1.0 and 0.4 catalogs). */
export const SUPPORTED_DUCKLAKE = ['1.0', '0.4'];

/** JSON.parse's own message quotes the text near the error: store content, never shown to a client. */
function parseJson(body: Buffer, what: string, sqlstate: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (e) {
    const at = /at position (\d+)/.exec((e as Error).message)?.[1];
    throw new SqlError(sqlstate, `malformed ${what}: not valid JSON${at ? ` (at byte ${at})` : ''}`);
  }
}

/** A format version as found in a file, shown only when it looks like one. */
const shownVersion = (v: string) => (/^\d{1,4}(\.\d{1,4}){0,3}$/.test(v) ? v : '(not a version number)');

/** A schema issue's path, with only names the format itself uses (an object key of the file is its content). */
function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' || (typeof p === 'string' && /^[a-z_]{1,32}$/.test(p)) ? String(p) : '…'))
    .join('.');
}

export function parseFdlJson(body: Buffer, repo: string): FdlSettings {
  const r = FdlJson.safeParse(parseJson(body, `fdl.json of repository ${repo}`, SQLSTATE.invalidCatalogName));
  if (!r.success)
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `malformed fdl.json of repository ${repo}: ${r.error.issues[0] ? `${issuePath(r.error.issues[0].path)}: ${r.error.issues[0].message}` : 'invalid'}`,
    );
  const major = r.data.fdl.split('.')[0];
  if (major !== '0') {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `unsupported fdl version ${shownVersion(r.data.fdl)} in repository ${repo} (this reader understands FDL 0.x)`,
    );
  }
  let dataDir = r.data.data_dir ?? 'data/';
  if (dataDir !== '' && !dataDir.endsWith('/')) dataDir += '/';
  const bad =
    dataDir.startsWith('/') ||
    /^[a-z][a-z0-9+.-]*:/i.test(dataDir) ||
    dataDir.includes('\\') ||
    dataDir
      .slice(0, -1)
      .split('/')
      .some((c) => c === '' || c === '.' || c === '..');
  if (dataDir !== '' && bad)
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `fdl.json of repository ${repo} has an invalid data_dir (absolute, another scheme, or a "." / ".." / empty component)`,
    );
  return { fdl: r.data.fdl, id: r.data.id, dataDir, signers: r.data.signers ?? [] };
}

/** refs.json → full ref name → version ID; names and IDs that are not valid are dropped, never used. */
export function parseRefsJson(body: Buffer): { head?: string; refs: Map<string, string> } {
  const raw = parseJson(body, 'refs.json', SQLSTATE.invalidCatalogName) as { head?: unknown; refs?: unknown };
  const refs = new Map<string, string>();
  if (raw && typeof raw.refs === 'object' && raw.refs !== null) {
    for (const [name, id] of Object.entries(raw.refs as Record<string, unknown>)) {
      if (refKind(name) && typeof id === 'string' && isVersionId(id)) refs.set(name, id);
    }
  }
  const head = typeof raw?.head === 'string' && refKind(raw.head) ? raw.head : undefined;
  return { head, refs };
}

export function parseVersionJson(body: Buffer, dirId: string): VersionRecord {
  const what = `versions/${dirId}/version.json`;
  const r = VersionJson.safeParse(parseJson(body, what, SQLSTATE.dataCorrupted));
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new SqlError(
      SQLSTATE.dataCorrupted,
      `malformed ${what}: ${issue ? `${issuePath(issue.path)}: ${issue.message}` : 'invalid'}`,
    );
  }
  if (r.data.fdl !== undefined && r.data.fdl.split('.')[0] !== '0') {
    throw new SqlError(SQLSTATE.featureNotSupported, `unsupported fdl version ${shownVersion(r.data.fdl)} in ${what}`);
  }
  return { ...r.data, parents: r.data.parents ?? [] };
}

export interface ExpiryMark {
  expired?: string;
  reason?: string;
  successor?: string;
}

/**
 * expired.json, kept to what a client may be shown: a date, a version ID, a short word-like reason.
 * Anything else in the file (or a file that is not JSON) is dropped, never echoed.
 */
export function parseExpired(body: Buffer): ExpiryMark {
  try {
    const raw = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    const date = typeof raw.expired === 'string' ? new Date(raw.expired) : null;
    const mark: ExpiryMark = {};
    if (date && !Number.isNaN(date.getTime())) mark.expired = date.toISOString().replace(/\.000Z$/, 'Z');
    if (typeof raw.reason === 'string' && REASON.test(raw.reason)) mark.reason = raw.reason;
    if (typeof raw.successor === 'string' && isVersionId(raw.successor)) mark.successor = raw.successor;
    return mark;
  } catch {
    return {}; // the marker's presence is what counts; an unreadable one still expires the version
  }
}

const REASON = /^[A-Za-z][A-Za-z0-9 ._-]{0,63}$/;

/** An expiry as recorded in the state directory (see parseExpired). */
export function isExpiryMark(v: unknown): v is ExpiryMark {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return ['expired', 'reason', 'successor'].every((k) => m[k] === undefined || typeof m[k] === 'string');
}

/** The first catalog whose DuckLake format this reader understands (spec Part 5.5). */
export function pickCatalog(rec: VersionRecord, id: string): CatalogEntry {
  const hit = rec.catalogs.find(
    (c) => c.format.ducklake !== undefined && SUPPORTED_DUCKLAKE.includes(c.format.ducklake),
  );
  if (!hit) {
    const have = rec.catalogs
      .map((c) =>
        c.format.ducklake !== undefined && /^\d{1,4}(\.\d{1,4}){0,3}$/.test(c.format.ducklake)
          ? `ducklake ${c.format.ducklake}`
          : 'another format',
      )
      .join(', ');
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `version ${id} has no catalog in a supported format (has ${have}; supported: ducklake ${SUPPORTED_DUCKLAKE.join(', ')})`,
    );
  }
  return hit;
}

/** What files.json says about one data or delete file (path relative to data_dir). */
export interface FileExpectation {
  size?: number;
  sha256?: string;
}

export interface FilesIndex {
  files: Map<string, FileExpectation>;
  /** Whether every listed data and delete file has a sha256 ('full'), some do, or none. */
  coverage: 'full' | 'partial' | 'none';
}

const SHA256 = /^[0-9a-f]{64}$/i;

/** files.json (spec Part 3, Data integrity): per data and delete file its size and sha256. */
export function parseFilesJson(body: Buffer, what: string): FilesIndex {
  const j = (parseJson(body, what, SQLSTATE.dataCorrupted) ?? {}) as { tables?: unknown };
  const files = new Map<string, FileExpectation>();
  let hashed = 0;
  const bad = (why: string) => new SqlError(SQLSTATE.dataCorrupted, `malformed ${what}: ${why}`);
  const add = (path: unknown, size: unknown, sha256: unknown, where: string) => {
    if (typeof path !== 'string') throw bad(`${where}: path is not a string`);
    if (size !== undefined && (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0))
      throw bad(`${where}: size is not a byte count`);
    if (sha256 !== undefined && (typeof sha256 !== 'string' || !SHA256.test(sha256)))
      throw bad(`${where}: sha256 is not 64 hex digits`);
    const entry: FileExpectation = {
      ...(size !== undefined ? { size: size as number } : {}),
      ...(sha256 !== undefined ? { sha256: (sha256 as string).toLowerCase() } : {}),
    };
    const seen = files.get(path);
    if (
      seen &&
      ((seen.size !== undefined && entry.size !== undefined && seen.size !== entry.size) ||
        (seen.sha256 && entry.sha256 && seen.sha256 !== entry.sha256))
    ) {
      throw bad(`${path} is listed twice with different size or sha256`);
    }
    if (!seen?.sha256 && entry.sha256) hashed++;
    files.set(path, { ...seen, ...entry });
  };
  if (j.tables !== undefined && (typeof j.tables !== 'object' || j.tables === null))
    throw bad('tables is not an object');
  for (const [table, t] of Object.entries((j.tables ?? {}) as Record<string, { files?: unknown }>)) {
    if (t?.files === undefined) continue;
    if (!Array.isArray(t.files)) throw bad(`${table}.files is not an array`);
    for (const f of t.files as Record<string, unknown>[]) {
      if (typeof f !== 'object' || f === null) throw bad(`${table}: a file entry is not an object`);
      add(f.path, f.size, f.sha256, table);
      if (f.delete_file !== undefined)
        add(f.delete_file, f.delete_file_size, f.delete_file_sha256, `${table} delete file`);
    }
  }
  return { files, coverage: hashed === 0 ? 'none' : hashed === files.size ? 'full' : 'partial' };
}
