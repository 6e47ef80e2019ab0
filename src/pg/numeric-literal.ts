/**
 * A numeric constant as PostgreSQL's numeric_in reads it: the exact decimal of its text, exponent
 * forms included (`1.0e-7` is 0.00000010, scale 8; `6.02e23` is 602000000000000000000000, scale 0).
 * DuckDB reads an exponent literal as a DOUBLE and casts text to DECIMAL(18,3): both lose digits.
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** The widest DECIMAL DuckDB has. */
export const MAX_DECIMAL_DIGITS = 38;

export interface ExactDecimal {
  /** Plain decimal text, sign kept, no exponent: what DuckDB casts to DECIMAL(38, scale) exactly. */
  readonly plain: string;
  /** PostgreSQL's display scale: the mantissa's fraction digits less the exponent, at least 0. */
  readonly scale: number;
  /** Digits before the point, leading zeros dropped: with the scale, the DECIMAL width needed. */
  readonly wholeDigits: number;
  /** Whether the text had an exponent (DuckDB would read such a literal as a DOUBLE). */
  readonly exponent: boolean;
}

const NUMERIC_TEXT = /^\s*([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?\s*$/;

/** The exact decimal `text` spells, or undefined when it is not a plain numeric spelling (NaN, junk). */
export function exactDecimal(text: string): ExactDecimal | undefined {
  const m = NUMERIC_TEXT.exec(text);
  if (!m) return undefined;
  const [, sign = '', mantissa = '', exp] = m;
  const [whole = '', frac = ''] = mantissa.split('.');
  const e = exp === undefined ? 0 : Number(exp);
  // An exponent no numeric can hold (PostgreSQL's own limit is ±1000 for input); refused by the caller's width check.
  if (!Number.isSafeInteger(e) || Math.abs(e) > 100_000)
    return { plain: '', scale: Infinity, wholeDigits: Infinity, exponent: true };
  const digits = whole + frac;
  const point = whole.length + e;
  let intPart: string;
  let fracPart: string;
  if (point <= 0) [intPart, fracPart] = ['', '0'.repeat(-point) + digits];
  else if (point >= digits.length) [intPart, fracPart] = [digits + '0'.repeat(point - digits.length), ''];
  else [intPart, fracPart] = [digits.slice(0, point), digits.slice(point)];
  const scale = Math.max(0, frac.length - e);
  // fracPart holds exactly `scale` digits (the mantissa's fraction shifted by the exponent).
  intPart = intPart.replace(/^0+/, '');
  const plain = `${sign === '-' ? '-' : ''}${intPart || '0'}${scale > 0 ? '.' + fracPart : ''}`;
  return { plain, scale, wholeDigits: intPart.length, exponent: exp !== undefined };
}

/** `value` as DuckDB's DECIMAL(38, scale) can hold it exactly, or 0A000 with a hint. */
export function exactWithin38(value: ExactDecimal, spelled: string): ExactDecimal {
  if (value.wholeDigits + value.scale <= MAX_DECIMAL_DIGITS) return value;
  const shown = spelled.trim();
  throw new SqlError(
    SQLSTATE.featureNotSupported,
    `numeric value ${shown.length > 60 ? shown.slice(0, 60) + '…' : shown} has more than ${MAX_DECIMAL_DIGITS} digits`,
    undefined,
    `fdl-gateway computes numeric with at most ${MAX_DECIMAL_DIGITS} significant digits (DuckDB DECIMAL(38,s)); use double precision for larger magnitudes or smaller fractions.`,
  );
}
