/**
 * The hot path: one DuckDB data chunk → DataRow messages in the connection's Writer.
 *
 * node-api's DuckDBVector.getItem allocates a value object per cell and tests validity with BigInt
 * arithmetic; the common scalar types are instead read from the chunk's vector memory
 * (fast-columns.ts). Everything else goes through getItem + values.ts.
 */
import { DuckDBTypeId, type DuckDBDataChunk, type DuckDBType } from '@duckdb/node-api';
import type { Writer } from '../writer.js';
import { OID, typedWrapper } from '../../pg/oids.js';
import { SqlError, SQLSTATE } from '../../errors.js';
import { valueEncoder, type EncodeSettings, type ValueEncoder } from './values.js';
import { fastColumn, type Cell, type ColumnFactory } from './fast-columns.js';

function genericColumn(t: DuckDBType, format: 0 | 1, s: EncodeSettings): ColumnFactory {
  return encodedColumn(valueEncoder(t, format, s));
}

/** A column whose values `enc` writes one by one (NULL as -1, each value behind its length). */
function encodedColumn(enc: ValueEncoder): ColumnFactory {
  return (ch, c) => {
    const vec = ch.getColumnVector(c);
    return (w, i) => {
      const v = vec.getItem(i);
      if (v === null) {
        w.int32(-1);
        return;
      }
      const at = w.length;
      w.int32(0);
      enc(w, v);
      w.setInt32(at, w.length - at - 4);
    };
  };
}

/**
 * A value wrapped with its PostgreSQL type (pg/oids.ts `typedWrapper`): NULL when the value is, and a
 * row when every field is NULL — the row an outer join adds for a missing match, which PostgreSQL
 * sends as NULL (DuckDB: a struct of NULLs; a stored row of NULLs is NULL here too, PostgreSQL `(,)`).
 */
function wrappedColumn(field: string, enc: ValueEncoder): ColumnFactory {
  const absent = (v: unknown): boolean => {
    const x = v === null ? null : (v as { entries: Record<string, unknown> }).entries[field];
    if (x === null || x === undefined) return true;
    const fields = field === 'fdl_pg_row' ? (x as { entries?: Record<string, unknown> }).entries : undefined;
    return fields !== undefined && typeof fields === 'object' && Object.values(fields).every((y) => y === null);
  };
  return (ch, c) => {
    const vec = ch.getColumnVector(c);
    return (w, i) => {
      const v = vec.getItem(i);
      if (absent(v)) {
        w.int32(-1);
        return;
      }
      const at = w.length;
      w.int32(0);
      enc(w, v!);
      w.setInt32(at, w.length - at - 4);
    };
  };
}

/** A text column passed through `filter` (text and binary forms of text are the same bytes). */
function filteredText(filter: (text: string) => string): ColumnFactory {
  return encodedColumn((w, v) => void w.utf8(filter(String(v))));
}

/** int2vector and oidvector: their text form lists the numbers with spaces (`2275 25`), not as an array (pgjdbc parses it so). */
const VECTOR_OIDS: ReadonlySet<number> = new Set([22, 30]);
const vectorText: ColumnFactory = encodedColumn(
  (w, v) => void w.utf8((v as { items: unknown[] }).items.map(String).join(' ')),
);

/** regclass, regtype, regproc, regprocedure, regnamespace, regrole. */
const REG_OIDS: ReadonlySet<number> = new Set([2205, 2206, 24, 2202, 4089, 4096]);

/**
 * Writes the DataRows of `chunk` rows [start, end) into `w`; returns the number of rows written: fewer once
 * `w` is full or, past at least one row, once `performance.now()` reaches `until` (a turn of the event loop's
 * budget: a chunk of 2,048 rows of costly values, jsonb's normal form, is not encoded in one turn).
 */
export type RowEncoder = (chunk: DuckDBDataChunk, w: Writer, start?: number, end?: number, until?: number) => number;

/**
 * Build the per-result encoder once (after RowDescription is known) and call it per chunk.
 * `formats`: per column 0 text / 1 binary (already expanded from Bind's 0/1/N format codes).
 * `oids` (optional): the OID announced per column when it differs from pgFieldFor (e.g. catalog
 * columns served as int2/oid/name); integer columns then use that binary width.
 */
export function makeRowEncoder(
  types: DuckDBType[],
  formats: (0 | 1)[],
  s: EncodeSettings,
  oids?: (number | undefined)[],
): RowEncoder {
  const ncols = types.length;
  const factories = types.map((t, c) => {
    const f = formats[c] ?? 0;
    const oid = oids?.[c] ?? defaultIntOid(t);
    // reg* shown as names (`cast($1 as regclass)`): their binary form is the OID, which the name column does not carry.
    if (f === 1 && REG_OIDS.has(oid) && t.typeId === DuckDBTypeId.VARCHAR) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `binary format for result column ${c + 1} of type ${oid} (reg*) is not supported`,
        undefined,
        'Request it in text format, or cast it to oid.',
      );
    }
    if (s.textFilter && t.typeId === DuckDBTypeId.VARCHAR) return filteredText(s.textFilter);
    if (f === 0 && VECTOR_OIDS.has(oid) && t.typeId === DuckDBTypeId.LIST) return vectorText;
    const wrapped = typedWrapper(t);
    if (wrapped) return wrappedColumn(`fdl_pg_${wrapped.what}`, valueEncoder(t, f, s));
    return fastColumn(t, f, s, oid) ?? genericColumn(t, f, s);
  });
  return (chunk, w, start = 0, end = chunk.rowCount, until = Infinity) => {
    const n = chunk.rowCount;
    if (end > n) end = n;
    const cells: Cell[] = new Array(ncols);
    for (let c = 0; c < ncols; c++) cells[c] = factories[c](chunk, c, n);
    for (let i = start; i < end; i++) {
      const rowStart = w.length;
      try {
        const at = w.begin(0x44);
        w.int16(ncols);
        for (let c = 0; c < ncols; c++) cells[c](w, i);
        w.end(at);
      } catch (e) {
        w.truncate(rowStart); // leave only complete DataRows behind
        throw e;
      }
      // the caller sends this batch (or lets the loop turn), then asks for the rest
      if (w.full || performance.now() >= until) return i + 1 - start;
    }
    return end > start ? end - start : 0;
  };
}

function defaultIntOid(t: DuckDBType): number {
  switch (t.typeId) {
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.UTINYINT:
      return OID.int2;
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.USMALLINT:
      return OID.int4;
    default:
      return OID.int8;
  }
}
