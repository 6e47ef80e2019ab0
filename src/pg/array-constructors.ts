/**
 * PostgreSQL's `ARRAY[…]` spelled as DuckDB's `list_value(…)` in the text the rewrite prints. DuckDB
 * binds an ARRAY[…] constructor's elements before it looks up `list_value`, and the engine's guard of
 * that name (engine/list-constructor-guards.ts) is a macro, which cannot take bound arguments: the
 * call form binds through the guard. A list longer than the guard takes is built in parts joined by
 * `list_concat` (itself guarded, engine/concat-guards.ts). Runs last, on the walked tree: the
 * translations before it read ARRAY[…] as such.
 */
import { MAX_LIST_CONCAT_ARGS } from '../engine/concat-guards.js';
import { MAX_LIST_CONSTRUCTOR_ARGS } from '../engine/list-constructor-guards.js';
import { call, type Node } from './parse-nodes.js';

/** A list of `elements`, in parts of at most MAX_LIST_CONSTRUCTOR_ARGS, joined as needed. */
function listOf(elements: Node[]): Node {
  if (elements.length <= MAX_LIST_CONSTRUCTOR_ARGS) return call('list_value', elements);
  const parts: Node[] = [];
  for (let i = 0; i < elements.length; i += MAX_LIST_CONSTRUCTOR_ARGS)
    parts.push(call('list_value', elements.slice(i, i + MAX_LIST_CONSTRUCTOR_ARGS)));
  return joined(parts);
}

function joined(parts: Node[]): Node {
  if (parts.length <= MAX_LIST_CONCAT_ARGS) return call('list_concat', parts);
  const groups: Node[] = [];
  for (let i = 0; i < parts.length; i += MAX_LIST_CONCAT_ARGS)
    groups.push(call('list_concat', parts.slice(i, i + MAX_LIST_CONCAT_ARGS)));
  return joined(groups);
}

/** The ARRAY[…] nodes of `tree`, outermost first, each once (a subtree may be placed at several places). */
function arraysOf(tree: object): Node[] {
  const seen = new Set<object>();
  const arrays: Node[] = [];
  const stack: object[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()! as Node;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.A_ArrayExpr) arrays.push(node);
    for (const v of Object.values(node)) if (v !== null && typeof v === 'object') stack.push(v as object);
  }
  return arrays;
}

/**
 * `tree` with every ARRAY[…] spelled as a list call, or `tree` itself when it has none. A copy: the
 * walked tree shares nodes with the parsed one, which the rewrite reads on.
 */
export function spellArraysAsLists(tree: object): object {
  if (arraysOf(tree).length === 0) return tree;
  const copy = structuredClone(tree);
  // Outer constructors were found first: replace from the innermost out.
  for (const node of arraysOf(copy).reverse()) {
    const list = listOf((node.A_ArrayExpr.elements ?? []) as Node[]);
    delete node.A_ArrayExpr;
    Object.assign(node, list);
  }
  return copy;
}
