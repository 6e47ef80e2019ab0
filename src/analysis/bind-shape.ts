/**
 * What a text binds to, less the values that cannot change it: DuckDB's parse of the text with each
 * plain constant's value taken out (its type kept) and source positions dropped, so a dashboard's
 * texts that differ only in their literals (`WHERE id = 7`, `BETWEEN 1 AND 20`, `LIMIT 10`) have one
 * shape, and the engine line's verdict on one (side-effects.ts) holds for all of them.
 *
 * A constant keeps its value wherever the binder could read it to decide what runs:
 *  - under a function call (a macro — the guards, the version's, the emulation's, any of which may
 *    shadow a built-in — expands its arguments into its body, where one can become a table
 *    function's file or query; built-ins read constant arguments at bind too: a variable's or
 *    setting's name, a type named by a string, a query string), and under any expression DuckDB binds
 *    as a function it looks up by name (`x[i]`, `x[a:b]`, TRY …) or that is not known to bind its
 *    constants as values (`*` / COLUMNS patterns, lambdas, windows);
 *  - inside a table function's or a table's reference (arguments, time travel's AT clause), or any
 *    FROM item but a join, a subquery or VALUES.
 * Under an operator (`5 + x`, `a || 'b'`: DuckDB's parse marks them) only: its values are taken out of
 * the shape but listed apart with the operators' names, and the caller keeps them in its key unless no
 * operator of the list is a macro where the text is bound (a built-in operator cannot make a plan read
 * anything: it is an expression).
 * Everything else in the tree is kept as DuckDB wrote it: names, file names read by replacement scans
 * (a table name, never a constant), types, operators. EXPLAIN's head is the caller's.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface BindShape {
  /**
   * The parse tree with plain constants' values, and those under operators only, taken out; undefined
   * where the tree holds an integer JSON cannot carry exactly (beyond 2^53: the caller keys by text).
   */
  readonly shape: string | undefined;
  /** Operators (lower-cased) some constant taken out was an argument of, under no other call. */
  readonly operators: readonly string[];
  /** Those constants' values, in order, as JSON. */
  readonly operatorValues: string;
}

/**
 * Expressions DuckDB binds itself, never through a function it looks up by name (which a macro can
 * be): under these a constant is a plain value. `x[i]`, `x[a:b]`, TRY, UNPACK … are OPERATOR nodes
 * that DuckDB binds as array_extract(), array_slice() …, looked up like any function.
 */
const VALUE_EXPRESSIONS = new Set(['COMPARISON', 'CONJUNCTION', 'BETWEEN', 'CASE', 'CAST', 'SUBQUERY', 'COLLATE']);
const VALUE_OPERATORS = new Set([
  'OPERATOR_NOT',
  'OPERATOR_IS_NULL',
  'OPERATOR_IS_NOT_NULL',
  'COMPARE_IN',
  'COMPARE_NOT_IN',
  'OPERATOR_COALESCE',
]);
/** FROM items that only hold other items or plain values (a table's, a table function's, … read constants). */
const VALUE_FROM = new Set(['JOIN', 'SUBQUERY', 'EXPRESSION_LIST', 'EMPTY']);

/** Nodes under which every constant keeps its value: any expression or FROM item not known to bind constants as values. */
function readsConstantsAtBind(node: { [key: string]: Json }): boolean {
  if (typeof node.class === 'string') {
    if (node.class === 'OPERATOR') return !VALUE_OPERATORS.has(String(node.type));
    if (node.class === 'FUNCTION') return node.is_operator !== true;
    return !VALUE_EXPRESSIONS.has(node.class) && node.class !== 'CONSTANT';
  }
  // a FROM item (as the analysis tells them: a position and a sample, no expression class)
  const fromItem = typeof node.type === 'string' && 'query_location' in node && 'sample' in node;
  return fromItem && !VALUE_FROM.has(String(node.type));
}

/** Where a constant is: a plain value, an operator's argument only, or read at bind. */
type Place = 'value' | 'operator' | 'kept';

/** Object keys as JSON writes them, quoted once: a parse tree spells a few dozen names over and over. */
const quotedKeys = new Map<string, string>();
function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < 4096) quotedKeys.set(key, q);
  }
  return q;
}

/** A JSON scalar as JSON.stringify writes it (numbers and booleans without its call). */
function scalar(v: Json): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return 'null';
  }
}

/** The shape of DuckDB's parse tree of one statement (json_serialize_sql's `statements[0]`). */
export function bindShape(statement: unknown): BindShape {
  let out = '';
  const operators = new Set<string>();
  const values: Json[] = [];
  let inexact = false;
  // An explicit stack (no recursion), as the analysis' walk: a deeply nested text cannot exhaust the
  // call stack. Each item is text to write or a value to expand, pushed in reverse.
  const stack: (string | { v: Json; place: Place })[] = [{ v: statement as Json, place: 'value' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const { v, place } = item;
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isSafeInteger(v) && Number.isInteger(v)) inexact = true;
      out += scalar(v);
    } else if (Array.isArray(v)) {
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i]!, place });
        if (i > 0) stack.push(',');
      }
      out += '[';
    } else if (place !== 'kept' && v.class === 'CONSTANT') {
      // the value's type stays: `= 5` and `= '5'` bind differently
      const value = v.value;
      const type = value && typeof value === 'object' && !Array.isArray(value) ? (value.type ?? null) : null;
      out += `{"constant":${JSON.stringify(type)},"alias":${JSON.stringify(v.alias ?? '')}}`;
      if (place === 'operator') {
        values.push(value ?? null);
        JSON.stringify(value, (_, x: unknown) => {
          if (typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x)) inexact = true;
          return x;
        });
      }
    } else {
      let inner = place;
      if (readsConstantsAtBind(v)) inner = 'kept';
      else if (place === 'value' && v.class === 'FUNCTION') inner = 'operator';
      if (inner === 'operator' && v.class === 'FUNCTION') operators.add(String(v.function_name).toLowerCase());
      const keys = Object.keys(v);
      stack.push('}');
      // positions are dropped: the first key written has no comma before it
      const first = keys.findIndex((k) => k !== 'query_location');
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (key === 'query_location') continue;
        stack.push({ v: v[key]!, place: inner });
        stack.push(i > first ? `,${quoted(key)}:` : `${quoted(key)}:`);
      }
      out += '{';
    }
  }
  return {
    shape: inexact ? undefined : out,
    operators: [...operators],
    operatorValues: JSON.stringify(values),
  };
}
