/**
 * Hive partition values for files registered with ducklake_add_data_files (`is_partition`): the
 * value lives only in the path. Rules follow DuckDB's HivePartitioning (first `key=value/` wins,
 * URL-decoded; NULL / __HIVE_DEFAULT_PARTITION__ are NULL; '' is NULL except for VARCHAR).
 */
import { lit } from './sql.js';

export function hivePartitions(path: string): Map<string, string> {
  const out = new Map<string, string>();
  const dirs = path.split('/').slice(0, -1);
  for (const seg of dirs) {
    const eq = seg.indexOf('=');
    if (eq <= 0) continue;
    const key = seg.slice(0, eq);
    if (out.has(key)) continue;
    let value = seg.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw text: DuckDB leaves malformed escapes alone
    }
    out.set(key, value);
  }
  return out;
}

/** SQL for a partition value typed as `type` (a DuckDB type). */
export function partitionValueSql(value: string | undefined, type: string): string {
  if (value === undefined || value.toUpperCase() === 'NULL' || value === '__HIVE_DEFAULT_PARTITION__') {
    return `CAST(NULL AS ${type})`;
  }
  if (value === '' && type !== 'VARCHAR') return `CAST(NULL AS ${type})`;
  return `CAST(${lit(value)} AS ${type})`;
}
