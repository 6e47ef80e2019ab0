/**
 * Cost guards (cost-guards.ts) for the wildcard matchers: LIKE, ILIKE, GLOB, their negations, their
 * ESCAPE forms and `glob` as a function. DuckDB 1.5's matchers (function/scalar/string/like.cpp) meet
 * a wildcard (`%`, `*`) by trying the rest of the pattern at every later position of the text,
 * recursively, with nothing remembered: k wildcards over n bytes cost about n^k/k! tries in the worst
 * case. `repeat('a', 400) glob '*a*a*a*b'` ran 11.7 s in one vector, which no timeout or cancel
 * reaches. Only LIKE with a constant pattern of `%` and letters has a linear matcher (and the
 * optimizer's prefix/suffix/contains rewrites); ILIKE, GLOB, the ESCAPE forms (every LIKE a
 * PostgreSQL client sends, rewritten with ESCAPE '\') and patterns taken from rows all backtrack.
 *
 * The cost model, from the matcher's recursion. Let S1…Sk be the pattern's pieces that follow a
 * wildcard (a run of wildcards is one; a trailing one ends the match at once and costs nothing).
 * Each try of piece d at a text position compares up to |Sd| bytes, and only a try that matched
 * goes on to try piece d+1 at every later position. So with occ(d) the positions where piece d can
 * match and first(d) those where its first byte does:
 *   tries(d) ≤ M(d-1) × n, work(d) ≤ M(d-1) × (n + |Sd| × first(d)), M(d) = M(d-1) × occ(d), M(0) = 1
 * occ(d) is bounded from the text by the bytes `replace(text, literal prefix of Sd, '')` removes (a
 * literal of L bytes that occurs c times without overlap occurs at most L × c times with overlaps);
 * a piece that starts with `_`/`?`, or a pattern with a bracket or an escape, counts every position.
 * Σ work(d) is held to MAX_MATCH_STEPS per call, so a vector of 2,048 calls at the ceiling stays
 * near 100 ms (measured, bench/pattern-cost.ts); over it, 54000. A pattern with fewer than two
 * such pieces is not checked here (its cost is n × pattern bytes, cost-guards' long-pattern rule),
 * and a constant one folds the check away: the plain LIKE rewrites are unchanged.
 *
 * The check itself reads the text once per piece; a pattern of more than MAX_ESTIMATED_PIECES
 * pieces is judged by the text's length alone (every position counted).
 */
import { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, MAX_PATTERN_WORK } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Tries × compared bytes one matcher call may cost (2,048 calls: about 100 ms, bench/pattern-cost.ts). */
export const MAX_MATCH_STEPS = 2 ** 14;
/** Pieces beyond this are not counted from the text: the estimate would cost more than it saves. */
export const MAX_ESTIMATED_PIECES = 32;
/** Patterns up to this size are matched by RE2 instead (compiled per row when taken from rows). */
export const MAX_TRANSLATED_PATTERN_BYTES = 1024;

type Family = { wildcard: string; single: string; lower: boolean; glob: boolean };
const LIKE: Family = { wildcard: '%', single: '_', lower: false, glob: false };
const ILIKE: Family = { ...LIKE, lower: true };
const GLOB: Family = { wildcard: '*', single: '?', lower: false, glob: true };

/** The matchers DuckDB has (name → family); the escape forms take the escape as a third argument. */
const MATCHERS: Record<string, Family> = {
  '~~': LIKE,
  '!~~': LIKE,
  like_escape: LIKE,
  not_like_escape: LIKE,
  '~~*': ILIKE,
  '!~~*': ILIKE,
  ilike_escape: ILIKE,
  not_ilike_escape: ILIKE,
  '~~~': GLOB,
  '!~~~': GLOB,
  glob: GLOB,
};
export const PATTERN_FUNCTIONS = Object.keys(MATCHERS);

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

/** The pieces of pattern `p` that follow a wildcard, runs of wildcards and a trailing one left out. */
const pieces = (f: Family, p: string) => `list_filter(${sys('string_split', [p, ql(f.wildcard)])}[2:], s -> s <> '')`;

/**
 * Σ work(d) of the header over text `t` (a lambda parameter: named once) and pattern `p`, escape
 * `e` or null. Horner's form: work(1) + occ(1) × (work(2) + occ(2) × (…)).
 */
function estimate(f: Family, t: string, p: string, e: string | null): string {
  const text = f.lower ? `lower(${t})` : t;
  const n = `strlen(${t})::DOUBLE`;
  // A bracket, an escape or the escape character make pieces no literal prefix bounds: every position counts.
  const opaque = f.glob
    ? `(contains(${p}, '[') OR contains(${p}, '\\'))`
    : e
      ? `(${e} <> '' AND contains(${p}, ${e}))`
      : 'false';
  const literal = (s: string) => {
    const before = `${sys('string_split', [s, ql(f.single)])}[1]`;
    return `CASE WHEN ${opaque} THEN '' ELSE ${f.lower ? `lower(${before})` : before} END`;
  };
  const positions = (lit: string) =>
    `CASE WHEN ${lit} = '' THEN ${n} ELSE ${n} - strlen(${sys('replace', [text, lit, "''"])}) END`;
  const level = `s -> [${n} + strlen(s) * ${positions(`(${literal('s')})[1]`)}, ${positions(literal('s'))}]`;
  return `list_reduce(list_reverse(list_transform(${pieces(f, p)}, ${level})), (acc, x) -> [x[1] + x[2] * acc[1], 0], [0::DOUBLE, 0])[1]`;
}

/** Whether a call is over the ceiling: every position counted first (no text read), then the estimate. */
function overCondition(f: Family, p: string, e: string | null): string {
  const k = `len(${pieces(f, p)})`;
  const crude = `(strlen(t)::DOUBLE + 1) * (strlen(${p}) + 1) * pow(strlen(t)::DOUBLE, ${k})`;
  // A CASE, not AND/OR: inside a lambda DuckDB evaluates both sides of AND, a CASE only the branch taken.
  const judged = `CASE WHEN ${crude} <= ${MAX_MATCH_STEPS} THEN false WHEN ${k} > ${MAX_ESTIMATED_PIECES} THEN true ELSE ${estimate(f, 't', p, e)} > ${MAX_MATCH_STEPS} END`;
  return `${k} >= 2 AND list_transform([a1], t -> ${judged})[1]`;
}

/**
 * The pattern as an RE2 expression for a pattern of wildcards, `_` and plain characters (for GLOB:
 * `*` and plain characters), whose meaning RE2 shares byte for byte: `%`/`*` any run of
 * characters, `_` one character (DuckDB's LIKE steps over a whole UTF-8 character), everything else
 * itself (regexp_escape quotes every byte RE2 could read otherwise, and leaves `_` alone). RE2 runs in
 * time linear in the text, and a constant pattern is compiled once.
 */
function asRegex(f: Family, p: string): string {
  const quoted = sys('regexp_escape', [f.lower ? `lower(${p})` : p]);
  const any = sys('replace', [quoted, ql(`\\${f.wildcard}`), "'.*'"]);
  return `'(?s)' || ${f.glob ? any : sys('replace', [any, "'_'", "'.'"])}`;
}

/** Whether asRegex gives the matcher's meaning: no escape in play, nothing GLOB reads byte by byte. */
function translatable(f: Family, p: string, e: string | null): string {
  const size = `strlen(${p}) <= ${MAX_TRANSLATED_PATTERN_BYTES}`;
  if (f.glob) return `${size} AND NOT ${sys('regexp_matches', [p, ql('[?\\[\\\\]')])}`;
  return e ? `${size} AND (${e} = '' OR NOT contains(${p}, ${e}))` : size;
}

function matcherMacro(name: string, f: Family, arities: number[]): string {
  const shown = name.startsWith('~') || name.startsWith('!') ? 'pattern match' : name;
  const negated = name.startsWith('!') || name.startsWith('not_');
  const overloads = [...new Set(arities)].map((arity) => {
    const e = arity === 3 ? 'a3' : null;
    const params = e ? ['a1 VARCHAR', 'a2 VARCHAR', 'a3'] : ['a1 VARCHAR', 'a2 VARCHAR'];
    const call = sys(name, e ? ['a1', 'a2', 'a3'] : ['a1', 'a2']);
    const long = `strlen(a2) > ${CHECKED_PATTERN_BYTES} AND strlen(a1) * strlen(a2) > ${MAX_PATTERN_WORK}`;
    const longMessage = `${ql(`${shown}: a pattern of `)} || strlen(a2) || ' bytes over a text of ' || strlen(a1) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_PATTERN_WORK} byte pairs`)}`;
    const k = `len(${pieces(f, 'a2')})`;
    const backtrackMessage = `${ql(`${shown}: a pattern with `)} || ${k} || ${ql(` pieces after a wildcard (${f.wildcard}) over a text of `)} || strlen(a1) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_MATCH_STEPS} match steps: use fewer wildcards, or match a shorter text`)}`;
    const regex = sys('regexp_full_match', [f.lower ? 'lower(a1)' : 'a1', asRegex(f, 'a2')]);
    return (
      `(${params.join(', ')}) AS CASE WHEN ${long} THEN error(${longMessage}) ` +
      `WHEN ${k} >= 2 AND ${translatable(f, 'a2', e)} THEN ${negated ? `NOT ${regex}` : regex} ` +
      `WHEN ${overCondition(f, 'a2', e)} THEN error(${backtrackMessage}) ELSE ${call} END`
    );
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${overloads.join(', ')}`;
}

/** The statements that install the matcher guards, from the arities DuckDB lists (a matcher it lacks is skipped). */
export function patternGuardStatements(arities: ReadonlyMap<string, number[]>): string[] {
  return PATTERN_FUNCTIONS.flatMap((name) => {
    const a = arities.get(name);
    return a ? [matcherMacro(name, MATCHERS[name]!, a)] : [];
  });
}
