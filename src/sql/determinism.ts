/**
 * Which statements return the same rows every time they run against one (immutable) version: the
 * condition for serving a result from the result cache. Decided from DuckDB's own parse tree
 * (json_serialize_sql) and its function registry, and deliberately conservative — anything not
 * known to be repeatable is not:
 *  - every function is a built-in scalar or aggregate DuckDB declares CONSISTENT (so not now(),
 *    random(), nextval(), current_setting(), nor any macro — the catalog emulation is macros — nor
 *    a name the version's own DuckLake macros shadow);
 *  - no SQL value keyword that reads the clock or the session (CURRENT_TIMESTAMP, CURRENT_USER, ...);
 *  - no table functions, no sampling;
 *  - every relation is a CTE of the statement or a table of the session's version (not a view: a
 *    DuckLake view's SQL is the publisher's and may call anything).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { parseTree } from './references.js';

/** What a statement uses, as far as repeatability goes. */
export interface StatementShape {
  functions: string[];
  /** Relations named, CTE names removed. */
  relations: { catalog: string; schema: string; table: string }[];
  /** Table functions, sampling, SQL value keywords, catalog-qualified function names, or unparsable. */
  opaque: boolean;
}

/** SQL value keywords DuckDB parses as column references and binds to session or clock values. */
const SESSION_KEYWORDS = new Set([
  'current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp', 'current_user',
  'session_user', 'user', 'current_role', 'current_catalog', 'current_schema', 'current_query',
  'transaction_timestamp', 'statement_timestamp',
]);

/** Built-ins DuckDB calls consistent that read the session (its variables and settings). */
const SESSION_FUNCTIONS = new Set(['getvariable', 'current_setting', 'current_database', 'current_schema', 'current_schemas', 'pg_backend_pid', 'txid_current']);

/** Window functions that are not in duckdb_functions() but depend only on their input. */
const WINDOW_ONLY = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value']);

/** Names of functions whose every overload is a CONSISTENT built-in scalar or aggregate. */
export async function consistentFunctions(conn: DuckDBConnection): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`
    SELECT function_name FROM duckdb_functions() GROUP BY function_name
    HAVING bool_and(stability = 'CONSISTENT' AND function_type IN ('scalar', 'aggregate') AND coalesce(internal, true))`);
  return new Set(r.getRows().map((row) => String(row[0]).toLowerCase()));
}

const shapes = new LRUCache<string, StatementShape>({ max: 2000 });

/** The statement's shape, memoized by text (parsing is independent of session and version). */
export async function statementShape(conn: DuckDBConnection, sql: string): Promise<StatementShape> {
  const known = shapes.get(sql);
  if (known) return known;
  const tree = await parseTree(conn, sql);
  const shape = tree !== null ? shapeOf(tree) : { functions: [], relations: [], opaque: true };
  if (sql.length <= 64 * 1024) shapes.set(sql, shape); // huge generated SQL is not worth keeping
  return shape;
}

function shapeOf(tree: unknown): StatementShape {
  const functions = new Set<string>();
  const relations: StatementShape['relations'] = [];
  const ctes = new Set<string>();
  let opaque = false;
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (o.sample) opaque = true; // USING SAMPLE / TABLESAMPLE: a random subset each run
    switch (o.type) {
      case 'BASE_TABLE':
        relations.push({ catalog: lower(o.catalog_name), schema: lower(o.schema_name), table: lower(o.table_name) });
        break;
      case 'TABLE_FUNCTION':
        opaque = true;
        break;
      case 'COLUMN_REF': {
        const names = o.column_names as unknown[];
        if (names?.length === 1 && SESSION_KEYWORDS.has(lower(names[0]))) opaque = true;
        break;
      }
    }
    if (o.class === 'FUNCTION' && typeof o.function_name === 'string') {
      if (o.catalog || o.schema) opaque = true; // a qualified name: a macro of some catalog
      functions.add(o.function_name.toLowerCase());
    }
    if (o.class === 'WINDOW' && typeof o.function_name === 'string') {
      const name = o.function_name.toLowerCase();
      if (!WINDOW_ONLY.has(name)) functions.add(name);
    }
    const cteMap = (o.cte_map as { map?: { key?: unknown }[] } | undefined)?.map;
    if (Array.isArray(cteMap)) for (const e of cteMap) ctes.add(lower(e.key));
    for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
  };
  walk(tree);
  return {
    functions: [...functions],
    relations: relations.filter((r) => !(r.catalog === '' && r.schema === '' && ctes.has(r.table))),
    opaque,
  };
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

/** What the session's version holds (names lower-cased). */
export interface VersionNames {
  isVersionTable(schema: string, table: string): boolean;
  /** A DuckLake macro of the version: it resolves before a built-in of the same name. */
  isVersionFunction(name: string): boolean;
}

/** True when the statement's rows depend only on the version: see the module comment. */
export function isRepeatable(shape: StatementShape, consistent: ReadonlySet<string>, database: string, version: VersionNames): boolean {
  if (shape.opaque) return false;
  for (const f of shape.functions) {
    if (!consistent.has(f) || SESSION_FUNCTIONS.has(f) || version.isVersionFunction(f)) return false;
  }
  const db = database.toLowerCase();
  for (const r of shape.relations) {
    if (r.catalog !== '' && r.catalog !== db) return false;
    // `x.t` names schema x of the current database, unless x is the database itself.
    const schema = r.catalog === '' && r.schema === db ? 'main' : r.schema || 'main';
    if (!version.isVersionTable(schema, r.table)) return false;
  }
  return true;
}
