/**
 * Window functions DuckDB may not list in duckdb_functions(); each depends only on its input rows,
 * so the allowlist admits them and the determinism check keeps their results cacheable.
 */
export const WINDOW_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  'fill',
]);
