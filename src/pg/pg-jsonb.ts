/**
 * PostgreSQL's jsonb input and output for a constant (`'{"b":2,"a":1}'::jsonb`), applied at rewrite
 * time: keys sorted (shorter first, then by bytes), a duplicate key keeps its last value, numbers
 * read as numeric, and the text printed as jsonb_out does (`{"a": 1, "b": 2}`). DuckDB's JSON keeps
 * the text as written, so equal jsonb values compared unequal.
 */
import { SqlError, SQLSTATE } from '../errors.js';

type Json = null | boolean | string | { num: string } | Json[] | Map<string, Json>;

const invalid = (_text: string): SqlError =>
  new SqlError(SQLSTATE.invalidTextRepresentation, 'invalid input syntax for type json');

const PLAIN_INTEGER = /^-?\d+$/;

/** numeric's bounds (PostgreSQL's NUMERIC_WEIGHT_MAX in decimal digits before the point, NUMERIC_DSCALE_MAX after). */
const MAX_INTEGER_DIGITS = 131_072;
const MAX_SCALE = 16_383;

/**
 * A JSON number as numeric_out prints it: exponent applied, scale max(0, fraction digits − exponent). Past
 * numeric's bounds 22003 as numeric_in says, before any digit is written out: `1e100000000` (47 characters of
 * jsonb) had been expanded on the event loop, 11 s and 2.6 GB (attacker review, session 56).
 */
function numericText(token: string): string {
  // an integer (JSON allows no leading zeros) prints as written, but for -0
  if (PLAIN_INTEGER.test(token)) return token === '-0' ? '0' : token;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)!;
  const [, sign, whole, frac = '', exp = '0'] = m;
  const e = Number(exp);
  const scale = Math.max(0, frac.length - e);
  const all = whole! + frac;
  const leadingZeros = all.length - all.replace(/^0+/, '').length;
  const overflow = () => new SqlError(SQLSTATE.numericValueOutOfRange, 'value overflows numeric format');
  if (scale > MAX_SCALE) throw overflow();
  if (leadingZeros === all.length) return scale ? `0.${'0'.repeat(scale)}` : '0';
  const point = whole!.length + e; // position of the decimal point in whole+frac
  if (point - leadingZeros > MAX_INTEGER_DIGITS) throw overflow();
  let intPart: string;
  let fracPart: string;
  if (point <= 0) {
    intPart = '0';
    fracPart = '0'.repeat(-point) + all;
  } else if (point >= all.length) {
    intPart = all + '0'.repeat(point - all.length);
    fracPart = '';
  } else {
    intPart = all.slice(0, point);
    fracPart = all.slice(point);
  }
  fracPart = (fracPart + '0'.repeat(scale)).slice(0, scale);
  intPart = intPart.replace(/^0+(?=\d)/, '');
  const zero = /^0*$/.test(intPart + fracPart);
  return `${sign && !zero ? '-' : ''}${intPart}${scale ? `.${fracPart}` : ''}`;
}

// Sticky: matched at the parser's position, never on a copy of the rest of the text (that was quadratic:
// 0.7 s a MB on the event loop for a jsonb parameter).
const SCALAR = /(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/y;
// eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
/** The largest text put into jsonb's normal form (a parameter at Bind, a shown value, a constant): ~0.1 s of the event loop. */
export const MAX_NORMALIZED_CHARS = 262144;
/** Nesting levels read (and printed) by recursion: past it PostgreSQL's own stack limit's SQLSTATE. */
const MAX_DEPTH = 2000;
const tooDeep = (): SqlError =>
  new SqlError(
    SQLSTATE.statementTooComplex,
    'stack depth limit exceeded',
    undefined,
    `jsonb nested over ${MAX_DEPTH} levels is not read by fdl-gateway.`,
  );

function parse(text: string): Json {
  let i = 0;
  const ws = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  };
  let depth = 0;
  const value = (): Json => {
    ws();
    const c = text[i];
    if ((c === '{' || c === '[') && ++depth > MAX_DEPTH) throw tooDeep();
    if (c === '{') {
      i++;
      const obj = new Map<string, Json>();
      ws();
      if (text[i] === '}') {
        i++;
        depth--;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw invalid(text);
        const key = string();
        ws();
        if (text[i++] !== ':') throw invalid(text);
        obj.delete(key);
        obj.set(key, value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] === '}') {
          depth--;
          return obj;
        }
        throw invalid(text);
      }
    }
    if (c === '[') {
      i++;
      const arr: Json[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        depth--;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] === ']') {
          depth--;
          return arr;
        }
        throw invalid(text);
      }
    }
    if (c === '"') return string();
    SCALAR.lastIndex = i;
    const m = SCALAR.exec(text);
    if (!m) throw invalid(text);
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : { num: numericText(m[0]) };
  };
  const string = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) throw invalid(text);
    i += m[0].length;
    const s = m[0].includes('\\') ? (JSON.parse(m[0]) as string) : m[0].slice(1, -1);
    if (s.includes('\u0000'))
      throw new SqlError(SQLSTATE.untranslatableCharacter, 'unsupported Unicode escape sequence');
    return s;
  };
  const v = value();
  ws();
  if (i !== text.length) throw invalid(text);
  return v;
}

/** PostgreSQL's escape_json: ", \\, \b \f \n \r \t, other control characters as \u00XX. */
function quote(s: string): string {
  // eslint-disable-next-line no-control-regex -- JSON's control characters are what is escaped
  return `"${s.replace(/["\\\u0000-\u001f]/g, (ch) => (({ '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }) as Record<string, string>)[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

// eslint-disable-next-line no-control-regex -- every ASCII character
const ASCII = /^[\u0000-\u007f]*$/;

/** jsonb's key order: shorter keys first, equal lengths by their UTF-8 bytes (each key's bytes made once). */
function sortedKeys(obj: Map<string, Json>): string[] {
  const keys = [...obj.keys()];
  // ASCII keys compare as their bytes do without being encoded (most documents' keys)
  if (keys.every((k) => ASCII.test(k))) return keys.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return keys
    .map((k) => ({ k, bytes: Buffer.from(k) }))
    .sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes))
    .map(({ k }) => k);
}

function print(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return quote(v);
  if (Array.isArray(v)) return `[${v.map(print).join(', ')}]`;
  if (v instanceof Map)
    return `{${sortedKeys(v)
      .map((k) => `${quote(k)}: ${print(v.get(k)!)}`)
      .join(', ')}}`;
  return v.num;
}

/** The text PostgreSQL prints for `'…'::jsonb`, or its 22P02. */
export function jsonbText(text: string): string {
  if (text.length > MAX_NORMALIZED_CHARS)
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `a jsonb value of ${text.length} characters is over the gateway's limit of ${MAX_NORMALIZED_CHARS} for jsonb's normal form`,
      undefined,
      "jsonb's normal form is computed on the gateway's event loop, which every session shares. Send or compute a large document as json (x::json keeps its text), or read its members with ->>.",
    );
  return print(parse(text));
}

/** jsonb_pretty's layout (JsonbToCStringIndent): four spaces a level, every member and element on a line of its own. */
function pretty(v: Json, depth: number): string {
  const pad = (d: number) => '    '.repeat(d);
  const items = (list: string[], open: string, close: string) =>
    `${open}${list.map((x) => `\n${pad(depth + 1)}${x}`).join(',')}\n${pad(depth)}${close}`;
  if (Array.isArray(v))
    return items(
      v.map((x) => pretty(x, depth + 1)),
      '[',
      ']',
    );
  if (v instanceof Map)
    return items(
      sortedKeys(v).map((k) => `${quote(k)}: ${pretty(v.get(k)!, depth + 1)}`),
      '{',
      '}',
    );
  return print(v);
}

/** `jsonb_pretty('…')` of a constant, or its 22P02. */
export function jsonbPrettyText(text: string): string {
  return pretty(parse(text), 0);
}
