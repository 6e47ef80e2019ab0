/**
 * A GROUP BY whose grouping sets are all empty and more than one (`GROUPING SETS ((), ())`): PostgreSQL answers one
 * row per set, DuckDB 1.5 one row in all for two of its shortcuts, both keyed on "no group expressions" and blind to
 * the number of sets. Its planner answers a select list without aggregates (`select 1 … grouping sets ((), ())`) from
 * a one-row dummy scan; its statistics propagator (`TryExecuteAggregates`) answers count(*), min and max of a whole
 * table from the table's statistics — a checkpointed native table's (versions/native-tables.ts) or one Parquet
 * file's — as one row. Neither is a matter of the copy: the same texts over a view of one file answered one row too.
 * Refused: the sets are the same row repeated, which the client can write otherwise.
 */
import { SqlError, SQLSTATE } from '../errors.js';

type Node = Record<string, any>;

/** How many grouping sets an item of GROUP BY makes when it names no expression (undefined: it names one). */
function emptySets(item: unknown): number | undefined {
  const set = (item as Node | null)?.GroupingSet as Node | undefined;
  if (!set) return undefined;
  if (set.kind === 'GROUPING_SET_EMPTY') return 1;
  if (set.kind !== 'GROUPING_SET_SETS') return undefined;
  let n = 0;
  for (const c of (set.content ?? []) as unknown[]) {
    const k = emptySets(c);
    if (k === undefined) return undefined;
    n += k;
  }
  return n;
}

/** Refuses `body` (a SelectStmt's fields) when its GROUP BY is only empty grouping sets, more than one of them. */
export function emptyGroupingSetsRefused(body: Node): void {
  const items = body.groupClause as unknown[] | undefined;
  if (!items?.length) return;
  let sets = 1;
  for (const item of items) {
    const k = emptySets(item);
    if (k === undefined) return;
    sets *= k;
  }
  if (sets > 1)
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'GROUP BY with more than one grouping set and no grouping expression is not supported by fdl-gateway',
      undefined,
      'DuckDB answers such repeated empty grouping sets with one row; write the query once per set and join them with UNION ALL.',
    );
}
