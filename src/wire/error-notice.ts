/**
 * An error as the client sees it (ErrorResponse/NoticeResponse fields): the first line is the
 * message, the rest the hint, and no text names a folder of the server or quotes SQL the client
 * did not send.
 */
import type { SqlError } from '../errors.js';
import { hideServerRoots, type ServerRoot } from '../engine/duckdb-errors.js';
import type { Notice } from './backend.js';

/**
 * What the client is told of an error: its texts never name a folder of the server (`roots`), and
 * keep DuckDB's `LINE n:` quote only of text the client sent (`clientText`; none at connect).
 */
export function toNotice(e: SqlError, roots: readonly ServerRoot[] = [], clientText?: string): Notice {
  const [first, ...rest] = e.message.split('\n');
  const hide = (t: string | undefined) => {
    const own = t === undefined ? t : withoutForeignQuotes(t, clientText);
    return own === undefined || roots.length === 0 ? own : hideServerRoots(own, roots);
  };
  return {
    severity: 'ERROR',
    code: e.sqlstate,
    message: hide(first ?? '')!,
    detail: hide(e.detail),
    hint: hide(e.hint ?? (rest.length ? rest.join('\n').trim() || undefined : undefined)) || undefined,
  };
}

/**
 * DuckDB quotes the line of what it ran (`LINE 3: version_id`, a caret under it): the gateway's
 * rewrite, an expanded system view or its own SQL at attach. A quote whose text (without DuckDB's
 * `...` ends) is not on that line of the client's statement is dropped with its caret line.
 */
export function withoutForeignQuotes(text: string, clientText: string | undefined): string {
  if (!text.includes('LINE ')) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const quote = /^\s*LINE (\d+): ?(.*)$/.exec(lines[i]!);
    if (quote) {
      const quoted = quote[2]!
        .replace(/^\.\.\./, '')
        .replace(/\.\.\.$/, '')
        .trim();
      const sent = clientText?.split('\n')[Number(quote[1]) - 1];
      if (sent === undefined || quoted === '' || !sent.includes(quoted)) {
        if (i + 1 < lines.length && /^\s*\^\s*$/.test(lines[i + 1]!)) i++;
        continue;
      }
    }
    out.push(lines[i]!);
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
