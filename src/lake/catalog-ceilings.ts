/**
 * How much of a catalog the gateway reads into memory and builds from. Opening a version reads its
 * visible objects, files and statistics into JavaScript and creates a view per table and per catalog
 * view: the time and memory grow with the rows, and whoever writes the store writes the rows. Measured
 * (2 cores, load ~5): 1,000,000 data-file rows took 30 s and 2.2 GB RSS to read, and the serving
 * process's data limit is memoryLimit + 2 GiB; 5,000 trivial views took 8.5 s to judge and create. So
 * each kind of row is counted first, in one DuckDB query over the READ_ONLY catalog (a scan within
 * DuckDB's memory_limit), and a catalog over any ceiling is refused before anything is read.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { num, qi, rows, visibleAt } from './sql.js';

/** The most rows of each kind one version's catalog may hold at its snapshot. */
export const CATALOG_CEILINGS = {
  /** tables and views and macro bodies: each one is created in DuckDB, one call each */
  objects: 10_000,
  /** column history rows of the visible tables */
  columns: 200_000,
  /** visible data files (with their delete files) */
  files: 100_000,
  /** per-file column statistics and partition values of the visible files */
  statistics: 1_000_000,
} as const;

type Kind = keyof typeof CATALOG_CEILINGS;

/** Refuses (54000) a catalog at snapshot `s` of `metaAlias` with more rows of a kind than its ceiling. */
export async function checkCatalogCeilings(conn: DuckDBConnection, metaAlias: string, s: number): Promise<void> {
  const m = qi(metaAlias);
  const files = `(SELECT data_file_id FROM ${m}.ducklake_data_file WHERE ${visibleAt(s)})`;
  const [counts] = await rows(
    conn,
    `SELECT
       (SELECT count(*) FROM ${m}.ducklake_table WHERE ${visibleAt(s)})
         + (SELECT count(*) FROM ${m}.ducklake_view WHERE ${visibleAt(s)})
         + (SELECT count(*) FROM ${m}.ducklake_macro_impl) AS objects,
       (SELECT count(*) FROM ${m}.ducklake_column
         WHERE table_id IN (SELECT table_id FROM ${m}.ducklake_table WHERE ${visibleAt(s)})) AS columns,
       (SELECT count(*) FROM ${files}) AS files,
       (SELECT count(*) FROM ${m}.ducklake_file_column_stats WHERE data_file_id IN ${files})
         + (SELECT count(*) FROM ${m}.ducklake_file_partition_value WHERE data_file_id IN ${files}) AS statistics`,
  );
  for (const kind of Object.keys(CATALOG_CEILINGS) as Kind[]) {
    const held = num(counts?.[kind]);
    if (held > CATALOG_CEILINGS[kind])
      throw new SqlError(
        SQLSTATE.programLimitExceeded,
        `the version's catalog holds ${held} ${kind} rows, more than the gateway reads (${CATALOG_CEILINGS[kind]})`,
        undefined,
        'A version this large is refused before it is read; publish it with fewer files (compact small files) or objects.',
      );
  }
}
