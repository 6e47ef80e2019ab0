/**
 * `interval '1' day`: PostgreSQL reads a bare number in the field's unit and drops the finer fields.
 * The deparser spells it `CAST('1' AS interval day)`, which DuckDB reads as 1 second, so the rewrite
 * writes what DuckDB's own parser makes of `INTERVAL '1' DAY` (seen in its json_serialize_sql):
 * `to_days(CAST(trunc(CAST('1' AS DOUBLE)) AS INTEGER))`, seconds as `to_seconds(CAST('1' AS DOUBLE))`.
 * Anything else with a field qualifier is refused rather than read without it.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { call, str, type Node } from './rewrite-nodes.js';

/** PostgreSQL's INTERVAL_MASK bits of a single field → DuckDB's function and its argument's integer type. */
const SINGLE_FIELDS: ReadonlyMap<number, readonly [string, string]> = new Map([
  [1 << 2, ['to_years', 'integer']],
  [1 << 1, ['to_months', 'integer']],
  [1 << 3, ['to_days', 'integer']],
  [1 << 10, ['to_hours', 'bigint']],
  [1 << 11, ['to_minutes', 'bigint']],
]);
const SECOND = 1 << 12;
/** A number as PostgreSQL's interval input takes it without a unit. */
const BARE_NUMBER = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/;

const cast = (arg: Node, type: string): Node => ({ TypeCast: { arg, typeName: { names: [str(type)], typemod: -1 } } });

/** The DuckDB call for an interval cast with a field qualifier (`typmods`), or a 0A000 refusal. */
export function intervalWithFields(arg: Node, typmods: Node[]): Node {
  const mask = typmods[0]?.A_Const?.ival?.ival as number | undefined;
  const text = arg.A_Const?.sval?.sval as string | undefined;
  const single = mask === undefined ? undefined : SINGLE_FIELDS.get(mask);
  if (typmods.length === 1 && text !== undefined && BARE_NUMBER.test(text)) {
    const number = cast(arg, 'double');
    if (mask === SECOND) return call(['to_seconds'], [number]);
    if (single) return call([single[0]], [cast(call(['trunc'], [number]), single[1])]);
  }
  throw new SqlError(
    SQLSTATE.featureNotSupported,
    'an interval with a field qualifier is supported by fdl-gateway only as a constant number in one unit',
    undefined,
    "Write the unit inside the string, as interval '1 day 3 hours', or one number and one unit, as interval '3' hour.",
  );
}

/** ISO 8601's format with designators (`P3D`, `P1Y2M`, `PT1H30M`, `P2W`), which PostgreSQL reads and DuckDB does not. */
const ISO_DESIGNATORS =
  /^\s*P(?:([+-]?\d+)Y)?(?:([+-]?\d+)M)?(?:([+-]?\d+)W)?(?:([+-]?\d+)D)?(?:T(?:([+-]?\d+)H)?(?:([+-]?\d+)M)?(?:([+-]?\d+(?:\.\d+)?)S)?)?\s*$/;

/** An ISO 8601 interval with designators as interval text DuckDB reads; undefined for any other text. */
export function isoInterval(text: string): string | undefined {
  const m = ISO_DESIGNATORS.exec(text);
  if (!m || text.trim() === 'P' || text.trim().endsWith('T')) return undefined;
  const [, y, mo, w, d, h, mi, s] = m;
  const days = w === undefined && d === undefined ? undefined : Number(w ?? 0) * 7 + Number(d ?? 0);
  const parts: Array<[string | number | undefined, string]> = [
    [y, 'years'],
    [mo, 'months'],
    [days, 'days'],
    [h, 'hours'],
    [mi, 'minutes'],
    [s, 'seconds'],
  ];
  return parts
    .filter(([v]) => v !== undefined)
    .map(([v, unit]) => `${Number(v)} ${unit}`)
    .join(' ');
}
