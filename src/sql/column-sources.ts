/**
 * Which table column each result column comes straight from, for RowDescription's table OID and
 * attribute number (libpq PQftable/PQftablecol, PDO getColumnMeta, pgjdbc getTableName, editors
 * that open a result for editing). PostgreSQL fills them for plain table columns and 0 otherwise;
 * the values agree with pg_class.oid and pg_attribute.attnum of the catalog emulation (both are
 * DuckDB's own object id and column index).
 *
 * The statement's shape comes from PostgreSQL's grammar (one parse per text, remembered); the
 * relations' columns from DuckDB's catalog, remembered per version database (versions never change).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { parsePg, type PgTree } from './pg-parse.js';

export interface ColumnSource {
  tableOid: number;
  attnum: number;
}

type Node = Record<string, any>;

interface Relation {
  schema: string | null;
  name: string;
  /** The name columns are qualified by (alias, else the table name). */
  ref: string;
}

type Target = { kind: 'column'; qualifier: string | null; column: string } | { kind: 'star'; qualifier: string | null } | { kind: 'other' };

interface Shape {
  relations: Relation[];
  /** FROM has items other than plain tables (subqueries, functions, CTEs, USING/NATURAL joins). */
  opaque: boolean;
  targets: Target[];
}

/** Only SELECTs that read something can have table columns. */
const MAY_HAVE_SOURCES = /\bfrom\b/i;
const shapes = new LRUCache<string, { shape: Shape | null }>({ max: 512 });

function shapeOf(sql: string): Shape | null {
  const hit = shapes.get(sql);
  if (hit) return hit.shape;
  const tree = parsePg(sql);
  const shape = tree ? parseShape(tree) : null;
  shapes.set(sql, { shape });
  return shape;
}

function sval(n: Node | undefined): string | null {
  return typeof n?.String?.sval === 'string' ? n.String.sval : null;
}

function parseShape(tree: PgTree): Shape | null {
  if (tree.stmts?.length !== 1) return null;
  const select = tree.stmts[0]!.stmt?.SelectStmt as Node | undefined;
  if (!select || (select.op && select.op !== 'SETOP_NONE') || !select.targetList) return null;
  const ctes = new Set<string>(((select.withClause?.ctes ?? []) as Node[]).map((c) => String(c.CommonTableExpr?.ctename)));
  const relations: Relation[] = [];
  let opaque = false;
  const from = (n: Node): void => {
    if (n.RangeVar) {
      const rv = n.RangeVar as Node;
      if (rv.catalogname || (!rv.schemaname && ctes.has(rv.relname))) opaque = true;
      else relations.push({ schema: rv.schemaname ?? null, name: rv.relname, ref: rv.alias?.aliasname ?? rv.relname });
    } else if (n.JoinExpr) {
      const j = n.JoinExpr as Node;
      if (j.usingClause || j.isNatural) opaque = true;
      from(j.larg);
      from(j.rarg);
    } else opaque = true;
  };
  for (const n of (select.fromClause ?? []) as Node[]) from(n);
  if (relations.length === 0) return null;
  const targets: Target[] = (select.targetList as Node[]).map((t) => {
    const val = t.ResTarget?.val as Node | undefined;
    const fields = val?.ColumnRef?.fields as Node[] | undefined;
    if (!fields) return { kind: 'other' };
    const last = fields[fields.length - 1]!;
    const qualifier = fields.length >= 2 ? sval(fields[fields.length - 2]) : null;
    if ('A_Star' in last) return { kind: 'star', qualifier };
    const column = sval(last);
    // schema.table.column: the table part qualifies it.
    return column === null || fields.length > 3 ? { kind: 'other' } : { kind: 'column', qualifier, column };
  });
  return { relations, opaque, targets };
}

interface TableColumns {
  oid: number;
  /** Column names in order; attnum = index + 1. */
  columns: string[];
}

/** Columns of a relation of a version, by `db\0schema\0name` (versions are immutable). */
const tables = new LRUCache<string, { table: TableColumns | null }>({ max: 4096 });

async function tableColumns(conn: DuckDBConnection, db: string, schema: string, name: string): Promise<TableColumns | null> {
  const key = `${db}\u0000${schema}\u0000${name}`;
  const hit = tables.get(key);
  if (hit) return hit.table;
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const r = await conn.runAndReadAll(
    `SELECT table_oid, column_name, column_index FROM duckdb_columns()
     WHERE database_name = ${q(db)} AND schema_name = ${q(schema)} AND lower(table_name) = ${q(name.toLowerCase())} AND NOT internal ORDER BY column_index`,
  );
  const rows = r.getRows();
  const table = rows.length === 0 ? null : { oid: Number(rows[0]![0]), columns: rows.map((row) => String(row[1])) };
  // Only relations that exist are remembered: a name may resolve elsewhere once the path changes.
  if (table) tables.set(key, { table });
  return table;
}

/**
 * Table OID and attnum per result column (null where the column is computed), or null when the
 * statement's shape is not one whose sources are certain. `db` is the session's version database,
 * `searchSchemas` its search_path; `columnCount` what DuckDB will return.
 */
export async function columnSources(
  conn: DuckDBConnection,
  sql: string,
  db: string,
  searchSchemas: readonly string[],
  columnCount: number,
): Promise<(ColumnSource | null)[] | null> {
  if (!MAY_HAVE_SOURCES.test(sql)) return null;
  const shape = shapeOf(sql);
  if (!shape) return null;
  const resolved: { rel: Relation; table: TableColumns }[] = [];
  for (const rel of shape.relations) {
    let table: TableColumns | null = null;
    for (const schema of rel.schema ? [rel.schema] : searchSchemas) {
      table = await tableColumns(conn, db, schema, rel.name);
      if (table) break;
    }
    if (!table) return null; // not a table of this version (another version, a catalog view…)
    resolved.push({ rel, table });
  }
  const out: (ColumnSource | null)[] = [];
  const find = (column: string, qualifier: string | null): ColumnSource | null => {
    const candidates = resolved.filter((r) => qualifier === null || r.rel.ref.toLowerCase() === qualifier.toLowerCase());
    if (qualifier === null && shape.opaque) return null; // could come from an item we cannot see into
    const hits = candidates.flatMap((r) => {
      const i = r.table.columns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
      return i >= 0 ? [{ tableOid: r.table.oid, attnum: i + 1 }] : [];
    });
    return hits.length === 1 ? hits[0]! : null;
  };
  for (const t of shape.targets) {
    if (t.kind === 'other') out.push(null);
    else if (t.kind === 'column') out.push(find(t.column, t.qualifier));
    else {
      if (t.qualifier === null && shape.opaque) return null; // `*` over items we cannot expand
      const rels = resolved.filter((r) => t.qualifier === null || r.rel.ref.toLowerCase() === t.qualifier.toLowerCase());
      if (rels.length === 0) return null;
      for (const r of rels) r.table.columns.forEach((_, i) => out.push({ tableOid: r.table.oid, attnum: i + 1 }));
    }
  }
  return out.length === columnCount ? out : null;
}
