// The same resolution rules and negative fixtures through S3Store (real s3rver) and HttpStore
// (a folder served over node:http, which cannot list: refs.json is the index there).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cp, writeFile } from 'node:fs/promises';
import { openStore, type ObjectStore } from '../src/store/index.js';
import { S3Store } from '../src/store/s3-store.js';
import { HttpStore } from '../src/store/http-store.js';
import { FileCache } from '../src/cache/file-cache.js';
import { openRepository } from '../src/resolver/index.js';
import { SqlError } from '../src/errors.js';
import { startS3, S3_CREDENTIALS, type S3Server } from './support/s3-server.js';
import { serveFolder, type HttpFolderServer } from './support/http-server.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures');
const SIGNERS = join(FIX, 'keys/allowed_signers');
const NEG = readdirSync(join(FIX, 'negative')).sort();
const LAKE_CASES = new Set(['path_absolute', 'path_escape_relative', 'glob_in_path']);
const tmp = () => mkdtemp(join(tmpdir(), 'fdl-stores-'));

let s3: S3Server;
let http: HttpFolderServer;

before(async () => {
  s3 = await startS3();
  await s3.upload(join(FIX, 'repos/basic'), 'basic/');
  for (const n of NEG) await s3.upload(join(FIX, 'negative', n, 'repo'), `neg/${n}/`);
  http = await serveFolder(FIX);
});
after(async () => {
  await s3?.close();
  await http?.close();
});

const backends: Record<string, (path: 'basic' | string) => ObjectStore> = {
  s3: (p) =>
    new S3Store(s3.bucket, p === 'basic' ? 'basic/' : `neg/${p}/`, {
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: S3_CREDENTIALS,
    }),
  http: (p) => new HttpStore(`${http.url}${p === 'basic' ? 'repos/basic/' : `negative/${p}/repo/`}`),
};

for (const [kind, make] of Object.entries(backends)) {
  test(`${kind}: basic resolves every ref, downloads and verifies catalogs into the file cache`, async () => {
    const manifest = JSON.parse(readFileSync(join(FIX, 'manifest.json'), 'utf8')).repos.basic as {
      refs: Record<string, string>;
      versions: { id: string }[];
    };
    const cacheDir = await tmp();
    const fileCache = await FileCache.open(join(cacheDir, 'files'));
    const repo = await openRepository('basic', make('basic'), {
      signatures: 'require',
      allowedSigners: SIGNERS,
      cacheDir,
      fileCache,
    });
    for (const [full, id] of Object.entries(manifest.refs))
      assert.equal((await repo.resolve(full.slice(5))).versionId, id);
    assert.equal((await repo.resolve('')).versionId, manifest.refs['refs/heads/main']);
    assert.deepEqual(Object.fromEntries((await repo.listRefs()).map((r) => [r.name, r.versionId])), manifest.refs);
    for (const { id } of manifest.versions) {
      const v = await repo.openVersion(id);
      assert.equal(v.signature.status, 'G');
      const local = readFileSync(join(FIX, 'repos/basic/versions', id, 'ducklake.duckdb'));
      assert.ok(readFileSync(v.catalogFile).equals(local), 'the cached catalog is byte-identical');
      assert.ok(v.catalogFile.startsWith(join(cacheDir, 'files')));
      // data files: locate() is stable before and after ensureFiles() downloads them
      const files = JSON.parse(readFileSync(join(FIX, 'repos/basic/versions', id, 'files.json'), 'utf8')) as {
        tables: Record<string, { files: { path: string; size: number }[] }>;
      };
      const wanted = Object.values(files.tables)
        .flatMap((t) => t.files)
        .slice(0, 3);
      const where = wanted.map((f) => v.locate(f.path));
      const lease = await v.ensureFiles(wanted);
      wanted.forEach((f, i) =>
        assert.ok(readFileSync(where[i]!).equals(readFileSync(join(FIX, 'repos/basic/data', f.path)))),
      );
      lease.release();
      v.close();
    }
    const st = fileCache.stats();
    assert.equal(st.downloads, st.entries);
    await assert.rejects(repo.resolve('nope'), /unknown ref "nope"/);
    const id = manifest.refs['refs/tags/v1']!;
    assert.equal((await repo.resolve(id)).kind, 'version');
    // a second repository on the same cache dir hits the cache
    const again = await openRepository('basic', make('basic'), {
      signatures: 'require',
      allowedSigners: SIGNERS,
      cacheDir,
      fileCache: await FileCache.open(join(cacheDir, 'files')),
    });
    (await again.openVersion(id)).close();
  });

  test(`${kind}: every negative fixture`, async () => {
    for (const name of NEG) {
      const expect = JSON.parse(await readFile(join(FIX, 'negative', name, 'expect.json'), 'utf8')) as {
        checks: {
          resolve: string;
          outcome: string;
          error?: string;
          policy?: 'require' | 'prefer';
          version?: string;
          verified?: boolean;
        }[];
      };
      for (const c of expect.checks) {
        const label = `${kind} ${name} ${JSON.stringify(c.resolve)} ${c.policy ?? ''}`;
        const run = async () => {
          const cacheDir = await tmp();
          const repo = await openRepository(name, make(name), {
            signatures: c.policy ?? 'require',
            allowedSigners: SIGNERS,
            cacheDir,
            refTtlMs: 0,
          });
          const r = await repo.resolve(c.resolve);
          const v = await repo.openVersion(r.versionId);
          return { r, v };
        };
        if (LAKE_CASES.has(name)) {
          const { v } = await run();
          if (c.outcome === 'refuse')
            assert.throws(() => v.locate(c.error!.slice(c.error!.indexOf(': ') + 2)), /outside data_dir/, label);
        } else if (c.outcome === 'refuse') {
          await assert.rejects(run(), (e: unknown) => e instanceof SqlError && e.message.includes(c.error!), label);
        } else {
          const { r, v } = await run();
          assert.equal(r.versionId, c.version, label);
          if (c.verified === false) assert.notEqual(v.signature.status, 'G', label);
        }
      }
    }
  });
}

test('s3: tampered catalog is refused and never lands in the cache; openStore parses s3:// and http://', async () => {
  const cacheDir = await tmp();
  const store = backends.s3!('tampered_catalog');
  const repo = await openRepository('t', store, { signatures: 'require', allowedSigners: SIGNERS, cacheDir });
  await assert.rejects(
    repo.openVersion((await repo.resolve('main')).versionId),
    (e: unknown) =>
      e instanceof SqlError && e.sqlstate === 'XX001' && /sha256 mismatch: ducklake.duckdb/.test(e.message),
  );
  const left = readdirSync(join(cacheDir, 'files'), { recursive: true, withFileTypes: true }).filter(
    (e) => !e.isDirectory(),
  );
  assert.deepEqual(left, [], 'no file, not even a temp file, is left behind');
  const viaUrl = await openStore(`s3://${s3.bucket}/basic/`, {
    s3: { endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1' },
  });
  assert.equal(viaUrl.location, `s3://${s3.bucket}/basic/`);
  const h = await openStore(`${http.url}repos/basic`);
  const fdl = await h.get('fdl.json');
  assert.ok(fdl && fdl !== 'not-modified');
  assert.equal(
    createHash('sha256').update(fdl.body).digest('hex'),
    createHash('sha256')
      .update(readFileSync(join(FIX, 'repos/basic/fdl.json')))
      .digest('hex'),
  );
  assert.equal(await h.get('fdl.json', { ifNoneMatch: fdl.etag }), 'not-modified');
  assert.equal(await h.get('nope'), null);
  assert.equal(existsSync(cacheDir), true);
});

test('s3: listing paginates past 1000 keys and conditional GET answers not-modified', async () => {
  const { PutObjectCommand } = await import('@aws-sdk/client-s3');
  const keys = Array.from({ length: 1005 }, (_, i) => `many/refs/heads/b${String(i).padStart(4, '0')}`);
  for (let i = 0; i < keys.length; i += 50)
    await Promise.all(
      keys.slice(i, i + 50).map((k) => s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: k, Body: 'x' }))),
    );
  const store = new S3Store(s3.bucket, 'many/', {
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3_CREDENTIALS,
  });
  assert.equal((await store.list('refs/')).length, 1005);
  const got = await store.get('refs/heads/b0001');
  assert.ok(got && got !== 'not-modified' && got.etag);
  assert.equal(await store.get('refs/heads/b0001', { ifNoneMatch: got.etag }), 'not-modified');
  assert.equal(await store.get('refs/heads/none'), null);
  assert.equal(await store.head('refs/heads/none'), null);
  assert.equal((await store.head('refs/heads/b0001'))!.size, 1);
});

test('http: a redirect to another origin is refused (58030, naming the key only) and never followed; a same-origin redirect is followed', async () => {
  const SECRET = 'AKIA-EXAMPLE-aws_secret_access_key=wJalrXUtnFEMI';
  // what a cloud metadata endpoint would answer
  const metadata = await serveFolder(await tmp(), { redirect: () => undefined });
  const lures = await tmp();
  await writeFile(join(lures, 'creds'), SECRET);
  const evil = await serveFolder(lures);
  const front = await serveFolder(join(FIX, 'repos'), {
    redirect: (path) =>
      path === '/basic/refs/heads/dev'
        ? `${evil.url}creds`
        : path.startsWith('/alias/')
          ? `/basic/${path.slice('/alias/'.length)}`
          : undefined,
  });
  try {
    const repo = await openRepository('b', new HttpStore(`${front.url}basic/`), {
      signatures: 'require',
      allowedSigners: SIGNERS,
      cacheDir: await tmp(),
      refTtlMs: 0,
    });
    const e = await repo.resolve('dev').then(
      () => assert.fail('resolved through a redirect to another origin'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof SqlError, String(e));
    assert.equal(e.sqlstate, '58030', e.message);
    assert.match(e.message, /refusing refs\/heads\/dev of .*: the server redirects it to another origin/);
    assert.ok(
      !`${e.message} ${e.detail ?? ''}`.includes(String(evil.port)) &&
        !`${e.message} ${e.detail ?? ''}`.includes('wJalr'),
      e.message,
    );
    assert.equal(evil.requests.size, 0, 'the other origin was never asked');
    assert.equal(metadata.requests.size, 0);
    // the rest of the repository is unaffected; a same-origin redirect (a CDN alias) is followed
    assert.equal((await repo.resolve('main')).kind, 'branch');
    const manifest = JSON.parse(readFileSync(join(FIX, 'manifest.json'), 'utf8')).repos.basic as {
      refs: Record<string, string>;
    };
    const alias = await openRepository('a', new HttpStore(`${front.url}alias/`), {
      signatures: 'require',
      allowedSigners: SIGNERS,
      cacheDir: await tmp(),
      refTtlMs: 0,
    });
    const main = await alias.resolve('main');
    assert.equal(main.versionId, manifest.refs['refs/heads/main']);
    (await alias.openVersion(main.versionId)).close();
    assert.ok(
      (front.requests.get('/alias/refs/heads/main') ?? 0) > 0 &&
        (front.requests.get('/basic/refs/heads/main') ?? 0) > 0,
    );
  } finally {
    await Promise.all([metadata.close(), evil.close(), front.close()]);
  }
});

test('http: what a ref, HEAD, refs.json, fdl.json or version.json holds is never quoted into an error', async () => {
  const SECRET = 'wjalrxutnfemi-k7mdeng-bpxrficyexamplekey';
  const root = join(await tmp(), 'repo');
  await cp(join(FIX, 'repos/basic'), root, { recursive: true });
  const server = await serveFolder(join(root, '..'));
  const text = (e: unknown) => (e instanceof SqlError ? `${e.message} ${e.detail ?? ''} ${e.hint ?? ''}` : String(e));
  const open = async () =>
    openRepository('s', new HttpStore(`${server.url}repo/`), {
      signatures: 'require',
      allowedSigners: SIGNERS,
      cacheDir: await tmp(),
      refTtlMs: 0,
    });
  const mainId = (
    JSON.parse(readFileSync(join(FIX, 'manifest.json'), 'utf8')).repos.basic as { refs: Record<string, string> }
  ).refs['refs/heads/main']!;
  const vj = `versions/${mainId}/version.json`;
  const forgedVersion = JSON.stringify({ ...JSON.parse(readFileSync(join(root, vj), 'utf8')), id: SECRET });
  try {
    const cases: [string, string, () => Promise<unknown>, string][] = [
      [
        'refs/heads/main',
        `aws_secret_access_key=${SECRET.toUpperCase()}\n`,
        async () => (await open()).resolve('main'),
        'malformed ref refs/heads/main',
      ],
      ['HEAD', `token ${SECRET}\n`, async () => (await open()).resolve(''), 'malformed ref HEAD'],
      ['refs/heads/main', `{"Token":"${SECRET}"`, async () => (await open()).resolve('main'), 'malformed ref'],
      ['fdl.json', `{"Token":"${SECRET}"`, () => open(), 'malformed fdl.json'],
      ['fdl.json', JSON.stringify({ fdl: '0.1', data_dir: `/${SECRET}/` }), () => open(), 'invalid data_dir'],
      [vj, forgedVersion, async () => (await open()).openVersion(mainId), 'version id mismatch'],
      [
        vj,
        `{"${SECRET}": 1, "id": "${mainId}", "catalogs": [{ "path": "x", "format": {}, "sha256": "${'0'.repeat(64)}", "size": 1, "${SECRET}x": 2 }], "files": { "${SECRET}": {} } }`,
        async () => (await open()).openVersion(mainId),
        'malformed',
      ],
    ];
    for (const [file, body, act, expect] of cases) {
      const original = readFileSync(join(root, file));
      await writeFile(join(root, file), body);
      try {
        const e = await act().then(
          () => assert.fail(`${file}: no error`),
          (err: unknown) => err,
        );
        assert.ok(e instanceof SqlError && text(e).includes(expect), text(e));
        assert.ok(!text(e).toLowerCase().includes(SECRET.slice(0, 12)), `${file}: ${text(e)}`);
      } finally {
        await writeFile(join(root, file), original);
      }
    }
  } finally {
    await server.close();
  }
});
