/**
 * PostgreSQL's time zones of a fixed offset, as TimeZone reads them: a POSIX specification without
 * summer time (`GMT-05:30`, `UTC+3`, `<+0530>-05:30`, a bare `+05:30`), whose offset counts west of
 * Greenwich; a number of hours (`'5.5'`, `SET TIME ZONE -5.5`) or an interval, which count east and
 * show as `<+05:30>-05:30`. pgjdbc sends the first kind at startup for a JVM in `GMT+05:30`.
 *
 * The gateway prints timestamptz itself (wire/types/tz.ts), so any offset is exact there; DuckDB's ICU
 * has no zone of a fixed offset with minutes, so its session zone (casts, literals without an offset,
 * date_trunc inside a statement) is the zone of the tz database that has kept the same offset, without
 * summer time, since 1970 (`engineZone`).
 */
import { SqlError, SQLSTATE } from '../errors.js';

export interface FixedZone {
  /** What SHOW TimeZone answers, as PostgreSQL 15. */
  readonly shown: string;
  /** Seconds east of Greenwich. */
  readonly east: number;
}

/** PostgreSQL refuses offsets past a week (pg_tzset_offset, tzparse). */
const MAX_OFFSET = 168 * 3600;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
/** `[+-]hh[:mm]`: seconds are refused by PostgreSQL ("appears to use leap seconds"). */
const POSIX_OFFSET = String.raw`([+-]?)(\d{1,3})(?::(\d{1,2}))?`;
const POSIX_FIXED = new RegExp(String.raw`^(?:([a-z]{2,}|<[a-z0-9+:-]+>)${POSIX_OFFSET}|${POSIX_OFFSET})$`, 'i');
/** tz database names the POSIX pattern also matches: zones, not specifications. */
const ZONE_NAMES = new Set(['gmt0', 'gmt+0', 'gmt-0']);

/** `<+05:30>-05:30`: how PostgreSQL names an offset given in hours or as an interval. */
export function offsetZoneName(east: number): string {
  const clock = (s: number) => {
    const a = Math.abs(s);
    const [h, m, sec] = [Math.floor(a / 3600), Math.floor(a / 60) % 60, a % 60];
    return [h, ...(m || sec ? [m] : []), ...(sec ? [sec] : [])].map((n) => String(n).padStart(2, '0')).join(':');
  };
  return `<${east < 0 ? '-' : '+'}${clock(east)}>${east > 0 ? '-' : '+'}${clock(east)}`;
}

function outOfRange(spec: string): SqlError {
  return new SqlError(
    SQLSTATE.invalidParameterValue,
    `invalid value for parameter "TimeZone": "${spec}"`,
    'UTC timezone offset is out of range.',
  );
}

/** A fixed offset as PostgreSQL 15 reads the TimeZone text `spec`, or undefined for a zone name or other text. */
export function fixedZone(spec: string): FixedZone | undefined {
  if (NUMBER.test(spec)) {
    const east = Math.trunc(Number(spec) * 3600) || 0;
    if (Math.abs(east) > MAX_OFFSET) throw outOfRange(spec);
    return { shown: offsetZoneName(east), east };
  }
  if (ZONE_NAMES.has(spec.toLowerCase())) return undefined;
  const m = POSIX_FIXED.exec(spec);
  if (!m) return undefined;
  const [sign, hours, minutes] = m[1] !== undefined ? [m[2], m[3], m[4]] : [m[5], m[6], m[7]];
  if (Number(minutes ?? 0) > 59) return undefined;
  const west = Number(hours) * 3600 + Number(minutes ?? 0) * 60;
  if (west > MAX_OFFSET) throw outOfRange(spec);
  const east = sign === '-' ? west : -west;
  // PostgreSQL upper-cases the name it looked up (`utc+3` shows as `UTC+3`); a bare offset shows as written.
  return { shown: m[1] !== undefined ? spec.toUpperCase() : spec, east: east || 0 };
}

/** Offset east → the first zone of the tz database with that offset in every January and July since 1970. */
let steadyZones: Map<number, string> | undefined;

/** Offset east in seconds at the UTC instant `ms`, from Intl's long offset name. */
function offsetOf(fmt: Intl.DateTimeFormat, ms: number): number {
  const name = fmt.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const m = /GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?/.exec(name);
  if (!m) return 0;
  const s = (Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -s : s;
}

/** One pass over the tz database (~0.2 s, once a process), so no offset a client names costs another. */
function steady(): Map<number, string> {
  if (steadyZones) return steadyZones;
  steadyZones = new Map();
  const last = new Date().getUTCFullYear() + 1;
  for (const name of Intl.supportedValuesOf('timeZone')) {
    const fmt = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
    const east = offsetOf(fmt, Date.UTC(1970, 0, 15));
    let same = true;
    for (let year = 1970; same && year <= last; year++)
      same = offsetOf(fmt, Date.UTC(year, 0, 15)) === east && offsetOf(fmt, Date.UTC(year, 6, 15)) === east;
    if (same && !steadyZones.has(east)) steadyZones.set(east, name);
  }
  return steadyZones;
}

/**
 * A zone of the tz database DuckDB can take for the fixed offset `east`: `UTC` or `Etc/GMT∓h` for whole
 * hours (exact), else one whose offset has been `east` in every January and July since 1970 (exact for
 * those years), or null when the tz database has none.
 */
export function engineZone(east: number): string | null {
  if (east === 0) return 'UTC';
  if (east % 3600 === 0 && east >= -12 * 3600 && east <= 14 * 3600)
    return `Etc/GMT${east > 0 ? '-' : '+'}${Math.abs(east) / 3600}`;
  return steady().get(east) ?? null;
}

/** interval's typmod bits (PostgreSQL's INTERVAL_MASK) of the fields a lone number may stand for. */
const MASK = { hour: 1 << 10, minute: 1 << 11, second: 1 << 12 };
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * `SET TIME ZONE INTERVAL '<text>' [fields]` (the fields' typmod `mask`, or undefined): the zone's name as
 * PostgreSQL shows it (`<+05:30>-05:30`). Read are `[+-]h:mm[:ss]`, a lone number (of the last field) and
 * hours, minutes, seconds in words; days and months are refused as PostgreSQL refuses them.
 */
export function intervalZone(text: string, mask: number | undefined): string {
  const t = text.trim().toLowerCase();
  let east: number | undefined;
  const clock = /^([+-]?)(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(t);
  if (clock) {
    east = Number(clock[2]) * 3600 + Number(clock[3]) * 60 + Number(clock[4] ?? 0);
    if (clock[1] === '-') east = -east;
  } else if (/^[+-]?\d+$/.test(t)) {
    const unit =
      mask === undefined || mask & MASK.second ? 1 : mask & MASK.minute ? 60 : mask & MASK.hour ? 3600 : undefined;
    if (unit !== undefined) east = Number(t) * unit;
  } else if (/^(?:[+-]?\d+\s*[a-z]+\s*)+$/.test(t)) {
    east = 0;
    for (const [, n, word] of t.matchAll(/([+-]?\d+)\s*([a-z]+)/g)) {
      const unit = /^(?:d|days?|mons?|months?|y|years?|w|weeks?)$/.test(word!)
        ? undefined
        : /^(?:h|hours?|hrs?)$/.test(word!)
          ? 'h'
          : /^(?:m|mins?|minutes?)$/.test(word!)
            ? 'm'
            : /^(?:s|secs?|seconds?)$/.test(word!)
              ? 's'
              : null;
      if (unit === undefined)
        throw new SqlError(
          SQLSTATE.invalidParameterValue,
          `invalid value for parameter "TimeZone": "INTERVAL '${text}'"`,
          'Cannot specify days or months in time zone interval.',
        );
      if (unit === null) {
        east = undefined;
        break;
      }
      east += Number(n) * UNIT_SECONDS[unit]!;
    }
  }
  if (east === undefined)
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `SET TIME ZONE INTERVAL '${text}' is not read by fdl-gateway`,
      undefined,
      "Write the offset as hours and minutes, INTERVAL '+05:30' HOUR TO MINUTE, or as a number of hours: SET TIME ZONE 5.5.",
    );
  if (Math.abs(east) > MAX_OFFSET) throw outOfRange(`INTERVAL '${text}'`);
  return offsetZoneName(east);
}
