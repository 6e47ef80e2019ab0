/**
 * `fdl import` layouts that prune well: partitions (identity and time transforms) as DuckLake
 * metadata plus hive folders, sorted rows, files split at a target size. A generated source is
 * imported, served by the gateway (from disk and from s3rver behind a counting proxy) and compared
 * with the source read by plain DuckDB; the catalog is checked against the layout the extension
 * writes (test/fixtures/repos/partitioned).
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { importData } from '../src/host/import.js';
import { parseLayoutFlags, parsePartitionKey, parseSize } from '../src/host/layout.js';
import { initRepository } from '../src/host/repo.js';
import { startGateway, type RunningGateway } from './support/gateway.js';
import { startCountingProxy, type CountingProxy } from './support/counting-proxy.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';

const quiet = { progress: () => undefined };

async function duck<T = Record<string, unknown>>(sql: string, setup: string[] = []): Promise<T[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    await conn.run("SET TimeZone='UTC'");
    for (const s of setup) await conn.run(s);
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as T[];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** Data files under a folder, relative to it. */
function parquetFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.parquet')) out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

async function query(gw: RunningGateway, database: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/** The catalog file of the version a branch points at. */
async function catalogOf(root: string, branch = 'main'): Promise<string> {
  const id = JSON.parse(await readFile(join(root, 'refs.json'), 'utf8')).refs[`refs/heads/${branch}`] as string;
  return join(
    root,
    'versions',
    id,
    readdirSync(join(root, 'versions', id)).find((f) => f.endsWith('.duckdb'))!,
  );
}

describe('option parsing', () => {
  it('reads partition keys, sort columns and sizes; refuses what it cannot write', () => {
    assert.deepEqual(parsePartitionKey('year(ts)'), { column: 'ts', transform: 'year' });
    assert.deepEqual(parsePartitionKey('HOUR( "Event Time" )'), { column: 'Event Time', transform: 'hour' });
    assert.deepEqual(parsePartitionKey('category'), { column: 'category', transform: 'identity' });
    assert.throws(() => parsePartitionKey('bucket(4, id)'), /not a column, year\(c\)/);
    assert.deepEqual(parseLayoutFlags(['ev=year(ts),month(ts)'], ['lab.x=a,b']), {
      'main.ev': {
        partitionBy: [
          { column: 'ts', transform: 'year' },
          { column: 'ts', transform: 'month' },
        ],
      },
      'lab.x': { sortBy: ['a', 'b'] },
    });
    assert.throws(() => parseLayoutFlags(['ev='], []), /--partition-by wants SCHEMA.TABLE=ITEM/);
    assert.equal(parseSize('512MB'), 512 * 1024 * 1024);
    assert.equal(parseSize('1.5gb'), 1.5 * 1024 ** 3);
    assert.equal(parseSize('4096'), 4096);
    assert.throws(() => parseSize('12 parsecs'), /wants a size/);
    assert.throws(() => parseSize('10'), /at least 1kB/);
  });
});

describe('fdl import with --partition-by, --sort-by, --target-file-size', () => {
  let work: string;
  let root: string;
  let source: string;
  let april: string;
  let s3: S3Server;
  let proxy: CountingProxy;
  let gw: RunningGateway;
  // more rows per month than one row group (122,880 rows), so a small target size splits each month
  const ROWS = 960_000;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'fdl-import-layout-'));
    root = join(work, 'repo');
    source = join(work, 'events.parquet');
    april = join(work, 'april.csv');
    // Rows in shuffled order over Jan–Mar 2024; categories include NULL and a value that needs escaping in a path.
    await duck(`COPY (SELECT i AS id, TIMESTAMP '2024-01-01' + INTERVAL (i * 8) SECOND AS ts,
        CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN 'x/y' ELSE 'c' || (i % 5) END AS cat, CAST((i * 7 % 1000) / 10 AS DECIMAL(8,1)) AS v
      FROM range(${ROWS}) t(i) ORDER BY hash(i)) TO '${source}' (FORMAT parquet)`);
    await duck(
      `COPY (SELECT ${ROWS} + i AS id, TIMESTAMP '2024-04-01' + INTERVAL (i * 3600) SECOND AS ts, 'c2' AS cat, 1.5 AS v FROM range(100) t(i)) TO '${april}' (FORMAT csv, HEADER)`,
    );
    await initRepository(root, {});
    await importData(root, {
      ...quiet,
      tables: [
        { schema: 'main', table: 'ev', file: source },
        { schema: 'main', table: 'bycat', file: source },
        { schema: 'main', table: 'plain', file: source },
      ],
      layout: {
        'main.ev': {
          partitionBy: [
            { column: 'ts', transform: 'year' },
            { column: 'ts', transform: 'month' },
          ],
          sortBy: ['ts'],
        },
        'main.bycat': { partitionBy: [{ column: 'cat', transform: 'identity' }] },
        'main.plain': { sortBy: ['id'] },
      },
      targetFileSize: 64 * 1024,
      // a memory-bounded import of three tables: one spill folder for the whole import (DuckDB fixes it once used)
      memoryLimit: '96MB',
    });
    s3 = await startS3('lake');
    await s3.upload(root, 'imported/');
    proxy = await startCountingProxy(s3.endpoint);
    const env = {
      env: S3_ENV,
    };
    gw = await startGateway(
      [
        '--repo',
        `l=${root}`,
        '--repo',
        'r=s3://lake/imported/',
        ...s3Flags(proxy.url),
        '--cache-dir',
        join(work, 'cache'),
        // The tests move branches and read them at once: a branch trusted for 2 s would serve the old version.
        '--ref-ttl',
        '0',
      ],
      env,
    );
  });
  after(async () => {
    await gw?.stop();
    await proxy?.close();
    await s3?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('writes hive folders and partition metadata as the extension does, many files per partition', async () => {
    const files = parquetFiles(join(root, 'data', 'main', 'ev'));
    const months = new Map<string, number>();
    for (const f of files) {
      const m = /^year=2024\/month=(\d+)\/ducklake-[0-9a-f-]{36}\.parquet$/.exec(f);
      assert.ok(m, `unexpected path ${f}`);
      months.set(m[1]!, (months.get(m[1]!) ?? 0) + 1);
    }
    assert.deepEqual([...months.keys()].sort(), ['1', '2', '3']);
    for (const [m, n] of months) assert.ok(n >= 2, `month ${m} split at the target size: ${n} files`);
    const cat = await catalogOf(root);
    const att = [`ATTACH '${cat}' AS c (READ_ONLY)`];
    const spec = await duck(
      `SELECT i.partition_id, p.partition_key_index AS k, col.column_name AS col, p."transform" AS t
      FROM c.ducklake_partition_info i JOIN c.ducklake_partition_column p USING (partition_id) JOIN c.ducklake_table tb ON tb.table_id = i.table_id
      JOIN c.ducklake_column col ON col.table_id = p.table_id AND col.column_id = p.column_id WHERE tb.table_name = 'ev' AND i.end_snapshot IS NULL ORDER BY k`,
      att,
    );
    assert.deepEqual(
      spec.map((r) => [r.k, r.col, r.t]),
      [
        ['0', 'ts', 'year'],
        ['1', 'ts', 'month'],
      ],
    );
    // every file: partition id, one value per key equal to its folder, and statistics for every column
    const perFile = await duck(
      `SELECT d.path, d.partition_id, list(v.partition_value ORDER BY v.partition_key_index) AS vals,
        (SELECT count(*) FROM c.ducklake_file_column_stats s WHERE s.data_file_id = d.data_file_id AND s.min_value IS NOT NULL) AS stat_cols
      FROM c.ducklake_data_file d JOIN c.ducklake_table tb ON tb.table_id = d.table_id AND tb.table_name = 'ev'
      LEFT JOIN c.ducklake_file_partition_value v ON v.data_file_id = d.data_file_id GROUP BY ALL`,
      att,
    );
    assert.equal(perFile.length, files.length);
    for (const f of perFile) {
      assert.equal(f.partition_id, spec[0]!.partition_id);
      const m = /^year=(\d+)\/month=(\d+)\//.exec(String(f.path))!;
      assert.deepEqual(f.vals, [m[1], m[2]]);
      assert.equal(Number(f.stat_cols), 4, `${String(f.path)}: statistics for id, ts, cat, v`);
    }
    // identity keys: the value in the folder is escaped, NULL has DuckDB's default folder; catalog values are raw
    const bycat = parquetFiles(join(root, 'data', 'main', 'bycat')).map((f) => f.split('/')[0]);
    assert.deepEqual([...new Set(bycat)].sort(), [
      'cat=__HIVE_DEFAULT_PARTITION__',
      'cat=c2',
      'cat=c3',
      'cat=c4',
      'cat=x%2Fy',
    ]);
    const vals = await duck(
      `SELECT DISTINCT v.partition_value AS p FROM c.ducklake_file_partition_value v JOIN c.ducklake_table tb ON tb.table_id = v.table_id AND tb.table_name = 'bycat' ORDER BY p NULLS LAST`,
      att,
    );
    assert.deepEqual(
      vals.map((r) => r.p),
      ['c2', 'c3', 'c4', 'x/y', null],
    );
    // unpartitioned, sorted: several files whose id ranges do not overlap
    const ranges = await duck<{ lo: string; hi: string }>(
      `SELECT s.min_value AS lo, s.max_value AS hi FROM c.ducklake_file_column_stats s
      JOIN c.ducklake_data_file d USING (data_file_id) JOIN c.ducklake_table tb ON tb.table_id = d.table_id AND tb.table_name = 'plain'
      JOIN c.ducklake_column col ON col.table_id = d.table_id AND col.column_id = s.column_id AND col.column_name = 'id' ORDER BY s.min_value::BIGINT`,
      att,
    );
    assert.ok(ranges.length >= 3, `${ranges.length} files`);
    for (let i = 1; i < ranges.length; i++)
      assert.ok(Number(ranges[i]!.lo) > Number(ranges[i - 1]!.hi), 'sorted files hold disjoint id ranges');
    assert.ok(
      parquetFiles(join(root, 'data', 'main', 'plain')).every((f) => /^ducklake-[0-9a-f-]{36}\.parquet$/.test(f)),
    );
  });

  it('serves the same rows as the source, from disk and from S3', async () => {
    const expect =
      await duck(`SELECT count(*)::INT AS n, sum(id)::VARCHAR AS ids, sum(v)::VARCHAR AS vs, count(cat)::INT AS cats,
      min(ts)::VARCHAR AS lo, max(ts)::VARCHAR AS hi FROM read_parquet('${source}')`);
    const q = (t: string) =>
      `select count(*)::int as n, sum(id)::varchar as ids, sum(v)::varchar as vs, count(cat)::int as cats, min(ts)::varchar as lo, max(ts)::varchar as hi from main.${t}`;
    for (const t of ['ev', 'bycat', 'plain']) {
      const [local] = await query(gw, 'l@main', q(t));
      assert.deepEqual({ ...local }, { ...expect[0] }, `main.${t} from disk`);
    }
    // row by row, one table (every 13th row, to keep the wire short): every column equal
    const srcRows = await duck(
      `SELECT id::VARCHAR AS id, strftime(ts, '%Y-%m-%d %H:%M:%S') AS ts, cat, v::VARCHAR AS v FROM read_parquet('${source}') WHERE id % 13 = 0 ORDER BY id`,
    );
    const got = await query(
      gw,
      'l@main',
      `select id::text as id, ts::text as ts, cat, v::text as v from main.ev where id % 13 = 0 order by id`,
    );
    assert.equal(got.length, Math.ceil(ROWS / 13));
    assert.deepEqual(
      got.map((r) => ({ ...r })),
      srcRows,
    );
    const [remote] = await query(gw, 'r@main', q('bycat'));
    assert.deepEqual({ ...remote }, { ...expect[0] }, 'main.bycat from S3');
  });

  it("a selective query on the remote copy fetches only the matching partition's files", async () => {
    const isData = (p: string) => p.includes('/imported/data/');
    await query(gw, 'r@main', 'select 1'); // open the version: catalog and records are not data
    proxy.reset();
    const sql =
      "select count(*)::int as n, sum(v)::varchar as s from main.ev where ts >= '2024-02-01' and ts < '2024-03-01'";
    const [remote] = await query(gw, 'r@main', sql);
    const [src] = await duck(
      `SELECT count(*)::INT AS n, sum(v)::VARCHAR AS s FROM read_parquet('${source}') WHERE ts >= '2024-02-01' AND ts < '2024-03-01'`,
    );
    assert.deepEqual({ ...remote }, { ...src });
    const fetched = [...proxy.bytesByPath].filter(([p, b]) => isData(p) && b > 0);
    assert.ok(fetched.length > 0);
    for (const [p] of fetched) assert.match(p, /\/main\/ev\/year=2024\/month=2\//, `only February's files: ${p}`);
    const febDir = join(root, 'data', 'main', 'ev', 'year=2024', 'month=2');
    const feb = readdirSync(febDir).reduce((n, f) => n + statSync(join(febDir, f)).size, 0);
    const bytes = proxy.bytes(isData);
    console.log(
      `# fetched ${bytes} data bytes in ${fetched.length} files; February holds ${feb} bytes in ${readdirSync(febDir).length} files`,
    );
    assert.ok(bytes <= 1.5 * feb, `fetched ${bytes} bytes, the partition holds ${feb}`);
    // identity partition: one category's folder only
    proxy.reset();
    const [c3] = await query(gw, 'r@main', "select count(*)::int as n from main.bycat where cat = 'c3'");
    assert.equal(c3!.n, ROWS / 5);
    for (const [p, b] of proxy.bytesByPath) if (isData(p) && b > 0) assert.match(p, /\/main\/bycat\/cat=c3\//);
  });

  it("an append without --partition-by keeps the table's partitioning; a key that cannot apply changes nothing", async () => {
    const before = await readFile(join(root, 'refs.json'), 'utf8');
    await assert.rejects(
      importData(root, {
        ...quiet,
        tables: [{ schema: 'main', table: 'ev', file: april }],
        layout: { 'main.ev': { partitionBy: [{ column: 'cat', transform: 'month' }] } },
      }),
      /month\(cat\) does not fit a varchar column/,
    );
    await assert.rejects(
      importData(root, {
        ...quiet,
        tables: [{ schema: 'main', table: 'ev', file: april }],
        layout: { 'main.ev': { sortBy: ['nope'] } },
      }),
      /--sort-by: no column "nope"/,
    );
    assert.equal(await readFile(join(root, 'refs.json'), 'utf8'), before);
    const oldSpec = await duck(`SELECT partition_id FROM c.ducklake_partition_info WHERE end_snapshot IS NULL`, [
      `ATTACH '${await catalogOf(root)}' AS c (READ_ONLY)`,
    ]);
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 'ev', file: april }] });
    assert.ok(parquetFiles(join(root, 'data', 'main', 'ev')).some((f) => f.startsWith('year=2024/month=4/')));
    const att = [`ATTACH '${await catalogOf(root)}' AS c (READ_ONLY)`];
    const spec = await duck(`SELECT partition_id FROM c.ducklake_partition_info WHERE end_snapshot IS NULL`, att);
    assert.deepEqual(spec, oldSpec, 'same partition spec');
    const [aprilFiles] = await duck(
      `SELECT count(*)::INT AS n, count(*) FILTER (WHERE partition_id IS NULL)::INT AS unpartitioned FROM c.ducklake_data_file WHERE path LIKE 'year=2024/month=4/%'`,
      att,
    );
    assert.ok(Number(aprilFiles!.n) >= 1 && Number(aprilFiles!.unpartitioned) === 0);
    const [n] = await query(gw, 'l@main', "select count(*)::int as n from main.ev where ts >= '2024-04-01'");
    assert.equal(n!.n, 100);
  });

  it('day(c) and hour(c) keys, and changing the spec, end the old spec and start a new one', async () => {
    await importData(root, {
      ...quiet,
      mode: 'replace',
      tables: [{ schema: 'main', table: 'ev', file: april }],
      layout: {
        'main.ev': {
          partitionBy: [
            { column: 'ts', transform: 'day' },
            { column: 'ts', transform: 'hour' },
          ],
        },
      },
    });
    const att = [`ATTACH '${await catalogOf(root)}' AS c (READ_ONLY)`];
    const infos = await duck(
      `SELECT partition_id, i.end_snapshot IS NULL AS live FROM c.ducklake_partition_info i JOIN c.ducklake_table t USING (table_id) WHERE t.table_name = 'ev' AND t.end_snapshot IS NULL ORDER BY partition_id`,
      att,
    );
    assert.deepEqual(
      infos.map((r) => r.live),
      [false, true],
    );
    const live = await duck(
      `SELECT d.path FROM c.ducklake_data_file d JOIN c.ducklake_table t USING (table_id) WHERE t.table_name = 'ev' AND d.end_snapshot IS NULL ORDER BY path`,
      att,
    );
    assert.equal(live.length, 100, 'one file per (day, hour)');
    assert.ok(
      live.every((r) => /^day=\d+\/hour=\d+\/ducklake-/.test(String(r.path))),
      String(live[0]?.path),
    );
    const [n] = await query(
      gw,
      'l@main',
      "select count(*)::int as n, min(id)::int as lo from main.ev where ts >= '2024-04-02 03:00' and ts < '2024-04-02 04:00'",
    );
    assert.deepEqual({ ...n }, { n: 1, lo: ROWS + 27 });
  });
});
