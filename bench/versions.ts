/**
 * Versions from a remote store (issue 5), through the real gateway against s3rver:
 *  - cold open: a fresh gateway (empty cache) — connect to `lake@v1` + first query on one table
 *    (resolve + download + verify + attach + query), next to the raw transfer time of the same
 *    version's objects with a plain S3 client;
 *  - warm switch between two cached versions on one session (`SET fdl.ref` + a query), minus the
 *    same session's plain query round trip;
 *  - bytes downloaded (the gateway's --cache-dir) by a query that touches one table of ten.
 *
 *   npx tsc -p . && node dist/bench/versions.js [--rows 300000] [--switches 200] [--json FILE]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { CLI, startGateway, type RunningGateway } from '../test/support/gateway.js';
import { startS3, S3_CREDENTIALS } from '../test/support/s3-server.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROWS = opt('rows', 300_000);
const SWITCHES = opt('switches', 200);
const TABLES = 10;
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const log = (s: string) => process.stdout.write(s + '\n');

function fdl(...a: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...a], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fdl ${a.join(' ')}: ${r.stderr}`);
}
function du(dir: string, skip = 'duckdb-tmp'): { bytes: number; files: number } {
  let bytes = 0,
    files = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === skip) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        bytes += statSync(p).size;
        files++;
      }
    }
  };
  try {
    walk(dir);
  } catch {
    /* absent */
  }
  return { bytes, files };
}
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;

const dir = mkdtempSync(join(tmpdir(), 'fdl-bench-versions-'));
const s3 = await startS3('lake');
const gws: RunningGateway[] = [];
const result: Record<string, unknown> = { rows: ROWS, tables: TABLES, date: new Date().toISOString() };
try {
  // A repository of ten tables; v1, then v2 replacing t0 (other tables share their files).
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const repo = join(dir, 'repo');
  fdl('init', repo);
  const tables: string[] = [];
  for (let k = 0; k < TABLES; k++) {
    const f = join(dir, `t${k}.parquet`);
    await conn.run(
      `COPY (SELECT i::BIGINT AS id, i * ${k + 1.5} AS x, md5(i::VARCHAR) AS s FROM range(${ROWS}) r(i)) TO '${f}' (FORMAT parquet)`,
    );
    tables.push('--table', `main.t${k}=${f}`);
  }
  fdl('import', repo, ...tables, '--message', 'v1');
  fdl('tag', repo, 'v1');
  const f2 = join(dir, 't0b.parquet');
  await conn.run(
    `COPY (SELECT i::BIGINT AS id, -i * 1.0 AS x, md5(i::VARCHAR) AS s FROM range(${ROWS}) r(i)) TO '${f2}' (FORMAT parquet)`,
  );
  fdl('import', repo, '--table', `main.t0=${f2}`, '--mode', 'replace', '--message', 'v2');
  fdl('tag', repo, 'v2');
  conn.closeSync();
  inst.closeSync();
  const objects = await s3.upload(repo, 'repo/');
  const repoData = du(join(repo, 'data'));
  const oneTable = du(join(repo, 'data', 'main', 't1'));
  log(
    `repository: ${TABLES} tables × ${ROWS} rows, ${objects} objects, data ${mb(repoData.bytes)} in ${repoData.files} files; one table ${mb(oneTable.bytes)}`,
  );

  // Raw transfer of everything a version needs (all objects under repo/: an upper bound for v1).
  const t0 = performance.now();
  let rawBytes = 0;
  const list = await s3.client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: 'repo/' }));
  for (const o of list.Contents ?? []) {
    const r = await s3.client.send(new GetObjectCommand({ Bucket: 'lake', Key: o.Key! }));
    rawBytes += (await r.Body!.transformToByteArray()).length;
  }
  const rawMs = performance.now() - t0;
  log(`raw S3 transfer of the whole repository (${mb(rawBytes)}, sequential GETs): ${rawMs.toFixed(0)} ms`);

  const env = {
    AWS_ENDPOINT_URL: s3.endpoint,
    FDL_S3_FORCE_PATH_STYLE: '1',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
  };
  const start = async () => {
    const cacheDir = join(dir, `cache${gws.length}`);
    const g = await startGateway(['--repo', 'lake=s3://lake/repo/', '--cache-dir', cacheDir, '--log-level', 'warn'], {
      env,
    });
    gws.push(g);
    return { g, cacheDir };
  };
  const client = (g: RunningGateway, database: string) =>
    new pg.Client({ host: g.host, port: g.port, user: 'bench', database });

  // --- cold open (fresh gateway and cache each time), query touching one table
  const cold: { ms: number; bytes: number; files: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const { g, cacheDir } = await start();
    const t = performance.now();
    const c = client(g, 'lake@v1');
    await c.connect();
    await c.query('select count(*) from main.t1');
    const ms = performance.now() - t;
    await c.end();
    cold.push({ ms, ...du(cacheDir) });
    await g.stop();
  }
  const coldMs = Math.min(...cold.map((x) => x.ms));
  log(
    `cold open lake@v1 + first query on main.t1 (fresh gateway, empty cache; best of 3): ${coldMs.toFixed(0)} ms; ` +
      `downloaded ${mb(cold[0]!.bytes)} in ${cold[0]!.files} files (one table is ${mb(oneTable.bytes)}, all data ${mb(repoData.bytes)})`,
  );
  result.cold = {
    bestMs: coldMs,
    runs: cold,
    rawTransferMs: rawMs,
    rawBytes,
    oneTableBytes: oneTable.bytes,
    repoDataBytes: repoData.bytes,
  };

  // --- warm switch
  const { g, cacheDir } = await start();
  const c = client(g, 'lake@v1');
  await c.connect();
  await c.query("set fdl.ref = 'tags/v2'");
  await c.query('select count(*) from main.t0');
  await c.query("set fdl.ref = 'tags/v1'");
  await c.query('select count(*) from main.t0');
  const v1 = (await c.query('show fdl.version')).rows[0];
  const base: number[] = [];
  for (let i = 0; i < SWITCHES; i++) {
    const t = performance.now();
    await c.query('select 1');
    base.push(performance.now() - t);
  }
  const sw: number[] = [];
  let flip = false;
  for (let i = 0; i < SWITCHES; i++) {
    flip = !flip;
    const t = performance.now();
    await c.query(`set fdl.ref = 'tags/${flip ? 'v2' : 'v1'}'`);
    await c.query('select 1');
    sw.push(performance.now() - t);
  }
  await c.query("set fdl.ref = 'tags/v2'");
  const v = (await c.query('show fdl.version')).rows[0];
  if (JSON.stringify(v) === JSON.stringify(v1)) throw new Error('SET fdl.ref did not move the session to v2');
  await c.end();
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const switchMs = med(sw) - med(base);
  log(
    `warm switch v1 ↔ v2 (SET fdl.ref + select 1, median of ${SWITCHES}, minus select 1 alone ${med(base).toFixed(3)} ms): ${switchMs.toFixed(3)} ms (target < 5 ms); ` +
      `versions ${JSON.stringify(v1)} → ${JSON.stringify(v)}`,
  );
  result.warmSwitch = {
    medianMs: switchMs,
    medianWithQueryMs: med(sw),
    baselineMs: med(base),
    cacheAfter: du(cacheDir),
  };
  await g.stop();
} finally {
  for (const g of gws) await g.stop();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
