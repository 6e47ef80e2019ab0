/**
 * Which statements return the same rows every time they run against one (immutable) version: the
 * condition for serving a result from the result cache. Decided from DuckDB's own parse tree
 * (json_serialize_sql) and its function registry, and deliberately conservative — anything not
 * known to be repeatable is not:
 *  - every function is a built-in scalar or aggregate DuckDB declares CONSISTENT (so not now(),
 *    random(), nextval(), current_setting(), nor any macro — the catalog emulation is macros (the
 *    rewrite's `_pgsem_` macros excepted: built-ins chosen by type) — nor
 *    a name the version's own DuckLake macros shadow);
 *  - no SQL value keyword that reads the clock or the session (CURRENT_TIMESTAMP, CURRENT_USER, ...);
 *  - no table functions but those over their arguments alone (unnest, generate_series, range), no sampling;
 *  - every relation is a CTE of the statement or a table of the session's version (not a view: a
 *    DuckLake view's SQL is the publisher's and may call anything);
 *  - except that the catalog emulation's views, tables and macros that answer the same for every
 *    session with the same version attachment, user and settings (pg/catalog/session-free.ts) count as
 *    repeatable when the caller says so: the result's key then holds the attachment (its OIDs).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Analysis } from './analysis.js';
import { COMPAT_DB } from '../pg/catalog/names.js';
import { WINDOW_ONLY_FUNCTIONS } from './window-functions.js';

/** Built-ins DuckDB calls consistent that read the session (its variables and settings). */
const SESSION_FUNCTIONS = new Set([
  'getvariable',
  'current_setting',
  'current_database',
  'current_schema',
  'current_schemas',
  'pg_backend_pid',
  'txid_current',
]);

/** SQL value keywords that read the clock or the session (a macro body using one is not consistent). */
const SESSION_KEYWORD_IN_BODY =
  /\b(?:current_timestamp|current_date|current_time|localtime|localtimestamp|current_user|session_user|user|current_role|current_catalog|current_schema)\b/i;
/** Words a macro body may put before a parenthesis that are not calls. */
const SQL_WORDS_BEFORE_PARENTHESIS = new Set([
  'cast',
  'try_cast',
  'when',
  'then',
  'else',
  'and',
  'or',
  'not',
  'in',
  'as',
  'exists',
]);

/**
 * Names of functions whose every overload is a CONSISTENT built-in scalar or aggregate — or a table
 * function: a call in an expression is the scalar (`generate_series(1, 3)` as a list), one in FROM is
 * a table function, which the analysis lists apart — and DuckDB's built-in macros over only those
 * (`array_to_string`).
 */
export async function consistentFunctions(conn: DuckDBConnection): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`
    SELECT function_name FROM duckdb_functions() GROUP BY function_name
    HAVING bool_and(coalesce(internal, true) AND (function_type = 'table' OR (stability = 'CONSISTENT' AND function_type IN ('scalar', 'aggregate'))))
      AND bool_or(function_type IN ('scalar', 'aggregate'))`);
  const names = new Set(r.getRows().map((row) => String(row[0]).toLowerCase()));
  // error() (the rewrite's division-by-zero check, compat/pg-calls.ts) raises on the same rows every
  // time; DuckDB labels it VOLATILE only so it is never folded away. unnest() in an expression
  // expands its list argument (in FROM it is a table function).
  names.add('error');
  names.add('unnest');
  const macros = await conn.runAndReadAll(`
    SELECT function_name, string_agg(macro_definition, ' ') FROM duckdb_functions()
    WHERE function_type = 'macro' AND internal AND database_name = 'system' AND schema_name = 'main' GROUP BY function_name`);
  for (const [name, bodies] of macros.getRows()) {
    const body = String(bodies);
    if (SESSION_KEYWORD_IN_BODY.test(body) || SESSION_KEYWORD_IN_BODY.test(String(name))) continue;
    const calls = [...body.matchAll(/([a-z_][a-z0-9_]*)\s*\(/gi)].map((m) => m[1]!.toLowerCase());
    if (calls.every((c) => names.has(c) || SQL_WORDS_BEFORE_PARENTHESIS.has(c))) names.add(String(name).toLowerCase());
  }
  return names;
}

/** DuckDB's table functions whose rows are their arguments' alone (the arguments are judged as any expression). */
const PURE_TABLE_FUNCTIONS = new Set(['unnest', 'generate_series', 'range']);

/** What the session's version holds (names lower-cased). */
export interface VersionNames {
  isVersionTable(schema: string, table: string): boolean;
  /** A DuckLake macro of the version: it resolves before a built-in of the same name. */
  isVersionFunction(name: string): boolean;
}

/** True when the statement's rows depend only on the version: see the module comment. */
export function isRepeatable(
  a: Analysis,
  consistent: ReadonlySet<string>,
  database: string,
  version: VersionNames,
  /** A catalog object (in COMPAT_DB) that answers alike for every session with the same key. */
  sessionFreeCatalog: (schema: string, name: string) => boolean = () => false,
): boolean {
  if (a.volatile || a.kind !== 'query') return false;
  for (const f of a.tableFunctions) {
    if (f.catalog === COMPAT_DB && sessionFreeCatalog(f.schema, f.name)) continue;
    if (f.catalog || (f.schema && f.schema !== 'main')) return false;
    if (!PURE_TABLE_FUNCTIONS.has(f.name) || version.isVersionFunction(f.name)) return false;
  }
  for (const f of a.functions) {
    if (f.window && WINDOW_ONLY_FUNCTIONS.has(f.name)) continue;
    // PostgreSQL's meaning of a plain query (pg/pg-result-types.ts): macros over consistent built-ins.
    if (f.catalog === COMPAT_DB && f.schema === 'pgcat' && f.name.startsWith('_pgsem_')) continue;
    if (f.catalog === COMPAT_DB && sessionFreeCatalog(f.schema, f.name)) continue;
    if (f.catalog || (f.schema && f.schema !== 'main')) return false; // a qualified name: a macro of some catalog
    if (!consistent.has(f.name) || SESSION_FUNCTIONS.has(f.name) || version.isVersionFunction(f.name)) return false;
  }
  const db = database.toLowerCase();
  for (const r of a.relations) {
    if (r.catalog === COMPAT_DB && sessionFreeCatalog(r.schema, r.table)) continue;
    if (r.catalog !== '' && r.catalog !== db) return false;
    // `x.t` names schema x of the current database, unless x is the database itself.
    const schema = r.catalog === '' && r.schema === db ? 'main' : r.schema || 'main';
    if (!version.isVersionTable(schema, r.table)) return false;
  }
  return true;
}
