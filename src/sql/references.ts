/**
 * The relations a statement names, as DuckDB's own parser sees them (json_serialize_sql: parse only,
 * views are not expanded). Used to check which catalogs a client names and which tables of a
 * remote version must be fetched before the statement runs.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export interface TableReference {
  catalog: string;
  schema: string;
  table: string;
}

/** DuckDB's parse tree of `sql` (parsed, not bound), or null when it does not parse. */
export async function parseTree(conn: DuckDBConnection, sql: string): Promise<unknown | null> {
  try {
    const r = await conn.runAndReadAll(`SELECT json_serialize_sql('${sql.replace(/'/g, "''")}')`);
    const tree = JSON.parse(String(r.getRows()[0]?.[0] ?? '')) as { error?: boolean };
    return tree.error ? null : tree; // DuckDB reports the syntax error itself on prepare
  } catch {
    return null;
  }
}

export async function tableReferences(conn: DuckDBConnection, sql: string): Promise<TableReference[] | null> {
  const tree = await parseTree(conn, sql);
  if (tree === null) return null;
  const out: TableReference[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (o.type === 'BASE_TABLE' && typeof o.table_name === 'string') {
      out.push({ catalog: String(o.catalog_name ?? ''), schema: String(o.schema_name ?? ''), table: o.table_name });
    }
    for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
  };
  walk(tree);
  return out;
}
