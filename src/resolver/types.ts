/**
 * What a repository gives and is given: options, resolutions, refs, a verified version's handle,
 * what is known of a version without its catalog, and the state it must not forget.
 */
import type { StateMap } from '../state/state-map.js';
import type { FileCache, Lease } from '../cache/file-cache.js';
import type { RefCache } from '../cache/ref-cache.js';
import type { VerificationLedger } from '../state/verification-ledger.js';
import type { RefKind } from './names.js';
import type { CatalogEntry, ExpiryMark, FilesIndex, VersionRecord } from './records.js';
import type { SignatureStatus } from './sshsig.js';

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
  /**
   * A data file's bytes, read by the gateway itself (a deletion vector it decodes once into a version's views):
   * local files are hashed as read and must match (XX001 otherwise), so a file swapped in after ensureFiles
   * never reaches a view built to last; remote files come from the file cache, verified when downloaded.
   */
  readVerified(file: DataFile): Promise<Buffer>;
  /** Local repositories: proves the catalog in place is still the verified one (a stat; hashed again if changed). */
  recheckCatalog(): Promise<void>;
  /**
   * A local version's catalog and `files` found, by one stat each, exactly as verified before
   * (what recheckCatalog and ensureFiles would answer at once), decided without waiting: a
   * statement's re-check then costs no promise. False when those must run (a file changed, is
   * missing or was never verified; always for a remote version).
   */
  unchangedNow(files: readonly DataFile[]): boolean;
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

/** What the gateway must not forget when the store changes under it (kept in the state directory). */
export interface RepositoryState {
  /** branch → the newest version this gateway served on it (its high-water mark). */
  branches: StateMap<string>;
  /** version → the expiry it was seen with; deleting expired.json later changes nothing. */
  expiries: StateMap<ExpiryMark>;
}
