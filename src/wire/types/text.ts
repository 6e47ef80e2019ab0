/**
 * PostgreSQL 15 text output (DateStyle ISO, IntervalStyle postgres) for primitive inputs, written
 * straight into the Writer. Both the fast column readers and the DuckDBValue path call these, so
 * there is one definition of every format.
 */
import type { Writer } from '../writer.js';
import type { Zone } from './tz.js';

// ---------- small byte helpers (callers have ensured room) ----------

const D2 = new Uint8Array(200); // "00".."99"
for (let i = 0; i < 100; i++) {
  D2[2 * i] = 48 + ((i / 10) | 0);
  D2[2 * i + 1] = 48 + (i % 10);
}

function put2(b: Buffer, p: number, n: number): number {
  b[p] = D2[2 * n];
  b[p + 1] = D2[2 * n + 1];
  return p + 2;
}

/** Non-negative integer < 2^53, at least `minDigits` digits. */
function putUint(b: Buffer, p: number, n: number, minDigits = 1): number {
  let len = 1;
  if (n < 2147483648) {
    // int32 fast path: |0 division instead of float floor
    for (let t = n; t >= 10; t = (t / 10) | 0) len++;
    if (len < minDigits) len = minDigits;
    let q = p + len;
    while (q > p) {
      const t = (n / 10) | 0;
      b[--q] = 48 + n - t * 10;
      n = t;
    }
    return p + len;
  }
  for (let t = n; t >= 10; t = Math.floor(t / 10)) len++;
  if (len < minDigits) len = minDigits;
  let q = p + len;
  while (q > p) {
    const r = n % 10;
    b[--q] = 48 + r;
    n = (n - r) / 10;
  }
  return p + len;
}

/** Integer (|n| < 2^53) as decimal text. */
export function intText(w: Writer, n: number): void {
  w.ensure(17);
  const b = w.raw;
  let p = w.length;
  if (n < 0) {
    b[p++] = 45;
    n = -n;
  }
  w.advance(putUint(b, p, n) - w.length);
}

export function bigintText(w: Writer, n: bigint): void {
  if (n >= -9007199254740991n && n <= 9007199254740991n) intText(w, Number(n));
  else w.latin1(n.toString());
}

export function boolText(w: Writer, v: boolean): void {
  w.byte(v ? 0x74 : 0x66); // 't' / 'f'
}

// ---------- floats: PostgreSQL 12+ shortest round-trip (Ryu) layout ----------

/** Lay out significant digits `ds` with decimal exponent `e` like PostgreSQL's d2s/f2s or %g. */
function layout(neg: boolean, ds: string, e: number, fixedMax: number): string {
  let s: string;
  if (e < -4 || e >= fixedMax) {
    s = ds.length > 1 ? `${ds[0]}.${ds.slice(1)}` : ds;
    const ae = Math.abs(e);
    s += (e < 0 ? 'e-' : 'e+') + (ae < 10 ? '0' + ae : String(ae));
  } else if (e < 0) {
    s = '0.' + '0'.repeat(-e - 1) + ds;
  } else if (ds.length <= e + 1) {
    s = ds + '0'.repeat(e + 1 - ds.length);
  } else {
    s = ds.slice(0, e + 1) + '.' + ds.slice(e + 1);
  }
  return neg ? '-' + s : s;
}

function splitExp(x: string): [string, number] {
  // "1.2345e+17" → ["12345", 17]
  const i = x.indexOf('e');
  return [x.slice(0, i).replace('.', ''), Number(x.slice(i + 1))];
}

function stripZeros(ds: string): string {
  let j = ds.length;
  while (j > 1 && ds.charCodeAt(j - 1) === 48) j--;
  return ds.slice(0, j);
}

function specialFloat(v: number): string | null {
  if (v !== v) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  return null;
}

/** float8out: shortest round-trip when extra_float_digits > 0, else %.{15+efd}g. */
export function float8String(v: number, extraFloatDigits = 1): string {
  const sp = specialFloat(v);
  if (sp !== null) return sp;
  const neg = v < 0;
  const a = neg ? -v : v;
  if (extraFloatDigits > 0) {
    // JS ToString picks the same shortest, closest digits as Ryu; only the layout differs.
    if (a >= 1e-4 && a < 1e15) {
      const s = String(a);
      if (s.indexOf('e') < 0) return neg ? '-' + s : s;
    }
    const [ds, e] = splitExp(a.toExponential());
    return layout(neg, ds, e, 15);
  }
  const prec = Math.max(1, 15 + extraFloatDigits);
  const [ds, e] = splitExp(a.toExponential(prec - 1));
  return layout(neg, stripZeros(ds), e, prec);
}

const DECIMAL_SCALE = [1, 10, 100, 1000];

/**
 * The common doubles — whole numbers and values with up to three decimals (prices, ratios, 18517.5) —
 * written without building a string. Returns false for everything else (float8String handles it).
 * Same output as float8String with extra_float_digits > 0: if v·10^k rounds to an integer N and
 * N/10^k reads back as v, then N is the integer nearest to v·10^k (|v| < 1e12 keeps the product's
 * error under 0.07), so N/10^k without trailing zeros is the shortest, closest round-trip form.
 */
export function float8FixedText(w: Writer, v: number): boolean {
  const a = v < 0 ? -v : v;
  // Whole numbers up to 1e15 (PostgreSQL's switch to exponents); with decimals, a bound that keeps
  // a·10^k exact to well under ½. Also excludes NaN; 0 and -0 go the general way.
  if (!(a >= 1e-3 && a < 1e15)) return false;
  for (let k = 0; k <= (a < 1e12 ? 3 : 0); k++) {
    const p = DECIMAL_SCALE[k]!;
    const m = a * p;
    if (m !== Math.floor(m) || m / p !== a) continue;
    w.ensure(32);
    const b = w.raw;
    let q = w.length;
    if (v < 0) b[q++] = 45;
    const int = Math.floor(m / p);
    q = putUint(b, q, int);
    // v·10^k can be exact where v·10^(k-1) was not (2.18·100 = 218.00000000000003, 2.18·1000 = 2180):
    // drop the trailing zeros of the fraction.
    let frac = m - int * p,
      digits = k;
    while (digits > 0 && frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    if (digits > 0) {
      b[q++] = 46; // '.'
      q = putUint(b, q, frac, digits);
    }
    w.advance(q - w.length);
    return true;
  }
  return false;
}

/** float4out: shortest digits that round-trip through float32. */
export function float4String(v: number, extraFloatDigits = 1): string {
  const sp = specialFloat(v);
  if (sp !== null) return sp;
  const neg = v < 0;
  const a = neg ? -v : v;
  if (extraFloatDigits > 0) {
    for (let p = 1; p <= 9; p++) {
      const x = a.toExponential(p - 1);
      if (Math.fround(Number(x)) === a) {
        const [ds, e] = splitExp(x);
        return layout(neg, stripZeros(ds), e, 6);
      }
    }
  }
  const prec = Math.max(1, 6 + Math.min(extraFloatDigits, 0));
  const [ds, e] = splitExp(a.toExponential(prec - 1));
  return layout(neg, stripZeros(ds), e, prec);
}

// ---------- numeric ----------

const POW10: bigint[] = [];
for (let i = 0, p = 1n; i <= 40; i++, p *= 10n) POW10.push(p);

/** Scaled integer `v / 10^scale` printed with exactly `scale` fraction digits (numeric_out). */
export function decimalString(v: bigint, scale: number): string {
  if (scale === 0) return v.toString();
  const neg = v < 0n;
  let s = (neg ? -v : v).toString();
  if (s.length <= scale) s = '0'.repeat(scale - s.length + 1) + s;
  const r = s.slice(0, s.length - scale) + '.' + s.slice(s.length - scale);
  return neg ? '-' + r : r;
}

// ---------- bytea ----------

const HEX = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const h = i.toString(16).padStart(2, '0');
  HEX[2 * i] = h.charCodeAt(0);
  HEX[2 * i + 1] = h.charCodeAt(1);
}

/** bytea_output = hex: \x followed by lowercase hex digits. */
export function byteaText(w: Writer, bytes: Uint8Array): void {
  w.ensure(2 + bytes.length * 2);
  const b = w.raw;
  let p = w.length;
  b[p++] = 0x5c;
  b[p++] = 0x78;
  for (let i = 0; i < bytes.length; i++) {
    const x = bytes[i];
    b[p++] = HEX[2 * x];
    b[p++] = HEX[2 * x + 1];
  }
  w.advance(p - w.length);
}

// ---------- dates and times ----------

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

// ---------- uuid ----------

export function uuidString(u128: bigint): string {
  const h = u128.toString(16).padStart(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------- arrays: element quoting (array_out) ----------

/** True when array_out would double-quote this element text. */
export function needsArrayQuote(s: string): boolean {
  if (s.length === 0) return true;
  if (s.length === 4 && s.toUpperCase() === 'NULL') return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // '"' '\\' '{' '}' ',' and isspace(): space \t \n \v \f \r
    if (c === 34 || c === 92 || c === 123 || c === 125 || c === 44 || c === 32 || (c >= 9 && c <= 13)) return true;
  }
  return false;
}

export function quoteArrayElement(s: string): string {
  return '"' + s.replace(/["\\]/g, '\\$&') + '"';
}
