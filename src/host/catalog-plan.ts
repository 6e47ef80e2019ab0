/** What the next snapshot of a catalog is built from: the tables planned, their new data files, row deletes. */
import type { ColDef } from './coltypes.js';

/** One data file written for a table, with the statistics COPY … RETURN_STATS reported. */
export interface WrittenFile {
  /** Relative to the table's folder: ducklake-<uuid>.parquet. */
  name: string;
  records: number;
  size: number;
  footer: number;
  /** RETURN_STATS column_statistics: key ("a", "s"."x") → stat name → value. */
  stats: Map<string, Map<string, string>>;
  /** Transformed partition key values of the whole file, in key order (NULL for a NULL key). */
  partitionValues?: (string | null)[];
}

/** One key of a table's partition spec: the column (by id) and its transform. */
export interface PartitionField {
  columnId: number;
  transform: string;
}

export interface TablePlan {
  schema: string;
  table: string;
  mode: 'append' | 'replace';
  /** Column tree with ids: the ids become the Parquet field ids. */
  columns: ColDef[];
  /** Data-dir-relative folder of the table's files: <schema path><table path>. */
  dir: string;
  tableId: number;
  isNew: boolean;
  schemaIsNew: boolean;
  /** The columns change (new table, or replace with another shape). */
  newColumns: boolean;
  files: WrittenFile[];
  /** Partition spec the new files are written with (null: unpartitioned). */
  partition: { id: number; fields: PartitionField[]; isNew: boolean } | null;
}

/** Row deletes of one table in the next snapshot (fdl delete, fdl update). */
export interface TableDeletes {
  tableId: number;
  /** New Parquet delete files, named relative to the table folder. */
  files: NewDeleteFile[];
  /** Data files none of whose rows is left: they end, with their delete file. */
  ended: number[];
  /** Inlined rows that end: inlined data table name → row ids. */
  inlined: Map<string, number[]>;
}

export interface NewDeleteFile {
  dataFileId: number;
  name: string;
  count: number;
  size: number;
  footer: number;
  /**
   * The delete file this one replaces (its positions are in this one too, each with the snapshot
   * that deleted it): as the extension does, the old row goes and this one is a partial delete file
   * whose begin_snapshot is the old one's and partial_max the new snapshot.
   */
  replaces: { id: number; begin: number } | null;
}
