/**
 * An error as the client sees it (ErrorResponse/NoticeResponse fields): the first line is the
 * message, the rest the hint, and no text names a folder of the server.
 */
import type { SqlError } from '../errors.js';
import { hideServerRoots, type ServerRoot } from '../engine/duckdb-errors.js';
import type { Notice } from './backend.js';

/** What the client is told of an error: its texts never name a folder of the server (`roots`). */
export function toNotice(e: SqlError, roots: readonly ServerRoot[] = []): Notice {
  const [first, ...rest] = e.message.split('\n');
  const hide = (t: string | undefined) => (t === undefined || roots.length === 0 ? t : hideServerRoots(t, roots));
  return {
    severity: 'ERROR',
    code: e.sqlstate,
    message: hide(first ?? '')!,
    detail: hide(e.detail),
    hint: hide(e.hint ?? (rest.length ? rest.join('\n').trim() || undefined : undefined)),
  };
}
