/**
 * What a text binds to, less the values that cannot change it: DuckDB's parse of the text with each
 * plain constant's value taken out (its type kept) and source positions dropped, so a dashboard's
 * texts that differ only in their literals (`WHERE id = 7`, `BETWEEN 1 AND 20`, `LIMIT 10`) have one
 * shape, and the engine line's verdict on one (side-effects.ts) holds for all of them.
 *
 * A constant keeps its value wherever the binder could read it to decide what runs:
 *  - under a function call of any kind (a macro — the guards, the version's, the emulation's, any of
 *    which may shadow a built-in or an operator — expands its arguments into its body, where one can
 *    become a table function's file or query; built-ins read constant arguments at bind too: a
 *    variable's or setting's name, a type named by a string, a query string);
 *  - inside a table function's or a table's reference (arguments, time travel's AT clause);
 *  - inside `*` / COLUMNS(…) (a pattern naming columns).
 * Everything else in the tree is kept as DuckDB wrote it: names, file names read by replacement scans
 * (a table name, never a constant), types, operators, EXPLAIN's head is added by the caller.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Nodes under which every constant keeps its value. */
function readsConstantsAtBind(node: { [key: string]: Json }): boolean {
  return (
    node.class === 'FUNCTION' ||
    node.class === 'STAR' ||
    node.type === 'TABLE_FUNCTION' ||
    node.type === 'BASE_TABLE' ||
    node.type === 'SHOW_REF' ||
    node.type === 'PIVOT'
  );
}

/** The shape of DuckDB's parse tree of one statement (json_serialize_sql's `statements[0]`). */
export function bindShape(statement: unknown): string {
  const out: string[] = [];
  // An explicit stack (no recursion), as the analysis' walk: a deeply nested text cannot exhaust the
  // call stack. Each item is text to write or a value to expand, pushed in reverse.
  const stack: (string | { v: Json; keep: boolean })[] = [{ v: statement as Json, keep: false }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const { v, keep } = item;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i]!, keep });
        if (i > 0) stack.push(',');
      }
      out.push('[');
    } else if (!keep && v.class === 'CONSTANT') {
      // the value's type stays: `= 5` and `= '5'` bind differently
      const value = v.value;
      const type = value && typeof value === 'object' && !Array.isArray(value) ? (value.type ?? null) : null;
      out.push(`{"constant":${JSON.stringify(type)},"alias":${JSON.stringify(v.alias ?? '')}}`);
    } else {
      const inner = keep || readsConstantsAtBind(v);
      const keys = Object.keys(v).filter((k) => k !== 'query_location');
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ v: v[keys[i]!]!, keep: inner });
        stack.push(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`);
      }
      out.push('{');
    }
  }
  return out.join('');
}
