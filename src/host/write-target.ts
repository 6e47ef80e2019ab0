/**
 * What the publisher writes a repository through: a local folder or S3 (local-target.ts,
 * s3-target.ts; opened by target.ts). src/store only reads, so the host writes here. Three kinds of
 * write, matching FDL: create (a new name, never overwrite: fdl.json, tags, versions, data files),
 * put (the refs.json index) and swap (a branch moves only if it still names the version we built on).
 */
import { createReadStream } from 'node:fs';
import type { Hash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

export class BranchMovedError extends Error {
  constructor(ref: string, detail: string) {
    super(`branch moved, retry: ${ref} ${detail}`);
    this.name = 'BranchMovedError';
  }
}

/** Bytes to write: a buffer, or a file whose bytes are also fed to `hash` as they are written (one read). */
export type Body = Buffer | { file: string; hash?: Hash };

/** A read stream of `file` that feeds every chunk to `hash` on its way through. */
export function readHashing(file: string, hash?: Hash): Readable {
  const src = createReadStream(file, { highWaterMark: 1024 * 1024 });
  if (!hash) return src;
  const through = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  src.on('error', (e) => through.destroy(e));
  return src.pipe(through);
}

export interface WriteTarget {
  readonly location: string;
  readonly remote: boolean;
  read(key: string): Promise<{ body: Buffer; etag?: string } | null>;
  exists(key: string): Promise<boolean>;
  list(prefix: string): Promise<string[]>;
  /** Creates `key` unless it exists (then false). Readers never see a partial object. */
  create(key: string, body: Body): Promise<boolean>;
  /** Unconditional replace; only for the refs.json index. */
  put(key: string, body: Buffer): Promise<void>;
  /** Writes `body` to ref `key` only if it currently holds `expected` (null: absent). */
  swap(key: string, expected: string | null, body: Buffer): Promise<void>;
  /** Keys under `prefix` with their last-modified time (ms since the epoch): what gc judges age by. */
  listAged(prefix: string): Promise<{ key: string; modified: number }[]>;
  /** Deletes `key` (absent is fine); local targets also drop folders it leaves empty. Only rollback and gc call it. */
  remove(key: string): Promise<void>;
  /** Local targets: where a key lives on disk (data files are written in place, then linked). */
  localPath?(key: string): string;
  /** Local targets: removes a scratch folder and whatever it holds (named pipes too), and the folders it leaves empty. */
  removeTree?(prefix: string): Promise<void>;
}
