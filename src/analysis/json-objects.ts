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
    pushMembers(stack, node);
  }
}

/**
 * The members of `node` that are objects (an array's items, an object's values) pushed onto `stack` in
 * Object.values' order, without building that array: a new text's tree is walked by a dozen checks,
 * and the arrays of every node's values were most of what those walks allocated.
 */
export function pushMembers(stack: unknown[], node: object): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const v: unknown = node[i];
      if (v !== null && typeof v === 'object') stack.push(v);
    }
    return;
  }
  for (const key in node) {
    const v = (node as JsonObject)[key];
    if (v !== null && typeof v === 'object') stack.push(v);
  }
}
