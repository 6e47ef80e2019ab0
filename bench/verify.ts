/**
 * What verification costs, side by side in one run:
 *  1. first open of a local version with ~1 GB of data (every file hashed: MB/s), the same open
 *     again in the same process and after a restart (answered by the verification ledger);
 *  2. downloading one file over HTTP with the hash computed in the stream (the gateway's path: on a
 *     worker thread) against the same download without hashing, with the hash on the main thread
 *     (how it was done before), and against download-then-hash (a second read).
 * Usage: node dist/bench/verify.js [MB=1024 (0: skip)] [DOWNLOAD_MB=128] [PACED_MB_PER_S=100] [ROUNDS=5]
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { VerificationLedger } from '../src/state/verification-ledger.js';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { openRepository } from '../src/resolver/index.js';
import { FsStore } from '../src/store/fs-store.js';
import { HttpStore } from '../src/store/http-store.js';
import { writeVerified } from '../src/store/verified-write.js';

const MB = Number(process.argv[2] ?? 1024);
const SKIP_LOCAL = MB === 0;
const DOWNLOAD_MB = Number(process.argv[3] ?? 128);
const RATE = Number(process.argv[4] ?? 100);
const ROUNDS = Number(process.argv[5] ?? 5);
const dir = await mkdtemp(join(tmpdir(), 'fdl-bench-verify-'));
const say = (s: string) => process.stdout.write(s + '\n');
const secs = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
};

try {
  // ---------------------------------------------------------------- 1. local first open
  if (!SKIP_LOCAL) {
    const parts = Math.max(1, Math.round(MB / 128));
    const rowsPer = Math.round(((MB / parts) * 1e6) / 72); // ~72 bytes a row, incompressible
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const sources: string[] = [];
    for (let p = 0; p < parts; p++) {
      const f = join(dir, `src${p}.parquet`);
      await conn.run(
        `COPY (SELECT i AS id, md5(i::VARCHAR || '${p}') || md5((i * 7)::VARCHAR) AS h FROM range(${rowsPer}) t(i)) TO '${f}' (FORMAT parquet, COMPRESSION uncompressed)`,
      );
      sources.push(f);
    }
    conn.closeSync();
    inst.closeSync();
    const root = join(dir, 'repo');
    await initRepository(root, {});
    const built = await secs(() =>
      importData(root, { tables: sources.map((file) => ({ schema: 'main', table: 'big', file })) }),
    );
    for (const f of sources) await rm(f);

    const ledgerFile = join(dir, 'state', 'verified.json');
    const openAll = async (ledger: VerificationLedger) => {
      const repo = await openRepository('bench', new FsStore(root), { verification: ledger, refTtlMs: 0 });
      const v = await repo.openVersion((await repo.resolve('main')).versionId);
      const index = JSON.parse(
        (await import('node:fs')).readFileSync(join(root, 'versions', v.id, 'files.json'), 'utf8'),
      ) as { tables: Record<string, { files: { path: string; size: number }[] }> };
      const files = Object.values(index.tables).flatMap((t) => t.files.map((f) => ({ path: f.path, size: f.size })));
      const t = await secs(async () => (await v.ensureFiles(files)).release());
      v.close();
      return { t, bytes: files.reduce((n, f) => n + f.size, 0), files: files.length };
    };
    const ledger = await VerificationLedger.open(ledgerFile);
    const cold = await openAll(ledger);
    const warm = await openAll(ledger);
    await ledger.flush();
    const restarted = await openAll(await VerificationLedger.open(ledgerFile));
    const mb = cold.bytes / 1e6;
    say(`local version: ${cold.files} data files, ${mb.toFixed(0)} MB (built by fdl import in ${built.toFixed(1)} s)`);
    say(`  first open (hash every file)      ${cold.t.toFixed(2)} s   ${(mb / cold.t).toFixed(0)} MB/s`);
    say(`  open again, same process (ledger) ${(warm.t * 1000).toFixed(1)} ms`);
    say(`  open after a restart (ledger)     ${(restarted.t * 1000).toFixed(1)} ms`);
    await rm(root, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- 2. download + hash (unpaced, then paced)
  const blob = join(dir, 'blob.bin');
  const i2 = await DuckDBInstance.create(':memory:');
  const c2 = await i2.connect();
  await c2.run(
    `COPY (SELECT md5(i::VARCHAR) AS h FROM range(${Math.round((DOWNLOAD_MB * 1e6) / 40)}) t(i)) TO '${blob}' (FORMAT csv, HEADER false)`,
  );
  c2.closeSync();
  i2.closeSync();
  const size = (await stat(blob)).size;
  // The server runs in its own process, as a real store would: the client's thread only receives,
  // hashes and writes. RATE (MB/s, 0 = as fast as localhost goes) paces it like a network link.
  const startServer = async (rate: number) => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
      const { createServer } = require('node:http'); const { openSync, readSync } = require('node:fs');
      const fd = openSync(${JSON.stringify(blob)}, 'r'); const size = ${size}; const rate = ${rate} * 1e6;
      const s = createServer((req, res) => {
        res.writeHead(200, { 'content-length': size, etag: '"b"' });
        if (req.method === 'HEAD') return void res.end();
        let off = 0; const t0 = Date.now();
        const next = () => {
          while (off < size) {
            const n = Math.min(1 << 20, size - off); const b = Buffer.allocUnsafe(n); readSync(fd, b, 0, n, off); off += n;
            const ok = res.write(b);
            const due = rate ? t0 + (off / rate) * 1000 - Date.now() : 0;
            if (due > 0) return void setTimeout(next, due);
            if (!ok) return void res.once('drain', next);
          }
          res.end();
        };
        next();
      });
      s.listen(0, '127.0.0.1', () => console.log('port ' + s.address().port));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const port = await new Promise<number>((res) =>
      child.stdout!.on('data', (d: Buffer) => {
        const m = /port (\d+)/.exec(d.toString());
        if (m) res(Number(m[1]));
      }),
    );
    return { child, base: `http://127.0.0.1:${port}/` };
  };
  for (const rate of [0, RATE]) {
    const { child: server, base } = await startServer(rate);
    const store = new HttpStore(base);
    const want = createHash('sha256');
    for await (const c of createReadStream(blob)) want.update(c as Buffer);
    const sha256 = want.digest('hex');

    // the same transport and the same durability (fsync before use), no hash
    const plain = async (dest: string) => {
      const r = await fetch(`${base}blob.bin`);
      await pipeline(
        Readable.fromWeb(r.body as import('node:stream/web').ReadableStream),
        createWriteStream(dest, { highWaterMark: 1 << 20 }),
      );
      const fh = await open(dest, 'r+');
      await fh.sync().finally(() => fh.close());
    };
    const hashAfter = async (dest: string) => {
      await plain(dest);
      const h = createHash('sha256');
      for await (const c of createReadStream(dest, { highWaterMark: 1024 * 1024 })) h.update(c as Buffer);
      if (h.digest('hex') !== sha256) throw new Error('hash');
    };
    const streamed = (dest: string) => store.download('blob.bin', dest, { sha256, expectedSize: size });
    const unhashed = (dest: string) => store.download('blob.bin', dest, { expectedSize: size });
    // the earlier way, for comparison in the same run: sha256 updated per chunk on the main thread
    const inlineHash = async (dest: string) => {
      const r = await fetch(`${base}blob.bin`);
      const h = createHash('sha256');
      async function* hashing() {
        for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) {
          h.update(c);
          yield c;
        }
      }
      await writeVerified({ body: hashing() }, dest, { expectedSize: size, key: 'blob.bin', location: base });
      if (h.digest('hex') !== sha256) throw new Error('hash');
    };
    const kinds: [string, (d: string) => Promise<unknown>][] = [
      ['gateway download, no hash', unhashed],
      ['gateway download, hash in the stream', streamed],
      ['  same, sha256 on the main thread (before)', inlineHash],
      ['plain fetch + write + fsync, no hash', plain],
      ['plain fetch, then hash (second read)', hashAfter],
    ];
    const rounds: Record<string, number[]> = Object.fromEntries(kinds.map(([k]) => [k, []]));
    // main-thread busy time (event loop active): what the query path competes with during a download
    const busy: Record<string, number[]> = Object.fromEntries(kinds.map(([k]) => [k, []]));
    for (let k = 0; k < ROUNDS; k++) {
      for (const [name, f] of kinds) {
        const dest = join(dir, `dl-${k}-${name.length}`);
        const elu = performance.eventLoopUtilization();
        rounds[name]!.push(await secs(() => f(dest)));
        busy[name]!.push(performance.eventLoopUtilization(elu).active / 1000);
        await rm(dest, { force: true });
      }
    }
    server.kill();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const baseT = median(rounds['gateway download, no hash']!);
    say(
      `download of ${(size / 1e6).toFixed(0)} MB over HTTP (localhost${rate ? `, paced to ${rate} MB/s` : ', unpaced'}), median of ${ROUNDS} interleaved rounds:`,
    );
    for (const [name] of kinds) {
      const t = median(rounds[name]!);
      say(
        `  ${name.padEnd(42)} ${t.toFixed(2)} s  ${(size / 1e6 / t).toFixed(0)} MB/s  ${(t / baseT).toFixed(2)}x  main thread busy ${median(busy[name]!).toFixed(2)} s`,
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
