// Resolve + verify timings against a real s3rver: cold open (resolve, download, sha256) and the
// warm switch between two cached versions. Run: npx tsc -p . && node dist/bench/resolve.js
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Store } from '../src/store/s3-store.js';
import { FileCache } from '../src/cache/file-cache.js';
import { openRepository } from '../src/resolver/index.js';
import { startS3, S3_CREDENTIALS } from '../test/support/s3-server.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures');
const s3 = await startS3();
try {
  await s3.upload(join(FIX, 'repos/basic'), 'basic/');
  const store = new S3Store(s3.bucket, 'basic/', {
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3_CREDENTIALS,
  });
  const cacheDir = await mkdtemp(join(tmpdir(), 'fdl-bench-'));
  const fileCache = await FileCache.open(join(cacheDir, 'files'));
  const repo = await openRepository('basic', store, {
    signatures: 'require',
    allowedSigners: join(FIX, 'keys/allowed_signers'),
    cacheDir,
    fileCache,
  });
  const time = async (label: string, f: () => Promise<unknown>, n = 1) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f();
    const ms = (performance.now() - t0) / n;
    console.log(`${label.padEnd(44)} ${ms.toFixed(3)} ms`);
    return ms;
  };
  const open = async (ref: string) => (await repo.openVersion((await repo.resolve(ref)).versionId)).close();
  await time('cold open tags/v1 (resolve+download+verify)', () => open('tags/v1'));
  await time('cold open tags/v2', () => open('tags/v2'));
  let flip = false;
  await time(
    'warm switch v1 <-> v2 (mean of 200)',
    () => {
      flip = !flip;
      return open(flip ? 'tags/v1' : 'tags/v2');
    },
    200,
  );
  console.log('file cache', fileCache.stats(), 'ref cache', repo.refs.stats());
} finally {
  await s3.close();
}
