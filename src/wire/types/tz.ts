/**
 * Session TimeZone → UTC offset at an instant, as PostgreSQL prints timestamptz. IANA zones are
 * resolved through Intl (ICU carries the same tz database, LMT offsets included); offsets are cached
 * per UTC day because Intl is far too slow to call per row.
 */
import { SqlError, SQLSTATE } from '../../errors.js';
import { fixedZone } from '../../pg/fixed-zones.js';

const DAY = 86400;
/** Intl accepts instants within ±8.64e15 ms; beyond that the offset at the edge is used. */
const MAX_SEC = 8.64e12 - 2 * DAY;

export interface Zone {
  readonly name: string;
  /** Offset east of UTC in seconds at the UTC instant `utcSec` (seconds since 1970). */
  offsetAt(utcSec: number): number;
}

function parseFixed(spec: string): number | null {
  if (/^(utc|gmt|z|zulu|etc\/utc|etc\/gmt|universal)$/i.test(spec)) return 0;
  // PostgreSQL's own reading: `+05:30` and `UTC+3` count west of Greenwich, `<+05:30>-05:30` and `5.5` east.
  return fixedZone(spec)?.east ?? null;
}

function parseLongOffset(s: string): number {
  // "GMT", "GMT+05:30", "GMT-04:56:02"
  const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(s);
  if (!m || !m[1]) return 0;
  const v = (Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -v : v;
}

class IanaZone implements Zone {
  private readonly fmt: Intl.DateTimeFormat;
  /** day number → offset for the whole day, or [transitionSec, before, after]. */
  private readonly cache = new Map<number, number | [number, number, number]>();

  constructor(readonly name: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  }

  private probe(sec: number): number {
    const c = sec > MAX_SEC ? MAX_SEC : sec < -MAX_SEC ? -MAX_SEC : sec;
    const parts = this.fmt.formatToParts(c * 1000);
    for (const p of parts) if (p.type === 'timeZoneName') return parseLongOffset(p.value);
    return 0;
  }

  offsetAt(utcSec: number): number {
    const day = Math.floor(utcSec / DAY);
    let e = this.cache.get(day);
    if (e === undefined) {
      const start = day * DAY;
      const a = this.probe(start);
      const b = this.probe(start + DAY - 1);
      if (a === b) e = a;
      else {
        // One transition inside the day (zones never change twice within 24 h): bisect to the second.
        let lo = start,
          hi = start + DAY - 1;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (this.probe(mid) === a) lo = mid;
          else hi = mid;
        }
        e = [hi, a, b];
      }
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(day, e);
    }
    return typeof e === 'number' ? e : utcSec < e[0] ? e[1] : e[2];
  }
}

const zones = new Map<string, Zone>();

/** Resolve a TimeZone setting (IANA name, 'UTC', or a fixed offset as PostgreSQL reads it: pg/fixed-zones.ts). */
export function zoneFor(spec: string): Zone {
  let z = zones.get(spec);
  if (z) return z;
  const fixed = parseFixed(spec.trim());
  if (fixed !== null) {
    z = { name: spec, offsetAt: () => fixed };
  } else {
    try {
      z = new IanaZone(spec.trim());
    } catch {
      throw new SqlError(SQLSTATE.invalidParameterValue, `invalid value for parameter "TimeZone": "${spec}"`);
    }
  }
  zones.set(spec, z);
  return z;
}
