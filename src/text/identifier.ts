/**
 * Names compared as DuckDB's catalog compares them: case-insensitive for ASCII letters only
 * (`"Ünïcode"` and `"ünïcode"` are two names to DuckDB). Admission must fold exactly as the engine
 * does, or it would admit one relation while DuckDB binds another.
 */
export function foldIdentifier(name: string): string {
  return name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * Unquote a (possibly dotted) identifier the way PostgreSQL folds it: the names in the gateway's own
 * statements (cursors, prepared statements, savepoints, COPY options).
 */
export function normalizeIdent(raw: string): string {
  return raw
    .split('.')
    .map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()))
    .join('.');
}
