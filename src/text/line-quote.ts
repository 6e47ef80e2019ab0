/**
 * A text's line with a caret under one character (`LINE n: …`, as DuckDB's parser and binder quote):
 * the wire reports the caret's place as the error's position when the line is the client's own
 * (wire/error-notice.ts), as PostgreSQL reports a syntax error's.
 */

/** The quote of the line holding `sql`'s character `at` (0-based, in code points); undefined for no place. */
export function lineQuote(sql: string, at: number): string | undefined {
  if (!Number.isInteger(at) || at < 0) return undefined;
  const before = Array.from(sql).slice(0, at).join('');
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineNo = before.slice(0, lineStart).split('\n').length;
  const line = sql.slice(lineStart).split('\n')[0]!;
  const prefix = `LINE ${lineNo}: `;
  return `${prefix}${line}\n${' '.repeat(prefix.length + before.length - lineStart)}^`;
}
