/**
 * Verified end to end: no row is ever returned from a data file whose size or sha256 differs from
 * the signed version's files.json — read in place (local), downloaded (S3, HTTPS) or found in the
 * gateway's cache after a restart; the state (tag and verification ledgers) outlives a wiped cache;
 * an expired.json appearing while a version is attached is noticed; kill -9 mid-download or while
 * hashing a local file is harmless.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttps } from 'node:https';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { initRepository } from '../src/host/repo.js';
import { importData } from '../src/host/import.js';
import { verifyRepository } from '../src/host/verify.js';
import { buildConfig, ConfigError } from '../src/cli/config.js';
import {
  copyFixtures,
  FIXTURES,
  runServeExpectingFailure,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';

/** The file cache's files (in each store's area), as paths relative to its folder. */
function cachedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? readdirSync(join(dir, e.name)).map((f) => join(e.name, f)) : [e.name],
  );
}

const run = promisify(execFile);
const basicRefs = (
  JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: { basic: { refs: Record<string, string> } };
  }
).repos.basic.refs;

const work = copyFixtures('repos/basic');
const LOCAL = join(work.dir, 'lake');
let tFile = ''; // data/main/t/….parquet, relative to the repository root
let uFile = '';
let bigFile = '';
let version = '';
/** The head version, which added table big. */
let headVersion = '';

/** A string column of the same width in every row: 'GOOD' can be patched to 'EVIL' in place. */
async function writeCsv(name: string, rows: number, label: string): Promise<string> {
  const lines = ['id,label'];
  for (let i = 0; i < rows; i++) lines.push(`${i},${label}`);
  const p = join(work.dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

function dataFiles(root: string, table: string): string[] {
  const dir = join(root, 'data', 'main', table);
  return readdirSync(dir)
    .filter((n) => n.endsWith('.parquet'))
    .map((n) => `data/main/${table}/${n}`);
}

/** Same size, still valid Parquet, different rows: every 'GOOD' becomes 'EVIL'. */
function forge(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  for (let i = out.indexOf('GOOD'); i >= 0; i = out.indexOf('GOOD', i + 4)) out.write('EVIL', i);
  assert.notDeepEqual(out, bytes, 'the file holds the label in clear');
  return out;
}

async function query(gw: RunningGateway, database: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

async function refusedWith(
  gw: RunningGateway,
  database: string,
  sql: string,
  code: string,
  message: RegExp,
): Promise<void> {
  await assert.rejects(query(gw, database, sql), (e: { code?: string; message?: string }) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message!, message);
    return true;
  });
}

const labels = async (gw: RunningGateway, db: string, table: string) =>
  (await query(gw, db, `select label, count(*)::int as n from main.${table} group by label order by label`)).map(
    (r) => `${String(r.label)}:${String(r.n)}`,
  );

before(async () => {
  await initRepository(LOCAL, {});
  const r = await importData(LOCAL, {
    tables: [
      { schema: 'main', table: 't', file: await writeCsv('t.csv', 500, 'GOOD') },
      { schema: 'main', table: 'u', file: await writeCsv('u.csv', 300, 'GOOD') },
    ],
    message: 'integrity fixture',
  });
  version = r.versionId;
  // ~8 MB of incompressible data, for the crash test's download
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const big = join(work.dir, 'big.parquet');
  await conn.run(
    `COPY (SELECT i AS id, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS h FROM range(120000) t(i)) TO '${big}' (FORMAT parquet, COMPRESSION uncompressed)`,
  );
  conn.closeSync();
  db.closeSync();
  headVersion = (await importData(LOCAL, { tables: [{ schema: 'main', table: 'big', file: big }] })).versionId;
  [tFile] = dataFiles(LOCAL, 't') as [string];
  [uFile] = dataFiles(LOCAL, 'u') as [string];
  [bigFile] = dataFiles(LOCAL, 'big') as [string];
});
after(() => work.cleanup());

test('the publisher writes size and sha256 for every data file; fdl verify names each mismatch', async () => {
  const files = JSON.parse(readFileSync(join(LOCAL, 'versions', version, 'files.json'), 'utf8')) as {
    tables: Record<string, { files: { path: string; size: number; sha256?: string }[] }>;
  };
  for (const t of ['main.t', 'main.u']) {
    for (const f of files.tables[t]!.files) {
      assert.match(f.sha256 ?? '', /^[0-9a-f]{64}$/);
      assert.equal(f.size, statSync(join(LOCAL, 'data', f.path)).size);
    }
  }
  assert.equal((await verifyRepository(LOCAL)).ok, true);
  const copy = join(work.dir, 'verify-copy');
  cpSync(LOCAL, copy, { recursive: true });
  writeFileSync(join(copy, tFile), forge(readFileSync(join(copy, tFile))));
  writeFileSync(join(copy, uFile), Buffer.concat([readFileSync(join(copy, uFile)), Buffer.from('x')]));
  const report = await verifyRepository(copy);
  assert.equal(report.ok, false);
  const tRel = tFile.slice('data/'.length);
  const uRel = uFile.slice('data/'.length);
  assert.ok(
    report.problems.some((p) => p.includes(tRel) && /sha256/.test(p)),
    report.problems.join('\n'),
  );
  assert.ok(
    report.problems.some((p) => p.includes(uRel) && /bytes/.test(p)),
    report.problems.join('\n'),
  );
});

describe('the gateway never serves a byte that differs from files.json', () => {
  let s3: S3Server;
  let https: { url: string; close(): Promise<void> };
  let gw: RunningGateway;
  const WEB = join(work.dir, 'web');
  const cacheDir = join(work.dir, 'cache');
  const args = () => [
    '--repo',
    `loc=${LOCAL}`,
    '--repo',
    's3r=s3://lake/r/',
    '--repo',
    `web=${https.url}`,
    '--repo',
    `req=${work.path('repos/basic')}`,
    '--repo',
    `reqnew=${LOCAL}`,
    '--repo',
    `fresh=${LOCAL}`,
    '--repo',
    `gone=${LOCAL}`,
    '--repo',
    's3gone=s3://lake/r/',
    '--data-hashes',
    'req=require',
    '--data-hashes',
    'reqnew=require',
    ...s3Flags(s3.endpoint),
    '--cache-dir',
    cacheDir,
    '--ref-ttl',
    '0',
  ];
  const env = { ...S3_ENV, NODE_EXTRA_CA_CERTS: join(work.dir, 'cert.pem') };

  before(async () => {
    s3 = await startS3();
    await s3.upload(LOCAL, 'r/');
    cpSync(LOCAL, WEB, { recursive: true });
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(work.dir, 'key.pem'),
      '-out',
      join(work.dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    const server = createHttps(
      { cert: readFileSync(join(work.dir, 'cert.pem')), key: readFileSync(join(work.dir, 'key.pem')) },
      (req, res) => {
        const p = join(WEB, decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname));
        if (!p.startsWith(WEB) || !existsSync(p) || !statSync(p).isFile()) return void res.writeHead(404).end();
        const body = readFileSync(p);
        res.writeHead(200, { 'content-length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    https = {
      url: `https://127.0.0.1:${(server.address() as { port: number }).port}/`,
      close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
    };
    gw = await startGateway(args(), { env });
  });
  after(async () => {
    await gw?.stop();
    await https?.close();
    await s3?.close();
  });

  test('a local file replaced (other size, or same size and valid Parquet) is XX001 naming it, until it verifies again', async () => {
    assert.deepEqual(await labels(gw, 'loc', 't'), ['GOOD:500']);
    const path = join(LOCAL, tFile);
    const good = readFileSync(path);
    // proof that the forged file is what an attacker wants: valid Parquet with other rows
    writeFileSync(join(work.dir, 'forged.parquet'), forge(good));
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const forgedRows = (
      await c.runAndReadAll(`SELECT DISTINCT label FROM '${join(work.dir, 'forged.parquet')}'`)
    ).getRows();
    c.closeSync();
    db.closeSync();
    assert.deepEqual(forgedRows, [['EVIL']]);

    const name = new RegExp(`mismatch: ${tFile.replace(/[.]/g, '\\.')}`);
    for (const bad of [forge(good), Buffer.concat([good, Buffer.from('trailing')])]) {
      // no pause: every statement re-stats the version's local files before it runs
      writeFileSync(path, bad);
      await refusedWith(gw, 'loc', 'select count(*) from main.t', 'XX001', name);
      await refusedWith(gw, 'loc', "select count(*) from main.t where label = 'EVIL'", 'XX001', name);
      writeFileSync(path, good);
      assert.deepEqual(await labels(gw, 'loc', 't'), ['GOOD:500'], 'the genuine file verifies again');
    }
    // the catalog, read in place while attached (inlined rows), is re-checked the same way
    const catalogPath = join(LOCAL, 'versions', version, 'ducklake.duckdb');
    const catalog = readFileSync(catalogPath);
    assert.deepEqual(await labels(gw, `loc@${version}`, 't'), ['GOOD:500']);
    writeFileSync(catalogPath, Buffer.concat([catalog, Buffer.alloc(16)]));
    await refusedWith(
      gw,
      `loc@${version}`,
      'select count(*) from main.t',
      'XX001',
      /size mismatch: ducklake\.duckdb of version/,
    );
    writeFileSync(catalogPath, catalog);
    assert.deepEqual(await labels(gw, `loc@${version}`, 't'), ['GOOD:500']);
    // tampered before a version is first attached: the version attaches; the statements that read
    // the corrupt table get XX001 (whatever they ask of it, even a count the catalog could answer),
    // the intact tables are served, and nothing is served from the forged bytes
    writeFileSync(path, forge(good));
    await refusedWith(gw, 'fresh', 'select count(*) from main.t', 'XX001', name);
    await refusedWith(gw, 'fresh', "select label from main.t where label = 'EVIL'", 'XX001', name);
    await refusedWith(gw, 'fresh', 'select u.id from main.u join main.t using (id) limit 1', 'XX001', name);
    assert.deepEqual(await labels(gw, 'fresh', 'u'), ['GOOD:300'], 'an intact table of the same version is served');
    assert.deepEqual(await query(gw, 'fresh', 'select 1 as one'), [{ one: 1 }]);
    writeFileSync(path, good);
    assert.deepEqual(
      await labels(gw, 'fresh', 't'),
      ['GOOD:500'],
      'the restored file verifies and its table is served',
    );
    const stats = (
      await query(gw, 'loc', "select mismatches::int as m, entries::int as e from fdl.cache where cache = 'verified'")
    )[0]!;
    assert.ok(Number(stats.m) >= 3, 'mismatches are counted');
    assert.ok(Number(stats.e) >= 2, 'verified files are remembered');
    assert.match(gw.stderr(), /"event":"integrity"/, 'and logged');
  });

  test('a local file or its folder swapped for a symlink between statements: what DuckDB would read is re-checked (XX001 forged, 58030 outside the root)', async () => {
    // one session: its statements are planned once (DuckDB reads a view's files when it prepares)
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database: 'loc' });
    await c.connect();
    const LABELS = 'select label, count(*)::int as n from main.t group by label order by label';
    const COUNT = 'select count(*)::int as n from main.t';
    const rows = async () => (await c.query(LABELS)).rows.map((r) => `${String(r.label)}:${String(r.n)}`);
    const refused = (sql: string, code: string, message: RegExp) =>
      assert.rejects(
        c.query(sql),
        (e: { code?: string; message?: string }) => (
          assert.equal(e.code, code, e.message),
          assert.match(e.message!, message),
          true
        ),
      );
    const mismatches = async () =>
      Number((await c.query("select mismatches::int as m from fdl.cache where cache = 'verified'")).rows[0].m);
    try {
      assert.deepEqual(await rows(), ['GOOD:500']);
      assert.deepEqual((await c.query(COUNT)).rows, [{ n: 500 }]);
      const path = join(LOCAL, tFile);
      const dir = join(path, '..');
      const good = readFileSync(path);
      const name = new RegExp(`mismatch: ${tFile.replace(/[.]/g, '\\.')}`);
      const before = await mismatches();
      // 1. the file becomes a link to a forged file outside the repository: refused as a link outside
      const outside = join(work.dir, 'outside-forged.parquet');
      writeFileSync(outside, forge(good));
      renameSync(path, `${path}.away`);
      symlinkSync(outside, path);
      await refused(LABELS, '58030', /link to a file outside the repository/);
      await refused(COUNT, '58030', /link to a file outside the repository/);
      rmSync(path);
      renameSync(`${path}.away`, path);
      assert.deepEqual(await rows(), ['GOOD:500'], 'the genuine file is served again');
      // 2. the parent folder becomes a link to a folder inside the repository holding a forged file of the same name
      const twin = join(LOCAL, 'data', 'main', 't-twin');
      mkdirSync(twin);
      const twinFile = join(twin, tFile.split('/').pop()!);
      writeFileSync(twinFile, forge(good));
      renameSync(dir, `${dir}.away`);
      symlinkSync(twin, dir);
      await refused(COUNT, 'XX001', name);
      await refused(LABELS, 'XX001', name);
      // 3. the same folder link to a genuine copy: the same bytes, served
      writeFileSync(twinFile, good);
      assert.deepEqual(await rows(), ['GOOD:500'], 'a genuine copy behind a link verifies');
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
      rmSync(twin, { recursive: true });
      assert.deepEqual(await rows(), ['GOOD:500']);
      assert.ok((await mismatches()) > before, 'the forged twin is counted');
    } finally {
      await c.end();
    }
  });

  test('a file replaced on S3 or behind HTTPS (same size, valid Parquet) is XX001 naming it; the genuine one is served once restored', async () => {
    const tampered = forge(readFileSync(join(LOCAL, uFile)));
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `r/${uFile}`, Body: tampered }));
    writeFileSync(join(WEB, uFile), tampered);
    const name = new RegExp(`sha256 mismatch: ${uFile.replace(/[.]/g, '\\.')}`);
    const before = Number(
      (await query(gw, 's3r', "select mismatches from fdl.cache where cache = 'verified'"))[0]!.mismatches,
    );
    await refusedWith(gw, 's3r', 'select * from main.u', 'XX001', name);
    await refusedWith(gw, 'web', 'select * from main.u', 'XX001', name);
    const afterCount = Number(
      (await query(gw, 's3r', "select mismatches from fdl.cache where cache = 'verified'"))[0]!.mismatches,
    );
    assert.equal(afterCount, before + 2);
    // nothing of the forged bytes stayed in the cache
    for (const n of cachedFiles(join(cacheDir, 'files')))
      assert.equal(readFileSync(join(cacheDir, 'files', n)).includes('EVIL'), false, n);
    await s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: `r/${uFile}`, Body: readFileSync(join(LOCAL, uFile)) }),
    );
    writeFileSync(join(WEB, uFile), readFileSync(join(LOCAL, uFile)));
    assert.deepEqual(await labels(gw, 's3r', 'u'), ['GOOD:300']);
    assert.deepEqual(await labels(gw, 'web', 'u'), ['GOOD:300']);
    assert.deepEqual(await labels(gw, 's3r', 't'), ['GOOD:500']);
  });

  test('a data file missing (local, or a 404 on S3) refuses only the statements that read its table: XX001 naming it, no server path or internal SQL', async () => {
    const gone = join(work.dir, 'gone.parquet');
    const rel = bigFile.slice('data/'.length);
    /** Every message, detail and hint a client sees: names the repository-relative file, nothing internal. */
    const refusedMissing = async (db: string, sql: string) =>
      assert.rejects(query(gw, db, sql), (e: { code?: string; message?: string; detail?: string; hint?: string }) => {
        assert.equal(e.code, 'XX001', e.message);
        assert.ok(e.message!.includes(bigFile) || e.message!.includes(rel), e.message);
        // the version that holds the file (the head, which added table big; its ID's first characters are
        // the first version's only when both were made in the same minute)
        assert.ok(e.message!.includes(headVersion), e.message);
        for (const text of [e.message, e.detail, e.hint]) {
          assert.doesNotMatch(text ?? '', /read_parquet|LINE \d+:|No files found/, text);
          assert.equal((text ?? '').includes(work.dir), false, text);
        }
        return true;
      });
    // a version whose views were built before the file went (loc: the same repository, already open)
    assert.deepEqual(await query(gw, 'loc', 'select count(*)::int as n from main.big where id = 7'), [{ n: 1 }]);
    renameSync(join(LOCAL, bigFile), gone);
    await assert.rejects(
      query(gw, 'loc', 'select id from main.big where id = 7'),
      (e: { code?: string; message?: string; hint?: string }) => {
        assert.equal(e.code, 'XX001', e.message);
        assert.ok(e.message!.includes(rel), e.message);
        for (const text of [e.message, e.hint])
          assert.equal(/No files found|LINE \d+:/.test(text ?? '') || (text ?? '').includes(work.dir), false, text);
        return true;
      },
    );
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `r/${bigFile}` }));
    try {
      // local: a version not attached yet attaches; its intact tables are served
      assert.deepEqual(await labels(gw, 'gone', 'u'), ['GOOD:300']);
      await refusedMissing('gone', 'select count(*) from main.big');
      await refusedMissing('gone', 'select id from main.big where id = 7');
      await refusedMissing('gone', 'select u.id from main.u join main.big using (id) limit 1');
      assert.deepEqual(await labels(gw, 'gone', 't'), ['GOOD:500'], 'still served after the refusals');
      // remote: the missing object is a 404 when the table's files are fetched
      await refusedMissing('s3gone', 'select count(distinct h) from main.big');
      assert.deepEqual(await labels(gw, 's3gone', 'u'), ['GOOD:300']);
    } finally {
      renameSync(gone, join(LOCAL, bigFile));
      await s3.client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: `r/${bigFile}`, Body: readFileSync(join(LOCAL, bigFile)) }),
      );
    }
    for (const db of ['gone', 's3gone'])
      assert.deepEqual(
        await query(gw, db, 'select count(distinct h)::int as n from main.big'),
        [{ n: 120000 }],
        `the restored file is served (${db})`,
      );
  });

  test('require refuses versions without hashes (28000, nothing attached); prefer serves them; fdl.versions says the coverage', async () => {
    await assert.rejects(query(gw, 'req@v1', 'select 1'), (e: { code?: string; message?: string }) => {
      assert.equal(e.code, '28000');
      assert.match(e.message!, /requires hash-covered data/);
      return true;
    });
    assert.deepEqual((await query(gw, 'reqnew', 'select count(*)::int as n from main.t'))[0], { n: 500 });
    assert.deepEqual(
      (await query(gw, 'reqnew', 'select data_hashes from fdl.versions')).map((r) => r.data_hashes),
      ['full', 'full'],
    );
    assert.deepEqual((await query(gw, 'loc', `select data_hashes from fdl.versions where id = '${version}'`))[0], {
      data_hashes: 'full',
    });
    const versions = await query(gw, 'req', 'select 1 as x').catch((e: { code?: string }) => e.code);
    assert.equal(versions, '28000');
  });

  test('a cached data file changed while the gateway runs is verified again before its next use: correct rows, the change counted', async () => {
    assert.deepEqual(await labels(gw, 's3r', 't'), ['GOOD:500']);
    const mismatches = async () =>
      Number((await query(gw, 's3r', "select mismatches::int as m from fdl.cache where cache = 'files'"))[0]!.m);
    const before = await mismatches();
    const files = join(cacheDir, 'files');
    let patched = 0;
    for (const n of cachedFiles(files)) {
      const p = join(files, n);
      const bytes = readFileSync(p);
      if (n.endsWith('.parquet') && bytes.includes('GOOD')) {
        writeFileSync(p, forge(bytes));
        patched++;
      }
    }
    assert.ok(patched >= 1, 'the table was read from the cache'); // other tables' cached files too: they are checked at their next use
    // another text, so the result cache cannot answer it: the rows must come from the file
    const again = await query(gw, 's3r', 'select label, sum(1)::int as n from main.t group by label order by label');
    assert.deepEqual(
      again.map((r) => `${String(r.label)}:${String(r.n)}`),
      ['GOOD:500'],
    );
    assert.ok((await mismatches()) >= before + 1, 'the changed file read by the query was counted');
    const forged = cachedFiles(files).filter(
      (n) => n.endsWith('.parquet') && readFileSync(join(files, n)).includes('EVIL'),
    );
    assert.ok(forged.length < patched, 'the changed file read by the query was replaced by the genuine one');
  });

  test('cached files tampered with between restarts are re-verified: correct rows, the tampering counted', async () => {
    assert.deepEqual(await labels(gw, 's3r', 't'), ['GOOD:500']);
    assert.deepEqual(await labels(gw, `s3r@${version}`, 'u'), ['GOOD:300']);
    await gw.stop();
    const files = join(cacheDir, 'files');
    let patched = 0;
    const catalogs: string[] = [];
    for (const n of cachedFiles(files)) {
      const p = join(files, n);
      const bytes = readFileSync(p);
      if (n.endsWith('.parquet') && bytes.includes('GOOD')) {
        writeFileSync(p, forge(bytes));
        patched++;
      }
      if (n.endsWith('.duckdb')) catalogs.push(p);
    }
    assert.ok(patched >= 1);
    // and one cached catalog replaced by another version's catalog
    // another version's catalog of the same store (each store keeps its own area: the repository read below has both)
    const pair = catalogs.flatMap((a) =>
      catalogs.filter((b) => dirname(b) === dirname(a) && basename(b) !== basename(a)).map((b) => [a, b] as const),
    )[0];
    assert.ok(pair, 'two versions were attached, two catalogs cached');
    writeFileSync(pair[0], readFileSync(pair[1]));
    gw = await startGateway(args(), { env });
    assert.deepEqual(await labels(gw, 's3r', 't'), ['GOOD:500']);
    assert.deepEqual(await labels(gw, `s3r@${version}`, 'u'), ['GOOD:300']);
    assert.equal(
      (
        await query(
          gw,
          `s3r@${version}`,
          "select count(*)::int as n from information_schema.tables where table_name = 'big'",
        )
      )[0]!.n,
      0,
      'the first version has no table big',
    );
    const f = (await query(gw, 's3r', "select mismatches::int as m from fdl.cache where cache = 'files'"))[0]!;
    assert.ok(
      Number(f.m) >= patched + 1,
      `cache mismatches counted: ${String(f.m)} of ${patched} + 1: ${JSON.stringify(cachedFiles(files))}`,
    );
  });
});

test('configuration: --data-hashes per repository (flag or file), --state-dir default and refusals', () => {
  const cfg = join(work.dir, 'cfg.json');
  writeFileSync(cfg, JSON.stringify({ repos: { a: { location: LOCAL, dataHashes: 'require' }, b: LOCAL } }));
  const c = buildConfig({
    config: cfg,
    repo: [`c=${LOCAL}`],
    dataHashes: ['b=prefer', 'c=require'],
    cacheDir: join(work.dir, 'cc'),
  });
  assert.deepEqual(
    c.repos.map((r) => [r.name, r.dataHashes]),
    [
      ['a', 'require'],
      ['b', 'prefer'],
      ['c', 'require'],
    ],
  );
  assert.equal(c.stateDir, `${join(work.dir, 'cc')}.state`);
  assert.throws(
    () => buildConfig({ repo: [`a=${LOCAL}`], dataHashes: ['a=sometimes'] }),
    (e) => e instanceof ConfigError && /expected require or prefer/.test(e.message),
  );
  assert.throws(
    () => buildConfig({ repo: [`a=${LOCAL}`], dataHashes: ['z=require'] }),
    (e) => e instanceof ConfigError && /unknown repository "z"/.test(e.message),
  );
  for (const inside of [join(work.dir, 'cc'), join(work.dir, 'cc', 'state')]) {
    assert.throws(
      () => buildConfig({ repo: [`a=${LOCAL}`], cacheDir: join(work.dir, 'cc'), stateDir: inside }),
      (e) => e instanceof ConfigError && /inside the cache directory/.test(e.message),
    );
  }
  assert.equal(
    buildConfig({ repo: [`a=${LOCAL}`], cacheDir: join(work.dir, 'cc'), stateDir: join(work.dir, 'cc-state') })
      .stateDir,
    join(work.dir, 'cc-state'),
  );
  assert.throws(
    () => buildConfig({ repo: [`a=${LOCAL}`], cacheDir: join(work.dir, 'cc'), stateDir: join(LOCAL, 'state') }),
    (e) => e instanceof ConfigError && /inside repository a/.test(e.message),
  );
});

describe('state outside the cache', () => {
  test('the tag ledger survives a wiped cache directory; --state-dir inside the cache is refused', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const cacheDir = join(repos.dir, 'cache');
    try {
      const refused = await runServeExpectingFailure([
        '--repo',
        `b=${root}`,
        '--cache-dir',
        cacheDir,
        '--state-dir',
        join(cacheDir, 'state'),
      ]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /inside the cache directory/);
      let gw = await startGateway(['--repo', `b=${root}`, '--cache-dir', cacheDir]);
      assert.equal((await query(gw, 'b@v1', 'SHOW fdl.version'))[0]!['fdl.version'], basicRefs['refs/tags/v1']);
      await gw.stop();
      assert.ok(existsSync(`${cacheDir}.state`), 'default state dir next to the cache');
      // the tag moves (an attacker with write access to the store), and the cache is wiped
      writeFileSync(join(root, 'refs', 'tags', 'v1'), `${basicRefs['refs/tags/v2']}\n`);
      rmSync(cacheDir, { recursive: true, force: true });
      gw = await startGateway(['--repo', `b=${root}`, '--cache-dir', cacheDir]);
      try {
        await refusedWith(gw, 'b@v1', 'select 1', 'XX001', /tag refs\/tags\/v1 of repository b moved/);
        assert.equal(
          (await query(gw, 'b@v2', 'SHOW fdl.version'))[0]!['fdl.version'],
          basicRefs['refs/tags/v2'],
          'other refs unaffected',
        );
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
      rmSync(`${cacheDir}.state`, { recursive: true, force: true });
    }
  });
});

describe('expiry while attached', () => {
  test('an expired.json written while a session reads the version refuses its next statements within the ref TTL, as at attach', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const gw = await startGateway(['--repo', `b=${root}`, '--cache-dir', join(repos.dir, 'cache'), '--ref-ttl', '200']);
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database: 'b@v1' });
    await c.connect();
    try {
      const n = (await c.query('select count(*)::int as n from sales.orders')).rows[0].n as number;
      assert.ok(n > 0);
      assert.equal((await c.query('select count(*)::int as n from sales.orders')).rows[0].n, n);
      const id = basicRefs['refs/tags/v1']!;
      writeFileSync(
        join(root, 'versions', id, 'expired.json'),
        JSON.stringify({ expired: '2026-01-01T00:00:00Z', reason: 'retention', successor: basicRefs['refs/tags/v2'] }),
      );
      await new Promise((r) => setTimeout(r, 400));
      // the very statement that ran before (kept prepared by the session, its result in the result cache)
      const inSession = await c.query('select count(*)::int as n from sales.orders').then(
        () => null,
        (e: { code?: string; message?: string }) => e,
      );
      assert.equal(inSession?.code, '3D000');
      assert.match(
        inSession!.message!,
        new RegExp(`version ${id} expired 2026-01-01T00:00:00Z, successor ${basicRefs['refs/tags/v2']}`),
      );
      // a prepared statement executed again gets it too
      const named = await c.query({ name: 'again', text: 'select count(*)::int as n from sales.orders' }).then(
        () => null,
        (e: { code?: string }) => e,
      );
      assert.equal(named?.code, '3D000');
      // a new connection gets the same refusal
      await refusedWith(gw, 'b@v1', 'select 1', '3D000', new RegExp(`version ${id} expired`));
    } finally {
      await c.end().catch(() => undefined);
      await gw.stop();
      repos.cleanup();
    }
  });
});

// The two cases share nothing (their own store, cache and state folders): side by side.
describe('crash safety', { concurrency: 2 }, () => {
  test('kill -9 while downloading and hashing, restart: correct rows, no partial file trusted', async () => {
    const s3 = await startS3();
    const cacheDir = join(work.dir, 'crash-cache');
    try {
      await s3.upload(LOCAL, 'r/');
      const args = [
        '--repo',
        'r=s3://lake/r/',
        '--repo',
        `l=${LOCAL}`,
        ...s3Flags(s3.endpoint),
        '--cache-dir',
        cacheDir,
      ];
      const gw = await startGateway(args, { env: S3_ENV });
      const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database: 'r' });
      await c.connect();
      c.on('error', () => undefined);
      // reads values (a bare count(*) is answered from the catalog's record counts, no download)
      const pending = c.query('select count(distinct h) from main.big').catch(() => undefined);
      // kill -9 as soon as the data file is being downloaded (and hashed): its temporary file exists
      const files = join(cacheDir, 'files');
      const partial = () => cachedFiles(files).some((n) => n.includes('.parquet.part-'));
      const deadline = Date.now() + 20_000;
      while (!partial() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      gw.proc.kill('SIGKILL');
      assert.ok(partial(), 'killed while the download was in progress');
      await pending;
      await gw.stop();
      const again = await startGateway(args, { env: S3_ENV });
      try {
        assert.deepEqual(
          await query(again, 'r', 'select count(*)::int as n, count(distinct h)::int as d from main.big'),
          [{ n: 120000, d: 120000 }],
        );
        assert.deepEqual(await query(again, 'l', 'select count(*)::int as n from main.big'), [{ n: 120000 }]);
        assert.equal(
          cachedFiles(join(cacheDir, 'files')).some((n) => n.includes('.part-')),
          false,
        );
        assert.ok(statSync(join(LOCAL, bigFile)).size > 4_000_000);
      } finally {
        await again.stop();
      }
    } finally {
      await s3.close();
      rmSync(`${cacheDir}.state`, { recursive: true, force: true });
    }
  });
  test('kill -9 while hashing a large local data file on first open, restart: correct rows, no ledger entry for the unfinished hash', async () => {
    // ~60 MB of incompressible doubles: hashing it takes long enough to be caught holding it open
    const lake = join(work.dir, 'lake-huge');
    const stateDir = join(work.dir, 'huge-state');
    await initRepository(lake, {});
    const src = join(work.dir, 'huge.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run(
      `COPY (SELECT i AS id, random() AS a, random() AS b, random() AS c FROM range(2000000) t(i)) TO '${src}' (FORMAT parquet, COMPRESSION uncompressed)`,
    );
    conn.closeSync();
    db.closeSync();
    await importData(lake, { tables: [{ schema: 'main', table: 'huge', file: src }] });
    const [hugeFile] = dataFiles(lake, 'huge') as [string];
    const hugePath = join(lake, hugeFile);
    assert.ok(statSync(hugePath).size > 50_000_000);
    const ledger = () =>
      existsSync(join(stateDir, 'verified.json'))
        ? Object.keys((JSON.parse(readFileSync(join(stateDir, 'verified.json'), 'utf8')) as { files: object }).files)
        : [];
    const args = ['--repo', `h=${lake}`, '--cache-dir', join(work.dir, 'huge-cache'), '--state-dir', stateDir];
    try {
      const gw = await startGateway(args);
      const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database: 'h' });
      c.on('error', () => undefined);
      const pending = c
        .connect()
        .then(() => c.query('select count(*) from main.huge'))
        .catch(() => undefined);
      // kill -9 once the gateway holds the data file open: it is hashed before DuckDB may read it
      const holdsIt = () => {
        try {
          return readdirSync(`/proc/${gw.proc.pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${gw.proc.pid}/fd/${fd}`) === hugePath;
            } catch {
              return false;
            }
          });
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 20_000;
      while (!holdsIt() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
      assert.ok(holdsIt(), 'killed while the file was being hashed');
      gw.proc.kill('SIGKILL');
      await pending;
      await gw.stop();
      assert.equal(ledger().includes(hugePath), false, 'no ledger entry for a hash that never finished');
      const again = await startGateway(args);
      try {
        assert.deepEqual(
          await query(again, 'h', 'select count(*)::int as n, count(distinct id)::int as d from main.huge'),
          [{ n: 2000000, d: 2000000 }],
        );
        // recorded once verified and settled (a file written in the last 2 s is hashed again), written shortly after
        for (let i = 0; i < 30 && !ledger().includes(hugePath); i++) {
          await new Promise((r) => setTimeout(r, 200));
          await query(again, 'h', 'select 1');
        }
        assert.ok(ledger().includes(hugePath), 'recorded once verified');
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(lake, { recursive: true, force: true });
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
