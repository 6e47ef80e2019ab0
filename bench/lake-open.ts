/**
 * Open+attach time of the native DuckLake reader: every fixture version, then synthetic catalogs
 * with many data files (a fixture catalog copied to a temp dir, rows added with plain DuckDB).
 * Target: < 50 ms per 1,000 data files. Run: npx tsc -p . && node dist/bench/lake-open.js
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { allVersions } from '../test/support/lake-fixtures.js';

async function timeOpen(catalogFile: string, locate: (rel: string) => string): Promise<{ ms: number; files: number }> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const t0 = performance.now();
    const catalog = await openCatalog(conn, catalogFile, 'meta');
    await attachCatalog(conn, catalog, 'lake', locate);
    const ms = performance.now() - t0;
    return { ms, files: catalog.tables.reduce((n, t) => n + t.dataFiles.length, 0) };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Copy a catalog and register `extra` more data files (all pointing at an existing file). */
async function synthetic(source: string, dir: string, extra: number, withDeletes: boolean): Promise<string> {
  const file = path.join(dir, `synthetic-${extra}-${withDeletes}.duckdb`);
  copyFileSync(source, file);
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await conn.run(`ATTACH '${file}' AS c`);
  await conn.run(`
    INSERT INTO c.ducklake_data_file
    SELECT d.* REPLACE (data_file_id + 1000000 + i AS data_file_id)
    FROM c.ducklake_data_file d, range(${extra}) t(i)
    WHERE d.data_file_id = (SELECT min(data_file_id) FROM c.ducklake_data_file WHERE end_snapshot IS NULL)`);
  if (withDeletes) {
    // every new file gets the (visible) delete file of an existing data file
    await conn.run(`
      INSERT INTO c.ducklake_delete_file
      SELECT x.* REPLACE (x.delete_file_id + 1000000 + i AS delete_file_id, x.data_file_id + 1000000 + i AS data_file_id)
      FROM (SELECT * FROM c.ducklake_delete_file WHERE end_snapshot IS NULL LIMIT 1) x, range(${extra}) t(i)`);
  }
  await conn.run('DETACH c');
  conn.closeSync();
  instance.closeSync();
  return file;
}

async function main(): Promise<void> {
  console.log('fixture versions (open + attach, fresh DuckDB instance each):');
  const versions = allVersions();
  let total = 0;
  for (const v of versions) {
    const { ms, files } = await timeOpen(v.catalogFile, (rel) => path.join(v.root, v.dataDir, rel));
    total += ms;
    console.log(
      `  ${v.repo.padEnd(18)} ${v.id}  ${files.toString().padStart(4)} files  ${ms.toFixed(1).padStart(7)} ms`,
    );
  }
  console.log(`  mean ${(total / versions.length).toFixed(1)} ms per version`);

  const big = versions.filter((v) => v.repo === 'big').at(-1)!;
  const dir = mkdtempSync(path.join(tmpdir(), 'lake-bench-'));
  try {
    console.log('synthetic catalogs (copy of big, extra data files):');
    for (const withDeletes of [false, true]) {
      for (const extra of [1000, 5000, 10000]) {
        const file = await synthetic(big.catalogFile, dir, extra, withDeletes);
        const locate = (rel: string) => path.join(big.root, big.dataDir, rel);
        await timeOpen(file, locate); // warm-up
        const runs = [];
        for (let i = 0; i < 3; i++) runs.push(await timeOpen(file, locate));
        const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
        console.log(
          `  ${best.files.toString().padStart(6)} files${withDeletes ? ' + delete files' : '                '}  ` +
            `${best.ms.toFixed(1).padStart(7)} ms  ${((best.ms / best.files) * 1000).toFixed(1).padStart(6)} ms per 1,000 files`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
