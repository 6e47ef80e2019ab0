/**
 * Value guards (value-guards.ts) for the regular-expression functions. `regexp_replace` with
 * backreferences multiplies: `regexp_replace(repeat('a', 12500), 'a', repeat('\0', 120000))`
 * builds 1.5 GB in one call that neither a timeout nor a cancel stops (it ran ~80 s past its
 * 57014). The functions that return a list of matches or pieces hold 16 bytes per element, and a
 * pattern that matches the empty string yields one per input byte. Each call is held to the same
 * rule as the other value guards: at most MAX_VALUE_GROWTH bytes more than its input, with the
 * worst case computed from the input's and replacement's sizes alone (the pattern's matches are
 * unknown until it runs).
 *
 * DuckDB binds a macro's body when it is created and wants a regex's options as a constant there,
 * so the options argument never reaches the built-in: the guard spells them as RE2's inline flags
 * on the pattern (`(?i)`, `(?s)`; `l` through regexp_escape) and calls the built-in without them
 * (with 'g' for a global replace). Letters DuckDB does not know fail as DuckDB's own check does.
 * Functions whose result is no larger than their input (regexp_matches, regexp_full_match, `~`,
 * SIMILAR TO, regexp_extract) are not wrapped: their cost is linear in the text (RE2), which the
 * memory ceilings bound.
 */
import { COST_LIMIT_PHRASE } from './cost-guards.js';
import { MAX_VALUE_GROWTH } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

/** Bytes a list element takes beyond its text (DuckDB's string_t). */
export const LIST_ELEMENT_BYTES = 16;

/** The options DuckDB's regex functions accept (ParseRegexOptions), 'g' only for regexp_replace. */
function badOptions(o: string, letters: string): string {
  return `CASE WHEN ${o} IS NULL THEN error('Regex options field must not be NULL') WHEN ${sys('regexp_matches', [o, ql(`[^${letters} \\t\\n]`)])} THEN error('Unrecognized Regex option in ' || ${o}) END`;
}

/** The pattern `p` with the options `o` as inline flags: the last of c/i and of m/n/p/s decide, as in DuckDB. */
function flagged(p: string, o: string): string {
  const last = (set: string) => sys('regexp_extract', [o, ql(`([${set}])[^${set}]*$`), '1']);
  const flags = `CASE WHEN ${last('ci')} = 'i' THEN '(?i)' ELSE '' END || CASE WHEN ${last('mnps')} = 's' THEN '(?s)' ELSE '' END`;
  return `(${flags} || CASE WHEN contains(${o}, 'l') THEN ${sys('regexp_escape', [p])} ELSE ${p} END)`;
}

const refusal = (name: string) =>
  ql(`${name}: a result ${COST_LIMIT_PHRASE} of ${MAX_VALUE_GROWTH} bytes more than its input`);

/**
 * What RE2 may compile a pattern into, in the units of one literal byte. A pattern that is not a
 * constant (read from a column, or built per row) is compiled once per call, and the compile costs
 * the program's size, not the text's: `\pL{1,100}` taken from a row ran 253 s for one vector of
 * 2,048 rows, `a{1,1000}` 8.5 s, `repeat('[a-zé]{1,100}', 4)` 3.7 s (2 cores under a load of 16).
 * Estimated from the text in linear passes, always over: every byte 1, every `.` 8 (any UTF-8
 * character), every `\p`/`\P` Unicode class 2,048, times the product of every number after `{` or
 * `,` (a counted repetition copies what it repeats; RE2 allows at most 1,000 copies in all).
 * Measured per call under that load: `\pL` 1.8 ms, 1,000 literal bytes 0.4 ms, `a{1,100}` 0.6 ms.
 */
export const MAX_REGEX_WEIGHT = 4096;
export const REGEX_WEIGHT_WORDS = 'a regular expression of';

/** True when the pattern `p` may compile into more than MAX_REGEX_WEIGHT. Names `p` 4 times. */
export function regexTooHeavy(p: string): string {
  const dots = `strlen(${sys('regexp_replace', [p, ql('[^.]+'), "''", "'g'"])})`;
  const classes = `len(${sys('regexp_extract_all', [p, ql('\\\\[pP]')])})`;
  const counts = `coalesce(list_aggregate(list_transform(${sys('regexp_extract_all', [p, ql('[{,]([0-9]+)'), '1'])}, x -> greatest(least(x::DOUBLE, 1001), 1)), 'product'), 1)`;
  return `((strlen(${p}) + 7.0 * ${dots} + 2047.0 * ${classes}) * ${counts} > ${MAX_REGEX_WEIGHT})`;
}

const heavy = (name: string) =>
  ql(
    `${name}: ${REGEX_WEIGHT_WORDS} this size and repetition ${COST_LIMIT_PHRASE} of ${MAX_REGEX_WEIGHT} compiled steps`,
  );

/**
 * regexp_matches and regexp_full_match (`~`, SIMILAR TO): the pattern's size checked, the options
 * spelled as inline flags as for the other regex guards.
 */
function matchMacro(name: string): string {
  const two = `(a1 VARCHAR, a2 VARCHAR) AS CASE WHEN ${regexTooHeavy('a2')} THEN error(${heavy(name)}) ELSE ${sys(name, ['a1', 'a2'])} END`;
  const three =
    `(a1 VARCHAR, a2 VARCHAR, a3 VARCHAR) AS CASE WHEN ${badOptions('a3', 'cilmnps')} THEN NULL ` +
    `WHEN ${regexTooHeavy('a2')} THEN error(${heavy(name)}) ELSE ${sys(name, ['a1', flagged('a2', 'a3')])} END`;
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${two}, ${three}`;
}

export const REGEX_MATCH_FUNCTIONS = ['regexp_matches', 'regexp_full_match'] as const;

/**
 * regexp_replace(text, pattern, replacement[, options]): each match adds the replacement's bytes,
 * and each `\0`…`\9` in it the match's text again (all matches together at most the text). One
 * match, or with 'g' up to one per text byte and one more (empty matches):
 *   added ≤ r + k·n, or (n + 1)·r + k·n with 'g'
 * for a text of n bytes and a replacement of r bytes holding k backreferences. Up to doubling the
 * text is never refused (as replace: ',' → ', ' over a long value). The text is named twice in the
 * check.
 */
function replaceMacro(): string {
  const check = (global: string) => {
    const r = 'strlen(a3)';
    const k = `len(${sys('regexp_extract_all', ['a3', ql('\\\\[0-9]')])})`;
    const added = `(strlen(a1) * (${k} + CASE WHEN ${global} THEN ${r} ELSE 0 END)::DOUBLE + ${r})`;
    return `${added} > greatest(${MAX_VALUE_GROWTH}, strlen(a1))`;
  };
  const tooHeavy = `WHEN ${regexTooHeavy('a2')} THEN error(${heavy('regexp_replace')})`;
  const three = `(a1 VARCHAR, a2 VARCHAR, a3 VARCHAR) AS CASE WHEN ${check('false')} THEN error(${refusal('regexp_replace')}) ${tooHeavy} ELSE ${sys('regexp_replace', ['a1', 'a2', 'a3'])} END`;
  const global = `contains(a4, 'g')`;
  const pattern = flagged('a2', 'a4');
  const four =
    `(a1 VARCHAR, a2 VARCHAR, a3 VARCHAR, a4 VARCHAR) AS CASE WHEN ${badOptions('a4', 'cilmnpsg')} THEN NULL ` +
    `WHEN ${check(global)} THEN error(${refusal('regexp_replace')}) ${tooHeavy} ` +
    `WHEN ${global} THEN ${sys('regexp_replace', ['a1', pattern, 'a3', "'g'"])} ELSE ${sys('regexp_replace', ['a1', pattern, 'a3'])} END`;
  return `CREATE OR REPLACE TEMP MACRO regexp_replace${three}, ${four}`;
}

/** A list of up to n + 1 elements of one text's pieces (n bytes): LIST_ELEMENT_BYTES each, plus the text (named once). */
const listOver = (text: string) =>
  `strlen(${text})::DOUBLE * ${LIST_ELEMENT_BYTES + 1} + ${LIST_ELEMENT_BYTES} > ${MAX_VALUE_GROWTH}`;

/**
 * A function returning the list of a text's matches or pieces, with and without options:
 * regexp_split_to_array, string_split_regex, str_split_regex, regexp_extract_all (with a group
 * index). regexp_extract_all's form with a list of group names wants a constant pattern when its
 * call is bound, which a macro's parameter never is: that form is no longer offered (42883).
 */
function listMacro(name: string): string {
  const call = (args: string[]) => sys(name, args);
  const tooHeavy = `WHEN ${regexTooHeavy('a2')} THEN error(${heavy(name)})`;
  const guard = (params: string, over: string, body: string) =>
    `(${params}) AS CASE WHEN ${over} THEN error(${refusal(name)}) ${tooHeavy} ELSE ${body} END`;
  const withOptions = (params: string, over: string, args: string[]) =>
    `(${params}) AS CASE WHEN ${badOptions(args.at(-1)!, 'cilmnps')} THEN NULL WHEN ${over} THEN error(${refusal(name)}) ${tooHeavy} ELSE ${call([args[0]!, flagged(args[1]!, args.at(-1)!), ...args.slice(2, -1)])} END`;
  const overloads =
    name === 'regexp_extract_all'
      ? [
          guard('a1 VARCHAR, a2 VARCHAR', listOver('a1'), call(['a1', 'a2'])),
          guard('a1 VARCHAR, a2 VARCHAR, a3 INTEGER', listOver('a1'), call(['a1', 'a2', 'a3'])),
          withOptions('a1 VARCHAR, a2 VARCHAR, a3 INTEGER, a4 VARCHAR', listOver('a1'), ['a1', 'a2', 'a3', 'a4']),
        ]
      : [
          guard('a1 VARCHAR, a2 VARCHAR', listOver('a1'), call(['a1', 'a2'])),
          withOptions('a1 VARCHAR, a2 VARCHAR, a3 VARCHAR', listOver('a1'), ['a1', 'a2', 'a3']),
        ];
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${overloads.join(', ')}`;
}

export const REGEX_LIST_FUNCTIONS = [
  'regexp_extract_all',
  'regexp_split_to_array',
  'string_split_regex',
  'str_split_regex',
] as const;

/** The statements that install the regex guards on a connection. */
export function regexGuardStatements(): string[] {
  return [replaceMacro(), ...REGEX_LIST_FUNCTIONS.map(listMacro), ...REGEX_MATCH_FUNCTIONS.map(matchMacro)];
}
