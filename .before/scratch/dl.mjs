import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Store } from '../../dist/src/store/s3-store.js';
import { startCountingProxy } from '../../dist/test/support/counting-proxy.js';
import { S3_CREDENTIALS, startS3 } from '../../dist/test/support/s3-server.js';
const s3 = await startS3('lake');
const proxy = await startCountingProxy(s3.endpoint, { latencyMs: 20, bytesPerSecond: 40e6 });
const dir = mkdtempSync(join(tmpdir(), 'fdl-dl-'));
const sizes = [13_200_000, 40_000_000];
for (const n of sizes) await s3.client.send(new PutObjectCommand({ Bucket: 'lake', Key: `r/o${n}`, Body: randomBytes(n) }));
const raw = new S3Client({ endpoint: proxy.url, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
const store = new S3Store('lake', 'r/', { endpoint: proxy.url, forcePathStyle: true, region: 'us-east-1', credentials: S3_CREDENTIALS });
const shaOf = async (n) => { const r = await raw.send(new GetObjectCommand({ Bucket: 'lake', Key: `r/o${n}` })); return createHash('sha256').update(await r.Body.transformToByteArray()).digest('hex'); };
const shas = {}; for (const n of sizes) shas[n] = await shaOf(n);
let k = 0;
const time = async (f) => { const t = performance.now(); await f(); return performance.now() - t; };
for (const n of sizes) {
  const res = { raw: [], single: [], ranged: [], nohash: [] };
  for (let i = 0; i < 4; i++) {
    res.raw.push(await time(async () => { const r = await raw.send(new GetObjectCommand({ Bucket: 'lake', Key: `r/o${n}` })); await r.Body.transformToByteArray(); }));
    res.single.push(await time(() => store.download(`o${n}`, join(dir, `f${k++}`), { sha256: shas[n] })));
    res.nohash.push(await time(() => store.download(`o${n}`, join(dir, `f${k++}`), {})));
    res.ranged.push(await time(() => store.download(`o${n}`, join(dir, `f${k++}`), { sha256: shas[n], expectedSize: n })));
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(0);
  console.log(`${(n / 1e6).toFixed(1)} MB: raw ${med(res.raw)} ms, one stream ${med(res.single)} ms, ranged ${med(res.ranged)} ms, one stream without hash ${med(res.nohash)} ms`);
}
raw.destroy(); await proxy.close(); await s3.close(); rmSync(dir, { recursive: true, force: true });
