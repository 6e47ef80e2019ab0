/**
 * PostgreSQL catalog statements → DuckDB: parse with the real PostgreSQL grammar (pgsql-parser, WASM),
 * point pg_catalog / information_schema objects at the compat database (compat/install.ts), translate
 * PostgreSQL-only syntax (reg* casts, `~` search operators, COLLATE "default", '{a,b}' arrays, "char",
 * name, oid), and deparse. Statements without anything catalog-ish skip the parser entirely, and a
 * statement the grammar rejects (DuckDB-only syntax) or that needs no change is returned as is.
 * Modules: rewrite-precheck.ts (which texts are parsed), rewrite-walk.ts (the tree walk, relations,
 * FROM functions), rewrite-calls.ts, rewrite-casts.ts, rewrite-operators.ts (by node kind),
 * rewrite-catalog-types.ts (catalog column types), rewrite-nodes.ts (node builders).
 */
import { deparseSync, loadModule } from 'pgsql-parser';
import { LRUCache } from 'lru-cache';
import { parsePg, rememberPrinted, type PgTree } from './pg-parse.js';
import { mapSegments } from '../text/split.js';
import { COMPAT_DB } from './catalog/names.js';
import { SEMANTIC_MACRO_PREFIX } from './pg-result-types.js';
import { needsPgRewrite } from './rewrite-precheck.js';
import { rewriteByShape } from './rewrite-shapes.js';
import { catalogColumnTypes } from './rewrite-catalog-types.js';
import { collectCtes, walk } from './rewrite-walk.js';
import { ctesByName } from './inner-names.js';
import { standInCorrelatedTags } from './correlated-tags.js';
import type { Ctx } from './rewrite-nodes.js';
import { outermostSelects, shownItems } from './pg-shown-calls.js';
import { refuseComputedJsonb } from './jsonb-values.js';
import { typeJsonbLiterals } from './jsonb-literals.js';
import { readsCatalog } from './regproc-columns.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import { refuseOverComposed } from '../text/composed-ceiling.js';
import { refuseManyNumberFormats } from './number-formats.js';
import { printedNodes } from './tree-size.js';
import { keepIntervalsApart } from './interval-spellings.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { typedKey, type RelationTypes } from './operand-types.js';

export { needsPgRewrite } from './rewrite-precheck.js';

// The WASM grammar loads once, at import, so that rewriting stays synchronous.
await loadModule();

/** PostgreSQL system columns: catalog relations naming one are served from a view that has them. */
const SYSTEM_COLUMNS = /\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i;

export interface RewriteResult {
  sql: string;
  /** Databases named in front of emulated catalog relations (and the three-part name): the session's own, or 0A000. */
  catalogsNamed?: { db: string; name: string }[];
  /** True when the statement used the PostgreSQL catalog emulation (label its columns with catalog types). */
  rewritten: boolean;
  /**
   * Per select-list item, the PostgreSQL type (format_type spelling) of the catalog column it reads
   * directly (`t.typtype AS kind` → `"char"`), so an alias keeps the catalog type; absent when the
   * list has `*` or the statement is not one SELECT.
   */
  columnTypes?: ReadonlyArray<string | undefined>;
  /**
   * PostgreSQL types of parameters cast directly to a type DuckDB lacks (`$1::oid[]` → 1028), by
   * 1-based number: DuckDB sees `bigint[]`, but ParameterDescription must announce the PostgreSQL
   * type (asyncpg has codecs for oid[] but not int8[] and would otherwise introspect forever).
   */
  paramOids?: ReadonlyMap<number, number>;
  /** Made reading columns' types (operand-types.ts): it holds for the RelationTypes it was given only. */
  operandTypes?: true;
}

/** Rewrite one SQL text (one or more statements) for DuckDB; see module comment. */
export function rewriteForDuckDB(sql: string): string {
  return rewriteForDuckDBDetailed(sql).sql;
}

/**
 * Rewrites by text, memoized: a client's catalog statements repeat (psql, drivers and BI tools send
 * the same texts at every connect) and parse + walk + deparse cost 2–20 ms of CPU each. A rewrite that
 * read columns' types is kept under its RelationTypes' key too (typedKey): whether one does is the text's
 * own property (operand-types.ts asks for a type wherever a column stands, known or not) where types are given; a
 * rewrite made without any is kept apart (typedKey of no types), never served to a call that has them.
 */
const rewrites = new LRUCache<string, RewriteResult>({
  max: 2000,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (r, sql) => 2 * (sql.length + r.sql.length) + 64,
});
trimWhenIdle(lruTrim(rewrites));

/**
 * `sql` for DuckDB; with `types`, a float check over operands known not to be floats is left out
 * (operand-types.ts).
 */
export function rewriteForDuckDBDetailed(sql: string, types?: RelationTypes): RewriteResult {
  if (!needsPgRewrite(sql)) return { sql, rewritten: false };
  const known = types ? (rewrites.get(sql) ?? rewrites.get(typedKey(sql, types))) : rewrites.get(typedKey(sql, types));
  if (known) return known;
  const rewrite = (text: string) => rewriteParsed(text, types);
  // the same statement with other integers or comments, rewritten before (rewrite-shapes.ts)
  const shaped = rewriteByShape(sql, rewrite, types);
  if (shaped) return shaped;
  const result = rewrite(sql);
  rewrites.set(result.operandTypes || !types ? typedKey(sql, types) : sql, result);
  return result;
}

/** The rewrite without the pre-check (tests compare the two). */
export function rewriteParsed(sql: string, types?: RelationTypes): RewriteResult {
  const tree = parsePg(sql) as { stmts?: unknown[] } | null;
  if (!tree) return { sql, rewritten: false }; // not PostgreSQL: DuckDB's own syntax, left to DuckDB
  refuseDeepTree(tree);
  try {
    return rewriteTree(sql, tree, types);
  } catch (e) {
    // A stack the walk or the deparser still outgrew (less is left on some callers' stacks): the same answer.
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw tooDeep(`its parse tree is nested too deeply`);
    throw e;
  }
}

/**
 * Levels of PostgreSQL's parse tree (as JSON: an operator chain `a || b || …` takes two per term, a
 * function call three, a subquery seven) beyond which the rewrite refuses before walking it. The walk
 * and the deparser recurse per level: a 1,000-term chain of `||` (5 KB) overflowed the event loop's
 * stack (XX000), which 1,900 levels did at the top of the stack. DuckDB refuses more than 1,000
 * expression levels itself.
 */
export const MAX_PG_TREE_DEPTH = 1_500;

/**
 * The rewritten tree, printed, may have this many times the client's tree's nodes plus the allowance.
 * Measured over the corpus, the clients' texts and the tests' statements: at most 8.6× (a 105-character
 * text), 6.3× asymptotically (a select list of `sum(a) / count(*)`).
 */
export const MAX_PRINTED_FACTOR = 32;
export const MAX_PRINTED_ALLOWANCE = 65_536;

const tooDeep = (what: string): SqlError =>
  new SqlError(
    SQLSTATE.statementTooComplex,
    `statement is too complex: ${what}`,
    undefined,
    'Nest less: split a long chain of operators with parentheses or into a subquery, or build the value in steps.',
  );

/** Throws 54001 when the tree is deeper than MAX_PG_TREE_DEPTH; walks it without recursion. */
function refuseDeepTree(tree: object): void {
  const stack: [object, number][] = [[tree, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_PG_TREE_DEPTH) throw tooDeep(`its parse tree is nested more than ${MAX_PG_TREE_DEPTH} levels deep`);
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push([v as object, depth + 1]);
  }
}

function rewriteTree(sql: string, tree: { stmts?: unknown[] }, types: RelationTypes | undefined): RewriteResult {
  const outermost = outermostSelects(tree);
  const ctx: Ctx = {
    changed: false,
    catalogsNamed: new Map(),
    ctes: new Set(),
    params: new Map(),
    systemColumns: SYSTEM_COLUMNS.test(sql),
    floatSpelled: /\bfloat\b/i.test(sql),
    shown: shownItems(outermost),
    readsCatalog: readsCatalog(tree),
    outermost,
    cteBodies: ctesByName(tree),
    // (`x -> x * 2` may be DuckDB's lambda, whose parameter is no column)
    ...(types && !sql.includes('->') ? { relationTypes: types } : {}),
  };
  collectCtes(tree, ctx.ctes);
  if (/jsonb/i.test(sql)) {
    typeJsonbLiterals(tree);
    refuseComputedJsonb(tree, outermost);
  }
  let walked = walk(tree, ctx, false);
  const apart = keepIntervalsApart(walked);
  if (apart) {
    ctx.changed = true;
    walked = apart;
  }
  const typed = ctx.operandTypes ? { operandTypes: true as const } : {};
  if (!ctx.changed)
    return { sql, rewritten: false, ...(ctx.params.size > 0 ? { paramOids: ctx.params } : {}), ...typed };
  // Before printing, and before the stand-ins copy the tree: a subtree placed at several places is
  // printed (and copied) each time (tree-size.ts); nested divisions share their tags, 4× per level.
  // before the printed-node ceiling, which many calls of a picture's expression reach too
  refuseManyNumberFormats(walked as object);
  const printed = printedNodes(walked as object);
  // (the client's tree is counted only when the allowance alone is exceeded)
  if (printed > MAX_PRINTED_ALLOWANCE && printed > MAX_PRINTED_FACTOR * printedNodes(tree) + MAX_PRINTED_ALLOWANCE)
    throw new SqlError(
      SQLSTATE.statementTooComplex,
      `statement is too complex: the gateway's translation of its ${sql.length} characters for DuckDB would print ${printed} parse-tree nodes`,
      undefined,
      'Nest fewer divisions or rewritten calls inside one another (compute inner values in a subquery), or split the statement.',
    );
  const out = standInCorrelatedTags(walked);
  let rewrittenSql = deparseSync(out as Parameters<typeof deparseSync>[0]);
  if (ctx.tableSample) rewrittenSql = percentSamples(rewrittenSql);
  else if (readsParamsAlike(tree, out)) rememberPrinted(rewrittenSql, out as PgTree);
  refuseOverComposed(sql, rewrittenSql);
  // Only statements that reach the catalog emulation are catalog statements; PostgreSQL syntax
  // translated for DuckDB (ANY over a parameter, array text) leaves a plain query plain.
  // The `_pgsem_` macros (pg-result-types.ts) give PostgreSQL's meaning of plain queries: not catalog emulation.
  const result: RewriteResult = {
    sql: rewrittenSql,
    rewritten: rewrittenSql.replaceAll(SEMANTIC_MACRO_PREFIX, '').includes(COMPAT_DB),
    ...typed,
  };
  if (result.rewritten) {
    const types = catalogColumnTypes(tree, ctx.ctes);
    if (types) result.columnTypes = types;
  }
  if (ctx.params.size > 0) result.paramOids = ctx.params;
  if (ctx.catalogsNamed.size > 0) result.catalogsNamed = [...ctx.catalogsNamed].map(([db, name]) => ({ db, name }));
  return result;
}

/**
 * Whether PostgreSQL's parse of the printed text would tell parameter typing (param-types.ts) what `out` tells
 * it, so that `out` may stand for that parse: its parameters are cast only as the client's were, however often
 * (a float check repeats its operands) — a cast the rewrite spells (`int8` for `oid($1)`) is another name in
 * the grammar's parse; and it has no subscripts (DuckDB's slices print what the grammar refuses). Checked
 * against a fresh parse over the corpus with its integers as parameters: the same types and probes.
 */
function readsParamsAlike(tree: unknown, out: unknown): boolean {
  const casts = (root: unknown, stopAtSubscript: boolean): string[] | null => {
    const found: string[] = [];
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const v = stack.pop();
      if (!v || typeof v !== 'object') continue;
      const n = v as Record<string, any>;
      if (stopAtSubscript && (n.A_Indirection || n.A_Indices)) return null;
      if (n.TypeCast?.arg?.ParamRef)
        found.push(`${n.TypeCast.arg.ParamRef.number}:${JSON.stringify(n.TypeCast.typeName?.names)}`);
      for (const c of Object.values(n)) if (c && typeof c === 'object') stack.push(c);
    }
    return [...new Set(found)].sort();
  };
  const after = casts(out, true);
  return after !== null && after.join() === casts(tree, false)!.join();
}

/**
 * PostgreSQL's `TABLESAMPLE method (n)` samples n percent; DuckDB reads a bare n as a row count.
 * The deparser spells the clause `TABLESAMPLE method (arg)`; the percentage is said explicitly.
 */
function percentSamples(sql: string): string {
  return mapSegments(sql, (kind, text) =>
    kind === 'code'
      ? text.replace(/\bTABLESAMPLE\s+(\w+)\s*\(\s*([0-9.]+)\s*\)/gi, 'TABLESAMPLE $1($2 PERCENT)')
      : text,
  );
}
