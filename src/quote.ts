/**
 * The one place SQL text is quoted. Prefer bound parameters ($1 / ?) where DuckDB takes them (a
 * value in a query); these are for what DuckDB cannot bind: identifiers, SET values, statements
 * built as text (views, macros, json_serialize_plan's argument).
 */

/** A double-quoted identifier: any name, spelled exactly. */
export function quoteIdent(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"';
}

/** A single-quoted string literal (NULL for null). */
export function quoteLiteral(value: string | null): string {
  return value === null ? 'NULL' : "'" + value.replaceAll("'", "''") + "'";
}
