/**
 * How much of the statement DuckDB's binder builds once CTEs are inlined, read from DuckDB's parse
 * tree. A CTE that is not materialized is bound again at every reference, so a NOT MATERIALIZED CTE
 * referencing the one before it twice doubles the plan per level: 14 such levels over a 1 KB text
 * planned for an hour in the binder, which nothing interrupts (an attacker review took every
 * prepare slot with five of them). Refused 54001 here, before DuckDB plans it.
 *
 * What DuckDB 1.5.6 does, measured: a CTE written without MATERIALIZED/NOT MATERIALIZED is
 * materialized when it is referenced more than once (chains of 14 doubling levels of joins, set
 * operations, scalar and IN subqueries and nested WITH all prepare in milliseconds) and inlined when
 * referenced once (one copy); NOT MATERIALIZED is inlined at every reference. Its parse
 * (json_serialize_sql) does not say which CTE was written with which (every one reads
 * CTE_MATERIALIZE_DEFAULT), so a text that has the word MATERIALIZED anywhere is counted as if every
 * CTE were inlined: the worst case, never less than DuckDB binds. A recursive CTE is counted as
 * inlined too. Views and macros also bind their body at every use, but a session can create neither:
 * the version's views are the gateway's own, and the guard macros' copies are bounded in
 * size-limits.ts (checkGuardNesting).
 *
 * The measure is parse-tree nodes: every node of a CTE body counts once per copy the binder makes
 * of it, a copy of a body copying the CTEs defined inside it too. Pure; iterative, so a deep tree
 * cannot exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { foldIdentifier } from '../text/identifier.js';

/**
 * The most parse-tree nodes the inlined copies may add to the statement's own. 16,384 is ~9
 * doubling levels of the attacker's two-way join (about 0.3 s of prepare here); a statement the
 * gateway admits at its text ceiling has about as many nodes of its own.
 */
export const MAX_INLINED_NODES = 16_384;

type Node = Record<string, unknown>;

/** A CTE body the binder may copy (its nodes, what it references) or the statement itself (id 0). */
interface Body {
  /** Nodes of the body, less those of CTE bodies defined inside it. */
  nodes: number;
  /** The body the CTE is defined in (undefined for the statement). */
  definedIn?: number;
  /** The bodies holding each reference to this CTE, one entry per reference. */
  referencedFrom: number[];
  /** Inlined at each reference, rather than bound once where it is defined. */
  inlined: boolean;
}

/** Throw 54001 when inlining CTEs would have DuckDB bind more than MAX_INLINED_NODES extra nodes. */
export function checkCteExpansion(tree: unknown, sql: string): void {
  const bodies = readBodies(tree);
  if (bodies.length === 1) return;
  const mayBeNotMaterialized = /materialized/i.test(sql);
  for (const body of bodies.slice(1))
    body.inlined = mayBeNotMaterialized || body.inlined || body.referencedFrom.length <= 1;
  const copies = copiesOf(bodies);
  let added = 0;
  bodies.forEach((body, id) => (added += Math.max(0, copies[id]! - 1) * body.nodes));
  if (added > MAX_INLINED_NODES) {
    const most = Math.max(...copies);
    throw new SqlError(
      SQLSTATE.statementTooComplex,
      `statement is too complex: its CTEs, inlined at every reference, would be planned ${formatCopies(most)} times over`,
      undefined,
      'Drop NOT MATERIALIZED (or write AS MATERIALIZED) for a CTE referenced more than once.',
    );
  }
}

const formatCopies = (n: number) => (n >= 1e9 ? 'more than 10^9' : String(n));

/**
 * The statement's CTE bodies: scopes as DuckDB's binder has them (a CTE body sees the CTEs before it
 * in its WITH and those outside; the rest of the query sees them all; a reference is to the nearest
 * CTE of its name), and a recursive CTE's own name inside it is its recursive scan, not a copy.
 */
function readBodies(tree: unknown): Body[] {
  const bodies: Body[] = [{ nodes: 0, referencedFrom: [], inlined: false }];
  type Scope = ReadonlyMap<string, number | null>; // name → body, or null for a recursive CTE's own scan
  const stack: { node: unknown; body: number; scope: Scope }[] = [{ node: tree, body: 0, scope: new Map() }];
  while (stack.length > 0) {
    const { node, body, scope: outer } = stack.pop()!;
    if (Array.isArray(node)) {
      for (const n of node) if (n && typeof n === 'object') stack.push({ node: n, body, scope: outer });
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    const o = node as Node;
    bodies[body]!.nodes++;
    let scope = outer;
    const cteMap = (o.cte_map as { map?: { key?: unknown; value?: unknown }[] } | undefined)?.map;
    if (Array.isArray(cteMap) && cteMap.length > 0) {
      const seen = new Map(outer);
      for (const entry of cteMap) {
        const id = bodies.length;
        const query = (entry.value as Node | undefined)?.query as Node | undefined;
        const recursive = (query?.node as Node | undefined)?.type === 'RECURSIVE_CTE_NODE';
        bodies.push({ nodes: 0, definedIn: body, referencedFrom: [], inlined: recursive });
        stack.push({ node: entry.value, body: id, scope: new Map(seen) });
        seen.set(name(entry.key), id);
      }
      scope = seen;
    }
    if (o.type === 'RECURSIVE_CTE_NODE' && typeof o.cte_name === 'string')
      scope = new Map([...scope, [name(o.cte_name), null]]);
    if (o.type === 'BASE_TABLE' && !o.catalog_name && !o.schema_name) {
      const target = scope.get(name(o.table_name));
      if (target !== undefined && target !== null) bodies[target]!.referencedFrom.push(body);
    }
    for (const k in o) {
      const v = o[k];
      if (k !== 'cte_map' && v && typeof v === 'object') stack.push({ node: v, body, scope });
    }
  }
  return bodies;
}

/**
 * How many copies of each body the binder makes: the statement one; a materialized CTE as many as
 * the body it is defined in; an inlined one the sum over its references of their bodies' copies.
 * A reference is only ever to a CTE defined before or outside it, so this has no cycles.
 */
function copiesOf(bodies: readonly Body[]): number[] {
  const copies: (number | undefined)[] = [1];
  const needs = (id: number) => (bodies[id]!.inlined ? bodies[id]!.referencedFrom : [bodies[id]!.definedIn ?? 0]);
  for (let start = 1; start < bodies.length; start++) {
    const stack = [start];
    while (stack.length > 0) {
      const id = stack[stack.length - 1]!;
      if (copies[id] !== undefined) {
        stack.pop();
        continue;
      }
      const missing = needs(id).filter((b) => copies[b] === undefined);
      if (missing.length > 0) {
        stack.push(...missing);
        continue;
      }
      // Capped: the count only has to pass the ceiling, never to be exact beyond it.
      copies[id] = Math.min(
        1e12,
        needs(id).reduce((n, b) => n + copies[b]!, 0),
      );
      stack.pop();
    }
  }
  return copies.map((n) => n ?? 0);
}

const name = (v: unknown) => (typeof v === 'string' ? foldIdentifier(v) : '');
