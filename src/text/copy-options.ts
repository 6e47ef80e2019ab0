/**
 * COPY … TO STDOUT's options as PostgreSQL 15 reads them, in both spellings: the list
 * `(FORMAT csv, HEADER, FORCE_QUOTE *)` and the old keywords `BINARY`, `CSV HEADER FORCE QUOTE a, b`.
 * Checked as PostgreSQL checks them (ProcessCopyOptions): an option twice, one that belongs to
 * another format or to COPY FROM, is refused with PostgreSQL's SQLSTATE, never ignored.
 */
import { SQLSTATE } from '../errors.js';
import { normalizeIdent } from './identifier.js';

export interface CopyOptions {
  format: 'text' | 'csv' | 'binary';
  header: boolean;
  delimiter: string;
  /** The spelling of NULL: `\N` in text, the empty string in CSV. */
  nullString: string;
  quote: string;
  escape: string;
  /** Columns always quoted in CSV: `*` for all of them. */
  forceQuote: string[] | '*' | null;
}

export type CopyOptionsResult = { ok: CopyOptions } | { error: { sqlstate: string; message: string } };

const ident = String.raw`"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*`;
const literal = String.raw`E?'(?:[^']|'')*'`;

/** A string literal's value ('' doubles a quote; E'' reads backslash escapes). */
function unquote(lit: string): string {
  if (/^[Ee]'/.test(lit)) {
    return lit
      .slice(2, -1)
      .replace(/''/g, "'")
      .replace(
        /\\(.)/g,
        (_, c: string) => (({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' }) as Record<string, string>)[c] ?? c,
      );
  }
  return lit.slice(1, -1).replace(/''/g, "'");
}

function fail(sqlstate: string, message: string): CopyOptionsResult {
  return { error: { sqlstate, message } };
}

/** Read the options after `TO STDOUT`. */
export function parseCopyOptions(text: string): CopyOptionsResult {
  const raw: [string, string | string[] | null][] = [];
  const t = text.trim().replace(/^WITH\b\s*/i, '');
  if (t.startsWith('(')) {
    if (!t.endsWith(')')) return fail(SQLSTATE.syntaxError, 'syntax error in COPY options');
    // name [value | (col, …) | *] [, …]
    const item = new RegExp(
      String.raw`\s*([A-Za-z_]+)(?:\s+(${literal}|\*|\((?:\s*(?:${ident})\s*,?)+\)|[A-Za-z0-9_.+-]+))?\s*(,|$)`,
      'y',
    );
    const body = t.slice(1, -1).trim();
    let m: RegExpExecArray | null;
    let pos = 0;
    while (pos < body.length && (m = item.exec(body))) {
      raw.push([m[1]!.toLowerCase(), value(m[2])]);
      pos = item.lastIndex;
      if (m[3] === '') break;
    }
    if (pos < body.length)
      return fail(SQLSTATE.syntaxError, `syntax error in COPY options at "${body.slice(pos, pos + 20)}"`);
  } else {
    // Old syntax: BINARY | DELIMITER [AS] 'x' | NULL [AS] 'x' | CSV | HEADER | QUOTE [AS] 'q' | ESCAPE [AS] 'e' | FORCE QUOTE {* | col, …}
    const word = new RegExp(
      String.raw`\s*(?:(BINARY|CSV|HEADER)|(DELIMITER|NULL|QUOTE|ESCAPE|ENCODING)\s+(?:AS\s+)?(${literal})|FORCE\s+QUOTE\s+(\*|(?:${ident})(?:\s*,\s*(?:${ident}))*))`,
      'iy',
    );
    let m: RegExpExecArray | null;
    let pos = 0;
    while (pos < t.length && (m = word.exec(t))) {
      if (m[1])
        raw.push(
          m[1].toUpperCase() === 'BINARY'
            ? ['format', 'binary']
            : m[1].toUpperCase() === 'CSV'
              ? ['format', 'csv']
              : ['header', null],
        );
      else if (m[2]) raw.push([m[2].toLowerCase(), unquote(m[3]!)]);
      else raw.push(['force_quote', m[4] === '*' ? '*' : m[4]!.split(/\s*,\s*/).map(normalizeIdent)]);
      pos = word.lastIndex;
    }
    if (t.slice(pos).trim() !== '')
      return fail(SQLSTATE.syntaxError, `syntax error at or near "${t.slice(pos).trim().split(/\s+/)[0]}"`);
  }
  return check(raw);
}

function value(v: string | undefined): string | string[] | null {
  if (v === undefined) return null;
  if (v === '*') return '*';
  if (v.startsWith('(')) return [...v.slice(1, -1).matchAll(new RegExp(ident, 'g'))].map((c) => normalizeIdent(c[0]));
  if (/^[Ee]?'/.test(v)) return unquote(v);
  return v.toLowerCase();
}

const BOOLEAN: Record<string, boolean> = { true: true, on: true, 1: true, false: false, off: false, 0: false };

/** ProcessCopyOptions' checks, for COPY TO. */
function check(raw: [string, string | string[] | null][]): CopyOptionsResult {
  const seen = new Map<string, string | string[] | null>();
  for (const [name, v] of raw) {
    if (seen.has(name)) return fail(SQLSTATE.syntaxError, 'conflicting or redundant options');
    seen.set(name, v);
  }
  const str = (name: string): string | undefined => {
    const v = seen.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  for (const name of seen.keys()) {
    if (['format', 'header', 'delimiter', 'null', 'quote', 'escape', 'force_quote', 'encoding'].includes(name))
      continue;
    if (name === 'freeze') continue; // accepted and meaningless in COPY TO, as in PostgreSQL
    if (name === 'force_not_null' || name === 'force_null')
      return fail(SQLSTATE.featureNotSupported, `COPY ${name.replace(/_/g, ' ')} only available using COPY FROM`);
    return fail(SQLSTATE.syntaxError, `option "${name}" not recognized`);
  }
  const format = str('format') ?? 'text';
  if (format !== 'text' && format !== 'csv' && format !== 'binary')
    return fail(SQLSTATE.invalidParameterValue, `COPY format "${format}" not recognized`);
  const headerRaw = seen.get('header');
  let header = false;
  if (seen.has('header')) {
    if (headerRaw === null) header = true;
    else if (typeof headerRaw === 'string' && headerRaw in BOOLEAN) header = BOOLEAN[headerRaw]!;
    else if (headerRaw === 'match')
      return fail(SQLSTATE.featureNotSupported, 'cannot use "match" with HEADER in COPY TO');
    else return fail(SQLSTATE.syntaxError, 'header requires a Boolean value or "match"');
  }
  const encoding = str('encoding');
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding))
    return fail(SQLSTATE.featureNotSupported, 'COPY ENCODING other than UTF8 is not supported by fdl-gateway');
  const csv = format === 'csv';
  if (format === 'binary') {
    for (const name of ['delimiter', 'null'])
      if (seen.has(name)) return fail(SQLSTATE.syntaxError, `cannot specify ${name.toUpperCase()} in BINARY mode`);
    if (header) return fail(SQLSTATE.featureNotSupported, 'cannot specify HEADER in BINARY mode');
  }
  const delimiter = str('delimiter') ?? (csv ? ',' : '\t');
  const nullString = str('null') ?? (csv ? '' : '\\N');
  if (!csv && (seen.has('quote') || seen.has('escape')))
    return fail(
      SQLSTATE.featureNotSupported,
      `COPY ${seen.has('quote') ? 'quote' : 'escape'} available only in CSV mode`,
    );
  if (!csv && seen.has('force_quote'))
    return fail(SQLSTATE.featureNotSupported, 'COPY force quote available only in CSV mode');
  const quote = str('quote') ?? '"';
  const escape = str('escape') ?? quote;
  if (Buffer.byteLength(delimiter) !== 1)
    return fail(SQLSTATE.featureNotSupported, 'COPY delimiter must be a single one-byte character');
  if (/[\r\n]/.test(delimiter))
    return fail(SQLSTATE.invalidParameterValue, 'COPY delimiter cannot be newline or carriage return');
  if (/[\r\n]/.test(nullString))
    return fail(SQLSTATE.invalidParameterValue, 'COPY null representation cannot use newline or carriage return');
  if (!csv && 'abcdefghijklmnopqrstuvwxyz0123456789.\\'.includes(delimiter.toLowerCase()))
    return fail(SQLSTATE.invalidParameterValue, `COPY delimiter cannot be "${delimiter}"`);
  if (csv && Buffer.byteLength(quote) !== 1)
    return fail(SQLSTATE.featureNotSupported, 'COPY quote must be a single one-byte character');
  if (csv && delimiter === quote)
    return fail(SQLSTATE.invalidParameterValue, 'COPY delimiter and quote must be different');
  if (csv && Buffer.byteLength(escape) !== 1)
    return fail(SQLSTATE.featureNotSupported, 'COPY escape must be a single one-byte character');
  if (nullString.includes(delimiter))
    return fail(SQLSTATE.invalidParameterValue, 'COPY delimiter must not appear in the NULL specification');
  if (csv && nullString.includes(quote))
    return fail(SQLSTATE.featureNotSupported, 'CSV quote character must not appear in the NULL specification');
  const fq = seen.get('force_quote');
  const forceQuote =
    fq === undefined || fq === null ? null : fq === '*' ? '*' : Array.isArray(fq) ? fq : [normalizeIdent(fq)];
  return { ok: { format, header, delimiter, nullString, quote, escape, forceQuote } };
}
