/**
 * The concatenation ceiling: `concat`, `concat_ws` and the list concatenations (`list_concat` and its
 * aliases) return at most MAX_CONCAT_BYTES, and `||` takes a right operand of at most that. Each only
 * adds its inputs' sizes, but fed its own result it doubles per step: through CTE columns (`s || s`
 * five levels deep over a 250 KB `repeat`) or a recursive CTE one user asked for a 1 GB value; DuckDB
 * failed the allocation (its memory_limit, or the kernel's data limit at RSS 1.9 GB) while the memory
 * watchdog stopped the running statements of every user. Now the call fails 54000 with a hint
 * (duckdb-errors.ts) before the value is passed on, so no concatenation doubles a value past the ceiling.
 *
 * Installed like the value guards (value-guards.ts): a temporary macro of the same name per session
 * connection — `"||"` included, which DuckDB binds as a function of that name — calling the built-in in
 * `system.main`. concat and concat_ws count their inputs before the call (textMacro). The list concatenations pass
 * their result through a one-element lambda, so each argument is named
 * once (a macro pastes an argument per appearance; nested, 2^depth copies to bind), and refuse through a
 * failing cast rather than `error()`, which DuckDB marks volatile: a constant concatenation still folds at
 * prepare (`WHERE s = concat('a', 'b')` reaches the scan as `s='ab'`), and one over the ceiling fails when
 * it runs. `||` is different (pipesMacro). A result is measured by its text (`strlen(r::VARCHAR)`): a text
 * as it is, a list or BLOB by its text form. DuckDB macros have no variadic form: concat and concat_ws take
 * up to MAX_CONCAT_ARGS arguments, the list concatenations MAX_LIST_CONCAT_ARGS.
 */
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** The largest value one concatenation may return. */
export const MAX_CONCAT_BYTES = 64 * 1024 * 1024;
/**
 * concat/concat_ws are installed for up to this many arguments: each overload's text grows with its
 * arity, and PostgreSQL's 100 (FUNC_MAX_ARGS) took 100–250 ms more per connection. The rewrite of
 * PostgreSQL's calls goes past it (pg/parse-nodes.ts concatOf, pg/pg-text.ts concatCall); a DuckDB-syntax
 * call with more is DuckDB's 42883.
 */
export const MAX_CONCAT_ARGS = 32;
/**
 * The list concatenations, for up to this many (PostgreSQL's array_cat takes two).
 */
export const MAX_LIST_CONCAT_ARGS = 16;
/** What the refusal says after the function's name, matched by duckdb-errors.ts. */
export const CONCAT_LIMIT_WORDS = 'a concatenated value exceeds the per-call limit of';

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;
const params = (n: number) => Array.from({ length: n }, (_, i) => `a${i + 1}`);
const upTo = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The macro every guard passes its result through (named once, so each argument is bound once). */
const CAP = 'fdl_pg_concat_cap';
/** The lambda's parameter: bound inside the cap only. */
const R = 'fdl_pg_concat_r';

/**
 * `r` passed on when its text is within the ceiling; otherwise a cast of the refusal's words to
 * INTEGER fails (duckdb-errors.ts answers it 54000). The cast is constant, so constant folding tries it,
 * fails and leaves it for the one row that reaches it.
 */
function capMacro(): string {
  const words = sys('concat', ['fn', ql(`: ${CONCAT_LIMIT_WORDS} ${MAX_CONCAT_BYTES} bytes`)]);
  const check = `CASE WHEN strlen(${R}::VARCHAR) > ${MAX_CONCAT_BYTES} THEN CASE WHEN CAST(${words} AS INTEGER) = 0 THEN ${R} END ELSE ${R} END`;
  return `CREATE OR REPLACE TEMP MACRO ${CAP}(r, fn) AS ${sys('list_transform', ['[r]', `${R} -> ${check}`])}[1]`;
}

function macro(name: string, arities: number[]): string {
  const bodies = arities.map((n) => `(${params(n).join(', ')}) AS ${CAP}(${sys(name, params(n))}, ${ql(name)})`);
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

/**
 * concat and concat_ws: the result's size is known from the inputs' (each argument's text, a separator
 * once per gap), so it is checked before the call rather than by passing the result through the cap's
 * lambda, whose one-element list and output were two more copies of every row's result: `concat(j, j, j)`
 * over 2,048-row vectors of 100 KB texts reached 2,552 MiB with memoryLimit 1GB where `j || j || j` reached
 * 1,625 (session 51). Each argument is named twice (the size, the call); a NULL counts nothing. The refusal is
 * `error()` in a CASE, as `||`'s: a constant call's condition folds to false and the CASE to the call, so it
 * still folds (a failing constant cast, the cap's way, was hoisted out of the CASE when a statement had two
 * such calls, and refused them all).
 */
function textMacro(name: 'concat' | 'concat_ws', arities: number[]): string {
  const size = (a: string) => `coalesce(strlen(${a}::VARCHAR), 0)`;
  const words = ql(`${name}: ${CONCAT_LIMIT_WORDS} ${MAX_CONCAT_BYTES} bytes`);
  const bodies = arities.map((n) => {
    const args = params(n);
    const parts = name === 'concat_ws' ? args.slice(1) : args;
    const gaps = name === 'concat_ws' ? [`${size('a1')} * ${Math.max(parts.length - 1, 0)}`] : [];
    const over = `${[...parts.map(size), ...gaps].join(' + ')} > ${MAX_CONCAT_BYTES}`;
    return `(${args.join(', ')}) AS CASE WHEN ${over} THEN error(${words}) ELSE ${sys(name, args)} END`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

/**
 * `||`: its right operand's text is held to the ceiling, named twice in a CASE (so DuckDB's CASE
 * simplification still folds a constant one) and its left operand once: a left-deep chain binds as before
 * but for one CASE per operator. A value past the ceiling can no longer be doubled (`s || s`), only
 * added to, at most MAX_CONCAT_BYTES per operator. Measuring the result instead needs the lambda above
 * on the chain's spine: a 60-term chain bound 40× slower and past 83 terms DuckDB refused its depth.
 */
function pipesMacro(): string {
  const refusal = `error(${ql(`||: ${CONCAT_LIMIT_WORDS} ${MAX_CONCAT_BYTES} bytes`)})`;
  const right = `CASE WHEN strlen(b::VARCHAR) > ${MAX_CONCAT_BYTES} THEN ${refusal} ELSE b END`;
  return `CREATE OR REPLACE TEMP MACRO "||"(a, b) AS ${sys('||', ['a', right])}`;
}

/** The concatenations DuckDB has, with the arities installed. */
const CONCATENATIONS: [name: string, arities: number[]][] = [
  ['concat', upTo(1, MAX_CONCAT_ARGS)],
  ['concat_ws', upTo(2, MAX_CONCAT_ARGS)],
  ...['list_concat', 'list_cat', 'array_concat', 'array_cat'].map(
    (name) => [name, upTo(1, MAX_LIST_CONCAT_ARGS)] as [string, number[]],
  ),
];

/** How many times each guard's body names an argument (value-guards.ts GUARD_ARGUMENT_COPIES): once, concat and concat_ws twice. */
export const CONCAT_GUARD_COPIES: Record<string, number[]> = {
  ...Object.fromEntries(CONCATENATIONS.map(([name]) => [name, [1]])),
  concat: [2],
  concat_ws: [2],
  '||': [1, 2],
  // a chain of || as one call (pg/pg-text-macros.ts, in the catalog emulation's schema): its size and the call
  _pgsem_pipes: [2],
};

/** The statements that install the concatenation guards on a connection. */
export function concatGuardStatements(): string[] {
  return [
    capMacro(),
    pipesMacro(),
    ...CONCATENATIONS.map(([name, arities]) =>
      name === 'concat' || name === 'concat_ws' ? textMacro(name, arities) : macro(name, arities),
    ),
  ];
}

/** The hint of a refusal. */
export const CONCAT_LIMIT_HINT = `A concatenation (||, concat, concat_ws, list_concat) returns at most ${MAX_CONCAT_BYTES / 1024 ** 2} MiB: build smaller values, or return the parts as rows.`;
