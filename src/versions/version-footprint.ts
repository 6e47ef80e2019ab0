/**
 * What an attached version holds in memory while it sits idle, estimated from its catalog: the rows read
 * into JavaScript (tables, columns, data files with their statistics and partition values, views, macros)
 * and what DuckDB keeps per object of its views database (a parsed view per table and per catalog view).
 * The attached catalog's own blocks are DuckDB's buffer pool, within memory_limit, and are not counted.
 *
 * An idle version is kept attached for the next session that asks for it (cache/attached-versions.ts);
 * a store writer decides how large its catalog is (within lake/catalog-ceilings.ts), so idle versions are
 * bounded by these bytes as well as by their number. Measured (2 cores, `openCatalog` of grown copies of the
 * views fixture's catalog in a fresh process, RSS after a collection, estimate beside): 99,001 data files
 * +170–180 MiB (168 MiB), the same with 297,003 column statistics +293–309 MiB (350 MiB), 9,909 views +20 MiB
 * (24 MiB), the fixture itself +9 MiB (4 MiB: DuckDB's first ATTACH).
 */
import type { LakeCatalog } from '../lake/index.js';

/** A version with nearly nothing in it: its two attached databases, views database and connections. */
const VERSION_BASE = 4 * 1024 * 1024;
/** Per data file: its JavaScript records (LakeFile and DataFile), strings counted apart. */
const PER_FILE = 1536;
/** Per column statistic or partition value of a file, its min/max texts included (not walked: ~1 s per million on the event loop). */
const PER_STATISTIC = 640;
/** Per table, view or macro: its record, its DuckDB view or macro, its catalog-emulation rows. */
const PER_OBJECT = 2048;
/** Per column of a table (its record and the view's column). */
const PER_COLUMN = 256;
/** A JavaScript string's characters are counted twice (UTF-16 at worst) and held in DuckDB once more. */
const PER_CHARACTER = 3;

/**
 * Bytes an attached version of `catalog` is estimated to hold while idle. `nativeBytes`: its views database's
 * size when some tables are native DuckDB tables (versions/native-tables.ts) — their blocks, which DuckDB's
 * buffer pool may keep once read.
 */
export function idleVersionBytes(catalog: LakeCatalog, nativeBytes = 0): number {
  let bytes = VERSION_BASE + nativeBytes;
  for (const t of catalog.tables) {
    bytes += PER_OBJECT + t.columns.length * PER_COLUMN + (t.schema.length + t.name.length) * PER_CHARACTER;
    for (const f of t.dataFiles) {
      bytes += PER_FILE + (f.path.length + (f.delete?.path.length ?? 0)) * PER_CHARACTER;
      bytes += (f.stats.size + f.partitions.length) * PER_STATISTIC + f.inlinedDeletes.length * 8;
    }
  }
  for (const v of catalog.views) bytes += PER_OBJECT + (v.sql.length + v.name.length) * PER_CHARACTER;
  for (const m of catalog.macros) bytes += PER_OBJECT + m.definition.length * 2 * PER_CHARACTER;
  return bytes;
}
