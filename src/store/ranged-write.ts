/**
 * A large object fetched as several byte ranges at once (one connection each), written at their
 * offsets into one temp file, then verified and renamed like writeVerified does. sha256 is
 * sequential, so the hash follows the parts in file order: each part, once written and all parts
 * before it hashed, is read back (from the page cache) and handed to the hashing thread while the
 * later parts are still arriving.
 */
import { randomBytes } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { offloadedSha256, type OffloadedHash } from './offloaded-hash.js';
import { TransientError } from './retry.js';
import type { DownloadOptions } from './store.js';
import { commitVerified, discardPartial, PART_MARK } from './verified-write.js';
import { syncDir } from '../atomic-file.js';

/** Objects at least this large are fetched in parts. */
export const RANGED_MIN_BYTES = 8 * 1024 * 1024;
/** Smallest part: fewer requests than bytes are worth. */
const PART_MIN_BYTES = 4 * 1024 * 1024;
/** Parts of one object in flight at once. */
const PARTS_IN_FLIGHT = 4;
/** Bytes gathered before one write (and read back for hashing). */
const BATCH = 1024 * 1024;

export interface RangeSource {
  body: AsyncIterable<Uint8Array>;
  /** Aborts the transfer (called when no bytes arrived for idleMs). */
  abort: () => void;
}

/** Byte ranges [start, end) covering `size`, each at least PART_MIN_BYTES (the last may be longer). */
export function partRanges(size: number): [number, number][] {
  const n = Math.max(1, Math.min(PARTS_IN_FLIGHT * 4, Math.floor(size / PART_MIN_BYTES)));
  const step = Math.floor(size / n);
  return Array.from({ length: n }, (_, i) => [i * step, i === n - 1 ? size : (i + 1) * step] as [number, number]);
}

/**
 * Fetch `size` bytes as ranges (`fetchRange(start, endInclusive)`), verify size and sha256, then
 * fsync and rename to `dest`. Any part failing fails the whole download (the caller retries it).
 */
export async function writeVerifiedRanged(
  size: number,
  fetchRange: (start: number, endInclusive: number) => Promise<RangeSource>,
  dest: string,
  opts: DownloadOptions & { key: string; location: string; idleMs: number },
): Promise<void> {
  const tmp = `${dirname(dest)}/${basename(dest)}${PART_MARK}${process.pid}-${randomBytes(6).toString('hex')}`;
  const fh = await open(tmp, 'wx+', 0o644); // read back for hashing
  const hash = opts.sha256 !== undefined ? offloadedSha256() : null;
  let done = false;
  try {
    const ranges = partRanges(size);
    const finished = ranges.map(() => false);
    let hashedUpTo = 0; // parts [0, hashedUpTo) are hashed
    let hashing: Promise<void> = Promise.resolve();
    const advanceHash = () => {
      while (hashedUpTo < ranges.length && finished[hashedUpTo]) {
        const [s, e] = ranges[hashedUpTo++]!;
        if (hash) {
          hashing = hashing.then(() => hashRegion(fh, hash, s, e));
          hashing.catch(() => undefined); // awaited below; not unhandled meanwhile
        }
      }
    };
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ranges.length; i = next++) {
        const [s, e] = ranges[i]!;
        await writePart(fh, await fetchRange(s, e - 1), s, e, opts.idleMs);
        finished[i] = true;
        advanceHash();
      }
    };
    const workers = Array.from({ length: Math.min(PARTS_IN_FLIGHT, ranges.length) }, worker);
    try {
      await Promise.all(workers);
    } finally {
      await hashing.catch(() => undefined);
    }
    await hashing;
    await commitVerified(fh, tmp, dest, hash, opts);
    done = true;
    await syncDir(dirname(dest));
  } finally {
    if (!done) await discardPartial(fh, tmp, hash);
  }
}

/** One part's body written at its offsets in batches; exactly end - start bytes or a TransientError. */
async function writePart(fh: FileHandle, src: RangeSource, start: number, end: number, idleMs: number): Promise<void> {
  let last = Date.now();
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    const left = last + idleMs - Date.now();
    if (left <= 0) return void ((idle = true), src.abort());
    timer = setTimeout(watch, left);
  };
  watch();
  const buf = Buffer.allocUnsafe(Math.min(BATCH, end - start));
  let filled = 0;
  let at = start;
  const flush = async () => {
    if (filled === 0) return;
    await fh.write(buf, 0, filled, at);
    at += filled;
    filled = 0;
  };
  try {
    for await (const chunk of src.body) {
      last = Date.now();
      if (at + filled + chunk.length > end)
        throw new TransientError(`range ${start}-${end - 1} returned more bytes than asked for`);
      for (let i = 0; i < chunk.length;) {
        const n = Math.min(chunk.length - i, buf.length - filled);
        buf.set(chunk.subarray(i, i + n), filled);
        filled += n;
        i += n;
        if (filled === buf.length) await flush();
      }
    }
    await flush();
  } catch (e) {
    if (e instanceof TransientError) throw e;
    throw new TransientError(idle ? `no data for ${idleMs} ms` : 'transfer interrupted', e);
  } finally {
    clearTimeout(timer);
  }
  if (idle) throw new TransientError(`no data for ${idleMs} ms`);
  if (at !== end) throw new TransientError(`range ${start}-${end - 1} broke off after ${at - start} bytes`);
}

/** Reads [start, end) back and feeds it to the hash, in order, through its recycled buffers. */
async function hashRegion(fh: FileHandle, hash: OffloadedHash, start: number, end: number): Promise<void> {
  let buf = new ArrayBuffer(Math.min(BATCH, end - start));
  for (let at = start; at < end;) {
    const { bytesRead } = await fh.read(new Uint8Array(buf), 0, Math.min(buf.byteLength, end - at), at);
    if (bytesRead === 0) throw new TransientError(`part at ${at} vanished before it was hashed`);
    buf = await hash.update(buf, bytesRead);
    at += bytesRead;
  }
}
