/**
 * PostgreSQL 15's regular-expression functions DuckDB lacks or spells otherwise — regexp_match,
 * regexp_like, regexp_count, regexp_substr, regexp_instr — over DuckDB's regexp_matches, regexp_extract
 * and regexp_extract_all, a constant pattern read as PostgreSQL's ARE (are-pattern.ts, as `~` and
 * regexp_replace). Flags must be a constant; a pattern that is not one is DuckDB's RE2 syntax.
 * What DuckDB cannot tell apart is refused: a group that took no part in the match from one that matched
 * nothing (both '' in DuckDB, NULL and '' in PostgreSQL) when a row meets it; a start past 1 with an
 * anchor or word boundary (PostgreSQL still sees the text before the start); positions of a pattern that
 * can match an empty string, or of a group.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { re2Pattern } from './are-pattern.js';
import { refuse } from './pg-calls.js';
import { call, compat, strConst, type Node } from './rewrite-nodes.js';

export const REGEXP_FUNCTIONS: ReadonlySet<string> = new Set([
  'regexp_match',
  'regexp_like',
  'regexp_count',
  'regexp_substr',
  'regexp_instr',
]);

/** The argument positions of each function (PostgreSQL's signatures), from the third on. */
const OPTIONAL: Record<string, string[]> = {
  regexp_match: ['flags'],
  regexp_like: ['flags'],
  regexp_count: ['start', 'flags'],
  regexp_substr: ['start', 'n', 'flags', 'subexpr'],
  regexp_instr: ['start', 'n', 'endoption', 'flags', 'subexpr'],
};

const int = (ival: number): Node => ({ A_Const: { ival: ival === 0 ? {} : { ival } } });
const intValue = (n: Node | undefined): number | undefined => {
  const c = n?.A_Const;
  if (!c || c.isnull) return undefined;
  if (c.ival) return Number(c.ival.ival ?? 0);
  return undefined;
};
/** PostgreSQL's result type of each function, for a NULL argument's answer. */
const RESULT: Record<string, string> = {
  regexp_match: 'text[]',
  regexp_like: 'bool',
  regexp_count: 'int4',
  regexp_substr: 'text',
  regexp_instr: 'int4',
};
const typedNull = (fn: string): Node => {
  const type = RESULT[fn]!;
  const array = type.endsWith('[]');
  return {
    TypeCast: {
      arg: { A_Const: { isnull: true } },
      typeName: {
        names: [{ String: { sval: array ? type.slice(0, -2) : type } }],
        typemod: -1,
        ...(array ? { arrayBounds: [{ Integer: { ival: -1 } }] } : {}),
      },
    },
  };
};
const invalidValue = (param: string, value: number): SqlError =>
  new SqlError(SQLSTATE.invalidParameterValue, `invalid value for parameter "${param}": ${value}`);

/** PostgreSQL's flags as RE2 reads them (case folding in the pattern), or its 22023; `g` is not taken here. */
function flagsRead(fn: string, flags: string): { insensitive: boolean; newline: string } {
  let insensitive = false;
  let newline = '';
  for (const f of flags) {
    if (f === 'i') insensitive = true;
    else if (f === 'c') insensitive = false;
    else if (f === 'n' || f === 'm' || f === 'p' || f === 'w') newline += f === 'm' ? 'n' : f;
    else if (f === 's') newline = '';
    else if (f === 't') continue;
    else if (f === 'g')
      throw new SqlError(
        SQLSTATE.invalidParameterValue,
        `${fn}() does not support the "global" option`,
        undefined,
        fn === 'regexp_match' ? 'Use the regexp_matches function instead.' : undefined,
      );
    else if (f === 'x' || f === 'q' || f === 'b' || f === 'e')
      throw refuse(
        `the regular expression flag "${f}"`,
        'DuckDB matches with RE2, which reads only advanced regular expressions: write the pattern without it (x: drop the spaces and comments; q: escape the special characters).',
      );
    else throw new SqlError(SQLSTATE.invalidParameterValue, `invalid regular expression option: "${f}"`);
  }
  return { insensitive, newline };
}

/**
 * Capturing groups of an RE2 pattern: whether each may take no part in a match, and whether it can
 * match an empty string (judged by JavaScript's reading of the group; one it cannot read can).
 */
export function captureGroups(re2: string): Array<{ optional: boolean; empty: boolean }> {
  const groups: Array<{ capture: number | undefined; open: number; close: number }> = [];
  const stack: number[] = [];
  const optional: boolean[] = [];
  const bars: Array<number | undefined> = []; // the innermost group around each `|` (undefined: the top)
  let captures = 0;
  let bracket = false;
  for (let i = 0; i < re2.length; i++) {
    const ch = re2[i]!;
    if (ch === '\\') {
      i++;
    } else if (bracket) {
      if (ch === ']') bracket = false;
    } else if (ch === '[') {
      bracket = true;
      if (re2[i + 1] === '^') i++;
      if (re2[i + 1] === ']') i++;
    } else if (ch === '(') {
      const capture = re2[i + 1] === '?' ? undefined : captures++;
      if (capture !== undefined) optional.push(false);
      stack.push(groups.length);
      groups.push({ capture, open: i, close: re2.length });
    } else if (ch === ')') {
      const g = groups[stack.pop()!];
      if (!g) continue;
      g.close = i;
      // a quantifier that allows none makes the group, and every group inside it, optional
      if (/^(?:[?*]|\{0|\{,)/.test(re2.slice(i + 1))) markInside(g.open, g.close, true);
    } else if (ch === '|') bars.push(stack[stack.length - 1]);
  }
  function markInside(open: number, close: number, self: boolean) {
    for (const g of groups)
      if (g.capture !== undefined && (self ? g.open >= open : g.open > open) && g.close <= close)
        optional[g.capture] = true;
  }
  // an alternative makes every group inside the alternation optional
  for (const at of bars) {
    if (at === undefined) markInside(-1, re2.length, false);
    else markInside(groups[at]!.open, groups[at]!.close, false);
  }
  return groups
    .filter((g) => g.capture !== undefined)
    .map((g) => ({ optional: optional[g.capture!]!, empty: matchesEmpty(re2.slice(g.open + 1, g.close)) }));
}

function matchesEmpty(body: string): boolean {
  try {
    return new RegExp(`^(?:${body})$`, 'su').test('');
  } catch {
    return true;
  }
}

const UNSURE = `a group that may take no part in the match, matching nothing here, is not supported by fdl-gateway|DuckDB gives '' both for a group that matched nothing and for one that took no part (PostgreSQL: NULL): make the group match at least one character, or test it apart.`;

/**
 * A group's text: '' of a group that may take no part is NULL where the group cannot match an empty
 * string, and refused on the row where it can.
 */
const surely = (value: Node, group: { optional: boolean; empty: boolean } | undefined): Node =>
  !group?.optional ? value : group.empty ? compat('_pgsem_re_sure', [value]) : call(['nullif'], [value, strConst('')]);

/**
 * A call of one of REGEXP_FUNCTIONS with its arguments walked: PostgreSQL's answer, a 0A000, or
 * PostgreSQL's 22023 for a bad argument. Undefined for a number of arguments PostgreSQL has no such function of.
 */
export function regexpFunctionCall(fn: string, args: Node[]): Node | undefined {
  const optional = OPTIONAL[fn]!;
  if (args.length < 2 || args.length > 2 + optional.length) return undefined;
  const arg = (name: string): Node | undefined =>
    optional.includes(name) ? args[2 + optional.indexOf(name)] : undefined;
  const flagsNode = arg('flags');
  const flags = flagsNode === undefined ? '' : flagsNode.A_Const?.sval?.sval;
  if (flagsNode?.A_Const?.isnull) return typedNull(fn);
  if (typeof flags !== 'string')
    throw refuse(`${fn}() with flags that are not a constant`, 'Write the flags as a constant string.');
  const { insensitive, newline } = flagsRead(fn, flags);
  const patternText = args[1]!.A_Const?.sval?.sval;
  const re2 = typeof patternText === 'string' ? re2Pattern(patternText, newline) : undefined;
  const pattern = re2 === undefined ? args[1]! : strConst(`${insensitive ? '(?i)' : ''}${re2}`);
  if (re2 === undefined && (insensitive || newline))
    throw refuse(`${fn}() of a pattern that is not a constant, with flags`, 'Write the pattern as a constant string.');
  const groups = re2 === undefined ? [] : captureGroups(re2);
  const s = args[0]!;

  // constant arguments checked as PostgreSQL does before any row; others by the macros, per row
  for (const [name, min] of [
    ['start', 1],
    ['n', 1],
    ['subexpr', 0],
  ] as const) {
    const v = intValue(arg(name));
    if (v !== undefined && v < min) throw invalidValue(name, v);
  }
  const endoption = intValue(arg('endoption'));
  if (endoption !== undefined && endoption !== 0 && endoption !== 1) throw invalidValue('endoption', endoption);

  const start = arg('start') ?? int(1);
  if (intValue(start) !== 1 && (re2 === undefined || zeroWidthAssertion(re2)))
    throw refuse(
      `${fn}() from a start past 1 with an anchor or a word boundary in the pattern`,
      'PostgreSQL still sees the text before the start there: match substr(s, start) with the anchor, or the whole text.',
    );

  if (fn === 'regexp_like') return call(['regexp_matches'], [s, pattern]);
  if (fn === 'regexp_match') {
    const values = groups.length
      ? groups.map((g, i) => surely(call(['regexp_extract'], [s, pattern, int(i + 1)]), g))
      : [call(['regexp_extract'], [s, pattern, int(0)])];
    return {
      CaseExpr: {
        args: [
          { CaseWhen: { expr: call(['regexp_matches'], [s, pattern]), result: { A_ArrayExpr: { elements: values } } } },
        ],
      },
    };
  }
  if (fn === 'regexp_count') return compat('_pgsem_re_count', [s, pattern, start]);
  const n = arg('n') ?? int(1);
  const subexprNode = arg('subexpr');
  const subexpr = subexprNode === undefined ? 0 : intValue(subexprNode);
  if (subexprNode?.A_Const?.isnull) return typedNull(fn);
  if (subexpr === undefined)
    throw refuse(
      `${fn}() with a subexpression that is not a constant`,
      'Write the subexpression number as a constant.',
    );
  if (fn === 'regexp_substr') {
    // a group the pattern has not: NULL, as PostgreSQL
    if (re2 !== undefined && subexpr > groups.length) return typedNull(fn);
    const value = compat('_pgsem_re_substr', [s, pattern, start, n, int(subexpr)]);
    return surely(value, subexpr > 0 ? groups[subexpr - 1] : undefined);
  }
  // regexp_instr: the match's place from the texts between matches (string_split_regex) and the matches'
  if (subexpr > 0)
    throw refuse(
      'regexp_instr() of a subexpression',
      "DuckDB gives no group's position: regexp_instr(s, pattern) gives the whole match's, strpos(s, regexp_substr(s, pattern, 1, 1, '', n)) a first guess.",
    );
  if (re2 === undefined || zeroWidthAssertion(re2)) throw emptyMatchRefused();
  return compat('_pgsem_re_instr', [s, pattern, start, n, arg('endoption') ?? int(0)]);
}

function emptyMatchRefused(): SqlError {
  return refuse(
    'regexp_instr() of a pattern that can match an empty string',
    'Make the pattern match at least one character (\\s+ rather than \\s*).',
  );
}

/** An anchor or word boundary outside a bracket expression of an RE2 pattern (`^`, `$`, `\b`, `\B`, `\A`, `\z`). */
export function zeroWidthAssertion(re2: string): boolean {
  let inBracket = false;
  for (let i = 0; i < re2.length; i++) {
    const ch = re2[i]!;
    if (ch === '\\') {
      if (!inBracket && /[bBAz]/.test(re2[i + 1] ?? '')) return true;
      i++;
    } else if (inBracket) {
      if (ch === ']') inBracket = false;
    } else if (ch === '[') {
      inBracket = true;
      if (re2[i + 1] === '^') i++;
      if (re2[i + 1] === ']') i++; // a leading ] is a member
    } else if (ch === '^' || ch === '$') return true;
  }
  return false;
}

const STRICT_START = (what: string) =>
  `WHEN start <= 0 THEN error('invalid value for parameter "start": ' || start)
   WHEN n <= 0 THEN error('invalid value for parameter "n": ' || n)
   WHEN start > length(s) + 1 THEN ${what}`;

export const REGEXP_MACROS: ReadonlyArray<[string, string]> = [
  ['_pgsem_re_sure(x)', `CASE WHEN x = '' THEN error('${UNSURE.replaceAll("'", "''")}') ELSE x END`],
  [
    '_pgsem_re_count(s, re, start)',
    `CAST(CASE WHEN start <= 0 THEN error('invalid value for parameter "start": ' || start)
      WHEN start > length(s) + 1 THEN 0 ELSE len(regexp_extract_all(substr(s, start), re)) END AS INTEGER)`,
  ],
  [
    '_pgsem_re_substr(s, re, start, n, g)',
    `CASE ${STRICT_START('NULL')} ELSE regexp_extract_all(substr(s, start), re, g)[n] END`,
  ],
  // a pattern that can match an empty string is refused per row (DuckDB splits at an empty match otherwise)
  [
    '_pgsem_re_instr(s, re, start, n, e)',
    `CAST(CASE WHEN e NOT IN (0, 1) THEN error('invalid value for parameter "endoption": ' || e)
      WHEN regexp_full_match('', re) THEN error('regexp_instr() of a pattern that can match an empty string is not supported by fdl-gateway|Make the pattern match at least one character (\\s+ rather than \\s*).')
      ${STRICT_START('0')}
      ELSE list_transform([{'m': regexp_extract_all(substr(s, start), re), 'p': string_split_regex(substr(s, start), re)}], lambda fdl_ri:
        CASE WHEN n > len(fdl_ri.m) THEN 0
          ELSE start + list_sum(list_transform(fdl_ri.p[1:n], lambda fdl_rx: length(fdl_rx)))
            + coalesce(list_sum(list_transform(fdl_ri.m[1:n - 1], lambda fdl_rx: length(fdl_rx))), 0)
            + e * length(fdl_ri.m[n]) END)[1] END AS INTEGER)`,
  ],
];
