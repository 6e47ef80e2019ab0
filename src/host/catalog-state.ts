/**
 * What the next snapshot of a DuckLake 1.0 catalog builds on, read from its metadata tables at the
 * latest snapshot: the live schemas, tables with their column trees and partition specs, and the
 * next ids the snapshot hands out.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColDef } from './coltypes.js';
import type { PartitionField } from './catalog-plan.js';
import { rows, type Row } from '../lake/sql.js';

const n = (v: unknown) => Number(v);

export interface TableState {
  id: number;
  schemaId: number;
  path: string;
  columns: ColDef[];
  maxColumnId: number;
  nextRowId: number;
  /** The live partition spec, if any. */
  partition: { id: number; fields: PartitionField[] } | null;
}

export interface CatalogState {
  snapshot: number;
  schemaVersion: number;
  nextCatalogId: number;
  nextFileId: number;
  schemas: Map<string, { id: number; path: string }>;
  tables: Map<string, TableState>;
}

/** `m`: the attached catalog's quoted name. */
export async function readCatalogState(conn: DuckDBConnection, m: string): Promise<CatalogState> {
  const [ver] = await rows(conn, `SELECT value FROM ${m}.ducklake_metadata WHERE key = 'version' AND scope IS NULL`);
  if (ver?.value !== '1.0') throw new Error(`catalog format ${String(ver?.value)} is not DuckLake 1.0`);
  const [snap] = await rows(conn, `SELECT * FROM ${m}.ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`);
  const S = n(snap!.snapshot_id);
  const live = (a = '') => `${a}begin_snapshot <= ${S} AND (${a}end_snapshot IS NULL OR ${a}end_snapshot > ${S})`;
  const schemas = new Map<string, { id: number; path: string }>();
  for (const r of await rows(conn, `SELECT schema_id, schema_name, path FROM ${m}.ducklake_schema WHERE ${live()}`)) {
    schemas.set(String(r.schema_name), { id: n(r.schema_id), path: String(r.path ?? '') });
  }
  const tables = new Map<string, TableState>();
  const trs = await rows(
    conn,
    `SELECT t.table_id, t.schema_id, s.schema_name, t.table_name, s.path AS spath, t.path AS tpath,
      (SELECT max(column_id) FROM ${m}.ducklake_column c WHERE c.table_id = t.table_id) AS max_col,
      (SELECT next_row_id FROM ${m}.ducklake_table_stats ts WHERE ts.table_id = t.table_id) AS next_row
    FROM ${m}.ducklake_table t JOIN ${m}.ducklake_schema s ON s.schema_id = t.schema_id AND ${live('s.')} WHERE ${live('t.')}`,
  );
  const cols = await rows(
    conn,
    `SELECT table_id, column_id, column_name, column_type, parent_column FROM ${m}.ducklake_column WHERE ${live()} ORDER BY column_order, column_id`,
  );
  const parts = await rows(
    conn,
    `SELECT i.table_id, i.partition_id, c.column_id, c."transform" FROM ${m}.ducklake_partition_info i
    JOIN ${m}.ducklake_partition_column c ON c.partition_id = i.partition_id AND c.table_id = i.table_id WHERE ${live('i.')} ORDER BY c.partition_key_index`,
  );
  for (const t of trs) {
    const id = n(t.table_id);
    const mine = cols.filter((c) => n(c.table_id) === id);
    const tree = (parent: number | null): ColDef[] =>
      mine
        .filter((c) => (c.parent_column === null ? null : n(c.parent_column)) === parent)
        .map((c) => ({
          name: String(c.column_name),
          type: String(c.column_type).toLowerCase(),
          id: n(c.column_id),
          children: tree(n(c.column_id)),
        }));
    tables.set(`${String(t.schema_name)}.${String(t.table_name)}`, {
      id,
      schemaId: n(t.schema_id),
      path: String(t.spath ?? '') + String(t.tpath ?? ''),
      columns: tree(null),
      maxColumnId: t.max_col === null ? 0 : n(t.max_col),
      nextRowId: t.next_row === null ? 0 : n(t.next_row),
      partition: partitionOf(parts.filter((p) => n(p.table_id) === id)),
    });
  }
  return {
    snapshot: S,
    schemaVersion: n(snap!.schema_version),
    nextCatalogId: n(snap!.next_catalog_id),
    nextFileId: n(snap!.next_file_id),
    schemas,
    tables,
  };
}

function partitionOf(rs: Row[]): { id: number; fields: PartitionField[] } | null {
  if (rs.length === 0) return null;
  return {
    id: n(rs[0]!.partition_id),
    fields: rs.map((r) => ({ columnId: n(r.column_id), transform: String(r.transform) })),
  };
}
