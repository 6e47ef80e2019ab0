/**
 * Numerics whose display scale PostgreSQL picks per value: avg, variance and stddev of integers and
 * numerics, a numeric division over aggregates (select_div_scale), round(numeric, n) with n from a
 * column, and a float cast to numeric (float8_numeric's `%.15g`). DuckDB has one scale per
 * column, so an outermost select-list item of these is built by the rewrite as a struct of exact
 * parts (pg-result-types.ts `shownNumeric…`), and the wire sends it as numeric (1700), the value
 * computed here in arbitrary precision as PostgreSQL's numeric.c computes it.
 */
import type { DuckDBType } from '@duckdb/node-api';
import { DuckDBTypeId } from './duckdb-type-id.js';

/** The struct's fields: a sort key first (ORDER BY and DISTINCT compare it), then the exact parts. */
export const SHOWN_NUMERIC_FIELDS = ['fdl_pg_numeric', 'fdl_pg_of', 'fdl_pg_n', 'fdl_pg_x', 'fdl_pg_x2'] as const;

export function isShownNumericStruct(t: DuckDBType): boolean {
  if (t.typeId !== DuckDBTypeId.STRUCT) return false;
  const names = (t as unknown as { entryNames: readonly string[] }).entryNames;
  return names.length === SHOWN_NUMERIC_FIELDS.length && names.every((n, i) => n === SHOWN_NUMERIC_FIELDS[i]);
}

/** A numeric as PostgreSQL holds it here: `value · 10^-scale`, shown with exactly `scale` decimals. */
export interface Numeric {
  value: bigint;
  scale: number;
  /** PostgreSQL 15's special numerics, which only a float's cast makes here. */
  special?: 'NaN' | 'Infinity' | '-Infinity';
}

/**
 * A float's numeric (kind `float`): `r` is the double nearest float8_numeric's decimal of at most 15
 * significant digits (pg-float-macros.ts), so its 15 digits are that decimal's; trailing zeros dropped,
 * as `%g` drops them (`103.86`, `1e-07` → `0.0000001`, `1e+20` → `100000000000000000000`).
 */
export function floatNumeric(r: number): Numeric {
  if (Number.isNaN(r)) return { value: 0n, scale: 0, special: 'NaN' };
  if (!Number.isFinite(r)) return { value: 0n, scale: 0, special: r > 0 ? 'Infinity' : '-Infinity' };
  const [mantissa = '0', e = '0'] = r.toPrecision(15).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  let exponent = Number(e) - fraction.length;
  while (exponent < 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  const value = BigInt(digits);
  return exponent >= 0 ? { value: value * p10(exponent), scale: 0 } : { value, scale: -exponent };
}

/** An integer or a DuckDB DECIMAL value (`{ value, scale }`) as a Numeric. */
function numericOf(v: unknown): Numeric {
  if (typeof v === 'bigint') return { value: v, scale: 0 };
  if (typeof v === 'number') return { value: BigInt(v), scale: 0 };
  const d = v as { value: bigint; scale: number };
  return { value: BigInt(d.value), scale: d.scale };
}

const p10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);
const at = (x: Numeric, scale: number): bigint => x.value * p10(scale - x.scale);

/** PostgreSQL's weight and first base-10000 digit of a numeric (0, 0 for zero). */
function leading(x: Numeric): [number, bigint] {
  const a = abs(x.value);
  if (a === 0n) return [0, 0n];
  const w = Math.floor((a.toString().length - 1 - x.scale) / 4);
  const e = x.scale + 4 * w;
  return [w, e >= 0 ? a / p10(e) : a * p10(-e)];
}

/** numeric.c select_div_scale: 16 significant digits, at least either operand's display scale. */
function selectDivScale(a: Numeric, b: Numeric): number {
  const [wa, fa] = leading(a);
  const [wb, fb] = leading(b);
  const qweight = wa - wb - (fa <= fb ? 1 : 0);
  return Math.min(Math.max(16 - 4 * qweight, a.scale, b.scale, 0), 1000);
}

/** a / b at scale r, rounded half away from zero (numeric.c div_var with round). */
function divide(a: Numeric, b: Numeric, r: number): Numeric {
  const n = abs(a.value) * p10(b.scale + r);
  const d = abs(b.value) * p10(a.scale);
  const q = n / d + (2n * (n % d) >= d ? 1n : 0n);
  return { value: a.value < 0n !== b.value < 0n ? -q : q, scale: r };
}

/** numeric_div. */
function numericDiv(a: Numeric, b: Numeric): Numeric {
  return divide(a, b, selectDivScale(a, b));
}

/** Integer square root (floor), by Newton's method from a power of two above it. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (let y = (x + n / x) >> 1n; y < x; y = (x + n / x) >> 1n) x = y;
  return x;
}

/** sqrt_var: the square root of a non-negative numeric of scale r, at scale r, rounded half up. */
function sqrtAt(x: Numeric, r: number): Numeric {
  const radicand = at(x, 2 * r); // sqrt(V·10^-r)·10^r = sqrt(V·10^r)
  const q = isqrt(radicand);
  return { value: radicand - q * q > q ? q + 1n : q, scale: r };
}

/** numeric_stddev_internal: variance or stddev, sample or population, from n, Σx and Σx². */
function varianceOf(kind: string, n: bigint, sx: Numeric, sx2: Numeric): Numeric {
  const scale = 2 * sx.scale;
  const numerator = { value: n * at(sx2, scale) - at(sx, sx.scale) * at(sx, sx.scale), scale };
  if (numerator.value <= 0n) return { value: 0n, scale: 0 };
  const sample = kind.endsWith('_samp');
  const denominator = { value: sample ? n * (n - 1n) : n * n, scale: 0 };
  const r = selectDivScale(numerator, denominator);
  const variance = divide(numerator, denominator, r);
  return kind.startsWith('stddev') ? sqrtAt(variance, r) : variance;
}

/** round(x, places) for numeric x: half away from zero, display scale max(places, 0). */
function roundTo(x: Numeric, places: number): Numeric {
  const scale = Math.max(places, 0);
  if (places >= x.scale) return { value: at(x, scale), scale };
  const f = p10(x.scale - places);
  const q = (abs(x.value) + f / 2n) / f;
  const v = places >= 0 ? q : q * p10(-places);
  return { value: x.value < 0n ? -v : v, scale };
}

const added = (a: Numeric, b: Numeric, sign: bigint): Numeric => {
  const scale = Math.max(a.scale, b.scale);
  return { value: at(a, scale) + sign * at(b, scale), scale };
};
/** numeric_mul keeps every digit (scale s1 + s2); numeric_add/sub the larger scale. */
const AVG_ARITHMETIC: Record<string, (avg: Numeric, b: Numeric) => Numeric> = {
  avgmul: (a, b) => ({ value: a.value * b.value, scale: a.scale + b.scale }),
  avgadd: (a, b) => added(a, b, 1n),
  avgsub: (a, b) => added(a, b, -1n),
  subavg: (a, b) => added(b, a, -1n),
};

/** The value of one struct (its entries by field name), as PostgreSQL computes it. */
export function shownNumeric(entries: Record<string, unknown>): Numeric {
  const kind = String(entries.fdl_pg_of);
  if (kind === 'float') return floatNumeric(Number(entries.fdl_pg_numeric));
  const x = numericOf(entries.fdl_pg_x);
  if (kind === 'round') return roundTo(x, Number(entries.fdl_pg_n));
  // a sum of floats' numerics: exact at DECIMAL's scale, shown at the largest of theirs (its digits past it are zeros)
  if (kind === 'scaled') return roundTo(x, Number(entries.fdl_pg_n));
  if (kind === 'div') return numericDiv(x, numericOf(entries.fdl_pg_x2));
  const n = BigInt(entries.fdl_pg_n as bigint | number);
  if (kind === 'avg') return numericDiv(x, { value: n, scale: 0 });
  // avg(x) / b, b / avg(x): avg's numeric first, at its own scale, as PostgreSQL.
  if (kind === 'avgdiv') return numericDiv(numericDiv(x, { value: n, scale: 0 }), numericOf(entries.fdl_pg_x2));
  if (kind === 'divavg') return numericDiv(numericOf(entries.fdl_pg_x2), numericDiv(x, { value: n, scale: 0 }));
  // avg(x) * b, avg(x) ± b, b - avg(x): on avg's numeric at its own scale, as numeric_mul/add/sub (exact).
  if (kind in AVG_ARITHMETIC)
    return AVG_ARITHMETIC[kind]!(numericDiv(x, { value: n, scale: 0 }), numericOf(entries.fdl_pg_x2));
  return varianceOf(kind, n, x, numericOf(entries.fdl_pg_x2));
}
