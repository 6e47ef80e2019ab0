/**
 * A text's shape without what its comments say (issue 26): `… -- trace=1` and `… -- trace=2`
 * are one statement to PostgreSQL and DuckDB, whose scanners read a comment as a separator, but two
 * texts to every memo keyed by text. Clients that tag each statement (sqlcommenter, query log tags,
 * a dashboard's request id) send a new text for every run of the same statement.
 *
 * The shape keeps every comment where it is, emptied (a block comment as an empty one, `--` with its line end), so two texts
 * share a shape only when they differ inside comments: nothing moves, and no comment is dropped
 * where it separates tokens or ends a string's continuation. Only where the gateway's scanner
 * (split.ts) provably ends each comment where PostgreSQL's and DuckDB's do: no dollar quote or
 * backslash (where the scanners parted before, pg/rewrite-shapes.ts), no comment nested in a
 * comment, none left open at the end of the text.
 */
import { mapSegments } from './split.js';

/** Where the gateway's scanner and PostgreSQL's have parted before (pg/rewrite-shapes.ts' LEXED_APART). */
const LEXED_APART = /\$(?!\d)|\\/;

/** The text with its comments emptied; null when it has none, or when their ends are not certain. */
export function commentShape(sql: string): string | null {
  if (!sql.includes('--') && !sql.includes('/*')) return null;
  if (LEXED_APART.test(sql)) return null;
  let comments = 0;
  let certain = true;
  const shape = mapSegments(sql, (kind, text) => {
    if (kind !== 'comment') return text;
    comments++;
    const emptied = emptyComment(text);
    if (emptied === null) certain = false;
    return emptied ?? text;
  });
  return comments > 0 && certain ? shape : null;
}

/**
 * A comment (a `comment` segment of split.ts) emptied in place: `--` with its line end, a block
 * comment as an empty one; null when its end is not certain — left open at the end of the text, or
 * with a comment nested in it (closed, not nested, every scanner ends it at its first `*\/`).
 */
export function emptyComment(text: string): string | null {
  if (text.startsWith('--')) {
    const last = text[text.length - 1];
    return last === '\n' || last === '\r' ? `--${last}` : '--';
  }
  if (text.length < 4 || !text.endsWith('*/') || text.indexOf('/*', 2) !== -1) return null;
  return '/**/';
}
