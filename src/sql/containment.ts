/**
 * What a client statement may touch. DuckDB itself already refuses file access outside the
 * allowed directories (see engine.ts); inside them, a client must still not read files directly:
 * only through the views of the version it is entitled to. So statements naming file-reading
 * table functions, or a quoted path as a table (DuckDB's replacement scans), are refused.
 *
 * A cheap lexical pre-check decides whether the statement needs the precise check, which walks
 * DuckDB's own parse tree (json_serialize_sql) so that names inside strings or comments do not
 * cause false refusals.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';

/** Table functions that read files, list files, run SQL text, or expose the engine's environment. */
const FORBIDDEN_FUNCTIONS = new Set([
  'read_parquet', 'parquet_scan', 'parquet_metadata', 'parquet_schema', 'parquet_file_metadata', 'parquet_kv_metadata', 'parquet_bloom_probe',
  'read_csv', 'read_csv_auto', 'sniff_csv', 'read_json', 'read_json_auto', 'read_json_objects', 'read_json_objects_auto',
  'read_ndjson', 'read_ndjson_auto', 'read_ndjson_objects', 'read_text', 'read_blob', 'glob', 'query', 'query_table',
  'read_xlsx', 'iceberg_scan', 'delta_scan', 'ducklake_snapshots', 'duckdb_secrets', 'load_aws_credentials',
  'duckdb_log', 'duckdb_logs', 'checkpoint', 'force_checkpoint', 'which_secret', 'duckdb_extensions', 'duckdb_temporary_files',
  'pragma_database_size', 'database_size', 'duckdb_memory',
]);

/** Engine introspection lists every attached database (other versions, other repositories). */
const isEngineIntrospection = (name: string) => name.startsWith('duckdb_') || name.startsWith('pragma_');

const PRECHECK = new RegExp(
  `\\b(${[...FORBIDDEN_FUNCTIONS].join('|')}|duckdb_\\w+|pragma_\\w+)\\s*\\(|\\b(from|join)\\s+'|,\\s*'[^']*\\.(parquet|csv|json|tsv|txt|gz|zst|ndjson|jsonl|duckdb|db)'`,
  'i',
);

export async function checkContainment(conn: DuckDBConnection, sql: string): Promise<void> {
  if (!PRECHECK.test(sql)) return;
  const reader = await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString(sql)})`);
  const text = String(reader.getRows()[0]?.[0] ?? '');
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    return; // not parseable here: DuckDB will report the syntax error itself
  }
  const refused = findForbidden(tree);
  if (refused) {
    throw new SqlError(SQLSTATE.insufficientPrivilege, `permission denied: ${refused} is not allowed through fdl-gateway`, 'Tables and views of the version are the only data a session can read.');
  }
}

/** Walk the serialized parse tree; return a description of the first forbidden node. */
function findForbidden(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const n of node) {
      const r = findForbidden(n);
      if (r) return r;
    }
    return null;
  }
  if (!node || typeof node !== 'object') return null;
  const o = node as Record<string, unknown>;
  if (o.type === 'TABLE_FUNCTION') {
    const fn = o.function as Record<string, unknown> | undefined;
    const name = String(fn?.function_name ?? '').toLowerCase();
    if (FORBIDDEN_FUNCTIONS.has(name) || isEngineIntrospection(name)) return `table function ${name}()`;
  }
  if (o.class === 'FUNCTION') {
    const name = String(o.function_name ?? '').toLowerCase();
    if (FORBIDDEN_FUNCTIONS.has(name) || isEngineIntrospection(name)) return `function ${name}()`;
  }
  if (o.type === 'BASE_TABLE') {
    const name = String(o.table_name ?? '');
    // A quoted path as a table name is a replacement scan over a file.
    if (/[/\\]|\.(parquet|csv|tsv|json|jsonl|ndjson|txt|gz|zst|duckdb|db)$/i.test(name)) return `reading the file '${name}'`;
  }
  for (const v of Object.values(o)) {
    if (v && typeof v === 'object') {
      const r = findForbidden(v);
      if (r) return r;
    }
  }
  return null;
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
