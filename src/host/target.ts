/**
 * Writing side of a repository location. src/store only reads, so the host writes here: a local
 * folder through node:fs, or S3 through store/'s client set-up (s3-client.ts), reading and listing
 * through an S3Store on the same client (its bounded retries and size cap). Three kinds of write, matching FDL:
 * create (a new name, never overwrite: fdl.json, tags, versions, data files), put (the refs.json
 * index) and swap (a branch moves only if it still names the version we built on).
 */
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, readFile, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { randomBytes, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  createS3Client,
  isPreconditionFailed,
  isTransientS3,
  parseS3Url,
  type S3ClientOptions,
} from '../store/s3-client.js';
import { withRetry } from '../store/retry.js';
import { checkKey, DEFAULT_LIMITS } from '../store/store.js';
import { S3Store } from '../store/s3-store.js';
import { syncDir } from '../store/verified-write.js';
import { tlsProblem } from '../store/tls-trust.js';
import { thisWriter, writerState, type WriterId } from './writer-id.js';

export class BranchMovedError extends Error {
  constructor(ref: string, detail: string) {
    super(`branch moved, retry: ${ref} ${detail}`);
    this.name = 'BranchMovedError';
  }
}

/** Bytes to write: a buffer, or a file whose bytes are also fed to `hash` as they are written (one read). */
export type Body = Buffer | { file: string; hash?: Hash };

/** A read stream of `file` that feeds every chunk to `hash` on its way through. */
function readHashing(file: string, hash?: Hash): Readable {
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

export interface S3TargetOptions extends S3ClientOptions {
  /** Tests pass their own client (e.g. with a header-recording middleware). */
  client?: S3Client;
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

const tmpName = (p: string) => `${p}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
const code = (e: unknown) => (e as { code?: string })?.code;

export class LocalTarget implements WriteTarget {
  readonly remote = false;
  readonly location: string;
  constructor(root: string) {
    this.location = resolve(root);
  }

  localPath(key: string): string {
    return join(this.location, checkKey(key));
  }

  async read(key: string) {
    try {
      const p = this.localPath(key);
      const [body, st] = await Promise.all([readFile(p), stat(p)]);
      return { body, etag: `${st.size}-${st.mtimeMs}-${st.ino}` };
    } catch (e) {
      if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return null;
      throw e;
    }
  }

  async exists(key: string) {
    try {
      return (await stat(this.localPath(key))).isFile();
    } catch {
      return false;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(join(this.location, rel), { withFileTypes: true });
      } catch (e) {
        if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return;
        throw e;
      }
      for (const ent of entries) {
        const r = rel ? `${rel}/${ent.name}` : ent.name;
        if (ent.isDirectory()) await walk(r);
        else out.push(r);
      }
    };
    await walk(prefix.replace(/\/+$/, ''));
    return out.sort();
  }

  async listAged(prefix: string): Promise<{ key: string; modified: number }[]> {
    const out: { key: string; modified: number }[] = [];
    for (const key of await this.list(prefix)) {
      const st = await stat(this.localPath(key)).catch(() => null);
      if (st) out.push({ key, modified: st.mtimeMs });
    }
    return out;
  }

  async remove(key: string): Promise<void> {
    await unlink(this.localPath(key)).catch((e) => {
      if (code(e) !== 'ENOENT') throw e;
    });
    await this.dropEmpty(dirname(this.localPath(key)));
  }

  async removeTree(prefix: string): Promise<void> {
    const dir = this.localPath(prefix.replace(/\/+$/, ''));
    await rm(dir, { recursive: true, force: true });
    await this.dropEmpty(dirname(dir));
  }

  /** Folders a removal leaves empty go too (never the root): a rolled-back write leaves no trace. */
  private async dropEmpty(from: string): Promise<void> {
    let dir = from;
    while (dir.startsWith(this.location + '/')) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty (or gone): stop climbing
      }
      dir = dirname(dir);
    }
  }

  /** Temp file, fsync, then link(2): atomic and exclusive (EEXIST when the name is taken). */
  async create(key: string, body: Body): Promise<boolean> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    const tmp = tmpName(dest);
    if (Buffer.isBuffer(body)) await writeDurable(tmp, body);
    else if (!body.hash) await copyFile(body.file, tmp);
    else {
      await pipeline(readHashing(body.file, body.hash), createWriteStream(tmp, { flags: 'wx' }));
      const fh = await open(tmp, 'r+');
      await fh.sync().finally(() => fh.close());
    }
    try {
      await link(tmp, dest);
    } catch (e) {
      if (code(e) === 'EEXIST') return false;
      throw e;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    await syncDir(dirname(dest));
    return true;
  }

  /** A file already written next to its destination becomes it without a copy. */
  async adopt(key: string, file: string): Promise<boolean> {
    const dest = this.localPath(key);
    try {
      await link(file, dest);
    } catch (e) {
      if (code(e) === 'EEXIST') return false;
      throw e;
    } finally {
      await unlink(file).catch(() => undefined);
    }
    return true;
  }

  async put(key: string, body: Buffer): Promise<void> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    const tmp = tmpName(dest);
    await writeDurable(tmp, body);
    await rename(tmp, dest);
    await syncDir(dirname(dest));
  }

  /**
   * Git's protocol, with the lock naming its writer: take `<ref>.lock` exclusively (its body the
   * writer's identity, writer-id.ts), check the ref still holds what we built on, write the new ref
   * by temp file and rename, drop the lock. Two writers cannot both pass; a lock left by a writer
   * whose process is gone from this host is cleared (lockHolder).
   */
  async swap(key: string, expected: string | null, body: Buffer): Promise<void> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    const lock = `${dest}.lock`;
    await this.clearDeadLock(key);
    let fh;
    try {
      fh = await open(lock, 'wx', 0o644);
    } catch (e) {
      if (code(e) === 'EEXIST')
        throw new BranchMovedError(key, `is being moved by another writer (${await this.lockHolder(key)})`);
      throw e;
    }
    try {
      await fh.writeFile(JSON.stringify(thisWriter()) + '\n');
      await fh.sync();
      await fh.close();
      const cur = await this.read(key);
      const now = cur ? cur.body.toString('utf8').trim() : null;
      if (now !== expected)
        throw new BranchMovedError(key, `now points at ${now ?? 'nothing'}, expected ${expected ?? 'nothing'}`);
      const tmp = tmpName(dest);
      await writeDurable(tmp, body);
      await rename(tmp, dest);
      await syncDir(dirname(dest));
    } finally {
      await fh.close().catch(() => undefined);
      await unlink(lock).catch(() => undefined);
    }
  }

  /** Who holds `<key>.lock`, in words (for the refusal). */
  async lockHolder(key: string): Promise<string> {
    const w = await this.lockWriter(key);
    return w
      ? `${key}.lock is held by process ${w.pid} on ${w.host}`
      : `${key}.lock exists and names no writer; remove it if no writer is running`;
  }

  private async lockWriter(key: string): Promise<WriterId | null> {
    try {
      const w = JSON.parse(await readFile(`${this.localPath(key)}.lock`, 'utf8')) as Partial<WriterId>;
      return typeof w.host === 'string' && Number.isInteger(w.pid) ? (w as WriterId) : null;
    } catch {
      return null;
    }
  }

  /**
   * A `<key>.lock` whose writer's process is gone from this host (killed between lock and rename) is
   * removed; returns whether one was. A live or unknown writer's lock stays.
   */
  async clearDeadLock(key: string): Promise<boolean> {
    const path = `${this.localPath(key)}.lock`;
    const w = await this.lockWriter(key);
    if (w ? writerState(w) !== 'dead' : !(await olderThan(path, UNNAMED_LOCK_STALE_MS))) return false;
    await unlink(path).catch(() => undefined);
    return true;
  }

  /** Before any work: a branch another live writer is moving right now is refused; a dead writer's lock goes. */
  async checkLock(key: string): Promise<void> {
    await this.clearDeadLock(key);
    if (
      await stat(`${this.localPath(key)}.lock`).then(
        () => true,
        () => false,
      )
    )
      throw new BranchMovedError(key, `is being moved by another writer (${await this.lockHolder(key)})`);
  }
}

/**
 * A writer names itself in its lock right after creating it and holds it for well under a second (the
 * ref's swap), so a lock that still names no writer after a minute was left by a process killed in
 * between (or by an fdl that wrote none): nobody can be holding it.
 */
const UNNAMED_LOCK_STALE_MS = 60_000;

async function olderThan(path: string, ms: number): Promise<boolean> {
  return stat(path).then(
    (st) => Date.now() - st.mtimeMs > ms,
    () => false,
  );
}

async function writeDurable(path: string, body: Buffer): Promise<void> {
  const fh = await open(path, 'wx', 0o644);
  try {
    await fh.writeFile(body);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The largest object the host reads whole: a files.json (resolver/version-meta.ts reads it under the same cap). */
const MAX_READ_BYTES = 256 * 1024 * 1024;

export class S3Target implements WriteTarget {
  readonly remote = true;
  readonly location: string;
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;

  /** Reads, existence and listings: the gateway's own S3 store on the same client. */
  readonly store: S3Store;

  constructor(
    url: string,
    readonly options: S3TargetOptions = {},
  ) {
    const at = parseS3Url(url);
    if (!at) throw new Error(`not an s3:// location: ${url}`);
    this.bucket = at.bucket;
    this.prefix = at.prefix;
    this.location = `s3://${this.bucket}/${this.prefix}`;
    this.client = options.client ?? createS3Client(options);
    this.store = new S3Store(this.bucket, this.prefix, { client: this.client });
  }

  private key(key: string) {
    return this.prefix + checkKey(key);
  }

  async read(key: string) {
    const r = await this.store.get(key, { maxBytes: MAX_READ_BYTES });
    return r === null || r === 'not-modified' ? null : { body: r.body, etag: r.etag };
  }

  async exists(key: string) {
    return (await this.store.head(key)) !== null;
  }

  list(prefix: string): Promise<string[]> {
    return this.store.list(prefix);
  }

  listAged(prefix: string): Promise<{ key: string; modified: number }[]> {
    return this.store.listAged(prefix);
  }

  /** Idempotent: retried the store's bounded way. */
  async remove(key: string): Promise<void> {
    await withRetry(`DELETE ${this.location}${key}`, DEFAULT_LIMITS, isTransientS3, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) })),
    );
  }

  private async body(b: Body) {
    if (Buffer.isBuffer(b)) return { Body: b, ContentLength: b.length };
    const size = (await stat(b.file)).size;
    return { Body: readHashing(b.file, b.hash), ContentLength: size };
  }

  /** PutObject with If-None-Match: * — S3 refuses (412) when the key exists. */
  async create(key: string, body: Body): Promise<boolean> {
    // Cheap early answer, and a guard on S3-compatible stores that ignore If-None-Match; the
    // header is what makes it atomic where it is honoured.
    if (await this.exists(key)) return false;
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), IfNoneMatch: '*', ...(await this.body(body)) }),
      );
      return true;
    } catch (e) {
      if (isPreconditionFailed(e)) return false;
      throw e;
    }
  }

  /** Unconditional, so idempotent: retried the store's bounded way. Conditional writes (create, swap) are tried once: a retry after a write that landed would read as "exists" or "moved". */
  async put(key: string, body: Buffer): Promise<void> {
    await withRetry(`PUT ${this.location}${key}`, DEFAULT_LIMITS, isTransientS3, () =>
      this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: body, ContentLength: body.length }),
      ),
    );
  }

  /**
   * Before anything is written: the bucket exists and this client may create and delete objects
   * under the prefix, proven by creating a probe object (`.fdl-write-check-…`, a name readers
   * ignore) and deleting it. Errors name the bucket and prefix.
   */
  async checkWritable(): Promise<void> {
    const probe = `.fdl-write-check-${randomBytes(8).toString('hex')}`;
    const said = (e: unknown) => {
      const err = e as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      const name = err.Code ?? err.name ?? '';
      const tls = tlsProblem(e); // a private CA without --ca-file: named, with what to do
      if (tls) return tls;
      if (name === 'NoSuchBucket') return `bucket ${this.bucket} does not exist`;
      const status = err.$metadata?.httpStatusCode;
      if (name === 'AccessDenied' || status === 403) return `access denied (${name || status})`;
      return `${name ? `${name}: ` : ''}${err.message ?? String(e)}`;
    };
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(probe), Body: Buffer.alloc(0), IfNoneMatch: '*' }),
      );
    } catch (e) {
      throw new Error(`${this.location} is not writable: ${said(e)} (checked before writing anything)`);
    }
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(probe) }));
    } catch (e) {
      throw new Error(
        `${this.location}: objects can be created but not deleted (${said(e)}), and a failed run must remove what it wrote; remove ${probe} there`,
      );
    }
  }

  /** Read the ref and its ETag, compare, then PutObject with If-Match on that ETag (If-None-Match when absent). */
  async swap(key: string, expected: string | null, body: Buffer): Promise<void> {
    const cur = await this.read(key);
    const now = cur ? cur.body.toString('utf8').trim() : null;
    if (now !== expected)
      throw new BranchMovedError(key, `now points at ${now ?? 'nothing'}, expected ${expected ?? 'nothing'}`);
    const cond = cur ? { IfMatch: cur.etag ?? '*' } : { IfNoneMatch: '*' };
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Body: body,
          ContentLength: body.length,
          ...cond,
        }),
      );
    } catch (e) {
      if (isPreconditionFailed(e)) throw new BranchMovedError(key, 'changed while this import ran');
      throw e;
    }
  }
}

export function openTarget(location: string, s3: S3TargetOptions = {}): WriteTarget {
  if (/^s3:\/\//i.test(location)) return new S3Target(location, s3);
  if (/^file:\/\//i.test(location)) return new LocalTarget(fileURLToPath(location));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    throw new Error(`cannot write to ${location}: use a folder, file:// or s3://`);
  return new LocalTarget(location);
}
