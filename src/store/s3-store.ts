/**
 * A repository under s3://bucket/prefix/ through @aws-sdk/client-s3 with the standard
 * credential chain. Endpoint, region and path style reach MinIO, R2 or s3rver. The SDK's own
 * retries are off so that every store retries the same bounded way (including mid-body breaks).
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { SqlError, SQLSTATE } from '../errors.js';
import {
  DEFAULT_LIMITS,
  checkKey,
  ioError,
  mismatch,
  tooLarge,
  type DownloadOptions,
  type GetOptions,
  type GetResult,
  type ObjectStore,
  type StoreLimits,
  AbsentObjectError,
} from './store.js';
import { TransientError, withRetry } from './retry.js';
import { writeVerified } from './verified-write.js';
import { RANGED_MIN_BYTES, writeVerifiedRanged, type RangeSource } from './ranged-write.js';
import {
  createS3Client,
  httpStatus as status,
  isAbsent,
  isTransientS3 as transient,
  parseS3Url,
  type S3ClientOptions,
} from './s3-client.js';

export interface S3StoreOptions extends S3ClientOptions {
  limits?: StoreLimits;
  /** A client already made (the publisher's target shares its own; tests add middleware). */
  client?: S3Client;
}

export class S3Store implements ObjectStore {
  readonly location: string;
  readonly client: S3Client;
  private readonly limits: StoreLimits;

  constructor(
    readonly bucket: string,
    readonly prefix: string,
    options: S3StoreOptions = {},
  ) {
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.location = `s3://${bucket}/${this.prefix}`;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.client = options.client ?? createS3Client(options);
  }

  static fromUrl(url: string, options: S3StoreOptions = {}): S3Store {
    const at = parseS3Url(url);
    if (!at) throw ioError(`not an s3:// location: ${url}`);
    return new S3Store(at.bucket, at.prefix, options);
  }

  private key(key: string): string {
    return this.prefix + checkKey(key);
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.limits.timeoutMs);
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    const max = options.maxBytes ?? this.limits.maxGetBytes;
    return withRetry(`GET ${this.location}${key}`, this.limits, transient, async () => {
      let res;
      try {
        res = await this.client.send(
          new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key), IfNoneMatch: options.ifNoneMatch }),
          { abortSignal: this.signal() },
        );
      } catch (e) {
        if (status(e) === 304 || (e as { name?: string }).name === 'NotModified') return 'not-modified';
        if (isAbsent(e)) return null;
        throw e;
      }
      const body = res.Body as Readable | undefined;
      if (res.ContentLength !== undefined && res.ContentLength > max) {
        body?.destroy();
        throw tooLarge(this.location, key, max);
      }
      const chunks: Buffer[] = [];
      let n = 0;
      try {
        for await (const c of body ?? []) {
          n += (c as Buffer).length;
          if (n > max) throw tooLarge(this.location, key, max);
          chunks.push(c as Buffer);
        }
      } catch (e) {
        body?.destroy();
        if (e instanceof SqlError) throw e;
        throw new TransientError('transfer interrupted', e);
      }
      if (res.ContentLength !== undefined && n !== res.ContentLength)
        throw new TransientError(`body has ${n} bytes, Content-Length said ${res.ContentLength}`);
      return { body: Buffer.concat(chunks), etag: res.ETag };
    });
  }

  async head(key: string): Promise<{ size: number; etag?: string } | null> {
    return withRetry(`HEAD ${this.location}${key}`, this.limits, transient, async () => {
      try {
        const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }), {
          abortSignal: this.signal(),
        });
        return { size: res.ContentLength ?? 0, etag: res.ETag };
      } catch (e) {
        if (isAbsent(e)) return null;
        throw e;
      }
    });
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listAged(prefix)).map((o) => o.key);
  }

  /** Keys under `prefix`, sorted, with their last-modified time (ms since the epoch). */
  async listAged(prefix: string): Promise<{ key: string; modified: number }[]> {
    const out: { key: string; modified: number }[] = [];
    let token: string | undefined;
    do {
      const page = await withRetry(`LIST ${this.location}${prefix}`, this.limits, transient, () =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }),
          { abortSignal: this.signal() },
        ),
      );
      for (const o of page.Contents ?? [])
        if (o.Key?.startsWith(this.prefix))
          out.push({ key: o.Key.slice(this.prefix.length), modified: o.LastModified?.getTime() ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async download(key: string, dest: string, options: DownloadOptions = {}): Promise<void> {
    const retryable = (e: unknown) => transient(e) || (e instanceof SqlError && e.sqlstate === SQLSTATE.dataCorrupted);
    // large objects in parallel byte ranges (the store must honour Range; else one stream, as below)
    let ranged = options.expectedSize !== undefined && options.expectedSize >= RANGED_MIN_BYTES;
    await withRetry(`download ${this.location}${key}`, this.limits, retryable, async () => {
      if (ranged) {
        try {
          await writeVerifiedRanged(
            options.expectedSize!,
            (start, end) => this.range(key, start, end, options.expectedSize!),
            dest,
            {
              ...options,
              key,
              location: this.location,
              idleMs: this.limits.timeoutMs,
            },
          );
          return;
        } catch (e) {
          if (!(e instanceof RangeUnsupported)) throw e;
          ranged = false;
        }
      }
      const res = await this.getObject(key);
      const body = res.Body as Readable;
      await writeVerified(
        {
          body,
          declaredLength: res.ContentLength,
          abort: () => body.destroy(new TransientError('transfer stalled')),
          idleMs: this.limits.timeoutMs,
        },
        dest,
        {
          ...options,
          key,
          location: this.location,
        },
      );
    });
  }

  /** GetObject (all of it, or one Range) with its response due within the timeout; an absent key is an io error. */
  private async getObject(key: string, range?: string) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.limits.timeoutMs);
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key), Range: range }), {
        abortSignal: ctl.signal,
      });
    } catch (e) {
      if (isAbsent(e)) throw new AbsentObjectError(key, `${key} does not exist in ${this.location}`);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One byte range [start, end] of an object that must be `size` bytes long. */
  private async range(key: string, start: number, end: number, size: number): Promise<RangeSource> {
    const res = await this.getObject(key, `bytes=${start}-${end}`);
    const body = res.Body as Readable;
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.ContentRange ?? '');
    if (!m || Number(m[1]) !== start || Number(m[2]) !== end) {
      body.destroy();
      throw new RangeUnsupported();
    }
    if (m[3] !== '*' && Number(m[3]) !== size) {
      body.destroy();
      throw mismatch('size', key, this.location, `expected ${size} bytes, the store holds ${m[3]}`);
    }
    return { body, abort: () => body.destroy(new TransientError('transfer stalled')) };
  }
}

/** The store answered a range request with something else (the whole object): download it in one stream. */
class RangeUnsupported extends Error {}
