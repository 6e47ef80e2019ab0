// Stores under faults: a proxy in front of a real HTTP folder server and a real s3rver injects
// 500/503, dropped connections, slow bodies and wrong Content-Length. Retries are bounded,
// errors are clear, and a failed download never leaves a file (not even a partial temp file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpStore } from '../src/store/http-store.js';
import { S3Store } from '../src/store/s3-store.js';
import { DEFAULT_LIMITS, type ObjectStore, type StoreLimits } from '../src/store/store.js';
import { SqlError } from '../src/errors.js';
import { serveFolder, type HttpFolderServer } from './support/http-server.js';
import { startS3, S3_CREDENTIALS, type S3Server } from './support/s3-server.js';
import { startFaultyProxy, type FaultyProxy } from './support/faulty-proxy.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures');
const REPO = join(FIX, 'repos/basic');
const ID = '01a23632-9cbd-7000-893b-c0fd960a2cf8';
const CATALOG = `versions/${ID}/ducklake.duckdb`;
const LIMITS: StoreLimits = { ...DEFAULT_LIMITS, attempts: 3, backoffMs: 5, timeoutMs: 2000 };

let http: HttpFolderServer;
let s3: S3Server;
let httpProxy: FaultyProxy;
let s3Proxy: FaultyProxy;

before(async () => {
  http = await serveFolder(REPO);
  s3 = await startS3();
  await s3.upload(REPO, 'basic/');
  httpProxy = await startFaultyProxy(http.url);
  s3Proxy = await startFaultyProxy(s3.endpoint);
});
after(async () => {
  await Promise.all([httpProxy?.close(), s3Proxy?.close(), http?.close(), s3?.close()]);
});

const catalogBytes = () => readFile(join(REPO, CATALOG));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const setups: Record<
  string,
  () => { store: (l?: Partial<StoreLimits>) => ObjectStore; proxy: FaultyProxy; path: (k: string) => string }
> = {
  http: () => ({
    store: (l) => new HttpStore(httpProxy.url, { ...LIMITS, ...l }),
    proxy: httpProxy,
    path: (k) => `/${k}`,
  }),
  s3: () => ({
    store: (l) =>
      new S3Store(s3.bucket, 'basic/', {
        endpoint: s3Proxy.url.replace(/\/$/, ''),
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: S3_CREDENTIALS,
        limits: { ...LIMITS, ...l },
      }),
    proxy: s3Proxy,
    path: (k) => `/${s3.bucket}/basic/${k}`,
  }),
};

async function noLeftovers(dir: string): Promise<void> {
  assert.deepEqual(await readdir(dir), [], 'a failed download leaves nothing behind');
}

for (const [kind, setup] of Object.entries(setups)) {
  test(`${kind}: 500/503 are retried (bounded) and then reported as 58030`, async () => {
    const { store, proxy, path } = setup();
    const key = 'refs/heads/main';
    proxy.rules = [{ match: new RegExp(`${path(key)}$`), fault: '500', times: 2 }];
    const before = proxy.requests.get(path(key)) ?? 0;
    const got = await store().get(key);
    assert.ok(got && got !== 'not-modified');
    assert.equal(got.body.toString().trim(), (await readFile(join(REPO, key), 'utf8')).trim());
    assert.equal((proxy.requests.get(path(key)) ?? 0) - before, 3, 'two failures, one success');

    proxy.rules = [{ match: new RegExp(`${path(key)}$`), fault: '503' }];
    const b2 = proxy.requests.get(path(key)) ?? 0;
    await assert.rejects(
      store().get(key),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '58030' && /503|failed/.test(e.message),
    );
    assert.equal((proxy.requests.get(path(key)) ?? 0) - b2, LIMITS.attempts, 'exactly `attempts` tries');
    proxy.rules = [];
  });

  test(`${kind}: a connection dropped mid-body is retried; when it keeps dropping, no file appears`, async () => {
    const { store, proxy, path } = setup();
    const dir = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    const want = await catalogBytes();
    proxy.rules = [{ match: new RegExp(`${path(CATALOG)}$`), fault: 'drop-mid-body', times: 1 }];
    await store().download(CATALOG, join(dir, 'cat.duckdb'), { sha256: sha(want), expectedSize: want.length });
    assert.ok((await readFile(join(dir, 'cat.duckdb'))).equals(want));

    const dir2 = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    proxy.rules = [{ match: new RegExp(`${path(CATALOG)}$`), fault: 'drop-mid-body' }];
    await assert.rejects(
      store().download(CATALOG, join(dir2, 'cat.duckdb'), { sha256: sha(want) }),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '58030',
    );
    await noLeftovers(dir2);
    // refs read with get() are never returned half
    proxy.rules = [{ match: /fdl\.json$/, fault: 'drop-mid-body' }];
    await assert.rejects(store().get('fdl.json'), SqlError);
    proxy.rules = [];
  });

  test(`${kind}: wrong Content-Length (too long: truncated; too short: cut-off object) never yields a file`, async () => {
    const { store, proxy, path } = setup();
    const want = await catalogBytes();
    const dir = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    proxy.rules = [{ match: new RegExp(`${path(CATALOG)}$`), fault: 'short-body', times: 1 }];
    await store().download(CATALOG, join(dir, 'a.duckdb'), { sha256: sha(want) });
    assert.ok((await readFile(join(dir, 'a.duckdb'))).equals(want), 'retried after the truncated body');

    const dir2 = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    proxy.rules = [{ match: new RegExp(`${path(CATALOG)}$`), fault: 'long-body' }];
    await assert.rejects(
      store().download(CATALOG, join(dir2, 'b.duckdb'), { sha256: sha(want), expectedSize: want.length }),
      (e: unknown) => e instanceof SqlError && e.sqlstate === 'XX001' && /mismatch/.test(e.message),
    );
    await noLeftovers(dir2);
    proxy.rules = [];
  });

  test(`${kind}: slow bodies finish within the idle timeout and fail cleanly beyond it`, async () => {
    const { store, proxy, path } = setup();
    const key = `versions/${ID}/files.json`;
    const want = await readFile(join(REPO, key));
    const dir = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    proxy.rules = [{ match: new RegExp(`${path(key)}$`), fault: 'slow-body', delayMs: 5 }];
    await store().download(key, join(dir, 'f.json'), { expectedSize: want.length });
    assert.ok((await readFile(join(dir, 'f.json'))).equals(want));
    const dir2 = await mkdtemp(join(tmpdir(), 'fdl-store-'));
    const big = await catalogBytes();
    proxy.rules = [{ match: new RegExp(`${path(CATALOG)}$`), fault: 'slow-body', delayMs: 400 }];
    const t0 = Date.now();
    await assert.rejects(
      store({ timeoutMs: 150, attempts: 2 }).download(CATALOG, join(dir2, 'c.duckdb'), { sha256: sha(big) }),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '58030',
    );
    assert.ok(Date.now() - t0 < 5000, 'bounded');
    await noLeftovers(dir2);
    proxy.rules = [];
  });
}

test('http: size cap on get() refuses huge bodies without reading them whole', async () => {
  const store = new HttpStore(http.url, LIMITS);
  await assert.rejects(store.get(CATALOG, { maxBytes: 1000 }), /larger than 1000 bytes/);
  await assert.rejects(store.get('../etc/passwd'), /invalid object key/);
  assert.equal((store as ObjectStore).list, undefined, 'HTTP cannot list');
});
