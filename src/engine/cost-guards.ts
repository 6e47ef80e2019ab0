/**
 * Per-call ceilings on DuckDB functions whose cost grows faster than their input. DuckDB checks
 * for an interrupt only between vectors of 2,048 rows, so one vector of calls runs to its end
 * whatever statement_timeout or a cancel says: `levenshtein(repeat('a', n), repeat('b', n))` with
 * n = 200,000 taken from a row ran four minutes past a 10 s timeout, and on after the client left.
 * A function whose cost is linear in its input is bounded by the memory its input must occupy (the
 * process ceiling, memory-ceiling.ts); a quadratic one is not, and its size comes from rows, where
 * the constant-size check (analysis/size-limits.ts) cannot see it. So every session connection
 * shadows those functions with a temporary macro of the same name (DuckDB looks a function up in
 * `temp` first, then the session's schemas, then `system`) that checks the sizes of its inputs and
 * calls the built-in only when they are within the ceiling; over it, the call fails 54000
 * (duckdb-errors.ts maps the message). A constant short pattern folds the check away, so LIKE's
 * rewrites (prefix, contains) and filter pushdown into Parquet scans are unchanged.
 *
 * Measured on the shared 2-core machine, one thread, a vector of 2,048 calls at the ceiling:
 * levenshtein and editdist3 1.4 s, damerau_levenshtein 2.9 s, jaro(_winkler) 6–24 ms; pattern
 * matchers cost 1–16 ns per text×pattern byte pair (ILIKE, GLOB the most), 1–16 ms per call at
 * MAX_PATTERN_WORK. The matchers' backtracking over two or more wildcards is pattern-guards.ts'.
 * Not bounded (docs/security.md): a pattern of at most 64 bytes with one wildcard piece over a long
 * text (up to 64 comparisons per text byte; the tests' stuck statement), regular expressions
 * taken from rows, and a text that repeats a bounded call thousands of times.
 */
import { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, MAX_PATTERN_WORK } from './cost-limit.js';
import { PATTERN_FUNCTIONS, patternGuardStatements } from './pattern-guards.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Edit distances: each argument at most this many bytes (PostgreSQL's fuzzystrmatch: 255 characters; DuckDB's work by byte). */
export const MAX_EDIT_DISTANCE_BYTES = 255;
export { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, MAX_PATTERN_WORK };

export const EDIT_DISTANCES = [
  'levenshtein',
  'damerau_levenshtein',
  'editdist3',
  'jaro_similarity',
  'jaro_winkler_similarity',
];
/**
 * Substring searches (text, search string): DuckDB compares the search string at every position of
 * the text, about 45 ms per row for a 64 KiB search string in a 128 KiB text, one vector of them
 * minutes past statement_timeout (a second attacker review). Held to the pattern matchers' ceiling.
 * `contains` also takes lists, maps and structs: an untyped overload passes those straight through.
 */
// string_split and its aliases (and split_part, DuckDB's macro over string_split) are shadowed by the list
// guards (list-guards.ts) for their output's size, replace by the value guards: both add searchTextLimit.
const SEARCH = ['strpos', 'instr', 'position', 'contains'];

/** A search string (or separator) over CHECKED_PATTERN_BYTES in a text: text bytes × its bytes at most MAX_PATTERN_WORK. */
export const searchTooLong = (text: string, search: string) =>
  `(strlen(${search}) > ${CHECKED_PATTERN_BYTES} AND strlen(${text}) * strlen(${search}) > ${MAX_PATTERN_WORK})`;

/** The longest text searchTooLong admits for `search`, as a DOUBLE (for guards that name their text once). */
export const searchTextLimit = (search: string) =>
  `CASE WHEN strlen(${search}) > ${CHECKED_PATTERN_BYTES} THEN ${MAX_PATTERN_WORK}.0 / strlen(${search}) ELSE 'infinity'::DOUBLE END`;

/** One macro overload per arity the built-in has, each guarding and then calling the built-in. */
function guardMacro(name: string, arities: number[], condition: string, message: string, passThrough = false): string {
  const untyped = passThrough
    ? arities.map((n) => {
        const params = Array.from({ length: n }, (_, i) => `a${i + 1}`);
        return `(${params.join(', ')}) AS system.main.${qi(name)}(${params.join(', ')})`;
      })
    : [];
  const overloads = arities.map((n) => {
    const params = Array.from({ length: n }, (_, i) => `a${i + 1}`);
    const call = `system.main.${qi(name)}(${params.join(', ')})`;
    // Every guarded built-in takes two strings first: typed, a wrong call fails as the built-in's would (42883).
    const typed = params.map((p, i) => (i < 2 ? `${p} VARCHAR` : p));
    return `(${typed.join(', ')}) AS CASE WHEN ${condition} THEN error(${message}) ELSE ${call} END`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${[...overloads, ...untyped].join(', ')}`;
}

/**
 * The statements that install the guards on a connection, from the arities DuckDB lists for each
 * built-in (`arities`: name → parameter counts); a function DuckDB does not have is skipped.
 */
export function costGuardStatements(arities: ReadonlyMap<string, number[]>): string[] {
  const out: string[] = [];
  for (const name of EDIT_DISTANCES) {
    const a = arities.get(name);
    if (!a) continue;
    const max = MAX_EDIT_DISTANCE_BYTES;
    const message = ql(`${name} argument exceeds maximum length of ${max} bytes (${COST_LIMIT_PHRASE})`);
    out.push(guardMacro(name, a, `strlen(a1) > ${max} OR strlen(a2) > ${max}`, message));
  }
  out.push(...patternGuardStatements(arities));
  for (const name of SEARCH) {
    const a = arities.get(name);
    if (!a) continue;
    const message = `${ql(`${name}: a search string of `)} || strlen(a2) || ' bytes in a text of ' || strlen(a1) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_PATTERN_WORK} byte pairs`)}`;
    out.push(guardMacro(name, [...new Set(a)], searchTooLong('a1', 'a2'), message, name === 'contains'));
  }
  return out;
}

/** The SQL that reads the arities costGuardStatements needs. */
export const GUARDED_ARITIES_SQL = `SELECT function_name, list(DISTINCT len(parameters)) FROM duckdb_functions()
  WHERE database_name = 'system' AND function_type = 'scalar' AND function_name IN (${[...EDIT_DISTANCES, ...PATTERN_FUNCTIONS, ...SEARCH].map(ql).join(', ')})
  GROUP BY function_name`;
