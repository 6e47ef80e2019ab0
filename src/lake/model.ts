/** What openCatalog learns from a catalog at its newest snapshot. */
import type { ColNode } from './types.js';

export interface LakeColumn {
  name: string;
  /** DuckDB type as DESCRIBE prints it. */
  type: string;
  comment: string | null;
}

export interface LakeFile {
  /** Relative to <root>/<data_dir>; already validated (relative, no '..', no scheme, no glob). */
  path: string;
  size: number;
  kind: 'data' | 'delete';
}

/** Reader internals of one data file (needed to build the table's SQL). */
export interface DataFile {
  id: number;
  path: string;
  rowIdStart: number | null;
  beginSnapshot: number;
  partialMax: number | null;
  mappingId: number | null;
  /** base64 AES key (encrypted lakes). */
  key: string | null;
  delete: DeleteFile | null;
  /** Inlined file deletions visible at the snapshot (ducklake_inlined_delete_<table>): row positions. */
  inlinedDeletes: number[];
  /** Bytes of the data file (and rows, before deletes) as the catalog records them. */
  size: number;
  recordCount: number | null;
  /** Per-column statistics (ducklake_file_column_stats) by column id: for pruning only. */
  stats: Map<number, ColumnStats>;
  /** Partition key values of the file (ducklake_file_partition_value): for pruning only. */
  partitions: PartitionValue[];
}

export interface ColumnStats {
  min: string | null;
  max: string | null;
  nullCount: number | null;
  valueCount: number | null;
  containsNan: boolean | null;
}

export interface PartitionValue {
  columnId: number;
  /** identity, year, month, day, hour, bucket(N) … */
  transform: string;
  value: string | null;
}

export interface DeleteFile {
  path: string;
  format: 'parquet' | 'puffin';
  key: string | null;
  /** Set on partial delete files: they carry a per-position snapshot column. */
  partialMax: number | null;
}

/** One `ducklake_inlined_data_<table>_<version>` table and the columns it was created with. */
export interface InlinedTable {
  name: string;
  columns: ColNode[];
}

/** `ducklake_name_mapping` entries of one mapping (files registered with ducklake_add_data_files). */
export interface NameMapEntry {
  ordinal: number;
  parent: number | null;
  sourceName: string;
  targetFieldId: number;
  isPartition: boolean;
}

export interface LakeTable {
  schema: string;
  name: string;
  comment: string | null;
  columns: LakeColumn[];
  files: LakeFile[];
  /** Internals for tableSql; not part of the stable surface. */
  tableId: number;
  tree: ColNode[];
  /** True when nested children were renamed/dropped/re-added: files must be probed by field id. */
  nestedEvolved: boolean;
  dataFiles: DataFile[];
  inlined: InlinedTable[];
  /** Column ids whose type never changed: their file statistics compare with today's values. */
  stableTypes: Set<number>;
}

export interface LakeView {
  schema: string;
  name: string;
  sql: string;
  /** Column aliases (already unquoted), empty when none. */
  aliases: string[];
  comment: string | null;
}

export interface LakeMacro {
  schema: string;
  name: string;
  /** CREATE MACRO body after the name: `(x) AS (x * 2)` or `(n) AS TABLE SELECT …`, overloads joined. */
  definition: string;
  /** Each overload's body as a query: a table macro's, or `SELECT <expression>` (judged before it is created). */
  bodies: string[];
}

export interface LakeCatalog {
  metaAlias: string;
  formatVersion: string;
  snapshotId: number;
  encrypted: boolean;
  schemas: { name: string; comment: string | null }[];
  tables: LakeTable[];
  views: LakeView[];
  macros: LakeMacro[];
  /** Name maps by mapping_id. */
  nameMaps: Map<number, NameMapEntry[]>;
}
