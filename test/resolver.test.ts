// Resolution and verification on the fixture repositories through FsStore (spec Parts 2–5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, cp, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FsStore } from '../src/store/fs-store.js';
import { openStore, type ObjectStore } from '../src/store/index.js';
import { openRepository, type RepositoryOptions } from '../src/resolver/index.js';
import { SqlError } from '../src/errors.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures');
const SIGNERS = join(FIX, 'keys/allowed_signers');
const manifest = JSON.parse(readFileSync(join(FIX, 'manifest.json'), 'utf8')) as {
  repos: Record<string, { path: string; refs: Record<string, string>; versions: { id: string }[]; signed_by?: string }>;
};

async function tmp(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'fdl-resolver-'));
}

/** Writable copy of a fixture repository (the fixtures are read-only on purpose). */
async function copyRepo(src: string): Promise<string> {
  const dest = join(await tmp(), 'repo');
  await cp(src, dest, { recursive: true });
  const walk = async (p: string): Promise<void> => {
    await chmod(p, (await stat(p)).isDirectory() ? 0o755 : 0o644);
    if ((await stat(p)).isDirectory()) for (const n of await readdir(p)) await walk(join(p, n));
  };
  await walk(dest);
  return dest;
}

async function repoAt(path: string, opts: RepositoryOptions = {}) {
  return openRepository('t', new FsStore(path), {
    allowedSigners: SIGNERS,
    cacheDir: await tmp(),
    refTtlMs: 0,
    ...opts,
  });
}

async function rejects(p: Promise<unknown>, sqlstate: string, ...parts: (string | RegExp)[]): Promise<SqlError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SqlError, `expected SqlError, got ${String(e)}`);
    assert.equal(e.sqlstate, sqlstate, e.message);
    for (const part of parts) {
      if (typeof part === 'string') assert.ok(e.message.includes(part), `"${e.message}" should include "${part}"`);
      else assert.match(e.message, part);
    }
    return e;
  }
  assert.fail('expected a rejection');
}

test('every ref of every fixture repository resolves and opens verified (G, sha256 checked)', async () => {
  for (const [name, info] of Object.entries(manifest.repos)) {
    const repo = await repoAt(join(FIX, info.path), { signatures: name === 'empty' ? 'prefer' : 'require' });
    for (const [full, id] of Object.entries(info.refs)) {
      for (const asked of [full, full.slice('refs/'.length)]) {
        const r = await repo.resolve(asked);
        assert.deepEqual(r, {
          requested: asked,
          ref: full,
          kind: full.startsWith('refs/heads/') ? 'branch' : full.startsWith('refs/tags/') ? 'tag' : 'request',
          versionId: id,
        });
      }
    }
    for (const { id } of info.versions) {
      const v = await repo.openVersion(id);
      assert.equal(v.id, id);
      assert.ok(existsSync(v.catalogFile));
      assert.ok(v.catalogFile.startsWith(join(FIX, info.path)), 'local catalogs are read in place');
      assert.equal(v.signature.status, name === 'empty' ? 'N' : 'G', `${name} ${id}: ${JSON.stringify(v.signature)}`);
      if (name !== 'empty') assert.equal(v.signature.signer, info.signed_by ?? 'alice@example.org');
      assert.ok(Array.isArray(v.version.parents));
      v.close();
    }
    const listed = await repo.listRefs();
    assert.deepEqual(Object.fromEntries(listed.map((r) => [r.name, r.versionId])), info.refs);
  }
});

test('basic: short names, HEAD, version ids, requests, dataset and locate', async () => {
  const info = manifest.repos.basic!;
  const repo = await repoAt(join(FIX, info.path));
  assert.deepEqual(await repo.resolve(''), {
    requested: '',
    ref: 'refs/heads/main',
    kind: 'branch',
    versionId: info.refs['refs/heads/main'],
  });
  assert.equal((await repo.resolve('v1')).ref, 'refs/tags/v1');
  assert.equal((await repo.resolve('dev')).kind, 'branch');
  assert.deepEqual(await repo.resolve('requests/1'), {
    requested: 'requests/1',
    ref: 'refs/requests/1',
    kind: 'request',
    versionId: info.refs['refs/requests/1'],
  });
  const id = info.refs['refs/tags/v2']!;
  assert.deepEqual(await repo.resolve(id), { requested: id, ref: null, kind: 'version', versionId: id });
  await rejects(repo.resolve('nope'), '3D000', 'unknown ref "nope"', 'refs/heads/nope', 'refs/tags/nope');
  await rejects(repo.resolve('tags/nope'), '3D000', 'unknown ref', 'refs/tags/nope');
  await rejects(repo.resolve('requests/x'), '3D000', 'invalid ref name');
  for (const bad of [
    'Main',
    '../x',
    'heads/../../etc',
    'refs/heads/a/../b',
    'a b',
    'x.lock',
    'refs/remotes/x',
    '.hidden',
    'a//b',
    'x'.repeat(300),
  ]) {
    await rejects(repo.resolve(bad), '3D000', 'invalid ref name');
  }
  const v = await repo.openVersion(info.refs['refs/heads/main']!);
  assert.equal((v.dataset as { title?: string } | null) !== null, true);
  assert.equal(v.dataDir, 'data/');
  assert.equal(v.catalog.path, 'ducklake.duckdb');
  const some = readdirSync(join(FIX, info.path, 'data/main/all_types'))[0]!;
  assert.equal(v.locate(`main/all_types/${some}`), join(FIX, info.path, 'data/main/all_types', some));
  for (const bad of [
    '../../../outside.parquet',
    '/etc/passwd',
    's3://x/y.parquet',
    'main/../../fdl.json',
    'file:///etc/passwd',
  ]) {
    assert.throws(() => v.locate(bad), /data file outside data_dir/);
  }
  const lease = await v.ensureFiles([{ path: `main/all_types/${some}` }]);
  lease.release();
  await rejects(v.ensureFiles([{ path: 'main/missing.parquet' }]), 'XX001', 'data file missing');
  await rejects(repo.openVersion('0000-nope'), '3D000', 'unknown version 0000-nope');
  await rejects(repo.openVersion('../x'), '3D000', 'unknown version');
  const info2 = await repo.describeVersion(info.refs['refs/tags/v2']!);
  assert.equal(info2.version.message, 'February append');
  assert.equal(info2.expired, null);
});

test('data_dir and formats repositories', async () => {
  const dd = await repoAt(join(FIX, 'repos/data_dir'));
  const v = await dd.openVersion((await dd.resolve('main')).versionId);
  assert.equal(v.dataDir, 'warehouse/');
  assert.equal(v.locate('main/x.parquet'), join(FIX, 'repos/data_dir/warehouse/main/x.parquet'));
  const fm = await repoAt(join(FIX, 'repos/formats'));
  const w = await fm.openVersion((await fm.resolve('main')).versionId);
  assert.equal(w.catalog.path, 'ducklake.duckdb', 'the first understood format wins');
});

// ------------------------------------------------------------------ negative fixtures

interface Check {
  resolve: string;
  outcome: string;
  error?: string;
  policy?: 'require' | 'prefer';
  version?: string;
  verified?: boolean;
  mode?: string;
}

/** A store that cannot list (like HTTP), built from a real FsStore. */
function noList(store: FsStore): ObjectStore {
  return {
    location: store.location,
    get: (k, o) => store.get(k, o),
    head: (k) => store.head(k),
    download: (k, d, o) => store.download(k, d, o),
    localPath: (k) => store.localPath(k),
  };
}

const LAKE_CASES = new Set(['path_absolute', 'path_escape_relative', 'glob_in_path']); // refused by lake/ when it reads the catalog

for (const name of readdirSync(join(FIX, 'negative')).sort()) {
  test(`negative fixture ${name}`, async () => {
    const dir = join(FIX, 'negative', name, 'repo');
    const expect = JSON.parse(await readFile(join(dir, '..', 'expect.json'), 'utf8')) as { checks: Check[] };
    for (const c of expect.checks) {
      for (const policy of c.policy ? [c.policy] : (['require', 'prefer'] as const)) {
        for (const listing of c.mode === 'no-list' ? [false, true] : [true]) {
          const fs = new FsStore(dir);
          const run = async () => {
            const repo = await openRepository(name, listing ? fs : noList(fs), {
              signatures: policy,
              allowedSigners: SIGNERS,
              cacheDir: await tmp(),
              refTtlMs: 0,
            });
            const r = await repo.resolve(c.resolve);
            const v = await repo.openVersion(r.versionId);
            v.close();
            return { r, v };
          };
          const label = `${name}: ${JSON.stringify(c.resolve)} (${policy}${listing ? '' : ', no list'})`;
          if (LAKE_CASES.has(name) && c.outcome === 'refuse') {
            // the catalog itself is intact and signed: lake/ refuses the path; locate() must refuse it too
            const { v } = await run();
            const bad = c.error!.slice(c.error!.indexOf(': ') + 2);
            assert.throws(() => v.locate(bad), /data file outside data_dir/, label);
          } else if (c.outcome === 'refuse') {
            let err: unknown;
            try {
              await run();
            } catch (e) {
              err = e;
            }
            assert.ok(err instanceof SqlError, `${label} must be refused`);
            const gist = c.error!;
            assert.ok(err.message.includes(gist), `${label}: "${err.message}" should carry "${gist}"`);
          } else {
            const { r, v } = await run();
            assert.equal(r.versionId, c.version, label);
            if (c.verified === false) assert.notEqual(v.signature.status, 'G', label);
          }
        }
      }
    }
  });
}

test('negative sqlstates: 3D000 for names/expiry, XX001 for corruption, 28000 for signatures', async () => {
  const neg = (n: string) => join(FIX, 'negative', n, 'repo');
  await rejects((await repoAt(neg('ambiguous_ref'))).resolve('v1'), '3D000', 'refs/heads/v1', 'refs/tags/v1');
  await rejects((await repoAt(neg('dangling_ref'))).resolve('main'), '3D000', 'dangling ref');
  await rejects((await repoAt(neg('malformed_ref'))).resolve('tags/two'), '3D000', 'malformed ref');
  await rejects(
    (await repoAt(neg('incomplete_publish'))).resolve('01a23633-0973-7000-91f3-cd2549b6c191'),
    '3D000',
    'unknown ref',
  );
  const exp = await repoAt(neg('expired'));
  await rejects(
    exp.openVersion((await exp.resolve('v1')).versionId),
    '3D000',
    '2026-01-31T00:00:00Z',
    '01a23633-0518-7000-82fe-cdd6d8131faa',
  );
  const tam = await repoAt(neg('tampered_catalog'));
  await rejects(tam.openVersion((await tam.resolve('main')).versionId), 'XX001', 'sha256 mismatch: ducklake.duckdb');
  for (const n of ['id_mismatch', 'repository_mismatch']) {
    const r = await repoAt(neg(n));
    await rejects(r.openVersion((await r.resolve('main')).versionId), 'XX001', n.replace('_', ' '));
  }
  for (const [n, why] of [
    ['untrusted_signer', 'unknown key'],
    ['wrong_namespace', 'namespace'],
    ['signature_other_content', 'bad signature'],
  ] as const) {
    const r = await repoAt(neg(n), { signatures: 'require' });
    await rejects(r.openVersion((await r.resolve('main')).versionId), '28000', why);
    const off = await repoAt(neg(n), { signatures: 'off' });
    await off.openVersion((await off.resolve('main')).versionId);
  }
  await rejects(repoAt(neg('no_fdl_json')), '3D000', 'missing fdl.json');
  await rejects(repoAt(neg('fdl_major_unknown')), '0A000', 'unsupported fdl version 9.0');
  const inc = await repoAt(neg('incomplete_publish'));
  assert.deepEqual(
    (await inc.listRefs()).map((r) => r.name),
    ['refs/heads/main'],
  );
  const trav = await repoAt(neg('ref_traversal'));
  assert.ok((await trav.listRefs()).every((r) => !r.name.includes('..')));
});

test('unsigned versions under require are refused with "no signature"; prefer serves them as N', async () => {
  const dir = join(FIX, 'repos/empty');
  const req = await repoAt(dir, { signatures: 'require' });
  await rejects(req.openVersion((await req.resolve('main')).versionId), '28000', 'no signature');
  const pre = await repoAt(dir, { signatures: 'prefer' });
  assert.equal((await pre.openVersion((await pre.resolve('main')).versionId)).signature.status, 'N');
  const none = await repoAt(join(FIX, 'repos/basic'), { signatures: 'require', allowedSigners: undefined });
  await rejects(none.openVersion((await none.resolve('main')).versionId), '28000', 'unknown key');
});

test('refs: a ref file wins over refs.json; HEAD missing means main; HEAD elsewhere; stale local catalog re-hashed', async () => {
  const dir = await copyRepo(join(FIX, 'repos/basic'));
  const refs = JSON.parse(await readFile(join(dir, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
  const v1 = refs.refs['refs/tags/v1']!;
  const main = refs.refs['refs/heads/main']!;
  refs.refs['refs/heads/main'] = v1;
  refs.refs['refs/heads/only-in-index'] = v1;
  await writeFile(join(dir, 'refs.json'), JSON.stringify(refs));
  const repo = await repoAt(dir);
  assert.equal((await repo.resolve('main')).versionId, main, 'the file under refs/ wins');
  await rejects(repo.resolve('only-in-index'), '3D000', 'unknown ref'); // refs/ exists, so the listing is authoritative
  const nl = await openRepository('t', noList(new FsStore(dir)), { refTtlMs: 0 });
  assert.equal((await nl.resolve('main')).versionId, main);
  assert.equal((await nl.resolve('only-in-index')).versionId, v1, 'a reader that cannot list uses refs.json');
  await rm(join(dir, 'HEAD'));
  assert.equal((await repo.resolve('')).ref, 'refs/heads/main');
  await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/dev\n');
  // HEAD served main: pointed at a branch that does not descend from it, it is refused as a rollback (what HEAD
  // gives only goes forward, attacker review session 53); a reader that never served HEAD follows it
  await rejects(repo.resolve(''), 'XX001', 'HEAD of repository t moved back');
  assert.equal((await nl.resolve('')).ref, 'refs/heads/dev');
  await writeFile(join(dir, 'HEAD'), 'ref: refs/heads/../../x\n');
  await rejects(repo.resolve(''), '3D000', 'malformed ref HEAD');
  // dev was served above: its own ID (a branch never moves back, see the high-water mark test)
  const dev = refs.refs['refs/heads/dev']!;
  await writeFile(join(dir, 'refs/heads/dev'), `  ${dev}  \n\n`);
  assert.equal((await repo.resolve('dev')).versionId, dev, 'surrounding whitespace is ignored');
  // a catalog changed after it was verified once is hashed again
  const v = await repo.openVersion(main);
  v.close();
  const cat = join(dir, 'versions', main, 'ducklake.duckdb');
  const bytes = await readFile(cat);
  bytes[100] = bytes[100]! ^ 1;
  await writeFile(cat, bytes);
  await rejects(repo.openVersion(main), 'XX001', 'sha256 mismatch: ducklake.duckdb');
});

test('tag ledger: a tag that moves is refused naming the recorded version (never the one it names now), also after a restart', async () => {
  const dir = await copyRepo(join(FIX, 'repos/basic'));
  const cacheDir = await tmp();
  const refs = manifest.repos.basic!.refs;
  const repo = await repoAt(dir, { cacheDir });
  assert.equal((await repo.resolve('tags/v1')).versionId, refs['refs/tags/v1']);
  await writeFile(join(dir, 'refs/tags/v1'), refs['refs/tags/v2'] + '\n');
  const moved = await rejects(repo.resolve('v1'), 'XX001', 'tag refs/tags/v1', refs['refs/tags/v1']!);
  // the version it names now may be one the reader has no grant for (issue 23)
  assert.ok(!JSON.stringify([moved.message, moved.detail, moved.hint]).includes(refs['refs/tags/v2']!), moved.message);
  const again = await repoAt(dir, { cacheDir });
  await rejects(again.resolve('refs/tags/v1'), 'XX001', 'moved from version');
  // branches move freely
  await writeFile(join(dir, 'refs/heads/dev'), refs['refs/tags/v1'] + '\n');
  assert.equal((await again.resolve('dev')).versionId, refs['refs/tags/v1']);
});

test('FsStore: keys with traversal and symlinks escaping the root are refused', async () => {
  const dir = await copyRepo(join(FIX, 'repos/basic'));
  const outside = join(await tmp(), 'secret');
  await writeFile(outside, 'secret');
  await symlink(outside, join(dir, 'refs/heads/evil'));
  await symlink(join(dir, 'refs/heads/main'), join(dir, 'refs/heads/alias'));
  const store = new FsStore(dir);
  await assert.rejects(store.get('../x'), /invalid object key/);
  await assert.rejects(store.get('refs/../fdl.json'), /invalid object key/);
  await assert.rejects(store.get('/etc/passwd'), /invalid object key/);
  await assert.rejects(store.get('refs/heads/evil'), /outside the repository/);
  assert.throws(() => store.localPath('refs/heads/evil'), /outside the repository/);
  assert.ok((await store.get('refs/heads/alias')) !== null, 'links inside the root are fine');
  const repo = await repoAt(dir);
  const refusal = await rejects(
    repo.resolve('evil'),
    '58030',
    'refusing refs/heads/evil: it is a link to a file outside the repository',
  );
  // paths relative to the repository root only: neither the folder's absolute path nor the link's target
  const said = [refusal.message, refusal.detail ?? '', refusal.hint ?? ''].join(' ');
  assert.ok(!said.includes(dir) && !said.includes(await realpath(dir)) && !said.includes(outside), said);
  const data = JSON.parse(
    await readFile(join(dir, 'versions', manifest.repos.basic!.refs['refs/heads/main']!, 'files.json'), 'utf8'),
  ) as { tables: Record<string, { files: { path: string; size: number }[] }> };
  const file = Object.values(data.tables)[0]!.files[0]!;
  await rm(join(dir, 'data', file.path));
  await symlink(outside, join(dir, 'data', file.path));
  const v = await repo.openVersion(manifest.repos.basic!.refs['refs/heads/main']!);
  const e2 = await rejects(
    v.ensureFiles([file]),
    '58030',
    `refusing data/${file.path}: it is a link to a file outside the repository`,
  );
  assert.ok(![e2.message, e2.detail ?? ''].join(' ').includes(dir), e2.message);
  await assert.rejects(
    store.get('fdl.json', { maxBytes: 10 }),
    (e: Error) => /larger than 10 bytes/.test(e.message) && !e.message.includes(dir),
  );
  const got = await store.get('fdl.json');
  assert.ok(got && got !== 'not-modified');
  assert.equal(await store.get('fdl.json', { ifNoneMatch: got.etag }), 'not-modified');
  await assert.rejects(store.get('fdl.json', { maxBytes: 10 }), /larger than 10 bytes/);
  assert.equal(await store.get('nope/x'), null);
  const viaUrl = await openStore(`file://${dir}`);
  assert.ok((await viaUrl.head('fdl.json'))!.size > 0);
});

test('a resolution is reused only while every ref it read is within the ref TTL; invalidate ends it', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() }); // the TTL on a mocked clock
  const info = manifest.repos.basic!;
  const dir = await copyRepo(join(FIX, info.path));
  const repo = await repoAt(dir, { refTtlMs: 300 });
  // main starts at v1 and moves forward to v2, then to its own version (branches never move back)
  const [main, other, last] = [info.refs['refs/tags/v1']!, info.refs['refs/tags/v2']!, info.refs['refs/heads/main']!];
  await writeFile(join(dir, 'refs/heads/main'), `${main}\n`);
  assert.equal((await repo.resolve('')).versionId, main);
  assert.equal(repo.freshVersion(''), main, 'fresh right after resolving');
  const reads = () => repo.refs.stats().hits + repo.refs.stats().misses + repo.refs.stats().revalidations;
  const before = reads();
  await writeFile(join(dir, 'refs/heads/main'), `${other}\n`);
  assert.equal(
    (await repo.resolve('')).versionId,
    main,
    'within the TTL: the resolution stands, as the ref read itself would',
  );
  assert.equal(reads(), before, 'and no ref is read for it');
  t.mock.timers.tick(299);
  assert.equal(repo.freshVersion(''), main, 'still fresh at 299 ms');
  t.mock.timers.tick(2);
  assert.equal(repo.freshVersion(''), undefined, 'stale once the TTL of its reads has passed');
  assert.equal((await repo.resolve('')).versionId, other, 'the moved branch is seen after the TTL');
  await writeFile(join(dir, 'refs/heads/main'), `${last}\n`);
  repo.refs.invalidate();
  assert.equal(repo.freshVersion(''), undefined, 'invalidate ends it');
  assert.equal((await repo.resolve('')).versionId, last);
});

test('branch high-water mark: a forged unsigned parent link does not bridge an old signed version to the mark; an unsigned version never pins a branch', async () => {
  const info = manifest.repos.basic!;
  const [v1, v2] = [info.refs['refs/tags/v1']!, info.refs['refs/tags/v2']!];
  const main = info.refs['refs/heads/main']!;
  const root = await copyRepo(join(FIX, 'repos/basic'));
  const stateDir = join(await tmp(), 'state');
  const open = () => repoAt(root, { signatures: 'require', stateDir });
  assert.equal((await (await open()).resolve('main')).versionId, main);
  // v2 (signed) has parent v1; v1's version.json is rewritten to claim main as its parent
  const v1Json = join(root, 'versions', v1, 'version.json');
  const forged = JSON.parse(await readFile(v1Json, 'utf8')) as { parents: string[] };
  forged.parents = [main];
  await writeFile(v1Json, JSON.stringify(forged));
  await writeFile(join(root, 'refs/heads/main'), `${v2}\n`);
  // refused all the same; the refusal names the unsigned link instead of calling it a rollback
  await rejects(
    (await open()).resolve('main'),
    'XX001',
    `moved on through an unsigned version: its history reaches version ${main},`,
  );
  // naming only the version recorded for main: not v2 (what it names now) nor v1 (the unsigned link)
  await (await open()).resolve('main').then(
    () => assert.fail('resolved'),
    (e: Error & { detail?: string; hint?: string }) => {
      const text = `${e.message} ${e.detail ?? ''} ${e.hint ?? ''}`;
      assert.ok(!text.includes(v1) && !text.includes(v2), text);
    },
  );
  // an unsigned version claiming main as parent is not trusted under require, and is not recorded
  const fake = '01a23632-ffff-7000-8000-000000000001';
  await cp(join(root, 'versions', main), join(root, 'versions', fake), { recursive: true });
  const rec = JSON.parse(await readFile(join(root, 'versions', fake, 'version.json'), 'utf8')) as {
    id: string;
    parents: string[];
  };
  await writeFile(join(root, 'versions', fake, 'version.json'), JSON.stringify({ ...rec, id: fake, parents: [main] }));
  await writeFile(join(root, 'refs/heads/main'), `${fake}\n`);
  const repo = await open();
  assert.equal((await repo.resolve('main')).versionId, fake);
  await rejects(repo.openVersion(fake), '28000', 'signature invalid');
  await writeFile(join(root, 'refs/heads/main'), `${main}\n`);
  assert.equal((await (await open()).resolve('main')).versionId, main, 'the unsigned version did not move the mark');
});

test('expiry: a signed expiry (fdl expire --sign-key) is remembered for good; with trusted keys an unsigned or copied one is honoured only while present', async () => {
  const { expireVersion } = await import('../src/host/expire.js');
  const info = manifest.repos.basic!;
  const [v1, v2] = [info.refs['refs/tags/v1']!, info.refs['refs/tags/v2']!];
  const root = await copyRepo(join(FIX, 'repos/basic'));
  const stateDir = join(await tmp(), 'state');
  const open = () => repoAt(root, { signatures: 'require', stateDir });
  const marker = (id: string) => join(root, 'versions', id, 'expired.json');
  // a store writer's expiry: refused while there, saying it is unsigned; gone, the version is back
  await writeFile(marker(v1), JSON.stringify({ id: v1, expired: '2026-01-01T00:00:00Z' }));
  const e = await rejects((await open()).openVersion(v1), '3D000', `version ${v1} expired 2026-01-01T00:00:00Z`);
  assert.match(e.detail ?? '', /not signed by a trusted key/);
  await rm(marker(v1));
  (await (await open()).openVersion(v1)).close();
  // the publisher's signed expiry: deleting both files changes nothing, also after a restart
  const key = join(await tmp(), 'alice_ed25519'); // signing keys must be private (0600); a checkout makes them 0644
  await writeFile(key, await readFile(join(FIX, 'keys/alice_ed25519')));
  await chmod(key, 0o600);
  await expireVersion(root, v1, v2, undefined, key);
  const repo = await open();
  await rejects(repo.openVersion(v1), '3D000', `version ${v1} expired`, `successor ${v2}`);
  const signed = [await readFile(marker(v1)), await readFile(`${marker(v1)}.sig`)] as const;
  await rm(marker(v1));
  await rm(`${marker(v1)}.sig`);
  await rejects(repo.openVersion(v1), '3D000', `version ${v1} expired`);
  await rejects((await open()).openVersion(v1), '3D000', `version ${v1} expired`, `successor ${v2}`);
  // v1's signed expiry copied onto v2 names v1: honoured while there, never remembered
  await writeFile(marker(v2), signed[0]);
  await writeFile(`${marker(v2)}.sig`, signed[1]);
  await rejects((await open()).openVersion(v2), '3D000', `version ${v2} expired`);
  await rm(marker(v2));
  (await (await open()).openVersion(v2)).close();
});
