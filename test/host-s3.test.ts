/**
 * Host tooling against S3 (s3rver): init, import, tag, verify, and reading back through the
 * gateway's resolver. s3rver does not enforce conditional writes, so the test records the requests
 * and checks that creates carry If-None-Match: * and branch moves If-Match: <etag>.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { S3Client } from '@aws-sdk/client-s3';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { tagCommand } from '../src/host/refs-cmd.js';
import { verifyRepository } from '../src/host/verify.js';
import type { S3TargetOptions } from '../src/host/target.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { openRepository } from '../src/resolver/repository.js';
import { S3Store } from '../src/store/s3-store.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';

interface Seen {
  method: string;
  key: string;
  ifNoneMatch?: string;
  ifMatch?: string;
}

describe('host tooling on S3 (s3rver)', () => {
  let s3: S3Server;
  let work: string;
  const seen: Seen[] = [];
  let opts: S3TargetOptions;

  before(async () => {
    s3 = await startS3('lake');
    work = await mkdtemp(path.join(tmpdir(), 'fdl-host-s3-'));
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    // Records what goes on the wire, after serialization (the headers S3 would enforce).
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
    await rm(work, { recursive: true, force: true });
  });

  const puts = (suffix: string) => seen.filter((s) => s.method === 'PUT' && s.key.endsWith(suffix));

  it('init/import/tag write with If-None-Match, branch moves with If-Match; the gateway reads the result', async () => {
    const loc = 's3://lake/repos/shop/';
    const a = path.join(work, 'a.csv');
    const b = path.join(work, 'b.csv');
    writeFileSync(a, 'id,name\n1,x\n2,y\n');
    writeFileSync(b, 'id,name\n3,z\n');
    assert.equal((await initRepository(loc, { s3: opts })).created, true);
    assert.equal((await initRepository(loc, { s3: opts, id: 'other' })).created, false);
    assert.equal(puts('/fdl.json')[0]!.ifNoneMatch, '*');

    const v1 = await importData(loc, {
      s3: opts,
      tables: [{ schema: 'main', table: 't', file: a }],
      progress: () => undefined,
    });
    // first version: the branch does not exist yet, so it is created with If-None-Match
    assert.equal(puts('/refs/heads/main').at(-1)!.ifNoneMatch, '*');
    for (const f of ['ducklake.duckdb', 'dataset.json', 'files.json', 'version.json']) {
      assert.equal(puts(`/versions/${v1.versionId}/${f}`)[0]!.ifNoneMatch, '*', f);
    }
    const dataPut = seen.find((s) => s.method === 'PUT' && /\/data\/main\/t\/ducklake-.*\.parquet$/.test(s.key));
    assert.equal(dataPut?.ifNoneMatch, '*');

    const v2 = await importData(loc, {
      s3: opts,
      tables: [{ schema: 'main', table: 't', file: b }],
      progress: () => undefined,
    });
    const move = puts('/refs/heads/main').at(-1)!;
    assert.ok(move.ifMatch && move.ifMatch.length > 2, `branch move carries If-Match (got ${JSON.stringify(move)})`);
    assert.equal(move.ifNoneMatch, undefined);

    await tagCommand(loc, 'v1', v1.versionId, opts);
    assert.equal(puts('/refs/tags/v1')[0]!.ifNoneMatch, '*');
    await assert.rejects(tagCommand(loc, 'v1', v2.versionId, opts), /never rewritten/); // (s3rver does not enforce: the writer checks too)

    assert.equal((await verifyRepository(loc, { s3: opts })).ok, true);

    // Read back through the gateway's resolver over S3 and the lake reader.
    const store = new S3Store('lake', 'repos/shop/', {
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
    });
    const repo = await openRepository('shop', store, { cacheDir: path.join(work, 'cache'), signatures: 'off' });
    const res = await repo.resolve('main');
    assert.equal(res.versionId, v2.versionId);
    const version = await repo.openVersion(res.versionId);
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const cat = await openCatalog(conn, version.catalogFile, 'meta');
      const lease = await version.ensureFiles(
        cat.tables.flatMap((t) => t.files.map((f) => ({ path: f.path, size: f.size }))),
      );
      await attachCatalog(conn, cat, 'lake', (rel) => version.locate(rel));
      const rows = (await conn.runAndReadAll('SELECT id, name FROM lake.main.t ORDER BY id')).getRowsJson();
      assert.deepEqual(rows, [
        ['1', 'x'],
        ['2', 'y'],
        ['3', 'z'],
      ]);
      lease.release();
    } finally {
      conn.closeSync();
      inst.closeSync();
      version.close();
    }
  });
});
