/**
 * PostgreSQL 15 binary send formats (typsend) for primitive inputs. Integers are big-endian; dates,
 * times and timestamps count from 2000-01-01 as PostgreSQL does.
 */
import type { Writer } from '../writer.js';
import { DATE_NINF, DATE_PINF, TS_NINF, TS_PINF } from './datetime-text.js';

/** Days between 1970-01-01 (DuckDB) and 2000-01-01 (PostgreSQL). */
export const PG_EPOCH_DAYS = 10957;
export const PG_EPOCH_US = 946684800000000n;
export const PG_EPOCH_US_NUM = 946684800000000;

export function dateBinary(w: Writer, days: number): void {
  // PostgreSQL ±infinity dates are INT32_MAX / INT32_MIN.
  w.int32(days >= DATE_PINF ? 2147483647 : days <= DATE_NINF ? -2147483648 : days - PG_EPOCH_DAYS);
}

/** DuckDB µs since 1970 → PostgreSQL int8 µs since 2000 (±infinity: INT64_MAX / INT64_MIN). */
export function timestampBinaryBig(w: Writer, micros: bigint): void {
  w.int64(micros >= TS_PINF ? TS_PINF : micros <= TS_NINF ? -9223372036854775808n : micros - PG_EPOCH_US);
}

/** Same for µs known to be a safe integer: written as two int32 halves, no BigInt. */
export function timestampBinaryNum(w: Writer, micros: number): void {
  int64Num(w, micros - PG_EPOCH_US_NUM);
}

/** int8 from a safe-integer Number. */
export function int64Num(w: Writer, v: number): void {
  const hi = Math.floor(v / 4294967296);
  w.int32(hi);
  w.uint32(v - hi * 4294967296);
}

/** numeric_send for `v / 10^scale`: ndigits, weight, sign, dscale, base-10000 digits. */
export function numericBinary(w: Writer, v: bigint, scale: number): void {
  const neg = v < 0n;
  const s = (neg ? -v : v).toString();
  let intS: string, fracS: string;
  if (s.length > scale) {
    intS = s.slice(0, s.length - scale);
    fracS = s.slice(s.length - scale);
  } else {
    intS = '';
    fracS = '0'.repeat(scale - s.length) + s;
  }
  const ip = '0'.repeat((4 - (intS.length % 4)) % 4) + intS;
  const fp = fracS + '0'.repeat((4 - (fracS.length % 4)) % 4);
  const groups: number[] = [];
  for (let i = 0; i < ip.length; i += 4) groups.push(Number(ip.slice(i, i + 4)));
  for (let i = 0; i < fp.length; i += 4) groups.push(Number(fp.slice(i, i + 4)));
  let weight = ip.length / 4 - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start++;
    weight--;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end--;
  const n = end - start;
  w.int16(n);
  w.int16(n === 0 ? 0 : weight);
  w.int16(n === 0 || !neg ? 0 : 0x4000);
  w.int16(scale);
  for (let i = start; i < end; i++) w.int16(groups[i]);
}

/** numeric NaN (sign 0xC000). */
export function numericNaNBinary(w: Writer): void {
  numericSpecialBinary(w, 'NaN');
}

/**
 * PostgreSQL 15's special numerics: no digits, sign NaN 0xC000, Infinity 0xD000, -Infinity 0xF000; the
 * display scale numeric_send reads from the header's short-format bits, 0 for NaN and 32 for the infinities.
 */
const SPECIAL_SIGNS = { NaN: 0xc000, Infinity: 0xd000, '-Infinity': 0xf000 } as const;
export function numericSpecialBinary(w: Writer, special: keyof typeof SPECIAL_SIGNS): void {
  const sign = SPECIAL_SIGNS[special];
  w.int16(0);
  w.int16(0);
  w.int16(sign - 0x10000);
  w.int16((sign & 0x1f80) >> 7);
}

export function uuidBinary(w: Writer, u128: bigint): void {
  w.int64(BigInt.asIntN(64, u128 >> 64n));
  w.int64(BigInt.asIntN(64, u128));
}

/** interval_send: int8 µs, int4 days, int4 months. */
export function intervalBinary(w: Writer, months: number, days: number, micros: bigint): void {
  w.int64(micros);
  w.int32(days);
  w.int32(months);
}

/** timetz_send: int8 µs of day, int4 zone in seconds WEST of UTC. */
export function timetzBinary(w: Writer, us: number, offsetEast: number): void {
  int64Num(w, us);
  w.int32(-offsetEast);
}

/** varbit binary: int32 bit count, then ceil(n / 8) bytes, first bit in the high bit, zero padded. */
export function varbitBinary(w: Writer, bits: string): void {
  w.int32(bits.length);
  for (let i = 0; i < bits.length; i += 8) {
    let byte = 0;
    for (let j = 0; j < 8; j++) byte = (byte << 1) | (bits.charCodeAt(i + j) === 49 ? 1 : 0);
    w.byte(byte);
  }
}
