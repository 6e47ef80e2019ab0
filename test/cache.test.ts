// FileCache and RefCache against a real HTTP server: crash safety, byte budget with pinned
// files, single flight, restart, TTL + ETag revalidation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile, cp, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileCache } from '../src/cache/file-cache.js';
import { RefCache } from '../src/cache/ref-cache.js';
import { HttpStore } from '../src/store/http-store.js';
import { openRepository } from '../src/resolver/index.js';
import { serveFolder, type HttpFolderServer } from './support/http-server.js';
import { startFaultyProxy, type FaultyProxy } from './support/faulty-proxy.js';
import { waitFor } from './support/gateway.js';

const HERE = fileURLToPath(import.meta.url);
const FIX = resolve(HERE, '../../../test/fixtures');
const REPO = join(FIX, 'repos/basic');
const IDS = [
  '01a23632-9cbd-7000-893b-c0fd960a2cf8',
  '01a23632-9daf-7000-9dda-53ba8df94528',
  '01a23632-9f61-7000-98bf-ccc5fd8185d4',
  '01a23632-a077-7000-b875-3ca04132821d',
];
const cat = (id: string) => `versions/${id}/ducklake.duckdb`;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const tmp = () => mkdtemp(join(tmpdir(), 'fdl-cache-'));

let http: HttpFolderServer;
let proxy: FaultyProxy;
before(async () => {
  http = await serveFolder(REPO);
  proxy = await startFaultyProxy(http.url);
});
after(async () => {
  await proxy?.close();
  await http?.close();
});

async function spec(id: string) {
  const b = await readFile(join(REPO, cat(id)));
  return { sha256: sha(b), size: b.length };
}

/** Files in the cache directory and its stores' areas (one level of folders), relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) for (const f of await readdir(join(dir, e.name))) out.push(join(e.name, f));
    else out.push(e.name);
  }
  return out;
}

test('single flight: 20 concurrent acquires download once; a restart reuses the file', async () => {
  const dir = await tmp();
  const cache = await FileCache.open(dir);
  const store = new HttpStore(http.url);
  const s = await spec(IDS[0]!);
  const before = http.requests.get(`/${cat(IDS[0]!)}`) ?? 0;
  const leases = await Promise.all(Array.from({ length: 20 }, () => cache.acquire(store, cat(IDS[0]!), s)));
  assert.equal((http.requests.get(`/${cat(IDS[0]!)}`) ?? 0) - before, 1, 'one request at the server');
  assert.equal(new Set(leases.map((l) => l.path)).size, 1);
  assert.equal(sha(await readFile(leases[0]!.path)), s.sha256);
  const st = cache.stats();
  assert.equal(st.downloads, 1);
  assert.equal(st.entries, 1);
  assert.equal(st.bytes, s.size);
  assert.equal(st.pinned, 1);
  leases.forEach((l) => l.release());
  leases[0]!.release(); // idempotent
  assert.equal(cache.stats().pinned, 0);
  const reopened = await FileCache.open(dir);
  assert.equal(reopened.stats().entries, 1);
  const l = await reopened.acquire(store, cat(IDS[0]!), s);
  assert.equal(reopened.stats().hits, 1);
  assert.equal(reopened.stats().downloads, 0);
  assert.equal((http.requests.get(`/${cat(IDS[0]!)}`) ?? 0) - before, 1, 'no new request after restart');
  l.release();
});

test('byte budget: least recently used unpinned files are evicted, pinned ones never', async () => {
  const specs = await Promise.all(IDS.map(spec));
  const max = Math.max(...specs.map((s) => s.size));
  const cache = await FileCache.open(await tmp(), { maxBytes: Math.floor(max * 2.5) });
  const store = new HttpStore(http.url);
  const pinned = await cache.acquire(store, cat(IDS[0]!), specs[0]); // oldest, but in use
  const b = await cache.acquire(store, cat(IDS[1]!), specs[1]);
  b.release();
  const c = await cache.acquire(store, cat(IDS[2]!), specs[2]);
  c.release();
  const d = await cache.acquire(store, cat(IDS[3]!), specs[3]);
  const st = cache.stats();
  assert.ok(st.bytes <= st.maxBytes, JSON.stringify(st));
  assert.ok(st.evictions >= 1);
  assert.ok(existsSync(pinned.path), 'the pinned file survived although it is the least recently used');
  assert.ok(!existsSync(b.path), 'the LRU unpinned file went first');
  // everything pinned: the cache goes over budget rather than removing a file in use
  const e = await cache.acquire(store, cat(IDS[1]!), specs[1]);
  const all = [pinned, d, e];
  assert.ok(all.every((l) => existsSync(l.path)));
  all.forEach((l) => l.release());
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(cache.stats().bytes <= cache.stats().maxBytes, 'released files are evicted down to the budget');
});

test('a failed verification leaves nothing; a download killed mid-way leaves no complete-looking file', async () => {
  const dir = await tmp();
  const cache = await FileCache.open(dir);
  const store = new HttpStore(http.url, { attempts: 1, backoffMs: 1, timeoutMs: 5000, maxGetBytes: 1 << 20 });
  await assert.rejects(cache.acquire(store, cat(IDS[0]!), { sha256: '0'.repeat(64) }), /sha256 mismatch/);
  assert.deepEqual(await filesUnder(dir), []);
  assert.equal(cache.stats().pinned, 0);

  // a separate process downloads through a slow proxy and is killed with SIGKILL mid-transfer
  const crashDir = await tmp();
  const s = await spec(IDS[1]!);
  proxy.rules = [{ match: /ducklake\.duckdb$/, fault: 'slow-body', delayMs: 30 }];
  const dist = resolve(HERE, '../../src');
  const script = `
    const { FileCache } = await import(${JSON.stringify(join(dist, 'cache/file-cache.js'))});
    const { HttpStore } = await import(${JSON.stringify(join(dist, 'store/http-store.js'))});
    const cache = await FileCache.open(${JSON.stringify(crashDir)});
    await cache.acquire(new HttpStore(${JSON.stringify(proxy.url)}), ${JSON.stringify(cat(IDS[1]!))}, ${JSON.stringify(s)});
    console.log('finished');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  const exited = new Promise((r) => child.once('exit', r)); // listened for from the start, should it end first
  // wait until some bytes are on disk, then kill
  for (let i = 0; i < 200; i++) {
    const names = await filesUnder(crashDir);
    const sizes = await Promise.all(names.map((n) => stat(join(crashDir, n)).then((x) => x.size)));
    if (sizes.some((x) => x > 4096)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  await exited;
  proxy.rules = [];
  assert.equal(out, '', 'the download was interrupted');
  const left = await filesUnder(crashDir);
  assert.ok(left.length > 0 && left.every((n) => n.includes('.part-')), `only temp files remain: ${left}`);
  const reopened = await FileCache.open(crashDir);
  assert.equal(reopened.stats().entries, 0);
  assert.deepEqual(await filesUnder(crashDir), [], 'restart removes the interrupted temp file');
  const l = await reopened.acquire(new HttpStore(http.url), cat(IDS[1]!), s);
  assert.equal(sha(await readFile(l.path)), s.sha256);
  l.release();
});

test('RefCache: TTL, ETag revalidation (304), single flight; repositories see a moved branch after the TTL', async (t) => {
  // The TTL runs on a mocked clock (Date only: sockets and file times stay real).
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const root = join(await tmp(), 'repo');
  await cp(REPO, root, { recursive: true });
  await chmod(join(root, 'refs/heads'), 0o755);
  await chmod(join(root, 'refs/heads/dev'), 0o644);
  const srv = await serveFolder(root);
  try {
    const store = new HttpStore(srv.url);
    const refs = new RefCache({ ttlMs: 300 });
    const key = '/refs/heads/dev';
    const all = await Promise.all(Array.from({ length: 10 }, () => refs.get(store, 'refs/heads/dev', 4096)));
    assert.equal(srv.requests.get(key), 1, 'concurrent lookups share one request');
    assert.ok(all.every((b) => b?.equals(all[0]!)));
    await refs.get(store, 'refs/heads/dev', 4096);
    assert.equal(srv.requests.get(key), 1, 'within the TTL no request');
    t.mock.timers.tick(299);
    await refs.get(store, 'refs/heads/dev', 4096);
    assert.equal(srv.requests.get(key), 1, 'still within the TTL at 299 ms');
    t.mock.timers.tick(2);
    await refs.get(store, 'refs/heads/dev', 4096);
    assert.equal(srv.requests.get(key), 2, 'revalidated once the TTL has passed');
    assert.equal(srv.notModified.get(key), 1, 'revalidated with If-None-Match');
    assert.equal(refs.stats().notModified, 1);
    assert.equal(await refs.get(store, 'refs/heads/none', 4096), null);

    const repoRefs = new RefCache({ ttlMs: 600 });
    const repo = await openRepository('b', store, { refCache: repoRefs, cacheDir: await tmp() });
    const before = (await repo.resolve('dev')).versionId;
    await new Promise((r) => setTimeout(r, 20)); // mtime must differ for the server's ETag
    await writeFile(join(root, 'refs/heads/dev'), `${IDS[0]}\n`);
    assert.equal((await repo.resolve('dev')).versionId, before, 'cached within the TTL');
    t.mock.timers.tick(599);
    assert.equal((await repo.resolve('dev')).versionId, before, 'still cached at 599 ms');
    t.mock.timers.tick(2);
    assert.equal((await repo.resolve('dev')).versionId, IDS[0], 'seen after the TTL');
    refs.invalidate(store);
    assert.equal(refs.stats().entries, 0);
  } finally {
    await srv.close();
  }
});

test('a download that fails among parallel ones leaves no file pinned (the others finish and are released)', async () => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { openCatalog } = await import('../src/lake/index.js');
  const fileCache = await FileCache.open(await tmp(), { downloadConcurrency: 4 });
  const repo = await openRepository('b', new HttpStore(proxy.url), {
    fileCache,
    cacheDir: await tmp(),
    signatures: 'off',
  });
  const version = await repo.openVersion(IDS[1]!);
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    const catalog = await openCatalog(conn, version.catalogFile, 'meta');
    const files = catalog.tables.flatMap((t) => t.files.map((f) => ({ path: f.path, size: f.size })));
    assert.ok(files.length >= 3, `several files: ${files.length}`);
    // one file fails at once (every retry too); the others arrive slowly, after the failure
    const failing = files[0]!.path.split('/').pop()!;
    proxy.rules = [
      { match: new RegExp(failing.replace(/[.]/g, '\\.')), fault: '500' },
      { match: /\.parquet$/, fault: 'slow-body', delayMs: 600 },
    ];
    const pinnedBefore = fileCache.stats().pinned; // the version's catalog
    await assert.rejects(version.ensureFiles(files), (e: { sqlstate?: string; message?: string }) => {
      assert.equal(e.sqlstate, '58030', e.message);
      return true;
    });
    proxy.rules = [];
    // what was still downloading when the failure was reported finishes afterwards
    await waitFor(() => fileCache.stats().entries >= files.length - 1, 'the other downloads to finish', 20_000);
    assert.equal(fileCache.stats().pinned, pinnedBefore, 'no pin left behind');
  } finally {
    proxy.rules = [];
    conn.closeSync();
    inst.closeSync();
    version.close();
  }
});
