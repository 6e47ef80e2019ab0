/**
 * Scan speed of the native reader at scale: a generated lake of FILES files × ROWS rows (default
 * 200 × 50,000 = 10M rows), with no deletes and with delete files on 2 files, queried through the
 * reader's table view and through in-process DuckDB read_parquet over the same files with the same
 * deletes applied. One DuckDB instance, same threads, best of 5 rounds, ratios side by side.
 * Two in-process baselines for the deletes: "ideal" knows which rows are deleted (a modulo filter on
 * file_row_number, no delete file read: no real reader can do that), "reading delete files" applies
 * the same positional delete files the view reads, as any in-process reader of such a lake must.
 * Data under /tmp. Run: npx tsc -p . && node dist/bench/lake-scan.js [files] [rowsPerFile]
 * With FDL_BENCH_BASELINE=<another build's dist/src/lake/index.js>, that build's views are measured
 * too (rows marked "baseline build"), against the same read_parquet, in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  attachCatalog,
  countedFiles,
  countedRows,
  countingStatement,
  countingTableSql,
  openCatalog,
  tableContext,
  type LakeCatalog,
} from '../src/lake/index.js';
import { makeSyntheticLake } from '../test/support/synthetic-lake.js';

const FILES = Number(process.argv[2] ?? 200);
const ROWS = Number(process.argv[3] ?? 50_000);
const ROUNDS = 5;

const QUERIES: [string, string][] = [
  ['count(*)', 'SELECT count(*) FROM T'],
  ['sum/avg', 'SELECT sum(id), round(avg(v), 4), max(ts) FROM T'],
  ['group by k', 'SELECT k, count(*), round(sum(v), 2) FROM T GROUP BY k'],
  ['group by day', "SELECT date_trunc('day', ts) AS d, round(avg(v), 4) FROM T GROUP BY d"],
  ['one day', "SELECT count(*), round(sum(v), 2) FROM T WHERE ts >= '2024-01-05' AND ts < '2024-01-06'"],
];

/**
 * Best of ROUNDS for each side, the two sides alternating so machine noise hits both alike. CPU
 * time (this process: DuckDB's worker threads included) is reported too: on a shared machine it
 * moves far less with the load than the wall clock.
 */
async function bestOf(conn: DuckDBConnection, sqls: string[]): Promise<{ ms: number; cpu: number; result: string }[]> {
  const out = sqls.map(() => ({ ms: Infinity, cpu: Infinity, result: '' }));
  for (let i = 0; i < ROUNDS; i++) {
    for (const [k, sql] of sqls.entries()) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await conn.runAndReadAll(sql);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      out[k]!.ms = Math.min(out[k]!.ms, ms);
      out[k]!.cpu = Math.min(out[k]!.cpu, (c.user + c.system) / 1000);
      out[k]!.result = JSON.stringify(
        r
          .getRowsJson()
          .map((row) => row.map(String))
          .sort(),
      );
    }
  }
  return out;
}

/** What the gateway runs for `SELECT count(*) FROM db.main.events` (versions/attach.ts localCounting). */
async function countingSql(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  db: string,
  locate: (rel: string) => string,
): Promise<string> {
  const sql = await countingStatement(
    conn,
    `SELECT count(*) FROM ${db}.main.events`,
    catalog,
    ['main'],
    db,
    async (t) => {
      const counted = countedFiles(t, catalog.snapshotId);
      const read = new Set(t.dataFiles.filter((f) => !counted.includes(f)).map((f) => f.id));
      const ctx = await tableContext(conn, catalog, [t], locate, read);
      return countingTableSql(t, ctx, read, countedRows(counted, catalog.snapshotId));
    },
  );
  if (!sql) throw new Error('not a counting statement');
  return sql;
}

const list = (files: string[]) => `[${files.map((f) => `'${f}'`).join(', ')}]`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fdl-bench-lake-scan-'));
  // as the gateway's engine (sql/engine.ts): Parquet footers stay cached between queries, both sides alike
  const instance = await DuckDBInstance.create(':memory:', { enable_object_cache: 'true' });
  const conn = await instance.connect();
  try {
    const t0 = performance.now();
    const lake = await makeSyntheticLake(conn, dir, {
      files: FILES,
      rowsPerFile: ROWS,
      deleteFiles: 2,
      deleteEvery: 10,
    });
    console.log(
      `generated ${FILES} files × ${ROWS} rows (${((FILES * ROWS) / 1e6).toFixed(1)}M rows) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const catalog = await openCatalog(conn, lake.catalogFile, 'meta');
    const locate = (rel: string) => path.join(lake.dataDir, rel);
    await attachCatalog(conn, catalog, 'with_deletes', locate);
    // the same lake as if it had no delete files
    const plain = {
      ...catalog,
      tables: catalog.tables.map((t) => ({ ...t, dataFiles: t.dataFiles.map((f) => ({ ...f, delete: null })) })),
    };
    await attachCatalog(conn, plain, 'no_deletes', locate);
    // another build's reader (FDL_BENCH_BASELINE=<its dist/src/lake/index.js>) over the same lake, for before/after in one run
    const before = process.env.FDL_BENCH_BASELINE
      ? ((await import(path.resolve(process.env.FDL_BENCH_BASELINE))) as { attachCatalog: typeof attachCatalog })
      : null;
    if (before) {
      await before.attachCatalog(conn, catalog, 'with_deletes_before', locate);
      await before.attachCatalog(conn, plain, 'no_deletes_before', locate);
    }
    await conn.run("SET TimeZone = 'UTC'");
    const deleted = lake.dataFiles.slice(0, lake.deletedFiles);
    const clean = lake.dataFiles.slice(lake.deletedFiles);
    const baseline = {
      no_deletes: `read_parquet(${list(lake.dataFiles)})`,
      with_deletes:
        `(SELECT * FROM read_parquet(${list(clean)}) UNION ALL ` +
        `SELECT id, ts, v, k FROM read_parquet(${list(deleted)}, file_row_number := true) WHERE file_row_number % ${lake.deleteEvery} <> 0)`,
    };
    const withDeleteFiles =
      `(SELECT * FROM read_parquet(${list(clean)}) UNION ALL ` +
      `SELECT r.id, r.ts, r.v, r.k FROM read_parquet(${list(deleted)}, file_row_number := true, filename := true) r ` +
      `ANTI JOIN read_parquet(${list(lake.deletePaths)}) d ON d.file_path = r.filename AND d.pos = r.file_row_number)`;
    console.log(
      '| case | query | reader view ms | read_parquet ms (ideal deletes) | ratio | view CPU ms | read_parquet CPU ms | CPU ratio | read_parquet reading delete files ms | ratio |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    const catalogs = { no_deletes: plain, with_deletes: catalog };
    for (const db of ['no_deletes', 'with_deletes'] as const) {
      const cases: [string, string, string][] = QUERIES.flatMap(([label, sql]): [string, string, string][] => [
        ...(before
          ? [
              [
                `${label} (baseline build)`,
                sql.replace('FROM T', `FROM ${db}_before.main.events`),
                sql.replace('FROM T', `FROM ${baseline[db]} x`),
              ] as [string, string, string],
            ]
          : []),
        [label, sql.replace('FROM T', `FROM ${db}.main.events`), sql.replace('FROM T', `FROM ${baseline[db]} x`)],
      ]);
      // the gateway answers a bare count from the catalog's record counts where they are exact
      cases.splice(before ? 2 : 1, 0, [
        'count(*), as served',
        await countingSql(conn, catalogs[db], db, locate),
        `SELECT count(*) FROM ${baseline[db]} x`,
      ]);
      for (const [label, view, base] of cases) {
        const real = db === 'with_deletes' ? [base.replace(baseline[db], withDeleteFiles)] : [];
        const [a, b, c] = (await bestOf(conn, [view, base, ...real])) as { ms: number; cpu: number; result: string }[];
        for (const other of [b!, ...(c ? [c] : [])]) {
          if (a!.result !== other.result)
            throw new Error(
              `${db} ${label}: results differ\n${a!.result.slice(0, 300)}\n${other.result.slice(0, 300)}`,
            );
        }
        const realCells = c ? `${c.ms.toFixed(1)} | ${(a!.ms / c.ms).toFixed(2)}×` : '— | —';
        console.log(
          `| ${db.replace('_', ' ')} | ${label} | ${a!.ms.toFixed(1)} | ${b!.ms.toFixed(1)} | ${(a!.ms / b!.ms).toFixed(2)}× | ${a!.cpu.toFixed(1)} | ${b!.cpu.toFixed(1)} | ${(a!.cpu / b!.cpu).toFixed(2)}× | ${realCells} |`,
        );
      }
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
