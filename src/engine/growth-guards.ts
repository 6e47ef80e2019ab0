/**
 * Value guards (value-guards.ts) for the remaining built-ins whose result can be many times their
 * input, found by asking DuckDB (`duckdb_functions()`, each scalar called over a 1 KB input): the
 * text encodings (`bin`/`to_binary` 8×, `hex`/`to_hex` 2×, `url_encode` 3×, `regexp_escape` 2×,
 * `base64` 4/3×), JSON quoting (`to_json` and kin: a control character becomes `\u00XX`, 6×),
 * `json_pretty` (4 spaces per nesting level on every line: 20 KB of nested brackets printed 400 MB
 * in one call), `strftime` (a 2-byte specifier prints up to ~20 bytes), `icu_sort_key` (~3.6×),
 * the ones whose size is an argument (`equi_width_bins`' bin count, `bitstring`'s length) and
 * `list_aggr`/`aggregate` with `string_agg` (the separator once per element). Each is held to the
 * same rule: at most MAX_VALUE_GROWTH bytes more than its largest input, else 54000.
 *
 * Left to the process ceilings, growing at most 3× and linearly: `upper`/`lower` (ß → SS),
 * `nfc_normalize`, `st_astext`, `json_array`/`json_object` (variadic), and casts (a BLOB's text
 * escapes a byte as `\xNN`), which no macro can shadow.
 */
import { COST_LIMIT_PHRASE } from './cost-guards.js';
import { MAX_LIST_ELEMENTS } from './list-guards.js';
import { MAX_VALUE_GROWTH } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';
const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

const refusal = (name: string) =>
  ql(`${name}: a result ${COST_LIMIT_PHRASE} of ${MAX_VALUE_GROWTH} bytes more than its largest input`);

/** One overload: its parameters (typed like the built-in's where the check needs the type) and when it refuses. */
type Overload = [params: string[], over: string | null];

function guarded(name: string, overloads: Overload[]): string {
  const bodies = overloads.map(([params, over]) => {
    const call = sys(
      name,
      params.map((p) => p.split(' ')[0]!),
    );
    return `(${params.join(', ')}) AS ${over ? `CASE WHEN ${over} THEN error(${refusal(name)}) ELSE ${call} END` : call}`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

const adds = (bytes: string) => `${bytes} > ${MAX_VALUE_GROWTH}`;

/**
 * An encoding that adds up to `factor` bytes per input byte: a text by its bytes, a BLOB by its
 * bytes (its text form would count an escaped byte 4 times), anything else (numbers) by its text.
 */
function encoding(name: string, factor: number, blob = true): string {
  return guarded(name, [
    [['a1 VARCHAR'], adds(`strlen(a1) * ${factor}`)],
    ...(blob ? [[['a1 BLOB'], adds(`octet_length(a1) * ${factor}`)] as Overload] : []),
    [['a1'], adds(`strlen(a1::VARCHAR) * ${factor}`)],
  ]);
}

/**
 * JSON quoting adds 5 bytes per control character (`\u00XX`) and 1 per quote or backslash; only a
 * text over MAX_VALUE_GROWTH / 5 bytes is searched for them (one linear RE2 pass).
 */
function jsonQuoting(name: string): string {
  const text = 'a1::VARCHAR';
  const escaped = `strlen(${text}) - strlen(${sys('regexp_replace', [text, ql('[\\x00-\\x1f"\\\\]'), "''", "'g'"])})`;
  return guarded(name, [
    [
      ['a1'],
      `CASE WHEN strlen(${text}) <= ${Math.floor(MAX_VALUE_GROWTH / 5)} THEN false ELSE ${adds(`(${escaped}) * 5`)} END`,
    ],
  ]);
}

/**
 * json_pretty puts every value and closing bracket on its own line, indented 4 spaces per level:
 * at most (commas + 2 × brackets + 1) lines, each at most 4 × brackets deep, plus a space after
 * each colon. Counted with linear passes, and only over a text of more than 4 KiB.
 */
function jsonPretty(): string {
  const count = (chars: string) =>
    `(strlen(a1) - strlen(${sys('regexp_replace', ['a1', ql(`[${chars}]`), "''", "'g'"])}))`;
  const brackets = count('\\[{');
  const lines = `(${count(',')} + 2 * ${brackets} + 1)`;
  return guarded('json_pretty', [
    [
      ['a1 VARCHAR'],
      `CASE WHEN strlen(a1) <= 4096 THEN false ELSE ${adds(`4.0 * ${brackets} * ${lines} + ${lines} + strlen(a1)`)} END`,
    ],
  ]);
}

/** strftime's format, in either argument order, prints at most 10 bytes per byte. */
function strftime(): string {
  return guarded('strftime', [
    [['a1', 'a2 VARCHAR'], adds('strlen(a2) * 10')],
    [['a1 VARCHAR', 'a2'], adds('strlen(a1) * 10')],
  ]);
}

/**
 * array_to_string(list, separator): the separator once per element. (list_aggr with string_agg,
 * which it calls, cannot be shadowed: DuckDB wants the aggregate's name constant when the macro
 * is created; admission bounds its separator instead, analysis/size-limits.ts.)
 */
function arrayToString(): string {
  return guarded('array_to_string', [[['a1', 'a2'], adds('len(a1) * strlen(a2::VARCHAR)')]]);
}

/**
 * JSON extraction into a list: a wildcard path (`$[*]`, `$.*`) makes each element of the text a
 * list element, 32 bytes of DuckDB's list and string headers for as little as 2 bytes of text (`1,`):
 * 16× the text. An attacker review built 130,001-element lists from 260 KB texts over 2,048 rows in
 * one vector (RSS to the data limit; the process died once). A list of paths copies at most the
 * text per path; `json_keys` lists at most one key per 4 bytes. from_json/json_transform with a
 * list in their structure: jsonTransformGrows.
 */
function jsonLists(): string[] {
  const text = 'strlen(a1::VARCHAR)';
  const extraction = (name: string) =>
    guarded(name, [
      [['a1', 'a2 BIGINT'], null],
      [['a1', 'a2 VARCHAR'], `strpos(a2, '*') > 0 AND ${adds(`${text} * 16`)}`],
      [['a1', 'a2 VARCHAR[]'], adds(`len(a2) * (${text} + 32)`)],
    ]);
  return [
    extraction('json_extract'),
    extraction('json_extract_string'),
    guarded('json_keys', [
      [['a1'], adds(`${text} * 8`)],
      [['a1', 'a2'], adds(`${text} * 8`)],
    ]),
  ];
}

/**
 * from_json/json_transform (and their `_strict` forms) with a structure `structure` holding a list or
 * a map anywhere (`'["VARCHAR"]'`, `'"INTEGER[]"'`, `'{"a": "MAP(VARCHAR, JSON)"}'`) list every
 * element of the text `text` as a wildcard path does: held to the same 16×. Their guard macro is the
 * nesting guard's (nesting-guards.ts), which checks the structure's depth; this is its growth condition.
 */
export function jsonTransformGrows(text: string, structure: string): string {
  const s = `${structure}::VARCHAR`;
  return `(strpos(${s}, '[') > 0 OR strpos(upper(${s}), 'MAP') > 0) AND ${adds(`strlen(${text}::VARCHAR) * 16`)}`;
}

/** The refusal of a growth guard, for a guard installed elsewhere (jsonTransformGrows). */
export const growthRefusal = refusal;

/** The statements that install the growth guards on a connection. */
export function growthGuardStatements(): string[] {
  return [
    encoding('bin', 7, false),
    encoding('to_binary', 7, false),
    encoding('hex', 1),
    encoding('to_hex', 1),
    guarded('url_encode', [[['a1 VARCHAR'], adds('strlen(a1) * 2')]]),
    guarded('regexp_escape', [[['a1 VARCHAR'], adds('strlen(a1)')]]),
    ...['base64', 'to_base64'].map((name) =>
      guarded(name, [
        [['a1 BLOB'], adds('octet_length(a1) / 3')],
        [['a1'], adds('strlen(a1::VARCHAR) / 3')],
      ]),
    ),
    ...['to_json', 'json_quote'].map(jsonQuoting),
    jsonPretty(),
    strftime(),
    guarded('equi_width_bins', [[['a1', 'a2', 'a3', 'a4'], `a3 > ${MAX_LIST_ELEMENTS}`]]),
    guarded('bitstring', [[['a1', 'a2'], adds('a2::DOUBLE / 8')]]),
    arrayToString(),
    ...jsonLists(),
  ];
}
