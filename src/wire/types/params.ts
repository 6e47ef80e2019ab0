/**
 * Bind parameters → DuckDB values. Binary formats follow PostgreSQL's typreceive; text follows the
 * typinput forms clients send (psycopg3, pgjdbc, asyncpg, node-pg). Unknown OIDs (0) stay VARCHAR so
 * DuckDB casts them to whatever the statement's parameter type is, as PostgreSQL's 'unknown' does.
 */
import { jsonbText } from '../../pg/pg-jsonb.js';
import {
  DuckDBDateValue,
  DuckDBTimestampValue,
  DuckDBTimestampTZValue,
  DuckDBTimeValue,
  DuckDBTimeTZValue,
  DuckDBIntervalValue,
  DuckDBUUIDValue,
  DuckDBBlobValue,
  BOOLEAN,
  SMALLINT,
  INTEGER,
  BIGINT,
  UINTEGER,
  FLOAT,
  DOUBLE,
  VARCHAR,
  BLOB,
  DATE,
  TIME,
  TIMETZ,
  TIMESTAMP,
  TIMESTAMPTZ,
  INTERVAL,
  UUID,
  DECIMAL,
  type DuckDBType,
} from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../../errors.js';
import { ELEMENT_OF, OID, pgTypeName } from '../../pg/oids.js';
import { PG_EPOCH_DAYS, PG_EPOCH_US } from './binary.js';
import { TS_NINF, TS_PINF, DATE_NINF, DATE_PINF } from './datetime-text.js';
import { zoneFor } from './tz.js';
import { strictUtf8 } from './utf8.js';
import { arrayFromBinary, arrayFromText } from './param-arrays.js';
import {
  badBinary,
  badText,
  boolFromText,
  byteaFromText,
  dateFromText,
  timestampInRange,
  floatFromText,
  intFromText,
  localToUtc,
  numericFromBinary,
  numericFromText,
  parseTimestamp,
  timeFromText,
  uuidFromHex,
  type DecodedParam,
} from './param-scalars.js';

export type { DecodedParam } from './param-scalars.js';

export interface DecodeSettings {
  timeZone?: string;
}

/** regnamespace, regrole (no entry in OID). */
const REGNAMESPACE = 4089;
const REGROLE = 4096;
/** The DuckDB type of a NULL or an array element of PostgreSQL type `oid`, where one is fixed. */
export function typeForOid(oid: number): DuckDBType | undefined {
  switch (oid) {
    case OID.bool:
      return BOOLEAN;
    case OID.int2:
      return SMALLINT;
    case OID.int4:
      return INTEGER;
    case OID.int8:
      return BIGINT;
    case OID.float4:
      return FLOAT;
    case OID.float8:
      return DOUBLE;
    case OID.text:
    case OID.varchar:
    case OID.name:
    case OID.bpchar:
      return VARCHAR;
    case OID.date:
      return DATE;
    case OID.timestamp:
      return TIMESTAMP;
    case OID.timestamptz:
      return TIMESTAMPTZ;
    case OID.uuid:
      return UUID;
    case OID.bytea:
      return BLOB;
    // a NULL or empty-array numeric has no scale of its own: DuckDB's default DECIMAL
    case OID.numeric:
      return DECIMAL(18, 3);
    default:
      return undefined;
  }
}

// ---------- entry point ----------

/**
 * Decode one Bind parameter. `oid` is the type from Parse (0 = unspecified → text, VARCHAR);
 * `set.timeZone` is the session TimeZone used for timestamptz text without an explicit offset.
 */
export function decodeParam(oid: number, format: 0 | 1, bytes: Buffer | null, set: DecodeSettings = {}): DecodedParam {
  if (bytes === null) {
    const type = typeForOid(oid);
    return type ? { value: null, type } : { value: null };
  }
  const elemOid = ELEMENT_OF.get(oid);
  if (format === 1) {
    if (elemOid !== undefined) return arrayFromBinary(oid, bytes, set);
    const need = (n: number) => {
      if (bytes.length !== n) throw badBinary(oid);
    };
    switch (oid) {
      case OID.bool:
        need(1);
        return { value: bytes[0] !== 0, type: BOOLEAN };
      case OID.int2:
        need(2);
        return { value: bytes.readInt16BE(0), type: SMALLINT };
      case OID.int4:
        need(4);
        return { value: bytes.readInt32BE(0), type: INTEGER };
      case OID.oid:
        need(4);
        return { value: bytes.readUInt32BE(0), type: UINTEGER };
      case OID.int8:
        need(8);
        return { value: bytes.readBigInt64BE(0), type: BIGINT };
      case OID.float4:
        need(4);
        return { value: bytes.readFloatBE(0), type: FLOAT };
      case OID.float8:
        need(8);
        return { value: bytes.readDoubleBE(0), type: DOUBLE };
      case OID.numeric:
        return numericFromBinary(bytes);
      case OID.bytea:
        return { value: new DuckDBBlobValue(Uint8Array.from(bytes)), type: BLOB };
      case OID.uuid:
        need(16);
        return { value: DuckDBUUIDValue.fromUint128(BigInt('0x' + bytes.toString('hex'))), type: UUID };
      case OID.date: {
        need(4);
        const d = bytes.readInt32BE(0);
        return {
          value: new DuckDBDateValue(d === 2147483647 ? DATE_PINF : d === -2147483648 ? DATE_NINF : d + PG_EPOCH_DAYS),
          type: DATE,
        };
      }
      case OID.time:
        need(8);
        return { value: new DuckDBTimeValue(bytes.readBigInt64BE(0)), type: TIME };
      case OID.timetz:
        need(12);
        return {
          value: DuckDBTimeTZValue.fromMicrosAndOffset(bytes.readBigInt64BE(0), -bytes.readInt32BE(8)),
          type: TIMETZ,
        };
      case OID.timestamp:
      case OID.timestamptz: {
        need(8);
        const v = bytes.readBigInt64BE(0);
        const us = v === 9223372036854775807n ? TS_PINF : v === -9223372036854775808n ? TS_NINF : v + PG_EPOCH_US;
        return oid === OID.timestamp
          ? { value: new DuckDBTimestampValue(us), type: TIMESTAMP }
          : { value: new DuckDBTimestampTZValue(us), type: TIMESTAMPTZ };
      }
      case OID.interval:
        need(16);
        return {
          value: new DuckDBIntervalValue(bytes.readInt32BE(12), bytes.readInt32BE(8), bytes.readBigInt64BE(0)),
          type: INTERVAL,
        };
      case OID.jsonb:
        if (bytes[0] !== 1) throw badBinary(oid);
        return { value: jsonbText(strictUtf8(bytes, 1)), type: VARCHAR };
      case OID.json:
        return { value: strictUtf8(bytes), type: VARCHAR };
      case OID.char:
        return { value: bytes.toString('latin1'), type: VARCHAR };
      // reg* travel as their OID; the catalog resolves OID digits as well as names.
      case OID.regclass:
      case OID.regtype:
      case OID.regproc:
      case REGNAMESPACE:
      case REGROLE:
        need(4);
        return { value: String(bytes.readUInt32BE(0)), type: VARCHAR };
      case OID.text:
      case OID.varchar:
      case OID.name:
      case OID.bpchar:
      case OID.unknown:
      case 0:
        return { value: strictUtf8(bytes), type: VARCHAR };
      default:
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `binary format for parameters of type ${pgTypeName(oid)} (${oid}) is not supported`,
        );
    }
  }
  const s = strictUtf8(bytes);
  if (elemOid !== undefined) return arrayFromText(oid, elemOid, s, set);
  switch (oid) {
    case OID.bool:
      return { value: boolFromText(s), type: BOOLEAN };
    case OID.int2:
      return { value: intFromText(oid, s, -32768, 32767), type: SMALLINT };
    case OID.int4:
      return { value: intFromText(oid, s, -2147483648, 2147483647), type: INTEGER };
    case OID.oid:
      return { value: intFromText(oid, s, 0, 4294967295), type: UINTEGER };
    case OID.int8: {
      if (!/^\s*[+-]?\d+\s*$/.test(s)) throw badText(oid, s);
      const v = BigInt(s.trim());
      if (v < -(2n ** 63n) || v >= 2n ** 63n)
        throw new SqlError(SQLSTATE.numericValueOutOfRange, `value "${s}" is out of range for type bigint`);
      return { value: v, type: BIGINT };
    }
    case OID.float4:
      return { value: floatFromText(oid, s), type: FLOAT };
    case OID.float8:
      return { value: floatFromText(oid, s), type: DOUBLE };
    case OID.numeric:
      return numericFromText(s);
    case OID.bytea:
      return { value: new DuckDBBlobValue(byteaFromText(s)), type: BLOB };
    case OID.uuid:
      return { value: uuidFromHex(s.trim(), s), type: UUID };
    case OID.date:
      return { value: new DuckDBDateValue(dateFromText(s)), type: DATE };
    case OID.timestamp:
    case OID.timestamptz: {
      const p = parseTimestamp(s, oid);
      let us: bigint;
      if (p === 'inf') us = TS_PINF;
      else if (p === '-inf') us = TS_NINF;
      else if (oid === OID.timestamp)
        us = p.local; // timestamp ignores a written offset, as PostgreSQL does
      else us = p.offset !== null ? p.local - BigInt(p.offset) * 1000000n : localToUtc(p.local, set.timeZone ?? 'UTC');
      if (p !== 'inf' && p !== '-inf') timestampInRange(us, s);
      return oid === OID.timestamp
        ? { value: new DuckDBTimestampValue(us), type: TIMESTAMP }
        : { value: new DuckDBTimestampTZValue(us), type: TIMESTAMPTZ };
    }
    case OID.time:
      return { value: new DuckDBTimeValue(timeFromText(s, oid).us), type: TIME };
    case OID.timetz: {
      const t = timeFromText(s, oid);
      let off = t.offset;
      if (off === null) off = zoneFor(set.timeZone ?? 'UTC').offsetAt(Date.now() / 1000);
      return { value: DuckDBTimeTZValue.fromMicrosAndOffset(t.us, off), type: TIMETZ };
    }
    case OID.json:
      return { value: s, type: VARCHAR };
    case OID.jsonb:
      // jsonb's input: its normal form (keys sorted, the last of a duplicate key, numbers as numeric), as a
      // constant's is at rewrite time; DuckDB's JSON keeps the text, so equal values compared unequal.
      return { value: jsonbText(s), type: VARCHAR };
    case OID.text:
    case OID.varchar:
    case OID.name:
    case OID.bpchar:
    case OID.char:
      return { value: s, type: VARCHAR };
    default:
      // unknown (0), interval and anything else: DuckDB casts the text to the parameter's type.
      return { value: s, type: VARCHAR };
  }
}
