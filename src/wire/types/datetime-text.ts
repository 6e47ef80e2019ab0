/**
 * PostgreSQL 15 text output of dates, times, timestamps and intervals (DateStyle ISO, IntervalStyle
 * postgres), written straight into the Writer; DuckDB's infinities and the civil-calendar arithmetic.
 */
import type { Writer } from '../writer.js';
import type { Zone } from './tz.js';
import { put2, putUint } from './digits.js';

export const US_PER_DAY = 86_400_000_000;
/** DuckDB's ±infinity dates (days) and timestamps (µs). */
export const DATE_PINF = 2147483647,
  DATE_NINF = -2147483647;
export const TS_PINF = 9223372036854775807n,
  TS_NINF = -9223372036854775807n;

/** Days since 1970-01-01 → proleptic Gregorian [year (astronomical), month, day]. */
export function civil(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Inverse of `civil`. */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// Consecutive rows usually share a day: remember the last day's rendered YYYY-MM-DD.
let lastDays = NaN,
  lastBC = false;
const lastDate = Buffer.alloc(16);
let lastDateLen = 0;

/** Writes YYYY-MM-DD (year ≥ 4 digits, 1 BC = year 0); returns the new position; `lastBC` tells BC. */
function putDate(b: Buffer, p: number, days: number): number {
  if (days !== lastDays) {
    const [y, m, d] = civil(days);
    lastBC = y <= 0;
    let q = putUint(lastDate, 0, lastBC ? 1 - y : y, 4);
    lastDate[q++] = 45;
    q = put2(lastDate, q, m);
    lastDate[q++] = 45;
    lastDateLen = put2(lastDate, q, d);
    lastDays = days;
  }
  for (let i = 0; i < lastDateLen; i++) b[p + i] = lastDate[i];
  return p + lastDateLen;
}

/** HH:MM:SS[.ffffff] with trailing fraction zeros trimmed (AppendSeconds). `us` ≥ 0. */
function putTime(b: Buffer, p: number, us: number, hoursUnbounded = false): number {
  const secs = Math.floor(us / 1e6);
  const frac = us - secs * 1e6;
  const h = Math.floor(secs / 3600);
  const rest = secs - h * 3600; // < 3600: small-integer arithmetic from here
  const m = (rest / 60) | 0;
  p = hoursUnbounded && h > 99 ? putUint(b, p, h) : put2(b, p, h);
  b[p++] = 58;
  p = put2(b, p, m);
  b[p++] = 58;
  p = put2(b, p, rest - m * 60);
  if (frac > 0) {
    b[p++] = 46;
    let f = frac,
      n = 6;
    while (f % 10 === 0) {
      f /= 10;
      n--;
    }
    p = putUint(b, p, f, n);
  }
  return p;
}

/** +HH[:MM[:SS]] (EncodeTimezone); `off` is seconds east of UTC. */
function putOffset(b: Buffer, p: number, off: number): number {
  b[p++] = off < 0 ? 45 : 43;
  const a = Math.abs(off);
  const h = Math.floor(a / 3600),
    m = Math.floor(a / 60) % 60,
    s = a % 60;
  p = put2(b, p, h);
  if (m !== 0 || s !== 0) {
    b[p++] = 58;
    p = put2(b, p, m);
  }
  if (s !== 0) {
    b[p++] = 58;
    p = put2(b, p, s);
  }
  return p;
}

const BC = [32, 66, 67]; // " BC"

export function dateText(w: Writer, days: number): void {
  if (days >= DATE_PINF) {
    w.latin1('infinity');
    return;
  }
  if (days <= DATE_NINF) {
    w.latin1('-infinity');
    return;
  }
  w.ensure(24);
  const b = w.raw;
  let q = putDate(b, w.length, days);
  if (lastBC) {
    b[q++] = BC[0];
    b[q++] = BC[1];
    b[q++] = BC[2];
  }
  w.advance(q - w.length);
}

/** Timestamp given as whole days + µs of that day (0 ≤ us < 86400e6); `zone` adds the offset. */
export function timestampText(w: Writer, days: number, us: number, zone: Zone | null): void {
  let off = 0;
  if (zone) {
    off = zone.offsetAt(days * 86400 + Math.floor(us / 1e6));
    us += off * 1e6;
    if (us < 0) {
      us += US_PER_DAY;
      days--;
    } else if (us >= US_PER_DAY) {
      us -= US_PER_DAY;
      days++;
    }
  }
  w.ensure(48);
  const b = w.raw;
  let p = putDate(b, w.length, days);
  const bc = lastBC;
  b[p++] = 32;
  p = putTime(b, p, us);
  if (zone) p = putOffset(b, p, off);
  if (bc) {
    b[p++] = BC[0];
    b[p++] = BC[1];
    b[p++] = BC[2];
  }
  w.advance(p - w.length);
}

/** Timestamp from DuckDB µs since 1970 as a bigint (infinities included). */
export function timestampTextBig(w: Writer, micros: bigint, zone: Zone | null): void {
  if (micros >= TS_PINF) {
    w.latin1('infinity');
    return;
  }
  if (micros <= TS_NINF) {
    w.latin1('-infinity');
    return;
  }
  let days = micros / 86400000000n;
  let rem = micros - days * 86400000000n;
  if (rem < 0n) {
    rem += 86400000000n;
    days -= 1n;
  }
  timestampText(w, Number(days), Number(rem), zone);
}

export function timeText(w: Writer, us: number): void {
  w.ensure(20);
  w.advance(putTime(w.raw, w.length, us) - w.length);
}

/** timetz: `off` seconds east of UTC. */
export function timetzText(w: Writer, us: number, off: number): void {
  w.ensure(32);
  const b = w.raw;
  const p = putTime(b, w.length, us);
  w.advance(putOffset(b, p, off) - w.length);
}

/** IntervalStyle postgres (EncodeInterval, INTSTYLE_POSTGRES). */
export function intervalString(months: number, days: number, micros: bigint): string {
  const year = Math.trunc(months / 12);
  const mon = months - year * 12;
  let s = '';
  let isZero = true,
    isBefore = false;
  const part = (v: number, unit: string) => {
    if (v === 0) return;
    s += `${isZero ? '' : ' '}${isBefore && v > 0 ? '+' : ''}${v} ${unit}${v !== 1 ? 's' : ''}`;
    isBefore = v < 0;
    isZero = false;
  };
  part(year, 'year');
  part(mon, 'mon');
  part(days, 'day');
  if (isZero || micros !== 0n) {
    const neg = micros < 0n;
    const a = neg ? -micros : micros;
    const hours = a / 3600000000n;
    const rest = Number(a - hours * 3600000000n); // < 1 h in µs
    const min = Math.floor(rest / 60e6);
    const us = rest - min * 60e6;
    const sec = Math.floor(us / 1e6);
    let frac = us - sec * 1e6;
    s += `${isZero ? '' : ' '}${neg ? '-' : isBefore ? '+' : ''}${hours < 10n ? '0' : ''}${hours}:${min < 10 ? '0' : ''}${min}:${sec < 10 ? '0' : ''}${sec}`;
    if (frac > 0) {
      let n = 6;
      while (frac % 10 === 0) {
        frac /= 10;
        n--;
      }
      s += '.' + String(frac).padStart(n, '0');
    }
  }
  return s;
}
