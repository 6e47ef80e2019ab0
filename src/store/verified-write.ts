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
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (!src.idleMs || !src.abort) return;
    clearTimeout(timer);
    timer = setTimeout(() => ((idle = true), src.abort!()), src.idleMs);
  };
  try {
    const hash = createHash('sha256');
    let bytes = 0;
    arm();
    try {
      for await (const chunk of src.body) {
        arm();
        bytes += chunk.length;
        if (opts.expectedSize !== undefined && bytes > opts.expectedSize) break; // stop early: cannot match
        hash.update(chunk);
        await fh.write(chunk);
      }
    } catch (e) {
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
    const got = hash.digest('hex');
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
