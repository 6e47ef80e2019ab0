/**
 * Statements whose answer the catalog already holds: `SELECT count(*)[, count(*)…] FROM table`, no
 * filter, grouping or limit. Such a statement observes only how many rows the table has, and a
 * data file that needs no row filter (no deletes, no rows newer than the snapshot) holds exactly
 * its catalog record count, less its inlined deletions if it has only those: it can stand as that
 * many rows without being fetched or read.
 */
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataFile, LakeCatalog, LakeTable } from './model.js';
import { lit, qi, rows, str } from './sql.js';
import { tableSql, type TableSqlContext } from './tablesql.js';
import { sqlType } from './types.js';

type Json = Record<string, unknown>;

const isCountStar = (e: Json): boolean => {
  if (e.class === 'CAST' && e.child && typeof e.child === 'object') return isCountStar(e.child as Json);
  return (
    e.class === 'FUNCTION' &&
    e.function_name === 'count_star' &&
    e.filter === null &&
    e.distinct === false &&
    (e.schema === '' || e.schema === undefined)
  );
};

/** A parsed counting statement: the table it counts and its parse tree (json_serialize_sql). */
interface CountOnly {
  table: LakeTable;
  tree: Json;
}

/**
 * The table `sql` only counts the rows of, or null. Parsed by DuckDB (json_serialize_sql: nothing
 * bound or run); names resolve along `searchPath` as DuckDB would, and `db` is the one database
 * name the statement may qualify the table with.
 */
export async function countOnlyTable(
  conn: DuckDBConnection,
  sql: string,
  catalog: LakeCatalog,
  searchPath: readonly string[],
  db: string,
): Promise<LakeTable | null> {
  return (await parseCountOnly(conn, sql, catalog, searchPath, db))?.table ?? null;
}

async function parseCountOnly(
  conn: DuckDBConnection,
  sql: string,
  catalog: LakeCatalog,
  searchPath: readonly string[],
  db: string,
): Promise<CountOnly | null> {
  let tree: Json;
  try {
    const [r] = await rows(conn, `SELECT json_serialize_sql(${lit(sql)}) AS j`);
    // query_location is a uint64 (-1 when unknown) that JSON numbers cannot carry; it only places error messages
    tree = JSON.parse(str(r?.j).replace(/"query_location":\d+/g, '"query_location":0')) as Json;
  } catch {
    return null;
  }
  const statements = tree.statements as Json[] | undefined;
  if (tree.error || !statements || statements.length !== 1) return null;
  const n = statements[0]!.node as Json;
  const from = n.from_table as Json | null;
  const list = n.select_list as Json[];
  if (n.type !== 'SELECT_NODE' || (n.modifiers as unknown[]).length || ((n.cte_map as Json).map as unknown[]).length)
    return null;
  if (
    n.where_clause !== null ||
    (n.group_expressions as unknown[]).length ||
    (n.group_sets as unknown[]).length ||
    n.having !== null ||
    n.qualify !== null ||
    n.sample !== null
  )
    return null;
  if (
    !from ||
    from.type !== 'BASE_TABLE' ||
    from.sample !== null ||
    from.at_clause !== null ||
    !list.length ||
    !list.every(isCountStar)
  )
    return null;
  const catalogName = String(from.catalog_name ?? '');
  if (catalogName !== '' && catalogName.toLowerCase() !== db.toLowerCase()) return null;
  const name = String(from.table_name).toLowerCase();
  const schemas = from.schema_name ? [String(from.schema_name)] : searchPath.length ? searchPath : ['main'];
  for (const s of schemas.map((x) => x.toLowerCase())) {
    // the first schema holding anything of that name is the one DuckDB binds
    if (catalog.views.some((v) => v.schema.toLowerCase() === s && v.name.toLowerCase() === name)) return null;
    const t = catalog.tables.find((x) => x.schema.toLowerCase() === s && x.name.toLowerCase() === name);
    if (t) return { table: t, tree };
  }
  return null;
}

/**
 * A counting statement over a table whose rows the catalog (partly) counts: the same statement
 * with the table replaced by `source(table)` (the counting relation, countingTableSql), or null
 * when `sql` is not such a statement or `source` declines. The select list (counts, casts,
 * aliases) is DuckDB's own deparse of the client's; nothing else is in such a statement.
 */
export async function countingStatement(
  conn: DuckDBConnection,
  sql: string,
  catalog: LakeCatalog,
  searchPath: readonly string[],
  db: string,
  source: (t: LakeTable) => Promise<string | null>,
): Promise<string | null> {
  // most statements are not counts: no parse for them
  if (!/count\s*\(\s*\*\s*\)/i.test(sql)) return null;
  const parsed = await parseCountOnly(conn, sql, catalog, searchPath, db);
  if (!parsed) return null;
  const from = await source(parsed.table);
  if (from === null) return null;
  const node = (parsed.tree.statements as Json[])[0]!.node as Json;
  node.from_table = { type: 'EMPTY', alias: '', sample: null, query_location: 0 };
  // DuckDB prints an alias unquoted where its own rules need no quotes (`AS Total`), and the engine folds an
  // unquoted name to lower case as PostgreSQL does: each alias is printed as a marker, then quoted as written.
  const marker = `fdl_alias_${randomBytes(6).toString('hex')}_`;
  const aliases: string[] = [];
  for (const item of (node.select_list as Json[] | undefined) ?? []) {
    if (typeof item.alias === 'string' && item.alias !== '') {
      aliases.push(item.alias);
      item.alias = `${marker}${aliases.length - 1}`;
    }
  }
  const [r] = await rows(conn, `SELECT json_deserialize_sql(${lit(JSON.stringify(parsed.tree))}) AS s`);
  const printed = str(r?.s).replace(/;\s*$/, '');
  const select = printed.replace(new RegExp(`${marker}(\\d+)`, 'g'), (_, i: string) => qi(aliases[Number(i)]!));
  if (!/^SELECT /i.test(select) || aliases.some((a) => !select.includes(qi(a)))) return null;
  return `${select} FROM (${from}) AS ${qi(parsed.table.name)}`;
}

/**
 * Live rows of a data file at `snapshot` when the catalog alone says how many: its record count,
 * less its inlined deletions (positions held in the catalog) when those are all it has. null when
 * it must be read (a delete file or deletion vector, rows newer than the snapshot, no count).
 */
export function knownRows(f: DataFile, snapshot: number): number | null {
  if (f.recordCount === null || f.delete !== null || (f.partialMax !== null && f.partialMax > snapshot)) return null;
  if (f.inlinedDeletes.length === 0) return f.recordCount;
  const gone = new Set(f.inlinedDeletes);
  // a position past the file's rows would make the subtraction wrong: read such a file instead
  for (const p of gone) if (!(Number.isInteger(p) && p >= 0 && p < f.recordCount)) return null;
  return f.recordCount - gone.size;
}

/** Files whose rows the catalog counts exactly (they need not be read to be counted). */
export function countedFiles(table: LakeTable, snapshot: number): DataFile[] {
  return table.dataFiles.filter((f) => knownRows(f, snapshot) !== null);
}

/** The rows of `files` (countedFiles) the catalog counts. */
export function countedRows(files: DataFile[], snapshot: number): number {
  return files.reduce((n, f) => n + knownRows(f, snapshot)!, 0);
}

/** The table's view for one counting statement: the `read` files as usual, `counted` rows of NULLs for the rest. */
export function countingTableSql(
  table: LakeTable,
  ctx: TableSqlContext,
  read: ReadonlySet<number>,
  counted: number,
): string {
  const nulls = `SELECT ${table.tree.map((c) => `CAST(NULL AS ${sqlType(c)}) AS ${qi(c.name)}`).join(', ')} FROM range(${counted})`;
  return `${tableSql(table, ctx, read)}\nUNION ALL\n${nulls}`;
}

/**
 * A table's live rows when the catalog counts every one of them (no inlined rows, no file that must be
 * read), else undefined: what pg_class.reltuples and n_live_tup report (PostgreSQL's -1 when unknown).
 */
export function catalogRowCount(table: LakeTable, snapshot: number): number | undefined {
  if (table.inlined.length > 0) return undefined;
  const counted = countedFiles(table, snapshot);
  return counted.length === table.dataFiles.length ? countedRows(counted, snapshot) : undefined;
}
