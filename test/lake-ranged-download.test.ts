/**
 * Large objects arrive in parallel byte ranges (src/store/ranged-write.ts) from a real S3 API
 * (s3rver) behind a counting proxy: the bytes on disk are the object's, the hash is checked over
 * the parts in file order, and a wrong hash or size leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SqlError } from '../src/errors.js';
import { partRanges, RANGED_MIN_BYTES } from '../src/store/ranged-write.js';
import { S3Store } from '../src/store/s3-store.js';
import { startCountingProxy, type CountingProxy } from './support/counting-proxy.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('ranged downloads of large objects (s3rver behind a counting proxy)', () => {
  let s3: S3Server;
  let proxy: CountingProxy;
  let dir: string;
  const big = randomBytes(RANGED_MIN_BYTES * 2 + 12345);
  const store = (attempts = 2) =>
    new S3Store(s3.bucket, 'r/', {
      endpoint: proxy.url,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: S3_CREDENTIALS,
      limits: { maxGetBytes: 1 << 20, timeoutMs: 10_000, attempts, backoffMs: 10 },
    });

  before(async () => {
    s3 = await startS3('lake');
    await s3.client.send(new PutObjectCommand({ Bucket: 'lake', Key: 'r/big.bin', Body: big }));
    proxy = await startCountingProxy(s3.endpoint);
    dir = await mkdtemp(join(tmpdir(), 'fdl-ranged-'));
  });
  after(async () => {
    await proxy?.close();
    await s3?.close();
  });

  it('splits into parts of at least 4 MiB that cover the object exactly', () => {
    for (const size of [RANGED_MIN_BYTES, RANGED_MIN_BYTES * 2 + 1, 1e9 + 7]) {
      const parts = partRanges(size);
      assert.ok(parts.length > 1);
      assert.equal(parts[0]![0], 0);
      assert.equal(parts.at(-1)![1], size);
      parts.forEach(([s, e], i) => {
        assert.ok(e - s >= 4 * 1024 * 1024, `${size}: part ${i}`);
        if (i > 0) assert.equal(s, parts[i - 1]![1]);
      });
    }
  });

  it('fetches a large object as several ranges and writes exactly its bytes', async () => {
    const counted: number[] = [];
    proxy.reset();
    await store().download('big.bin', join(dir, 'a.bin'), { sha256: sha(big), expectedSize: big.length });
    assert.ok((await readFile(join(dir, 'a.bin'))).equals(big));
    counted.push(proxy.bytes());
    assert.equal(counted[0], big.length, 'every byte fetched once');
    assert.equal(proxy.rangeRequests(), partRanges(big.length).length, 'one request per part');
    assert.ok(proxy.rangeRequests() > 1);
  });

  it('a wrong hash or size fails with XX001 and leaves no file, not even a part', async () => {
    const wrong = sha(Buffer.from('something else'));
    await assert.rejects(
      store().download('big.bin', join(dir, 'b.bin'), { sha256: wrong, expectedSize: big.length }),
      (e: unknown) => e instanceof SqlError && e.sqlstate === 'XX001' && /sha256 mismatch/.test(e.message),
    );
    await assert.rejects(
      store().download('big.bin', join(dir, 'c.bin'), { expectedSize: big.length - 1 }),
      (e: unknown) => e instanceof SqlError && e.sqlstate === 'XX001' && /size mismatch/.test(e.message),
    );
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f !== 'a.bin'),
      [],
    );
  });
});
