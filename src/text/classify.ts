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
import { classifySet } from './set-statement.js';
import { classifyTransaction } from './transaction-statement.js';
import { parsePg, pgSyntaxError } from '../pg/pg-parse.js';
import { numericJunk } from './numeric-junk.js';
import { MAX_PARAMETER_NUMBER, unsuppliableParameter } from './parameter-numbers.js';

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

/** Statements the gateway answers itself with patterns of its own, each checked by PostgreSQL's grammar first. */
const OWN_STATEMENTS = new Set([
  'RESET',
  'SHOW',
  'DISCARD',
  'DEALLOCATE',
  'CLOSE',
  'LISTEN',
  'UNLISTEN',
  'NOTIFY',
  'FETCH',
  'MOVE',
  'LOCK',
]);

/**
 * The parameter a SHOW or RESET names, as PostgreSQL's grammar reads it (`TIME ZONE` is timezone,
 * `"fdl.ref"` is fdl.ref: a pattern of ours had taken the quotes into the name); the caller has checked it parses.
 */
function grammarName(s: string, kind: 'VariableShowStmt' | 'VariableSetStmt'): string {
  return foldIdentifier(String(parsePg(s)?.stmts?.[0]?.stmt?.[kind]?.['name'] ?? ''));
}

/** PostgreSQL's syntax error for a text its grammar refuses. */
function grammarRefusal(s: string): Statement {
  const { message, quote } = pgSyntaxError(s);
  return { kind: 'refused', sqlstate: SYNTAX, message: message || 'syntax error', ...(quote ? { hint: quote } : {}) };
}
export function classify(statement: string): Statement {
  const s = stripLeadingComments(statement).replace(/;\s*$/, '').trim();
  const upper = s.slice(0, 64).toUpperCase();
  const first = /^[A-Z_]+/.exec(upper)?.[0] ?? '';
  let m: RegExpExecArray | null;
  // PostgreSQL 15's lexer refuses `0x263A`, `1_000`, `1abc` before anything reads them (text/numeric-junk.ts)
  const junk = numericJunk(s);
  if (junk) return { kind: 'refused', sqlstate: SYNTAX, message: junk.message };
  const param = unsuppliableParameter(s);
  if (param)
    return {
      kind: 'refused',
      sqlstate: SQLSTATE.undefinedParameter,
      message: `there is no parameter ${param}`,
      hint: `Parameters are numbered from $1; a statement takes at most ${MAX_PARAMETER_NUMBER} of them.`,
    };
  // The other statements the gateway answers itself must be PostgreSQL's, whole (DuckDB's RESET GLOBAL aside).
  if (OWN_STATEMENTS.has(first) && !/^RESET\s+GLOBAL\b/i.test(s) && !parsePg(s)) return grammarRefusal(s);

  switch (first) {
    case 'BEGIN':
    case 'START':
    case 'COMMIT':
    case 'END':
    case 'ROLLBACK':
    case 'ABORT':
    case 'SAVEPOINT':
    case 'RELEASE':
      return classifyTransaction(s) ?? grammarRefusal(s);
    case 'SET': {
      // Engine-wide settings are never a session's to change.
      if (/^SET\s+GLOBAL\b/i.test(s))
        return {
          kind: 'refused',
          sqlstate: SQLSTATE.insufficientPrivilege,
          message: 'permission denied: SET GLOBAL is not allowed by fdl-gateway',
        };
      // DuckDB's own statement, refused as any other DuckDB-only text.
      if (/^SET\s+VARIABLE\b/i.test(s)) break;
      return classifySet(s);
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
      return { kind: 'reset', name: grammarName(s, 'VariableSetStmt') };
    case 'SHOW':
      if (/^SHOW\s+ALL$/i.test(s)) return { kind: 'showAll' };
      return { kind: 'show', name: grammarName(s, 'VariableShowStmt') };
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
