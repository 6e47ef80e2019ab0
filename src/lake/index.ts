/** Native DuckLake 1.0 reader: frozen catalog → per-version database of views over read_parquet. */
export { openCatalog, SUPPORTED_VERSIONS } from './metadata.js';
export { attachCatalog, materializeTable, tableContext, type AttachOptions, type ReadBytes } from './attach.js';
export { PruneIndex, type Survivors } from './prune.js';
export { filesToProbe } from './probe.js';
export { tableSql, type TableSqlContext } from './tablesql.js';
export { notOneSelect } from './one-statement.js';
export { replaceCatalogPlaceholder } from './views.js';
export type { LakeCatalog, LakeColumn, LakeFile, LakeTable, LakeView, LakeMacro } from './model.js';
export {
  catalogRowCount,
  countedRows,
  countingStatement,
  countingTableSql,
  countOnlyTable,
  countedFiles,
} from './count-only.js';
