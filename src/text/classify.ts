/**
 * Decide what one statement is before anything reaches DuckDB: transaction control and session
 * statements are answered by the gateway itself (as PostgreSQL would), everything else is a query
 * for DuckDB (whose statement type is checked again after prepare).
 */
import { SQLSTATE } from '../errors.js';
import { splitTopLevel, stripLeadingComments } from './split.js';
import { parseCopyOptions, type CopyOptions } from './copy-options.js';
import { setConfigCalls, type SetConfigCall } from '../pg/set-config.js';

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
  /** `SELECT set_config(…)[, set_config(…)]` on constants: applied as SET would, answering the new values. */
  | { kind: 'setConfig'; calls: SetConfigCall[] }
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

/** Statements that would write or change the engine: refused before DuckDB parses them. */
const WRITES = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'GRANT',
  'REVOKE',
  'COMMENT',
  'VACUUM',
  'ANALYZE',
  'REINDEX',
  'CLUSTER',
  'REFRESH',
  'LOCK',
  'IMPORT',
  'UPSERT',
  'REPLACE',
]);
const ENGINE = new Set([
  'ATTACH',
  'DETACH',
  'INSTALL',
  'LOAD',
  'FORCE',
  'UPDATE_EXTENSIONS',
  'USE',
  'PRAGMA',
  'CALL',
  'CHECKPOINT',
  'EXPORT',
  'PREPARE',
  'EXECUTE',
  'DO',
  'NOTIFY',
]);

/** A type name in PREPARE's list: words, an optional (precision[, scale]) and array brackets. */
const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?: [A-Za-z_][A-Za-z0-9_]*)*(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])*$/;

const SYNTAX = SQLSTATE.syntaxError;
const word = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;

/** Unquote a (possibly dotted) identifier the way PostgreSQL folds it. */
export function normalizeIdent(raw: string): string {
  return raw
    .split('.')
    .map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()))
    .join('.');
}

/** Parse a SET value list: 'str', ident, number, DEFAULT; several items joined with ', '. */
function parseSetValue(text: string): string | null {
  const t = text.trim().replace(/;$/, '').trim();
  if (/^default$/i.test(t)) return null;
  const items: string[] = [];
  const re = /\s*(?:E?'((?:[^']|'')*)'|"((?:[^"]|"")*)"|([^,\s]+))\s*(,|$)/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while (last < t.length && (m = re.exec(t))) {
    if (m[1] !== undefined) items.push(m[1].replace(/''/g, "'"));
    else if (m[2] !== undefined) items.push(m[2].replace(/""/g, '"'));
    else items.push(m[3]!);
    last = re.lastIndex;
    if (m[4] === '') break;
  }
  return items.join(', ');
}

export function classify(statement: string): Statement {
  const s = stripLeadingComments(statement).replace(/;\s*$/, '').trim();
  const upper = s.slice(0, 64).toUpperCase();
  const first = /^[A-Z_]+/.exec(upper)?.[0] ?? '';
  let m: RegExpExecArray | null;

  switch (first) {
    case 'BEGIN':
    case 'START': {
      if (first === 'START' && !/^START\s+TRANSACTION\b/i.test(s)) break;
      const ro = /\bREAD\s+ONLY\b/i.test(s) ? true : /\bREAD\s+WRITE\b/i.test(s) ? false : null;
      return { kind: 'begin', readOnly: ro };
    }
    case 'COMMIT':
    case 'END':
      if (/^(COMMIT|END)(\s+(WORK|TRANSACTION))?(\s+AND\s+NO\s+CHAIN)?$/i.test(s)) return { kind: 'commit' };
      if (/^COMMIT\s+PREPARED\b/i.test(s)) break;
      return { kind: 'commit' };
    case 'ROLLBACK':
    case 'ABORT':
      if (
        (m = new RegExp(
          `^(?:ROLLBACK|ABORT)(?:\\s+(?:WORK|TRANSACTION))?\\s+TO\\s+(?:SAVEPOINT\\s+)?(${word})$`,
          'i',
        ).exec(s))
      )
        return { kind: 'rollbackTo', name: normalizeIdent(m[1]!) };
      if (/^ROLLBACK\s+PREPARED\b/i.test(s)) break;
      return { kind: 'rollback' };
    case 'SAVEPOINT':
      if ((m = new RegExp(`^SAVEPOINT\\s+(${word})$`, 'i').exec(s)))
        return { kind: 'savepoint', name: normalizeIdent(m[1]!) };
      break;
    case 'RELEASE':
      if ((m = new RegExp(`^RELEASE\\s+(?:SAVEPOINT\\s+)?(${word})$`, 'i').exec(s)))
        return { kind: 'release', name: normalizeIdent(m[1]!) };
      break;
    case 'SET': {
      // Engine-wide settings are never a session's to change.
      if (/^SET\s+GLOBAL\b/i.test(s))
        return {
          kind: 'refused',
          sqlstate: SQLSTATE.insufficientPrivilege,
          message: 'permission denied: SET GLOBAL is not allowed by fdl-gateway',
        };
      if (/^SET\s+(SESSION\s+CHARACTERISTICS\s+AS\s+)?TRANSACTION\b/i.test(s)) return { kind: 'setTransaction' };
      if ((m = /^SET\s+(?:(SESSION|LOCAL)\s+)?TIME\s+ZONE\s+(.+)$/is.exec(s))) {
        const v = /^LOCAL$/i.test(m[2]!.trim()) ? null : parseSetValue(m[2]!);
        return { kind: 'set', name: 'timezone', value: v, local: m[1]?.toUpperCase() === 'LOCAL' };
      }
      if ((m = /^SET\s+(?:(SESSION|LOCAL)\s+)?NAMES\s+(.+)$/is.exec(s)))
        return { kind: 'set', name: 'client_encoding', value: parseSetValue(m[2]!), local: false };
      if (
        (m = new RegExp(
          `^SET\\s+(?:(SESSION|LOCAL)\\s+)?(${word}(?:\\.${word})*)\\s*(?:=|\\s+TO\\s+|\\s)\\s*(.*)$`,
          'is',
        ).exec(s))
      ) {
        if (/^VARIABLE$/i.test(m[2]!)) break;
        return {
          kind: 'set',
          name: normalizeIdent(m[2]!),
          value: parseSetValue(m[3]!),
          local: m[1]?.toUpperCase() === 'LOCAL',
        };
      }
      break;
    }
    case 'RESET':
      if (/^RESET\s+GLOBAL\b/i.test(s))
        return {
          kind: 'refused',
          sqlstate: SQLSTATE.insufficientPrivilege,
          message: 'permission denied: RESET GLOBAL is not allowed by fdl-gateway',
        };
      if (/^RESET\s+ALL$/i.test(s)) return { kind: 'resetAll' };
      if (/^RESET\s+SESSION\s+AUTHORIZATION$/i.test(s)) return { kind: 'resetAll' };
      if (/^RESET\s+TIME\s+ZONE$/i.test(s)) return { kind: 'reset', name: 'timezone' };
      if ((m = new RegExp(`^RESET\\s+(${word}(?:\\.${word})*)$`, 'i').exec(s)))
        return { kind: 'reset', name: normalizeIdent(m[1]!) };
      break;
    case 'SHOW':
      if (/^SHOW\s+ALL$/i.test(s)) return { kind: 'showAll' };
      if (/^SHOW\s+TRANSACTION\s+ISOLATION\s+LEVEL$/i.test(s)) return { kind: 'show', name: 'transaction_isolation' };
      if (/^SHOW\s+TIME\s+ZONE$/i.test(s)) return { kind: 'show', name: 'timezone' };
      if ((m = new RegExp(`^SHOW\\s+(${word}(?:\\.${word})*)$`, 'i').exec(s)))
        return { kind: 'show', name: normalizeIdent(m[1]!) };
      break;
    case 'DISCARD':
      if (/^DISCARD\s+ALL$/i.test(s)) return { kind: 'discardAll' };
      if ((m = /^DISCARD\s+(PLANS|SEQUENCES|TEMP|TEMPORARY)$/i.exec(s)))
        return { kind: 'discard', what: m[1]!.toUpperCase() };
      break;
    case 'PREPARE': {
      if (/^PREPARE\s+TRANSACTION\b/i.test(s)) break; // two-phase commit: an engine statement
      return (
        parsePrepare(s) ?? {
          kind: 'refused',
          sqlstate: SYNTAX,
          message: 'syntax error in PREPARE: PREPARE name [(type, ...)] AS query',
        }
      );
    }
    case 'EXECUTE':
      return (
        parseExecute(s) ?? {
          kind: 'refused',
          sqlstate: SYNTAX,
          message: 'syntax error in EXECUTE: EXECUTE name [(value, ...)]',
        }
      );
    case 'DEALLOCATE':
      if (/^DEALLOCATE\s+(PREPARE\s+)?ALL$/i.test(s)) return { kind: 'deallocate', name: null };
      if ((m = new RegExp(`^DEALLOCATE\\s+(?:PREPARE\\s+)?(${word})$`, 'i').exec(s)))
        return { kind: 'deallocate', name: normalizeIdent(m[1]!) };
      break;
    case 'CLOSE':
      if (/^CLOSE\s+ALL$/i.test(s)) return { kind: 'closeCursor', name: null };
      if ((m = new RegExp(`^CLOSE\\s+(${word})$`, 'i').exec(s)))
        return { kind: 'closeCursor', name: normalizeIdent(m[1]!) };
      break;
    case 'UNLISTEN':
      return { kind: 'unlisten' };
    case 'DECLARE':
      if (
        (m = new RegExp(
          `^DECLARE\\s+(${word})\\s+((?:BINARY|ASENSITIVE|INSENSITIVE|NO\\s+SCROLL|SCROLL|\\s)*)CURSOR\\s+(?:(WITH|WITHOUT)\\s+HOLD\\s+)?FOR\\s+([\\s\\S]+)$`,
          'i',
        ).exec(s))
      ) {
        return {
          kind: 'declare',
          name: normalizeIdent(m[1]!),
          binary: /BINARY/i.test(m[2]!),
          hold: m[3]?.toUpperCase() === 'WITH',
          scroll: /(^|\s)SCROLL/i.test(m[2]!) && !/NO\s+SCROLL/i.test(m[2]!),
          query: m[4]!,
        };
      }
      break;
    case 'FETCH':
    case 'MOVE': {
      const f = parseFetch(s);
      if (f) return f;
      break;
    }
    case 'LISTEN':
    case 'NOTIFY':
      return { kind: 'listen' };
    case 'LOCK':
      return parseLock(s);
    case 'COPY': {
      const copy = parseCopyOut(s);
      if (copy) return copy;
      return {
        kind: 'refused',
        sqlstate: SQLSTATE.insufficientPrivilege,
        message: 'permission denied: COPY is only allowed as COPY (query) TO STDOUT',
      };
    }
  }
  if (first === 'WITH' && /\)\s*(INSERT|UPDATE|DELETE|MERGE)\b/i.test(s)) {
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.readOnlyTransaction,
      message: 'cannot execute a data-modifying WITH in a read-only transaction',
    };
  }
  if (WRITES.has(first))
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.readOnlyTransaction,
      message: `cannot execute ${first} in a read-only transaction`,
    };
  if (ENGINE.has(first))
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.insufficientPrivilege,
      message: `permission denied: ${first} statements are not allowed by fdl-gateway`,
    };
  const setConfig = first === 'SELECT' ? setConfigCalls(s) : null;
  if (setConfig) return { kind: 'setConfig', calls: setConfig };
  return { kind: 'query', sql: s };
}

/**
 * Where a FETCH/MOVE goes, as PostgreSQL's grammar reads it: `forward`/`backward` by `count` rows
 * (Infinity for ALL; 0 re-reads the current row), or to an `absolute`/`relative` row number.
 */
export interface FetchDirection {
  how: 'forward' | 'backward' | 'absolute' | 'relative';
  count: number;
}

/** FETCH/MOVE [NEXT | PRIOR | FIRST | LAST | ABSOLUTE n | RELATIVE n | n | ALL | FORWARD [n | ALL] | BACKWARD [n | ALL]] [FROM | IN] cursor */
function parseFetch(s: string): Statement | null {
  const m = new RegExp(`^(FETCH|MOVE)\\s+(?:(.*?)\\s+)?(?:(?:FROM|IN)\\s+)?(${word})$`, 'is').exec(s);
  if (!m) return null;
  const move = m[1]!.toUpperCase() === 'MOVE';
  const words = (m[2] ?? '')
    .trim()
    .toUpperCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const number = (w: string | undefined) => (w !== undefined && /^[+-]?\d+$/.test(w) ? Number(w) : null);
  const [first, second] = words;
  let direction: FetchDirection | null = null;
  if (words.length === 0 || (words.length === 1 && first === 'NEXT')) direction = { how: 'forward', count: 1 };
  else if (words.length === 1 && first === 'PRIOR') direction = { how: 'backward', count: 1 };
  else if (words.length === 1 && first === 'FIRST') direction = { how: 'absolute', count: 1 };
  else if (words.length === 1 && first === 'LAST') direction = { how: 'absolute', count: -1 };
  else if (words.length === 1 && first === 'ALL') direction = { how: 'forward', count: Infinity };
  else if (words.length === 1 && number(first) !== null) direction = signed('forward', number(first)!);
  else if (words.length === 2 && (first === 'ABSOLUTE' || first === 'RELATIVE') && number(second) !== null)
    direction = { how: first === 'ABSOLUTE' ? 'absolute' : 'relative', count: number(second)! };
  else if ((first === 'FORWARD' || first === 'BACKWARD') && words.length <= 2) {
    const how = first === 'FORWARD' ? 'forward' : 'backward';
    if (second === undefined) direction = { how, count: 1 };
    else if (second === 'ALL') direction = { how, count: Infinity };
    else if (number(second) !== null) direction = signed(how, number(second)!);
  }
  if (!direction)
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.syntaxError,
      message: `syntax error in ${m[1]!.toUpperCase()}: ${words.join(' ')}`,
    };
  return { kind: 'fetch', name: normalizeIdent(m[3]!), direction, move };
}

/** A negative count turns the direction round (`FETCH -2` = `FETCH BACKWARD 2`), as PostgreSQL. */
function signed(how: 'forward' | 'backward', n: number): FetchDirection {
  if (n >= 0) return { how, count: n };
  return { how: how === 'forward' ? 'backward' : 'forward', count: -n };
}

/** COPY (query) TO STDOUT [[WITH] options] | COPY table [(cols)] TO STDOUT …; options: copy-options.ts. */
function parseCopyOut(s: string): Statement | null {
  const m = /^COPY\s+([\s\S]+?)\s+TO\s+STDOUT\b\s*([\s\S]*)$/i.exec(s);
  if (!m) return null;
  const src = m[1]!.trim();
  let query: string;
  if (src.startsWith('(') && src.endsWith(')')) query = src.slice(1, -1);
  else {
    const cols = /^(.*?)\s*\((.*)\)$/s.exec(src);
    if (cols) query = `SELECT ${cols[2]} FROM ${cols[1]}`;
    else query = `SELECT * FROM ${src}`;
  }
  const options = parseCopyOptions(m[2]!);
  if ('error' in options) return { kind: 'refused', ...options.error };
  return { kind: 'copyOut', query, options: options.ok };
}

const LOCK_MODES = [
  'ACCESS SHARE',
  'ROW SHARE',
  'ROW EXCLUSIVE',
  'SHARE UPDATE EXCLUSIVE',
  'SHARE',
  'SHARE ROW EXCLUSIVE',
  'EXCLUSIVE',
  'ACCESS EXCLUSIVE',
];

/** LOCK [TABLE] [ONLY] name [*] [, …] [IN mode MODE] [NOWAIT] (what it means: session/lock.ts). */
function parseLock(s: string): Statement {
  const name = `${word}(?:\\.${word}){0,2}`;
  const head = /^LOCK\s+(?:TABLE\s+)?/i.exec(s)!;
  const item = new RegExp(`(?:ONLY\\s+)?(${name})(?:\\s*\\*)?\\s*(,\\s*)?`, 'iy');
  const relations: string[] = [];
  item.lastIndex = head[0].length;
  let m: RegExpExecArray | null;
  let end = item.lastIndex;
  while ((m = item.exec(s))) {
    relations.push(m[1]!);
    end = item.lastIndex;
    if (!m[2]) break;
  }
  const tail = /^(?:IN\s+([A-Z ]+?)\s+MODE\s*)?(?:NOWAIT\s*)?$/i.exec(s.slice(end));
  const mode = (tail?.[1] ?? 'ACCESS EXCLUSIVE').toUpperCase().replace(/\s+/g, ' ');
  if (relations.length === 0 || !tail || !LOCK_MODES.includes(mode)) {
    return {
      kind: 'refused',
      sqlstate: SYNTAX,
      message: 'syntax error in LOCK: LOCK [TABLE] [ONLY] name [, ...] [IN lockmode MODE] [NOWAIT]',
    };
  }
  return { kind: 'lock', relations, mode };
}

/** PREPARE name [(type, …)] AS statement — the statement itself is classified and admitted when prepared. */
function parsePrepare(s: string): Statement | null {
  const m = new RegExp(
    `^PREPARE\\s+(${word})\\s*(?:\\(([^()]*(?:\\([^()]*\\)[^()]*)*)\\))?\\s*AS\\s+([\\s\\S]+)$`,
    'i',
  ).exec(s);
  if (!m) return null;
  // pg_catalog's types are the ones PREPARE knows unqualified (pg_dump writes `pg_catalog.oid`).
  const types =
    m[2] === undefined
      ? []
      : m[2].split(/,(?![^(]*\))/).map((t) =>
          t
            .trim()
            .replace(/\s+/g, ' ')
            .replace(/^(?:pg_catalog|"pg_catalog")\s*\.\s*/i, ''),
        );
  if (types.some((t) => !TYPE_NAME.test(t)))
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.syntaxError,
      message: 'syntax error in the parameter types of PREPARE',
    };
  return { kind: 'prepareSql', name: normalizeIdent(m[1]!), types, query: m[3]! };
}

/** EXECUTE name [(expression, …)]: the arguments are split at top-level commas, outside strings. */
function parseExecute(s: string): Statement | null {
  const m = new RegExp(`^EXECUTE\\s+(${word})\\s*(?:\\(([\\s\\S]*)\\))?$`, 'i').exec(s);
  if (!m) return null;
  return { kind: 'executeSql', name: normalizeIdent(m[1]!), args: m[2] === undefined ? [] : splitTopLevel(m[2]) };
}
