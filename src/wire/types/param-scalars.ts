/**
 * PostgreSQL's input forms of scalar types — numeric's binary form, and the text forms clients send
 * for numbers, booleans, bytea, uuids, dates, times and timestamps — parsed for decodeParam
 * (params.ts), which wraps them as DuckDB values.
 */
import {
  DuckDBDecimalValue,
  DuckDBUUIDValue,
  DECIMAL,
  DOUBLE,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../../errors.js';
import { OID, pgTypeName } from '../../pg/oids.js';
import { WIDE_DECIMAL_DIGITS } from '../../pg/numeric-width.js';
import { daysFromCivil, DATE_NINF, DATE_PINF } from './datetime-text.js';
import { zoneFor } from './tz.js';

export interface DecodedParam {
  value: DuckDBValue;
  type?: DuckDBType;
}

export const badBinary = (oid: number) =>
  new SqlError(
    SQLSTATE.invalidBinaryRepresentation,
    `incorrect binary data format in bind parameter (type ${pgTypeName(oid)})`,
  );
export const badText = (oid: number, s: string) =>
  new SqlError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type ${pgTypeName(oid)}: "${s}"`);

// ---------- numeric ----------

export function decimalFromDigits(neg: boolean, unscaled: bigint, scale: number): DecodedParam {
  const digits = unscaled === 0n ? 1 : unscaled.toString().length;
  const width = Math.max(digits, scale + 1, 1);
  const v = neg ? -unscaled : unscaled;
  // at least 19 digits: DuckDB's 128-bit DECIMAL, whose sums and products grow to 38 digits where a
  // DECIMAL of 18 or fewer overflowed past 18 (`$1 + 1` of 999999999999999999; pg/numeric-width.ts)
  const wide = Math.max(width, WIDE_DECIMAL_DIGITS);
  if (width <= 38) return { value: new DuckDBDecimalValue(v, wide, scale), type: DECIMAL(wide, scale) };
  // Wider than DuckDB's DECIMAL: no type holds it exactly (as text it answered `%s * 2` with DuckDB's
  // "Could not convert string … to INT32", `select %s` typed text), so it is refused.
  throw new SqlError(
    SQLSTATE.featureNotSupported,
    `numeric parameter of ${width} digits: fdl-gateway computes with at most 38`,
    undefined,
    'Round the value to 38 significant digits, or send it as float8 if an approximation will do.',
  );
}

export function numericFromBinary(b: Buffer): DecodedParam {
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

export function numericFromText(s: string): DecodedParam {
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

export function dateFromText(s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'infinity' || t === '+infinity') return DATE_PINF;
  if (t === '-infinity') return DATE_NINF;
  if (t === 'epoch') return 0;
  // As PostgreSQL's date_in: a time and zone may follow (pgjdbc's setDate sends `2023-06-01 +00`); only the date counts.
  const m = TS_RE.exec(t);
  if (!m) throw badText(OID.date, s);
  checkFields(m, s);
  const y = Number(m[1]);
  const days = daysFromCivil(m[9] ? 1 - y : y, Number(m[2]), Number(m[3]));
  if (days < FIRST_DAY || days >= END_DAY)
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date out of range: "${s}"`);
  return days;
}

/** PostgreSQL's dates: Julian day 0 (4714-11-24 BC) up to 5874897-12-31, as days since 1970. */
const FIRST_DAY = -2440588,
  END_DAY = 2145042906;
/**
 * PostgreSQL's timestamps start at Julian day 0 too; they end in 294276 AD, but DuckDB's µs since
 * 1970 end in 294247: past that a value is refused as out of range rather than wrapped.
 */
const FIRST_US = -210866803200000000n,
  END_US = 9223372036854775807n;

/** A timestamp's µs since 1970 within what both PostgreSQL and DuckDB hold, else PostgreSQL's 22008. */
export function timestampInRange(us: bigint, s: string): bigint {
  if (us < FIRST_US || us >= END_US)
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `timestamp out of range: "${s}"`);
  return us;
}

/**
 * PostgreSQL refuses a field out of its range (`2024-02-30`, month 13, `25:00`) with 22008 where the
 * day count alone would roll over into the next month. As its ValidateDate/time checks: the day
 * within its month (leap years by the proleptic Gregorian rule, year 0 absent: `1 BC` is leap),
 * hour 0–23 or exactly `24:00:00`, minute 0–59, second 0–59 or exactly 60 (carried into the next minute).
 */
function checkFields(m: RegExpExecArray, s: string): void {
  const year = m[9] ? 1 - Number(m[1]) : Number(m[1]);
  const [month, day] = [Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const fraction = /[1-9]/.test(m[7] ?? '');
  const midnight24 = hour === 24 && minute === 0 && second === 0 && !fraction;
  if (
    days === undefined ||
    day < 1 ||
    day > days ||
    (hour > 23 && !midnight24) ||
    minute > 59 ||
    second > 60 ||
    (second === 60 && fraction) ||
    Number(m[1]) === 0
  )
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${s}"`);
}

const TS_RE =
  /^(\d{4,})-(\d{1,2})-(\d{1,2})(?:[ tT]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?(\s+bc)?$/i;

/** µs since 1970 of the wall-clock time in `s`, plus the explicit offset if present (seconds east). */
export function parseTimestamp(s: string, oid: number): { local: bigint; offset: number | null } | 'inf' | '-inf' {
  const t = s.trim();
  const lower = t.toLowerCase();
  if (lower === 'infinity' || lower === '+infinity') return 'inf';
  if (lower === '-infinity') return '-inf';
  if (lower === 'epoch') return { local: 0n, offset: 0 };
  const m = TS_RE.exec(t);
  if (!m) throw badText(oid, s);
  checkFields(m, s);
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

export function timeFromText(s: string, oid: number): { us: bigint; offset: number | null } {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(z|[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?)?$/i.exec(s.trim());
  if (!m) throw badText(oid, s);
  // As PostgreSQL's time_in: 24:00:00 is the one time past 23:59:59.999999; 60.x seconds carry.
  const [hour, minute, second, fraction] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0), /[1-9]/.test(m[4] ?? '')];
  if ((hour > 23 && !(hour === 24 && minute === 0 && second === 0 && !fraction)) || minute > 59 || second > 60)
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${s}"`);
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
export function localToUtc(local: bigint, tz: string): bigint {
  const zone = zoneFor(tz);
  const localSec = Number(local / 1000000n);
  let off = zone.offsetAt(localSec);
  off = zone.offsetAt(localSec - off);
  return local - BigInt(off) * 1000000n;
}

// ---------- bytea / uuid / bool (text) ----------

export function byteaFromText(s: string): Uint8Array {
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

export function uuidFromHex(hex: string, s: string): DuckDBUUIDValue {
  const h = hex.replace(/[-{}]/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(h)) throw badText(OID.uuid, s);
  return DuckDBUUIDValue.fromUint128(BigInt('0x' + h));
}

export function boolFromText(s: string): boolean {
  const t = s.trim().toLowerCase();
  if (['t', 'true', 'y', 'yes', 'on', '1'].includes(t)) return true;
  if (['f', 'false', 'n', 'no', 'off', '0'].includes(t)) return false;
  throw badText(OID.bool, s);
}

export function intFromText(oid: number, s: string, min: number, max: number): number {
  const t = s.trim();
  if (!/^[+-]?\d+$/.test(t)) throw badText(oid, s);
  const v = Number(t);
  if (v < min || v > max)
    throw new SqlError(SQLSTATE.numericValueOutOfRange, `value "${s}" is out of range for type ${pgTypeName(oid)}`);
  return v;
}

export function floatFromText(oid: number, s: string): number {
  const t = s.trim().toLowerCase();
  if (t === 'nan') return NaN;
  if (t === 'infinity' || t === '+infinity' || t === 'inf' || t === '+inf') return Infinity;
  if (t === '-infinity' || t === '-inf') return -Infinity;
  const v = Number(t);
  // JavaScript also reads 0b11 and 0o7, which PostgreSQL's float input (strtod) does not; 0x10 both read.
  if (t === '' || Number.isNaN(v) || /^[+-]?0[bo]/.test(t)) throw badText(oid, s);
  // PostgreSQL refuses what the type cannot hold, where JavaScript would round to ±Infinity or 0.
  const held = oid === OID.float4 ? Math.fround(v) : v;
  if (!Number.isFinite(held) || (held === 0 && /[1-9]/.test(t.replace(/e.*$/, ''))))
    throw new SqlError(SQLSTATE.numericValueOutOfRange, `"${s}" is out of range for type ${pgTypeName(oid)}`);
  return v;
}
