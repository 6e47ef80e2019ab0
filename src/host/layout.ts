/**
 * File layout options of `fdl import`: partition keys, sort columns, target file size. Pure parsing
 * and naming; the import applies them with DuckDB's partitioned, size-bounded COPY.
 */

/** DuckLake partition transforms the importer writes (ducklake_partition_column.transform). */
export type Transform = 'identity' | 'year' | 'month' | 'day' | 'hour';

export interface PartitionKey {
  column: string;
  transform: Transform;
}

/** What one table's files look like. */
export interface TableLayout {
  partitionBy?: PartitionKey[];
  sortBy?: string[];
}

/** Default --target-file-size: the DuckLake extension's own default. */
export const DEFAULT_TARGET_FILE_SIZE = 512 * 1024 * 1024;

/** `S.T=A,B` (schema defaults to main) → table name and the comma-separated items. */
export function parseTableList(flag: string, spec: string): { schema: string; table: string; items: string[] } {
  const eq = spec.indexOf('=');
  const bad = () => new Error(`${flag} wants SCHEMA.TABLE=ITEM[,ITEM…], got ${JSON.stringify(spec)}`);
  if (eq <= 0) throw bad();
  const name = spec.slice(0, eq);
  const dot = name.indexOf('.');
  const [schema, table] = dot < 0 ? ['main', name] : [name.slice(0, dot), name.slice(dot + 1)];
  const items = spec
    .slice(eq + 1)
    .split(',')
    .map((s) => s.trim());
  if (!schema || !table || table.includes('.') || items.some((s) => s === '')) throw bad();
  return { schema, table, items };
}

/** `col` (identity) or `year(col)`, `month(col)`, `day(col)`, `hour(col)`. */
export function parsePartitionKey(item: string): PartitionKey {
  const m = /^(year|month|day|hour)\s*\(\s*([^()]+?)\s*\)$/i.exec(item);
  if (m) return { column: unquote(m[2]!), transform: m[1]!.toLowerCase() as Transform };
  if (/[()]/.test(item))
    throw new Error(`--partition-by: ${JSON.stringify(item)} is not a column, year(c), month(c), day(c) or hour(c)`);
  return { column: unquote(item), transform: 'identity' };
}

const unquote = (s: string) => (/^".*"$/.test(s) ? s.slice(1, -1).replaceAll('""', '"') : s);

/** `512MB`, `1.5GB`, `100kB`, `4096` (bytes); units are binary (KB = 1024 bytes) as DuckDB's. */
export function parseSize(s: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib|tb|tib)?\s*$/i.exec(s);
  if (!m) throw new Error(`--target-file-size wants a size such as 512MB, got ${JSON.stringify(s)}`);
  const unit = (m[2] ?? 'b').toLowerCase().replace('i', '');
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 }[unit]!;
  const n = Math.floor(Number(m[1]) * mult);
  if (n < 1024) throw new Error(`--target-file-size must be at least 1kB, got ${JSON.stringify(s)}`);
  return n;
}

/** The hive folder key the extension uses: the column name for identity, the transform otherwise. */
export const hiveKey = (k: PartitionKey) => (k.transform === 'identity' ? k.column : k.transform);

/** Transforms need a date or timestamp column (hour: a timestamp). */
export function transformFits(k: PartitionKey, ducklakeType: string): boolean {
  if (k.transform === 'identity') return true;
  if (k.transform === 'hour') return /^timestamp/.test(ducklakeType);
  return ducklakeType === 'date' || /^timestamp/.test(ducklakeType);
}

/** The --partition-by and --sort-by flags (each repeatable, one table each) → layout per `schema.table`. */
export function parseLayoutFlags(partitionBy: string[], sortBy: string[]): Record<string, TableLayout> {
  const out: Record<string, TableLayout> = {};
  for (const spec of partitionBy) {
    const { schema, table, items } = parseTableList('--partition-by', spec);
    (out[`${schema}.${table}`] ??= {}).partitionBy = items.map(parsePartitionKey);
  }
  for (const spec of sortBy) {
    const { schema, table, items } = parseTableList('--sort-by', spec);
    (out[`${schema}.${table}`] ??= {}).sortBy = items.map(unquote);
  }
  return out;
}
