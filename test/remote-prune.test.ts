/**
 * Remote repositories fetch only the files a statement can need, within the disk budget. The
 * partitioned fixture (month-partitioned events, delete files) is served from s3rver through a
 * counting proxy — the witness of bytes fetched — and the same repository is served from disk.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { startCountingProxy, type CountingProxy } from './support/counting-proxy.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';

const REPO = join(FIXTURES, 'repos', 'partitioned');
const MAIN = '01a23632-d371-7000-b861-bec2f5a90460';
const V1 = '01a23632-d23d-7000-8a9a-046efb3710b0';
const RANGE = "ts >= '2025-03-01' AND ts < '2025-04-01'";

/** Bytes of the data files (and their delete files) whose catalog statistics overlap RANGE, read straight from the catalog. */
async function overlappingBytes(
  version = MAIN,
  lo = '2025-03-01',
  hi = '2025-04-01',
): Promise<{ bytes: number; files: number; all: number }> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const vdir = join(REPO, 'versions', version);
    const catalog = (await readdir(vdir)).find((f) => f.endsWith('.duckdb') || f.endsWith('.ducklake'))!;
    await c.run(`ATTACH '${join(vdir, catalog)}' AS m (READ_ONLY)`);
    const S = `(SELECT max(snapshot_id) FROM m.ducklake_snapshot)`;
    const vis = (a: string) =>
      `${S} >= ${a}.begin_snapshot AND (${a}.end_snapshot IS NULL OR ${S} < ${a}.end_snapshot)`;
    const r = (
      await c.runAndReadAll(`
      WITH f AS (
        SELECT d.data_file_id, d.file_size_bytes + coalesce((SELECT sum(x.file_size_bytes) FROM m.ducklake_delete_file x WHERE x.data_file_id = d.data_file_id AND ${vis('x')}), 0) AS bytes,
               (SELECT s.min_value::TIMESTAMP < TIMESTAMP '${hi}' AND s.max_value::TIMESTAMP >= TIMESTAMP '${lo}'
                FROM m.ducklake_file_column_stats s JOIN m.ducklake_column col ON col.column_id = s.column_id AND col.table_id = s.table_id
                WHERE s.data_file_id = d.data_file_id AND col.column_name = 'ts' AND col.end_snapshot IS NULL) AS hit
        FROM m.ducklake_data_file d JOIN m.ducklake_table t ON t.table_id = d.table_id AND t.table_name = 'ev' AND ${vis('t')}
        WHERE ${vis('d')})
      SELECT sum(bytes) FILTER (WHERE hit IS NOT false)::BIGINT AS b, count(*) FILTER (WHERE hit IS NOT false)::INT AS n, count(*)::INT AS a FROM f`)
    ).getRowObjectsJson()[0]!;
    return { bytes: Number(r.b), files: Number(r.n), all: Number(r.a) };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Paths (under the table's data dir) of the current version's data files that have no delete file. */
async function filesWithoutDeletes(): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const vdir = join(REPO, 'versions', MAIN);
    const catalog = (await readdir(vdir)).find((f) => f.endsWith('.duckdb') || f.endsWith('.ducklake'))!;
    await c.run(`ATTACH '${join(vdir, catalog)}' AS m (READ_ONLY)`);
    const r = await c.runAndReadAll(`SELECT d.path FROM m.ducklake_data_file d WHERE d.end_snapshot IS NULL
      AND NOT EXISTS (SELECT 1 FROM m.ducklake_delete_file x WHERE x.data_file_id = d.data_file_id AND x.end_snapshot IS NULL)`);
    return r.getRowObjectsJson().map((x) => String(x.path));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** The version's catalog file: it lives in the same file cache, under the same budget. */
async function catalogBytes(): Promise<number> {
  const vdir = join(REPO, 'versions', MAIN);
  let n = 0;
  for (const f of await readdir(vdir))
    if (f.endsWith('.duckdb') || f.endsWith('.ducklake')) n += (await stat(join(vdir, f))).size;
  return n;
}

async function query(
  gw: RunningGateway,
  database: string,
  sql: string,
  values?: unknown[],
): Promise<{ rows: Record<string, unknown>[]; notices: string[] }> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
  const notices: string[] = [];
  c.on('notice', (n) => notices.push(n.message ?? ''));
  await c.connect();
  try {
    return { rows: (await c.query(sql, values)).rows as Record<string, unknown>[], notices };
  } finally {
    await c.end();
  }
}

async function cacheRow(
  gw: RunningGateway,
): Promise<{ bytes: number; budget: number; pinned: number; peak: number; evictions: number }> {
  const [r] = (
    await query(
      gw,
      'r@main',
      "select bytes::bigint as b, budget_bytes::bigint as budget, pinned_bytes::bigint as p, peak_bytes::bigint as peak, evictions::int as e from fdl.cache where cache = 'files'",
    )
  ).rows;
  return {
    bytes: Number(r!.b),
    budget: Number(r!.budget),
    pinned: Number(r!.p),
    peak: Number(r!.peak),
    evictions: Number(r!.e),
  };
}

/** First days of the months written one file per month (from the local copy); earlier rows share three larger files. */
async function months(gw: RunningGateway): Promise<string[]> {
  return (
    await query(
      gw,
      'l@main',
      "select distinct date_trunc('month', ts)::date::varchar as m from main.ev where ts >= '2024-12-01' order by 1",
    )
  ).rows.map((r) => String(r.m));
}

const monthSql = (m: string) =>
  `select count(*)::int as n, sum(amount)::varchar as s from main.ev where ts >= DATE '${m}' and ts < DATE '${m}' + INTERVAL 1 MONTH`;

/** Bytes of the files under `dir` (the file cache keeps one folder per store). */
async function dirBytes(dir: string): Promise<number> {
  let n = 0;
  for (const f of await readdir(dir, { recursive: true }).catch(() => [] as string[])) {
    const st = await stat(join(dir, f));
    if (st.isFile()) n += st.size;
  }
  return n;
}

describe('remote pruning and the disk budget (s3rver behind a counting proxy)', () => {
  let s3: S3Server;
  let proxy: CountingProxy;
  let gw: RunningGateway;
  let small: RunningGateway;
  let work: string;
  let budget: number;
  let fresh: RunningGateway;
  let slowProxy: CountingProxy;
  let slow: RunningGateway;

  before(async () => {
    s3 = await startS3('lake');
    await s3.upload(REPO, 'partitioned/');
    proxy = await startCountingProxy(s3.endpoint);
    work = await mkdtemp(join(tmpdir(), 'fdl-remote-prune-'));
    const s3args = s3Flags(proxy.url);
    const env = {
      env: S3_ENV,
    };
    // a budget that holds the open version's catalog and a month or two of files, but not the table
    budget = (await catalogBytes()) + 3000;
    // a distant store: every request waits, one download at a time
    slowProxy = await startCountingProxy(s3.endpoint, { latencyMs: 150 });
    // four gateways that share nothing but the store: started side by side (each one started is
    // stopped by after(), also when another failed to start)
    const started = await Promise.allSettled([
      startGateway(
        ['--repo', 'r=s3://lake/partitioned/', '--repo', `l=${REPO}`, ...s3args, '--cache-dir', join(work, 'big')],
        env,
      ),
      startGateway(
        [
          '--repo',
          'r=s3://lake/partitioned/',
          ...s3args,
          '--cache-dir',
          join(work, 'small'),
          '--cache-max-bytes',
          String(budget),
        ],
        env,
      ),
      startGateway(['--repo', 'r=s3://lake/partitioned/', ...s3args, '--cache-dir', join(work, 'fresh')], env),
      startGateway(
        [
          '--repo',
          'r=s3://lake/partitioned/',
          ...s3Flags(slowProxy.url),
          '--cache-dir',
          join(work, 'slow'),
          '--download-concurrency',
          '1',
        ],
        env,
      ),
    ]);
    [gw, small, fresh, slow] = started.map((r) => (r.status === 'fulfilled' ? r.value : undefined!));
    for (const r of started) if (r.status === 'rejected') throw r.reason;
  });
  after(async () => {
    await gw?.stop();
    await small?.stop();
    await fresh?.stop();
    await slow?.stop();
    await slowProxy?.close();
    await proxy?.close();
    await s3?.close();
  });

  it('a selective query fetches only the files whose statistics overlap its filter, and answers like the full table', async () => {
    const need = await overlappingBytes();
    assert.ok(need.files < need.all / 2, `fixture must have files outside the range (${need.files} of ${need.all})`);
    // open the version first: catalog and version records are not data
    await query(gw, 'r@main', 'select 1');
    proxy.reset();
    const sql = `select count(*)::int as n, sum(amount)::varchar as s, min(id) as lo from main.ev where ${RANGE}`;
    const remote = await query(gw, 'r@main', sql);
    const data = proxy.bytes((p) => p.includes('/partitioned/data/'));
    assert.ok(data > 0, 'the data the query needs was fetched');
    console.log(
      `# fetched ${data} data bytes; files overlapping the filter: ${need.files} of ${need.all}, ${need.bytes} bytes`,
    );
    assert.ok(data <= 1.5 * need.bytes, `fetched ${data} bytes, files overlapping the filter hold ${need.bytes}`);
    const local = await query(gw, 'l@main', sql);
    assert.deepEqual(remote.rows, local.rows);
    // the full table afterwards: more files fetched, same answer as from disk
    const all = 'select count(*)::int as n, sum(amount)::varchar as s, count(distinct category)::int as c from main.ev';
    assert.deepEqual((await query(gw, 'r@main', all)).rows, (await query(gw, 'l@main', all)).rows);
    assert.ok(proxy.bytes((p) => p.includes('/partitioned/data/')) > data);
    // and the selective query again: no data file fetched again (refs are re-read, data is cached)
    const isData = (p: string) => p.includes('/partitioned/data/');
    const before = proxy.bytes(isData);
    assert.deepEqual((await query(gw, 'r@main', sql)).rows, local.rows);
    assert.equal(proxy.bytes(isData), before);
  });

  it('a query whose files do not fit the budget fails with 53100 naming budget and need; the gateway keeps serving', async () => {
    const fits = `select count(*)::int as n from main.ev where ${RANGE}`;
    const ok = await query(small, 'r@main', fits);
    assert.ok(Number(ok.rows[0]!.n) > 0);
    await assert.rejects(
      query(small, 'r@main', 'select count(*) from main.ev'),
      (e: { code?: string; message?: string }) =>
        e.code === '53100' &&
        new RegExp(`--cache-max-bytes ${budget}`).test(e.message ?? '') &&
        /needs \d+ bytes/.test(e.message ?? ''),
    );
    // still serving, same answer as before
    assert.deepEqual((await query(small, 'r@main', fits)).rows, ok.rows);
    const [files] = (
      await query(
        small,
        'r@main',
        "select bytes::bigint as b, budget_bytes::bigint as budget, pinned_bytes::bigint as p, peak_bytes::bigint as peak, evictions::int as e from fdl.cache where cache = 'files'",
      )
    ).rows;
    assert.equal(Number(files!.budget), budget);
    assert.ok(
      Number(files!.b) <= budget && Number(files!.peak) <= budget && Number(files!.p) > 0,
      JSON.stringify(files),
    );
    assert.ok((await dirBytes(join(work, 'small', 'files'))) <= budget);
  });
  it('files are pinned per statement: between statements the budget evicts, so every month in turn fits and answers like the disk', async () => {
    const all = await months(gw);
    assert.ok(all.length >= 3, `fixture spans ${all.length} months`);
    const start = await cacheRow(small);
    for (const m of all) {
      assert.deepEqual(
        (await query(small, 'r@main', monthSql(m))).rows,
        (await query(gw, 'l@main', monthSql(m))).rows,
        m,
      );
      // only the open version's catalog stays pinned once the statement is done
      assert.equal((await cacheRow(small)).pinned, await catalogBytes(), `pinned after ${m}`);
    }
    const end = await cacheRow(small);
    assert.ok(
      end.evictions > start.evictions,
      `files of earlier months were evicted (${start.evictions} → ${end.evictions})`,
    );
    assert.ok(end.peak <= budget && end.bytes <= budget, JSON.stringify(end));
    assert.ok((await dirBytes(join(work, 'small', 'files'))) <= budget);
  });

  it('a prepared statement keeps its files while other statements evict around it', async () => {
    const all = await months(gw);
    const c = new pg.Client({ host: small.host, port: small.port, user: 'x', database: 'r@main' });
    await c.connect();
    try {
      const named = {
        name: 'march',
        text: `select count(*)::int as n, sum(amount)::varchar as s from main.ev where ${RANGE}`,
      };
      const first = (await c.query(named)).rows;
      const before = (await cacheRow(small)).evictions;
      // (texts of their own: the earlier test's are answered from the result cache without fetching anything)
      for (const m of all) await query(small, 'r@main', `${monthSql(m)} -- around a prepared statement`);
      assert.ok((await cacheRow(small)).evictions > before, 'other months evicted files meanwhile');
      assert.deepEqual((await c.query(named)).rows, first);
      assert.deepEqual(first, (await query(gw, 'l@main', named.text)).rows);
    } finally {
      await c.end();
    }
  });

  it('count(*) with no filter is answered from the catalog record counts: files without deletes are not fetched', async () => {
    const clean = await filesWithoutDeletes();
    assert.ok(clean.length > 0);
    await query(fresh, 'r@main', 'select 1');
    proxy.reset();
    const sql = 'select count(*)::int as n, count(*) as m from main.ev';
    const remote = await query(fresh, 'r@main', sql);
    assert.deepEqual(remote.rows, (await query(gw, 'l@main', sql)).rows);
    const fetched = [...proxy.bytesByPath.keys()].filter((p) => p.includes('/partitioned/data/'));
    assert.deepEqual(
      fetched.filter((p) => clean.some((c) => p.endsWith(c))),
      [],
      'no file without deletes was fetched',
    );
    assert.ok(fetched.length > 0, 'files with deletes are read to count what they still hold');
    // the same table read for its values afterwards: every file, same answer as from disk
    const sum = 'select count(*)::int as n, sum(amount)::varchar as s from main.ev';
    assert.deepEqual((await query(fresh, 'r@main', sum)).rows, (await query(gw, 'l@main', sum)).rows);
    assert.deepEqual((await query(fresh, 'r@main', sql)).rows, remote.rows);
  });

  it('a parameterised statement fetches only the files its bound values reach (pruned after Bind), and answers like the disk', async () => {
    const sql =
      'select count(*)::int as n, sum(amount)::varchar as s, min(id) as lo from main.ev where ts >= $1 and ts < $2';
    const values = ['2025-03-01', '2025-04-01'];
    const need = await overlappingBytes();
    // (the slow gateway: no statement has fetched anything there yet)
    await query(slow, 'r@main', 'select 1');
    slowProxy.reset();
    const remote = await query(slow, 'r@main', sql, values);
    const data = slowProxy.bytes((p) => p.includes('/partitioned/data/'));
    assert.ok(
      data > 0 && data <= 1.5 * need.bytes,
      `fetched ${data} bytes, files overlapping the bound range hold ${need.bytes}`,
    );
    assert.deepEqual(remote.rows, (await query(gw, 'l@main', sql, values)).rows);
    // within the small budget (all files would not fit): each month in turn through one statement
    const c = new pg.Client({ host: small.host, port: small.port, user: 'x', database: 'r@main' });
    await c.connect();
    try {
      for (const m of await months(gw)) {
        const next = new Date(`${m}T00:00:00Z`);
        next.setUTCMonth(next.getUTCMonth() + 1);
        const v = [m, next.toISOString().slice(0, 10)];
        const got = (await c.query({ name: 'by_month', text: sql, values: v })).rows;
        assert.deepEqual(got, (await query(gw, 'l@main', sql, v)).rows, m);
      }
    } finally {
      await c.end();
    }
  });

  it('a cross-version statement fetches, for each version, only the files its filters reach there', async () => {
    // a month both versions hold rows of (v1 predates the monthly files)
    const range = "ts >= '2024-03-01' AND ts < '2024-04-01'";
    const sql = `select (select count(*) from main.ev where ${range})::int as now, (select count(*) from "r@v1".main.ev where ${range})::int as then`;
    const local = sql.replace('"r@v1"', '"l@v1"');
    const [now, then] = [
      await overlappingBytes(MAIN, '2024-03-01', '2024-04-01'),
      await overlappingBytes(V1, '2024-03-01', '2024-04-01'),
    ];
    assert.ok(now.files < now.all, 'the filter leaves files of the current version out');
    const need = now.bytes + then.bytes;
    await query(fresh, 'r@main', 'select 1 from "r@v1".main.ev limit 0');
    proxy.reset();
    const remote = await query(fresh, 'r@v2', sql);
    const data = proxy.bytes((p) => p.includes('/partitioned/data/'));
    assert.ok(data <= 1.5 * need, `fetched ${data} bytes, files overlapping the filter in both versions hold ${need}`);
    assert.deepEqual(remote.rows, (await query(gw, 'l@v2', local)).rows);
    assert.ok(Number(remote.rows[0]!.then) > 0, JSON.stringify(remote.rows));
  });
  it('a fetch that takes longer than 2 s reports its progress (files, MB, rate) as a NOTICE; a quick one stays silent', async () => {
    const sql = 'select count(*)::int as n, sum(amount)::varchar as s from main.ev';
    await query(slow, 'r@main', 'select 1'); // opening the version is not a data fetch
    const started = Date.now();
    const cold = await query(slow, 'r@main', sql);
    const ms = Date.now() - started;
    assert.ok(ms > 2000, `the fetch took ${ms} ms: too quick to test the notice`);
    const progress = cold.notices.filter((n) => n.startsWith('fetching data files'));
    assert.ok(progress.length >= 1 && progress.length <= Math.ceil(ms / 2000), JSON.stringify(cold.notices));
    for (const n of progress)
      assert.match(n, /^fetching data files: \d+ of \d+ files, \d+\.\d of \d+\.\d MB, \d+\.\d MB\/s$/);
    const [files, total] = /(\d+) of (\d+) files/.exec(progress[0]!)!.slice(1).map(Number);
    assert.ok(files! < total! && total! > 1, progress[0]);
    assert.deepEqual(cold.rows, (await query(gw, 'l@main', sql)).rows);
    // cached now: answered at once, no notice
    const warm = await query(slow, 'r@main', sql);
    assert.deepEqual(warm.rows, cold.rows);
    assert.deepEqual(
      warm.notices.filter((n) => n.startsWith('fetching')),
      [],
    );
  });
});
