/**
 * The branch compare-and-swap on S3, against a store that enforces conditional writes
 * (support/conditional-s3.ts in front of s3rver): two publishers that both read the branch before
 * either writes it — exactly one moves it, the other is told the branch moved, and the branch
 * points at the winner's version.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { BranchMovedError, openTarget, type S3TargetOptions } from '../src/host/target.js';
import { startConditionalS3, type ConditionalS3 } from './support/conditional-s3.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';

describe('branch compare-and-swap on S3 that enforces If-Match / If-None-Match', () => {
  let s3: S3Server;
  let front: ConditionalS3;
  let work: string;
  let opts: S3TargetOptions;

  before(async () => {
    s3 = await startS3('lake');
    front = await startConditionalS3(s3);
    work = await mkdtemp(path.join(tmpdir(), 'fdl-host-cas-'));
    const client = new S3Client({
      endpoint: front.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    opts = { client, endpoint: front.endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS };
  });
  after(async () => {
    await front?.close();
    await s3?.close();
    await rm(work, { recursive: true, force: true });
  });

  const branchNow = async (prefix: string) =>
    (
      await (
        await s3.client.send(new GetObjectCommand({ Bucket: 'lake', Key: `${prefix}refs/heads/main` }))
      ).Body!.transformToString()
    ).trim();

  it('the store itself refuses a stale If-Match and an If-None-Match on an existing key (412)', async () => {
    const target = openTarget('s3://lake/cas/plain/', opts);
    // Two creators of one key, both past their own existence check: one creates it, the other is refused.
    front.gate('/cas/plain/x', 2);
    const created = await Promise.all([target.create('x', Buffer.from('1')), target.create('x', Buffer.from('2'))]);
    assert.deepEqual(created.sort(), [false, true]);
    assert.equal(front.refused.get('/lake/cas/plain/x'), 1, 'the second create was refused by the store (412)');
    await target.swap('ref', null, Buffer.from('a\n'));
    // Both read "a" before either writes: the store, not the writer's own read, decides.
    front.gate('/cas/plain/ref', 2);
    const results = await Promise.allSettled([
      target.swap('ref', 'a', Buffer.from('b\n')),
      target.swap('ref', 'a', Buffer.from('c\n')),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1, `exactly one swap wins: ${JSON.stringify(results.map((r) => r.status))}`);
    assert.ok(
      lost[0]!.reason instanceof BranchMovedError && /changed while/.test(lost[0]!.reason.message),
      String(lost[0]!.reason),
    );
    assert.equal(front.refused.get('/lake/cas/plain/ref'), 1, 'the loser was refused by the store (412)');
    const now = (
      await (
        await s3.client.send(new GetObjectCommand({ Bucket: 'lake', Key: 'cas/plain/ref' }))
      ).Body!.transformToString()
    ).trim();
    assert.equal(now, results[0]!.status === 'fulfilled' ? 'b' : 'c', 'the branch holds the winner');
  });

  it('two publishers racing on one branch: one version lands, the other fails with the branch moved', async () => {
    const loc = 's3://lake/repos/race/';
    const csv = (name: string, body: string) => {
      const p = path.join(work, name);
      writeFileSync(p, body);
      return p;
    };
    assert.equal((await initRepository(loc, { s3: opts })).created, true);
    const base = await importData(loc, {
      s3: opts,
      tables: [{ schema: 'main', table: 't', file: csv('a.csv', 'id\n1\n') }],
      progress: () => undefined,
    });
    front.gate('/repos/race/refs/heads/main', 2);
    const publish = (file: string) =>
      importData(loc, { s3: opts, tables: [{ schema: 'main', table: 't', file }], progress: () => undefined });
    const results = await Promise.allSettled([publish(csv('b.csv', 'id\n2\n')), publish(csv('c.csv', 'id\n3\n'))]);
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    assert.equal(won.length, 1, `exactly one publisher moves main: ${JSON.stringify(results.map((r) => r.status))}`);
    assert.ok(lost[0] instanceof BranchMovedError, String(lost[0]));
    assert.notEqual(won[0]!.versionId, base.versionId);
    assert.equal(await branchNow('repos/race/'), won[0]!.versionId, 'main points at the winner');
    assert.equal(front.refused.get('/lake/repos/race/refs/heads/main'), 1, 'the store refused the loser');
  });
});
