/**
 * Bind parameters → DuckDB values. Binary formats follow PostgreSQL's typreceive; text follows the
 * typinput forms clients send (psycopg3, pgjdbc, asyncpg, node-pg). Unknown OIDs (0) stay VARCHAR so
 * DuckDB casts them to whatever the statement's parameter type is, as PostgreSQL's 'unknown' does.
 */
import {
  DuckDBDateValue,
  DuckDBTimestampValue,
  DuckDBTimestampTZValue,
  DuckDBTimeValue,
  DuckDBTimeTZValue,
  DuckDBIntervalValue,
  DuckDBUUIDValue,
  DuckDBBlobValue,
  DuckDBDecimalValue,
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
  type DuckDBValue,
} from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../../errors.js';
import { ELEMENT_OF, OID, pgTypeName } from '../../pg/oids.js';
import { PG_EPOCH_DAYS, PG_EPOCH_US } from './binary.js';
import { daysFromCivil, TS_NINF, TS_PINF, DATE_NINF, DATE_PINF } from './text.js';
import { zoneFor } from './tz.js';
import { strictUtf8 } from './utf8.js';
import { arrayFromBinary, arrayFromText } from './param-arrays.js';

export interface DecodedParam {
  value: DuckDBValue;
  type?: DuckDBType;
}
export interface DecodeSettings {
  timeZone?: string;
}

/** regnamespace, regrole (no entry in OID). */
const REGNAMESPACE = 4089;
const REGROLE = 4096;
export const badBinary = (oid: number) =>
  new SqlError(
    SQLSTATE.invalidBinaryRepresentation,
    `incorrect binary data format in bind parameter (type ${pgTypeName(oid)})`,
  );
export const badText = (oid: number, s: string) =>
  new SqlError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type ${pgTypeName(oid)}: "${s}"`);

// ---------- numeric ----------

function decimalFromDigits(neg: boolean, unscaled: bigint, scale: number): DecodedParam {
  const digits = unscaled === 0n ? 1 : unscaled.toString().length;
  const width = Math.max(digits, scale + 1, 1);
  const v = neg ? -unscaled : unscaled;
  if (width <= 38) return { value: new DuckDBDecimalValue(v, width, scale), type: DECIMAL(width, scale) };
  // Wider than DuckDB DECIMAL: hand DuckDB the text and let the cast decide.
  const s = v.toString().padStart(scale + 1, '0');
  const txt = scale ? `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}` : s;
  return { value: txt, type: VARCHAR };
}

function numericFromBinary(b: Buffer): DecodedParam {
  if (b.length < 8) throw badBinary(OID.numeric);
  const n = b.readInt16BE(0),
    weight = b.readInt16BE(2),
    sign = b.readUInt16BE(4),
    dscale = b.readInt16BE(6);
  if (sign === 0xc000) return { value: NaN, type: DOUBLE };
  if (sign === 0xd000) return { value: Infinity, type: DOUBLE };
  if (sign === 0xf000) return { value: -Infinity, type: DOUBLE };
  if (b.length !== 8 + 2 * n) throw badBinary(OID.numeric);
  let digits = 0n;
  for (let i = 0; i < n; i++) digits = digits * 10000n + BigInt(b.readInt16BE(8 + 2 * i));
  // value = digits × 10000^(weight − n + 1); unscaled = value × 10^dscale
  const e = 4 * (weight - n + 1) + dscale;
  const unscaled = e >= 0 ? digits * 10n ** BigInt(e) : digits / 10n ** BigInt(-e);
  return decimalFromDigits(sign === 0x4000, unscaled, dscale);
}

function numericFromText(s: string): DecodedParam {
  const t = s.trim();
  if (/^nan$/i.test(t)) return { value: NaN, type: DOUBLE };
  if (/^[+]?inf(inity)?$/i.test(t)) return { value: Infinity, type: DOUBLE };
  if (/^-inf(inity)?$/i.test(t)) return { value: -Infinity, type: DOUBLE };
  const m = /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(t);
  if (!m || (!m[2] && !m[3])) throw badText(OID.numeric, s);
  let int = m[2] || '',
    frac = m[3] || '';
  const exp = Number(m[4] ?? 0);
  if (exp > 0) {
    const mv = frac.slice(0, exp).padEnd(exp, '0');
    int += mv;
    frac = frac.slice(exp);
  } else if (exp < 0) {
    const k = -exp;
    frac = int.padStart(k, '0').slice(-k) + frac;
    int = int.length > k ? int.slice(0, int.length - k) : '';
  }
  return decimalFromDigits(m[1] === '-', BigInt(int + frac || '0'), frac.length);
}

// ---------- dates / times (text) ----------

function dateFromText(s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'infinity' || t === '+infinity') return DATE_PINF;
  if (t === '-infinity') return DATE_NINF;
  if (t === 'epoch') return 0;
  // As PostgreSQL's date_in: a time and zone may follow (pgjdbc's setDate sends `2023-06-01 +00`); only the date counts.
  const m = TS_RE.exec(t);
  if (!m) throw badText(OID.date, s);
  const y = Number(m[1]);
  return daysFromCivil(m[9] ? 1 - y : y, Number(m[2]), Number(m[3]));
}

const TS_RE =
  /^(\d{4,})-(\d{1,2})-(\d{1,2})(?:[ tT]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?(\s+bc)?$/i;

/** µs since 1970 of the wall-clock time in `s`, plus the explicit offset if present (seconds east). */
function parseTimestamp(s: string, oid: number): { local: bigint; offset: number | null } | 'inf' | '-inf' {
  const t = s.trim();
  const lower = t.toLowerCase();
  if (lower === 'infinity' || lower === '+infinity') return 'inf';
  if (lower === '-infinity') return '-inf';
  if (lower === 'epoch') return { local: 0n, offset: 0 };
  const m = TS_RE.exec(t);
  if (!m) throw badText(oid, s);
  const y = Number(m[1]);
  const days = daysFromCivil(m[9] ? 1 - y : y, Number(m[2]), Number(m[3]));
  // Fractions beyond µs are rounded as PostgreSQL does (half away from zero on the 7th digit).
  const f = (m[7] ?? '').padEnd(7, '0');
  let us =
    BigInt(Number(m[4] ?? 0) * 3600 + Number(m[5] ?? 0) * 60 + Number(m[6] ?? 0)) * 1000000n + BigInt(f.slice(0, 6));
  if (Number(f[6]) >= 5) us += 1n;
  let offset: number | null = null;
  if (m[8]) {
    if (/^z$/i.test(m[8])) offset = 0;
    else {
      const o = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(m[8])!;
      offset = (Number(o[2]) * 3600 + Number(o[3] ?? 0) * 60 + Number(o[4] ?? 0)) * (o[1] === '-' ? -1 : 1);
    }
  }
  return { local: BigInt(days) * 86400000000n + us, offset };
}

function timeFromText(s: string, oid: number): { us: bigint; offset: number | null } {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?$/i.exec(s.trim());
  if (!m) throw badText(oid, s);
  const f = (m[4] ?? '').padEnd(7, '0');
  let us = BigInt(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)) * 1000000n + BigInt(f.slice(0, 6));
  if (Number(f[6]) >= 5) us += 1n;
  let offset: number | null = null;
  if (m[5]) {
    if (/^z$/i.test(m[5])) offset = 0;
    else {
      const o = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(m[5])!;
      offset = (Number(o[2]) * 3600 + Number(o[3] ?? 0) * 60 + Number(o[4] ?? 0)) * (o[1] === '-' ? -1 : 1);
    }
  }
  return { us, offset };
}

/** Local wall-clock µs in `zone` → UTC µs (PostgreSQL picks the later offset in a DST gap/overlap the same way DetermineTimeZoneOffset does for most cases). */
function localToUtc(local: bigint, tz: string): bigint {
  const zone = zoneFor(tz);
  const localSec = Number(local / 1000000n);
  let off = zone.offsetAt(localSec);
  off = zone.offsetAt(localSec - off);
  return local - BigInt(off) * 1000000n;
}

// ---------- bytea / uuid / bool (text) ----------

function byteaFromText(s: string): Uint8Array {
  if (s.startsWith('\\x')) {
    const hex = s.slice(2).replace(/\s+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2) throw badText(OID.bytea, s);
    return Buffer.from(hex, 'hex');
  }
  // escape format: \\ and \ooo
  const out: number[] = [];
  const b = Buffer.from(s, 'utf8');
  for (let i = 0; i < b.length; i++) {
    if (b[i] !== 92) {
      out.push(b[i]);
      continue;
    }
    if (b[i + 1] === 92) {
      out.push(92);
      i++;
      continue;
    }
    const o = s.slice(i + 1, i + 4);
    if (!/^[0-3][0-7]{2}$/.test(o)) throw badText(OID.bytea, s);
    out.push(parseInt(o, 8));
    i += 3;
  }
  return Uint8Array.from(out);
}

function uuidFromHex(hex: string, s: string): DuckDBUUIDValue {
  const h = hex.replace(/[-{}]/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(h)) throw badText(OID.uuid, s);
  return DuckDBUUIDValue.fromUint128(BigInt('0x' + h));
}

function boolFromText(s: string): boolean {
  const t = s.trim().toLowerCase();
  if (['t', 'true', 'y', 'yes', 'on', '1'].includes(t)) return true;
  if (['f', 'false', 'n', 'no', 'off', '0'].includes(t)) return false;
  throw badText(OID.bool, s);
}

function intFromText(oid: number, s: string, min: number, max: number): number {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) throw badText(oid, s);
  const v = Number(t);
  if (v < min || v > max)
    throw new SqlError(SQLSTATE.numericValueOutOfRange, `value "${s}" is out of range for type ${pgTypeName(oid)}`);
  return v;
}

function floatFromText(oid: number, s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'infinity' || t === '+infinity' || t === 'inf' || t === '+inf') return Infinity;
  if (t === '-infinity' || t === '-inf') return -Infinity;
  const v = Number(t);
  if (t === '' || Number.isNaN(v)) throw badText(oid, s);
  return v;
}

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
        return { value: strictUtf8(bytes, 1), type: VARCHAR };
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
    case OID.jsonb:
      return { value: s, type: VARCHAR };
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
