/**
 * A statement DuckDB cannot interrupt, for the tests of what the gateway does around one: GLOB with
 * five `*` over a 400-byte text of each row. DuckDB's Glob (function/scalar/string/like.cpp) matches
 * a `*` by trying the rest of the pattern at every later position, recursively: n^k/k! steps for k
 * stars (measured under load: 4 stars over 400 bytes 11 s for one row; 5 stars about 400× that),
 * within one vector, where no interrupt is read. Every call is within the gateway's ceilings (the
 * pattern is under the 64 bytes cost-guards.ts checks). Should a guard ever bound it, the tests'
 * premise checks fail first: pick another uninterruptible statement.
 */
export function stuckStatement(from = 'range(2048) t(r)', column = 'r'): string {
  return `select count(*) from ${from} where repeat('a', 400 + ${column} % 2) glob ('*' || repeat('a*', 4) || 'b')`;
}
