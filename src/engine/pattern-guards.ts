/**
 * Cost guards (cost-guards.ts) for the wildcard matchers: LIKE, ILIKE, GLOB, their negations and
 * their ESCAPE forms. DuckDB 1.5's matchers (function/scalar/string/like.cpp) meet a wildcard (`%`,
 * `*`) by trying the rest of the pattern at every later position of the text, recursively, with
 * nothing remembered: k wildcards over n bytes cost about n^k/k! tries in the worst case, and
 * `repeat('a', 400) glob '*a*a*a*b'` ran 11.7 s in one vector, which no timeout or cancel reaches.
 * Only LIKE with a constant pattern of `%` and letters has a linear matcher; ILIKE, GLOB, the ESCAPE
 * forms (every LIKE a PostgreSQL client sends with a built pattern, rewritten with ESCAPE '\') and
 * patterns taken from rows all backtrack.
 *
 * So a pattern with two or more pieces after a wildcard (a run of wildcards is one; a trailing one
 * costs nothing: the match ends there) is, where RE2 reads it the same, matched by RE2, whose time
 * is linear in the text (asRegex; test/pattern-guards.test.ts compares every matcher with the
 * built-in). Otherwise (an escape character in the pattern, GLOB's `?`, brackets and `\`, patterns
 * over MAX_TRANSLATED_PATTERN_BYTES) the built-in runs if its work is within MAX_MATCH_STEPS, by
 * either of two upper bounds, and fails 54000 over it:
 * - from the sizes alone: a call at depth d starts at d increasing positions, at most C(n + 1, d)
 *   calls, each comparing at most the longest piece's L bytes: (L + 1) × Σ_{d ≤ k} (n + 1)^d / d!;
 * - from the text: only a try that matched piece d goes on to piece d + 1, so with occ(d) the
 *   positions where piece d can match and first(d) those where its first character does,
 *   work(d) ≤ M(d-1) × (n + |Sd| × first(d)), M(d) = M(d-1) × occ(d), M(0) = 1, summed over d.
 *   occ(d) is bounded by the bytes `replace(text, literal prefix of Sd, '')` removes (a literal of
 *   L bytes found c times without overlap occurs at most L × c times); a piece that starts with a
 *   single-character wildcard, or a pattern with a bracket or escape, counts every position.
 * A vector of 2,048 calls at the ceiling stays near 100 ms (bench/pattern-cost.ts). A pattern with
 * fewer than two pieces costs n × m (cost-guards.ts' long-pattern rule), and with a constant pattern
 * every pattern-only condition folds away before a row is read: LIKE's prefix/suffix/contains
 * rewrites are unchanged, and a translated constant pattern is compiled once.
 */
import { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, MAX_PATTERN_WORK } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Tries × compared bytes one matcher call may cost (2,048 calls at it: 40–100 ms under load, bench/pattern-cost.ts). */
export const MAX_MATCH_STEPS = 2 ** 13;
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
const pieces = (f: Family, p: string) =>
  `list_filter(${sys('string_split', [p, ql(f.wildcard)])}[2:], fdl_pg_s -> fdl_pg_s <> '')`;

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
      ? `(${e} <> '' AND ${sys('contains', [f.lower ? `lower(${p})` : p, e])})`
      : 'false';
  const literal = (s: string) => {
    const before = `${sys('string_split', [s, ql(f.single)])}[1]`;
    return `CASE WHEN ${opaque} THEN '' ELSE ${f.lower ? `lower(${before})` : before} END`;
  };
  const positions = (lit: string) =>
    `CASE WHEN ${lit} = '' THEN ${n} ELSE ${n} - strlen(${sys('replace', [text, lit, "''"])}) END`;
  const level = `fdl_pg_s -> [${n} + strlen(fdl_pg_s) * ${positions(`(${literal('fdl_pg_s')})[1]`)}, ${positions(literal('fdl_pg_s'))}]`;
  return `list_reduce(list_reverse(list_transform(${pieces(f, p)}, ${level})), (fdl_pg_acc, fdl_pg_l) -> [fdl_pg_l[1] + fdl_pg_l[2] * fdl_pg_acc[1], 0], [0::DOUBLE, 0])[1]`;
}

/**
 * Over the ceiling, the call fails here: every position counted first (no text read), then the
 * estimate. Inside one lambda over the call's arguments, so each is named once (an argument is bound
 * once per appearance: GUARD_ARGUMENT_COPIES); a CASE, since a lambda's AND evaluates both sides.
 */
function refusal(f: Family, shown: string, withEscape: boolean): string {
  const k = `len(${pieces(f, "fdl_pg_a['p']")})`;
  // Calls at depth d start at d increasing positions: at most C(n + 1, d) ≤ (n + 1)^d / d! of them.
  const calls = `list_sum(list_transform(${sys('range', [`0`, `${k} + 1`])}, fdl_pg_d -> pow(strlen(fdl_pg_a['t']) + 1, fdl_pg_d) / gamma(fdl_pg_d + 1)))`;
  const crude = `(list_max(list_transform(${pieces(f, "fdl_pg_a['p']")}, fdl_pg_s -> strlen(fdl_pg_s))) + 1) * ${calls}`;
  const over = `CASE WHEN ${crude} <= ${MAX_MATCH_STEPS} THEN false WHEN ${k} > ${MAX_ESTIMATED_PIECES} THEN true ELSE ${estimate(f, "fdl_pg_a['t']", "fdl_pg_a['p']", withEscape ? "fdl_pg_a['e']" : null)} > ${MAX_MATCH_STEPS} END`;
  const message = `${ql(`${shown}: a pattern with `)} || ${k} || ${ql(` pieces after a wildcard (${f.wildcard}) over a text of `)} || strlen(fdl_pg_a['t']) || ${ql(` bytes ${COST_LIMIT_PHRASE} of ${MAX_MATCH_STEPS} match steps: use fewer wildcards, or match a shorter text`)}`;
  const args = `{'t': a1, 'p': a2${withEscape ? ", 'e': a3" : ''}}`;
  return `list_transform([${args}], fdl_pg_a -> CASE WHEN ${over} THEN error(${message}) ELSE false END)[1]`;
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
  // ILIKE compares the escape character with the lower-cased pattern.
  return e ? `${size} AND (${e} = '' OR NOT ${sys('contains', [f.lower ? `lower(${p})` : p, e])})` : size;
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
    const toRegex = `list_transform([${facts}], fdl_pg_a -> len(${pieces(f, "fdl_pg_a['p']")}) >= 2 AND ${translatable(f, "fdl_pg_a['p']", e ? "fdl_pg_a['e']" : null)})[1]`;
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
