/** Picks the store for a location: a folder or file:// URL, s3://bucket/prefix/, http(s)://host/prefix/. */
import { fileURLToPath } from 'node:url';
import { SqlError, SQLSTATE } from '../errors.js';
import { FsStore } from './fs-store.js';
import { DEFAULT_LIMITS, type ObjectStore, type StoreLimits } from './store.js';

export type { ObjectStore, GetOptions, GetResult, DownloadOptions, StoreLimits } from './store.js';
export { FsStore } from './fs-store.js';

export interface OpenStoreOptions {
  s3?: { endpoint?: string; region?: string; forcePathStyle?: boolean };
  limits?: Partial<StoreLimits>;
}

export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<ObjectStore> {
  const limits: StoreLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme === undefined) return new FsStore(location, limits);
  if (scheme === 'file') return new FsStore(fileURLToPath(location), limits);
  if (scheme === 's3') {
    const { S3Store } = await import('./s3-store.js');
    return S3Store.fromUrl(location, { ...options.s3, limits });
  }
  if (scheme === 'http' || scheme === 'https') {
    const { HttpStore } = await import('./http-store.js');
    return new HttpStore(location, limits);
  }
  throw new SqlError(
    SQLSTATE.invalidParameterValue,
    `unsupported repository location ${location} (use a folder, file://, s3:// or https://)`,
  );
}
