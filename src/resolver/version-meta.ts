/**
 * What a version is before its catalog is fetched: version.json (read once, kept for good), its
 * signature judged against the trusted keys, and the side files version.json lists by hash
 * (files.json, dataset.json), each read once through one memoized loader.
 */
import { createHash } from 'node:crypto';
import { SqlError, SQLSTATE } from '../errors.js';
import type { ObjectStore } from '../store/store.js';
import type { Freshness, RefCache } from '../cache/ref-cache.js';
import { isVersionId } from './names.js';
import { parseFilesJson, parseVersionJson, type FdlSettings, type FilesIndex, type VersionRecord } from './records.js';
import { verifySshsig, type SignatureStatus, type TrustedSigner } from './sshsig.js';

const MAX_VERSION_JSON = 4 * 1024 * 1024;
export const MAX_SIG = 64 * 1024;
const MAX_DATASET = 16 * 1024 * 1024;
const MAX_FILES_JSON = 256 * 1024 * 1024;

export interface VersionMeta {
  bytes: Buffer;
  record: VersionRecord;
  signature: SignatureStatus;
}

export class VersionMetas {
  private readonly metas = new Map<string, Promise<VersionMeta>>();
  private readonly versionBytes = new Map<string, Buffer>();
  private readonly datasets = new Map<string, Promise<unknown>>();
  private readonly indexes = new Map<string, Promise<FilesIndex | null>>();

  constructor(
    private readonly repoName: string,
    private readonly store: ObjectStore,
    private readonly refs: RefCache,
    private readonly settings: FdlSettings,
    private readonly trusted: TrustedSigner[],
  ) {}

  /** version.json present = version complete (spec Part 3). Positive answers are kept forever. */
  async exists(id: string, seen?: Freshness): Promise<boolean> {
    return (await this.readVersionBytes(id, seen)) !== null;
  }

  private async readVersionBytes(id: string, seen?: Freshness): Promise<Buffer | null> {
    const known = this.versionBytes.get(id);
    if (known) return known;
    const body = await this.refs.get(this.store, `versions/${id}/version.json`, MAX_VERSION_JSON, seen);
    if (body !== null) this.versionBytes.set(id, body);
    return body;
  }

  /** version.json parsed, checked to be this repository's, and its signature judged. */
  meta(id: string): Promise<VersionMeta> {
    return memoized(this.metas, id, () => this.loadMeta(id));
  }

  private async loadMeta(id: string): Promise<VersionMeta> {
    if (!isVersionId(id))
      throw new SqlError(SQLSTATE.invalidCatalogName, `unknown version ${JSON.stringify(id)}: not a version ID`);
    const bytes = await this.readVersionBytes(id);
    if (bytes === null)
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `unknown version ${id} in repository ${this.repoName} (versions/${id}/version.json does not exist)`,
      );
    const record = parseVersionJson(bytes, id);
    if (record.id !== id) {
      throw new SqlError(SQLSTATE.dataCorrupted, `version id mismatch: versions/${id}/version.json gives another id`);
    }
    if (record.repository !== undefined && this.settings.id !== undefined && record.repository !== this.settings.id) {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `repository mismatch: versions/${id}/version.json belongs to another repository than the id in fdl.json of ${this.repoName}`,
      );
    }
    const signature = await this.signatureOf(`versions/${id}/version.json.sig`, bytes);
    return { bytes, record, signature };
  }

  /**
   * `bytes` judged against the signature stored at `sigKey`. valid-after/valid-before are judged
   * now: `created` is whatever the signer wrote, so judging at it would let a key past its
   * valid-before sign a backdated version (a revoked key verifies nothing new).
   */
  async signatureOf(sigKey: string, bytes: Buffer): Promise<SignatureStatus> {
    const sig = await this.store.get(sigKey, { maxBytes: MAX_SIG });
    const armored = sig === null || sig === 'not-modified' ? null : sig.body;
    return verifySshsig(bytes, armored, this.trusted, { namespace: 'fdl', time: new Date() });
  }

  /** files.json of a version, checked against version.json's hash; null when the version has none. */
  filesIndex(id: string, record: VersionRecord): Promise<FilesIndex | null> {
    const entry = record.files?.['files.json'];
    if (!entry) return Promise.resolve(null);
    return memoized(this.indexes, id, async () => {
      const key = `versions/${id}/files.json`;
      return parseFilesJson(await this.sideFile(key, entry, MAX_FILES_JSON), key);
    });
  }

  /** dataset.json when version.json lists it (hash-checked), else null. */
  dataset(id: string, record: VersionRecord): Promise<unknown> {
    const entry = record.files?.['dataset.json'];
    if (!entry) return Promise.resolve(null);
    return memoized(this.datasets, id, async () => {
      const key = `versions/${id}/dataset.json`;
      const body = await this.sideFile(key, entry, MAX_DATASET);
      try {
        return JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        throw new SqlError(SQLSTATE.dataCorrupted, `malformed ${key}: not valid JSON`); // the parser's message quotes the file
      }
    });
  }

  /** A file version.json lists: read within its listed size (and `max`), its bytes checked against the listed hash. */
  private async sideFile(key: string, entry: { sha256: string; size: number }, max: number): Promise<Buffer> {
    const res = await this.store.get(key, { maxBytes: Math.min(entry.size + 1, max) });
    if (res === null || res === 'not-modified')
      throw new SqlError(SQLSTATE.dataCorrupted, `${key} is listed in version.json but missing`);
    checkBytes(res.body, entry, key);
    return res.body;
  }
}

/** One load per key, kept for good; a failure (I/O, absent) is not kept, so the next asks again. */
function memoized<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    p = load();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

function checkBytes(body: Buffer, entry: { sha256: string; size: number }, key: string): void {
  if (body.length !== entry.size)
    throw new SqlError(
      SQLSTATE.dataCorrupted,
      `size mismatch: ${key} has ${body.length} bytes, version.json says ${entry.size}`,
    );
  const got = createHash('sha256').update(body).digest('hex');
  if (got !== entry.sha256)
    throw new SqlError(
      SQLSTATE.dataCorrupted,
      `sha256 mismatch: ${key}`,
      `version.json says ${entry.sha256}, the file hashes to ${got}`,
    );
}
