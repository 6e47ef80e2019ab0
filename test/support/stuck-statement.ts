/**
 * A statement DuckDB cannot interrupt, for the tests of what the gateway does around one: GLOB of a
 * 63-byte pattern with one leading `*` over a 10 MB text, once per row. DuckDB's Glob
 * (function/scalar/string/like.cpp) tries the pattern's rest at every position of the text and
 * compares up to 63 bytes there: about 6 × 10^8 comparisons per row (measured under load: 2.6 s a
 * row), 2,048 rows within one vector, where no interrupt is read. Every call is within the
 * gateway's ceilings, consciously (docs/security.md, "what stays uninterruptible"): one piece after
 * a wildcard is linear in the text (engine/pattern-guards.ts bounds two and more), and a pattern of
 * at most 64 bytes is not held to a text size (cost-guards.ts). The text is built once and shared
 * by every row. Should a guard ever bound it, the tests' premise checks fail first: pick another.
 */
export function stuckStatement(from = 'range(2048) t(r)', column = 'r'): string {
  const text = `(select string_agg(repeat('a', 100000), '') as s from range(100))`;
  return `select count(*) from ${from}, ${text} stuck where stuck.s glob '*' || repeat('a', 62) || (${column} % 2)::varchar`;
}
