/**
 * The arguments of the gateway's own statements read from their text: FETCH/MOVE's direction,
 * COPY (query) TO STDOUT, LOCK's relations and mode, PREPARE's types and query, EXECUTE's arguments.
 */
import { SQLSTATE } from '../errors.js';
import { splitTopLevel } from './split.js';
import { parseCopyOptions } from './copy-options.js';
import { identWord as word, type FetchDirection, type Statement } from './statement.js';
import { normalizeIdent } from './identifier.js';

const SYNTAX = SQLSTATE.syntaxError;

/** A type name in PREPARE's list: words, an optional (precision[, scale]) and array brackets. */
const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?: [A-Za-z_][A-Za-z0-9_]*)*(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])*$/;

/** FETCH/MOVE [NEXT | PRIOR | FIRST | LAST | ABSOLUTE n | RELATIVE n | n | ALL | FORWARD [n | ALL] | BACKWARD [n | ALL]] [FROM | IN] cursor */
export function parseFetch(s: string): Statement | null {
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
export function parseCopyOut(s: string): Statement | null {
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
export function parseLock(s: string): Statement {
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
export function parsePrepare(s: string): Statement | null {
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
export function parseExecute(s: string): Statement | null {
  const m = new RegExp(`^EXECUTE\\s+(${word})\\s*(?:\\(([\\s\\S]*)\\))?$`, 'i').exec(s);
  if (!m) return null;
  return { kind: 'executeSql', name: normalizeIdent(m[1]!), args: m[2] === undefined ? [] : splitTopLevel(m[2]) };
}
