/**
 * Streams bytes to `dest` so that `dest` either does not exist or holds exactly the verified
 * object: write a temp name next to it, check length/size/sha256, fsync, rename, fsync the dir.
 * A crash or a fault at any point leaves at most a `*.part-*` temp file, never a complete-looking one.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { mismatch, type DownloadOptions } from './store.js';
import { offloadedSha256, type OffloadedHash } from './offloaded-hash.js';
import { TransientError } from './retry.js';
import { syncDir } from '../atomic-file.js';

export const PART_MARK = '.part-';
/** Bytes gathered before one write: few syscalls, little memory. */
const WRITE_BATCH = 1024 * 1024;
/** Batch buffers per download: one filling, one being written, the rest being hashed. */
const BATCH_BUFFERS = 4;

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
  // only when there is something to compare with: a download without a hash is not slowed down
  const hash = opts.sha256 !== undefined ? offloadedSha256() : null;
  try {
    let bytes = 0;
    watch();
    // Chunks are copied into a few reused batch buffers. A full batch is written at its offset
    // (writes chained, so one in flight) and, once written, handed to the hashing thread, which
    // gives it back to be refilled: receiving, writing and hashing overlap, memory stays bounded.
    const size = Math.max(1, Math.min(WRITE_BATCH, opts.expectedSize ?? WRITE_BATCH)); // small files: small buffers
    let made = 0;
    const recycled: Promise<ArrayBuffer>[] = [];
    let writes: Promise<unknown> = Promise.resolve();
    let fill: Uint8Array | null = null;
    let filled = 0;
    let offset = 0;
    const nextBuffer = async () => {
      if (made < BATCH_BUFFERS) return (made++, new Uint8Array(size));
      return new Uint8Array(await recycled.shift()!);
    };
    const flush = () => {
      if (!fill || filled === 0) return;
      const buf = fill;
      const len = filled;
      const at = offset;
      offset += len;
      fill = null;
      filled = 0;
      const written = (writes = writes.then(() => fh.write(buf, 0, len, at)));
      // .then callbacks run in the order the writes finish, which is file order: hashed in order
      const back = written.then(() =>
        hash ? hash.update(buf.buffer as ArrayBuffer, len) : (buf.buffer as ArrayBuffer),
      );
      back.catch(() => undefined); // awaited later; a failure must not count as unhandled meanwhile
      recycled.push(back);
    };
    try {
      for await (const chunk of src.body) {
        last = Date.now();
        bytes += chunk.length;
        if (opts.expectedSize !== undefined && bytes > opts.expectedSize) break; // stop early: cannot match
        for (let at = 0; at < chunk.length;) {
          if (!fill) fill = await nextBuffer();
          const n = Math.min(chunk.length - at, fill.length - filled);
          fill.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === fill.length) flush();
        }
      }
      flush();
      await writes;
      await Promise.all(recycled);
    } catch (e) {
      await writes.catch(() => undefined);
      throw new TransientError(idle ? `no data for ${src.idleMs} ms` : 'transfer interrupted', e);
    } finally {
      clearTimeout(timer);
    }
    if (idle) throw new TransientError(`no data for ${src.idleMs} ms`);
    if (
      src.declaredLength !== undefined &&
      bytes !== src.declaredLength &&
      !(opts.expectedSize !== undefined && bytes > opts.expectedSize)
    ) {
      throw new TransientError(`body has ${bytes} bytes, Content-Length said ${src.declaredLength}`);
    }
    if (opts.expectedSize !== undefined && bytes !== opts.expectedSize) {
      throw mismatch(
        'size',
        opts.key,
        opts.location,
        `expected ${opts.expectedSize} bytes, got ${bytes}${bytes > opts.expectedSize ? ' or more' : ''}`,
      );
    }
    await commitVerified(fh, tmp, dest, hash, opts);
    done = true;
    await syncDir(dirname(dest));
  } finally {
    if (!done) await discardPartial(fh, tmp, hash);
  }
}

/**
 * The end of every verified download: the digest must match (else XX001), then the temp file
 * becomes `dest` (fsync, rename). The caller fsyncs the folder, or discards the temp file on a throw.
 */
export async function commitVerified(
  fh: FileHandle,
  tmp: string,
  dest: string,
  hash: OffloadedHash | null,
  opts: DownloadOptions & { key: string; location: string },
): Promise<void> {
  const got = await hash?.digest();
  if (opts.sha256 !== undefined && got !== opts.sha256.toLowerCase()) {
    throw mismatch('sha256', opts.key, opts.location, `expected ${opts.sha256}, got ${got}`);
  }
  await fh.sync();
  await fh.close();
  await rename(tmp, dest);
}

/** What a failed download leaves goes: the hashing thread's work, the handle, the temp file. */
export async function discardPartial(fh: FileHandle, tmp: string, hash: OffloadedHash | null): Promise<void> {
  hash?.drop();
  await fh.close().catch(() => {});
  await unlink(tmp).catch(() => {});
}
