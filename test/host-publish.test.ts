/**
 * fdl publish end to end (every fixture repository round-tripped: host-publish-roundtrip.test.ts).
 * Refusals (absolute / escaping paths, missing or wrong-size files, unsupported catalog versions)
 * leave no version and no ref behind. Signatures are checked with real ssh-keygen, the
 * result with `fdl verify`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { S3Client } from '@aws-sdk/client-s3';
import { publishCatalog } from '../src/host/publish.js';
import { initRepository } from '../src/host/repo.js';
import type { S3TargetOptions } from '../src/host/target.js';
import { verifyRepository } from '../src/host/verify.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { openRepository } from '../src/resolver/repository.js';
import { S3Store } from '../src/store/s3-store.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';
import { runFdl } from './support/gateway.js';
import { FIXTURES } from './support/lake-fixtures.js';
import {
  checkExpected,
  checkOpened,
  completeVersions,
  fixtureRepo,
  headOf,
  prepare,
} from './support/publish-fixtures.js';

const run = promisify(execFile);

let work: string;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-publish-test-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

const fdl = (...args: string[]) => runFdl(args);

describe('fdl publish: refusals leave no version and no ref', { concurrency: 4 }, () => {
  const refused = async (root: string, args: string[], pattern: RegExp) => {
    const r = await fdl('publish', root, ...args);
    assert.notEqual(r.code, 0, 'publish must fail');
    assert.match(r.stderr, pattern);
    assert.equal(headOf(root), null, 'no branch');
    assert.deepEqual(completeVersions(root), [], 'no complete version');
    return r;
  };

  it('a data file stored as ../../../outside.parquet (negative/path_escape_relative)', async () => {
    const fx = fixtureRepo('path_escape_relative', path.join(FIXTURES, 'negative/path_escape_relative/repo'));
    const { root, working } = await prepare(work, fx);
    cpSync(path.join(fx.root, 'outside.parquet'), path.join(root, 'outside.parquet'));
    await refused(root, ['--catalog', working], /\.\.\/\.\.\/\.\.\/outside\.parquet.*escapes the data directory/);
  });

  it('a data file stored as /etc/passwd, path_is_relative = false (negative/path_absolute)', async () => {
    const fx = fixtureRepo('path_absolute', path.join(FIXTURES, 'negative/path_absolute/repo'));
    const { root, working } = await prepare(work, fx);
    await refused(root, ['--catalog', working], /"\/etc\/passwd".*absolute path/);
  });

  it('glob metacharacters in a path (negative/glob_in_path, newest version)', async () => {
    const dir = path.join(FIXTURES, 'negative/glob_in_path/repo');
    const fx = fixtureRepo('glob_in_path', dir);
    const { root, working } = await prepare(work, fx);
    await refused(root, ['--catalog', working], /glob metacharacter/);
  });

  it('a data file missing from the repository is named; --data-from uploads it, then the version serves', async () => {
    const fx = fixtureRepo('basic');
    const { root, working } = await prepare(work, fx, false);
    await refused(root, ['--catalog', working], /not in .*data\/main\/[^ ]+\.parquet.*--data-from/);
    const r = await fdl('publish', root, '--catalog', working, '--data-from', path.join(fx.root, fx.dataDir));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /uploading data\//);
    const id = r.stdout.trim();
    await checkExpected(root, fx.dataDir, id, path.join(FIXTURES, 'expected/basic', `${fx.newest}.json`));
    assert.equal((await fdl('verify', root)).code, 0);
  });

  it('a data file whose size differs from file_size_bytes', async () => {
    const fx = fixtureRepo('deletes');
    const { root, working } = await prepare(work, fx);
    const files = JSON.parse(readFileSync(path.join(fx.root, 'versions', fx.newest, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: { path: string }[] }>;
    };
    const victim = Object.values(files.tables)[0]!.files[0]!.path;
    appendFileSync(path.join(root, fx.dataDir, victim), 'x');
    await refused(
      root,
      ['--catalog', working],
      new RegExp(`${victim.replaceAll('.', '\\.')} .*has \\d+ bytes.*records`),
    );
  });

  it('a catalog version other than 1.0 / 0.4', async () => {
    const fx = fixtureRepo('views');
    const { root, working } = await prepare(work, fx);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    await conn.run(`ATTACH '${working}' AS w`);
    await conn.run("UPDATE w.ducklake_metadata SET value = '0.3' WHERE key = 'version' AND scope IS NULL");
    await conn.run('DETACH w');
    conn.closeSync();
    inst.closeSync();
    await refused(root, ['--catalog', working], /DuckLake catalog version 0\.3 cannot be published/);
  });

  it('a working catalog that does not exist', async () => {
    const fx = fixtureRepo('views');
    const { root } = await prepare(work, fx);
    await refused(root, ['--catalog', path.join(work, 'nope.ducklake')], /not found/);
  });
});

describe('fdl publish: signatures, history, dataset, races', () => {
  it('--sign-key: version.json.sig verifies with real ssh-keygen -Y verify; a second publish has the first as parent', async () => {
    const key = path.join(work, 'alice_ed25519');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice@example.org', '-f', key]);
    const pub = readFileSync(`${key}.pub`, 'utf8').trim().split(/\s+/);
    const allowed = path.join(work, 'allowed_signers');
    writeFileSync(allowed, `alice@example.org namespaces="fdl" ${pub[0]} ${pub[1]}\n`);
    const dataset = path.join(work, 'dataset.json');
    writeFileSync(dataset, JSON.stringify({ title: 'Republished', schemas: { main: { description: 'm' } } }) + '\n');

    const fx = fixtureRepo('evolution');
    const { root, working } = await prepare(work, fx);
    const r1 = await fdl(
      'publish',
      root,
      '--catalog',
      working,
      '--sign-key',
      key,
      '--dataset',
      dataset,
      '--message',
      'first',
    );
    assert.equal(r1.code, 0, r1.stderr);
    const v1 = r1.stdout.trim();
    const vdir = path.join(root, 'versions', v1);
    const ok = await run('sh', [
      '-c',
      `ssh-keygen -Y verify -f "${allowed}" -I alice@example.org -n fdl -s "${vdir}/version.json.sig" < "${vdir}/version.json"`,
    ]);
    assert.match(ok.stdout + ok.stderr, /Good "fdl" signature for alice@example\.org/);
    assert.equal(readFileSync(path.join(vdir, 'dataset.json'), 'utf8'), readFileSync(dataset, 'utf8'));
    // wrong namespace fails: the signature is bound to "fdl"
    await assert.rejects(
      run('sh', [
        '-c',
        `ssh-keygen -Y verify -f "${allowed}" -I alice@example.org -n git -s "${vdir}/version.json.sig" < "${vdir}/version.json"`,
      ]),
    );

    // A second publish (the same working catalog, now on a branch with history): parent, dataset carried over.
    const r2 = await fdl('publish', root, '--catalog', working, '--sign-key', key, '--message', 'second');
    assert.equal(r2.code, 0, r2.stderr);
    const v2 = r2.stdout.trim();
    const rec2 = JSON.parse(readFileSync(path.join(root, 'versions', v2, 'version.json'), 'utf8')) as {
      parents: string[];
    };
    assert.deepEqual(rec2.parents, [v1]);
    assert.equal(headOf(root), v2);
    assert.equal(readFileSync(path.join(root, 'versions', v2, 'dataset.json'), 'utf8'), readFileSync(dataset, 'utf8'));
    const refs = JSON.parse(readFileSync(path.join(root, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
    assert.equal(refs.refs['refs/heads/main'], v2);
    const v = await fdl('verify', root, '--allowed-signers', allowed);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    const log = await fdl('log', root);
    assert.match(log.stdout, new RegExp(`${v2}[\\s\\S]*${v1}`));

    // --branch: a new branch starts with no parent
    const r3 = await fdl('publish', root, '--catalog', working, '--branch', 'dev');
    assert.equal(r3.code, 0, r3.stderr);
    assert.equal(headOf(root, 'dev'), r3.stdout.trim());
    assert.equal(headOf(root), v2);
  });

  it('a branch moved while publishing: "branch moved, retry", the branch keeps the other writer\'s version', async () => {
    const fx = fixtureRepo('nested');
    const { root, working } = await prepare(work, fx);
    const first = await publishCatalog(root, { catalog: working });
    await assert.rejects(
      publishCatalog(root, {
        catalog: working,
        step: (s) => {
          if (s === 'version') writeFileSync(path.join(root, 'refs/heads/main'), 'someone-else\n');
        },
      }),
      /branch moved, retry/,
    );
    assert.equal(headOf(root), 'someone-else');
    assert.ok(first.versionId);
  });
});

describe('fdl publish to S3 (s3rver)', () => {
  let s3: S3Server;
  let opts: S3TargetOptions;
  interface Seen {
    method: string;
    key: string;
    ifNoneMatch?: string;
    ifMatch?: string;
  }
  const seen: Seen[] = [];
  before(async () => {
    s3 = await startS3('lake');
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    client.middlewareStack.add(
      (next) => async (args) => {
        const req = args.request as { method: string; path: string; headers: Record<string, string> };
        const h = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
        seen.push({
          method: req.method,
          key: decodeURIComponent(req.path),
          ifNoneMatch: h['if-none-match'],
          ifMatch: h['if-match'],
        });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordConditionalHeaders' },
    );
    opts = { client, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS };
  });
  after(async () => {
    await s3?.close();
  });

  it('refused without the files; --data-from uploads them (If-None-Match); verify passes; the gateway serves the recorded answers', async () => {
    const loc = 's3://lake/repos/pub/';
    const fx = fixtureRepo('deletes');
    const working = path.join(work, 'deletes-s3.ducklake');
    copyFileSync(fx.catalog, working);
    await initRepository(loc, { s3: opts });
    await assert.rejects(
      publishCatalog(loc, { s3: opts, catalog: working }),
      /not in s3:\/\/lake\/repos\/pub\/: data\/main\/.*--data-from/,
    );
    assert.equal(
      seen.filter((x) => x.method === 'PUT' && x.key.includes('/versions/')).length,
      0,
      'nothing of a version written',
    );

    const r = await publishCatalog(loc, {
      s3: opts,
      catalog: working,
      dataFrom: path.join(fx.root, fx.dataDir),
      progress: () => undefined,
    });
    assert.equal(r.uploaded.length, r.files);
    assert.ok(
      r.uploaded.some((f) => f.endsWith('-delete.parquet')),
      'delete files uploaded too',
    );
    for (const rel of r.uploaded) {
      const put = seen.find((x) => x.method === 'PUT' && x.key.endsWith(`/repos/pub/data/${rel}`));
      assert.equal(put?.ifNoneMatch, '*', rel);
    }
    assert.equal(seen.filter((x) => x.method === 'PUT' && x.key.endsWith('/refs/heads/main')).at(-1)!.ifNoneMatch, '*');
    assert.equal((await verifyRepository(loc, { s3: opts })).ok, true);

    // A second publish finds every file present (nothing uploaded) and moves the branch with If-Match.
    const r2 = await publishCatalog(loc, { s3: opts, catalog: working, progress: () => undefined });
    assert.deepEqual(r2.uploaded, []);
    assert.equal(r2.parent, r.versionId);
    assert.ok(
      (seen.filter((x) => x.method === 'PUT' && x.key.endsWith('/refs/heads/main')).at(-1)!.ifMatch ?? '').length > 2,
    );

    const store = new S3Store('lake', 'repos/pub/', {
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
    });
    const repo = await openRepository('pub', store, { cacheDir: path.join(work, 'cache-s3'), signatures: 'off' });
    const res = await repo.resolve('main');
    assert.equal(res.versionId, r2.versionId);
    const version = await repo.openVersion(res.versionId);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const catalog = await openCatalog(conn, version.catalogFile, 'meta');
      const lease = await version.ensureFiles(
        catalog.tables.flatMap((t) => t.files.map((f) => ({ path: f.path, size: f.size }))),
      );
      const { warnings } = await attachCatalog(conn, catalog, 'lake', (rel) => version.locate(rel));
      await conn.run('USE lake');
      await conn.run("SET TimeZone='UTC'");
      const count = await checkOpened(
        {
          conn,
          catalog,
          warnings,
          close: () => {
            lease.release();
          },
        },
        path.join(FIXTURES, 'expected/deletes', `${fx.newest}.json`),
      );
      assert.ok(count > 0);
    } finally {
      conn.closeSync();
      inst.closeSync();
      version.close();
    }
  });
});
