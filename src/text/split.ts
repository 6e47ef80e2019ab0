/**
 * Lexical scanning of SQL text, shared by everything that must not look inside strings or comments:
 * PostgreSQL and DuckDB rules for '…' with '' escapes, E'…' with backslash escapes, "…" identifiers,
 * $tag$…$tag$ bodies, -- line comments and nested /* block comments *\/.
 */
import { quoteIdent } from '../quote.js';
import { SQLSTATE } from '../errors.js';

export type SegmentKind = 'code' | 'string' | 'identifier' | 'dollar' | 'comment';

/** Characters that may open a string, identifier, dollar quote or comment. */
const OPENER = /['"$]|--|\/\*/g;

/** Rebuild `sql` with every segment replaced by `fn(kind, text)`. */
export function mapSegments(sql: string, fn: (kind: SegmentKind, text: string) => string): string {
  let out = '';
  let codeStart = 0;
  let i = 0;
  while (i < sql.length) {
    // Jump to the next character that can open a segment (one native scan, not a call per character).
    OPENER.lastIndex = i;
    const next = OPENER.exec(sql);
    if (!next) break;
    i = next.index;
    const seg = quotedOrComment(sql, i);
    if (!seg) {
      i++;
      continue;
    }
    if (i > codeStart) out += fn('code', sql.slice(codeStart, i));
    out += fn(seg.kind, sql.slice(i, seg.end));
    i = codeStart = seg.end;
  }
  if (codeStart < sql.length) out += fn('code', sql.slice(codeStart));
  return out;
}

/** Apply `fn` to every stretch of SQL outside strings, quoted identifiers, dollar quotes and comments. */
export function mapCode(sql: string, fn: (code: string) => string): string {
  return mapSegments(sql, (kind, text) => (kind === 'code' ? fn(text) : text));
}

/** A semicolon, or a character that may open a string, identifier, dollar quote or comment. */
const SEMICOLON_OR_OPENER = /['"$;]|--|\/\*/g;

/**
 * Split a simple-Query string into statements at top-level semicolons. Statements that hold only
 * whitespace and comments are dropped. One native scan from opener to opener, nothing built per
 * string or comment. A statement longer than MAX_STATEMENT_CHARS ends the split: it is refused
 * (54000) and, as an error skips the rest of a Query, what follows it is never looked at.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  const end = (at: number) => {
    const part = sql.slice(start, at);
    if (stripLeadingComments(part) !== '') out.push(part.trim());
    start = at + 1;
  };
  for (let i = 0; i < sql.length;) {
    SEMICOLON_OR_OPENER.lastIndex = i;
    const next = SEMICOLON_OR_OPENER.exec(sql);
    if (!next) break;
    i = next.index;
    if (sql[i] === ';') {
      end(i);
      i++;
      continue;
    }
    i = quotedOrComment(sql, i)?.end ?? i + 1;
    if (i - start > MAX_STATEMENT_CHARS) {
      out.push(sql.slice(start).trim());
      return out;
    }
  }
  end(sql.length);
  return out;
}

/** Strip leading whitespace and comments, for classification. */
export function stripLeadingComments(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && isSpace(sql[i]!)) i++;
    const seg = quotedOrComment(sql, i);
    if (seg?.kind !== 'comment') return sql.slice(i);
    i = seg.end;
  }
}

/**
 * Replace `$n` parameter references in code with `replace(n)` (its text, or undefined to keep it).
 * Used to give DuckDB the parameter types a client declared, or `VARCHAR` where DuckDB cannot infer
 * one (PostgreSQL's "unknown").
 */
export function replaceParams(sql: string, replace: (n: number) => string | undefined): string {
  if (!sql.includes('$')) return sql; // no parameter: no pass over every literal of a long text
  return mapCode(sql, (code) => code.replace(/(?<![A-Za-z0-9_$])\$(\d+)/g, (m, n: string) => replace(Number(n)) ?? m));
}

/**
 * Rewrite double-quoted identifiers: `replace(name)` returns the new (unquoted) name or undefined
 * to keep it. Cross-version catalogs ("demo@v1") are always quoted because of the `@`, so this is
 * how they are found and pinned to a version.
 */
export function replaceQuotedIdentifiers(sql: string, replace: (name: string) => string | undefined): string {
  if (!sql.includes('"')) return sql;
  return mapSegments(sql, (kind, text) => {
    if (kind !== 'identifier') return text;
    const r = replace(text.slice(1, -1).replace(/""/g, '"'));
    return r === undefined ? text : quoteIdent(r);
  });
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v';
}

/** PostgreSQL's identifier characters: ASCII letters, digits, `_`, `$` and every non-ASCII character (scan.l's \200-\377). */
function isIdentChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const k = c.charCodeAt(0);
  return (k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95 || k === 36 || k >= 128;
}

/** The string, identifier, dollar-quoted body or comment starting at `i`, if one does. */
function quotedOrComment(sql: string, i: number): { kind: SegmentKind; end: number } | null {
  const c = sql[i];
  if (c === '-' && sql[i + 1] === '-') {
    // PostgreSQL's and DuckDB's scanners end a line comment at \r as well as \n (`--c\rand x` is code after \r)
    let end = i + 2;
    while (end < sql.length && sql[end] !== '\n' && sql[end] !== '\r') end++;
    return { kind: 'comment', end: Math.min(end + 1, sql.length) };
  }
  if (c === '/' && sql[i + 1] === '*') return { kind: 'comment', end: skipBlockComment(sql, i) };
  if (c === "'") {
    const escaped = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentChar(sql[i - 2]);
    return { kind: 'string', end: skipQuoted(sql, i, "'", escaped) };
  }
  if (c === '"') return { kind: 'identifier', end: skipQuoted(sql, i, '"', false) };
  if (c === '$') {
    // $1 is a parameter; $tag$ or $$ opens a dollar-quoted string (a tag's letters any non-ASCII too, as PostgreSQL's).
    const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 66));
    if (!m || isIdentChar(sql[i - 1])) return null;
    const end = sql.indexOf(m[0], i + m[0].length);
    return { kind: 'dollar', end: end < 0 ? sql.length : end + m[0].length };
  }
  return null;
}

function skipQuoted(sql: string, i: number, q: string, backslash: boolean): number {
  // Native searches for the closing quote (and backslashes in E'…'), not a loop per character.
  const stop = backslash ? (q === "'" ? QUOTE_OR_BACKSLASH : DQUOTE_OR_BACKSLASH) : null;
  i++;
  while (i < sql.length) {
    let at: number;
    if (stop) {
      stop.lastIndex = i;
      const m = stop.exec(sql);
      at = m ? m.index : -1;
    } else at = sql.indexOf(q, i);
    if (at < 0) return sql.length;
    if (sql[at] === '\\') {
      i = at + 2;
      continue;
    }
    if (sql[at + 1] === q) {
      i = at + 2;
      continue;
    }
    return at + 1;
  }
  return sql.length;
}

const QUOTE_OR_BACKSLASH = /['\\]/g;
const DQUOTE_OR_BACKSLASH = /["\\]/g;

function skipBlockComment(sql: string, i: number): number {
  let depth = 0;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return i;
}

/** Longest statement text the gateway analyses (PostgreSQL has no such limit; a gateway needs one). */
export const MAX_STATEMENT_CHARS = 256 * 1024;
/** Deepest nesting of parentheses and brackets: DuckDB's parser and binder recurse per level. */
export const MAX_NESTING = 256;

/** A bracket, or a character that may open a string, identifier, dollar quote or comment. */
const BRACKET_OR_OPENER = /[()[\]{}'"$]|--|\/\*/g;

/** Deepest nesting of brackets outside strings and comments: one native scan from bracket or opener to the next. */
export function nestingDepth(sql: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < sql.length;) {
    BRACKET_OR_OPENER.lastIndex = i;
    const next = BRACKET_OR_OPENER.exec(sql);
    if (!next) break;
    i = next.index;
    const c = sql.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 41 || c === 93 || c === 125) depth--;
    else {
      i = quotedOrComment(sql, i)?.end ?? i + 1;
      continue;
    }
    i++;
  }
  return deepest;
}

/**
 * The ceilings on one statement's text, checked in one linear pass before anything parses it:
 * 54000 when it is too long, 54001 when it nests too deeply. Returns null when within both.
 */
export function statementCeilingExceeded(
  sql: string,
): { sqlstate: typeof SQLSTATE.programLimitExceeded | typeof SQLSTATE.statementTooComplex; message: string } | null {
  if (sql.length > MAX_STATEMENT_CHARS) {
    return {
      sqlstate: SQLSTATE.programLimitExceeded,
      message: `statement is too long: ${sql.length} characters, the gateway's limit is ${MAX_STATEMENT_CHARS}`,
    };
  }
  const deepest = nestingDepth(sql);
  if (deepest > MAX_NESTING) {
    return {
      sqlstate: SQLSTATE.statementTooComplex,
      message: `statement is too complex: nesting depth ${deepest} exceeds the gateway's limit of ${MAX_NESTING}`,
    };
  }
  return null;
}

/** Split a comma-separated list at commas outside parentheses, brackets, strings and comments. */
export function splitTopLevel(list: string): string[] {
  const items: string[] = [];
  let current = '';
  let depth = 0;
  mapSegments(list, (kind, text) => {
    if (kind !== 'code') {
      current += text;
      return text;
    }
    for (const c of text) {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth--;
      if (c === ',' && depth === 0) {
        items.push(current.trim());
        current = '';
      } else current += c;
    }
    return text;
  });
  if (current.trim() !== '' || items.length > 0) items.push(current.trim());
  return items;
}
