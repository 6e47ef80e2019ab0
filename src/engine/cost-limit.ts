/** The ceilings the cost guards share (cost-guards.ts, pattern-guards.ts), and the phrase duckdb-errors.ts maps to 54000. */
export const COST_LIMIT_PHRASE = 'exceeds the per-call limit';
/** Patterns and search strings longer than this are checked: text bytes × pattern bytes at most MAX_PATTERN_WORK. */
export const CHECKED_PATTERN_BYTES = 64;
export const MAX_PATTERN_WORK = 2 ** 20;

/** Bytes one call may add to the largest of its inputs (the value guards' rule; here, with no imports, so the guards can share it without a cycle). */
export const MAX_VALUE_GROWTH = 256 * 1024;
