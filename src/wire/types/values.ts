/**
 * Encoders from DuckDBValue (what DuckDBVector.getItem returns) to PostgreSQL text or binary bytes.
 * This is the general path (nested types, rarer scalars, array elements); hot scalar columns are read
 * straight from vector memory in columns.ts but format through the same text.ts/binary.ts helpers.
 */
import {
  DuckDBTypeId,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBDateValue,
  type DuckDBTimestampValue,
  type DuckDBDecimalValue,
  type DuckDBIntervalValue,
  type DuckDBTimeValue,
  type DuckDBTimeTZValue,
  type DuckDBUUIDValue,
  type DuckDBBlobValue,
  type DuckDBTimeNSValue,
  type DuckDBTimestampNanosecondsValue,
  type DuckDBTimestampSecondsValue,
  type DuckDBTimestampMillisecondsValue,
  type DuckDBBitValue,
  type DuckDBStructType,
  type DuckDBStructValue,
} from '@duckdb/node-api';
import type { Writer } from '../writer.js';
import { elementOidFor, isRecordStruct, listLeaf, OID, regtypeOid, typedWrapper } from '../../pg/oids.js';
import { recordEncoder } from './records.js';
import { jsonbText } from '../../pg/pg-jsonb.js';
import { isShownNumericStruct, shownNumeric } from '../../pg/shown-numeric.js';
import * as T from './text.js';
import * as DT from './datetime-text.js';
import * as B from './binary.js';
import { zoneFor } from './tz.js';
import { jsonText } from './json.js';
import { arrayEncoder } from './arrays.js';

export interface EncodeSettings {
  /** Session TimeZone: IANA name ('America/New_York'), 'UTC', or an ISO offset ('+05:30'). */
  timeZone: string;
  /** extra_float_digits (default 1: shortest round-trip, as PostgreSQL 12+). */
  extraFloatDigits?: number;
  /** Applied to every text value before it is sent (EXPLAIN's plans name files by server path). */
  textFilter?: (text: string) => string;
}

/** Writes the payload of one non-NULL value (no length prefix). */
export type ValueEncoder = (w: Writer, v: DuckDBValue) => void;

const NS_PER_US = 1000n;

/** Floor division for bigint (DuckDB nanosecond values → µs, like a cast to TIMESTAMP). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Micros since 1970 for any DuckDB timestamp flavour (infinities preserved). */
function timestampMicros(t: DuckDBType, v: DuckDBValue): bigint {
  switch (t.typeId) {
    case DuckDBTypeId.TIMESTAMP_S: {
      const s = (v as DuckDBTimestampSecondsValue).seconds;
      return s >= DT.TS_PINF ? DT.TS_PINF : s <= DT.TS_NINF ? DT.TS_NINF : s * 1000000n;
    }
    case DuckDBTypeId.TIMESTAMP_MS: {
      const ms = (v as DuckDBTimestampMillisecondsValue).millis;
      return ms >= DT.TS_PINF ? DT.TS_PINF : ms <= DT.TS_NINF ? DT.TS_NINF : ms * 1000n;
    }
    case DuckDBTypeId.TIMESTAMP_NS: {
      const ns = (v as DuckDBTimestampNanosecondsValue).nanos;
      return ns >= DT.TS_PINF ? DT.TS_PINF : ns <= DT.TS_NINF ? DT.TS_NINF : floorDiv(ns, NS_PER_US);
    }
    default:
      return (v as DuckDBTimestampValue).micros;
  }
}

function timeMicros(t: DuckDBType, v: DuckDBValue): number {
  if (t.typeId === DuckDBTypeId.TIME_NS) return Number((v as DuckDBTimeNSValue).nanos / NS_PER_US);
  return Number((v as DuckDBTimeValue).micros);
}

/** Text or binary encoder for values of DuckDB type `t`, served with the OID pgFieldFor gives. */
export function valueEncoder(t: DuckDBType, format: 0 | 1, s: EncodeSettings): ValueEncoder {
  const efd = s.extraFloatDigits ?? 1;
  const wrapped = typedWrapper(t);
  if (wrapped) {
    // A value sent as the PostgreSQL type the rewrite named (pg/oids.ts `typedWrapper`).
    const field = `fdl_pg_${wrapped.what}`;
    const row = wrapped.what === 'row' && wrapped.inner.typeId === DuckDBTypeId.STRUCT;
    // a row cast to text: record_out's text, which is also text's binary form
    const rowText = wrapped.what === 'rowtext' && wrapped.inner.typeId === DuckDBTypeId.STRUCT;
    const inner = row
      ? recordEncoder(wrapped.inner as DuckDBStructType, format, s, valueEncoder)
      : rowText
        ? recordEncoder(wrapped.inner as DuckDBStructType, 0, s, valueEncoder)
        : wrapped.what === 'regtype' && format === 1
          ? (w: Writer, v: DuckDBValue) => void w.int32(regtypeOid(String(v)))
          : wrapped.what === 'regproc'
            ? (w: Writer, v: DuckDBValue) => {
                // regproc: the function's name as text, its OID in binary.
                const { oid, name } = (v as DuckDBStructValue).entries as { oid: bigint | number; name: string };
                if (format === 1) w.int32(Number(oid));
                else w.utf8(String(name));
              }
            : wrapped.what === 'char'
              ? (w: Writer, v: DuckDBValue) => {
                  // "char" is one byte: in binary the empty value is the byte 0; in text a byte past ASCII is `\ooo`
                  const b = Buffer.from(String(v), 'utf8')[0];
                  if (format === 1) w.byte(b ?? 0);
                  else w.utf8(b === undefined ? '' : b < 128 ? String.fromCharCode(b) : `\\${b.toString(8)}`);
                }
              : wrapped.what === 'oid' && format === 1
                ? // an oid is four bytes unsigned in binary (held here as BIGINT)
                  (w: Writer, v: DuckDBValue) => void w.uint32(Number(v) >>> 0)
                : wrapped.what === 'jsonb'
                  ? (w: Writer, v: DuckDBValue) => {
                      // jsonb prints in its normal form (`{"a": 1}`); its binary form is version byte 1, then the text.
                      if (format === 1) w.byte(1);
                      w.utf8(jsonbText(String(v)));
                    }
                  : valueEncoder(wrapped.inner, format, s);
    return (w, v) => inner(w, (v as DuckDBStructValue).entries[field] ?? null);
  }
  if (t.typeId === DuckDBTypeId.LIST || t.typeId === DuckDBTypeId.ARRAY) {
    const { leaf, depth } = listLeaf(t);
    return arrayEncoder(depth, valueEncoder(leaf, format, s), elementOidFor(leaf), format, leaf);
  }
  const text = format === 0;
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return text
        ? (w, v) => T.boolText(w, v as boolean)
        : (w, v) => {
            w.byte(v ? 1 : 0);
          };
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.UTINYINT:
      return text
        ? (w, v) => T.intText(w, v as number)
        : (w, v) => {
            w.int16(v as number);
          };
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.USMALLINT:
      return text
        ? (w, v) => T.intText(w, v as number)
        : (w, v) => {
            w.int32(v as number);
          };
    case DuckDBTypeId.UINTEGER:
      return text ? (w, v) => T.intText(w, v as number) : (w, v) => B.int64Num(w, v as number);
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.INTEGER_LITERAL:
      return text
        ? (w, v) => T.bigintText(w, BigInt(v as bigint))
        : (w, v) => {
            w.int64(BigInt(v as bigint));
          };
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return text ? (w, v) => T.bigintText(w, v as bigint) : (w, v) => B.numericBinary(w, v as bigint, 0);
    case DuckDBTypeId.DECIMAL:
      return text
        ? (w, v) => {
            const d = v as DuckDBDecimalValue;
            w.latin1(T.decimalString(d.value, d.scale));
          }
        : (w, v) => {
            const d = v as DuckDBDecimalValue;
            B.numericBinary(w, d.value, d.scale);
          };
    case DuckDBTypeId.FLOAT:
      return text
        ? (w, v) => {
            w.latin1(T.float4String(v as number, efd));
          }
        : (w, v) => {
            w.float32(v as number);
          };
    case DuckDBTypeId.DOUBLE:
      return text
        ? (w, v) => {
            w.latin1(T.float8String(v as number, efd));
          }
        : (w, v) => {
            w.float64(v as number);
          };
    case DuckDBTypeId.VARCHAR: {
      const json = t.alias === 'JSON';
      // json's binary form is its text (a jsonb the rewrite names is prefixed with version byte 1 above).
      return json || text
        ? (w, v) => {
            w.utf8(v as string);
          }
        : (w, v) => {
            w.utf8(v as string);
          };
    }
    case DuckDBTypeId.BLOB:
      return text
        ? (w, v) => T.byteaText(w, (v as DuckDBBlobValue).bytes)
        : (w, v) => {
            w.bytes((v as DuckDBBlobValue).bytes);
          };
    case DuckDBTypeId.DATE:
      return text
        ? (w, v) => DT.dateText(w, (v as DuckDBDateValue).days)
        : (w, v) => B.dateBinary(w, (v as DuckDBDateValue).days);
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
      return text ? (w, v) => DT.timeText(w, timeMicros(t, v)) : (w, v) => B.int64Num(w, timeMicros(t, v));
    case DuckDBTypeId.TIME_TZ:
      return text
        ? (w, v) => {
            const x = v as DuckDBTimeTZValue;
            DT.timetzText(w, Number(x.micros), x.offset);
          }
        : (w, v) => {
            const x = v as DuckDBTimeTZValue;
            B.timetzBinary(w, Number(x.micros), x.offset);
          };
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return text
        ? (w, v) => DT.timestampTextBig(w, timestampMicros(t, v), null)
        : (w, v) => B.timestampBinaryBig(w, timestampMicros(t, v));
    case DuckDBTypeId.TIMESTAMP_TZ: {
      const zone = zoneFor(s.timeZone);
      return text
        ? (w, v) => DT.timestampTextBig(w, (v as DuckDBTimestampValue).micros, zone)
        : (w, v) => B.timestampBinaryBig(w, (v as DuckDBTimestampValue).micros);
    }
    case DuckDBTypeId.INTERVAL:
      return text
        ? (w, v) => {
            const x = v as DuckDBIntervalValue;
            w.latin1(DT.intervalString(x.months, x.days, x.micros));
          }
        : (w, v) => {
            const x = v as DuckDBIntervalValue;
            B.intervalBinary(w, x.months, x.days, x.micros);
          };
    case DuckDBTypeId.UUID:
      return text
        ? (w, v) => {
            w.latin1(T.uuidString((v as DuckDBUUIDValue).toUint128()));
          }
        : (w, v) => B.uuidBinary(w, (v as DuckDBUUIDValue).toUint128());
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.VARIANT: {
      if (isRecordStruct(t)) return recordEncoder(t as DuckDBStructType, text ? 0 : 1, s, valueEncoder);
      if (isShownNumericStruct(t)) {
        // A numeric whose display scale PostgreSQL picks per value (pg/shown-numeric.ts).
        const numeric = (v: DuckDBValue) => shownNumeric((v as DuckDBStructValue).entries);
        return text
          ? (w, v) => {
              const x = numeric(v);
              w.latin1(x.special ?? T.decimalString(x.value, x.scale));
            }
          : (w, v) => {
              const x = numeric(v);
              if (x.special) B.numericSpecialBinary(w, x.special);
              else B.numericBinary(w, x.value, x.scale);
            };
      }
      // Served as json (114), whose text and binary forms are the same bytes.
      return (w, v) => {
        w.utf8(jsonText(t, v, s));
      };
    }
    case DuckDBTypeId.BIT:
      // varbit: text '0101'; binary the bit count, then the bits packed from the most significant.
      return text
        ? (w, v) => {
            w.latin1((v as DuckDBBitValue).toString());
          }
        : (w, v) => B.varbitBinary(w, (v as DuckDBBitValue).toString());
    default:
      // ENUM (label string), GEOMETRY, SQLNULL, anything newer: text of the value.
      return (w, v) => {
        w.utf8(typeof v === 'string' ? v : String(v));
      };
  }
}

/** OID the encoder above produces for a scalar type (for array element headers). */
export function scalarOidOf(t: DuckDBType): number {
  return t.typeId === DuckDBTypeId.VARCHAR && t.alias === 'JSON' ? OID.json : elementOidFor(t);
}
