/** What the classifier says one statement is (classify.ts). */
import type { CopyOptions } from './copy-options.js';

export type Statement =
  | { kind: 'begin'; readOnly: boolean | null }
  | { kind: 'commit' }
  | { kind: 'rollback' }
  | { kind: 'savepoint'; name: string }
  | { kind: 'release'; name: string }
  | { kind: 'rollbackTo'; name: string }
  | { kind: 'set'; name: string; value: string | null; local: boolean }
  | { kind: 'setTransaction' }
  | { kind: 'reset'; name: string }
  | { kind: 'resetAll' }
  | { kind: 'show'; name: string }
  | { kind: 'showAll' }
  | { kind: 'discardAll' }
  | { kind: 'discard'; what: string }
  | { kind: 'deallocate'; name: string | null }
  /** SQL-level PREPARE name [(type, …)] AS query. */
  | { kind: 'prepareSql'; name: string; types: string[]; query: string }
  /** SQL-level EXECUTE name [(expression, …)]. */
  | { kind: 'executeSql'; name: string; args: string[] }
  | { kind: 'closeCursor'; name: string | null }
  | { kind: 'unlisten' }
  | { kind: 'listen' }
  | { kind: 'copyOut'; query: string; options: CopyOptions }
  /** LOCK [TABLE] name, … [IN mode MODE]: relations as written, the mode in upper case. */
  | { kind: 'lock'; relations: string[]; mode: string }
  | { kind: 'declare'; name: string; query: string; binary: boolean; hold: boolean; scroll: boolean }
  | { kind: 'fetch'; name: string; direction: FetchDirection; move: boolean }
  | { kind: 'refused'; sqlstate: string; message: string }
  | { kind: 'query'; sql: string };

/**
 * Where a FETCH/MOVE goes, as PostgreSQL's grammar reads it: `forward`/`backward` by `count` rows
 * (Infinity for ALL; 0 re-reads the current row), or to an `absolute`/`relative` row number.
 */
export interface FetchDirection {
  how: 'forward' | 'backward' | 'absolute' | 'relative';
  count: number;
}

/** One identifier as written: quoted ("" doubled) or a plain word. */
export const identWord = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
