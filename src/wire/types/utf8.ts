/**
 * A parameter's text must be valid UTF-8 without NUL, as PostgreSQL requires of every text it
 * receives (22021, its message naming the offending bytes). Node's decoder would put U+FFFD in
 * place of a bad sequence, and DuckDB would take a NUL as part of the value: neither what the
 * client sent.
 */
import { isUtf8 } from 'node:buffer';
import { SqlError, SQLSTATE } from '../../errors.js';

/** PostgreSQL's pg_utf_mblen: how many bytes a sequence starting with `c` claims. */
const claimed = (c: number) =>
  (c & 0x80) === 0 ? 1 : (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 1;

/** Where the first invalid sequence (or NUL) starts. */
function firstInvalid(b: Buffer): number {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    if (c === 0) return i;
    const n = claimed(c);
    if (n === 1 ? c >= 0x80 : i + n > b.length || !isUtf8(b.subarray(i, i + n))) return i;
    i += n;
  }
  return 0;
}

/** The bytes as text, or 22021 "invalid byte sequence for encoding "UTF8": 0x.." as PostgreSQL says it. */
export function strictUtf8(b: Buffer, start = 0): string {
  const body = start ? b.subarray(start) : b;
  if (isUtf8(body) && !body.includes(0)) return body.toString('utf8');
  const at = firstInvalid(body);
  const shown = [...body.subarray(at, Math.min(body.length, at + claimed(body[at]!)))]
    .map((x) => `0x${x.toString(16).padStart(2, '0')}`)
    .join(' ');
  throw new SqlError(SQLSTATE.characterNotInRepertoire, `invalid byte sequence for encoding "UTF8": ${shown}`);
}

/** Types whose binary form is the text itself (text, varchar, name, bpchar, unknown, unspecified, json); jsonb after its version byte. */
const BINARY_TEXT_OIDS = new Set([25, 1043, 19, 1042, 705, 0, 114]);
const JSONB = 3802;

/**
 * Bind's check, as PostgreSQL makes it when the message arrives (not when the portal runs): every
 * text-format parameter, and every binary one whose type is text, must be valid UTF-8 without NUL.
 */
export function checkParamEncoding(
  formats: readonly number[],
  params: readonly (Buffer | null)[],
  oids: readonly number[],
): void {
  params.forEach((p, i) => {
    if (!p || p.length === 0) return;
    const binary = (formats.length === 1 ? formats[0] : (formats[i] ?? 0)) === 1;
    const oid = oids[i] ?? 0;
    if (!binary || BINARY_TEXT_OIDS.has(oid)) strictUtf8(p);
    else if (oid === JSONB) strictUtf8(p, 1);
  });
}
