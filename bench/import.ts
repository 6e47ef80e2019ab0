/**
 * Import throughput: `fdl import` of a generated 10,000,000-row CSV against plain DuckDB
 * `COPY (FROM read_csv(…)) TO 'x.parquet'` of the same file in the same run. Reports rows/s and
 * the ratio (target ≥ 0.8×). A third column imports the same CSV partitioned by month(ts), sorted by
 * ts, in 64 MB files (the layout that prunes well), against plain DuckDB's partitioned COPY.
 * Usage: node dist/bench/import.js [ROWS]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';

const rows = Number(process.argv[2] ?? 10_000_000);
const dir = await mkdtemp(path.join(tmpdir(), 'fdl-bench-import-'));
try {
  const csv = path.join(dir, 'big.csv');
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  let t = Date.now();
  await conn.run(`COPY (SELECT i AS id, 'cat' || (i % 100) AS category, (i % 100000) / 100.0 AS amount,
      TIMESTAMP '2024-01-01' + INTERVAL (i % 31536000) SECOND AS ts, CASE WHEN i % 7 = 0 THEN NULL ELSE 'note ' || (i % 997) END AS note
    FROM range(${rows}) r(i)) TO '${csv}' (HEADER)`);
  const size = (await stat(csv)).size;
  process.stdout.write(
    `generated ${rows.toLocaleString('en')} rows, ${(size / 1e6).toFixed(0)} MB CSV in ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
  );

  const runs: { plain: number; fdl: number; plainPart: number; fdlPart: number }[] = [];
  for (let k = 0; k < 2; k++) {
    t = Date.now();
    await conn.run(
      `COPY (SELECT * FROM read_csv('${csv}')) TO '${path.join(dir, `plain${k}.parquet`)}' (FORMAT parquet)`,
    );
    const plain = (Date.now() - t) / 1000;
    const repo = path.join(dir, `repo${k}`);
    await initRepository(repo);
    t = Date.now();
    await importData(repo, { tables: [{ schema: 'main', table: 'big', file: csv }], progress: () => undefined });
    const fdl = (Date.now() - t) / 1000;
    t = Date.now();
    await conn.run(
      `COPY (SELECT *, month(ts) AS m FROM read_csv('${csv}')) TO '${path.join(dir, `plainpart${k}`)}' (FORMAT parquet, PARTITION_BY (m))`,
    );
    const plainPart = (Date.now() - t) / 1000;
    t = Date.now();
    await importData(repo, {
      tables: [{ schema: 'main', table: 'parted', file: csv }],
      progress: () => undefined,
      targetFileSize: 64 * 1024 * 1024,
      layout: { 'main.parted': { partitionBy: [{ column: 'ts', transform: 'month' }], sortBy: ['ts'] } },
    });
    const fdlPart = (Date.now() - t) / 1000;
    runs.push({ plain, fdl, plainPart, fdlPart });
    process.stdout.write(
      `run ${k + 1}: plain COPY ${plain.toFixed(2)} s (${Math.round(rows / plain).toLocaleString('en')} rows/s), fdl import ${fdl.toFixed(2)} s (${Math.round(rows / fdl).toLocaleString('en')} rows/s), ratio ${(plain / fdl).toFixed(2)}x; ` +
        `partitioned: plain COPY PARTITION_BY ${plainPart.toFixed(2)} s, fdl import --partition-by month(ts) --sort-by ts ${fdlPart.toFixed(2)} s, ratio ${(plainPart / fdlPart).toFixed(2)}x\n`,
    );
  }
  const best = (f: (r: (typeof runs)[number]) => number) => Math.min(...runs.map(f));
  process.stdout.write(
    `best: plain ${Math.round(rows / best((r) => r.plain)).toLocaleString('en')} rows/s, fdl import ${Math.round(rows / best((r) => r.fdl)).toLocaleString('en')} rows/s, ratio ${(best((r) => r.plain) / best((r) => r.fdl)).toFixed(2)}x (target >= 0.8x)\n`,
  );
  conn.closeSync();
  inst.closeSync();
} finally {
  await rm(dir, { recursive: true, force: true });
}
