/**
 * PostgreSQL's grammar (pgsql-parser, WASM) over a statement text, parsed once per text, for the
 * rewriter only (rewrite.ts runs it when its pre-check finds something catalog-ish): result names and
 * column sources come from the DuckDB analysis (analysis.ts). Trees are shared: callers never mutate.
 */
import { LRUCache } from 'lru-cache';
import { loadModule, parseSync } from 'pgsql-parser';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import { counted } from '../stages.js';
import { lineQuote } from '../text/line-quote.js';

await loadModule();

export type PgTree = { stmts?: { stmt?: Record<string, any> }[] };

// Bounded by bytes too: a 64 KB text's tree is ~5.4 MB of heap (~85 bytes per character).
const memo = new LRUCache<string, { tree: PgTree | null }>({
  max: 512,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (_v, sql) => 96 * sql.length + 1024,
});
trimWhenIdle(lruTrim(memo));
/** Huge generated statements are parsed every time rather than crowding out the common ones. */
const MEMO_MAX_CHARS = 64 * 1024;

let parses = 0;

/** For tests and benches: how many texts the grammar has parsed (memo hits not counted). */
export function pgParses(): number {
  return parses;
}

/** The parse tree, or null when the text is not PostgreSQL (DuckDB-only syntax). */
export function parsePg(sql: string): PgTree | null {
  const hit = memo.get(sql);
  if (hit) return hit.tree;
  parses++;
  counted('pg_parse');
  let tree: PgTree | null;
  try {
    tree = parseSync(sql) as PgTree;
  } catch {
    tree = null;
  }
  if (sql.length <= MEMO_MAX_CHARS) memo.set(sql, { tree });
  return tree;
}

/**
 * Trees the rewrite printed (rewrite.ts), by the text printed: what parameter typing (param-types.ts) reads of a
 * rewritten text, which it would otherwise parse again just after printing it. Only for that reading: the
 * rewrite's tree is not the grammar's in every detail (a cast it spells `int` the grammar reads as int4), so it
 * is kept apart from the memo and remembered only where the two read parameters alike (rewrite.ts).
 */
const printed = new LRUCache<string, PgTree>({
  max: 64,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (_v, sql) => 96 * sql.length + 1024,
});
trimWhenIdle(lruTrim(printed));

export function rememberPrinted(sql: string, tree: PgTree): void {
  if (sql.length <= MEMO_MAX_CHARS) printed.set(sql, tree);
}

/** For parameter typing: the tree the rewrite printed `sql` from, or the grammar's parse of it. */
export function parsePrintedPg(sql: string): PgTree | null {
  return printed.get(sql) ?? parsePg(sql);
}

/** PostgreSQL's refusal of a text its grammar cannot read: its message, and a quote of where (text/line-quote.ts). */
export interface PgSyntaxError {
  /** `syntax error at or near "x"`; '' when the text parses. */
  readonly message: string;
  readonly quote?: string;
}

export function pgSyntaxError(sql: string): PgSyntaxError {
  try {
    parseSync(sql);
    return { message: '' };
  } catch (e) {
    const details = (e as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
    const at = details?.cursorPosition;
    return {
      message: details?.message ?? (e as Error).message,
      quote: at === undefined ? undefined : lineQuote(sql, at),
    };
  }
}
