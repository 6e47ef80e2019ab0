/**
 * A big lake on an S3 API: FILES daily files (default 40) with bulk rows, published to s3rver, served
 * by `fdl serve` through a counting proxy that adds per-request latency. Reports, side by side:
 * bytes fetched vs bytes the query needs (files whose day overlaps the filter), cold first-touch time
 * vs the raw transfer time of those files (same proxy, same parallelism), warm query time vs
 * in-process DuckDB over the same local files, and the cache's peak vs its budget.
 * With FDL_BENCH_BASELINE=<path of another build's dist/src/cli/main.js>, that build serves the same
 * lake too and each row is printed for both, side by side (cold touches first on the baseline).
 * Data under /tmp. Run: npx tsc -p . && node dist/bench/big-lake.js [files] [rowsPerFile] [latencyMs] [MB/s per connection]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { publishCatalog } from '../src/host/publish.js';
import { initRepository } from '../src/host/repo.js';
import { startCountingProxy } from '../test/support/counting-proxy.js';
import { startGateway } from '../test/support/gateway.js';
import { S3_CREDENTIALS, startS3 } from '../test/support/s3-server.js';
import { makeSyntheticLake } from '../test/support/synthetic-lake.js';

const FILES = Number(process.argv[2] ?? 40);
const ROWS = Number(process.argv[3] ?? 120_000);
const LATENCY = Number(process.argv[4] ?? 20);
/** MB/s one response may carry (0: no cap): one connection to a distant store is slower than the link. */
const PER_CONNECTION_MBPS = Number(process.argv[5] ?? 0);
const DAYS: [string, string, number][] = [
  ['one day', "ts >= '2024-01-05' AND ts < '2024-01-06'", 1],
  ['three days', "ts >= '2024-01-10' AND ts < '2024-01-13'", 3],
];
const mb = (n: number) => (n / 1e6).toFixed(1);

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fdl-bench-big-lake-'));
  const s3 = await startS3('lake');
  const proxy = await startCountingProxy(s3.endpoint, {
    latencyMs: LATENCY,
    bytesPerSecond: PER_CONNECTION_MBPS * 1e6 || undefined,
  });
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const gateways: Awaited<ReturnType<typeof startGateway>>[] = [];
  try {
    let t0 = performance.now();
    const lake = await makeSyntheticLake(conn, path.join(dir, 'lake'), { files: FILES, rowsPerFile: ROWS, pad: 96 });
    const sizes = lake.dataFiles.map((f) => statSync(f).size);
    const total = sizes.reduce((a, b) => a + b, 0);
    console.log(
      `lake: ${FILES} files, ${((FILES * ROWS) / 1e6).toFixed(1)}M rows, ${mb(total)} MB (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const s3opts = { endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS };
    const loc = 's3://lake/big/';
    t0 = performance.now();
    await initRepository(loc, { s3: s3opts });
    await publishCatalog(loc, {
      catalog: lake.catalogFile,
      dataFrom: lake.dataDir,
      s3: s3opts,
      message: 'big lake',
      progress: () => undefined,
    });
    console.log(
      `published to s3rver in ${((performance.now() - t0) / 1000).toFixed(1)} s; proxy latency ${LATENCY} ms per request${PER_CONNECTION_MBPS ? `, ${PER_CONNECTION_MBPS} MB/s per connection` : ''}`,
    );

    const budget = Math.round(total / 4);
    const builds = [
      ...(process.env.FDL_BENCH_BASELINE ? [{ label: 'baseline', cli: process.env.FDL_BENCH_BASELINE }] : []),
      { label: 'this build', cli: undefined },
    ];
    const clients: { label: string; client: pg.Client }[] = [];
    for (const b of builds) {
      const g = await startGateway(
        [
          '--repo',
          `big=${loc}`,
          '--s3-endpoint',
          proxy.url,
          '--s3-region',
          'us-east-1',
          '--s3-force-path-style',
          '--cache-dir',
          path.join(dir, `cache-${clients.length}`),
          '--cache-max-bytes',
          String(budget),
          '--download-concurrency',
          '8',
        ],
        {
          env: { AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey },
          timeoutMs: 60_000,
          cli: b.cli,
        },
      );
      gateways.push(g);
      const client = new pg.Client({ host: g.host, port: g.port, user: 'bench', database: 'big@main' });
      await client.connect();
      await client.query('SET fdl.result_cache = off');
      await client.query('SET TimeZone = UTC');
      await client.query('SELECT 1'); // the version is opened (catalog fetched) before any timing
      clients.push({ label: b.label, client });
    }
    const raw = new S3Client({
      ...s3opts,
      endpoint: proxy.url,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    // the raw client's connection and credentials set up before it is timed, as the gateways' are
    await (
      await raw.send(
        new GetObjectCommand({
          Bucket: 'lake',
          Key: `big/data/main/events/${path.basename(lake.dataFiles.at(-1)!)}`,
          Range: 'bytes=0-0',
        }),
      )
    ).Body!.transformToByteArray();
    const inproc = await db.connect();
    console.log(
      '| query | build | files needed | MB needed | MB fetched | cold ms | raw transfer ms | cold/raw | warm ms | in-process ms | warm/in-process |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [label, where, days] of DAYS) {
      const first = Number(/'2024-01-(\d\d)'/.exec(where)![1]) - 1;
      const needed = lake.dataFiles.slice(first, first + days);
      const needBytes = sizes.slice(first, first + days).reduce((a, b) => a + b, 0);
      const sql = `SELECT count(*) AS n, round(sum(v), 2) AS s, max(length(p)) AS l FROM main.events WHERE ${where}`;
      const isData = (p: string) => p.includes('/big/data/');
      const cold: { fetched: number; ms: number; row: { n: string; s: string; l: number } }[] = [];
      for (const { client } of clients) {
        const before = proxy.bytes(isData);
        const t = performance.now();
        const r = await client.query(sql);
        cold.push({
          ms: performance.now() - t,
          fetched: proxy.bytes(isData) - before,
          row: r.rows[0] as { n: string; s: string; l: number },
        });
      }
      // raw transfer of the same files through the same proxy, as parallel as the gateway may be
      let t = performance.now();
      await Promise.all(
        needed.map(async (f) => {
          const key = `big/data/main/events/${path.basename(f)}`;
          const r = await raw.send(new GetObjectCommand({ Bucket: 'lake', Key: key }));
          await r.Body!.transformToByteArray();
        }),
      );
      const rawMs = performance.now() - t;
      const local = `SELECT count(*) AS n, round(sum(v), 2) AS s, max(length(p)) AS l FROM read_parquet([${lake.dataFiles.map((f) => `'${f}'`).join(', ')}]) WHERE ${where}`;
      let inMs = Infinity;
      let inRows: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        t = performance.now();
        inRows = (await inproc.runAndReadAll(local)).getRowsJson();
        inMs = Math.min(inMs, performance.now() - t);
      }
      const want = inRows[0] as [string, string, number];
      for (const [i, { label: build, client }] of clients.entries()) {
        const got = cold[i]!.row;
        if (String(got.n) !== String(want[0]) || Number(got.s) !== Number(want[1]))
          throw new Error(`${label} (${build}): gateway ${JSON.stringify(got)} vs in-process ${JSON.stringify(want)}`);
        let warmMs = Infinity;
        for (let k = 0; k < 5; k++) {
          t = performance.now();
          await client.query(sql);
          warmMs = Math.min(warmMs, performance.now() - t);
        }
        const c = cold[i]!;
        console.log(
          `| ${label} | ${build} | ${needed.length} of ${FILES} | ${mb(needBytes)} | ${mb(c.fetched)} | ${c.ms.toFixed(0)} | ${rawMs.toFixed(0)} | ${(c.ms / rawMs).toFixed(2)}× | ${warmMs.toFixed(1)} | ${inMs.toFixed(1)} | ${(warmMs / inMs).toFixed(2)}× |`,
        );
      }
    }
    for (const { label: build, client } of clients) {
      // count(*) with no filter: from the catalog's record counts where it can be
      const before = proxy.bytes((p) => p.includes('/big/data/'));
      const tc = performance.now();
      const [n] = (await client.query('SELECT count(*) AS n FROM main.events')).rows;
      console.log(
        `${build}: count(*) of the whole table = ${n.n} in ${(performance.now() - tc).toFixed(0)} ms, ${mb(proxy.bytes((p) => p.includes('/big/data/')) - before)} MB fetched`,
      );
      const over = await client.query('SELECT sum(v) FROM main.events').then(
        () => 'answered',
        (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`,
      );
      const [c] = (
        await client.query(
          "SELECT bytes::bigint AS b, budget_bytes::bigint AS budget, peak_bytes::bigint AS peak, pinned_bytes::bigint AS pinned, evictions::int AS e FROM fdl.cache WHERE cache = 'files'",
        )
      ).rows;
      console.log(`${build}: sum(v) over the whole table (${mb(total)} MB) with a ${mb(budget)} MB budget: ${over}`);
      console.log(
        `${build}: cache: budget ${mb(Number(c.budget))} MB, on disk ${mb(Number(c.b))} MB, peak ${mb(Number(c.peak))} MB, pinned between statements ${mb(Number(c.pinned))} MB, evictions ${c.e}`,
      );
      await client.end();
    }
    raw.destroy();
    inproc.closeSync();
  } finally {
    for (const g of gateways) await g.stop();
    conn.closeSync();
    db.closeSync();
    await proxy.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
