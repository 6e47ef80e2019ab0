/**
 * One FDL repository on one store: fdl.json, ref resolution (spec Part 2, refs.ts) and opening
 * verified versions (Parts 3–5): version.json and its signature (version-meta.ts), expiry
 * (expiry.ts), the signature policy, the catalog verified in place or fetched into the file cache,
 * and a handle whose data files are verified as they are made readable (version-files.ts). Names are
 * validated before any key is built; refs are read through a short-TTL cache with ETag
 * revalidation; everything under versions/<id>/ is cached forever.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqlError, SQLSTATE, isSqlError } from '../errors.js';
import { checkKey, type ObjectStore } from '../store/store.js';
import { FileCache, type Lease } from '../cache/file-cache.js';
import { RefCache } from '../cache/ref-cache.js';
import { TagLedger } from '../state/tag-ledger.js';
import { StateMap } from '../state/state-map.js';
import { VerificationLedger } from '../state/verification-ledger.js';
import { isVersionId } from './names.js';
import { isExpiryMark, parseFdlJson, pickCatalog, type FdlSettings } from './records.js';
import { parseAllowedSigners, type SignatureStatus, type TrustedSigner } from './sshsig.js';
import { Expiries } from './expiry.js';
import { LocalVerifier } from './local-verify.js';
import { RefResolver } from './refs.js';
import { VersionFiles } from './version-files.js';
import { VersionMetas } from './version-meta.js';
import type {
  DataCoverage,
  DataHashPolicy,
  IntegrityFailure,
  RefInfo,
  RepositoryOptions,
  RepositoryState,
  Resolution,
  SignaturePolicy,
  VerifiedVersion,
  VersionInfo,
} from './types.js';

export type * from './types.js';

export class Repository {
  readonly refs: RefCache;
  private readonly metas: VersionMetas;
  private readonly resolver: RefResolver;
  private readonly expiries: Expiries;
  private readonly local: LocalVerifier;
  private readonly files: VersionFiles;

  constructor(
    readonly name: string,
    readonly store: ObjectStore,
    readonly settings: FdlSettings,
    readonly policy: SignaturePolicy,
    private readonly trusted: TrustedSigner[],
    readonly trustWarnings: string[],
    ledger: TagLedger,
    fileCache: FileCache | null,
    refCache: RefCache,
    readonly dataHashes: DataHashPolicy,
    verification: VerificationLedger,
    onIntegrityFailure: (f: IntegrityFailure) => void,
    state: RepositoryState,
  ) {
    this.refs = refCache;
    this.metas = new VersionMetas(name, store, refCache, settings, trusted);
    this.resolver = new RefResolver(name, store, refCache, this.metas, ledger, state.branches, trusted.length > 0);
    this.expiries = new Expiries(store, refCache, this.metas, trusted.length > 0, state.expiries);
    this.local = new LocalVerifier(name);
    this.files = new VersionFiles(
      name,
      store,
      settings.dataDir,
      dataHashes,
      fileCache,
      verification,
      this.local,
      onIntegrityFailure,
    );
  }

  get id(): string | undefined {
    return this.settings.id;
  }

  get dataDir(): string {
    return this.settings.dataDir;
  }

  /**
   * Spec Part 2: the first rule that matches decides. A resolution is reused while every ref it read
   * is within the ref TTL. `shown`: which refs an unknown-ref hint may name.
   */
  resolve(requested: string, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    return this.resolver.resolve(requested, shown);
  }

  /** The version `requested` resolves to while its last resolution is fresh (no read, no wait), else undefined. */
  freshVersion(requested: string): string | undefined {
    return this.resolver.freshVersion(requested);
  }

  /** Every valid ref whose version exists (malformed, invalid and dangling refs are left out). */
  listRefs(): Promise<RefInfo[]> {
    return this.resolver.listRefs();
  }

  /** Metadata, signature status and expiry, without fetching the catalog and without refusing. */
  async describeVersion(id: string): Promise<VersionInfo> {
    const meta = await this.metas.meta(id);
    return { id, version: meta.record, signature: meta.signature, expired: await this.expiries.of(id) };
  }

  /**
   * Refuses a version that has expired (expired.json, read through the ref cache: a version
   * attached for a while is re-checked at most a ref TTL after the file appears).
   */
  checkNotExpired(id: string): Promise<void> {
    return this.expiries.checkNotExpired(id);
  }

  /** Whether files.json gives a sha256 for every data and delete file ('full'), some, or none. */
  async dataCoverage(id: string): Promise<DataCoverage> {
    const meta = await this.metas.meta(id);
    return (await this.metas.filesIndex(id, meta.record))?.coverage ?? 'none';
  }

  /** Hashes a local file unless it was hashed before and its size/mtime/ctime/inode/device did not change. */
  verifyLocal(path: string, id: string, file: string, sha256: string, size: number): Promise<void> {
    return this.local.verify(path, id, file, sha256, size);
  }

  /** Spec Part 5, steps 3–6: everything checked before the catalog path is handed out. */
  async openVersion(id: string): Promise<VerifiedVersion> {
    const meta = await this.metas.meta(id);
    await this.checkNotExpired(id);
    this.enforcePolicy(id, meta.signature);
    const index = await this.metas.filesIndex(id, meta.record);
    if (this.dataHashes === 'require' && !index) {
      throw new SqlError(
        SQLSTATE.invalidAuthorization,
        `version ${id} has no files.json: repository ${this.name} requires hash-covered data (--data-hashes require)`,
      );
    }
    const catalog = pickCatalog(meta.record, id);
    const catalogKey = checkKey(`versions/${id}/${catalog.path}`);
    const leases: Lease[] = [];
    let catalogFile: string;
    if (this.store.localPath) {
      catalogFile = this.store.localPath(catalogKey);
      await this.local.verify(catalogFile, id, catalog.path, catalog.sha256, catalog.size);
    } else {
      let lease: Lease;
      try {
        lease = await this.files
          .remoteCache()
          .acquire(this.store, catalogKey, { sha256: catalog.sha256, size: catalog.size });
      } catch (e) {
        // name the file the way the local path does, whichever store found the mismatch
        const what =
          isSqlError(e) && e.sqlstate === SQLSTATE.dataCorrupted ? /^(\w+) mismatch/.exec(e.message)?.[1] : undefined;
        if (what && isSqlError(e))
          throw new SqlError(
            SQLSTATE.dataCorrupted,
            `${what} mismatch: ${catalog.path} of version ${id} in repository ${this.name}`,
            e.detail,
          );
        throw e;
      }
      leases.push(lease);
      catalogFile = lease.path;
    }
    let dataset: unknown = null;
    try {
      dataset = await this.metas.dataset(id, meta.record);
    } catch (e) {
      leases.forEach((l) => l.release());
      throw e;
    }
    return this.files.handle(id, meta, catalog, catalogFile, dataset, leases, index);
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
    throw new SqlError(
      SQLSTATE.invalidAuthorization,
      msg,
      sig.detail,
      this.trusted.length === 0 ? 'no trusted keys are configured (allowed_signers)' : undefined,
    );
  }
}

/**
 * fdl.json is not signed, and a version's signature binds it to the repository id its version.json names: a
 * store writer who put another repository's id into fdl.json could then serve that repository's signed versions,
 * copied in, under this one's grants. The id a repository was first served with is kept in the state directory
 * (as the tag ledger keeps tags); another id later is refused, naming neither (store content).
 */
async function checkIdentity(
  stateDir: string | null,
  location: string,
  settings: FdlSettings,
  name: string,
): Promise<void> {
  const identity = await StateMap.open(
    stateDir ? join(stateDir, 'identity') : null,
    location,
    'repository identity',
    (v): v is string => typeof v === 'string',
  );
  const seen = identity.get('id');
  const id = settings.id ?? '';
  if (seen === undefined) await identity.set('id', id);
  else if (seen !== id)
    throw new SqlError(
      SQLSTATE.dataCorrupted,
      `the id in fdl.json of repository ${name} is not the one it was first served with; refusing it as tampering`,
      'the state directory recorded the repository id when the gateway first opened it; fdl.json now names another',
      'remove the identity record from the state directory only if the repository was re-created on purpose',
    );
}

/** Reads fdl.json and the trust file; the repository is refused when either is unusable. */
export async function openRepository(
  name: string,
  store: ObjectStore,
  options: RepositoryOptions = {},
): Promise<Repository> {
  const body = await store.get('fdl.json', { maxBytes: 1024 * 1024 });
  if (body === null || body === 'not-modified') {
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `missing fdl.json: ${store.location} is not an FDL repository (repository ${name})`,
    );
  }
  const settings = parseFdlJson(body.body, name);
  let trusted: TrustedSigner[] = [];
  let warnings: string[] = [];
  if (options.allowedSigners) {
    let text: string;
    try {
      text = await readFile(options.allowedSigners, 'utf8');
    } catch (e) {
      throw new SqlError(
        SQLSTATE.ioError,
        `cannot read allowed_signers ${options.allowedSigners} for repository ${name}: ${(e as Error).message}`,
      );
    }
    ({ signers: trusted, warnings } = parseAllowedSigners(text));
  }
  const cacheDir = options.cacheDir ?? null;
  const stateDir = options.stateDir ?? (cacheDir ? `${cacheDir}.state` : null);
  const ledger = await TagLedger.open(stateDir ? join(stateDir, 'tags') : null, store.location);
  await checkIdentity(stateDir, store.location, settings, name);
  const state: RepositoryState = {
    branches: await StateMap.open(
      stateDir ? join(stateDir, 'branches') : null,
      store.location,
      'branch ledger',
      (v): v is string => typeof v === 'string' && isVersionId(v),
    ),
    expiries: await StateMap.open(
      stateDir ? join(stateDir, 'expired') : null,
      store.location,
      'expiry record',
      isExpiryMark,
    ),
  };
  const verification = options.verification ?? (await VerificationLedger.open(null));
  let fileCache = options.fileCache ?? null;
  if (!fileCache && !store.localPath && cacheDir) fileCache = await FileCache.open(join(cacheDir, 'files'));
  const refCache = options.refCache ?? new RefCache({ ttlMs: options.refTtlMs ?? 2000 });
  return new Repository(
    name,
    store,
    settings,
    options.signatures ?? 'prefer',
    trusted,
    warnings,
    ledger,
    fileCache,
    refCache,
    options.dataHashes ?? 'prefer',
    verification,
    options.onIntegrityFailure ?? (() => undefined),
    state,
  );
}
