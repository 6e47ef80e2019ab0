/** Repository-level host operations that need no catalog: init, reading settings, hashing. */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFdlJson, type FdlSettings } from '../resolver/records.js';
import type { ObjectStore } from '../store/store.js';
import { FsStore } from '../store/fs-store.js';
import { openTarget, S3Target, type S3TargetOptions, type WriteTarget } from './target.js';
import { writeRefsJson } from './refs-writer.js';

export interface InitOptions {
  id?: string;
  dataDir?: string;
  signers?: string[];
  s3?: S3TargetOptions;
}

/** fdl.json (create-only) and HEAD. A second init keeps the first settings and says so. */
export async function initRepository(
  location: string,
  opts: InitOptions = {},
): Promise<{ created: boolean; settings: FdlSettings }> {
  const target = openTarget(location, opts.s3);
  let dataDir = opts.dataDir ?? 'data/';
  if (dataDir !== '' && !dataDir.endsWith('/')) dataDir += '/';
  const fdl: Record<string, unknown> = { fdl: '0.1', id: opts.id ?? randomUUID(), data_dir: dataDir };
  if (opts.signers?.length) fdl.signers = opts.signers;
  fdl.catalog_formats = [{ ducklake: '1.0' }];
  const body = Buffer.from(JSON.stringify(fdl, null, 2) + '\n');
  parseFdlJson(body, location); // refuse a bad data_dir before anything is written
  const created = await target.create('fdl.json', body);
  await target.create('HEAD', Buffer.from('ref: refs/heads/main\n'));
  if (created) await writeRefsJson(target);
  return { created, settings: await readSettings(target) };
}

export async function readSettings(target: WriteTarget): Promise<FdlSettings> {
  const r = await target.read('fdl.json');
  if (!r) throw new Error(`${target.location} is not an FDL repository (no fdl.json): run fdl init first`);
  return parseFdlJson(r.body, target.location);
}

/** A read-only store on the same location (for downloads with hash checks, resolver, verify). */
export async function readStore(target: WriteTarget): Promise<ObjectStore> {
  if (target instanceof S3Target) return target.store;
  return new FsStore(target.location);
}

export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return { sha256: h.digest('hex'), size: (await stat(path)).size };
}

export function hashBytes(b: Buffer): { sha256: string; size: number } {
  return { sha256: createHash('sha256').update(b).digest('hex'), size: b.length };
}

/**
 * sha256 of a file already in the repository: hashed in place for a local target, else copied
 * once to `tmpDir` and hashed there. Undefined when the object is missing or unreadable.
 */
export async function hashStored(
  target: WriteTarget,
  store: ObjectStore,
  key: string,
  tmpDir: string,
): Promise<string | undefined> {
  if (target.localPath) return (await hashFile(target.localPath(key)).catch(() => null))?.sha256;
  const dest = join(tmpDir, `hash-${randomUUID()}`);
  try {
    await store.download(key, dest);
    return (await hashFile(dest)).sha256;
  } catch {
    return undefined;
  } finally {
    await rm(dest, { force: true });
  }
}
