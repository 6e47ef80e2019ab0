/**
 * A read-only repository over HTTP(S) with the global fetch. It cannot list (the resolver then
 * uses refs.json); conditional GETs (If-None-Match) make ref revalidation cheap. Redirects are
 * followed only within the repository's origin: whoever can write the served files could otherwise
 * point the gateway at any URL it can reach (a cloud metadata endpoint) and read the answer back.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import {
  DEFAULT_LIMITS,
  checkKey,
  ioError,
  tooLarge,
  type DownloadOptions,
  type GetOptions,
  type GetResult,
  type ObjectStore,
  type StoreLimits,
  AbsentObjectError,
} from './store.js';
import { isConnectionError, TransientError, withRetry } from './retry.js';
import { writeVerified } from './verified-write.js';

class HttpStatusError extends TransientError {
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`HTTP ${status} for ${url}`);
  }
}

const MAX_REDIRECTS = 5;
const REDIRECT = new Set([301, 302, 303, 307, 308]);

const transient = (e: unknown) =>
  e instanceof HttpStatusError ? e.status >= 500 || e.status === 429 : isConnectionError(e);

export class HttpStore implements ObjectStore {
  readonly location: string;
  private readonly base: URL;

  constructor(
    location: string,
    private readonly limits: StoreLimits = DEFAULT_LIMITS,
  ) {
    this.base = new URL(location.endsWith('/') ? location : `${location}/`);
    if (this.base.protocol !== 'https:' && this.base.protocol !== 'http:')
      throw ioError(`not an http(s) location: ${location}`);
    this.location = this.base.href;
  }

  private url(key: string): string {
    // each component is percent-encoded so a key can never change the URL's path structure
    return new URL(checkKey(key).split('/').map(encodeURIComponent).join('/'), this.base).href;
  }

  /**
   * One request: headers must arrive within timeoutMs. Returns the response with its abort handle.
   * Same-origin redirects are followed (a few); one to another origin is refused naming the key only.
   */
  private async request(
    key: string,
    url: string,
    method: string,
    headers: Record<string, string>,
  ): Promise<{ res: Response; abort: () => void }> {
    const ctl = new AbortController();
    const timer = setTimeout(
      () => ctl.abort(new TransientError(`no response within ${this.limits.timeoutMs} ms`)),
      this.limits.timeoutMs,
    );
    try {
      let at = url;
      for (let hops = 0; ; hops++) {
        const res = await fetch(at, { method, headers, signal: ctl.signal, redirect: 'manual' });
        if (!REDIRECT.has(res.status)) return { res, abort: () => ctl.abort(new TransientError('transfer stalled')) };
        await res.body?.cancel();
        const location = res.headers.get('location');
        let next: URL | null = null;
        try {
          next = location === null ? null : new URL(location, at);
        } catch {
          next = null;
        }
        if (next === null || next.origin !== this.base.origin)
          throw ioError(`refusing ${key} of ${this.location}: the server redirects it to another origin`);
        if (hops >= MAX_REDIRECTS)
          throw ioError(`refusing ${key} of ${this.location}: more than ${MAX_REDIRECTS} redirects`);
        at = next.href;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    const url = this.url(key);
    const max = options.maxBytes ?? this.limits.maxGetBytes;
    return withRetry(`GET ${url}`, this.limits, transient, async () => {
      const headers: Record<string, string> = {};
      if (options.ifNoneMatch) headers['if-none-match'] = options.ifNoneMatch;
      const { res, abort } = await this.request(key, url, 'GET', headers);
      if (res.status === 304) return 'not-modified';
      if (res.status === 404 || res.status === 410) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        await res.body?.cancel();
        if (res.status >= 500 || res.status === 429) throw new HttpStatusError(res.status, url);
        throw ioError(`HTTP ${res.status} for ${url}`);
      }
      const declared = res.headers.get('content-length');
      if (declared !== null && Number(declared) > max) {
        await res.body?.cancel();
        throw tooLarge(this.location, key, max);
      }
      const body = await readCapped(res, max, this.limits.timeoutMs, abort, () => tooLarge(this.location, key, max));
      if (declared !== null && body.length !== Number(declared))
        throw new TransientError(`body has ${body.length} bytes, Content-Length said ${declared}`);
      return { body, etag: res.headers.get('etag') ?? undefined };
    });
  }

  async head(key: string): Promise<{ size: number; etag?: string } | null> {
    const url = this.url(key);
    return withRetry(`HEAD ${url}`, this.limits, transient, async () => {
      const { res } = await this.request(key, url, 'HEAD', {});
      if (res.status === 404 || res.status === 410) return null;
      if (res.status >= 500 || res.status === 429) throw new HttpStatusError(res.status, url);
      if (!res.ok) throw ioError(`HTTP ${res.status} for ${url}`);
      return { size: Number(res.headers.get('content-length') ?? NaN), etag: res.headers.get('etag') ?? undefined };
    });
  }

  async download(key: string, dest: string, options: DownloadOptions = {}): Promise<void> {
    const url = this.url(key);
    // a mismatch may come from a broken transfer, so it is retried too (bounded); the last one is reported
    const retryable = (e: unknown) => transient(e) || (e instanceof SqlError && e.sqlstate === SQLSTATE.dataCorrupted);
    await withRetry(`download ${url}`, this.limits, retryable, async () => {
      const { res, abort } = await this.request(key, url, 'GET', {});
      if (res.status === 404 || res.status === 410) {
        await res.body?.cancel();
        throw new AbsentObjectError(key, `${key} does not exist in ${this.location} (HTTP ${res.status})`);
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        if (res.status >= 500 || res.status === 429) throw new HttpStatusError(res.status, url);
        throw ioError(`HTTP ${res.status} for ${url}`);
      }
      const declared = res.headers.get('content-length');
      await writeVerified(
        {
          body: res.body as unknown as AsyncIterable<Uint8Array>,
          declaredLength: declared === null ? undefined : Number(declared),
          abort,
          idleMs: this.limits.timeoutMs,
        },
        dest,
        { ...options, key, location: this.location },
      );
    });
  }
}

/** Reads a body into memory, refusing more than `max` bytes and stalls longer than `idleMs`. */
async function readCapped(
  res: Response,
  max: number,
  idleMs: number,
  abort: () => void,
  tooBig: () => Error,
): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let n = 0;
  let timer = setTimeout(abort, idleMs);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(abort, idleMs);
      n += chunk.length;
      if (n > max) {
        abort();
        throw tooBig();
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (e) {
    if (e instanceof SqlError) throw e;
    throw new TransientError('transfer interrupted', e);
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks);
}
