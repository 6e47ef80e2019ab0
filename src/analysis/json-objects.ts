/**
 * Every object of a parse tree's JSON (DuckDB's json_serialize_sql, PostgreSQL's grammar), walked by an
 * explicit stack: a deeply nested statement cannot exhaust the call stack.
 */
export type JsonObject = Record<string, unknown>;

export function* jsonObjects(tree: unknown): Generator<JsonObject> {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const n of node) if (n && typeof n === 'object') stack.push(n);
      continue;
    }
    yield node as JsonObject;
    for (const v of Object.values(node)) if (v && typeof v === 'object') stack.push(v);
  }
}
