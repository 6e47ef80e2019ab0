/**
 * Admission by allowlist: what a client statement may touch, decided from its one analysis
 * (analysis.ts) before DuckDB prepares it.
 *  - Functions: DuckDB's own built-in scalar, aggregate, window and macro functions (read from its
 *    catalog, duckdb_functions()) minus those refused on purpose below; the gateway's catalog
 *    emulation; macros of the version being read.
 *  - Table functions: only the short list below, the emulation's and the version's.
 *  - Relations: tables and views of the session's version or of a version the statement pinned
 *    ("NAME@REF"), CTEs, and the emulated catalogs. Anything else is unknown (42P01) or, when it
 *    looks like a file, glob or URL that DuckDB would read by a replacement scan, refused (42501).
 * test/admission.test.ts snapshots duckdb_functions() and fails when DuckDB grows a function nobody
 * decided about, so an upgrade cannot add an escape silently.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { SqlError, SQLSTATE } from '../errors.js';
import type { Analysis, RelationRef } from './analysis.js';
import { foldIdentifier } from '../text/identifier.js';
import { undefinedFunction } from './function-hints.js';
import { WINDOW_ONLY_FUNCTIONS } from './window-functions.js';
import { COMPAT_DB } from '../pg/catalog/names.js';
import { COMPAT_FUNCTION_ARITIES } from '../pg/catalog/install.js';

/**
 * Built-ins refused on purpose: they reach files, the engine's settings or state, logging and
 * profiling, run SQL text, sleep on a worker thread, or change per-connection state.
 */
export const REFUSED_FUNCTIONS: ReadonlySet<string> = new Set([
  // engine settings and environment (paths of the server among them)
  'current_setting',
  'getenv',
  'in_search_path',
  'current_query_id',
  // SQL text or plans run or bound from a value
  'json_serialize_plan',
  'json_execute_serialized_sql',
  'json_deserialize_sql',
  'json_serialize_sql',
  'query',
  'query_table',
  // logging, profiling, sleeping
  'write_log',
  'parse_duckdb_log_message',
  'sleep_ms',
  'pg_sleep',
  // sequences and random state: side effects on the connection
  'nextval',
  'currval',
  'setseed',
  'set_variable',
  // variant/parquet internals
  'variant_to_parquet_variant',
  // histogram()'s internal helper: over a vector that is not flat (a UNION ALL with a NULL) DuckDB 1.5.6
  // raises an internal error while running, which invalidates the repository's whole instance
  'is_histogram_other_bin',
  // a type named by a string: a qualified name probes other attached databases (42704 or "Catalog
  // does not exist"), which qualified-types.ts refuses in the parse but cannot see inside a value
  'make_type',
  'cast_to_type',
  // reserves its sample for every group before reading a row (DuckDB's default 8,192 values): enough
  // groups fail that allocation, an internal error that invalidates the repository's engine (attacker review)
  'reservoir_quantile',
]);

/**
 * Refused functions PostgreSQL 15 answers for any user: not supported (0A000) with what to do instead,
 * never a permission error, which makes users look for a grant.
 */
const PG_ANSWERS: Readonly<Record<string, string>> = {
  setseed:
    'random() cannot be seeded through fdl-gateway (its state belongs to a shared engine connection): for a repeatable sample order by hash(key) or use TABLESAMPLE … REPEATABLE (seed).',
  pg_sleep: 'A statement cannot sleep through fdl-gateway: wait in the client.',
  reservoir_quantile:
    'Use percentile_cont or percentile_disc (… WITHIN GROUP (ORDER BY x)), or DuckDB’s quantile_cont or approx_quantile: a reservoir reserves its sample for every group before reading a row.',
};

/**
 * Calls the PostgreSQL rewrite answers from the emulation (its macros, and current_database, which it
 * renames): in a text the PostgreSQL grammar rejects (DuckDB's FROM-first, lambdas, list literals)
 * the rewrite never runs, and the same name is DuckDB's own built-in, which answers about the engine
 * rather than the session (has_table_privilege true for anything, current_database the attached
 * database's name, version() DuckDB's). Refused there (0A000), except these, which compute a value
 * from their arguments alone (the emulation only gives PostgreSQL's result type or wording).
 */
export const EMULATED_FUNCTIONS: ReadonlySet<string> = new Set(
  [...COMPAT_FUNCTION_ARITIES.keys(), 'current_database'].filter((n) => !n.startsWith('_')),
);
const VALUE_ONLY_EMULATED = new Set([
  'array_length',
  'array_lower',
  'array_upper',
  'array_remove',
  'cardinality',
  'date_bin',
  'date_trunc',
  'initcap',
  'json_typeof',
  'jsonb_typeof',
  'jsonb_array_length',
  'parse_ident',
  'pg_size_pretty',
  'pg_typeof',
  'quote_ident',
  'quote_literal',
  'justify_days',
  'justify_hours',
  'justify_interval',
  'width_bucket',
]);

/** Table functions a statement may call (beside the emulation's and the version's own macros). */
export const ALLOWED_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['range', 'generate_series', 'unnest']);

/** Built-in expressions the parser spells as function calls but duckdb_functions() does not list. */
const UNLISTED_BUILTINS = ['unnest', 'unlist'];

/** Function kinds of DuckDB's catalog admission considers (built-ins live in the `system` catalog). */
export const FUNCTION_KINDS = ['scalar', 'aggregate', 'macro'] as const;

let builtins: Promise<ReadonlySet<string>> | null = null;
/** Every function name DuckDB knows, refused ones included: a name outside it does not exist (42883). */
let everyBuiltin: ReadonlySet<string> | null = null;

/** DuckDB's built-in scalar/aggregate/macro names (read once per process), minus the refused ones. */
export function allowedFunctions(conn: DuckDBConnection): Promise<ReadonlySet<string>> {
  builtins ??= (async () => {
    const r = await conn.runAndReadAll(`
      SELECT DISTINCT lower(function_name) FROM duckdb_functions()
      WHERE database_name = 'system' AND internal AND function_type IN (${FUNCTION_KINDS.map((k) => `'${k}'`).join(', ')})`);
    const names = new Set(r.getRows().map((row) => String(row[0])));
    for (const w of UNLISTED_BUILTINS) names.add(w);
    // The emulation's internal macros (`_`-prefixed, called only by the rewrite's output, fully
    // qualified) are not functions a client can name: unknown (42883), as in PostgreSQL.
    const every = await conn.runAndReadAll(
      `SELECT DISTINCT lower(function_name) FROM duckdb_functions()
       WHERE NOT (database_name = '${COMPAT_DB}' AND starts_with(function_name, '_'))`,
    );
    everyBuiltin = new Set([
      ...names,
      ...REFUSED_FUNCTIONS,
      ...WINDOW_ONLY_FUNCTIONS,
      ...every.getRows().map((row) => String(row[0])),
    ]);
    for (const f of REFUSED_FUNCTIONS) names.delete(f);
    for (const f of await catalogReadingMacros(conn)) names.delete(f);
    for (const f of await variantFunctions(conn)) names.delete(f);
    return names;
  })().catch((e: unknown) => {
    builtins = null;
    throw e;
  });
  return builtins;
}

/**
 * DuckDB's own macros that read a table function (pg_get_viewdef over duckdb_views(),
 * pg_get_constraintdef, get_block_size, format_type …): they see every attached database of the
 * engine, other versions and repositories included, so none is callable; the catalog emulation
 * answers PostgreSQL's spellings from the session's own version.
 */
export async function catalogReadingMacros(conn: DuckDBConnection): Promise<string[]> {
  const r = await conn.runAndReadAll(`
    SELECT DISTINCT lower(function_name) FROM duckdb_functions()
    WHERE database_name = 'system' AND function_type = 'macro' AND regexp_matches(macro_definition, '(?i)\\bFROM\\s+"?[a-z_]+"?\\s*\\(')`);
  return r.getRows().map((row) => String(row[0]));
}

/**
 * DuckDB's functions that take or make a VARIANT value (variant_normalize, variant_extract, …), read
 * from its catalog so a new one is refused too. A VARIANT value crashes DuckDB 1.5 in ordinary list
 * functions (`list_sort(variant_normalize('x'))`: SIGSEGV, every session of the process gone;
 * `list_resize(coalesce(variant_normalize(null), range), 1)`: an internal error that invalidates the
 * repository's engine), and a string literal converts to VARIANT implicitly where a parameter is
 * one. With no such function and the type refused by name (qualified-types.ts), no statement holds one.
 */
export async function variantFunctions(conn: DuckDBConnection): Promise<string[]> {
  const r = await conn.runAndReadAll(`
    SELECT DISTINCT lower(function_name) FROM duckdb_functions()
    WHERE return_type ILIKE '%VARIANT%' OR list_contains(list_transform(parameter_types, t -> t ILIKE '%VARIANT%'), true)`);
  return r.getRows().map((row) => String(row[0]));
}

/** What admission needs to know about the catalogs a statement may read. */
export interface AdmissionContext {
  /** Built-ins a statement may call (allowedFunctions). */
  functions: ReadonlySet<string>;
  /** The session's version's database. */
  versionDb: string;
  /** Schemas of the version an unqualified name is looked up in, in order (default: main). */
  searchSchemas?: readonly string[];
  /** Databases of versions the statement pinned ("NAME@REF"). */
  pinnedDbs: readonly string[];
  /** The emulated PostgreSQL catalogs' database. */
  compatDb: string;
  /** Whether a database has this table or view (names lower-cased; see relationsOf). */
  hasRelation(db: string, schema: string, table: string): boolean;
  /** Macros of a version's database (lower-cased names). */
  definesFunction(db: string, name: string): boolean;
  /**
   * The text is the gateway's PostgreSQL rewrite, which reads the emulation's internal relations
   * (`_`-prefixed); a client's own text never may (they hold what only the rewrite filters).
   */
  compatInternals?: boolean;
}

/** A relation admitted, resolved to its database, schema and name. */
export interface ResolvedRelation {
  db: string;
  schema: string;
  table: string;
}

/**
 * Test-only: admission switched off, so tests can show what the engine's own line holds without it
 * (test/engine-line.test.ts). The gateway refuses to start with it unless told it runs under test.
 */
export const ADMISSION_OFF_FOR_TESTS = process.env.FDL_TEST_ADMISSION === 'off';

/**
 * The emulation's database is the gateway's own: a client's text never names it, in any spelling or
 * place (its internal relations hold what only the rewrite filters by the session's version).
 */
export function refuseInternalNames(clientText: string): void {
  if (ADMISSION_OFF_FOR_TESTS) return;
  if (/fdl_pg/i.test(clientText))
    throw new SqlError(SQLSTATE.undefinedTable, 'relation or function of "fdl_pg" does not exist');
  // PostgreSQL's Unicode escapes spell any name without its letters; DuckDB has none, but the
  // PostgreSQL rewrite would print them out plainly (`U&"fdl\005fpg"` became fdl_pg).
  if (/U&["']/i.test(clientText))
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'Unicode escapes (U&"…", U&\'…\') are not supported by fdl-gateway',
    );
}

/**
 * Admit a statement or throw the refusal. Returns the relations it reads, resolved (so a remote
 * version can fetch exactly those tables).
 */
export function admit(a: Analysis, ctx: AdmissionContext): ResolvedRelation[] {
  if (ADMISSION_OFF_FOR_TESTS) return [];
  if (a.unknown.length > 0) throw denied(`${a.unknown[0]} is not allowed through fdl-gateway`);
  const versionDbs = [ctx.versionDb, ...ctx.pinnedDbs].map((d) => d.toLowerCase());
  ctx = { ...ctx, versionDb: versionDbs[0]! };
  const compat = ctx.compatDb.toLowerCase();
  for (const f of a.functions) {
    if (functionAllowed(f.catalog, f.schema, f.name, f.window, ctx, versionDbs, compat)) {
      if (
        !ctx.compatInternals &&
        f.catalog === '' &&
        ['', 'main', 'pg_catalog'].includes(f.schema) &&
        EMULATED_FUNCTIONS.has(f.name) &&
        !VALUE_ONLY_EMULATED.has(f.name) &&
        !ctx.definesFunction(ctx.versionDb, f.name)
      )
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `function ${displayName(f)}() is answered as PostgreSQL's only in a statement in PostgreSQL's syntax`,
          undefined,
          "fdl-gateway answers it from the session's catalog when PostgreSQL's grammar reads the statement (SELECT … FROM …, without DuckDB-only syntax such as FROM-first, lambdas or list literals); in DuckDB's syntax the call would be DuckDB's own, about the engine.",
        );
      continue;
    }
    if (f.catalog === '' && ['', 'main', 'pg_catalog'].includes(f.schema) && everyBuiltin && !everyBuiltin.has(f.name))
      throw undefinedFunction(f.name, { schema: f.schema, args: f.args, location: f.location, sql: a.sql });
    const unsupported = f.catalog === '' && ['', 'main', 'pg_catalog'].includes(f.schema) && PG_ANSWERS[f.name];
    if (unsupported)
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `function ${f.name}() is not supported by fdl-gateway`,
        undefined,
        unsupported,
      );
    throw denied(`function ${displayName(f)}() is not allowed through fdl-gateway`);
  }
  for (const f of a.tableFunctions) {
    const own =
      f.catalog === compat ||
      ((versionDbs.includes(f.catalog) || f.catalog === '') &&
        (f.schema === '' || f.schema === 'main') &&
        ctx.definesFunction(f.catalog || ctx.versionDb, f.name));
    if (own || (f.catalog === '' && (f.schema === '' || f.schema === 'main') && ALLOWED_TABLE_FUNCTIONS.has(f.name)))
      continue;
    throw denied(
      `table function ${displayName(f)}() is not allowed through fdl-gateway`,
      'Tables and views of the version are the only data a session can read.',
    );
  }
  return a.relations.map((r) => resolveRelation(r, ctx, versionDbs, compat));
}

function functionAllowed(
  catalog: string,
  schema: string,
  name: string,
  window: boolean,
  ctx: AdmissionContext,
  versionDbs: string[],
  compat: string,
): boolean {
  if (catalog === compat) return true; // the catalog emulation's macros
  if (catalog !== '' && !versionDbs.includes(catalog)) return false;
  // `x.f()`: DuckDB reads x as a schema or a catalog; only main (and pg_catalog for built-ins) is
  // judged here, whatever the version defines (an attacker's review passed `"OTHER@id".f()`).
  if (schema !== '' && schema !== 'main' && schema !== 'pg_catalog') return false;
  // A version's macro resolves before a built-in of the same name (the session reads that version).
  if (ctx.definesFunction(catalog || ctx.versionDb, name)) return true;
  if (catalog !== '') return false;
  return ctx.functions.has(name) || (window && WINDOW_ONLY_FUNCTIONS.has(name));
}

/**
 * DuckDB binds a name to a catalog entry first and tries a replacement scan only when none exists,
 * so a table of the version whose name merely looks like a file (`main."t[1]"`) is that table; a
 * name that resolves to nothing and looks like a path, glob or URL is refused as a file read.
 */
function resolveRelation(
  r: RelationRef,
  ctx: AdmissionContext,
  versionDbs: string[],
  compat: string,
): ResolvedRelation {
  const fileRead = () =>
    denied(
      `reading ${quoteName(r)} directly is not allowed through fdl-gateway`,
      'Tables and views of the version are the only data a session can read.',
    );
  let resolved: ResolvedRelation;
  try {
    resolved = resolveEntry(r, ctx, versionDbs, compat);
  } catch (e) {
    // Unresolved, DuckDB would try a replacement scan over the dotted name: a file read.
    if (
      e instanceof SqlError &&
      (e.sqlstate === SQLSTATE.undefinedTable || e.sqlstate === SQLSTATE.insufficientPrivilege) &&
      [r.catalog, r.schema, r.table].some(looksLikeFile)
    )
      throw fileRead();
    throw e;
  }
  if (resolved.db === compat && resolved.table.startsWith('_') && !ctx.compatInternals) throw undefinedTable(r);
  return resolved;
}

function resolveEntry(r: RelationRef, ctx: AdmissionContext, versionDbs: string[], compat: string): ResolvedRelation {
  const has = (db: string, schema: string, table: string) => ctx.hasRelation(db, schema, table);
  const catalogs = [...versionDbs, compat];
  if (r.catalog !== '') {
    // Another version of the session's repository ("NAME@REF") that is not attached: none such.
    const repo = ctx.versionDb.slice(0, ctx.versionDb.lastIndexOf('@') + 1);
    if (!catalogs.includes(r.catalog) && repo !== '' && r.catalog.startsWith(repo))
      throw new SqlError(SQLSTATE.invalidCatalogName, `database "${r.catalog}" does not exist`);
    // PostgreSQL's words for any other database (namespace.c, RangeVarGetRelidExtended).
    if (!catalogs.includes(r.catalog))
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `cross-database references are not implemented: "${r.written ?? `${r.catalog}.${r.schema}.${r.table}`}"`,
      );
    const schema = r.schema || 'main';
    if (has(r.catalog, schema, r.table)) return { db: r.catalog, schema, table: r.table };
    throw undefinedTable(r);
  }
  if (r.schema !== '') {
    // `x.y`: DuckDB reads x as a schema of the current database, or as a database (schema main).
    if (catalogs.includes(r.schema) && has(r.schema, 'main', r.table))
      return { db: r.schema, schema: 'main', table: r.table };
    if (
      r.schema.includes('@') ||
      r.schema.startsWith('__fdl_') ||
      r.schema === 'system' ||
      r.schema === 'temp' ||
      r.schema === 'memory'
    ) {
      if (!catalogs.includes(r.schema)) throw denied(`permission denied for database "${r.schema}"`, undefined, true);
    }
    if (has(ctx.versionDb, r.schema, r.table)) return { db: ctx.versionDb, schema: r.schema, table: r.table };
    throw undefinedTable(r);
  }
  // An unqualified name resolves along the session's search_path, as DuckDB's search_path does.
  for (const schema of ctx.searchSchemas ?? ['main']) {
    if (has(ctx.versionDb, schema.toLowerCase(), r.table)) return { db: ctx.versionDb, schema, table: r.table };
  }
  throw undefinedTable(r);
}

/** A name DuckDB would read as a file by a replacement scan: a path, glob, URL or file name. */
function looksLikeFile(name: string): boolean {
  return /[/\\*?[\]{}:~]|\.\.|\.[a-z0-9]{1,8}$/i.test(name);
}

function quoteName(r: RelationRef): string {
  return [r.catalog, r.schema, r.table]
    .filter((p) => p !== '')
    .map((p) => `"${p}"`)
    .join('.');
}

function displayName(f: { catalog: string; schema: string; name: string }): string {
  return [f.catalog, f.schema, f.name].filter((p) => p !== '').join('.');
}

function undefinedTable(r: RelationRef): SqlError {
  return new SqlError(
    SQLSTATE.undefinedTable,
    `relation "${[r.catalog, r.schema, r.table].filter((p) => p !== '').join('.')}" does not exist`,
  );
}

function denied(message: string, hint?: string, raw = false): SqlError {
  return new SqlError(SQLSTATE.insufficientPrivilege, raw ? message : `permission denied: ${message}`, undefined, hint);
}

const relationSets = new LRUCache<string, ReadonlySet<string>>({ max: 256 });

/**
 * The tables and views of an attached database as "schema.name" (folded as DuckDB folds names). A version's
 * database never changes once attached under its name, so the answer is kept per name.
 */
export async function relationsOf(conn: DuckDBConnection, db: string): Promise<ReadonlySet<string>> {
  const known = relationSets.get(db);
  if (known) return known;
  const r = await conn.runAndReadAll(
    `SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = $1::VARCHAR
     UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE database_name = $1::VARCHAR AND NOT internal`,
    [db],
  );
  const set = new Set(r.getRows().map((row) => `${foldIdentifier(String(row[0]))}.${foldIdentifier(String(row[1]))}`));
  relationSets.set(db, set);
  return set;
}
