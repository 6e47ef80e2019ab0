/**
 * `array_agg(DISTINCT x)`, `string_agg(DISTINCT x, ',')`, `json_agg(DISTINCT x)`, `jsonb_agg(DISTINCT x)`:
 * PostgreSQL removes duplicates by sorting the input, so the values come out in x's order; DuckDB's
 * hash-based DISTINCT gives them in any order. Without an ORDER BY of its own, the call is given
 * PostgreSQL's: ORDER BY its first argument (DuckDB allows it, as the argument is the distinct value).
 */
import { names, type Node } from './rewrite-nodes.js';

const ORDERED_AGGREGATES = new Set(['array_agg', 'string_agg', 'json_agg', 'jsonb_agg']);

/** The call with PostgreSQL's order of its distinct values, or undefined when it needs none. */
export function distinctInOrder(fc: Node): Node | undefined {
  const parts = names(fc.funcname);
  const base = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog') ? parts.at(-1) : undefined;
  const first = (fc.args as Node[] | undefined)?.[0];
  if (!base || !ORDERED_AGGREGATES.has(base) || !fc.agg_distinct || fc.agg_order || fc.over || !first) return undefined;
  const by = { SortBy: { node: first, sortby_dir: 'SORTBY_DEFAULT', sortby_nulls: 'SORTBY_NULLS_DEFAULT' } };
  return { ...fc, agg_order: [by] };
}
