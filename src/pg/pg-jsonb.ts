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

/** A JSON number as numeric_out prints it: exponent applied, scale max(0, fraction digits − exponent). */
function numericText(token: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)!;
  const [, sign, whole, frac = '', exp = '0'] = m;
  const e = Number(exp);
  const scale = Math.max(0, frac.length - e);
  const point = whole!.length + e; // position of the decimal point in whole+frac
  const all = whole! + frac;
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

function parse(text: string): Json {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const value = (): Json => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = new Map<string, Json>();
      ws();
      if (text[i] === '}') {
        i++;
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
        if (text[i++] === '}') return obj;
        throw invalid(text);
      }
    }
    if (c === '[') {
      i++;
      const arr: Json[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] === ']') return arr;
        throw invalid(text);
      }
    }
    if (c === '"') return string();
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) throw invalid(text);
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : { num: numericText(m[0]) };
  };
  const string = (): string => {
    // eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
    if (!m) throw invalid(text);
    i += m[0].length;
    const s = JSON.parse(m[0]) as string;
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

/** jsonb's key order: shorter keys first, equal lengths by their UTF-8 bytes. */
function keyOrder(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length - y.length || Buffer.compare(x, y);
}

function print(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return quote(v);
  if (Array.isArray(v)) return `[${v.map(print).join(', ')}]`;
  if (v instanceof Map)
    return `{${[...v.keys()]
      .sort(keyOrder)
      .map((k) => `${quote(k)}: ${print(v.get(k)!)}`)
      .join(', ')}}`;
  return v.num;
}

/** The text PostgreSQL prints for `'…'::jsonb`, or its 22P02. */
export function jsonbText(text: string): string {
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
      [...v.keys()].sort(keyOrder).map((k) => `${quote(k)}: ${pretty(v.get(k)!, depth + 1)}`),
      '{',
      '}',
    );
  return print(v);
}

/** `jsonb_pretty('…')` of a constant, or its 22P02. */
export function jsonbPrettyText(text: string): string {
  return pretty(parse(text), 0);
}
