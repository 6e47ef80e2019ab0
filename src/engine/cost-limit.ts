/** The ceilings the cost guards share (cost-guards.ts, pattern-guards.ts), and the phrase duckdb-errors.ts maps to 54000. */
export const COST_LIMIT_PHRASE = 'exceeds the per-call limit';
/** Patterns and search strings longer than this are checked: text bytes × pattern bytes at most MAX_PATTERN_WORK. */
export const CHECKED_PATTERN_BYTES = 64;
export const MAX_PATTERN_WORK = 2 ** 20;
