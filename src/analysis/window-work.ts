/**
 * Window aggregates whose work grows with their frame, read from DuckDB's parse tree. DuckDB computes a
 * window aggregate over a frame that is not the whole partition with a segment tree (function/window
 * window_segment_tree.cpp): every internal node holds the combined state of up to 16^level rows, and each
 * output row combines the nodes covering its frame. For an aggregate whose state is a fixed size (sum,
 * count, avg …) or one of its inputs (min, max, arg_max …) that is cheap. For one that builds a value
 * (string_agg, list, histogram, json_group_array …) a node's state is its rows' values concatenated, so
 * the tree holds the partition's bytes once per level, and each row builds its frame's whole value:
 * rows × frame × value bytes, a vector (2,048 rows) at a time in one call no interrupt reaches.
 * `string_agg(repeat('x',1000),'') over (order by i rows between 10000 preceding and current row)` over
 * 100,000 rows held DuckDB for minutes past the client's 57014, cancel and disconnect alike; a frame of
 * 4 rows over 1,000,000 rows of 100 bytes ran 12 s uninterruptibly to DuckDB's out-of-memory error.
 *
 * Over the whole partition DuckDB computes the aggregate once per partition instead (its constant
 * aggregator, window_constant_aggregator.cpp `CanAggregate`): linear in the data, the same work as the
 * aggregate under GROUP BY. So a window aggregate outside the allowlist below is admitted only over such
 * a frame (no ORDER BY with the default frame, or UNBOUNDED PRECEDING to UNBOUNDED FOLLOWING; no DISTINCT,
 * no EXCLUDE: DuckDB takes another aggregator for those) and refused 54000 otherwise: the gateway cannot
 * bound a partition's size or its values' before DuckDB runs. Pure.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { pushMembers } from './json-objects.js';

/** Aggregates whose result is their one input (min, max …). */
const ONE_INPUT_SELECTORS = ['min', 'max', 'first', 'last', 'any_value', 'arbitrary'];
/** Aggregates whose result is their first input, chosen by the second (arg_min …; their top-n forms have three). */
const TWO_INPUT_SELECTORS = [
  'arg_min',
  'arg_max',
  'argmin',
  'argmax',
  'min_by',
  'max_by',
  'arg_min_null',
  'arg_max_null',
  'arg_min_nulls_last',
  'arg_max_nulls_last',
];
/** Aggregates whose result is one of their inputs (their top-n forms, which return lists, excepted by arity). */
export const SELECTORS: ReadonlySet<string> = new Set([...ONE_INPUT_SELECTORS, ...TWO_INPUT_SELECTORS]);
/**
 * Aggregates safe over any frame, with the argument counts that are: those DuckDB's catalog
 * (duckdb_functions()) gives a fixed-size result and a fixed-size state (the counts, sums and moments),
 * and the selectors whose result is one of their inputs (min/max and arg_min/arg_max, not their
 * top-n forms, which return a list of n). Not here though their result is fixed-size: `entropy`,
 * `mode`, `approx_quantile`, `reservoir_quantile` and `bitstring_agg`, whose state holds the values seen.
 * test/window-work.test.ts checks each entry against duckdb_functions().
 */
export const AGGREGATES_ANY_FRAME: ReadonlyMap<string, readonly number[]> = new Map<string, number[]>([
  ['count', [0, 1]],
  ['count_star', [0]],
  ...[
    'count_if',
    'countif',
    'sum',
    'sum_no_overflow',
    'fsum',
    'sumkahan',
    'kahan_sum',
    'avg',
    'mean',
    'favg',
    'product',
    'bool_and',
    'bool_or',
    'bit_and',
    'bit_or',
    'bit_xor',
    'stddev',
    'stddev_pop',
    'stddev_samp',
    'variance',
    'var_pop',
    'var_samp',
    'sem',
    'skewness',
    'kurtosis',
    'kurtosis_pop',
    'approx_count_distinct',
    ...ONE_INPUT_SELECTORS,
  ].map((n): [string, number[]] => [n, [1]]),
  ...[
    'corr',
    'covar_pop',
    'covar_samp',
    'regr_avgx',
    'regr_avgy',
    'regr_count',
    'regr_intercept',
    'regr_r2',
    'regr_slope',
    'regr_sxx',
    'regr_sxy',
    'regr_syy',
    ...TWO_INPUT_SELECTORS,
  ].map((n): [string, number[]] => [n, [2]]),
]);

type Node = Record<string, unknown>;

/** Whether `name` with `arity` arguments is bounded over any frame. */
export function boundedOverAnyFrame(name: string, arity: number): boolean {
  return AGGREGATES_ANY_FRAME.get(name.toLowerCase())?.includes(arity) ?? false;
}

/** Whether DuckDB computes this window aggregate once per partition (its constant aggregator's conditions). */
function wholePartition(w: Node): boolean {
  const ordered = Array.isArray(w.orders) && w.orders.length > 0;
  const start = w.start === 'UNBOUNDED_PRECEDING' || (w.start === 'CURRENT_ROW_RANGE' && !ordered);
  const end = w.end === 'UNBOUNDED_FOLLOWING' || (w.end === 'CURRENT_ROW_RANGE' && !ordered);
  return start && end && w.distinct !== true && (w.exclude_clause ?? 'NO_OTHER') === 'NO_OTHER';
}

/** Throw 54000 for a window aggregate that builds a value over a frame other than its whole partition. */
export function checkWindowWork(tree: unknown): void {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    const o = v as Node;
    if (o.class === 'WINDOW' && o.type === 'WINDOW_AGGREGATE' && typeof o.function_name === 'string') {
      const arity = Array.isArray(o.children) ? o.children.length : 0;
      if (!boundedOverAnyFrame(o.function_name, arity) && !wholePartition(o)) throw frameRefused(o.function_name);
    }
    pushMembers(stack, o);
  }
}

function frameRefused(name: string): SqlError {
  return new SqlError(
    SQLSTATE.programLimitExceeded,
    `a window aggregate that builds a value (${name}() as DuckDB runs it) is served only over its whole partition: over any other frame it builds its frame's value for every row`,
    undefined,
    'Drop ORDER BY and the frame from its OVER clause (OVER (PARTITION BY …) builds it once per partition), aggregate with GROUP BY in a subquery, or build a value from a few rows with lag()/lead().',
  );
}
