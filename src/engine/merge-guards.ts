/**
 * Cost guards (cost-guards.ts) for the two merges whose work is quadratic in their entries:
 * `map_concat` looks every entry's key up in the entries merged so far (about (Σ entries)² steps:
 * 32,000 entries ran 13 s in one call), and `json_merge_patch` looks every key of the patch up in
 * the target object, level by level (keys(target) × keys(patch): two objects of 16,000 keys ran
 * 4.4 s in one call). DuckDB checks for an interrupt only between vectors of 2,048 rows, so a
 * second attacker review's 1 s statement_timeout answered after 3–4 s, and a full vector of large
 * maps would have run for hours. Each call may make at most MAX_MERGE_PAIRS key comparisons,
 * counted from sizes alone before it runs: for `map_concat` the entries of all its maps together,
 * squared; for `json_merge_patch` Σ_{i<j} keys_i × keys_j over its documents (each merge compares
 * the target built so far with the next patch), a document's keys counted as the colons in its
 * text (every key is followed by one; a colon inside a string only counts more). Over it, 54000
 * with a hint (duckdb-errors.ts).
 *
 * Measured on the shared 2-core machine, one thread, a vector of 2,048 calls: `map_concat` of two
 * 128-entry maps (at the ceiling) about 1 s, two of 256 6.7 s, two of 512 17 s.
 *
 * Both are variadic, which a macro cannot be: one overload per argument count up to
 * MAX_MERGE_ARGS (as printf's guards, value-guards.ts); more arguments are refused by DuckDB's
 * binder (42883) — nest the calls instead.
 */
import { COST_LIMIT_PHRASE } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Key comparisons one call may make (map_concat: 256 entries together). */
export const MAX_MERGE_PAIRS = 2 ** 16;
/** Overloads are installed for up to this many arguments. */
export const MAX_MERGE_ARGS = 8;
/** What the refusal's message starts with after the function's name, matched by duckdb-errors.ts for its hint. */
export const MERGE_LIMIT_WORDS = 'merging';

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;
const params = (n: number) => Array.from({ length: n }, (_, i) => `a${i + 1}`);

// The message names no argument: each appearance is another copy for DuckDB's binder to bind.
const refusal = (name: string, what: string) =>
  ql(`${name}: ${MERGE_LIMIT_WORDS} ${what} ${COST_LIMIT_PHRASE} of ${MAX_MERGE_PAIRS} key comparisons`);

function macro(name: string, bodies: string[]): string {
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

/** map_concat(m1, m2, …): (Σ entries)² comparisons, so at most √MAX_MERGE_PAIRS entries. Each argument is named twice. */
function mapConcat(): string {
  const bodies = [];
  for (let n = 1; n <= MAX_MERGE_ARGS; n++) {
    const ps = params(n);
    const entries = `(${ps.map((p) => `coalesce(len(map_keys(${p})), 0)`).join(' + ')})::DOUBLE`;
    bodies.push(
      `(${ps.join(', ')}) AS CASE WHEN ${entries} > ${Math.sqrt(MAX_MERGE_PAIRS)} ` +
        `THEN error(${refusal('map_concat', `more than ${Math.sqrt(MAX_MERGE_PAIRS)} entries`)}) ELSE ${sys('map_concat', ps)} END`,
    );
  }
  return macro('map_concat', bodies);
}

/**
 * json_merge_patch(doc, patch, …): Σ_{i<j} keys_i × keys_j = ((Σ keys)² − Σ keys²) / 2, a
 * document's keys counted as its colons (one linear RE2 pass). Each argument is named 4 times (twice with two).
 */
function jsonMergePatch(): string {
  const bodies = [];
  for (let n = 2; n <= MAX_MERGE_ARGS; n++) {
    const ps = params(n);
    const keysOf = (p: string) =>
      `coalesce(strlen(${sys('regexp_replace', [`${p}::VARCHAR`, "'[^:]+'", "''", "'g'"])}), 0)::DOUBLE`;
    const keys = `[${ps.map(keysOf).join(', ')}]`;
    // Two documents (the common call): keys₁ × keys₂, each named once more than the call.
    const pairs =
      n === 2
        ? `(${keysOf('a1')} * ${keysOf('a2')})`
        : `((list_sum(${keys}) ^ 2 - list_inner_product(${keys}, ${keys})) / 2)`;
    bodies.push(
      `(${ps.join(', ')}) AS CASE WHEN ${pairs} > ${MAX_MERGE_PAIRS} ` +
        `THEN error(${refusal('json_merge_patch', 'these documents')}) ELSE ${sys('json_merge_patch', ps)} END`,
    );
  }
  return macro('json_merge_patch', bodies);
}

/** How many times each guard's body names an argument (value-guards.ts GUARD_ARGUMENT_COPIES). */
export const MERGE_GUARD_COPIES: Record<string, number[]> = {
  map_concat: [2],
  json_merge_patch: [4],
};

/** The statements that install the merge guards on a connection. */
export function mergeGuardStatements(): string[] {
  return [mapConcat(), jsonMergePatch()];
}

/** The hint of a refusal: how to merge within the ceiling. */
export const MERGE_LIMIT_HINT =
  'Merge fewer or smaller maps or JSON objects in one call (map_concat: at most 256 entries together; json_merge_patch: a small patch into a large document, or a few hundred keys each), or build the result with list functions such as map_from_entries.';
