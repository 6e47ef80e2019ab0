/**
 * A simple Query's statements all parse before the first runs, as PostgreSQL parses the whole string
 * first: `begin; commit x` runs nothing and answers 42601, where running them one by one would open a
 * block and then fail. Only syntax is judged here; every other error comes in turn, as in PostgreSQL
 * (`select 1; select 1/0` answers the first, then fails).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { analyzeOffThread } from '../engine/text-pool.js';
import { parsePg } from '../pg/pg-parse.js';
import { classify } from '../text/classify.js';

/** Texts PostgreSQL's grammar reads on the event loop first (its WebAssembly memory only grows: planner.ts). */
const GRAMMAR_FIRST_CHARS = 2 * 1024;
/** Longest text the grammar reads on the event loop at all (as planner.ts for parameter types). */
const GRAMMAR_MAX_CHARS = 64 * 1024;

/**
 * The first statement of `parts` that neither PostgreSQL's grammar nor DuckDB's parser reads, and its
 * 42601 (the gateway serves both spellings; the statements it answers itself are read by the grammar in
 * classify); null when all parse. A text too long to be sure of is left to its turn.
 */
export async function firstUnparsable(
  parts: readonly string[],
  owner: string,
): Promise<{ index: number; error: SqlError } | null> {
  if (parts.length < 2) return null;
  for (const [index, part] of parts.entries()) {
    const stmt = classify(part);
    if (stmt.kind === 'refused' && stmt.sqlstate === SQLSTATE.syntaxError)
      return { index, error: new SqlError(stmt.sqlstate, stmt.message, undefined, stmt.hint) };
    if (stmt.kind !== 'query' && stmt.kind !== 'copyOut') continue;
    const text = stmt.kind === 'copyOut' ? stmt.query : stmt.sql;
    if (text.length <= GRAMMAR_FIRST_CHARS && parsePg(text) !== null) continue;
    const duckdb = await analyzeOffThread(text, owner).then(
      () => null,
      (e: unknown) => e,
    );
    if (!(duckdb instanceof SqlError) || duckdb.sqlstate !== SQLSTATE.syntaxError) continue;
    if (text.length > GRAMMAR_MAX_CHARS) continue;
    if (text.length <= GRAMMAR_FIRST_CHARS || parsePg(text) === null) return { index, error: duckdb };
  }
  return null;
}
