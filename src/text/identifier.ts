/**
 * Names compared as DuckDB's catalog compares them: case-insensitive for ASCII letters only
 * (`"Ünïcode"` and `"ünïcode"` are two names to DuckDB). Admission must fold exactly as the engine
 * does, or it would admit one relation while DuckDB binds another.
 */
export function foldIdentifier(name: string): string {
  return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
