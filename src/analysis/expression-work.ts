/**
 * How much work DuckDB's binder and constant folding do on a statement's expressions, read from its
 * parse tree. Both cost about the cube of an expression's depth, not its size: a chain of `||` or
 * `+` nests one level per term, and DuckDB 1.5.6 prepared a 700-term `a || a || …` (2.8 KB, under
 * every other ceiling) for 110 s on the shared machine, in work nothing interrupts, twice per
 * statement (the engine line's bind, then the prepare). Measured (one thread, load 16): a chain of
 * 64 constants 45 ms, 128 0.43 s, 256 2.9 s, 512 ~23 s; 4 chains of 128 1.4 s; 64 chains of 16 80 ms;
 * the same depth grouped as a balanced tree with parentheses a few milliseconds.
 *
 * The estimate sums, over every expression node, the square of its height (the levels of expression
 * below it, itself included): a chain of d terms costs about d³/3, a flat list or a balanced tree
 * about its size. A subquery starts new expression trees (DuckDB binds it with its own binder).
 * Over about the work of one 260-term chain — the depth the text's parenthesis ceiling already admits —
 * the statement is refused 54001 before DuckDB sees it. Pure; iterative, so a deep tree cannot
 * exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/**
 * Σ height² of the expressions of one statement, at most: one chain of about 260 terms (Σ k² for
 * k = 1 … 256 is 5.6 million, plus its leaves), so a chain at the text's own nesting ceiling of 256
 * (text/split.ts) answers, also with the level or two the gateway's rewrite adds around it.
 */
export const MAX_EXPRESSION_WORK = 6_000_000;

/** The length of the one chain MAX_EXPRESSION_WORK stands for (Σ k² ≈ n³/3). */
const CHAIN_TERMS = Math.round(Math.cbrt(3 * MAX_EXPRESSION_WORK));

type Node = Record<string, unknown>;

const isExpression = (o: Node): boolean => typeof o.class === 'string';

/** Throw 54001 when the statement's expressions would cost DuckDB more than MAX_EXPRESSION_WORK. */
export function checkExpressionWork(tree: unknown): void {
  const heights = new Map<object, number>();
  let work = 0;
  let deepest = 0;
  // Post-order without recursion: a node is entered (its children pushed), then left (its height known).
  const stack: [object, boolean][] = [[tree as object, false]];
  while (stack.length > 0) {
    const [node, left] = stack.pop()!;
    const children = Object.entries(node).filter(([, v]) => v !== null && typeof v === 'object') as [string, object][];
    if (!left) {
      stack.push([node, true]);
      for (const [, child] of children) stack.push([child, false]);
      continue;
    }
    const expression = !Array.isArray(node) && isExpression(node as Node);
    let below = 0;
    for (const [key, child] of children) {
      // A subquery's own tree is bound by its own binder: it does not deepen the expression around it.
      if (expression && (node as Node).class === 'SUBQUERY' && key === 'subquery') continue;
      below = Math.max(below, heights.get(child) ?? 0);
    }
    for (const [, child] of children) heights.delete(child);
    const height = expression ? below + 1 : below;
    heights.set(node, height);
    if (expression) {
      work += height * height;
      deepest = Math.max(deepest, height);
    }
  }
  if (work > MAX_EXPRESSION_WORK)
    throw new SqlError(
      SQLSTATE.statementTooComplex,
      `statement is too complex: its expressions nest up to ${deepest} levels, more work for DuckDB to bind than one chain of about ${CHAIN_TERMS} operators`,
      undefined,
      'Nest less: group a long chain of operators with parentheses into a balanced tree ((a || b) || (c || d)), or build the value in steps.',
    );
}
