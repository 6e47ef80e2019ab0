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
    ? `(${sys('contains', [p, "'['"])} OR ${sys('contains', [p, "'\\'"])})`
    : e
      ? `(${e} <> '' AND ${sys('contains', [p, e])})`
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

/**
 * Over the ceiling, the call fails here: every position counted first (no text read), then the
 * estimate. Inside one lambda over the call's arguments, so each is named once (an argument is bound
 * once per appearance: GUARD_ARGUMENT_COPIES); a CASE, since a lambda's AND evaluates both sides.
 */
function refusal(f: Family, shown: string, withEscape: boolean): string {
  const k = `len(${pieces(f, 'x.p')})`;
  const crude = `(strlen(x.t)::DOUBLE + 1) * (strlen(x.p) + 1) * pow(strlen(x.t)::DOUBLE, ${k})`;
  const over = `CASE WHEN ${crude} <= ${MAX_MATCH_STEPS} THEN false WHEN ${k} > ${MAX_ESTIMATED_PIECES} THEN true ELSE ${estimate(f, 'x.t', 'x.p', withEscape ? 'x.e' : null)} > ${MAX_MATCH_STEPS} END`;
  const message = `${ql(`${shown}: a pattern with `)} || ${k} || ${ql(` pieces after a wildcard (${f.wildcard}) over a text of `)} || strlen(x.t) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_MATCH_STEPS} match steps: use fewer wildcards, or match a shorter text`)}`;
  const args = `{'t': a1, 'p': a2${withEscape ? ", 'e': a3" : ''}}`;
  return `list_transform([${args}], x -> CASE WHEN ${over} THEN error(${message}) ELSE false END)[1]`;
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
  return e ? `${size} AND (${e} = '' OR NOT ${sys('contains', [p, e])})` : size;
}

function matcherMacro(name: string, f: Family, arities: number[]): string {
  const shown = name.startsWith('~') || name.startsWith('!') ? 'pattern match' : name;
  const negated = name.startsWith('!') || name.startsWith('not_');
  const overloads = [...new Set(arities)].map((arity) => {
    const e = arity === 3;
    const params = e ? ['a1 VARCHAR', 'a2 VARCHAR', 'a3'] : ['a1 VARCHAR', 'a2 VARCHAR'];
    const call = sys(name, e ? ['a1', 'a2', 'a3'] : ['a1', 'a2']);
    const long = `strlen(a2) > ${CHECKED_PATTERN_BYTES} AND strlen(a1) * strlen(a2) > ${MAX_PATTERN_WORK}`;
    const longMessage = `${ql(`${shown}: a pattern of `)} || strlen(a2) || ' bytes over a text of ' || strlen(a1) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_PATTERN_WORK} byte pairs`)}`;
    // Pattern-only conditions: with a constant pattern they fold away before any row is read.
    const facts = `{'p': a2${e ? ", 'e': a3" : ''}}`;
    const toRegex = `list_transform([${facts}], x -> len(${pieces(f, 'x.p')}) >= 2 AND ${translatable(f, 'x.p', e ? 'x.e' : null)})[1]`;
    const regex = sys('regexp_full_match', [f.lower ? 'lower(a1)' : 'a1', asRegex(f, 'a2')]);
    return (
      `(${params.join(', ')}) AS CASE WHEN ${long} THEN error(${longMessage}) ` +
      `WHEN ${toRegex} THEN ${negated ? `NOT ${regex}` : regex} ` +
      `WHEN len(${pieces(f, 'a2')}) >= 2 AND ${refusal(f, shown, e)} THEN NULL ELSE ${call} END`
    );
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${overloads.join(', ')}`;
}

/** How many times each matcher's body names each argument (value-guards.ts GUARD_ARGUMENT_COPIES), from the text. */
export function patternArgumentCopies(): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const name of PATTERN_FUNCTIONS) {
    const body = matcherMacro(name, MATCHERS[name]!, [3]);
    // The parameter list names each once.
    out[name] = ['a1', 'a2', 'a3'].map((a) => body.split(new RegExp(`\\b${a}\\b`)).length - 2);
  }
  return out;
}

/** The statements that install the matcher guards, from the arities DuckDB lists (a matcher it lacks is skipped). */
export function patternGuardStatements(arities: ReadonlyMap<string, number[]>): string[] {
  return PATTERN_FUNCTIONS.flatMap((name) => {
    const a = arities.get(name);
    return a ? [matcherMacro(name, MATCHERS[name]!, a)] : [];
  });
}
