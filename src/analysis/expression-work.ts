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

/** A subquery's tree under its SUBQUERY expression: walked, its height not passed up. */
class Detached {
  constructor(readonly tree: object) {}
}

/** A node being walked: its children not yet visited, and the tallest expression below it so far. */
interface Frame {
  node: object;
  children: unknown[];
  next: number;
  below: number;
  expression: boolean;
}

function frameOf(node: object): Frame {
  const expression = !Array.isArray(node) && isExpression(node as Node);
  const children: unknown[] = [];
  if (Array.isArray(node)) {
    for (const v of node) if (v !== null && typeof v === 'object') children.push(v);
  } else
    for (const key in node) {
      // A subquery's own tree is bound by its own binder: walked, but it does not deepen the expression around it.
      const v = (node as Node)[key];
      if (v !== null && typeof v === 'object') children.push(expression && key === 'subquery' ? new Detached(v) : v);
    }
  return { node, children, next: 0, below: 0, expression };
}

/** Throw 54001 when the statement's expressions would cost DuckDB more than MAX_EXPRESSION_WORK. */
export function checkExpressionWork(tree: unknown): void {
  if (tree === null || typeof tree !== 'object') return;
  let work = 0;
  let deepest = 0;
  // Depth-first without recursion; a frame learns its height from its children as they finish.
  const stack: Frame[] = [frameOf(tree)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      stack.push(frameOf(top.children[top.next++] as object));
      continue;
    }
    stack.pop();
    const height = top.expression ? top.below + 1 : top.below;
    if (top.expression) {
      work += height * height;
      deepest = Math.max(deepest, height);
    }
    const parent = stack[stack.length - 1];
    if (parent && !(top.node instanceof Detached)) parent.below = Math.max(parent.below, height);
  }
  if (work > MAX_EXPRESSION_WORK)
    throw new SqlError(
      SQLSTATE.statementTooComplex,
      `statement is too complex: its expressions nest up to ${deepest} levels, more work for DuckDB to bind than one chain of about ${CHAIN_TERMS} operators`,
      undefined,
      'Nest less: group a long chain of operators with parentheses into a balanced tree ((a || b) || (c || d)), or build the value in steps.',
    );
}
