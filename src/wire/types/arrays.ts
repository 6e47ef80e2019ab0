/**
 * DuckDB LIST/ARRAY values as PostgreSQL arrays. Nested lists become one multi-dimensional array
 * (PostgreSQL has no arrays of arrays), which requires rectangular data: binary output refuses
 * jagged lists (2202E, as PostgreSQL does for ARRAY[...] with mismatched dimensions); text output
 * prints them as nested braces, which array parsers in clients accept.
 */
import type { DuckDBType, DuckDBValue, DuckDBListValue } from '@duckdb/node-api';
import { Writer } from '../writer.js';
import { SqlError, SQLSTATE } from '../../errors.js';
import type { ValueEncoder } from './values.js';

type Items = readonly DuckDBValue[];
const itemsOf = (v: DuckDBValue): Items => (v as DuckDBListValue).items;

/** Dimensions of a nested list if rectangular (null: jagged or NULL sub-list). Zero-size → []. */
function dimsOf(v: DuckDBValue, depth: number): number[] | null {
  const dims: number[] = [];
  let level: Items[] = [itemsOf(v)];
  for (let d = 0; d < depth; d++) {
    const n = level[0].length;
    for (const items of level) if (items.length !== n) return null;
    if (n === 0) return [];
    dims.push(n);
    if (d + 1 < depth) {
      const next: Items[] = [];
      for (const items of level)
        for (const x of items) {
          if (x === null) return null;
          next.push(itemsOf(x));
        }
      level = next;
    }
  }
  return dims;
}

/** Scratch space for one element's text, to decide on quoting before copying it out. */
const scratch = new Writer(1024);

function needsQuote(b: Buffer, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0) return true;
  if (
    n === 4 &&
    (b[start] | 32) === 110 &&
    (b[start + 1] | 32) === 117 &&
    (b[start + 2] | 32) === 108 &&
    (b[start + 3] | 32) === 108
  )
    return true;
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c === 34 || c === 92 || c === 123 || c === 125 || c === 44 || c === 32 || (c >= 9 && c <= 13)) return true;
  }
  return false;
}

function textElement(w: Writer, elem: ValueEncoder, v: DuckDBValue): void {
  const start = scratch.length;
  elem(scratch, v);
  const end = scratch.length;
  const b = scratch.raw;
  if (!needsQuote(b, start, end)) {
    w.bytes(b.subarray(start, end));
  } else {
    w.ensure(2 + 2 * (end - start));
    w.byte(34);
    for (let i = start; i < end; i++) {
      const c = b[i];
      if (c === 34 || c === 92) w.byte(92);
      w.byte(c);
    }
    w.byte(34);
  }
  scratch.truncate(start);
}

function textLevel(w: Writer, items: Items, depth: number, elem: ValueEncoder): void {
  w.byte(123);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) w.byte(44);
    const x = items[i];
    if (x === null) w.latin1('NULL');
    else if (depth > 1) textLevel(w, itemsOf(x), depth - 1, elem);
    else textElement(w, elem, x);
  }
  w.byte(125);
}

function flatten(items: Items, depth: number, out: DuckDBValue[]): void {
  if (depth === 1) {
    for (const x of items) out.push(x);
    return;
  }
  for (const x of items) flatten(itemsOf(x), depth - 1, out);
}

/**
 * Encoder for a list nested `depth` deep whose leaves encode with `elem` as `elemOid`.
 * Text: array_out syntax with PostgreSQL's quoting rules. Binary: array_send layout.
 */
export function arrayEncoder(
  depth: number,
  elem: ValueEncoder,
  elemOid: number,
  format: 0 | 1,
  _leaf: DuckDBType,
): ValueEncoder {
  if (format === 0) {
    return (w, v) => {
      const dims = depth > 1 ? dimsOf(v, depth) : null;
      if (dims && dims.length === 0) {
        w.latin1('{}');
        return;
      }
      textLevel(w, itemsOf(v), depth, elem);
    };
  }
  return (w, v) => {
    const dims = depth > 1 ? dimsOf(v, depth) : itemsOf(v).length ? [itemsOf(v).length] : [];
    if (dims === null) {
      throw new SqlError(
        SQLSTATE.arraySubscriptError,
        'multidimensional arrays must have array expressions with matching dimensions',
        'DuckDB returned a jagged nested list, which has no PostgreSQL binary array form',
      );
    }
    const flat: DuckDBValue[] = [];
    if (dims.length) flatten(itemsOf(v), depth, flat);
    w.int32(dims.length);
    w.int32(flat.includes(null) ? 1 : 0);
    w.int32(elemOid);
    for (const d of dims) {
      w.int32(d);
      w.int32(1);
    }
    for (const x of flat) {
      if (x === null) {
        w.int32(-1);
        continue;
      }
      const at = w.length;
      w.int32(0);
      elem(w, x);
      w.setInt32(at, w.length - at - 4);
    }
  };
}
