/**
 * How big a join graph DuckDB's optimizer is asked to order, read from its parse tree. Planning many
 * relations joined by many predicates costs DuckDB's filter pushdown (which derives every implied
 * equality of an equivalence class) and join-order optimizer far more than the text's size, in
 * prepare work that nothing interrupts: an attacker review's 100-alias self-join with a predicate
 * between every pair (149 KB) took four sessions from 350 MB to 1.6 GB RSS in 14 s and the process
 * died; 64 aliases (61 KB) planned for 73 s after the statement timeout. Refused 54001 here, before
 * DuckDB binds or plans it.
 *
 * Measured on DuckDB 1.5.6 (prepare of EXPLAIN, one thread, shared machine at load 20–24; docs/security.md
 * has the table): the cost follows the number of relations and of predicates between them, and
 * DuckDB flattens derived tables into the graph around them (ten subqueries of ten relations each,
 * 99 predicates: 7.7 s), so both are counted over the whole statement, not per query block — except the sides of a set
 * operation, which DuckDB plans apart: each is a graph of its own, and their work adds up to a ceiling of its own. Turning
 * off `join_order` alone does not help (30 aliases: 5.9 s); turning off `filter_pushdown` too does,
 * but leaves cross products to execute, so the gateway refuses rather than plans such a text another way.
 *
 * A relation is every item of a FROM clause (a table, view, CTE reference, table function, VALUES or
 * subquery; a JOIN is its two sides). A predicate is every comparison (=, <, BETWEEN, …) in a WHERE
 * clause or JOIN condition, and every column of a USING clause: constants and single-table filters
 * count too, which only over-counts. Pure; iterative, so a deep tree cannot exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/**
 * The most relations in one statement: a star schema of 20 joins with room to spare. Past it the cost
 * climbs steeply even with few predicates (a same-key star: 32 relations 0.2 s, 64 relations 10.7 s).
 */
export const MAX_RELATIONS = 32;

/**
 * The most relations × predicates: 32 relations with 109 predicates (3,488) prepared in 1.5 s here, a
 * 24-alias self-join with one between every pair (6,624) 1.3 s, 40 relations with 175 (7,000) 3.6–6.8 s.
 */
export const MAX_JOIN_WORK = 4096;

type Node = Record<string, unknown>;

/** What the optimizer is given to order: relations and the predicates between them, in one graph. */
export interface JoinGraph {
  relations: number;
  predicates: number;
}

const isTableRef = (o: Node) => typeof o.class !== 'string' && typeof o.type === 'string';
const isPredicate = (o: Node) => o.class === 'COMPARISON' || o.class === 'BETWEEN';

/**
 * The statement's join graphs, counted as the module comment says: one per side of a set operation
 * (UNION, EXCEPT, INTERSECT), which DuckDB plans apart — a generated `UNION ALL` of forty one-table
 * selects is forty graphs of one relation, not one of forty.
 */
export function measureJoinGraphs(tree: unknown): JoinGraph[] {
  const graphs: JoinGraph[] = [{ relations: 0, predicates: 0 }];
  // inPredicate: under a WHERE clause or JOIN condition of the query block being walked.
  const stack: { node: unknown; inPredicate: boolean; inFrom: boolean; graph: JoinGraph }[] = [
    { node: tree, inPredicate: false, inFrom: false, graph: graphs[0]! },
  ];
  while (stack.length > 0) {
    const { node, inPredicate, inFrom, graph } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const n of node) stack.push({ node: n, inPredicate, inFrom, graph });
      continue;
    }
    const o = node as Node;
    // A nested query block (subquery, CTE body, set operation side) has its own WHERE and FROM.
    const block = o.type === 'SELECT_NODE';
    if (inFrom && isTableRef(o) && o.type !== 'JOIN' && o.type !== 'EMPTY') graph.relations++;
    if (inPredicate && !block && isPredicate(o)) graph.predicates++;
    if (o.type === 'JOIN' && isTableRef(o) && Array.isArray(o.using_columns))
      graph.predicates += o.using_columns.length;
    for (const key in o) {
      const value = o[key];
      if (!value || typeof value !== 'object') continue;
      if (o.type === 'SET_OPERATION_NODE' && (key === 'left' || key === 'right' || key === 'children')) {
        const sides = key === 'children' && Array.isArray(value) ? value : [value];
        for (const side of sides) {
          const own = { relations: 0, predicates: 0 };
          graphs.push(own);
          stack.push({ node: side, inPredicate: false, inFrom: false, graph: own });
        }
      } else if (block)
        stack.push({ node: value, inPredicate: key === 'where_clause', inFrom: key === 'from_table', graph });
      else if (o.type === 'JOIN' && isTableRef(o))
        stack.push({ node: value, inPredicate: key === 'condition', inFrom: key === 'left' || key === 'right', graph });
      else stack.push({ node: value, inPredicate, inFrom: false, graph });
    }
  }
  return graphs.filter((g) => g.relations > 0 || g.predicates > 0);
}

/** The most relations × predicates summed over a statement's graphs (a union of many graphs just under the ceilings). */
export const MAX_STATEMENT_JOIN_WORK = 4 * MAX_JOIN_WORK;

/** Throw 54001 when the statement's join graph would cost DuckDB's optimizer more than the ceilings allow. */
export function checkJoinGraph(tree: unknown): void {
  const graphs = measureJoinGraphs(tree);
  const work = graphs.reduce((sum, g) => sum + g.relations * g.predicates, 0);
  const over = graphs.find((g) => g.relations > MAX_RELATIONS || g.relations * g.predicates > MAX_JOIN_WORK);
  if (!over && work <= MAX_STATEMENT_JOIN_WORK) return;
  const what = !over
    ? `${graphs.length} join graphs whose relations × predicates add up to ${work} (at most ${MAX_STATEMENT_JOIN_WORK})`
    : over.relations > MAX_RELATIONS
      ? `${over.relations} relations (at most ${MAX_RELATIONS})`
      : `${over.relations} relations joined by ${over.predicates} predicates (relations × predicates at most ${MAX_JOIN_WORK})`;
  throw new SqlError(
    SQLSTATE.statementTooComplex,
    `statement is too complex: its joins have ${what}, more than DuckDB's optimizer is asked to order at once`,
    undefined,
    'Join fewer relations in one statement, or fewer predicates between them: an equality implied by others (a = b AND b = c implies a = c) need not be written.',
  );
}
