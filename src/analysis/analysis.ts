/**
 * One analysis per statement text. DuckDB parses the statement once (json_serialize_sql: parse only,
 * nothing bound, nothing run) and one walk of that tree yields everything the gateway decides from it:
 * the statement's kind, every function call (scalar, aggregate, window, macro), every table function,
 * every relation it names (CTE references removed, by scope), what makes a result unrepeatable, and
 * from the top-level select list the result columns' PostgreSQL names (column-names.ts) and the
 * table columns they come from (column-sources.ts). Admission (containment.ts), fetching a remote
 * version's tables, the result cache (determinism.ts) and RowDescription all read this one value;
 * PostgreSQL's own grammar runs only for the rewrite (rewrite.ts). It depends only on the text, so it
 * is memoized by text.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { analyzeOffThread, OFF_THREAD_CHARS } from '../engine/text-pool.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { parsePg } from '../pg/pg-parse.js';
import { stripLeadingComments } from '../text/split.js';
import { composeExplain, readExplain, type ExplainHead } from '../text/explain.js';
import { foldIdentifier } from '../text/identifier.js';
import { lineQuote } from '../text/line-quote.js';
import { literalPgType } from '../engine/pg-error-words.js';
import { checkGuardNesting, checkSizeLimits } from './size-limits.js';
import { checkLambdaWork } from './lambda-work.js';
import { checkWindowWork } from './window-work.js';
import { checkCteExpansion } from './cte-expansion.js';
import { checkJoinGraph } from './join-graph.js';
import { checkExpressionWork } from './expression-work.js';
import { checkArgumentBounds } from './argument-bounds.js';
import { refuseUnofferedForms } from './unoffered-forms.js';
import { refuseQualifiedTypes } from './qualified-types.js';
import { refuseDuplicateFromNames } from './from-aliases.js';
import { figureColumnNames, StatementText, type FiguredName } from '../pg/column-names.js';
import { sourceShape, type SourceShape } from './column-sources.js';
import { figureKeptTypmods, type KeptTypmod } from '../pg/result-typmods.js';
import { counted, spent, stageClock, timed } from '../stages.js';
import { ReusedStatement } from '../engine/reused-statement.js';
import { bindShape, type BindShape } from './bind-shape.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';

export interface RelationRef {
  catalog: string;
  schema: string;
  table: string;
  /** Where its (qualified) name starts in the analysed text: DuckDB's query_location. */
  location?: number;
  /** Its name as written (case kept), dotted: what PostgreSQL's messages quote. */
  written?: string;
}

export interface FunctionRef {
  catalog: string;
  schema: string;
  name: string;
  /** Called as a window function (OVER …). */
  window: boolean;
  /**
   * A plain call's arguments as PostgreSQL types them, where the parse alone says it (literals and casts:
   * pg-error-words.ts literalPgType); undefined when any argument's type is known only at bind. Read for a
   * call of a function that does not exist (function-hints.ts).
   */
  args?: readonly string[];
  /** Where the call starts in the analysed text (0-based), when DuckDB's parse says. */
  location?: number;
}

export interface Analysis {
  /** A query (SELECT, set operation, VALUES, TABLE, FROM-first, DESCRIBE/SUMMARIZE) or EXPLAIN of one. */
  readonly kind: 'query' | 'explain';
  /**
   * The text DuckDB runs, exactly what DuckDB's parse admitted: the client's text itself, or for
   * EXPLAIN the gateway's own head over the client's inner query (explain.ts).
   */
  readonly sql: string;
  /** EXPLAIN: the head the client asked for (its plan is rendered for it from DuckDB's JSON). */
  readonly explain?: ExplainHead;
  readonly functions: readonly FunctionRef[];
  readonly tableFunctions: readonly FunctionRef[];
  /** Relations named (lower-cased), CTE references in scope removed. */
  readonly relations: readonly RelationRef[];
  /** Parse-tree shapes admission does not know (a FROM item type, time travel): refused. */
  readonly unknown: readonly string[];
  /** USING SAMPLE / TABLESAMPLE, or a SQL value keyword reading the clock or session. */
  readonly volatile: boolean;
  /** Whether a GROUP BY of the text has several grouping sets (GROUPING SETS, ROLLUP, CUBE), by DuckDB's parse. */
  readonly severalGroupingSets: boolean;
  /** Queries: PostgreSQL's name per select-list item (column-names.ts); undefined for EXPLAIN. */
  readonly columnNames?: readonly FiguredName[];
  /** Queries: which top-level select items keep a numeric's declared typmod (pg/result-typmods.ts). */
  readonly keptTypmods?: readonly KeptTypmod[];
  /** Queries: what the select list reads from plain tables (column-sources.ts); undefined when nothing certain. */
  readonly sources?: SourceShape;
  /**
   * What the text binds to, less its plain literals (bind-shape.ts): texts of one shape get one
   * engine-line verdict (side-effects.ts). EXPLAIN's head is not in it (the inner query is bound).
   */
  readonly bindShape: BindShape;
  /**
   * Queries: the most rows the result can have, read from the query's own top-level LIMIT when it is
   * an integer constant; undefined when nothing bounds it here. How the result is fetched, never
   * whether it runs (wire/result-stream.ts).
   */
  readonly rowBound?: number;
}

/** The FROM-item types a query may use; any other is refused rather than guessed about. */
const KNOWN_FROM = new Set([
  'BASE_TABLE',
  'JOIN',
  'SUBQUERY',
  'TABLE_FUNCTION',
  'EXPRESSION_LIST',
  'EMPTY',
  'SHOW_REF',
  'PIVOT',
]);

/** SQL value keywords DuckDB parses as column references and binds to session or clock values. */
const SESSION_KEYWORDS = new Set([
  'current_date',
  'current_time',
  'current_timestamp',
  'localtime',
  'localtimestamp',
  'current_user',
  'session_user',
  'user',
  'current_role',
  'current_catalog',
  'current_schema',
  'current_query',
  'transaction_timestamp',
  'statement_timestamp',
]);

// Bounded by bytes too: a parsed 63 KB text holds ~4.7 MB of objects, and texts admission then
// refuses are kept as well (an attacker review filled the heap with distinct ones). The size is an
// estimate from the text's length, measured at ~75 bytes of heap per character.
const memo = new LRUCache<string, Analysis | SqlError>({
  max: 4000,
  maxSize: 96 * 1024 * 1024,
  sizeCalculation: (_v, sql) => 96 * sql.length + 1024,
});
trimWhenIdle(lruTrim(memo));
/** Huge generated statements are analysed every time rather than crowding out the common ones. */
const MEMO_MAX_CHARS = 64 * 1024;
// Longer texts than OFF_THREAD_CHARS are analysed on a worker thread (text-pool.ts).

/**
 * The analysis of one statement (no trailing semicolon). Throws SqlError: 42601 when DuckDB cannot
 * parse it, 25006/42501 when it is not a query at all (those never reach DuckDB). A long text's work
 * takes a turn of `owner` (the session's user) on the text worker (text-pool.ts).
 */
export async function analyze(conn: DuckDBConnection, sql: string, owner = ''): Promise<Analysis> {
  const known = memo.get(sql);
  if (known) {
    if (known instanceof SqlError) throw known;
    return known;
  }
  counted('analysis');
  const uncached = timed('analysis', () =>
    sql.length > OFF_THREAD_CHARS ? analyzeOffThread(sql, owner) : analyzeText((text) => serializeOn(conn, text), sql),
  );
  return remembered(sql, uncached);
}

/**
 * SQLSTATE classes that are a judgement of the text itself, the same for every session: syntax and
 * access (42), not supported (0A), too complex (54), data (22). Anything else — a stop (57014), a
 * client gone (08006), memory (53200) — belongs to the session it happened in: kept, it would answer
 * every later session's same text with another's stop (an attacker review poisoned `SELECT 1`).
 */
const TEXT_JUDGEMENTS = new Set(['42', '0A', '54', '22']);

/** `analysis` memoized under `sql`, and its SqlError where that is the text's own (TEXT_JUDGEMENTS). */
async function remembered(sql: string, analysis: Promise<Analysis>): Promise<Analysis> {
  const result = await analysis.catch((e: unknown) => {
    if (e instanceof SqlError) return e;
    throw e;
  });
  const textOwn = !(result instanceof SqlError) || TEXT_JUDGEMENTS.has(result.sqlstate.slice(0, 2));
  if (textOwn && sql.length <= MEMO_MAX_CHARS) memo.set(sql, result);
  if (result instanceof SqlError) throw result;
  return result;
}

/** What a rewritten statement takes from the client's own text: PostgreSQL's names of its result columns. */
export interface ClientNames {
  readonly columnNames?: readonly FiguredName[];
  readonly keptTypmods?: readonly KeptTypmod[];
}

/**
 * The client's texts' names, by text: a rewritten statement planned again (another session, a new
 * signature) parses its client's text no more than its own (the analysis memo). Small values.
 */
const namesMemo = new LRUCache<string, ClientNames>({
  max: 4000,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (_v, sql) => 2 * sql.length + 256,
});

/**
 * A rewritten statement: the analysis of `sql` (what DuckDB runs), and of the client's own text
 * `namesFrom` only PostgreSQL's column names, or undefined where DuckDB cannot parse it. Both texts
 * are parsed in one DuckDB call (one analysis). The client's text is not what runs: nothing else of
 * its parse is judged or kept (its admission, shape and checks are the rewritten text's).
 */
export async function analyzeRewritten(
  conn: DuckDBConnection,
  sql: string,
  namesFrom: string,
  owner = '',
): Promise<{ analysis: Analysis; named: ClientNames | undefined }> {
  const knownNames = namesMemo.get(namesFrom);
  if (memo.has(sql) || knownNames || sql.length > OFF_THREAD_CHARS || namesFrom.length > OFF_THREAD_CHARS) {
    const analysis = await analyze(conn, sql, owner);
    if (knownNames) return { analysis, named: knownNames };
    const own = memo.get(namesFrom);
    if (own !== undefined) return { analysis, named: own instanceof SqlError ? undefined : own };
    return { analysis, named: await analyze(conn, namesFrom, owner).catch(() => undefined) };
  }
  counted('analysis');
  const [tree, own] = await timed('analysis', async () => {
    const inner = (text: string) => readExplain(text)?.inner ?? text;
    const row = await parseTwo.firstRow(conn, [inner(sql), inner(namesFrom)]);
    return [String(row[0] ?? '{"error":true}'), String(row[1] ?? '{"error":true}')];
  });
  // the rewritten text first: its checks (nesting included) run before the client's tree is read
  const analysis = await remembered(
    sql,
    analyzeText(async () => tree, sql),
  );
  const naming = stageClock();
  const named = clientNames(own, namesFrom);
  spent('analysis', naming);
  return { analysis, named };
}

/** PostgreSQL's column names of the client's text from DuckDB's parse of it (JSON), memoized; undefined where it has none. */
function clientNames(json: string, sql: string): ClientNames | undefined {
  let names: ClientNames | undefined;
  try {
    const explain = readExplain(sql);
    const tree = JSON.parse(json) as Serialized;
    if (!tree.error && tree.statements?.length === 1) {
      const node = (tree.statements[0] as Node).node as Node | undefined;
      names = explain
        ? {}
        : { columnNames: figureColumnNames(node, new StatementText(sql)), keptTypmods: figureKeptTypmods(node) };
    }
  } catch {
    names = undefined; // a tree the names cannot be read from: DuckDB's own names stand
  }
  if (names && sql.length <= MEMO_MAX_CHARS) namesMemo.set(sql, names);
  return names;
}

/** DuckDB's parse tree of `sql` as JSON text (json_serialize_sql: parse only, nothing bound or run). */
export type Serializer = (sql: string) => Promise<string>;

/** PostgreSQL's words for a row lock, by the strength its grammar reads. */
const LOCK_STRENGTHS: Readonly<Record<string, string>> = {
  LCS_FORUPDATE: 'UPDATE',
  LCS_FORNOKEYUPDATE: 'NO KEY UPDATE',
  LCS_FORSHARE: 'SHARE',
  LCS_FORKEYSHARE: 'KEY SHARE',
};

/** SELECT … FOR UPDATE/SHARE: PostgreSQL's answer in a read-only transaction, as every session here is. */
function lockingRefused(sql: string): SqlError {
  const select = parsePg(sql)?.stmts?.[0]?.stmt?.['SelectStmt'] as Record<string, any> | undefined;
  const strength = select?.['lockingClause']?.[0]?.['LockingClause']?.['strength'] as string | undefined;
  return new SqlError(
    SQLSTATE.readOnlyTransaction,
    `cannot execute SELECT FOR ${LOCK_STRENGTHS[strength ?? ''] ?? 'UPDATE'} in a read-only transaction`,
  );
}

/** The analysis of one text, uncached, with DuckDB's parse from `serialize` (here or on the worker). */
export async function analyzeText(serialize: Serializer, sql: string): Promise<Analysis> {
  const explain = readExplain(sql);
  // DuckDB parses exactly the bytes it will run; only an EXPLAIN's head is the gateway's own.
  const inner = explain ? explain.inner : sql;
  const tree = JSON.parse(await serialize(inner)) as Serialized;
  if (tree.error) {
    if (/Only SELECT statements/i.test(tree.error_message ?? '')) throw notAQuery(inner);
    // SELECT … FOR UPDATE/SHARE: PostgreSQL's answer in a read-only transaction, as every session here is
    if (/^SELECT locking clause is not supported/i.test(tree.error_message ?? '')) throw lockingRefused(inner);
    throw new SqlError(
      SQLSTATE.syntaxError,
      tree.error_message ?? 'syntax error',
      undefined,
      tree.position === undefined ? undefined : lineQuote(inner, Number(tree.position)),
    );
  }
  if (tree.statements?.length !== 1) throw new SqlError(SQLSTATE.syntaxError, 'expected exactly one statement');
  // Huge values from constant counts are refused before DuckDB would fold them at prepare (size-limits.ts).
  checkSizeLimits(tree);
  checkGuardNesting(tree);
  // A deep chain of operators costs DuckDB's binder the cube of its depth, uninterruptibly (expression-work.ts).
  checkExpressionWork(tree);
  // Lambdas run once per element: nested ones over lists built in the statement multiply (lambda-work.ts).
  checkLambdaWork(tree);
  // A window aggregate building a value builds its frame's value for every row, uninterruptibly (window-work.ts).
  checkWindowWork(tree);
  // Arguments DuckDB trusts that would crash it or invalidate its instance (argument-bounds.ts).
  checkArgumentBounds(tree);
  // A CTE inlined at every reference multiplies the plan DuckDB binds, uninterruptibly (cte-expansion.ts).
  checkCteExpansion(tree, inner);
  // Many relations joined by many predicates cost DuckDB's optimizer far more than their text (join-graph.ts).
  checkJoinGraph(tree);
  refuseUnofferedForms(tree);
  // A qualified type name would probe other attached databases (qualified-types.ts).
  refuseQualifiedTypes(tree);
  // Two FROM items named alike: PostgreSQL's 42712, where DuckDB answers (from-aliases.ts).
  refuseDuplicateFromNames(tree, inner);
  const statement = tree.statements[0] as Node;
  const shape = bindShape(statement);
  if (explain)
    return {
      kind: 'explain',
      sql: composeExplain(explain.head, inner),
      explain: explain.head,
      ...walk(statement),
      bindShape: shape,
    };
  const node = statement.node as Node | undefined;
  return {
    kind: 'query',
    sql,
    ...walk(statement),
    bindShape: shape,
    columnNames: figureColumnNames(node, new StatementText(inner)),
    keptTypmods: figureKeptTypmods(node),
    sources: sourceShape(node),
    ...rowBoundOf(node),
  };
}

/** DuckDB's integer types a LIMIT constant may have. */
const INTEGER_TYPES = new Set([
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
]);

/** The smallest integer constant of the query node's own LIMIT modifiers (not LIMIT n%, not an expression). */
function rowBoundOf(node: Node | undefined): { rowBound?: number } {
  let bound: number | undefined;
  const modifiers = node?.modifiers;
  for (const m of Array.isArray(modifiers) ? (modifiers as Node[]) : []) {
    if (m?.type !== 'LIMIT_MODIFIER') continue;
    const limit = m.limit as Node | null | undefined;
    const value = limit?.value as { type?: { id?: unknown }; is_null?: unknown; value?: unknown } | undefined;
    if (limit?.class !== 'CONSTANT' || !value || value.is_null !== false) continue;
    if (!INTEGER_TYPES.has(String(value.type?.id)) || typeof value.value !== 'number') continue;
    if (!Number.isSafeInteger(value.value) || value.value < 0) continue;
    bound = Math.min(bound ?? Infinity, value.value);
  }
  return bound === undefined ? {} : { rowBound: bound };
}

interface Serialized {
  error?: boolean;
  error_message?: string;
  /** A parser error's place: an offset in characters (code points) into the text. */
  position?: string;
  statements?: unknown[];
}

/** DuckDB's parse of one text, and of two in one call: each prepared once per connection. */
const parseOne = new ReusedStatement('SELECT json_serialize_sql($1::VARCHAR)');
const parseTwo = new ReusedStatement('SELECT json_serialize_sql($1::VARCHAR), json_serialize_sql($2::VARCHAR)');

export async function serializeOn(conn: DuckDBConnection, sql: string): Promise<string> {
  return String((await parseOne.firstRow(conn, [sql]))[0] ?? '{"error":true}');
}

/** A statement DuckDB parses but that is not a query: writes are 25006, anything else (COPY to a file too) 42501. */
function notAQuery(sql: string): SqlError {
  sql = stripLeadingComments(sql);
  const first = (/^[A-Za-z_]+/.exec(sql)?.[0] ?? '').toUpperCase();
  const writes =
    /^(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|COMMENT|VACUUM|ANALY[SZ]E|UPSERT|REPLACE|WITH)$/;
  if (writes.test(first))
    return new SqlError(SQLSTATE.readOnlyTransaction, `cannot execute ${first} in a read-only transaction`);
  return new SqlError(
    SQLSTATE.insufficientPrivilege,
    `permission denied: ${first || 'this'} statements are not allowed by fdl-gateway`,
  );
}

type Node = Record<string, unknown>;

/** One walk over the tree: functions, table functions, relations (CTE scopes honoured), volatility. */
function walk(root: unknown): Omit<Analysis, 'kind' | 'sql' | 'bindShape'> {
  const functions: FunctionRef[] = [];
  const tableFunctions: FunctionRef[] = [];
  const relations: RelationRef[] = [];
  const unknown: string[] = [];
  let volatile = false;
  let severalGroupingSets = false;
  // An explicit stack (no recursion): a deeply nested statement cannot exhaust the call stack. Each
  // node's CTE scope is on a stack of its own beside it (no pair allocated per node of the tree).
  const nodes: unknown[] = [root];
  const scopes: ReadonlySet<string>[] = [new Set()];
  const push = (node: unknown, ctes: ReadonlySet<string>) => {
    nodes.push(node);
    scopes.push(ctes);
  };
  while (nodes.length > 0) {
    const node = nodes.pop();
    const outer = scopes.pop()!;
    if (Array.isArray(node)) {
      for (const n of node) if (n && typeof n === 'object') push(n, outer);
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    const o = node as Node;
    let ctes = outer;
    // Scopes as DuckDB's binder has them: a CTE's body sees the CTEs before it, never itself or later
    // ones (a name there is a table); the rest of the query sees them all.
    const cteMap = (o.cte_map as { map?: { key?: unknown; value?: unknown }[] } | undefined)?.map;
    if (Array.isArray(cteMap) && cteMap.length > 0) {
      const seen = new Set(outer);
      for (const entry of cteMap) {
        push(entry.value, new Set(seen));
        seen.add(lower(entry.key));
      }
      ctes = seen;
    }
    // A recursive CTE's own name is in scope in its recursive term only.
    if (o.type === 'RECURSIVE_CTE_NODE' && typeof o.cte_name === 'string') {
      push(o.right, new Set([...ctes, lower(o.cte_name)]));
    }
    if (o.sample) volatile = true;
    // DuckDB's parse expands GROUPING SETS, ROLLUP and CUBE into the node's sets (`GROUPING SETS ((), ())` is two)
    if (Array.isArray(o.group_sets) && o.group_sets.length > 1) severalGroupingSets = true;
    if (
      typeof o.type === 'string' &&
      'query_location' in o &&
      'sample' in o &&
      !('class' in o) &&
      !KNOWN_FROM.has(o.type)
    )
      unknown.push(o.type);
    if (o.at_clause) unknown.push('time travel (AT …)');
    switch (o.type) {
      case 'BASE_TABLE': {
        const at = typeof o.query_location === 'number' && o.query_location >= 0 ? o.query_location : undefined;
        const written = [o.catalog_name, o.schema_name, o.table_name]
          .filter((p) => typeof p === 'string' && p !== '')
          .join('.');
        const r: RelationRef = {
          catalog: lower(o.catalog_name),
          schema: lower(o.schema_name),
          table: lower(o.table_name),
          location: at,
          written,
        };
        if (!(r.catalog === '' && r.schema === '' && ctes.has(r.table))) relations.push(r);
        break;
      }
      case 'SHOW_REF':
        // `SHOW TABLES FROM x` lists a whole catalog or schema (any attached one): not a relation
        // admission can judge, so refused (an attacker's review listed other versions' metadata).
        if (o.show_type === 'SHOW_FROM' || (o.table_name === '' && !o.query)) unknown.push('SHOW … FROM');
        if (typeof o.table_name === 'string' && o.table_name !== '') {
          relations.push({ catalog: lower(o.catalog_name), schema: lower(o.schema_name), table: lower(o.table_name) });
        }
        break;
      case 'TABLE_FUNCTION': {
        const fn = o.function as Node | undefined;
        tableFunctions.push({
          catalog: lower(fn?.catalog),
          schema: lower(fn?.schema),
          name: lower(fn?.function_name),
          window: false,
        });
        // Its arguments are walked as ordinary expressions (below), not as a second table function.
        if (fn) push(fn.children, ctes);
        for (const k in o) {
          const v = o[k];
          if (k !== 'function' && v && typeof v === 'object') push(v, ctes);
        }
        continue;
      }
      case 'COLUMN_REF': {
        const names = o.column_names as unknown[];
        if (names?.length === 1 && SESSION_KEYWORDS.has(lower(names[0]))) volatile = true;
        break;
      }
    }
    if ((o.class === 'FUNCTION' || o.class === 'WINDOW') && typeof o.function_name === 'string') {
      const args = o.class === 'FUNCTION' && Array.isArray(o.children) ? o.children.map(literalPgType) : [];
      const at = o.query_location;
      functions.push({
        catalog: lower(o.catalog),
        schema: lower(o.schema),
        name: lower(o.function_name),
        window: o.class === 'WINDOW',
        ...(args.every((t) => t !== undefined) && o.class === 'FUNCTION' ? { args: args as string[] } : {}),
        ...(typeof at === 'number' && Number.isSafeInteger(at) ? { location: at } : {}),
      });
      // list_aggr(list, 'name', …) calls the aggregate its string names: judged as a call of that aggregate
      if (o.class === 'FUNCTION' && LIST_AGGREGATES.has(lower(o.function_name)) && o.catalog === '') {
        const named = namedAggregate((o.children as unknown[] | undefined)?.[1]);
        if (named === undefined)
          unknown.push(`${lower(o.function_name)}() with an aggregate name that is not a string constant`);
        else functions.push({ catalog: '', schema: '', name: foldIdentifier(named), window: false });
      }
    }
    for (const k in o) {
      if (k === 'cte_map' || (k === 'right' && o.type === 'RECURSIVE_CTE_NODE')) continue; // walked above, in their own scopes
      const v = o[k];
      if (v && typeof v === 'object') push(v, ctes);
    }
  }
  return { functions, tableFunctions, relations, unknown, volatile, severalGroupingSets };
}

const lower = (v: unknown) => (typeof v === 'string' ? foldIdentifier(v) : '');

/** DuckDB's list aggregates: the aggregate they run is named by their second argument, a string. */
const LIST_AGGREGATES = new Set(['list_aggr', 'array_aggr', 'list_aggregate', 'array_aggregate', 'aggregate']);

/** The aggregate a list aggregate's second argument names, when it is a string constant (also cast). */
function namedAggregate(n: unknown): string | undefined {
  let node = n as Record<string, unknown> | undefined;
  while (node?.class === 'CAST') node = node.child as Record<string, unknown> | undefined;
  const value = node?.class === 'CONSTANT' ? (node.value as { value?: unknown } | undefined)?.value : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** What the memo holds now: entries and their estimated bytes (tests, status). */
export function analysesHeld(): { entries: number; bytes: number } {
  return { entries: memo.size, bytes: memo.calculatedSize };
}

/** For tests and benches: forget every memoized analysis. */
export function forgetAnalyses(): void {
  memo.clear();
  namesMemo.clear();
}
