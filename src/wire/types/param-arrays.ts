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
import { OID } from '../../pg/oids.js';
import { decodeParam, typeForOid, type DecodeSettings } from './params.js';
import { badBinary, badText, type DecodedParam } from './param-scalars.js';

/** array_in for one-or-more dimensions: returns nested string|null lists. */
function parseArrayText(s: string, oid: number): unknown[] {
  let i = 0;
  const t = s.trim();
  if (t.startsWith('[')) {
    const eq = t.indexOf('=');
    if (eq < 0) throw badText(oid, s);
    i = eq + 1;
  } // "[1:2]={...}" bounds ignored
  const parse = (): unknown[] => {
    if (t[i] !== '{') throw badText(oid, s);
    i++;
    const out: unknown[] = [];
    for (;;) {
      while (/\s/.test(t[i] ?? '')) i++;
      if (t[i] === '}') {
        i++;
        return out;
      }
      if (t[i] === '{') out.push(parse());
      else if (t[i] === '"') {
        let v = '';
        i++;
        while (i < t.length && t[i] !== '"') {
          if (t[i] === '\\') i++;
          v += t[i++];
        }
        if (t[i] !== '"') throw badText(oid, s);
        i++;
        out.push(v);
      } else {
        let v = '';
        while (i < t.length && t[i] !== ',' && t[i] !== '}') {
          if (t[i] === '\\') i++;
          v += t[i++];
        }
        v = v.trim();
        out.push(v.toUpperCase() === 'NULL' ? null : v);
      }
      while (/\s/.test(t[i] ?? '')) i++;
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
    const r = decodeParam(elemOid, 0, Buffer.from(x as string, 'utf8'), set);
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
