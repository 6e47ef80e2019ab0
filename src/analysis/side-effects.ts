/**
 * The engine's own judgement of a statement, a second line behind admission (containment.ts) that
 * holds without it: before a session's statement is prepared, DuckDB binds it on the same connection
 * (json_serialize_plan, unoptimized: bound, nothing run) and the logical plan must consist of
 * reading operators only, its scans of tables, catalog listings, generators, or Parquet files in the
 * folders the repository's instance may read. A write, COPY TO, ATTACH, SET, CREATE, a pragma, a
 * side-effecting table function (checkpoint, enable_logging) or a file read anywhere else is
 * refused 42501 "refused by the engine". DuckDB's binder names what runs, not a reading of ours.
 *
 * A text too long to bind twice cheaply (> 8 KiB), or one DuckDB cannot bind here or whose plan it
 * cannot serialize, is judged from DuckDB's parse (the analysis): a query or EXPLAIN of one, whose
 * table functions are all on the list without files or the emulation's
 * table macros (its READ_ONLY database, the gateway's own definitions). A binder error is left to the prepare, which
 * reports it as it would.
 *
 * A plan judged a read is remembered for its scope and the text's shape (bind-shape.ts), so a text
 * that differs only in literals the binder does not read is not bound again (boundWhat). A plan that
 * read nothing of the session's version — the catalog emulation's tables, generators, DuckDB's
 * listings — is remembered as well under a scope that names what the version's names reach instead of
 * the version (versions/version-namespace.ts), so the next version of the same names is not bound again
 * for a text its predecessor answered (a client's connect-time catalog texts after a publish).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import type { Analysis } from './analysis.js';
import { inPrepareSlot } from '../engine/engine.js';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ReusedStatement } from '../engine/reused-statement.js';
import { counted } from '../stages.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import { COMPAT_DB, VERSIONS_DB } from '../pg/catalog/names.js';
import { quoteIdent } from '../quote.js';

/** Longest text bound a second time for this check; longer ones are judged from the parse. */
export const PLAN_CHECK_MAX_CHARS = 8 * 1024;

/** Logical operators that only read. */
const READING_OPERATORS = new Set([
  'LOGICAL_PROJECTION',
  'LOGICAL_FILTER',
  'LOGICAL_AGGREGATE_AND_GROUP_BY',
  'LOGICAL_WINDOW',
  'LOGICAL_UNNEST',
  'LOGICAL_LIMIT',
  'LOGICAL_ORDER_BY',
  'LOGICAL_TOP_N',
  'LOGICAL_DISTINCT',
  'LOGICAL_SAMPLE',
  'LOGICAL_PIVOT',
  'LOGICAL_GET',
  'LOGICAL_DELIM_GET',
  'LOGICAL_CHUNK_GET',
  'LOGICAL_EXPRESSION_GET',
  'LOGICAL_DUMMY_SCAN',
  'LOGICAL_EMPTY_RESULT',
  'LOGICAL_CTE_REF',
  'LOGICAL_MATERIALIZED_CTE',
  'LOGICAL_RECURSIVE_CTE',
  'LOGICAL_JOIN',
  'LOGICAL_DELIM_JOIN',
  'LOGICAL_COMPARISON_JOIN',
  'LOGICAL_ANY_JOIN',
  'LOGICAL_CROSS_PRODUCT',
  'LOGICAL_POSITIONAL_JOIN',
  'LOGICAL_ASOF_JOIN',
  'LOGICAL_DEPENDENT_JOIN',
  'LOGICAL_UNION',
  'LOGICAL_EXCEPT',
  'LOGICAL_INTERSECT',
  'LOGICAL_COLUMN_DATA_GET',
]);

/**
 * Table functions (LOGICAL_GET) that read no file and change nothing: generators and DuckDB's catalog
 * listings. Not the instance's own state that names the server's files or other versions' databases:
 * `duckdb_databases` (each attached database's absolute path), `pragma_database_size` (every attached
 * database's name and size), `duckdb_views` (the versions' view SQL, over absolute data paths),
 * `duckdb_settings` — the catalog emulation reads none of them (its one such reading,
 * `duckdb_variables`, is the connection's own variables, which the session sets).
 */
const READING_FUNCTIONS = new Set([
  'seq_scan',
  'range',
  'generate_series',
  'unnest',
  'repeat',
  'repeat_row',
  'duckdb_schemas',
  'duckdb_tables',
  'duckdb_columns',
  'duckdb_functions',
  'duckdb_types',
  'duckdb_constraints',
  'duckdb_indexes',
  'duckdb_sequences',
  'duckdb_keywords',
  'duckdb_variables',
  'duckdb_dependencies',
  'pragma_version',
  'pragma_table_info',
]);

/** Table functions that read files: only where the repository's instance may read (the sealed folders). */
const FILE_FUNCTIONS = new Set(['read_parquet', 'parquet_scan']);

type PlanNode = { type?: string; name?: string; function_data?: unknown; children?: PlanNode[] };

/**
 * Refuse `sql` unless DuckDB binds it to reading operators over what the session may read. `sql` is
 * the text the session will prepare; for EXPLAIN, `analysis.sql` carries the gateway's head and the
 * inner query is what gets bound. Parquet may come only from the folders the instance was sealed to.
 * Returns the most rows the bound plan can give where its operators and the rows of the DuckDB tables it
 * scans say so (planRowBound), else undefined: how its result is fetched, never whether it runs.
 * `shared`: a scope like `scope` that names the version's namespace instead of the version (the caller's
 * checkScope), where a plan that reads nothing of the version is judged alike.
 */
export async function refuseSideEffects(
  conn: DuckDBConnection,
  sql: string,
  analysis: Analysis,
  scope?: string,
  shared?: string,
): Promise<number | undefined> {
  const inner = analysis.kind === 'explain' && sql === analysis.sql ? sql.slice(sql.indexOf('\n') + 1) : sql;
  if (inner.length > PLAN_CHECK_MAX_CHARS) return judgeFromParse(analysis);
  // (the macros that decide an operator's literals are the namespace's: asked once for its versions)
  const what = scope === undefined ? undefined : await boundWhat(conn, shared ?? scope, inner, analysis);
  const key = what === undefined ? undefined : digest(scope!, what);
  const judged = key === undefined ? undefined : readsJudged.get(key);
  if (judged !== undefined) {
    counted('verdict_reuse');
    return Number.isFinite(judged) ? judged : undefined;
  }
  const sharedKey = what === undefined || shared === undefined ? undefined : digest(shared, what);
  const skeleton = sharedKey === undefined ? undefined : readsJudgedShared.get(sharedKey);
  if (skeleton !== undefined) {
    counted('verdict_reuse');
    // the emulation's per-version tables grow as versions attach: their rows are asked again
    const rows = skeleton === false ? undefined : await boundOf(conn, skeleton, analysis.severalGroupingSets);
    readsJudged.set(key!, rows ?? Infinity);
    return rows;
  }
  const plan = await bind(conn, inner);
  if (!plan || plan.error) {
    // Not bindable here (a parameter, an operator without serialization, a binder error): the
    // parse decides, and the prepare reports a real binder error as it would.
    return judgeFromParse(analysis);
  }
  const readDirs = await sealedDirs(conn);
  for (const root of plan.plans ?? []) walk(root, readDirs);
  const rows = plan.plans?.length === 1 ? await boundOf(conn, plan.plans[0]!, analysis.severalGroupingSets) : undefined;
  if (key !== undefined) readsJudged.set(key, rows ?? Infinity);
  if (sharedKey !== undefined && (plan.plans ?? []).every(readsNoVersion))
    readsJudgedShared.set(sharedKey, plan.plans?.length === 1 ? skeletonOf(plan.plans[0]!) : false);
  return rows;
}

/**
 * Whether a plan judged a read scans nothing of a version: only the catalog emulation's tables (its
 * databases are the gateway's, alike for every version: a version's rows are selected by value, `db =
 * current_database()`) and table functions on the list that read no file. A version's table, native copy,
 * data file, inlined rows (its catalog's database), or another database's table: bound again in every scope.
 */
function readsNoVersion(node: PlanNode): boolean {
  if (node.type === 'LOGICAL_GET') {
    const fn = (node.name ?? '').toLowerCase();
    if (fn === 'seq_scan') {
      const catalog = scannedTable(node)?.[0];
      if (catalog !== COMPAT_DB && catalog !== VERSIONS_DB) return false;
    } else if (!READING_FUNCTIONS.has(fn)) return false;
  }
  return (node.children ?? []).every(readsNoVersion);
}

/** What planRowBound reads of a plan, kept with a shared verdict instead of the whole bound plan. */
function skeletonOf(node: PlanNode): PlanNode {
  const n = node as PlanNode & Record<string, unknown>;
  const out: PlanNode & Record<string, unknown> = { type: node.type, name: node.name };
  const table = scannedTable(node);
  if (table) out.function_data = { catalog: table[0], schema: table[1], table: table[2] };
  for (const k of ['groups', 'grouping_sets', 'table_index', 'cte_index'])
    if (n[k] !== undefined) out[k] = typeof n[k] === 'number' ? n[k] : [];
  if (Array.isArray(n.expressions)) out.expressions = new Array<null>(n.expressions.length).fill(null);
  if (node.children) out.children = node.children.map(skeletonOf);
  return out;
}

/** Operators that never give more rows than their one child. */
const NARROWING_OPERATORS = new Set([
  'LOGICAL_PROJECTION',
  'LOGICAL_FILTER',
  'LOGICAL_ORDER_BY',
  'LOGICAL_LIMIT',
  'LOGICAL_TOP_N',
  'LOGICAL_DISTINCT',
  'LOGICAL_SAMPLE',
  'LOGICAL_WINDOW',
]);

/** Joins: at most (left + 1) × (right + 1) rows, whatever their kind (outer joins add unmatched rows of each side). */
const JOINS = new Set([
  'LOGICAL_JOIN',
  'LOGICAL_COMPARISON_JOIN',
  'LOGICAL_ANY_JOIN',
  'LOGICAL_CROSS_PRODUCT',
  'LOGICAL_DEPENDENT_JOIN',
  'LOGICAL_ASOF_JOIN',
  'LOGICAL_POSITIONAL_JOIN',
  'LOGICAL_DELIM_JOIN',
]);

type TableName = readonly [database: string, schema: string, table: string];

/** A DuckDB table a plan scans (seq_scan's bind data names it), or undefined for any other scan. */
function scannedTable(node: PlanNode): TableName | undefined {
  if ((node.name ?? '').toLowerCase() !== 'seq_scan') return undefined;
  const d = node.function_data as { catalog?: unknown; schema?: unknown; table?: unknown } | undefined;
  return typeof d?.catalog === 'string' && typeof d.schema === 'string' && typeof d.table === 'string'
    ? [d.catalog, d.schema, d.table]
    : undefined;
}

/**
 * The most rows the bound plan can give, from its operators and the rows of the DuckDB tables it scans
 * (`tableRows`; undefined: not a DuckDB table, or not asked yet), or undefined where nothing bounds it
 * (a scan of Parquet or a table function, an UNNEST, a recursive CTE, a PIVOT, grouping sets). Each
 * operator's bound is read from its children's: filters, orders, limits, windows, DISTINCT keep at
 * most their child's rows; an aggregate without GROUP BY gives one row, one with a single grouping
 * set at most one per input row (one for `GROUP BY ()` over none); a join at most (left + 1) ×
 * (right + 1); UNION ALL their sum; EXCEPT and INTERSECT their left's. `tables` collects the tables
 * scanned, so the caller asks DuckDB for their rows once and reads the bound again.
 * Texts of one shape bind to the same operators over the same tables (as the verdict), so it is kept
 * with the verdict; a version's tables never change (frozen), so neither do their rows in its scope.
 */
function planRowBound(
  root: PlanNode,
  severalSets: boolean,
  tableRows: (t: TableName) => number | undefined,
  tables: TableName[] = [],
): number | undefined {
  const ctes = new Map<number, number | undefined>();
  const delims: number[] = [];
  const bound = (node: PlanNode): number | undefined => {
    const type = node.type ?? '';
    const children = node.children ?? [];
    const only = () => (children.length === 1 ? bound(children[0]!) : undefined);
    if (NARROWING_OPERATORS.has(type)) return only();
    switch (type) {
      case 'LOGICAL_AGGREGATE_AND_GROUP_BY': {
        const { groups, grouping_sets: sets } = node as { groups?: unknown; grouping_sets?: unknown };
        // No grouping set at all (no GROUP BY): one row. The plan's JSON leaves empty fields out, and writes
        // both `GROUP BY ()` and `GROUPING SETS ((), ())` (two rows) as `[]`, and ROLLUP's empty set not at
        // all: a text whose parse has several grouping sets (analysis.ts; a pattern of the text's words missed
        // `GROUPING/**/SETS` in DuckDB's own syntax — attacker review, session 55) has no bound from its groups.
        if (groups === undefined && sets === undefined) return 1;
        if (severalSets) return undefined;
        const rows = only();
        return rows === undefined ? undefined : Math.max(rows, 1);
      }
      case 'LOGICAL_UNION': {
        let sum = 0;
        for (const c of children) sum += bound(c) ?? Infinity;
        return children.length > 0 && Number.isFinite(sum) ? sum : undefined;
      }
      case 'LOGICAL_EXCEPT':
      case 'LOGICAL_INTERSECT':
        return children.length === 2 ? bound(children[0]!) : undefined;
      case 'LOGICAL_DUMMY_SCAN':
        return 1;
      case 'LOGICAL_EMPTY_RESULT':
        return 0;
      case 'LOGICAL_EXPRESSION_GET': {
        const lists = (node as { expressions?: unknown }).expressions;
        const rows = only();
        return Array.isArray(lists) && rows !== undefined ? lists.length * rows : undefined;
      }
      case 'LOGICAL_GET': {
        const table = scannedTable(node);
        if (!table || children.length > 0) return undefined;
        tables.push(table);
        return tableRows(table);
      }
      case 'LOGICAL_MATERIALIZED_CTE': {
        // [definition, the query that reads it]; its references give at most the definition's rows
        const index = (node as { table_index?: unknown }).table_index;
        if (children.length !== 2 || typeof index !== 'number') return undefined;
        ctes.set(index, bound(children[0]!));
        return bound(children[1]!);
      }
      case 'LOGICAL_CTE_REF': {
        const index = (node as { cte_index?: unknown }).cte_index;
        return typeof index === 'number' ? ctes.get(index) : undefined;
      }
      case 'LOGICAL_DELIM_GET':
        // the distinct correlated values of an enclosing DELIM_JOIN's left side: at most its rows
        return delims.length > 0 ? Math.max(...delims) : undefined;
    }
    if (JOINS.has(type) && children.length === 2) {
      const left = bound(children[0]!);
      if (type === 'LOGICAL_DELIM_JOIN') delims.push(left ?? Infinity);
      const right = bound(children[1]!);
      if (type === 'LOGICAL_DELIM_JOIN') delims.pop();
      return left === undefined || right === undefined ? undefined : (left + 1) * (right + 1);
    }
    return undefined;
  };
  const rows = bound(root);
  return rows !== undefined && Number.isFinite(rows) ? rows : undefined;
}

/**
 * The rows of each DuckDB table named, as its storage holds them (duckdb_tables().estimated_size: the
 * rows of its row groups, deleted ones included — exact for a version's native copies, written once).
 */
const tableRowsOf = new ReusedStatement(
  'SELECT to_json(list([database_name, schema_name, table_name, estimated_size::VARCHAR])) FROM duckdb_tables() ' +
    'WHERE list_contains(from_json($1::VARCHAR, \'["VARCHAR[]"]\'), [database_name, schema_name, table_name])',
);

/**
 * The rows of the catalog emulation's tables named, counted: duckdb_tables() lists every table of every attached
 * database to answer for a few (10–40 ms CPU in a gateway's instance, most of a catalog text's row bound), while
 * the emulation's tables are small (a count of each reads its rows' validity only, about 1 ms for them all).
 */
async function emulationRows(conn: DuckDBConnection, tables: readonly TableName[]): Promise<(number | null)[]> {
  const counts = tables.map((t) => `(SELECT count(*) FROM ${t.map(quoteIdent).join('.')})::VARCHAR`);
  const r = await conn.runAndReadAll(`SELECT [${counts.join(', ')}]`);
  const list = r.getRowsJson()[0]?.[0];
  return Array.isArray(list) ? list.map((n) => (typeof n === 'string' ? Number(n) : null)) : tables.map(() => null);
}

/** The plan's row bound (planRowBound), its tables' rows asked of DuckDB in one call each kind where they decide it. */
async function boundOf(conn: DuckDBConnection, root: PlanNode, severalSets: boolean): Promise<number | undefined> {
  const tables: TableName[] = [];
  // first with every table's rows taken as none: a plan that no table's rows can bound asks nothing
  const shape = planRowBound(root, severalSets, () => 0, tables);
  if (shape === undefined || tables.length === 0) return shape;
  const rows = new Map<string, number>();
  const emulation = tables.filter(([db]) => db === COMPAT_DB || db === VERSIONS_DB);
  const others = tables.filter(([db]) => db !== COMPAT_DB && db !== VERSIONS_DB);
  if (emulation.length > 0)
    (await emulationRows(conn, emulation)).forEach((n, i) => n !== null && rows.set(JSON.stringify(emulation[i]), n));
  if (others.length > 0) {
    const [json] = await tableRowsOf.firstRow(conn, [JSON.stringify(others)]);
    for (const [db, schema, table, n] of (typeof json === 'string' ? JSON.parse(json) : []) as (string | null)[][])
      if (typeof n === 'string') rows.set(JSON.stringify([db, schema, table]), Number(n));
  }
  return planRowBound(root, severalSets, (t) => rows.get(JSON.stringify(t)));
}

/**
 * Verdicts of plans judged a read, by the scope they were bound in (checkScope, session/planner.ts:
 * the repository's instance, a frozen version's database, the search path, the configuration's
 * generation) and what was bound: the text's shape when the bound text is the one DuckDB's parse
 * analysed (analysis/bind-shape.ts: its plain literals taken out, everything the binder reads to
 * decide what runs kept), else the exact text. DuckDB binds texts of one shape in the same catalog
 * and settings to plans of the same operators, table functions and files, so a dashboard's new
 * literals, or a session repeating another's catalog queries, are not bound again; a shape only
 * ever bound elsewhere, or refused, is bound (a shared verdict, readsJudgedShared, aside).
 */
// Keyed by a parse tree's shape (many times its text): bounded by bytes as well as entries. The value
// is the plan's row bound (planRowBound; Infinity: none).
const readsJudged = new LRUCache<string, number>({
  max: 4096,
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (_v, key) => 2 * key.length + 64,
});
trimWhenIdle(lruTrim(readsJudged));

/**
 * Shared verdicts (refuseSideEffects' `shared` scope): plans that read nothing of the version, by the namespace's
 * scope and what was bound; the value is what planRowBound reads of the plan (skeletonOf), false where there is none.
 */
const readsJudgedShared = new LRUCache<string, PlanNode | false>({
  max: 4096,
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (v, key) => 2 * key.length + 64 + (v === false ? 0 : 2 * JSON.stringify(v).length),
});
trimWhenIdle(lruTrim(readsJudgedShared));

/** A verdict's key: a digest, since shapes are the parse tree's size, and 4096 of them are kept. */
function digest(scope: string, what: string): string {
  return createHash('sha256').update(scope).update('\u0000').update(what).digest('base64');
}

/** What is bound, for a verdict's key: the text's shape where DuckDB's parse of it is the analysis', else the text. */
async function boundWhat(
  conn: DuckDBConnection,
  scope: string,
  inner: string,
  analysis: Analysis,
): Promise<string | undefined> {
  // a variable's value binds into the plan (a table function's file may be one) but is not in the text
  if (analysis.functions.some((f) => f.name === 'getvariable')) return undefined;
  const parsed =
    analysis.kind === 'explain' ? inner === analysis.sql.slice(analysis.sql.indexOf('\n') + 1) : inner === analysis.sql;
  const { shape, operators, operatorValues } = analysis.bindShape;
  let what = `text\u0000${inner}`;
  if (parsed && shape !== undefined) {
    // an operator's literal arguments are out of the shape only where no macro of its name is found
    const macros = operators.length > 0 ? await macrosOf(conn, scope) : undefined;
    const plain = !macros || operators.every((o) => !macros.has(o));
    what = `shape\u0000${shape}${plain ? '' : `\u0000${operatorValues}`}`;
  }
  return what;
}

const macrosByScope = new LRUCache<string, Promise<ReadonlySet<string>>>({ max: 256 });

/**
 * The names of every macro the connection sees (lower-cased), asked once per scope: a scope's version
 * database, search path and the session connections' guards do not change, and a database attached
 * later is on no path of this scope's unqualified names (an operator is never qualified). A namespace's
 * scope (refuseSideEffects' `shared`) holds for its versions alike: their macros are in the namespace.
 */
function macrosOf(conn: DuckDBConnection, scope: string): Promise<ReadonlySet<string>> {
  let macros = macrosByScope.get(scope);
  if (!macros) {
    macros = conn
      .runAndReadAll(
        "SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro')",
      )
      .then((r) => new Set(r.getRows().map((row) => String(row[0]))));
    macros.catch(() => macrosByScope.delete(scope));
    macrosByScope.set(scope, macros);
  }
  return macros;
}

/**
 * The bind, prepared once per connection with the text as its value: DuckDB parses and binds the text
 * when the statement runs, on this connection (its database, search_path and settings), as it would
 * inline, without parsing and planning the wrapper anew for each text.
 */
const planOf = new ReusedStatement(
  'SELECT json_serialize_plan($1::VARCHAR, skip_null := true, skip_empty := true, optimize := false)',
);

type BoundPlan = { error: boolean; error_type?: string; error_message?: string; plans?: PlanNode[] };

/**
 * DuckDB's bound plan of `sql`, or null when it gives none: NULL, an error raised rather than
 * returned, or JSON that does not come back whole (a scan of encrypted Parquet carries its key's
 * bytes, and the text ends at the first NUL).
 */
async function bind(conn: DuckDBConnection, sql: string): Promise<BoundPlan | null> {
  counted('bind_check');
  try {
    // Binding is as slow as a prepare (and as uninterruptible): it takes a prepare slot like one.
    const [json] = await planOf.firstRow(conn, [sql], (run) => inPrepareSlot(sql, run, conn));
    return typeof json === 'string' ? (JSON.parse(json) as BoundPlan) : null;
  } catch {
    return null;
  }
}

const dirsByConnection = new WeakMap<DuckDBConnection, Promise<string[]>>();

/** The folders the connection's instance was sealed to (engine.ts › sealEngine), asked once per connection. */
function sealedDirs(conn: DuckDBConnection): Promise<string[]> {
  let dirs = dirsByConnection.get(conn);
  if (!dirs) {
    dirs = conn
      .runAndReadAll("SELECT unnest(current_setting('allowed_directories'))")
      .then((r) => r.getRows().map((row) => String(row[0])));
    dirsByConnection.set(conn, dirs);
  }
  return dirs;
}

function walk(node: PlanNode, readDirs: readonly string[]): void {
  const type = node.type ?? '';
  if (!READING_OPERATORS.has(type)) throw refused(`${type.replace(/^LOGICAL_/, '').toLowerCase()}`);
  if (type === 'LOGICAL_GET') {
    const fn = (node.name ?? '').toLowerCase();
    if (FILE_FUNCTIONS.has(fn)) {
      for (const path of filePaths(node))
        if (!readDirs.some((d) => within(path, d))) throw refused(`${fn} outside the repository`);
    } else if (!READING_FUNCTIONS.has(fn)) throw refused(`table function ${fn}`);
  }
  for (const child of node.children ?? []) walk(child, readDirs);
}

/** The files a Parquet scan reads, as DuckDB expanded them at bind (globs resolved); none known is refused. */
function filePaths(node: PlanNode): string[] {
  const files = (node.function_data as { files?: unknown } | undefined)?.files;
  if (!Array.isArray(files) || files.length === 0) return ['?'];
  return files.map((f) => (typeof f === 'string' ? f : '?'));
}

function within(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : dir + '/';
  return path.startsWith(d) && !path.slice(d.length).split('/').includes('..');
}

function judgeFromParse(analysis: Analysis): undefined {
  for (const f of analysis.tableFunctions) {
    // The emulation's table macros (pg_get_keywords …) live in its READ_ONLY database, made by the gateway: reads.
    if (f.catalog === COMPAT_DB) continue;
    if (!READING_FUNCTIONS.has(f.name.toLowerCase())) throw refused(`table function ${f.name.toLowerCase()}`);
  }
}

function refused(what: string): SqlError {
  return new SqlError(SQLSTATE.insufficientPrivilege, `refused by the engine: ${what} is not a read of this version`);
}
