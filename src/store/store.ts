/**
 * Bytes by key from a folder, S3 or HTTP(S). Knows nothing about FDL: keys are '/'-separated
 * paths relative to the store's root. Every implementation reports failures as SqlError 58030
 * (I/O) or XX001 (downloaded bytes do not match what the caller expected).
 */
import type { Stats } from 'node:fs';
import { SqlError, SQLSTATE } from '../errors.js';

export interface GetOptions {
  /** Conditional read: when the object's ETag equals this, the result is 'not-modified'. */
  ifNoneMatch?: string;
  /** Refuse bodies larger than this (refs and JSON are small; a huge one is an attack or a mistake). */
  maxBytes?: number;
}

export type GetResult = { body: Buffer; etag?: string } | 'not-modified' | null;

export interface DownloadOptions {
  expectedSize?: number;
  /** Lowercase hex sha256 of the whole object. */
  sha256?: string;
}

export interface ObjectStore {
  /** Where the store points, for messages. */
  readonly location: string;
  /** null: the object does not exist. */
  get(key: string, options?: GetOptions): Promise<GetResult>;
  head(key: string): Promise<{ size: number; etag?: string } | null>;
  /** Keys under a prefix (recursive). Absent for stores that cannot list (HTTP). */
  list?(prefix: string): Promise<string[]>;
  /** temp file → verify size/sha256 → fsync → rename to dest; never leaves a partial dest. */
  download(key: string, dest: string, options?: DownloadOptions): Promise<void>;
  /** Local stores only: the file to read in place. */
  localPath?(key: string): string;
  /** Local stores only: the stats of the file `localPath(key)` reads now (null: none), confined to the root. */
  statLocal?(key: string): Stats | null;
}

/** Limits shared by every store; defaults are generous for catalogs, strict for small JSON. */
export interface StoreLimits {
  /** Default cap for get() bodies when the caller gives none. */
  maxGetBytes: number;
  /** Per attempt: time to the response headers and between body chunks. */
  timeoutMs: number;
  /** Attempts for transient failures (5xx, 429, connection errors, truncated bodies). */
  attempts: number;
  /** First backoff delay; doubles each retry. */
  backoffMs: number;
}

export const DEFAULT_LIMITS: StoreLimits = {
  maxGetBytes: 16 * 1024 * 1024,
  timeoutMs: 30_000,
  attempts: 4,
  backoffMs: 100,
};

/**
 * A key is a relative path made of plain components. Refusing '..', '.', empty components,
 * backslashes and NUL here means no store can be steered outside its root by a key.
 */
export function checkKey(key: string): string {
  if (
    key.length === 0 ||
    key.length > 1024 ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.includes('\0') ||
    key.split('/').some((c, i, all) => c === '..' || c === '.' || (c === '' && i !== all.length - 1))
  ) {
    throw new SqlError(SQLSTATE.ioError, `invalid object key ${JSON.stringify(key)}`);
  }
  return key;
}

export function ioError(message: string, cause?: unknown): SqlError {
  const why = cause instanceof Error ? `: ${cause.message}` : '';
  return new SqlError(SQLSTATE.ioError, message + why);
}

/** An object that is not in the store (a 404, no such file): an I/O error callers may tell apart. */
export class AbsentObjectError extends SqlError {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(SQLSTATE.ioError, message);
  }
}

export function tooLarge(location: string, key: string, max: number): SqlError {
  return new SqlError(SQLSTATE.ioError, `object ${key} in ${location} is larger than ${max} bytes`);
}

export function mismatch(what: string, key: string, location: string, detail: string): SqlError {
  return new SqlError(SQLSTATE.dataCorrupted, `${what} mismatch: ${key} in ${location}`, detail);
}
