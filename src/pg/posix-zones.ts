/**
 * POSIX time-zone specifications (`UTC+3`, `EST5`, `UTC-5:30`, `<+03>-3`, `UTC+3DST`, `+3`): PostgreSQL
 * reads their offset as hours west of Greenwich (`UTC+3` is three hours behind UTC), DuckDB's ICU as hours
 * east, and drops minutes (`UTC-5:30` became Etc/GMT+5): the same text answered another instant. They are
 * refused, 22023 with a hint, in AT TIME ZONE, and in SET TimeZone those with summer time (`UTC+3DST`: a
 * fixed offset is read as PostgreSQL reads it, fixed-zones.ts, before this). Names of the tz database that look alike
 * (`EST5EDT`, `GMT0`, `GMT+0`, `Etc/GMT+3`) are zones, not POSIX specifications, and pass.
 */
import { SqlError, SQLSTATE } from '../errors.js';

const ABBREVIATION = String.raw`(?:[a-z]{3,}|<[^<>]+>)`;
const OFFSET = String.raw`[+-]?\d{1,2}(?::\d{1,2}){0,2}`;
/** `STDoffset[DST[offset][,rule]]`, or a bare offset (PostgreSQL reads `'+3'` as POSIX in AT TIME ZONE). */
const POSIX_SPEC = new RegExp(String.raw`^\s*(?:${ABBREVIATION}${OFFSET}(?:${ABBREVIATION}.*)?|${OFFSET})\s*$`, 'i');
/** tz database names the pattern also matches. */
const ZONE_NAMES = new Set(['est5edt', 'cst6cdt', 'mst7mdt', 'pst8pdt', 'gmt0', 'gmt+0', 'gmt-0']);

/** The refusal of a POSIX time-zone specification, or undefined for anything else. */
export function posixZoneRefusal(zone: string): SqlError | undefined {
  if (!POSIX_SPEC.test(zone) || ZONE_NAMES.has(zone.trim().toLowerCase())) return undefined;
  return new SqlError(
    SQLSTATE.invalidParameterValue,
    `POSIX time zone specification "${zone}" is not supported by fdl-gateway`,
    undefined,
    "PostgreSQL counts a POSIX offset west of Greenwich (UTC+3 is UTC-03:00). Name a zone of the tz database instead: 'Etc/GMT+3' is UTC-03:00 with the same sign, or a city such as 'America/Sao_Paulo'.",
  );
}
