/**
 * Array Bind parameters: PostgreSQL's array text (array_in: one or more dimensions, quoting, NULL)
 * and binary (array_recv) forms → DuckDB lists, each element decoded as a parameter of the element
 * type (params.ts) and the list typed by the elements' common type.
 */
import {
  DECIMAL,
  DuckDBDecimalValue,
  DuckDBListValue,
  DOUBLE,
  LIST,
  VARCHAR,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../../errors.js';
import { OID, pgTypeName } from '../../pg/oids.js';
import { decodeParam, typeForOid, type DecodeSettings } from './params.js';
import { badBinary, badText, type DecodedParam } from './param-scalars.js';

/**
 * The most elements an array parameter may hold. Its elements are decoded at Bind on the event loop, which
 * every session shares: an 8.3 MB text[] of short elements held it 3.8 s (attacker review, issue 23);
 * 16,384 elements take about 30 ms to decode and bind (DuckDB converts a list value element by element).
 * PostgreSQL takes more; a longer list is sent as one text and split in
 * the statement.
 */
export const MAX_ARRAY_PARAM_ELEMENTS = 16_384;

const tooManyElements = (oid: number): SqlError =>
  new SqlError(
    SQLSTATE.programLimitExceeded,
    `an array parameter of type ${pgTypeName(oid)} has more than ${MAX_ARRAY_PARAM_ELEMENTS} elements, over fdl-gateway's limit`,
    undefined,
    "Array parameters are decoded on the gateway's event loop, which every session shares. Send a longer list as one text parameter and split it in the statement: unnest(string_to_array($1, ',')).",
  );

/** Element types whose text is the value (params.ts decodes them so). */
const TEXT_ELEMENTS: ReadonlySet<number> = new Set([OID.text, OID.varchar, OID.name, OID.bpchar]);

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** array_in for one-or-more dimensions: returns nested string|null lists (at most MAX_ARRAY_PARAM_ELEMENTS strings and NULLs). */
function parseArrayText(s: string, oid: number): unknown[] {
  let i = 0;
  const t = s.trim();
  if (t.startsWith('[')) {
    const eq = t.indexOf('=');
    if (eq < 0) throw badText(oid, s);
    i = eq + 1;
  } // "[1:2]={...}" bounds ignored
  let elements = 0;
  const skipSpaces = () => {
    while (isSpace(t.charCodeAt(i))) i++;
  };
  // The next backslash at or after `at` (remembered: searching the rest of the text per element was quadratic).
  // The memory holds for `at` between where its search began and what it found; an element's text is read
  // again from its start after its closing quote was found, so an `at` before that start searches anew.
  let searchedFrom = 0;
  let nextBackslash = -1;
  const backslashFrom = (at: number): number => {
    if (at < searchedFrom || nextBackslash < at) {
      searchedFrom = at;
      nextBackslash = t.indexOf('\\', at);
      if (nextBackslash < 0) nextBackslash = Infinity;
    }
    return nextBackslash;
  };
  // An element's text with its backslashes taken as escapes (slices, never a character at a time).
  const unescaped = (from: number, to: number): string => {
    let out = '';
    for (let at = from; ;) {
      const bs = backslashFrom(at);
      if (bs >= to) return out + t.slice(at, to);
      out += t.slice(at, bs) + t.charAt(bs + 1);
      at = bs + 2;
    }
  };
  const parse = (): unknown[] => {
    if (t[i] !== '{') throw badText(oid, s);
    i++;
    const out: unknown[] = [];
    for (;;) {
      skipSpaces();
      if (t[i] === '}') {
        i++;
        return out;
      }
      if (t[i] === '{') out.push(parse());
      else {
        if (++elements > MAX_ARRAY_PARAM_ELEMENTS) throw tooManyElements(oid);
        if (t[i] === '"') {
          const from = ++i;
          // the closing quote: the first one not escaped by a backslash
          for (;;) {
            const q = t.indexOf('"', i);
            if (q < 0) throw badText(oid, s);
            const bs = backslashFrom(i);
            if (bs < q) {
              i = bs + 2;
              continue;
            }
            i = q;
            break;
          }
          out.push(unescaped(from, i));
          i++;
        } else {
          const from = i;
          for (let c = t.charCodeAt(i); i < t.length && c !== 44 && c !== 125; c = t.charCodeAt(i))
            i += c === 92 ? 2 : 1;
          if (i > t.length) i = t.length;
          const v = unescaped(from, i).trim();
          out.push(v.length === 4 && v.toUpperCase() === 'NULL' ? null : v);
        }
      }
      skipSpaces();
      if (t[i] === ',') {
        i++;
        continue;
      }
      if (t[i] === '}') {
        i++;
        return out;
      }
      throw badText(oid, s);
    }
  };
  return parse();
}

function listType(elemType: DuckDBType | undefined, depth: number): DuckDBType {
  let t = elemType ?? VARCHAR;
  for (let d = 0; d < depth; d++) t = LIST(t);
  return t;
}

export function arrayFromText(oid: number, elemOid: number, s: string, set: DecodeSettings): DecodedParam {
  let depth = 1;
  const leaves: DecodedParam[] = [];
  const decode = (x: unknown, d: number): unknown => {
    if (x === null) return null;
    if (Array.isArray(x)) {
      depth = Math.max(depth, d + 1);
      return x.map((y) => decode(y, d + 1));
    }
    // the array's text is valid UTF-8 already: a text element is its string
    const r = TEXT_ELEMENTS.has(elemOid)
      ? { value: x as string, type: VARCHAR }
      : decodeParam(elemOid, 0, Buffer.from(x as string, 'utf8'), set);
    leaves.push(r);
    return r;
  };
  const tree = parseArrayText(s, oid).map((x) => decode(x, 1));
  const { type, value } = commonElementType(leaves, elemOid);
  const build = (x: unknown): DuckDBValue =>
    x === null ? null : Array.isArray(x) ? new DuckDBListValue(x.map(build)) : value(x as DecodedParam);
  return { value: new DuckDBListValue(tree.map(build)), type: listType(type, depth) };
}

/**
 * One element type for a list: numeric elements keep their own scales in PostgreSQL ({10,13.725}),
 * but a DuckDB list has one DECIMAL type, so every element is widened to the largest integer part
 * and scale (exactly; DOUBLE if one element is NaN/Infinity). Other types: the first element's.
 */
function commonElementType(
  leaves: DecodedParam[],
  elemOid: number,
): { type: DuckDBType | undefined; value: (r: DecodedParam) => DuckDBValue } {
  const same = { type: leaves.find((r) => r.type)?.type ?? typeForOid(elemOid), value: (r: DecodedParam) => r.value };
  if (elemOid !== OID.numeric || leaves.length === 0) return same;
  if (leaves.some((r) => !(r.value instanceof DuckDBDecimalValue))) {
    if (leaves.some((r) => typeof r.value === 'string'))
      throw new SqlError(SQLSTATE.numericValueOutOfRange, 'numeric array element out of range (more than 38 digits)');
    return { type: DOUBLE, value: (r) => (r.value instanceof DuckDBDecimalValue ? r.value.toDouble() : r.value) };
  }
  const decs = leaves.map((r) => r.value as DuckDBDecimalValue);
  const scale = Math.max(...decs.map((d) => d.scale));
  const width = Math.max(...decs.map((d) => d.width - d.scale)) + scale;
  if (width > 38)
    throw new SqlError(SQLSTATE.numericValueOutOfRange, 'numeric array element out of range (more than 38 digits)');
  return {
    type: DECIMAL(width, scale),
    value: (r) => {
      const d = r.value as DuckDBDecimalValue;
      return new DuckDBDecimalValue(d.value * 10n ** BigInt(scale - d.scale), width, scale);
    },
  };
}

export function arrayFromBinary(oid: number, b: Buffer, set: DecodeSettings): DecodedParam {
  if (b.length < 12) throw badBinary(oid);
  const ndim = b.readInt32BE(0),
    elemOid = b.readUInt32BE(8);
  // Checked before anything is read or allocated (22P03, as PostgreSQL's array_recv): at most 6
  // dimensions, none negative, and no more elements than the bytes can hold (4 each at least).
  if (ndim < 0 || ndim > 6 || b.length < 12 + 8 * ndim) throw badBinary(oid);
  let p = 12;
  const dims: number[] = [];
  let elements = ndim === 0 ? 0 : 1;
  for (let d = 0; d < ndim; d++) {
    const n = b.readInt32BE(p);
    p += 8;
    elements *= n;
    if (n < 0 || elements > (b.length - p) / 4) throw badBinary(oid);
    dims.push(n);
  }
  if (elements > MAX_ARRAY_PARAM_ELEMENTS) throw tooManyElements(oid);
  const leaves: DecodedParam[] = [];
  const next = (): DecodedParam | null => {
    if (p + 4 > b.length) throw badBinary(oid);
    const len = b.readInt32BE(p);
    p += 4;
    if (len < -1 || p + Math.max(0, len) > b.length) throw badBinary(oid);
    if (len < 0) return null;
    const r = decodeParam(elemOid, 1, b.subarray(p, p + len), set);
    p += len;
    leaves.push(r);
    return r;
  };
  const read = (d: number): unknown[] => {
    const items: unknown[] = [];
    for (let k = 0; k < dims[d]!; k++) items.push(d + 1 < ndim ? read(d + 1) : next());
    return items;
  };
  const tree = ndim === 0 ? [] : read(0);
  if (p !== b.length) throw badBinary(oid);
  const { type, value } = commonElementType(leaves, elemOid);
  const build = (x: unknown): DuckDBValue =>
    x === null ? null : Array.isArray(x) ? new DuckDBListValue(x.map(build)) : value(x as DecodedParam);
  return { value: new DuckDBListValue(tree.map(build)), type: listType(type, Math.max(ndim, 1)) };
}
