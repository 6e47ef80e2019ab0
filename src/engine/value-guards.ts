/**
 * Per-call ceilings on the functions that build a value much larger than their inputs: `repeat`,
 * `lpad`/`rpad`, `replace`, `printf`/`format` (a width, or one argument printed many times) and
 * `bar`. DuckDB computes a vector of 2,048 calls in one uninterruptible step, and the strings it
 * builds live in vector heaps that its memory_limit does not count: `printf('%0500000000d', 1)`
 * went on for seconds after its statement timed out, `replace(…, 'a', repeat('b', 4000))` of 10 rows
 * reached 1.8 GB. Each such call may add at most MAX_VALUE_GROWTH bytes to the largest of its inputs,
 * so one vector of them builds at most 2,048 × 256 KiB = 512 MiB, half the process headroom
 * (memory-ceiling.ts); over it the call fails 54000 (duckdb-errors.ts maps COST_LIMIT_PHRASE).
 * Installed like the cost guards (cost-guards.ts): a temporary macro of the same name per session
 * connection, checking sizes first and then calling `system.main`'s built-in.
 *
 * Concatenation (`||`, `concat`, `concat_ws`, list_concat) adds its inputs' sizes: each result is
 * held to a ceiling instead (concat-guards.ts). Aggregates such as `string_agg` and `list` are left
 * to the process ceilings: their work is linear in what they copy, and the memory watchdog
 * (memory-watchdog.ts) stops the user running them between vectors.
 */
import { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, searchTextLimit } from './cost-guards.js';
import { patternArgumentCopies } from './pattern-guards.js';
import { NESTING_GUARD_COPIES } from './nesting-guards.js';
import { MERGE_GUARD_COPIES } from './merge-guards.js';
import { CONCAT_GUARD_COPIES } from './concat-guards.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';
import { MAX_VALUE_GROWTH } from './cost-limit.js';

/** printf/format overloads are installed for up to this many arguments after the format. */
export const MAX_FORMAT_ARGS = 8;

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

interface Overload {
  /** Parameter declarations (a name, optionally typed as the built-in's). */
  params: string[];
  /** True when the call would add more than MAX_VALUE_GROWTH bytes. */
  over: string;
  /** What the refusal says, as a SQL expression. */
  message: string;
}

/**
 * A macro's body has each argument's expression pasted in wherever its parameter appears, so a
 * call nested in another's argument is bound once per appearance: the checks name each argument as
 * few times as they can (the messages name none), and admission bounds the product along a nesting
 * (GUARD_ARGUMENT_COPIES, analysis/size-limits.ts). Taking the arguments once into a lambda instead
 * made printf 20× slower and stopped constants from folding.
 */
function macro(name: string, overloads: Overload[]): string {
  const bodies = overloads.map((o) => {
    const names = o.params.map((p) => p.split(' ')[0]!);
    return `(${o.params.join(', ')}) AS CASE WHEN ${o.over} THEN error(${o.message}) ELSE ${sys(name, names)} END`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

const refusal = (name: string, what = 'a result') =>
  ql(`${name}: ${what} ${COST_LIMIT_PHRASE} of ${MAX_VALUE_GROWTH} bytes more than its largest input`);

/** repeat(value, count): the value's text size times count − 1 added (strings, blobs and lists alike). */
function repeatGuard(): Overload {
  return {
    params: ['a1', 'a2'],
    over: `strlen(a1::VARCHAR) * (a2::DOUBLE - 1) > ${MAX_VALUE_GROWTH}`,
    message: refusal('repeat'),
  };
}

/** lpad/rpad(text, length, fill): length − the text's characters, at the fill's bytes per character. */
function padGuard(name: string): Overload {
  const added = `(a2::DOUBLE - length(a1)) * strlen(a3) / greatest(length(a3), 1)`;
  return { params: ['a1 VARCHAR', 'a2', 'a3 VARCHAR'], over: `${added} > ${MAX_VALUE_GROWTH}`, message: refusal(name) };
}

/**
 * replace(text, from, to): only a `to` longer than `from` adds bytes, at most text × (to − from) /
 * from. Doubling a text of up to MAX_DOUBLED_TEXT bytes (',' → ', ' on a long value) is never
 * refused; past that, adding over MAX_VALUE_GROWTH is. (Doubling any text let a chain of nested
 * calls multiply it: 8 deep, 256×.) The text is named once: refused when its size passes a
 * threshold computed from the other two.
 */
function replaceGuard(): Overload {
  const from = 'strlen(a2)';
  const grow = `(strlen(a3) - ${from})`;
  const within = `${MAX_VALUE_GROWTH}.0 * ${from} / ${grow}`;
  const grows = `CASE WHEN ${from} > 0 AND ${grow} > 0 THEN CASE WHEN ${grow} > ${from} THEN ${within} ELSE greatest(${within}, ${MAX_DOUBLED_TEXT}) END ELSE 'infinity'::DOUBLE END`;
  // The search string is compared at every position of the text (cost-guards.ts searchTextLimit): 200 ms a row for 64 KiB in 128 KiB.
  const searches = searchTextLimit('a2');
  return {
    params: ['a1 VARCHAR', 'a2 VARCHAR', 'a3 VARCHAR'],
    over: `strlen(a1) > least(${grows}, ${searches})`,
    message: `CASE WHEN ${from} > ${CHECKED_PATTERN_BYTES} THEN ${ql(`replace: a search string over ${CHECKED_PATTERN_BYTES} bytes in a long text, or a result, ${COST_LIMIT_PHRASE}`)} ELSE ${refusal('replace')} END`,
  };
}

/** The largest text replace may double whatever it adds. */
export const MAX_DOUBLED_TEXT = 1024 * 1024;

/**
 * printf/format(fmt, args…): a width or precision in a specifier adds that many bytes, a width
 * taken from an argument (`%*d`, `{:{}}`) is refused outright, and each specifier after the first
 * may print the largest argument again (positional references print one argument many times).
 */
function formatGuards(name: string): Overload[] {
  const specs = `system.main.regexp_extract_all(a1, '%[^a-zA-Z%]*|\\{[^{}]*\\}')`;
  const widest = `coalesce(list_max(TRY_CAST(system.main.regexp_extract_all(system.main.array_to_string(${specs}, ' '), '[0-9]{1,18}') AS DOUBLE[])), 0)`;
  const dynamic = `system.main.regexp_matches(a1, '%[^a-zA-Z%]*\\*|\\{[^{}]*\\{')`;
  const out: Overload[] = [];
  for (let n = 0; n <= MAX_FORMAT_ARGS; n++) {
    const args = Array.from({ length: n }, (_, i) => `a${i + 2}`);
    const sizes = args.map((a) => `coalesce(strlen(${a}::VARCHAR), 0)`);
    const largest = n === 0 ? '0' : n === 1 ? sizes[0]! : `greatest(${sizes.join(', ')})`;
    const added = `len(${specs}) * ${widest} + greatest(len(${specs}) - 1, 0) * ${largest}`;
    out.push({
      params: ['a1 VARCHAR', ...args],
      over: `${dynamic} OR ${added} > ${MAX_VALUE_GROWTH}`,
      message: refusal(name, 'a width taken from an argument, or a result'),
    });
  }
  return out;
}

/** bar(x, min, max, width): width characters of up to 3 bytes. */
function barGuard(): Overload {
  return { params: ['a1', 'a2', 'a3', 'a4'], over: `a4::DOUBLE * 3 > ${MAX_VALUE_GROWTH}`, message: refusal('bar') };
}

/**
 * How many times a guarded function's body names each of its arguments (checks and call), by
 * position (the last repeats): an argument nested in k guarded calls is bound the product of their
 * counts times, which admission bounds (analysis/size-limits.ts).
 */
export const GUARD_ARGUMENT_COPIES: Readonly<Record<string, readonly number[]>> = {
  repeat: [2, 2],
  lpad: [2, 2, 3],
  rpad: [2, 2, 3],
  replace: [2, 12, 5],
  printf: [6, 2],
  format: [6, 2],
  bar: [2],
  // regex-guards.ts: the options argument is spelled into flags three times per call of the built-in.
  // The pattern 4 times more for its size (regexTooHeavy).
  regexp_replace: [4, 8, 5, 11],
  regexp_extract_all: [2, 6, 1, 6],
  regexp_split_to_array: [2, 6, 6],
  string_split_regex: [2, 6, 6],
  str_split_regex: [2, 6, 6],
  regexp_matches: [1, 5, 6],
  regexp_full_match: [1, 5, 6],
  // list-guards.ts
  range: [2],
  generate_series: [2],
  list_resize: [3, 2, 2],
  array_resize: [3, 2, 2],
  string_split: [3, 4],
  str_split: [3, 4],
  string_to_array: [3, 4],
  split: [3, 4],
  // growth-guards.ts
  bin: [2],
  to_binary: [2],
  hex: [2],
  to_hex: [2],
  url_encode: [2],
  regexp_escape: [2],
  base64: [2],
  to_base64: [2],
  to_json: [4],
  json_quote: [4],
  json_pretty: [9],
  strftime: [2, 2],
  equi_width_bins: [1, 1, 2, 1],
  bitstring: [1, 2],
  array_to_string: [2, 2],
  json_extract: [2, 2],
  json_extract_string: [2, 2],
  json_keys: [2, 1],
  // cost-guards.ts: edit distances name each argument twice, pattern matchers the text 3 times, the pattern 4.
  levenshtein: [2],
  damerau_levenshtein: [2],
  editdist3: [2],
  jaro_similarity: [2],
  jaro_winkler_similarity: [2],
  // pattern-guards.ts, counted from the macros' text
  ...patternArgumentCopies(),
  ...NESTING_GUARD_COPIES,
  ...MERGE_GUARD_COPIES,
  ...CONCAT_GUARD_COPIES,
};
/** The most times one expression may be bound through nested guarded calls. */
export const MAX_GUARD_COPIES = 256;

/** The statements that install the value guards on a connection. */
export function valueGuardStatements(): string[] {
  return [
    macro('repeat', [repeatGuard()]),
    macro('lpad', [padGuard('lpad')]),
    macro('rpad', [padGuard('rpad')]),
    macro('replace', [replaceGuard()]),
    macro('printf', formatGuards('printf')),
    macro('format', formatGuards('format')),
    // bar's 3-argument form draws 80 characters: nothing to check.
    macro('bar', [{ params: ['a1', 'a2', 'a3'], over: 'false', message: "''" }, barGuard()]),
  ];
}
