/**
 * fdl push: a copy keeps version IDs and signatures, writes only what DST lacks, checks every file,
 * resumes after an interruption with refs moved last, never rewrites a tag; a push to S3 (s3rver)
 * is served by `fdl serve` under the same IDs; an HTTPS mirror is a source through its refs.json.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildDemo } from '../src/host/demo.js';
import { expireVersion } from '../src/host/expire.js';
import { collectGarbage } from '../src/host/gc.js';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { pushRepository } from '../src/host/push.js';
import { tagCommand, branchCommand } from '../src/host/refs-cmd.js';
import { verifyRepository } from '../src/host/verify.js';
import { CLI, ROOT, startGateway } from './support/gateway.js';
import { serveFolder } from './support/http-server.js';
import { S3Client } from '@aws-sdk/client-s3';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';
import { bucketBytes } from './support/tree.js';
import { startFaultyProxy } from './support/faulty-proxy.js';

const run = promisify(execFile);
const SIGNERS = path.join(ROOT, 'examples', 'demo-data', 'allowed_signers');

/** Files under `dir`, relative, '/'-separated; none when it does not exist. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/** Every file and its bytes, refs.json's time stamp left out (each writer stamps its own). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of listFiles(dir)) {
    let body = readFileSync(path.join(dir, f)).toString('base64');
    if (f === 'refs.json')
      body = JSON.stringify({ ...JSON.parse(readFileSync(path.join(dir, f), 'utf8')), updated: '' });
    out.set(f, body);
  }
  return out;
}

describe('fdl push', () => {
  let work: string;
  let demo: string;
  let ids: { v1: string; v2: string };
  const fresh = (name: string) => {
    const dir = path.join(work, name);
    cpSync(demo, dir, { recursive: true });
    return dir;
  };
  /** v1, then v2 replacing v1's rows; v1 expired and its own data file collected by gc. */
  const collected = async (name: string) => {
    const dir = path.join(work, name);
    await initRepository(dir);
    const file = (rows: string) => {
      const p = path.join(work, `${name}-${rows.length}.csv`);
      writeFileSync(p, `a\n${rows}`);
      return p;
    };
    const quiet = { progress: () => undefined };
    const v1 = (await importData(dir, { ...quiet, tables: [{ schema: 'main', table: 't', file: file('1\n') }] }))
      .versionId;
    const v2 = (
      await importData(dir, {
        ...quiet,
        mode: 'replace',
        tables: [{ schema: 'main', table: 't', file: file('2\n3\n') }],
      })
    ).versionId;
    await expireVersion(dir, v1);
    const gc = await collectGarbage(dir, { graceMs: 0 });
    assert.equal(gc.removed.length, 1, "gc removed the expired version's own data file");
    return { dir, v1, v2 };
  };

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'fdl-push-'));
    demo = path.join(work, 'demo');
    ids = await buildDemo(demo);
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('copies every version byte for byte (same IDs, signatures verify), then nothing the second time', async () => {
    const dst = path.join(work, 'copy');
    const first = await pushRepository(demo, dst);
    assert.deepEqual(first.versionsCopied, [ids.v1, ids.v2]);
    assert.equal(first.filesPresent, 0, 'files shared by both versions are not counted as already there');
    assert.deepEqual(first.refsMoved, ['refs/heads/dev', 'refs/heads/main', 'refs/tags/v1', 'refs/tags/v2']);
    assert.deepEqual(snapshot(dst), snapshot(demo));
    const v = await verifyRepository(dst, { allowedSigners: SIGNERS });
    assert.deepEqual(v.problems, []);
    assert.equal(v.versions, 2);
    const refsJson = readFileSync(path.join(dst, 'refs.json'));
    await new Promise((r) => setTimeout(r, 1100)); // refs.json's `updated` has whole seconds
    const again = await pushRepository(demo, dst);
    assert.deepEqual([again.versionsCopied, again.filesCopied, again.refsMoved, again.versionsPresent], [[], 0, [], 2]);
    assert.deepEqual(
      readFileSync(path.join(dst, 'refs.json')),
      refsJson,
      'a push that moves no ref rewrites no refs.json',
    );
  });

  it('an interrupted push removes what it wrote for the version in progress, keeps the complete ones; the next run copies only the rest', async () => {
    const dst = path.join(work, 'resumed');
    let v1Files = 0;
    let inV2 = 0;
    await assert.rejects(
      pushRepository(demo, dst, {
        afterFile: (key) => {
          if (!key.startsWith(`versions/${ids.v2}/`) && inV2 === 0) v1Files++;
          else if (++inV2 === 2) throw new Error('interrupted');
        },
      }),
      /interrupted/,
    );
    assert.equal(existsSync(path.join(dst, 'refs')), false, 'no ref moved before every version is complete');
    assert.equal(existsSync(path.join(dst, 'versions', ids.v1, 'version.json')), true, 'the complete version stays');
    assert.equal(existsSync(path.join(dst, 'versions', ids.v2)), false, 'nothing of the version in progress');
    const v = await verifyRepository(dst, { allowedSigners: SIGNERS, report: () => undefined });
    assert.deepEqual([v.problems, v.warnings], [[], []], 'no unfinished version, no orphan data file');
    const rest = await pushRepository(demo, dst);
    const whole = await pushRepository(demo, path.join(work, 'whole'));
    assert.deepEqual(rest.versionsCopied, [ids.v2]);
    assert.equal(rest.filesCopied, whole.filesCopied - v1Files, "the first version's files are not copied again");
    assert.deepEqual(snapshot(dst), snapshot(demo));
  });

  it("a source whose expired version was gc'ed pushes (expiry carried, no data for it, no debris) and verifies; an expiry made after a push follows the next push", async () => {
    const src = fresh('expiring');
    const early = path.join(work, 'pushed-early');
    await pushRepository(src, early);
    const c = await collected('collected');
    const dst = path.join(work, 'from-collected');
    const r = await pushRepository(c.dir, dst);
    assert.deepEqual(r.versionsCopied, [c.v1, c.v2]);
    assert.deepEqual(snapshot(dst), snapshot(c.dir), 'the copy is the collected source, expiry included');
    const v = await verifyRepository(dst, { report: () => undefined });
    assert.deepEqual([v.ok, v.problems, v.warnings], [true, [], []]);
    // already pushed, then expired in SRC: the next push carries the expiry to DST's copy
    await expireVersion(src, ids.v1);
    const again = await pushRepository(src, early);
    assert.deepEqual(again.versionsCopied, []);
    assert.equal(
      readFileSync(path.join(early, 'versions', ids.v1, 'expired.json'), 'utf8'),
      readFileSync(path.join(src, 'versions', ids.v1, 'expired.json'), 'utf8'),
    );
  });

  it('a push that fails before its first version leaves DST as it was (a new folder is removed again)', async () => {
    const src = fresh('broken');
    rmSync(path.join(src, 'data', 'sales', 'orders'), { recursive: true }); // every version reads these
    const dst = path.join(work, 'never-made');
    const cli = await run(process.execPath, [CLI, 'push', src, dst]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /\nfdl: data\/sales\/orders\/[^ ]+ does not exist in the repository\n$/);
    assert.equal(existsSync(dst), false, 'no folder, no fdl.json, no pending marker, no data file');
  });

  it('a DST that cannot be written is refused before anything is copied: a read-only file system, new or existing folder', async () => {
    const parent = path.join(work, 'locked');
    const cases = [
      // as root, access(2) grants every permission: a read-only mount (a private mount namespace) is what refuses
      {
        what: 'read-only',
        sh: `mount -t tmpfs -o ro tmpfs ${parent} && exec ${process.execPath} ${CLI} push ${demo} ${parent}/copy`,
        message: `fdl: ${parent}/copy cannot be created: ${parent} is on a read-only file system\n`,
      },
      {
        what: 'read-only, existing',
        sh: `mount -t tmpfs tmpfs ${parent} && mkdir ${parent}/copy && mount -o remount,ro ${parent} && exec ${process.execPath} ${CLI} push ${demo} ${parent}/copy`,
        message: `fdl: ${parent}/copy is on a read-only file system\n`,
      },
    ];
    mkdirSync(parent, { recursive: true });
    for (const c of cases) {
      const r = await run('unshare', ['-m', 'sh', '-c', c.sh]).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      assert.equal(r.code, 1, c.what);
      assert.equal(r.stderr, c.message, c.what);
    }
    assert.deepEqual(readdirSync(parent), [], 'nothing written');
  });

  it('a source file whose bytes differ from files.json is refused; the version and refs stay out of DST', async () => {
    const src = fresh('tampered');
    const dataDir = path.join(src, 'data', 'sales', 'customers');
    const file = path.join(dataDir, readdirSync(dataDir)[0]!);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff; // same size: only the sha256 can tell
    writeFileSync(file, bytes);
    const dst = path.join(work, 'from-tampered');
    await assert.rejects(pushRepository(src, dst), /sha256 mismatch|mismatch/);
    assert.equal(existsSync(path.join(dst, 'versions', ids.v1, 'version.json')), false);
    assert.equal(existsSync(path.join(dst, 'refs')), false);
    assert.equal(
      listFiles(dst).some((f) => f.startsWith('data/sales/customers/')),
      false,
      'the corrupt file was not written',
    );
  });

  it('tags are never rewritten and branches move only forward; the other refs still move', async () => {
    const src = fresh('moving');
    const dst = path.join(work, 'kept');
    await pushRepository(src, dst);
    await tagCommand(src, 'v3', ids.v2);
    await tagCommand(dst, 'v3', ids.v1); // DST already has v3, elsewhere
    await branchCommand(src, 'feature', ids.v2);
    writeFileSync(path.join(src, 'refs', 'heads', 'dev'), `${ids.v2}\n`); // forward: v1 → v2
    writeFileSync(path.join(src, 'refs', 'heads', 'main'), `${ids.v1}\n`); // DST is at v2: pushing v1 would move it back
    const r = await pushRepository(src, dst, { progress: () => undefined });
    assert.deepEqual(r.refsRefused.sort(), ['refs/heads/main', 'refs/tags/v3']);
    assert.deepEqual(r.refsMoved.sort(), ['refs/heads/dev', 'refs/heads/feature']);
    const ref = (n: string) => readFileSync(path.join(dst, 'refs', n), 'utf8').trim();
    assert.equal(ref('tags/v3'), ids.v1);
    assert.equal(ref('heads/main'), ids.v2);
    assert.equal(ref('heads/dev'), ids.v2);
    const index = JSON.parse(readFileSync(path.join(dst, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
    assert.equal(index.refs['refs/heads/feature'], ids.v2, 'refs.json kept in step');
    // the CLI reports the refusal with a non-zero exit
    await tagCommand(src, 'v4', ids.v2);
    const cli = await run(process.execPath, [CLI, 'push', src, dst]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /refused refs\/tags\/v3: .*tags are never rewritten/);
    assert.equal(ref('tags/v4'), ids.v2);
  });

  it("a ref whose short name DST has as the other kind (a tag over DST's branch, a branch over DST's tag) is refused, the rest moves", async () => {
    const src = fresh('colliding-src');
    const dst = path.join(work, 'colliding-dst');
    await pushRepository(src, dst);
    await tagCommand(src, 'rel', ids.v2);
    await branchCommand(dst, 'rel', ids.v1);
    await branchCommand(src, 'stable', ids.v1);
    await tagCommand(dst, 'stable', ids.v1);
    await tagCommand(src, 'v9', ids.v2);
    const r = await pushRepository(src, dst, { progress: () => undefined });
    assert.deepEqual(r.refsRefused.sort(), ['refs/heads/stable', 'refs/tags/rel']);
    assert.deepEqual(r.refsMoved, ['refs/tags/v9']);
    assert.ok(!existsSync(path.join(dst, 'refs', 'tags', 'rel')));
    assert.ok(!existsSync(path.join(dst, 'refs', 'heads', 'stable')));
    const index = JSON.parse(readFileSync(path.join(dst, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
    assert.equal(index.refs['refs/tags/rel'], undefined);
    assert.equal(index.refs['refs/heads/rel'], ids.v1);
  });

  it('an HTTPS-style mirror (no listing) is a source through its refs.json', async () => {
    const mirror = await serveFolder(path.join(work, 'copy'));
    try {
      const dst = path.join(work, 'from-mirror');
      const r = await pushRepository(mirror.url, dst);
      assert.deepEqual(r.versionsCopied, [ids.v1, ids.v2]);
      assert.deepEqual(snapshot(dst), snapshot(demo));
    } finally {
      await mirror.close();
    }
  });

  describe('to S3', () => {
    let s3: S3Server;
    before(async () => {
      s3 = await startS3('lake');
    });
    after(async () => {
      await s3?.close();
    });

    it('an S3 target is checked before anything is copied: a missing bucket, a key without write permission', async () => {
      const env = (endpoint: string) => ({
        ...process.env,
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
        AWS_ENDPOINT_URL: endpoint,
        AWS_REGION: 'us-east-1',
        FDL_S3_FORCE_PATH_STYLE: '1',
      });
      const refused = (dst: string, endpoint: string) =>
        run(process.execPath, [CLI, 'push', demo, dst], { env: env(endpoint) }).then(
          () => assert.fail(`fdl push to ${dst} succeeded`),
          (e: { code: number; stdout: string; stderr: string }) => e,
        );
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3_CREDENTIALS,
      });
      const before = await bucketBytes(client, 'lake', '');
      const missing = await refused('s3://nosuch/lake/', s3.endpoint);
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, '');
      assert.equal(
        missing.stderr,
        'fdl: s3://nosuch/lake/ is not writable: bucket nosuch does not exist (checked before writing anything)\n',
      );
      // a read-only key: S3 answers every PUT with 403 AccessDenied (s3rver has no permissions; a proxy says it)
      const readOnly = await startFaultyProxy(s3.endpoint);
      readOnly.rules.push({ match: /^\/lake\//, method: 'PUT', fault: '403' });
      try {
        const denied = await refused('s3://lake/denied/', readOnly.url);
        assert.equal(denied.code, 1);
        assert.equal(
          denied.stderr,
          'fdl: s3://lake/denied/ is not writable: access denied (AccessDenied) (checked before writing anything)\n',
        );
        assert.equal(readOnly.faults, 1, 'one write tried (the probe), nothing copied');
      } finally {
        await readOnly.close();
      }
      assert.deepEqual(await bucketBytes(client, 'lake', ''), before, 'the bucket is unchanged');
    });

    it("a source whose expired version was gc'ed pushes to S3: both versions, the expiry, no data for it, no pending marker", async () => {
      const src = (await collected('collected-s3')).dir;
      const env = {
        ...process.env,
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
        AWS_ENDPOINT_URL: s3.endpoint,
        AWS_REGION: 'us-east-1',
        FDL_S3_FORCE_PATH_STYLE: '1',
      };
      const pushed = await run(process.execPath, [CLI, 'push', src, 's3://lake/collected/'], { env });
      assert.match(pushed.stdout, /^pushed 2 version\(s\) \(0 already there\)/);
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3_CREDENTIALS,
      });
      const objects = (await bucketBytes(client, 'lake', 'collected/')).map((l) =>
        l.split(' ')[0]!.slice('collected/'.length),
      );
      assert.deepEqual(
        objects.filter((k) => k !== 'refs.json'),
        listFiles(src).filter((f) => f !== 'refs.json'),
        'exactly the collected source: no pending marker, no data of the expired version',
      );
      const verified = await run(process.execPath, [CLI, 'verify', 's3://lake/collected/', '--strict'], { env });
      assert.match(verified.stdout, /^ok: 2 version\(s\) verified\n$/m);
    });

    it('fdl push to S3, then fdl serve of the S3 copy serves the same versions under the same IDs, signatures required', async () => {
      const env = {
        ...process.env,
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
        AWS_ENDPOINT_URL: s3.endpoint,
        AWS_REGION: 'us-east-1',
        FDL_S3_FORCE_PATH_STYLE: '1',
      };
      const pushed = await run(process.execPath, [CLI, 'push', demo, 's3://lake/copy/'], { env });
      assert.match(pushed.stdout, /^pushed 2 version\(s\)/);
      assert.doesNotMatch(pushed.stderr, /NodeDeprecationWarning|AWS SDK/);
      const gw = await startGateway(
        [
          '--repo',
          `local=${demo}`,
          '--repo',
          'remote=s3://lake/copy/',
          '--allowed-signers',
          `local=${SIGNERS}`,
          '--allowed-signers',
          `remote=${SIGNERS}`,
          '--s3-force-path-style',
          '--cache-dir',
          path.join(work, 'cache'),
        ],
        { env },
      );
      try {
        const ask = async (db: string, sql: string) => {
          const c = new pg.Client({ host: gw.host, port: gw.port, user: 'me', database: db });
          await c.connect();
          try {
            return (await c.query(sql)).rows;
          } finally {
            await c.end();
          }
        };
        for (const tag of ['v1', 'v2']) {
          const [remote] = await ask(`remote@${tag}`, 'show fdl.version');
          const [local] = await ask(`local@${tag}`, 'show fdl.version');
          assert.deepEqual(remote, local);
          assert.equal(Object.values(remote as object)[0], ids[tag as 'v1' | 'v2']);
          assert.deepEqual(
            await ask(`remote@${tag}`, 'select * from sales.orders order by order_id'),
            await ask(`local@${tag}`, 'select * from sales.orders order by order_id'),
          );
        }
        const history = await ask('remote', 'select * from fdl.versions order by 1');
        assert.deepEqual(history, await ask('local', 'select * from fdl.versions order by 1'));
      } finally {
        await gw.stop();
      }
    });
  });
});
