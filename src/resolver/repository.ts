/**
 * One FDL repository on one store: fdl.json, ref resolution (spec Part 2) and opening verified
 * versions (Parts 3–5). Names are validated before any key is built; refs are read through a
 * short-TTL cache with ETag revalidation; everything under versions/<id>/ is cached forever.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqlError, SQLSTATE, isSqlError } from '../errors.js';
import { checkKey, type ObjectStore } from '../store/store.js';
import { FileCache, type Lease } from '../cache/file-cache.js';
import { RefCache, type Freshness } from '../cache/ref-cache.js';
import { TagLedger } from '../cache/tag-ledger.js';
import { StateMap } from '../cache/state-map.js';
import { VerificationLedger } from '../cache/verification-ledger.js';
import { isValidShortName, isVersionId, parseRefFile, refKind, invalidRefName, type RefKind } from './names.js';
import { parseExpired, isExpiryMark, parseFdlJson, parseFilesJson, parseRefsJson, parseVersionJson, pickCatalog, type CatalogEntry, type ExpiryMark, type FdlSettings, type FilesIndex, type VersionRecord } from './records.js';
import { parseAllowedSigners, verifySshsig, type SignatureStatus, type TrustedSigner } from './sshsig.js';

export type SignaturePolicy = 'require' | 'prefer' | 'off';
/** require: refuse a version whose files.json lacks a sha256 for a file it reads; prefer: check what is there. */
export type DataHashPolicy = 'require' | 'prefer';

/** A file whose bytes differ from what its signed version says (for logs and counters). */
export interface IntegrityFailure {
  repository: string;
  version: string;
  /** Path relative to the repository root. */
  file: string;
  message: string;
}

export interface RepositoryOptions {
  /** Default 'prefer': serve unsigned/untrusted versions but report them. */
  signatures?: SignaturePolicy;
  /** Path of an OpenSSH allowed_signers file: the only source of trusted keys. */
  allowedSigners?: string;
  /** Where remote files live when no fileCache is given. */
  cacheDir?: string;
  /** Where the tag ledger lives (default `<cacheDir>.state`; in memory when neither is given). */
  stateDir?: string;
  /** Default 'prefer'. */
  dataHashes?: DataHashPolicy;
  /** Local files already hashed (shared between repositories; in memory when not given). */
  verification?: VerificationLedger;
  /** Told about every file that fails verification. */
  onIntegrityFailure?: (f: IntegrityFailure) => void;
  /** TTL of ref reads (default 2000 ms); 0 re-reads (conditionally) every time. */
  refTtlMs?: number;
  /** Disk cache for files of remote stores; shared between repositories. */
  fileCache?: FileCache;
  /** Ref cache; shared between repositories when given. */
  refCache?: RefCache;
}

/** Where a remote fetch stands: files and bytes done of those asked for. */
export interface DownloadProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
  elapsedMs: number;
}

export interface Resolution {
  requested: string;
  /** Full ref name (refs/heads/main), or null when a version ID was given. */
  ref: string | null;
  kind: RefKind | 'version';
  versionId: string;
}

export interface RefInfo {
  name: string;
  kind: RefKind;
  versionId: string;
}

export interface DataFile {
  path: string;
  size?: number;
}

export type DataCoverage = FilesIndex['coverage'];

export interface VerifiedVersion {
  readonly id: string;
  /** version.json as parsed (parents, created, author, message, catalogs, files, unknown fields kept). */
  readonly version: VersionRecord;
  readonly catalog: CatalogEntry;
  /** Local path of the verified catalog (in place for local stores, in the file cache otherwise). */
  readonly catalogFile: string;
  /** dataset.json when version.json lists it (hash-checked), else null. */
  readonly dataset: unknown;
  readonly signature: SignatureStatus;
  readonly dataDir: string;
  /** Local path of a data file given relative to <root>/<data_dir>. */
  locate(rel: string): string;
  /**
   * Makes the files readable and proves their bytes are the signed ones (size, and sha256 where
   * files.json has it): remote files are downloaded (hashed while downloading) and pinned, local
   * files hashed unless the verification ledger knows them unchanged. Throws XX001 naming the file.
   */
  ensureFiles(files: DataFile[], onProgress?: (p: DownloadProgress) => void): Promise<Lease>;
  /**
   * Remote files: pins those already in the file cache (no download) and names the others
   * (paths as given). Local files are always present.
   */
  holdCached(files: DataFile[]): Promise<{ lease: Lease; missing: Set<string> }>;
  /** Local repositories: proves the catalog in place is still the verified one (a stat; hashed again if changed). */
  recheckCatalog(): Promise<void>;
  /** Releases the pin on the catalog file (and files ensured through this handle). */
  close(): void;
}

/** What is known about a version without fetching its catalog (history, fdl.versions). */
export interface VersionInfo {
  id: string;
  version: VersionRecord;
  signature: SignatureStatus;
  /** unsigned: trusted keys are configured but expired.json is not signed by one (honoured, not recorded). */
  expired: { expired?: string; reason?: string; successor?: string; unsigned?: boolean } | null;
}

const MAX_REF = 4096;
/** Resolutions remembered at once (requested names are the clients'; valid ones are few). */
const MAX_RESOLUTIONS = 1024;
const MAX_REFS_JSON = 8 * 1024 * 1024;
const MAX_VERSION_JSON = 4 * 1024 * 1024;
const MAX_SIG = 64 * 1024;
const MAX_DATASET = 16 * 1024 * 1024;
const MAX_FILES_JSON = 256 * 1024 * 1024;
/** Versions walked at most to prove that a branch moved forward (a longer history is refused, not trusted). */
const MAX_ANCESTRY = 100_000;

/** What the gateway must not forget when the store changes under it (kept in the state directory). */
export interface RepositoryState {
  /** branch → the newest version this gateway served on it (its high-water mark). */
  branches: StateMap<string>;
  /** version → the expiry it was seen with; deleting expired.json later changes nothing. */
  expiries: StateMap<ExpiryMark>;
}

const sha256Hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface VersionMeta {
  bytes: Buffer;
  record: VersionRecord;
  signature: SignatureStatus;
  dataset?: unknown;
}

export class Repository {
  readonly refs: RefCache;
  private readonly metas = new Map<string, Promise<VersionMeta>>();
  private readonly versionBytes = new Map<string, Buffer>();
  private readonly datasets = new Map<string, Promise<unknown>>();
  private readonly indexes = new Map<string, Promise<FilesIndex | null>>();
  /** Local catalogs already hashed, by path → stat fingerprint, so an unchanged file is not re-hashed. */
  private readonly verifiedLocal = new Map<string, string>();
  private refsDir: { present: boolean; at: number } | null = null;
  /** Resolutions while every read they depend on is within the ref TTL: one resolution per TTL, not per statement. */
  private readonly resolutions = new Map<string, { res: Resolution; seen: Freshness }>();

  constructor(
    readonly name: string,
    readonly store: ObjectStore,
    readonly settings: FdlSettings,
    readonly policy: SignaturePolicy,
    private readonly trusted: TrustedSigner[],
    readonly trustWarnings: string[],
    private readonly ledger: TagLedger,
    private readonly fileCache: FileCache | null,
    refCache: RefCache,
    readonly dataHashes: DataHashPolicy,
    private readonly verification: VerificationLedger,
    private readonly onIntegrityFailure: (f: IntegrityFailure) => void,
    private readonly state: RepositoryState,
  ) {
    this.refs = refCache;
  }

  get id(): string | undefined {
    return this.settings.id;
  }

  get dataDir(): string {
    return this.settings.dataDir;
  }

  // ------------------------------------------------------------------ refs

  /**
   * Spec Part 2: the first rule that matches decides. A resolution is reused while every ref it read
   * is within the ref TTL, so it is never staler than reading the refs themselves would be.
   * `shown`: which refs an unknown-ref hint may name (a user limited by grants sees only theirs).
   */
  async resolve(requested: string, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    const known = this.resolutions.get(requested);
    if (known && this.refs.isFresh(known.seen)) return known.res;
    const seen = this.refs.freshness();
    const res = await this.resolveNow(requested, seen, shown);
    if (this.resolutions.size >= MAX_RESOLUTIONS) this.resolutions.clear(); // names are the clients'
    this.resolutions.set(requested, { res, seen });
    return res;
  }

  /** The version `requested` resolves to while its last resolution is fresh (no read, no wait), else undefined. */
  freshVersion(requested: string): string | undefined {
    const known = this.resolutions.get(requested);
    return known && this.refs.isFresh(known.seen) ? known.res.versionId : undefined;
  }

  private async resolveNow(requested: string, seen: Freshness, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    const name = requested;
    if (name === '' || name === 'HEAD') return this.resolveHead(requested, seen, shown);
    if (name.startsWith('refs/')) return this.resolveFull(name, requested, seen, shown);
    if (/^(heads|tags|requests)\//.test(name)) return this.resolveFull(`refs/${name}`, requested, seen, shown);
    if (isVersionId(name) && (await this.versionExists(name, seen))) {
      return { requested, ref: null, kind: 'version', versionId: name };
    }
    if (!isValidShortName(name) || !refKind(`refs/heads/${name}`) || !refKind(`refs/tags/${name}`)) throw invalidRefName(name);
    const head = `refs/heads/${name}`;
    const tag = `refs/tags/${name}`;
    const [h, t] = await Promise.all([this.readRef(head, seen), this.readRef(tag, seen)]);
    if (h !== null && t !== null) {
      throw new SqlError(SQLSTATE.invalidCatalogName, `ambiguous ref: ${head}, ${tag} ("${name}" in repository ${this.name})`, `${head} -> ${h}, ${tag} -> ${t}`, `use heads/${name} or tags/${name}`);
    }
    if (h !== null) return this.finish(requested, head, 'branch', h, seen);
    if (t !== null) return this.finish(requested, tag, 'tag', t, seen);
    const byPrefix = await this.versionByPrefix(name, shown);
    if (byPrefix !== null) return { requested, ref: null, kind: 'version', versionId: byPrefix };
    const tried = [...(isVersionId(name) ? [`versions/${name}/version.json`] : []), head, tag];
    throw new SqlError(SQLSTATE.invalidCatalogName, `unknown ref "${name}" in repository ${this.name} (tried ${tried.join(', ')})`, undefined, await this.refsHint(shown));
  }

  private async resolveFull(full: string, requested: string, seen: Freshness, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    const kind = refKind(full);
    if (!kind) throw invalidRefName(requested);
    const id = await this.readRef(full, seen);
    if (id === null) throw new SqlError(SQLSTATE.invalidCatalogName, `unknown ref "${requested}" in repository ${this.name} (tried ${full})`, undefined, await this.refsHint(shown));
    return this.finish(requested, full, kind, id, seen);
  }

  private async resolveHead(requested: string, seen: Freshness, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    const body = await this.refs.get(this.store, 'HEAD', MAX_REF, seen);
    let target = 'refs/heads/main';
    if (body !== null) {
      const text = body.toString('utf8').trim();
      const m = /^ref:\s*(\S+)$/.exec(text);
      if (m && refKind(m[1]!)) target = m[1]!;
      else if (isVersionId(text)) {
        // detached HEAD, accepted liberally — but, like a branch, only ever forward (an attacker's review rolled it back)
        const r = await this.finish(requested, null, 'version', text, seen);
        await this.checkForward('HEAD', text);
        return r;
      }
      else throw new SqlError(SQLSTATE.invalidCatalogName, `malformed ref HEAD in repository ${this.name}: expected "ref: refs/heads/<name>" or a version ID`, `the file has ${body.length} bytes`);
    }
    const id = await this.readRef(target, seen);
    if (id === null) throw new SqlError(SQLSTATE.invalidCatalogName, `unknown ref "${target}" (HEAD) in repository ${this.name}`, undefined, await this.refsHint(shown));
    return this.finish(requested, target, refKind(target)!, id, seen);
  }

  private async finish(requested: string, ref: string | null, kind: RefKind | 'version', versionId: string, seen?: Freshness): Promise<Resolution> {
    if (!(await this.versionExists(versionId, seen))) {
      throw new SqlError(SQLSTATE.invalidCatalogName, `dangling ref: ${ref ?? 'HEAD'} -> ${versionId} in repository ${this.name} (versions/${versionId}/version.json does not exist)`);
    }
    if (kind === 'tag' && ref) await this.ledger.check(ref, versionId, this.name);
    // Branches and review requests move, and only forward; tags never move (the ledger above).
    if ((kind === 'branch' || kind === 'request') && ref) await this.checkForward(ref, versionId);
    return { requested, ref, kind, versionId };
  }

  /**
   * A branch (a request, a detached HEAD) only moves forward: once it was served at version V, it must resolve to V or to a
   * version that descends from V, else a store writer could move it back to an older signed version.
   * The mark is recorded for trusted (G) versions only: an unsigned version a store writer wrote can
   * never pin a branch, and without trusted keys (where a store writer can publish anything) there
   * is no mark.
   */
  private async checkForward(ref: string, versionId: string): Promise<void> {
    const mark = this.state.branches.get(ref);
    if (mark !== undefined && mark !== versionId && !(await this.descendsFrom(versionId, mark))) {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `${ref === 'HEAD' ? 'HEAD' : ref.startsWith('refs/requests/') ? `request ${ref}` : `branch ${ref}`} of repository ${this.name} moved back: it no longer leads to version ${mark}, which this gateway served on it; refusing it as a rollback`,
        `the state directory records ${ref} at ${mark}; a branch may only move to that version or one of its descendants (version.json parents)`,
        'if the branch was reset on purpose, remove its entry from the branch ledger in the state directory',
      );
    }
    if (mark === versionId) return;
    let meta: VersionMeta;
    try {
      meta = await this.meta(versionId);
    } catch (e) {
      if (isSqlError(e) && (e.sqlstate === SQLSTATE.invalidCatalogName || e.sqlstate === SQLSTATE.dataCorrupted)) return; // opening it reports why; nothing is recorded
      throw e;
    }
    if (meta.signature.status === 'G') await this.state.branches.set(ref, versionId);
  }

  /**
   * Whether `ancestor` is `id` or reached from it by parent links. Past `id` itself only the links
   * of trusted (G) versions are followed when keys are configured: a store writer can write any
   * unsigned version.json, and a forged parent link must not bridge an old signed version to the mark.
   */
  private async descendsFrom(id: string, ancestor: string): Promise<boolean> {
    const queue = [id];
    const seen = new Set(queue);
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
      if (v === ancestor) return true;
      let meta: VersionMeta;
      try {
        meta = await this.meta(v);
      } catch (e) {
        if (isSqlError(e) && (e.sqlstate === SQLSTATE.invalidCatalogName || e.sqlstate === SQLSTATE.dataCorrupted)) continue; // absent or unusable: a dead end
        throw e;
      }
      if (v !== id && this.trusted.length > 0 && meta.signature.status !== 'G') continue;
      for (const p of meta.record.parents) {
        if (seen.has(p) || !isVersionId(p)) continue;
        if (seen.size >= MAX_ANCESTRY) return false;
        seen.add(p);
        queue.push(p);
      }
    }
    return false;
  }

  /** A ref's version ID, or null when it does not exist. A ref file wins over refs.json. */
  private async readRef(full: string, seen?: Freshness): Promise<string | null> {
    const body = await this.refs.get(this.store, full, MAX_REF, seen);
    if (body !== null) return parseRefFile(body, full);
    if (!(await this.useRefsJson(seen))) return null;
    return (await this.refsJson(seen))?.refs.get(full) ?? null;
  }

  /** refs.json is the index for stores that cannot list, and the fallback when refs/ is absent. */
  private async useRefsJson(seen?: Freshness): Promise<boolean> {
    if (!this.store.list) return true;
    const now = Date.now();
    if (!this.refsDir || now - this.refsDir.at >= this.refs.ttlMs) {
      this.refsDir = { present: (await this.store.list('refs/')).length > 0, at: now };
    }
    this.refs.narrow(seen, this.refsDir.at);
    return !this.refsDir.present;
  }

  private async refsJson(seen?: Freshness): Promise<{ head?: string; refs: Map<string, string> } | null> {
    const body = await this.refs.get(this.store, 'refs.json', MAX_REFS_JSON, seen);
    return body === null ? null : parseRefsJson(body);
  }

  /** Every valid ref whose version exists (malformed, invalid and dangling refs are left out). */
  async listRefs(): Promise<RefInfo[]> {
    const out: RefInfo[] = [];
    for (const name of await this.refNames()) {
      try {
        const id = await this.readRef(name);
        if (id !== null && (await this.versionExists(id))) out.push({ name, kind: refKind(name)!, versionId: id });
      } catch (e) {
        if (!isSqlError(e) || e.sqlstate !== SQLSTATE.invalidCatalogName) throw e;
      }
    }
    return out;
  }

  /** Names only (no per-ref reads), so an error message costs at most one listing. */
  private async refNames(): Promise<string[]> {
    if (this.store.list && !(await this.useRefsJson())) return (await this.store.list('refs/')).filter((k) => refKind(k));
    return [...((await this.refsJson())?.refs.keys() ?? [])].sort();
  }

  private async refsHint(visible?: (fullRef: string) => boolean): Promise<string | undefined> {
    try {
      const refs = (await this.refNames()).filter((r) => !visible || visible(r));
      if (refs.length === 0) return undefined;
      const shown = refs.slice(0, 12).map((r) => r.replace(/^refs\//, ''));
      return `available refs: ${shown.join(', ')}${refs.length > shown.length ? ', …' : ''}`;
    } catch {
      return undefined;
    }
  }

  // ------------------------------------------------------------------ versions

  /** version.json present = version complete (spec Part 3). Positive answers are kept forever. */
  /**
   * Git's short IDs: a name that is no ref and holds at least 8 hex digits (dashes allowed) names
   * the one complete version whose ID starts with it; two or more are 3D000, listing only those
   * `shown` lets the client see. Versions are those the store lists, else those the refs name.
   */
  private async versionByPrefix(name: string, shown?: (fullRef: string) => boolean): Promise<string | null> {
    if (!/^[0-9a-f][0-9a-f-]*$/.test(name) || name.replace(/-/g, '').length < 8) return null;
    const ids = this.store.list
      ? (await this.store.list('versions/')).map((k) => /^versions\/([^/]+)\/version\.json$/.exec(k)?.[1]).filter((id): id is string => id !== undefined)
      : (await this.listRefs()).map((r) => r.versionId);
    const matches = [...new Set(ids.filter((id) => id.startsWith(name) && isVersionId(id)))].sort();
    if (matches.length === 1) return (await this.versionExists(matches[0]!)) ? matches[0]! : null;
    if (matches.length === 0) return null;
    const visible = matches.filter((id) => !shown || shown(`versions/${id}`));
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `ambiguous version ID prefix "${name}" in repository ${this.name}: ${matches.length} versions start with it`,
      visible.length ? `candidates: ${visible.join(', ')}` : undefined,
      'give more digits of the version ID',
    );
  }

  private async versionExists(id: string, seen?: Freshness): Promise<boolean> {
    return (await this.readVersionBytes(id, seen)) !== null;
  }

  private async readVersionBytes(id: string, seen?: Freshness): Promise<Buffer | null> {
    const known = this.versionBytes.get(id);
    if (known) return known;
    const body = await this.refs.get(this.store, `versions/${id}/version.json`, MAX_VERSION_JSON, seen);
    if (body !== null) this.versionBytes.set(id, body);
    return body;
  }

  private meta(id: string): Promise<VersionMeta> {
    let p = this.metas.get(id);
    if (!p) {
      p = this.loadMeta(id);
      this.metas.set(id, p);
      p.catch(() => this.metas.delete(id)); // failures (I/O, absent) are not cached
    }
    return p;
  }

  private async loadMeta(id: string): Promise<VersionMeta> {
    if (!isVersionId(id)) throw new SqlError(SQLSTATE.invalidCatalogName, `unknown version ${JSON.stringify(id)}: not a version ID`);
    const bytes = await this.readVersionBytes(id);
    if (bytes === null) throw new SqlError(SQLSTATE.invalidCatalogName, `unknown version ${id} in repository ${this.name} (versions/${id}/version.json does not exist)`);
    const record = parseVersionJson(bytes, id);
    if (record.id !== id) {
      throw new SqlError(SQLSTATE.dataCorrupted, `version id mismatch: versions/${id}/version.json gives another id`);
    }
    if (record.repository !== undefined && this.settings.id !== undefined && record.repository !== this.settings.id) {
      throw new SqlError(SQLSTATE.dataCorrupted, `repository mismatch: versions/${id}/version.json belongs to another repository than the id in fdl.json of ${this.name}`);
    }
    const signature = await this.checkSignature(id, bytes);
    return { bytes, record, signature };
  }

  private async checkSignature(id: string, bytes: Buffer): Promise<SignatureStatus> {
    const sig = await this.store.get(`versions/${id}/version.json.sig`, { maxBytes: MAX_SIG });
    const armored = sig === null || sig === 'not-modified' ? null : sig.body;
    // valid-after/valid-before are judged now: `created` is whatever the signer wrote, so judging at it
    // would let a key past its valid-before sign a backdated version (a revoked key verifies nothing new)
    return verifySshsig(bytes, armored, this.trusted, { namespace: 'fdl', time: new Date() });
  }

  /**
   * Once seen, an expiry is recorded in the state directory: deleting expired.json does not
   * un-expire a version. With trusted keys only a signed expiry is recorded (expired.json.sig by a
   * trusted key, naming this version): an unsigned one is honoured while the file is there, so a
   * store writer can neither make a forged expiry permanent nor lift a signed one.
   */
  private async expiry(id: string): Promise<VersionInfo['expired']> {
    const known = this.state.expiries.get(id);
    if (known) return known;
    const body = await this.refs.get(this.store, `versions/${id}/expired.json`, MAX_REF * 16);
    if (body === null) return null;
    const mark = parseExpired(body);
    if (this.trusted.length > 0 && !(await this.expirySigned(id, body))) return { ...mark, unsigned: true };
    await this.state.expiries.set(id, mark);
    return mark;
  }

  private async expirySigned(id: string, body: Buffer): Promise<boolean> {
    let names: unknown;
    try {
      names = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    } catch {
      return false;
    }
    if (names !== id) return false; // a signed expiry of another version, copied here
    const sig = await this.store.get(`versions/${id}/expired.json.sig`, { maxBytes: MAX_SIG });
    const armored = sig === null || sig === 'not-modified' ? null : sig.body;
    return verifySshsig(body, armored, this.trusted, { namespace: 'fdl', time: new Date() }).status === 'G';
  }

  /** Metadata, signature status and expiry, without fetching the catalog and without refusing. */
  async describeVersion(id: string): Promise<VersionInfo> {
    const meta = await this.meta(id);
    return { id, version: meta.record, signature: meta.signature, expired: await this.expiry(id) };
  }

  /** Spec Part 5, steps 3–6: everything checked before the catalog path is handed out. */
  /**
   * Refuses a version that has expired (expired.json, read through the ref cache: a version
   * attached for a while is re-checked at most a ref TTL after the file appears).
   */
  async checkNotExpired(id: string): Promise<void> {
    const expired = await this.expiry(id);
    if (!expired) return;
    const date = expired.expired ?? 'an unknown date';
    const succ = expired.successor ? `, successor ${expired.successor}` : '';
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `version ${id} expired ${date}${succ}: its retention has passed and it can no longer be queried`,
      [expired.reason ? `reason: ${expired.reason}` : '', expired.unsigned ? 'the expiry is not signed by a trusted key: honoured while expired.json is there, not remembered' : ''].filter(Boolean).join('; ') || undefined,
      expired.successor ? `query the successor version ${expired.successor} instead` : undefined,
    );
  }

  /** Whether files.json gives a sha256 for every data and delete file ('full'), some, or none. */
  async dataCoverage(id: string): Promise<DataCoverage> {
    const meta = await this.meta(id);
    return (await this.filesIndex(id, meta.record))?.coverage ?? 'none';
  }

  /** files.json of a version, checked against version.json's hash; null when the version has none. */
  private filesIndex(id: string, record: VersionRecord): Promise<FilesIndex | null> {
    const entry = record.files?.['files.json'];
    if (!entry) return Promise.resolve(null);
    let p = this.indexes.get(id);
    if (!p) {
      p = (async () => {
        const key = `versions/${id}/files.json`;
        const res = await this.store.get(key, { maxBytes: Math.min(entry.size + 1, MAX_FILES_JSON) });
        if (res === null || res === 'not-modified') throw new SqlError(SQLSTATE.dataCorrupted, `${key} is listed in version.json but missing`);
        checkBytes(res.body, entry, key);
        return parseFilesJson(res.body, key);
      })();
      this.indexes.set(id, p);
      p.catch(() => this.indexes.delete(id));
    }
    return p;
  }

  async openVersion(id: string): Promise<VerifiedVersion> {
    const meta = await this.meta(id);
    await this.checkNotExpired(id);
    this.enforcePolicy(id, meta.signature);
    const index = await this.filesIndex(id, meta.record);
    if (this.dataHashes === 'require' && !index) {
      throw new SqlError(SQLSTATE.invalidAuthorization, `version ${id} has no files.json: repository ${this.name} requires hash-covered data (--data-hashes require)`);
    }
    const catalog = pickCatalog(meta.record, id);
    const catalogKey = checkKey(`versions/${id}/${catalog.path}`);
    const leases: Lease[] = [];
    let catalogFile: string;
    if (this.store.localPath) {
      catalogFile = this.store.localPath(catalogKey);
      await this.verifyLocal(catalogFile, id, catalog.path, catalog.sha256, catalog.size);
    } else {
      let lease: Lease;
      try {
        lease = await this.remoteCache().acquire(this.store, catalogKey, { sha256: catalog.sha256, size: catalog.size });
      } catch (e) {
        // name the file the way the local path does, whichever store found the mismatch
        const what = isSqlError(e) && e.sqlstate === SQLSTATE.dataCorrupted ? /^(\w+) mismatch/.exec(e.message)?.[1] : undefined;
        if (what && isSqlError(e)) throw new SqlError(SQLSTATE.dataCorrupted, `${what} mismatch: ${catalog.path} of version ${id} in repository ${this.name}`, e.detail);
        throw e;
      }
      leases.push(lease);
      catalogFile = lease.path;
    }
    let dataset: unknown = null;
    try {
      dataset = await this.dataset(id, meta.record);
    } catch (e) {
      leases.forEach((l) => l.release());
      throw e;
    }
    return this.handle(id, meta, catalog, catalogFile, dataset, leases, index);
  }

  private enforcePolicy(id: string, sig: SignatureStatus): void {
    if (this.policy !== 'require' || sig.status === 'G') return;
    const who = sig.fingerprint ? ` (key ${sig.fingerprint})` : '';
    const msg =
      sig.status === 'N'
        ? `version ${id} has no signature; repository ${this.name} requires signed versions (no signature)`
        : sig.status === 'U'
          ? `signature not trusted: version ${id} is signed${who} but ${sig.reason === 'unknown key' ? 'the key is not in allowed_signers (unknown key)' : `the trusted key cannot be used (${sig.reason})`}`
          : `signature invalid (${sig.reason === 'wrong namespace' ? 'namespace' : sig.reason}): version ${id}${who}`;
    throw new SqlError(SQLSTATE.invalidAuthorization, msg, sig.detail, this.trusted.length === 0 ? 'no trusted keys are configured (allowed_signers)' : undefined);
  }

  private async dataset(id: string, record: VersionRecord): Promise<unknown> {
    const entry = record.files?.['dataset.json'];
    if (!entry) return null;
    let p = this.datasets.get(id);
    if (!p) {
      p = (async () => {
        const key = `versions/${id}/dataset.json`;
        const res = await this.store.get(key, { maxBytes: Math.min(entry.size + 1, MAX_DATASET) });
        if (res === null || res === 'not-modified') throw new SqlError(SQLSTATE.dataCorrupted, `${key} is listed in version.json but missing`);
        checkBytes(res.body, entry, key);
        try {
          return JSON.parse(res.body.toString('utf8')) as unknown;
        } catch (e) {
          throw new SqlError(SQLSTATE.dataCorrupted, `malformed ${key}: not valid JSON`); // the parser's message quotes the file
        }
      })();
      this.datasets.set(id, p);
      p.catch(() => this.datasets.delete(id));
    }
    return p;
  }

  /** Hashes a local file unless it was hashed before and its size/mtime/ctime/inode/device did not change. */
  async verifyLocal(path: string, id: string, file: string, sha256: string, size: number): Promise<void> {
    const key = `versions/${id}/${file}`;
    let st;
    try {
      st = statSync(path); // one stat on the event loop costs less than a thread-pool round trip
    } catch (e) {
      throw new SqlError(SQLSTATE.ioError, `cannot read ${key} of repository ${this.name}: ${(e as { code?: string }).code ?? 'I/O error'}`);
    }
    const fp = `${st.size}-${st.mtimeMs}-${st.ctimeMs}-${st.ino}-${st.dev}-${sha256}`;
    if (this.verifiedLocal.get(path) === fp) return;
    if (st.size !== size) throw new SqlError(SQLSTATE.dataCorrupted, `size mismatch: ${file} of version ${id} in repository ${this.name}`, `${key} has ${st.size} bytes, version.json says ${size}`);
    const h = createHash('sha256');
    for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
    const got = h.digest('hex');
    if (got !== sha256) throw new SqlError(SQLSTATE.dataCorrupted, `sha256 mismatch: ${file} of version ${id} in repository ${this.name}`, `${key}: version.json says ${sha256}, the file hashes to ${got}`);
    this.verifiedLocal.set(path, fp);
  }

  private remoteCache(): FileCache {
    if (!this.fileCache) throw new SqlError(SQLSTATE.internalError, `repository ${this.name} is remote but no file cache (cache dir) is configured`);
    return this.fileCache;
  }

  /** Size and sha256 a data file must have: files.json where it says, else the catalog's size. */
  private expectation(id: string, f: DataFile, index: FilesIndex | null): { size?: number; sha256?: string } {
    const listed = index?.files.get(f.path);
    if (listed?.size !== undefined && f.size !== undefined && listed.size !== f.size) {
      throw new SqlError(SQLSTATE.dataCorrupted, `size mismatch: ${this.dataDir}${f.path}: files.json of version ${id} says ${listed.size} bytes, its catalog ${f.size}`);
    }
    if (this.dataHashes === 'require' && !listed?.sha256) {
      throw new SqlError(
        SQLSTATE.invalidAuthorization,
        `version ${id} has no sha256 for ${this.dataDir}${f.path}: repository ${this.name} requires hash-covered data (--data-hashes require)`,
      );
    }
    return { size: listed?.size ?? f.size, ...(listed?.sha256 ? { sha256: listed.sha256 } : {}) };
  }

  /** A verification failure becomes XX001 naming the file by its path in the repository; logged and counted. */
  private integrityFailure(id: string, key: string, e: unknown): unknown {
    if (!isSqlError(e) || e.sqlstate !== SQLSTATE.dataCorrupted) return e;
    const what = /^(size|sha256) mismatch/.exec(e.message)?.[1];
    const message = what ? `${what} mismatch: ${key} (version ${id} of repository ${this.name})` : `${e.message} (version ${id} of repository ${this.name})`;
    if (what && !this.store.localPath) this.verification.countMismatch(); // local mismatches the ledger counted itself
    this.onIntegrityFailure({ repository: this.name, version: id, file: key, message });
    return new SqlError(SQLSTATE.dataCorrupted, message, e.detail, what ? 'the file differs from what the signed version says; it is not used until it verifies' : undefined);
  }

  private handle(id: string, meta: VersionMeta, catalog: CatalogEntry, catalogFile: string, dataset: unknown, leases: Lease[], index: FilesIndex | null): VerifiedVersion {
    const repo = this;
    const dataKey = (rel: string): string => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(rel) || rel.startsWith('/') || rel.includes('\\') || rel.split('/').some((c) => c === '..' || c === '.' || c === '')) {
        throw new SqlError(SQLSTATE.dataCorrupted, `data file outside data_dir: ${rel}`);
      }
      return checkKey(`${repo.dataDir}${rel}`);
    };
    // a file's key and expected size/sha256 are fixed for the version: worked out once per file
    const checks = new Map<string, { key: string; expect: { size?: number; sha256?: string } }>();
    const checked = (f: DataFile) => {
      const id2 = `${f.size ?? ''}/${f.path}`;
      let c = checks.get(id2);
      if (!c) checks.set(id2, (c = { key: dataKey(f.path), expect: repo.expectation(id, f, index) }));
      return c;
    };
    let closed = false;
    return {
      id,
      version: meta.record,
      catalog,
      catalogFile,
      dataset,
      signature: meta.signature,
      dataDir: repo.dataDir,
      locate(rel: string): string {
        const key = dataKey(rel);
        // remote: the cache name ensureFiles downloads to (content-addressed when files.json has a sha256)
        return repo.store.localPath ? repo.store.localPath(key) : repo.remoteCache().pathFor(repo.store, key, { sha256: index?.files.get(rel)?.sha256 });
      },
      async ensureFiles(files: DataFile[], onProgress?: (p: DownloadProgress) => void): Promise<Lease> {
        const got: Lease[] = [];
        const release = () => got.forEach((l) => l.release());
        try {
          const queue = files.map((f) => ({ f, ...checked(f) }));
          const store = repo.store;
          // local: the path resolved and confined once (fs-store.ts statLocal), then a plain lstat
          const local = store.localPath ? (key: string) => ({ path: store.localPath!(key), stats: store.statLocal ? store.statLocal(key) : undefined }) : null;
          const cache = local ? null : repo.remoteCache();
          // remote: refuse up front (53100) what the disk budget cannot hold
          cache?.checkFits(store, queue.map((q) => ({ key: q.key, spec: q.expect })));
          const started = Date.now();
          const progress = { files: 0, totalFiles: queue.length, bytes: 0, totalBytes: queue.reduce((n, q) => n + (q.f.size ?? 0), 0) };
          // a few in parallel: hides download latency, keeps both cores busy hashing local files
          const worker = async () => {
            for (let item = queue.shift(); item; item = queue.shift()) {
              const { key, expect } = item;
              try {
                if (local) {
                  const { path, stats } = local(key);
                  await repo.verification.verify(path, key, expect, stats);
                }
                else got.push(await cache!.acquire(repo.store, key, expect));
                progress.files++;
                progress.bytes += item.f.size ?? 0;
                onProgress?.({ ...progress, elapsedMs: Date.now() - started });
              } catch (e) {
                throw repo.integrityFailure(id, key, e);
              }
            }
          };
          const parallel = cache ? cache.downloadConcurrency : 4;
          // On a failure the queue is emptied and every worker is waited for: a download still
          // running then pins its file after the failure, and that pin must be released with the rest.
          const stopping = async () => {
            try {
              await worker();
            } catch (e) {
              queue.length = 0;
              throw e;
            }
          };
          const settled = await Promise.allSettled(Array.from({ length: Math.min(parallel, queue.length) }, stopping));
          const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failed) throw failed.reason;
        } catch (e) {
          release();
          throw e;
        }
        let done = false;
        return { path: '', release: () => (done ? undefined : ((done = true), release())) };
      },
      async holdCached(files: DataFile[]): Promise<{ lease: Lease; missing: Set<string> }> {
        const got: Lease[] = [];
        const missing = new Set<string>();
        const cache = repo.store.localPath ? null : repo.remoteCache();
        try {
          for (const f of files) {
            if (!cache) continue;
            const held = await cache.holdIfCached(repo.store, dataKey(f.path), repo.expectation(id, f, index));
            if (held) got.push(held);
            else missing.add(f.path);
          }
        } catch (e) {
          got.forEach((l) => l.release());
          throw e;
        }
        let done = false;
        return { lease: { path: '', release: () => (done ? undefined : ((done = true), got.forEach((l) => l.release()))) }, missing };
      },
      async recheckCatalog(): Promise<void> {
        if (repo.store.localPath) await repo.verifyLocal(catalogFile, id, catalog.path, catalog.sha256, catalog.size);
      },
      close(): void {
        if (closed) return;
        closed = true;
        leases.forEach((l) => l.release());
      },
    };
  }
}

function checkBytes(body: Buffer, entry: { sha256: string; size: number }, key: string): void {
  if (body.length !== entry.size) throw new SqlError(SQLSTATE.dataCorrupted, `size mismatch: ${key} has ${body.length} bytes, version.json says ${entry.size}`);
  const got = sha256Hex(body);
  if (got !== entry.sha256) throw new SqlError(SQLSTATE.dataCorrupted, `sha256 mismatch: ${key}`, `version.json says ${entry.sha256}, the file hashes to ${got}`);
}

/** Reads fdl.json and the trust file; the repository is refused when either is unusable. */
export async function openRepository(name: string, store: ObjectStore, options: RepositoryOptions = {}): Promise<Repository> {
  const body = await store.get('fdl.json', { maxBytes: 1024 * 1024 });
  if (body === null || body === 'not-modified') {
    throw new SqlError(SQLSTATE.invalidCatalogName, `missing fdl.json: ${store.location} is not an FDL repository (repository ${name})`);
  }
  const settings = parseFdlJson(body.body, name);
  let trusted: TrustedSigner[] = [];
  let warnings: string[] = [];
  if (options.allowedSigners) {
    let text: string;
    try {
      text = await readFile(options.allowedSigners, 'utf8');
    } catch (e) {
      throw new SqlError(SQLSTATE.ioError, `cannot read allowed_signers ${options.allowedSigners} for repository ${name}: ${(e as Error).message}`);
    }
    ({ signers: trusted, warnings } = parseAllowedSigners(text));
  }
  const cacheDir = options.cacheDir ?? null;
  const stateDir = options.stateDir ?? (cacheDir ? `${cacheDir}.state` : null);
  const ledger = await TagLedger.open(stateDir ? join(stateDir, 'tags') : null, store.location);
  const state: RepositoryState = {
    branches: await StateMap.open(stateDir ? join(stateDir, 'branches') : null, store.location, 'branch ledger', (v): v is string => typeof v === 'string' && isVersionId(v)),
    expiries: await StateMap.open(stateDir ? join(stateDir, 'expired') : null, store.location, 'expiry record', isExpiryMark),
  };
  const verification = options.verification ?? (await VerificationLedger.open(null));
  let fileCache = options.fileCache ?? null;
  if (!fileCache && !store.localPath && cacheDir) fileCache = await FileCache.open(join(cacheDir, 'files'));
  const refCache = options.refCache ?? new RefCache({ ttlMs: options.refTtlMs ?? 2000 });
  return new Repository(
    name, store, settings, options.signatures ?? 'prefer', trusted, warnings, ledger, fileCache, refCache,
    options.dataHashes ?? 'prefer', verification, options.onIntegrityFailure ?? (() => undefined), state,
  );
}
