/**
 * Which table column each result column comes straight from, for RowDescription's table OID and
 * attribute number (libpq PQftable/PQftablecol, PDO getColumnMeta, pgjdbc getTableName, editors
 * that open a result for editing). PostgreSQL fills them for plain table columns and 0 otherwise;
 * the values are pg_class.oid and pg_attribute.attnum of the catalog emulation, read from its rows of
 * the version (versions/version-catalogs.ts).
 *
 * The statement's shape comes from its one DuckDB parse (analysis/analysis.ts calls sourceShape); the
 * relations' columns from the emulation's rows, remembered per version database (versions never change).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { V } from '../pg/catalog/names.js';
import type { TypmodLeaf } from '../pg/result-typmods.js';

export interface ColumnSource {
  tableOid: number;
  attnum: number;
}

type Node = Record<string, any>;

export interface SourceRelation {
  schema: string | null;
  name: string;
  /** The name columns are qualified by (alias, else the table name). */
  ref: string;
}

export type SourceTarget =
  | { kind: 'column'; qualifier: string | null; column: string }
  | { kind: 'star'; qualifier: string | null }
  | { kind: 'other' };

/** What a top-level SELECT reads and returns, as far as table columns go. */
export interface SourceShape {
  relations: SourceRelation[];
  /** FROM has items other than plain tables (subqueries, functions, CTEs, USING/NATURAL joins). */
  opaque: boolean;
  targets: SourceTarget[];
}

/**
 * The shape of a query node (DuckDB's parse tree), or undefined when it cannot have sources
 * certainly: a set operation, no plain table in FROM, a star that renames or drops columns.
 */
export function sourceShape(node: Node | undefined): SourceShape | undefined {
  if (node?.type !== 'SELECT_NODE' || !Array.isArray(node.select_list)) return undefined;
  const ctes = new Set<string>(((node.cte_map?.map ?? []) as Node[]).map((e) => String(e.key).toLowerCase()));
  const relations: SourceRelation[] = [];
  let opaque = false;
  const from = (n: Node | undefined): void => {
    if (n?.type === 'BASE_TABLE') {
      const schema = typeof n.schema_name === 'string' && n.schema_name !== '' ? n.schema_name : null;
      const name = String(n.table_name ?? '');
      const hasAliasColumns = Array.isArray(n.column_name_alias) && n.column_name_alias.length > 0;
      // Another catalog (a pinned version), a CTE or renamed columns: not looked into.
      if ((n.catalog_name ?? '') !== '' || (!schema && ctes.has(name.toLowerCase())) || hasAliasColumns || n.at_clause)
        opaque = true;
      else relations.push({ schema, name, ref: typeof n.alias === 'string' && n.alias !== '' ? n.alias : name });
    } else if (n?.type === 'JOIN') {
      if (
        (n.ref_type !== 'REGULAR' && n.ref_type !== 'CROSS') ||
        (Array.isArray(n.using_columns) && n.using_columns.length > 0)
      )
        opaque = true;
      from(n.left as Node);
      from(n.right as Node);
    } else if (n?.type !== 'EMPTY') opaque = true;
  };
  from(node.from_table as Node | undefined);
  if (relations.length === 0) return undefined;
  const targets: SourceTarget[] = [];
  for (const item of node.select_list as Node[]) {
    if (item.class === 'STAR') {
      const plain =
        !item.columns &&
        !item.expr &&
        !(item.exclude_list?.length > 0) &&
        !(item.replace_list?.length > 0) &&
        !(item.rename_list?.length > 0);
      if (!plain) return undefined;
      targets.push({
        kind: 'star',
        qualifier: typeof item.relation_name === 'string' && item.relation_name !== '' ? item.relation_name : null,
      });
    } else if (item.class === 'COLUMN_REF') {
      const names = item.column_names as string[];
      // schema.table.column: the table part qualifies it; catalog.schema.table.column is not followed.
      if (!Array.isArray(names) || names.length === 0 || names.length > 3) targets.push({ kind: 'other' });
      else
        targets.push({
          kind: 'column',
          qualifier: names.length >= 2 ? names[names.length - 2]! : null,
          column: names[names.length - 1]!,
        });
    } else targets.push({ kind: 'other' });
  }
  return { relations, opaque, targets };
}

interface TableColumns {
  oid: number;
  /** Column names in order; attnum = index + 1. */
  columns: string[];
  /** Each column's atttypmod, as pg_attribute gives it. */
  typmods: number[];
}

/**
 * Columns of a relation of a version, by `attachment\0db\0schema\0name` (versions are immutable; a version
 * attached again gets new relation OIDs, so its attachment is part of the key).
 */
const tables = new LRUCache<string, { table: TableColumns | null }>({ max: 4096 });

async function tableColumns(
  conn: DuckDBConnection,
  attachment: string,
  db: string,
  schema: string,
  name: string,
): Promise<TableColumns | null> {
  const key = `${attachment}\u0000${db}\u0000${schema}\u0000${name}`;
  const hit = tables.get(key);
  if (hit) return hit.table;
  // the catalog emulation's rows of the version: its relation OIDs are the ones pg_class gives
  const r = await conn.runAndReadAll(
    `SELECT attrelid, attname, attnum, atttypmod FROM ${V}_cols_by_db WHERE db = $1 AND schema_name = $2 AND lower(table_name) = $3 ORDER BY attnum`,
    [db, schema, name.toLowerCase()],
  );
  const rows = r.getRows();
  const table =
    rows.length === 0
      ? null
      : {
          oid: Number(rows[0]![0]),
          columns: rows.map((row) => String(row[1])),
          typmods: rows.map((row) => Number(row[3])),
        };
  // Only relations that exist are remembered: a name may resolve elsewhere once the path changes.
  if (table) tables.set(key, { table });
  return table;
}

/**
 * Table OID and attnum per result column (null where the column is computed), or null when the
 * statement's shape is not one whose sources are certain. `db` is the session's version database (and
 * `attachment` which attachment of it), `searchSchemas` its search_path; `columnCount` what DuckDB will return.
 */
export async function columnSources(
  conn: DuckDBConnection,
  shape: SourceShape | undefined,
  db: { name: string; attachment: string },
  searchSchemas: readonly string[],
  columnCount: number,
): Promise<(ColumnSource | null)[] | null> {
  const find = await columnFinder(conn, shape, db, searchSchemas);
  if (!shape || !find) return null;
  const out: (ColumnSource | null)[] = [];
  for (const t of shape.targets) {
    if (t.kind === 'other') out.push(null);
    else if (t.kind === 'column') out.push(find.column(t.column, t.qualifier));
    else {
      const rels = find.relations(t.qualifier);
      if (!rels) return null;
      for (const r of rels) r.columns.forEach((_, i) => out.push({ tableOid: r.oid, attnum: i + 1 }));
    }
  }
  return out.length === columnCount ? out : null;
}

/**
 * The typmod PostgreSQL gives a choice (CASE, COALESCE, NULLIF, GREATEST, LEAST) of numerics: its
 * leaves' (table columns as declared, casts as written) where they all agree, else -1
 * (pg/result-typmods.ts); -1 too where a column's table is not certain.
 */
export async function choiceTypmod(
  conn: DuckDBConnection,
  db: { name: string; attachment: string },
  searchSchemas: readonly string[],
  leaves: readonly TypmodLeaf[],
): Promise<number> {
  const finders = new Map<SourceShape, Awaited<ReturnType<typeof columnFinder>>>();
  const typmods = new Set<number>();
  for (const leaf of leaves) {
    if ('typmod' in leaf) typmods.add(leaf.typmod);
    else {
      if (!leaf.scope) return -1;
      if (!finders.has(leaf.scope)) finders.set(leaf.scope, await columnFinder(conn, leaf.scope, db, searchSchemas));
      const src = finders.get(leaf.scope)?.column(leaf.column, leaf.qualifier);
      if (!src) return -1;
      typmods.add(src.typmod);
    }
  }
  return typmods.size === 1 ? [...typmods][0]! : -1;
}

/** The relations of a shape resolved on the search path, and a column's source among them; undefined when one is not a table here. */
async function columnFinder(
  conn: DuckDBConnection,
  shape: SourceShape | undefined,
  db: { name: string; attachment: string },
  searchSchemas: readonly string[],
) {
  if (!shape) return undefined;
  const resolved: { rel: SourceRelation; table: TableColumns }[] = [];
  for (const rel of shape.relations) {
    let table: TableColumns | null = null;
    for (const schema of rel.schema ? [rel.schema] : searchSchemas) {
      table = await tableColumns(conn, db.attachment, db.name, schema, rel.name);
      if (table) break;
    }
    if (!table) return undefined; // not a table of this version (another version, a catalog view…)
    resolved.push({ rel, table });
  }
  return {
    column(column: string, qualifier: string | null): (ColumnSource & { typmod: number }) | null {
      const candidates = resolved.filter(
        (r) => qualifier === null || r.rel.ref.toLowerCase() === qualifier.toLowerCase(),
      );
      if (qualifier === null && shape.opaque) return null; // could come from an item we cannot see into
      const hits = candidates.flatMap((r) => {
        const i = r.table.columns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
        return i >= 0 ? [{ tableOid: r.table.oid, attnum: i + 1, typmod: r.table.typmods[i]! }] : [];
      });
      return hits.length === 1 ? hits[0]! : null;
    },
    /** The tables a `*` (or `q.*`) expands to; undefined where it could reach items we cannot see into. */
    relations(qualifier: string | null): TableColumns[] | undefined {
      if (qualifier === null && shape.opaque) return undefined; // `*` over items we cannot expand
      const rels = resolved.filter((r) => qualifier === null || r.rel.ref.toLowerCase() === qualifier.toLowerCase());
      return rels.length === 0 ? undefined : rels.map((r) => r.table);
    },
  };
}
