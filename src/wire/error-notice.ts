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
  let position: number | undefined;
  const hide = (t: string | undefined) => {
    let own = t === undefined ? t : withoutForeignQuotes(t, clientText);
    // a quote of the client's own text becomes the error's position, as PostgreSQL reports it (psql draws the LINE)
    const quoted = own === undefined || clientText === undefined ? undefined : quotePosition(own, clientText);
    if (quoted) {
      position ??= quoted.position;
      own = quoted.rest;
    }
    return own === undefined || roots.length === 0 ? own : hideServerRoots(own, roots);
  };
  const notice: Notice = {
    severity: 'ERROR',
    code: e.sqlstate,
    message: hide(first ?? '')!,
    detail: hide(e.detail) || undefined,
    hint: hide(e.hint ?? (rest.length ? rest.join('\n').trim() || undefined : undefined)) || undefined,
  };
  if (position !== undefined) notice.position = position;
  return notice;
}

/**
 * DuckDB's `LINE n: <text>` with a caret line under it, of the client's own statement: the caret's
 * place as a 1-based character position in `clientText`, and the text without the quote.
 */
export function quotePosition(text: string, clientText: string): { position: number; rest: string } | undefined {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const quote = /^(\s*LINE (\d+): ?)(.*)$/.exec(lines[i]!);
    const caret = lines[i + 1]!.indexOf('^');
    if (!quote || caret < 0 || lines[i + 1]!.trim() !== '^') continue;
    const sentLines = clientText.split('\n');
    const lineNo = Number(quote[2]);
    const sent = sentLines[lineNo - 1];
    const shown = quote[3]!;
    const lead = shown.startsWith('...') ? 3 : 0;
    const quoted = shown.slice(lead).replace(/\.\.\.$/, '');
    const at = sent === undefined || quoted.trim() === '' ? -1 : sent.indexOf(quoted);
    const offset = caret - quote[1]!.length - lead;
    if (at < 0 || offset < 0 || offset > quoted.length) continue;
    const before = sentLines.slice(0, lineNo - 1).reduce((n, l) => n + l.length + 1, 0);
    const rest = [...lines.slice(0, i), ...lines.slice(i + 2)]
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return { position: before + at + offset + 1, rest };
  }
  return undefined;
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
