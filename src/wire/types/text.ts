/**
 * PostgreSQL 15 text output of numbers, booleans, bytea and uuids, and array element quoting, written
 * straight into the Writer. Both the fast column readers and the DuckDBValue path call these, so
 * there is one definition of every format (dates and times: datetime-text.ts).
 */
import type { Writer } from '../writer.js';
import { putUint } from './digits.js';

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

/** A positive finite double as m·2^e (m an integer). */
function binaryParts(a: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const hi = view.getUint32(0);
  const exp = (hi >>> 20) & 0x7ff;
  const m = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  return exp === 0 ? [m, -1074] : [m | (1n << 52n), exp - 1075];
}

/** Whether d·10^p10 = n·2^p2 exactly. */
function sameValue(d: bigint, p10: number, n: bigint, p2: number): boolean {
  let [l, r] = [d, n];
  if (p10 >= 0) l *= 10n ** BigInt(p10);
  else r *= 10n ** BigInt(-p10);
  if (p2 >= 0) r *= 2n ** BigInt(p2);
  else l *= 2n ** BigInt(-p2);
  return l === r;
}

/**
 * Whether the decimal `ds`·10^(e - len + 1) lies exactly halfway between `a` (a positive double, or a float4's
 * value with `bits` 24) and a neighbour. Ryu as PostgreSQL builds it (float8out/float4out) takes only digits
 * strictly inside the rounding interval; JavaScript's shortest form and a round-trip test accept the halfway
 * point that rounds back to an even `a` (4.27062949436387e+16 where PostgreSQL prints 4.2706294943638704e+16,
 * 7.747762e+07 where 7.7477616e+07).
 */
function halfway(ds: string, e: number, a: number, bits: 53 | 24): boolean {
  const p10 = e - (ds.length - 1);
  // cheap first: an integer halfway point is past 2^53 (2^24); a fraction's digits are a multiple of 5^k
  if (p10 >= 0 ? a < 2 ** (bits === 24 ? 24 : 53) : ds.length <= 15 && Number(ds) % 5 ** -p10 !== 0) return false;
  let [m, e2] = binaryParts(a);
  // a float4's value: its 24-bit significand
  if (bits === 24)
    while (m % 2n === 0n && m >= 1n << 24n) {
      m /= 2n;
      e2++;
    }
  const lowest = 1n << BigInt(bits - 1);
  // the halfway points above and below, as odd·2^(e2-1) (below: a quarter step where a is a power of two)
  const below: [bigint, number] = m === lowest ? [4n * m - 1n, e2 - 2] : [2n * m - 1n, e2 - 1];
  const d = BigInt(ds);
  return sameValue(d, p10, 2n * m + 1n, e2 - 1) || sameValue(d, p10, ...below);
}

/**
 * `a` (positive) to `p` significant digits, a tie to the even last digit as Ryu and printf round: toExponential
 * rounds a tie up (float4 3242377.25 to 8 digits: 3.2423773e+06 where PostgreSQL prints 3.2423772e+06).
 */
function digitsHalfEven(a: number, p: number, x = a.toExponential(p - 1)): [string, number] {
  const [ds, e] = splitExp(x);
  const last = ds.charCodeAt(ds.length - 1) - 48;
  // (a tie is exactly half a last digit below: cheap to rule out first)
  const near = (Number(ds) - 0.5) * 10 ** (e - (ds.length - 1));
  if (last % 2 === 0 || Math.abs(near - a) > a * 1e-12) return [ds, e];
  const [m, e2] = binaryParts(a);
  // a = (ds - 1/2)·10^p10, i.e. 2a = (2·ds - 1)·10^p10
  const tie = sameValue(2n * BigInt(ds) - 1n, e - (ds.length - 1), m, e2 + 1);
  return tie ? [ds.slice(0, -1) + String(last - 1), e] : [ds, e];
}

/** float8out: shortest round-trip when extra_float_digits > 0, else %.{15+efd}g. */
export function float8String(v: number, extraFloatDigits = 1): string {
  const sp = specialFloat(v);
  if (sp !== null) return sp;
  const neg = v < 0;
  const a = neg ? -v : v;
  if (extraFloatDigits > 0) {
    // JS ToString picks the same shortest, closest digits as Ryu but for a halfway point (cheap to rule out
    // first: below 2^29, or digits that are no multiple of 5^k, k the fraction's length); only the layout differs.
    if (a >= 1e-4 && a < 1e15) {
      const s = String(a);
      const dot = s.indexOf('.');
      // (digits are a multiple of 5^k where their last k are: the fraction's)
      const plain = a < 2 ** 29 || dot < 0 || Number(s.slice(dot + 1)) % 5 ** (s.length - dot - 1) !== 0;
      if (s.indexOf('e') < 0 && plain) return neg ? '-' + s : s;
    }
    let [ds, e] = splitExp(a.toExponential());
    for (let p = ds.length + 1; p <= 17 && halfway(ds, e, a, 53); p++) [ds, e] = digitsHalfEven(a, p);
    return layout(neg, stripZeros(ds), e, 15);
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
        const [ds, e] = digitsHalfEven(a, p, x);
        // (a halfway point of at most 9 digits needs a step of at least 2^-11: a >= 2^12)
        if (a < 2 ** 12 || !halfway(ds, e, a, 24)) return layout(neg, stripZeros(ds), e, 6);
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
