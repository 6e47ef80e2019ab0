/**
 * A generated DuckLake 1.0 lake of any size, written with plain DuckDB: one table
 * `main.events(id BIGINT, ts TIMESTAMP, v DOUBLE, k VARCHAR)` of `files` Parquet files (field ids,
 * one day of `ts` per file, so statistics are tight), per-file column statistics as the extension
 * records them, and positional delete files on the first `deleteFiles` files.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { initCatalog } from '../../src/host/catalog-writer.js';

export interface SyntheticLake {
  catalogFile: string;
  /** Root the catalog's relative paths start from (`<dir>/data/`). */
  dataDir: string;
  /** Absolute paths of the data files. */
  dataFiles: string[];
  /** Per data file: deleted positions' filter for in-process comparisons (`pos % every = 0`), or null. */
  deleteEvery: number | null;
  deletedFiles: number;
  /** The positional delete files (file_path, pos) of the first `deletedFiles` data files. */
  deletePaths: string[];
}

export interface SyntheticOptions {
  files: number;
  rowsPerFile: number;
  /** Files (the first ones) that get a delete file removing every `deleteEvery`-th row. */
  deleteFiles?: number;
  deleteEvery?: number;
  /** Adds column `p VARCHAR` of this many pseudo-random hex characters per row (bulk, poorly compressible). */
  pad?: number;
}

const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

export async function makeSyntheticLake(
  conn: DuckDBConnection,
  dir: string,
  o: SyntheticOptions,
): Promise<SyntheticLake> {
  const dataDir = path.join(dir, 'data');
  const tableDir = path.join(dataDir, 'main', 'events');
  mkdirSync(tableDir, { recursive: true });
  const catalogFile = path.join(dir, 'ducklake.duckdb');
  await conn.run(`ATTACH ${q(catalogFile)} AS syn`);
  try {
    await initCatalog(conn, 'syn', dataDir + '/');
    await conn.run(`INSERT INTO syn.ducklake_snapshot VALUES (1, now(), 1, 6, ${o.files * 2})`);
    await conn.run(`INSERT INTO syn.ducklake_table VALUES (1, uuid(), 1, NULL, 0, 'events', 'events/', true)`);
    await conn.run(`INSERT INTO syn.ducklake_column VALUES
      (1, 1, NULL, 1, 1, 'id', 'int64', NULL, 'NULL', true, NULL, 'literal', 'duckdb'),
      (2, 1, NULL, 1, 2, 'ts', 'timestamp', NULL, 'NULL', true, NULL, 'literal', 'duckdb'),
      (3, 1, NULL, 1, 3, 'v', 'float64', NULL, 'NULL', true, NULL, 'literal', 'duckdb'),
      (4, 1, NULL, 1, 4, 'k', 'varchar', NULL, 'NULL', true, NULL, 'literal', 'duckdb')`);
    if (o.pad)
      await conn.run(
        `INSERT INTO syn.ducklake_column VALUES (5, 1, NULL, 1, 5, 'p', 'varchar', NULL, 'NULL', true, NULL, 'literal', 'duckdb')`,
      );
    // up to 128 hex characters from four digests of the row key: bulk that does not compress away
    const padCol = (i: number) =>
      o.pad
        ? `, left(md5(r::VARCHAR || '/${i}') || md5(r::VARCHAR || 'a${i}') || md5(r::VARCHAR || 'b${i}') || md5(r::VARCHAR || 'c${i}'), ${Math.min(128, o.pad)}) AS p`
        : '';
    const fieldIds = o.pad ? '{id: 1, ts: 2, v: 3, k: 4, p: 5}' : '{id: 1, ts: 2, v: 3, k: 4}';
    await conn.run(`INSERT INTO syn.ducklake_schema_versions VALUES (1, 1, 1)`);
    const R = o.rowsPerFile;
    const every = o.deleteEvery ?? 10;
    const dataFiles: string[] = [];
    const deletePaths: string[] = [];
    for (let i = 0; i < o.files; i++) {
      const name = `ducklake-synthetic-${String(i).padStart(6, '0')}.parquet`;
      const file = path.join(tableDir, name);
      dataFiles.push(file);
      const rows = `SELECT ${i}::BIGINT * ${R} + r AS id,
          TIMESTAMP '2024-01-01' + INTERVAL (${i}) DAY + to_seconds((r * 86399 // ${Math.max(1, R - 1)})::BIGINT) AS ts,
          ((r * 7919 + ${i} * 104729) % 100000) / 100.0 AS v,
          'k' || ((r + ${i}) % 50)::VARCHAR AS k${padCol(i)}
        FROM range(${R}) t(r)`;
      await conn.run(`COPY (${rows}) TO ${q(file)} (FORMAT parquet, FIELD_IDS ${fieldIds}, ROW_GROUP_SIZE 122880)`);
      const size = statSync(file).size;
      await conn.run(
        `INSERT INTO syn.ducklake_data_file VALUES (${i + 1}, 1, 1, NULL, NULL, ${q(name)}, true, 'parquet', ${R}, ${size}, NULL, ${i * R}, NULL, NULL, NULL, NULL)`,
      );
      await conn.run(`INSERT INTO syn.ducklake_file_column_stats
        SELECT ${i + 1}, 1, c, NULL, ${R}, 0, mn, mx, CASE WHEN c = 3 THEN false END, NULL FROM (
          SELECT unnest([1, 2, 3, 4]) AS c,
                 unnest([min(id)::VARCHAR, min(ts)::VARCHAR, min(v)::VARCHAR, min(k)]) AS mn,
                 unnest([max(id)::VARCHAR, max(ts)::VARCHAR, max(v)::VARCHAR, max(k)]) AS mx
          FROM read_parquet(${q(file)}))`);
      if (i < (o.deleteFiles ?? 0)) {
        const del = path.join(tableDir, `ducklake-synthetic-${String(i).padStart(6, '0')}-delete.parquet`);
        await conn.run(
          `COPY (SELECT ${q(file)} AS file_path, r AS pos FROM range(0, ${R}, ${every}) t(r)) TO ${q(del)} (FORMAT parquet)`,
        );
        deletePaths.push(del);
        await conn.run(
          `INSERT INTO syn.ducklake_delete_file VALUES (${i + 1}, 1, 1, NULL, ${i + 1}, ${q(path.basename(del))}, true, 'parquet', ${Math.ceil(R / every)}, ${statSync(del).size}, NULL, NULL, NULL)`,
        );
      }
    }
    await conn.run(`INSERT INTO syn.ducklake_table_stats VALUES (1, ${o.files * R}, ${o.files * R}, NULL)`);
    return {
      catalogFile,
      dataDir,
      dataFiles,
      deleteEvery: o.deleteFiles ? every : null,
      deletedFiles: o.deleteFiles ?? 0,
      deletePaths,
    };
  } finally {
    await conn.run('DETACH syn');
  }
}
