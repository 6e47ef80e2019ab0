/**
 * Streams bytes to `dest` so that `dest` either does not exist or holds exactly the verified
 * object: write a temp name next to it, check length/size/sha256, fsync, rename, fsync the dir.
 * A crash or a fault at any point leaves at most a `*.part-*` temp file, never a complete-looking one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { mismatch, type DownloadOptions } from './store.js';
import { TransientError } from './retry.js';

export const PART_MARK = '.part-';
/** Bytes gathered before one write: few syscalls, little memory. */
const WRITE_BATCH = 1024 * 1024;

export interface WriteSource {
  body: AsyncIterable<Uint8Array>;
  /** Content-Length the server announced; fewer bytes means the transfer broke. */
  declaredLength?: number;
  /** Aborts the transfer (called when no bytes arrived for idleMs). */
  abort?: () => void;
  idleMs?: number;
}

export async function writeVerified(
  src: WriteSource,
  dest: string,
  opts: DownloadOptions & { key: string; location: string },
): Promise<void> {
  const tmp = `${dirname(dest)}/${basename(dest)}${PART_MARK}${process.pid}-${randomBytes(6).toString('hex')}`;
  const fh = await open(tmp, 'wx', 0o644);
  let done = false;
  let idle = false;
  // Idle watchdog: one timer, re-armed only when it fires (not per chunk), checks the last arrival.
  let last = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    if (!src.idleMs || !src.abort) return;
    const left = last + src.idleMs - Date.now();
    if (left <= 0) return void ((idle = true), src.abort());
    timer = setTimeout(watch, left);
  };
  try {
    // only when there is something to compare with: a download without a hash is not slowed down
    const hash = opts.sha256 !== undefined ? createHash('sha256') : null;
    let bytes = 0;
    watch();
    // The hash is updated as each chunk arrives; chunks are written in batches of WRITE_BATCH
    // bytes with one write in flight, so hashing, receiving and writing overlap.
    let batch: Uint8Array[] = [];
    let batched = 0;
    let writing: Promise<unknown> = Promise.resolve();
    const flush = async () => {
      await writing;
      if (batched === 0) return;
      const buf = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
      batch = [];
      batched = 0;
      writing = fh.write(buf);
    };
    try {
      for await (const chunk of src.body) {
        last = Date.now();
        bytes += chunk.length;
        if (opts.expectedSize !== undefined && bytes > opts.expectedSize) break; // stop early: cannot match
        hash?.update(chunk);
        batch.push(chunk);
        batched += chunk.length;
        if (batched >= WRITE_BATCH) await flush();
      }
      await flush();
      await writing;
    } catch (e) {
      await writing.catch(() => undefined);
      throw new TransientError(idle ? `no data for ${src.idleMs} ms` : 'transfer interrupted', e);
    } finally {
      clearTimeout(timer);
    }
    if (idle) throw new TransientError(`no data for ${src.idleMs} ms`);
    if (src.declaredLength !== undefined && bytes !== src.declaredLength && !(opts.expectedSize !== undefined && bytes > opts.expectedSize)) {
      throw new TransientError(`body has ${bytes} bytes, Content-Length said ${src.declaredLength}`);
    }
    if (opts.expectedSize !== undefined && bytes !== opts.expectedSize) {
      throw mismatch('size', opts.key, opts.location, `expected ${opts.expectedSize} bytes, got ${bytes}${bytes > opts.expectedSize ? ' or more' : ''}`);
    }
    const got = hash?.digest('hex');
    if (opts.sha256 !== undefined && got !== opts.sha256.toLowerCase()) {
      throw mismatch('sha256', opts.key, opts.location, `expected ${opts.sha256}, got ${got}`);
    }
    await fh.sync();
    await fh.close();
    await rename(tmp, dest);
    done = true;
    await syncDir(dirname(dest));
  } finally {
    if (!done) {
      await fh.close().catch(() => {});
      await unlink(tmp).catch(() => {});
    }
  }
}

/** Makes a rename durable; some filesystems refuse fsync on directories, which is harmless here. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* best effort */
  }
}
