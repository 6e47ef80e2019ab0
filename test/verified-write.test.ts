// writeVerified with the hash on a worker thread: many batches (buffers recycled through the
// worker), several downloads at once sharing it, odd chunk sizes; a wrong hash or size leaves
// neither the file nor a temp file behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlError } from '../src/errors.js';
import { writeVerified } from '../src/store/verified-write.js';

/** Yields `data` in chunks of varying size, like a socket does. */
async function* chunked(data: Buffer, seed: number): AsyncIterable<Uint8Array> {
  for (let at = 0, i = seed; at < data.length; i++) {
    const n = [1, 7, 65536, 100_003, 1 << 20, 3 << 20][i % 6]!;
    yield data.subarray(at, at + n);
    at += n;
  }
}

const opts = (sha256: string | undefined, expectedSize: number | undefined, key: string) => ({
  sha256,
  expectedSize,
  key,
  location: 'test:',
});

test('hashed downloads in parallel land byte for byte; mismatches leave nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fdl-verified-write-'));
  try {
    const blobs = [9 << 20, 5 << 20, 1, 0, 1 << 20].map((n) => randomBytes(n));
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    await Promise.all(
      blobs.map((b, i) =>
        writeVerified({ body: chunked(b, i) }, join(dir, `ok${i}`), opts(sha(b), b.length, `ok${i}`)),
      ),
    );
    for (const [i, b] of blobs.entries()) assert.ok((await readFile(join(dir, `ok${i}`))).equals(b), `ok${i} content`);
    // no sha256 to check: written the same way, not hashed
    await writeVerified({ body: chunked(blobs[0]!, 3) }, join(dir, 'plain'), opts(undefined, undefined, 'plain'));
    assert.ok((await readFile(join(dir, 'plain'))).equals(blobs[0]!));

    const before = (await readdir(dir)).sort();
    const bad = blobs[0]!;
    const tampered = Buffer.from(bad);
    tampered[tampered.length - 1]! ^= 1;
    const refusals = await Promise.allSettled([
      writeVerified({ body: chunked(tampered, 1) }, join(dir, 'bad-hash'), opts(sha(bad), bad.length, 'bad-hash')),
      writeVerified({ body: chunked(bad, 2) }, join(dir, 'bad-size'), opts(sha(bad), bad.length - 1, 'bad-size')),
    ]);
    for (const [i, r] of refusals.entries()) {
      assert.equal(r.status, 'rejected', `refusal ${i}`);
      const e = (r as PromiseRejectedResult).reason as SqlError;
      assert.ok(e instanceof SqlError, String(e));
      assert.equal(e.sqlstate, 'XX001');
      assert.match(e.message, i === 0 ? /sha256 mismatch: bad-hash/ : /size mismatch: bad-size/);
    }
    assert.deepEqual((await readdir(dir)).sort(), before, 'no file, no temp file left by a refusal');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
