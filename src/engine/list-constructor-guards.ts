/**
 * The list constructors (`[a, b, …]`, `list_value`, `list_pack`) held to the value guards' rule:
 * a list may hold at most MAX_VALUE_GROWTH bytes more than its largest element. DuckDB copies every
 * element into the list's child vector, and a later cast to text (`[t, t, t]::varchar`) copies it all
 * again; both are vector memory, which DuckDB's memory_limit does not count (only its buffer manager's
 * blocks). An attacker review built `[t, t, t, …]::text` of 160 KB rows: ten copies of 2,048 rows per
 * vector is 3.3 GB in one call, and RSS went past memoryLimit to the kernel's data limit (other users
 * got 53200). Measured with DuckDB 1.5.6 and memory_limit 1GB: `sum(len([t × 10]))` over 4,096 such
 * rows peaked at 3.9 GB RSS without a memory error, `… ::varchar` at 7.1 GB.
 *
 * Installed like the concatenation guards (concat-guards.ts): a temporary macro of the same name per
 * session connection — DuckDB binds `[…]` as `list_value` — one overload per arity up to
 * MAX_LIST_CONSTRUCTOR_ARGS. The elements' sizes (their text: a text as it is, anything else by its
 * text form) are measured before the list is built, in a one-element lambda, and a list over the rule
 * fails through a failing cast of the refusal's words (duckdb-errors.ts answers 54000), so a constant
 * list still folds. Each element is named twice (its size and the call: value-guards.ts GUARD_ARGUMENT_COPIES).
 *
 * DuckDB binds an `ARRAY[…]` constructor's elements before it looks up `list_value`, and a macro
 * cannot take bound arguments ("Cannot copy bound expression"): the PostgreSQL rewrite spells every
 * ARRAY[…] as `list_value(…)` (pg/array-constructors.ts), and admission refuses ARRAY[…] in a text
 * the rewrite does not read (analysis/unoffered-forms.ts), as it does a longer list.
 */
import { MAX_VALUE_GROWTH } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** The most elements a list constructor takes (each overload's text grows with its arity: 32 cost ~6 ms per connection, 64 ~35 ms). */
export const MAX_LIST_CONSTRUCTOR_ARGS = 32;
/** What the refusal says after the function's name, matched by duckdb-errors.ts. */
export const LIST_GROWTH_WORDS = `a list exceeds the per-call limit of ${MAX_VALUE_GROWTH} bytes more than its largest element`;
/** The hint of a refusal. */
export const LIST_GROWTH_HINT =
  'A list (or ARRAY) built from values may hold at most 256 KiB more than its largest element: list fewer or smaller values, or return them as rows.';

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

/** The macro every overload passes its elements' sizes through (named once, as a lambda's parameter). */
const FITS = 'fdl_pg_list_fits';

/**
 * True when the sizes `s` (a list of BIGINT) fit the rule; otherwise a cast of the refusal's words to
 * INTEGER fails. The words are chosen per row (`x IS NULL` never holds) so that the cast is not a
 * constant evaluated for every row whatever the condition.
 */
function fitsMacro(): string {
  const words = `CASE WHEN x IS NULL THEN '' ELSE concat(fn, ${ql(`: ${LIST_GROWTH_WORDS}`)}) END`;
  const check = `CASE WHEN coalesce(list_sum(x) - list_max(x), 0) > ${MAX_VALUE_GROWTH} THEN CAST(${words} AS INTEGER) = 0 ELSE true END`;
  return `CREATE OR REPLACE TEMP MACRO ${FITS}(s, fn) AS ${sys('list_transform', [sys('list_value', ['s']), `x -> ${check}`])}[1]`;
}

function constructor(name: string): string {
  const bodies = Array.from({ length: MAX_LIST_CONSTRUCTOR_ARGS + 1 }, (_, k) => {
    const params = Array.from({ length: k }, (_, i) => `a${i + 1}`);
    const call = sys(name, params);
    // Fewer than two elements copy at most their largest.
    if (k < 2) return `(${params.join(', ')}) AS ${call}`;
    const sizes = sys(
      'list_value',
      params.map((p) => `strlen(${p}::VARCHAR)`),
    );
    return `(${params.join(', ')}) AS CASE WHEN ${FITS}(${sizes}, ${ql(name)}) THEN ${call} END`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

/** The statements that install the list constructor guards on a connection. */
export function listConstructorGuardStatements(): string[] {
  return [fitsMacro(), constructor('list_value'), constructor('list_pack')];
}
