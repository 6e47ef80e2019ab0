/**
 * What one call of a function costs per evaluation, in the element steps lambda-work.ts adds up: a
 * plain call is one step; a call that builds a value larger than its inputs counts the bytes it may
 * build, BYTES_PER_STEP to a step (measured on this machine: copying 8 bytes of `repeat`'s output
 * costs about what one element costs through a cheap lambda body). Where the size is a constant
 * argument the bytes follow from it (`lpad(t, 10, '*')`: 10 bytes); where it comes from a row or an
 * element the call is counted at its guard's ceiling (MAX_VALUE_GROWTH bytes, value-guards.ts),
 * since that is what the guard lets it build. Pure.
 */
import { EDIT_DISTANCES, MAX_EDIT_DISTANCE_BYTES } from '../engine/cost-guards.js';
import { MAX_VALUE_GROWTH } from '../engine/cost-limit.js';

/** Output bytes counted as one element step. */
export const BYTES_PER_STEP = 8;

type Node = Record<string, unknown>;

/** A constant's value as a number or text (through casts), else null. */
export function constantOf(n: unknown): number | string | null {
  let o = n as Node | undefined;
  while (o && o.class === 'CAST') o = o.child as Node | undefined;
  if (!o || o.class !== 'CONSTANT') return null;
  const v = (o.value as { is_null?: boolean; value?: unknown } | undefined) ?? {};
  if (v.is_null) return null;
  if (typeof v.value === 'string') return v.value;
  return typeof v.value === 'number' && Number.isFinite(v.value) ? v.value : null;
}

export function constantNumber(n: unknown): number | null {
  const c = constantOf(n);
  const x = c === null ? NaN : Number(c);
  return Number.isFinite(x) ? x : null;
}

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');
const steps = (bytes: number) => Math.max(1, Math.ceil(bytes / BYTES_PER_STEP));
/** A call whose size comes from a row or an element: what its guard lets it build. */
const AT_CEILING = steps(MAX_VALUE_GROWTH);

/** The widths a constant printf/format text asks for, and its own bytes. */
function formatBytes(format: string): number {
  const widths = [...format.matchAll(/%[^a-zA-Z%]*|\{[^{}]*\}/g)].flatMap((m) =>
    [...m[0].matchAll(/[0-9]+/g)].map((d) => Number(d[0])),
  );
  return bytesOf(format) + widths.reduce((a, w) => a + w, 0);
}

/**
 * Functions that build a value whose size is an argument (or many times an input): the steps one
 * call costs, given its arguments; null when a size argument is not a constant.
 */
const SIZED: Record<string, (args: unknown[]) => number | null> = {
  // The value's bytes (1 when it is not a constant: an element, counted once per copy) times the count.
  repeat: ([v, k]) => {
    const count = constantNumber(k);
    const value = constantOf(v);
    return count === null ? null : steps(Math.max(0, count) * (typeof value === 'string' ? bytesOf(value) : 1));
  },
  lpad: (a) => pad(a),
  rpad: (a) => pad(a),
  printf: ([f]) => (typeof constantOf(f) === 'string' ? steps(formatBytes(constantOf(f) as string)) : null),
  format: ([f]) => (typeof constantOf(f) === 'string' ? steps(formatBytes(constantOf(f) as string)) : null),
  bar: (a) => (a.length < 4 ? steps(80 * 3) : nullOr(constantNumber(a[3]), (w) => steps(w * 3))),
  // Linear in the text: as many steps as `to` is times `from`.
  replace: ([, from, to]) => {
    const f = constantOf(from);
    const t = constantOf(to);
    if (typeof f !== 'string' || typeof t !== 'string') return null;
    return Math.max(1, Math.ceil(bytesOf(t) / Math.max(1, bytesOf(f))));
  },
  list_resize: ([, k]) => nullOr(constantNumber(k), (n) => Math.max(1, n)),
  array_resize: ([, k]) => nullOr(constantNumber(k), (n) => Math.max(1, n)),
  bitstring: ([, k]) => nullOr(constantNumber(k), (n) => steps(n / 8)),
  equi_width_bins: ([, , k]) => nullOr(constantNumber(k), (n) => Math.max(1, n)),
  // The separator once per element: counted per element by the caller's list length.
  array_to_string: ([, sep]) => nullOr(constantOf(sep), (s) => steps(bytesOf(String(s)))),
  json_pretty: () => null,
  // Edit distances fill a table of one text's bytes by the other's (at most 255 each: cost-guards.ts),
  // a cell about a quarter of an element step: a lambda over a JSON list of 500 texts calling
  // levenshtein at 255 × 255 was counted as one step a call and ran 116 s past its timeout.
  ...Object.fromEntries(
    EDIT_DISTANCES.map((name) => [
      name,
      ([a, b]: unknown[]) => {
        const bytes = (x: unknown) => {
          const c = constantOf(x);
          return typeof c === 'string' ? bytesOf(c) : MAX_EDIT_DISTANCE_BYTES;
        };
        return Math.max(1, Math.ceil((bytes(a) * bytes(b)) / 4));
      },
    ]),
  ),
};

function nullOr<T>(x: T | null, f: (x: T) => number): number | null {
  return x === null ? null : f(x);
}

function pad([, len, fill]: unknown[]): number | null {
  const n = constantNumber(len);
  const f = fill === undefined ? ' ' : constantOf(fill);
  if (n === null || typeof f !== 'string') return null;
  return steps(Math.max(0, n) * Math.max(1, bytesOf(f)));
}

/** The steps one evaluation of `name(args)` costs by itself (its arguments' own work not included). */
export function callSteps(name: string, args: unknown[]): number {
  const sized = SIZED[name];
  if (!sized) return 1;
  return sized(args) ?? AT_CEILING;
}
