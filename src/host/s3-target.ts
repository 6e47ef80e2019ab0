/**
 * A repository's writing side on S3 (write-target.ts), through store/'s client set-up
 * (s3-client.ts); reads, existence and listings through an S3Store on the same client (its bounded
 * retries and size cap). Creates and swaps are conditional writes (If-None-Match, If-Match), tried once.
 */
import { stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
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
import { tlsProblem } from '../store/tls-trust.js';
import { BranchMovedError, readHashing, type Body, type WriteTarget } from './write-target.js';

export interface S3TargetOptions extends S3ClientOptions {
  /** Tests pass their own client (e.g. with a header-recording middleware). */
  client?: S3Client;
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
