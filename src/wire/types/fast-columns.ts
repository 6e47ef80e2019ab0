/**
 * The fast column readers: the chunk's vector memory read directly through @duckdb/node-bindings (the
 * same calls node-api makes) — typed arrays for fixed-width columns, the 16-byte string_t slots for
 * VARCHAR/BLOB (UTF-8 bytes copied without decoding) — with validity tested by byte arithmetic.
 * Types without a fast reader return null (rows.ts then reads them through getItem + values.ts).
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBTypeId, type DuckDBDataChunk, type DuckDBType } from '@duckdb/node-api';
import type { Writer } from '../writer.js';
import { OID } from '../../pg/oids.js';
import * as T from './text.js';
import * as DT from './datetime-text.js';
import * as B from './binary.js';
import { zoneFor } from './tz.js';
import type { EncodeSettings } from './values.js';

/** Writes one cell (int32 length or -1, then the bytes) for row `i`. */
export type Cell = (w: Writer, i: number) => void;
/** Prepared once per result column; instantiated once per chunk. */
export type ColumnFactory = (chunk: DuckDBDataChunk, col: number, n: number) => Cell;

interface Raw {
  data: Uint8Array;
  valid: Uint8Array | null;
}

function raw(chunk: DuckDBDataChunk, col: number, n: number, width: number): Raw {
  const vec = duckdb.data_chunk_get_vector(chunk.chunk, col);
  const data = duckdb.vector_get_data(vec, n * width);
  // Validity is a uint64 bitmap (little-endian words), absent when every row is valid.
  const valid = (duckdb.vector_get_validity(vec, Math.ceil(n / 64) * 8) as Uint8Array | null) ?? null;
  return { data, valid };
}

const isNull = (v: Uint8Array | null, i: number) => v !== null && ((v[i >> 3] >> (i & 7)) & 1) === 0;

// A cell whose length is known only after writing it: open() reserves the int32 length, close()
// fills it in. (Not a callback helper: a closure per cell was a measurable share of GC time.)
function open(w: Writer): number {
  const at = w.length;
  w.int32(0);
  return at;
}
function close(w: Writer, at: number): void {
  w.setInt32(at, w.length - at - 4);
}

const TWO32 = 4294967296;
/** int64 stored as (lo, hi) int32 pairs: hi within this range means |value| < 2^53. */
const SAFE_HI = 2097152;

export function fastColumn(t: DuckDBType, format: 0 | 1, s: EncodeSettings, oid: number): ColumnFactory | null {
  const text = format === 0;
  const efd = s.extraFloatDigits ?? 1;
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, 1);
        return (w, i) => {
          if (isNull(valid, i)) {
            w.int32(-1);
            return;
          }
          w.int32(1);
          w.byte(text ? (data[i] ? 0x74 : 0x66) : data[i] ? 1 : 0);
        };
      };
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER: {
      const id = t.typeId;
      const width =
        id === DuckDBTypeId.TINYINT || id === DuckDBTypeId.UTINYINT
          ? 1
          : id === DuckDBTypeId.SMALLINT || id === DuckDBTypeId.USMALLINT
            ? 2
            : 4;
      const view = (d: Uint8Array, n: number) =>
        id === DuckDBTypeId.TINYINT
          ? new Int8Array(d.buffer, d.byteOffset, n)
          : id === DuckDBTypeId.UTINYINT
            ? d.subarray(0, n)
            : id === DuckDBTypeId.SMALLINT
              ? new Int16Array(d.buffer, d.byteOffset, n)
              : id === DuckDBTypeId.USMALLINT
                ? new Uint16Array(d.buffer, d.byteOffset, n)
                : id === DuckDBTypeId.INTEGER
                  ? new Int32Array(d.buffer, d.byteOffset, n)
                  : new Uint32Array(d.buffer, d.byteOffset, n);
      // The declared OID decides the binary width (int2 2, int4 4, oid 4 unsigned, int8 8).
      const bin: (w: Writer, v: number) => void =
        oid === OID.int2
          ? (w, v) => {
              w.int32(2);
              w.int16(v);
            }
          : oid === OID.int4
            ? (w, v) => {
                w.int32(4);
                w.int32(v);
              }
            : oid === OID.oid
              ? (w, v) => {
                  w.int32(4);
                  w.uint32(v);
                }
              : (w, v) => {
                  w.int32(8);
                  B.int64Num(w, v);
                };
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, width);
        const a = view(data, n);
        return text
          ? (w, i) => {
              if (isNull(valid, i)) w.int32(-1);
              else {
                const at = open(w);
                T.intText(w, a[i]);
                close(w, at);
              }
            }
          : (w, i) => {
              if (isNull(valid, i)) w.int32(-1);
              else bin(w, a[i]);
            };
      };
    }
    case DuckDBTypeId.BIGINT:
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, 8);
        const a = new Int32Array(data.buffer, data.byteOffset, 2 * n);
        if (!text && oid !== OID.int8) {
          // Declared narrower (e.g. a catalog oid/int4 column computed as BIGINT): write that width.
          const bin =
            oid === OID.int2
              ? (w: Writer, v: number) => {
                  w.int32(2);
                  w.int16(v);
                }
              : oid === OID.oid
                ? (w: Writer, v: number) => {
                    w.int32(4);
                    w.uint32(v);
                  }
                : (w: Writer, v: number) => {
                    w.int32(4);
                    w.int32(v);
                  };
          return (w, i) => {
            if (isNull(valid, i)) {
              w.int32(-1);
              return;
            }
            bin(w, a[2 * i + 1] * TWO32 + (a[2 * i] >>> 0));
          };
        }
        if (!text)
          return (w, i) => {
            if (isNull(valid, i)) {
              w.int32(-1);
              return;
            }
            w.int32(8);
            w.int32(a[2 * i + 1]);
            w.int32(a[2 * i]);
          };
        return (w, i) => {
          if (isNull(valid, i)) {
            w.int32(-1);
            return;
          }
          const hi = a[2 * i + 1],
            lo = a[2 * i];
          const at = open(w);
          // Within int32 (most ids and counts) the low word is the value: integer arithmetic only.
          if ((hi === 0 && lo >= 0) || (hi === -1 && lo < 0)) T.intText(w, lo);
          else if (hi >= -SAFE_HI && hi < SAFE_HI) T.intText(w, hi * TWO32 + (lo >>> 0));
          else w.latin1(((BigInt(hi) << 32n) | BigInt(lo >>> 0)).toString());
          close(w, at);
        };
      };
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE: {
      const f4 = t.typeId === DuckDBTypeId.FLOAT;
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, f4 ? 4 : 8);
        const a = f4
          ? new Float32Array(data.buffer, data.byteOffset, n)
          : new Float64Array(data.buffer, data.byteOffset, n);
        if (!text)
          return f4
            ? (w, i) => {
                if (isNull(valid, i)) w.int32(-1);
                else {
                  w.int32(4);
                  w.float32(a[i]);
                }
              }
            : (w, i) => {
                if (isNull(valid, i)) w.int32(-1);
                else {
                  w.int32(8);
                  w.float64(a[i]);
                }
              };
        return (w, i) => {
          if (isNull(valid, i)) {
            w.int32(-1);
            return;
          }
          const v = a[i];
          if (efd > 0 && f4) {
            // Whole float4 values below 1e6 print as integers (0 excluded: -0 goes the general way).
            if (v !== 0 && v === Math.trunc(v) && v < 1e6 && v > -1e6) {
              const at = open(w);
              T.intText(w, v);
              close(w, at);
              return;
            }
          } else if (efd > 0) {
            const at = open(w);
            if (T.float8FixedText(w, v)) {
              close(w, at);
              return;
            }
            w.truncate(at); // not a fast-path value: float8String below
          }
          const str = f4 ? T.float4String(v, efd) : T.float8String(v, efd);
          w.int32(str.length);
          w.latin1(str);
        };
      };
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BLOB: {
      const hex = t.typeId === DuckDBTypeId.BLOB && text;
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, 16);
        const lens = new Uint32Array(data.buffer, data.byteOffset, 4 * n);
        return (w, i) => {
          if (isNull(valid, i)) {
            w.int32(-1);
            return;
          }
          const len = lens[4 * i];
          if (len <= 12 && !hex) {
            // string_t: ≤12 bytes inline after the length — copy them without a view allocation.
            w.int32(len);
            w.ensure(len);
            const b = w.raw,
              p = w.length,
              src = 16 * i + 4;
            for (let k = 0; k < len; k++) b[p + k] = data[src + k];
            w.advance(len);
            return;
          }
          // Longer strings live behind a pointer at +8.
          const bytes =
            len <= 12
              ? data.subarray(16 * i + 4, 16 * i + 4 + len)
              : duckdb.get_data_from_pointer(data.buffer as ArrayBuffer, data.byteOffset + 16 * i + 8, len);
          if (hex) {
            const at = open(w);
            T.byteaText(w, bytes);
            close(w, at);
          } else {
            w.int32(len);
            w.bytes(bytes);
          }
        };
      };
    }
    case DuckDBTypeId.DATE:
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, 4);
        const a = new Int32Array(data.buffer, data.byteOffset, n);
        return text
          ? (w, i) => {
              if (isNull(valid, i)) w.int32(-1);
              else {
                const at = open(w);
                DT.dateText(w, a[i]);
                close(w, at);
              }
            }
          : (w, i) => {
              if (isNull(valid, i)) w.int32(-1);
              else {
                w.int32(4);
                B.dateBinary(w, a[i]);
              }
            };
      };
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const zone = t.typeId === DuckDBTypeId.TIMESTAMP_TZ ? zoneFor(s.timeZone) : null;
      return (ch, c, n) => {
        const { data, valid } = raw(ch, c, n, 8);
        const a = new Int32Array(data.buffer, data.byteOffset, 2 * n);
        return (w, i) => {
          if (isNull(valid, i)) {
            w.int32(-1);
            return;
          }
          const hi = a[2 * i + 1],
            lo = a[2 * i] >>> 0;
          if (hi >= -SAFE_HI && hi < SAFE_HI) {
            const us = hi * TWO32 + lo;
            if (!text) {
              w.int32(8);
              B.timestampBinaryNum(w, us);
              return;
            }
            const days = Math.floor(us / DT.US_PER_DAY);
            const at = open(w);
            DT.timestampText(w, days, us - days * DT.US_PER_DAY, zone);
            close(w, at);
          } else {
            const big = (BigInt(hi) << 32n) | BigInt(lo); // far dates and ±infinity
            if (!text) {
              w.int32(8);
              B.timestampBinaryBig(w, big);
              return;
            }
            const at = open(w);
            DT.timestampTextBig(w, big, zone);
            close(w, at);
          }
        };
      };
    }
    default:
      return null;
  }
}
