/**
 * Value guards (value-guards.ts) for the scalar functions that build a list whose length is an
 * argument: `range`/`generate_series` as values, `list_resize`/`array_resize`, and the splits of a
 * text (`string_split` and its aliases). `len(range(n))` with n = 100,000,000 from a row passed the
 * constant-size check (analysis/size-limits.ts sees only constants) and built 800 MB in one call
 * before its 57014. Each call may add at most MAX_VALUE_GROWTH bytes, counting ELEMENT_BYTES per
 * element of a number or timestamp list (a BIGINT and its share of the list's bookkeeping), 16 per
 * text piece; over it, 54000. The table functions (`FROM range(n)`) stream their rows and are not
 * these macros: a macro of the same name in `temp` shadows only the scalar function.
 *
 * The macros' parameters are typed as the built-ins' overloads (BIGINT; timestamps with an INTERVAL
 * step), so a call binds the overload it bound before.
 */
import { CHECKED_PATTERN_BYTES, COST_LIMIT_PHRASE, searchTextLimit } from './cost-guards.js';
import { LIST_ELEMENT_BYTES } from './regex-guards.js';
import { MAX_VALUE_GROWTH } from './cost-limit.js';
import { quoteIdent as qi, quoteLiteral as ql } from '../quote.js';

/** Bytes counted per element of a list of numbers or timestamps. */
export const ELEMENT_BYTES = 8;
/** The most elements one range/generate_series call may build. */
export const MAX_LIST_ELEMENTS = MAX_VALUE_GROWTH / ELEMENT_BYTES;

const sys = (name: string, args: string[]) => `system.main.${qi(name)}(${args.join(', ')})`;

const refusal = (name: string, what: string) =>
  ql(`${name}: ${what} ${COST_LIMIT_PHRASE} of ${MAX_VALUE_GROWTH} bytes`);

function guarded(name: string, overloads: [params: string[], over: string, what: string][]): string {
  const bodies = overloads.map(([params, over, what]) => {
    const names = params.map((p) => p.split(' ')[0]!);
    return `(${params.join(', ')}) AS CASE WHEN ${over} THEN error(${refusal(name, what)}) ELSE ${sys(name, names)} END`;
  });
  return `CREATE OR REPLACE TEMP MACRO ${qi(name)}${bodies.join(', ')}`;
}

/** range/generate_series as a value: (stop), (start, stop), (start, stop, step), and over timestamps with an interval step. */
function seriesMacro(name: string): string {
  const what = `a list of more than ${MAX_LIST_ELEMENTS} elements`;
  const over = (count: string) => `${count} > ${MAX_LIST_ELEMENTS}`;
  const overTimes = over(`abs((epoch(a2) - epoch(a1)) / epoch(a3))`);
  return guarded(name, [
    [['a1 BIGINT'], over('a1'), what],
    [['a1 BIGINT', 'a2 BIGINT'], over('(a2::DOUBLE - a1)'), what],
    [['a1 BIGINT', 'a2 BIGINT', 'a3 BIGINT'], over('abs((a2::DOUBLE - a1) / a3)'), what],
    // One overload for both timestamp kinds, told apart by the step: DuckDB's binder cannot type an
    // aggregate or a LATERAL's outer column in a macro's argument, and two overloads then both matched.
    [['a1', 'a2', 'a3 INTERVAL'], overTimes, what],
  ]);
}

/** list_resize/array_resize(list, size[, value]): the new elements, each as large as the first element's or the value's text. */
function resizeMacro(name: string): string {
  const what = 'a result';
  const grown = (each: string) => `(a2::DOUBLE - len(a1)) * (${LIST_ELEMENT_BYTES} + ${each}) > ${MAX_VALUE_GROWTH}`;
  return guarded(name, [
    [['a1', 'a2'], grown(`coalesce(strlen(a1[1]::VARCHAR), 0)`), what],
    [['a1', 'a2', 'a3'], grown(`coalesce(strlen(a3::VARCHAR), 0)`), what],
  ]);
}

/** string_split(text, separator) and its aliases: at most n / separator + 1 pieces (n with an empty separator). */
function splitMacro(name: string): string {
  const grows = `(${MAX_VALUE_GROWTH} - ${LIST_ELEMENT_BYTES}) / (${LIST_ELEMENT_BYTES} / greatest(strlen(a2), 1) + 1)`;
  // A separator is searched for at every position of the text, as strpos (cost-guards.ts searchTextLimit).
  const over = `strlen(a1) > least(${grows}, ${searchTextLimit('a2')})`;
  const what = `a separator over ${CHECKED_PATTERN_BYTES} bytes in a long text, or a result`;
  return guarded(name, [[['a1 VARCHAR', 'a2 VARCHAR'], over, what]]);
}

export const SPLIT_FUNCTIONS = ['string_split', 'str_split', 'string_to_array', 'split'] as const;

/** The statements that install the list guards on a connection. */
export function listGuardStatements(): string[] {
  return [
    seriesMacro('range'),
    seriesMacro('generate_series'),
    resizeMacro('list_resize'),
    resizeMacro('array_resize'),
    ...SPLIT_FUNCTIONS.map(splitMacro),
  ];
}
