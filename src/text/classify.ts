/**
 * Decide what one statement is before anything reaches DuckDB: transaction control and session
 * statements are answered by the gateway itself (as PostgreSQL would), everything else is a query
 * for DuckDB (whose statement type is checked again after prepare).
 */
import { SQLSTATE } from '../errors.js';
import { stripLeadingComments } from './split.js';
import { identWord as word, type Statement } from './statement.js';
import { foldIdentifier, normalizeIdent } from './identifier.js';
import { parseCopyOut, parseExecute, parseFetch, parseLock, parsePrepare } from './statement-arguments.js';

export type { FetchDirection, Statement } from './statement.js';
import { setConfigCalls } from '../pg/set-config.js';

/**
 * A parameter's name in SET/RESET/SHOW: PostgreSQL compares them ignoring the case of ASCII letters,
 * quoted or not (`SET "TimeZone"` is timezone).
 */
const settingName = (raw: string): string => foldIdentifier(normalizeIdent(raw));

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

const SYNTAX = SQLSTATE.syntaxError;
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

/** The ISOLATION LEVEL a BEGIN or SET TRANSACTION names, as PostgreSQL shows it; null when none. */
function isolationLevel(s: string): string | null {
  const m = /\bISOLATION\s+LEVEL\s+(SERIALIZABLE|REPEATABLE\s+READ|READ\s+COMMITTED|READ\s+UNCOMMITTED)\b/i.exec(s);
  return m ? m[1]!.toLowerCase().replace(/\s+/g, ' ') : null;
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
      return { kind: 'begin', readOnly: ro, isolation: isolationLevel(s) };
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
      if (/^SET\s+SESSION\s+CHARACTERISTICS\s+AS\s+TRANSACTION\b/i.test(s))
        return { kind: 'setTransaction', session: true, isolation: isolationLevel(s) };
      if ((m = /^SET\s+TRANSACTION\s+SNAPSHOT\s+'((?:[^']|'')*)'$/i.exec(s)))
        return { kind: 'setTransaction', session: false, isolation: null, snapshot: m[1]!.replace(/''/g, "'") };
      if (/^SET\s+TRANSACTION\b/i.test(s))
        return { kind: 'setTransaction', session: false, isolation: isolationLevel(s) };
      if ((m = /^SET\s+(?:(SESSION|LOCAL)\s+)?TIME\s+ZONE\s+(.+)$/is.exec(s))) {
        // PostgreSQL's zone of a fixed offset (`<+05:30>-05:30`) has no zone of DuckDB's to stand for it.
        if (/^(?:INTERVAL\b|[+-]?(?:\d+(?:\.\d*)?|\.\d+)$)/i.test(m[2]!.trim()))
          return {
            kind: 'refused',
            sqlstate: SQLSTATE.featureNotSupported,
            message: 'SET TIME ZONE with an interval or a number of hours is not supported by fdl-gateway',
            hint: "Name a zone of the tz database: SET TIME ZONE 'Asia/Kolkata' is UTC+05:30, 'Etc/GMT-5' is UTC+05:00 (the sign of its name counts west of Greenwich).",
          };
        const v = /^LOCAL$/i.test(m[2]!.trim()) ? null : parseSetValue(m[2]!);
        return { kind: 'set', name: 'timezone', value: v, local: m[1]?.toUpperCase() === 'LOCAL' };
      }
      if ((m = /^SET\s+(?:(SESSION|LOCAL)\s+)?SESSION\s+AUTHORIZATION\s+(.+)$/is.exec(s)))
        return {
          kind: 'set',
          name: 'session_authorization',
          value: parseSetValue(m[2]!),
          local: m[1]?.toUpperCase() === 'LOCAL',
        };
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
          name: settingName(m[2]!),
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
        return { kind: 'reset', name: settingName(m[1]!) };
      break;
    case 'SHOW':
      if (/^SHOW\s+ALL$/i.test(s)) return { kind: 'showAll' };
      if (/^SHOW\s+TRANSACTION\s+ISOLATION\s+LEVEL$/i.test(s)) return { kind: 'show', name: 'transaction_isolation' };
      if (/^SHOW\s+TIME\s+ZONE$/i.test(s)) return { kind: 'show', name: 'timezone' };
      if ((m = new RegExp(`^SHOW\\s+(${word}(?:\\.${word})*)$`, 'i').exec(s)))
        return { kind: 'show', name: settingName(m[1]!) };
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
          // Without SCROLL or NO SCROLL PostgreSQL goes back wherever its plan can (a sort, a scan: psycopg 3's
          // named cursors scroll(0, 'absolute') so); the gateway lets such a cursor go back as SCROLL does.
          scroll: !/NO\s+SCROLL/i.test(m[2]!),
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
