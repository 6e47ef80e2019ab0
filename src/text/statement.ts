/** What the classifier says one statement is (classify.ts). */
import type { CopyOptions } from './copy-options.js';
import type { SettingItem } from '../pg/set-config.js';

export type Statement =
  /** isolation: the ISOLATION LEVEL named, as PostgreSQL shows it (`repeatable read`), or null. */
  | { kind: 'begin'; readOnly: boolean | null; isolation: string | null; start?: boolean }
  /** chain: AND CHAIN, the next block begins at once with the same characteristics. */
  | { kind: 'commit'; chain: boolean }
  | { kind: 'rollback'; chain: boolean }
  | { kind: 'savepoint'; name: string }
  | { kind: 'release'; name: string }
  | { kind: 'rollbackTo'; name: string }
  | { kind: 'set'; name: string; value: string | null; local: boolean }
  /**
   * SET TRANSACTION … (session: SET SESSION CHARACTERISTICS AS TRANSACTION …): the isolation level
   * named, or the snapshot to import (`SET TRANSACTION SNAPSHOT 'id'`).
   */
  | { kind: 'setTransaction'; session: boolean; isolation: string | null; snapshot?: string }
  | { kind: 'reset'; name: string }
  | { kind: 'resetAll' }
  | { kind: 'show'; name: string }
  | { kind: 'showAll' }
  /** `SELECT set_config(…)[, current_setting(…) …]` (pg/set-config.ts): applied as SET would, answering the values in order. */
  | { kind: 'setConfig'; calls: SettingItem[] }
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
  /** `scroll`: may go back (SCROLL, or neither SCROLL nor NO SCROLL) */
  | { kind: 'declare'; name: string; query: string; binary: boolean; hold: boolean; scroll: boolean }
  | { kind: 'fetch'; name: string; direction: FetchDirection; move: boolean }
  | { kind: 'refused'; sqlstate: string; message: string; hint?: string }
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
