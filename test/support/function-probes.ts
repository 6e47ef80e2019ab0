/**
 * Probes of PostgreSQL 15's functions, operators and casts: each catalog row becomes statements that
 * call it with sample arguments, run on PostgreSQL and through the gateway. A row is listed in the
 * gateway's pg_proc / pg_operator / pg_cast / pg_aggregate only if every probe that PostgreSQL answers
 * gets the same answer through the gateway (test/fixtures-clients/gen-pg-functions.ts keeps them;
 * test/pg-function-catalog.test.ts re-checks a sample so the list cannot drift).
 */
import { splitDataRow, type RawPg } from './raw-pg.js';

/**
 * Results that follow the clock or a random source, or the server's own words (version()): compared by
 * shape and type only, by the generator and by the re-probe of a sample (pg-function-catalog.test.ts).
 */
export const SHAPE_ONLY =
  /^(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday|random|gen_random_uuid|version|pg_backend_pid|pg_postmaster_start_time|pg_conf_load_time|txid_current|pg_current_xact_id)$/;

/** Types a probe can build a value of: PostgreSQL OID → two sample literals (text form). */
const SAMPLES: Readonly<Record<number, readonly [string, string]>> = {
  16: ['true', 'false'],
  17: ['\\x616263', '\\x00ff10'],
  19: ['abc', 'Hello World'],
  20: ['42', '-7'],
  21: ['3', '12'],
  23: ['7', '-2'],
  25: ['abc', 'Hello World 12'],
  26: ['1259', '23'],
  114: ['{"a": 1, "b": [1, 2]}', '[1, "x", null]'],
  700: ['1.5', '-0.25'],
  701: ['2.5', '0.125'],
  1042: ['ab', 'q'],
  1043: ['xyz', 'Ab Cd'],
  1082: ['2024-03-05', '1999-12-31'],
  1083: ['13:45:10', '00:00:01.5'],
  1114: ['2024-03-05 13:45:10', '2000-02-29 23:59:59.123'],
  1184: ['2024-03-05 13:45:10+00', '2021-07-01 08:00:00+02'],
  1186: ['1 day 02:03:04', '3 mons 4 days'],
  1700: ['12.345', '-0.5'],
  2950: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-0000-0000-000000000001'],
  1000: ['{t,f}', '{f}'],
  1005: ['{1,2}', '{3}'],
  1007: ['{1,2,3}', '{4,NULL,5}'],
  1009: ['{a,b}', '{x,NULL}'],
  1015: ['{a,b}', '{c}'],
  1016: ['{1,2,3}', '{9}'],
  1021: ['{1.5,2}', '{0.5}'],
  1022: ['{1.5,2}', '{0.5}'],
  1182: ['{2024-03-05}', '{1999-12-31,2000-01-01}'],
  1231: ['{1.5,2}', '{0.5}'],
  2206: ['integer', 'text'],
};

/** Text arguments that name a field, format, pattern or zone: per function and argument position, two samples. */
const TEXT_ARGS: Readonly<Record<string, Readonly<Record<number, readonly [string, string]>>>> = {
  date_trunc: { 0: ['month', 'hour'], 2: ['UTC', 'Asia/Tokyo'] },
  date_part: { 0: ['year', 'dow'] },
  current_setting: { 0: ['TimeZone', 'DateStyle'] },
  extract: { 0: ['year', 'epoch'] },
  // to_char's pictures by what it formats (to_charNumbers below): a date/time picture on a number, or the reverse, is no call anyone writes
  to_char: { 1: ['YYYY-MM-DD HH24:MI', 'Dy DD Mon YYYY HH12:MI:SS AM'] },
  to_date: { 0: ['2024-03-05', '05 Mar 2024'], 1: ['YYYY-MM-DD', 'DD Mon YYYY'] },
  to_timestamp: { 0: ['2024-03-05 13:45', '05/03/2024'], 1: ['YYYY-MM-DD HH24:MI', 'DD/MM/YYYY'] },
  to_number: { 0: ['1,234.50', '-12'], 1: ['9G999D99', 'S99'] },
  timezone: { 0: ['UTC', 'Asia/Tokyo'] },
  encode: { 1: ['hex', 'base64'] },
  decode: { 0: ['616263', 'YWJj'], 1: ['hex', 'base64'] },
  regexp_match: { 1: ['[a-z]+', 'l+'], 2: ['g', 'i'] },
  regexp_matches: { 1: ['[a-z]+', 'l+'], 2: ['g', 'i'] },
  regexp_replace: { 1: ['[a-c]', 'l+'], 2: ['_', 'X'], 3: ['g', 'gi'] },
  regexp_split_to_array: { 1: ['b', '\\s+'] },
  regexp_split_to_table: { 1: ['b', '\\s+'] },
  format: { 0: ['[%s]', '%s|%L'] },
  split_part: { 1: ['b', ' '] },
  string_to_array: { 1: [',', ' '] },
  string_agg: { 1: [',', '; '] },
  convert_from: { 1: ['UTF8', 'LATIN1'] },
  convert_to: { 1: ['UTF8', 'LATIN1'] },
  json_extract_path: { 1: ['a', 'b'] },
  json_extract_path_text: { 1: ['a', 'b'] },
};

/** to_char of a number (int2/int4/int8, float4/float8, numeric): number pictures. */
const TO_CHAR_NUMBERS: readonly [string, string] = ['999.99', 'FM9990.00'];
const NUMBER_TYPES = new Set([20, 21, 23, 700, 701, 1700]);

/**
 * A text argument that names a field, format, pattern or zone, as people write it: a bare literal
 * (`date_part('year', x)`, `encode(b, 'hex')`, `string_agg(x, ',')`), which PostgreSQL reads as text there.
 * Undefined for any other argument.
 */
function textArg(p: { proname: string; argtypes: number[] }, pos: number, set: number): string | undefined {
  const oid = p.argtypes[pos];
  if (oid !== 25 && oid !== 1043) return undefined;
  const samples =
    p.proname === 'to_char' && pos === 1 && NUMBER_TYPES.has(p.argtypes[0]!)
      ? TO_CHAR_NUMBERS
      : TEXT_ARGS[p.proname]?.[pos];
  const v = samples?.[set];
  return v === undefined ? undefined : `'${v.replace(/'/g, "''")}'`;
}

/** Polymorphic pseudo-types, probed with integers (and integer arrays). */
const POLY_SCALAR = new Set([2283, 2776, 5077, 2276, 5079]);
const POLY_ARRAY = new Set([2277, 5078]);

/** Every type OID a probed row may have as an argument or result. */
export const PROBED_TYPES: ReadonlySet<number> = new Set([
  ...Object.keys(SAMPLES).map(Number),
  ...POLY_SCALAR,
  ...POLY_ARRAY,
]);

/** PostgreSQL's spelling of each sample type (format_type), filled from the server before probing. */
export type TypeNames = ReadonlyMap<number, string>;

function sample(oid: number, set: number, names: TypeNames): string {
  const real = POLY_SCALAR.has(oid) ? 23 : POLY_ARRAY.has(oid) ? 1007 : oid;
  const v = SAMPLES[real]![set]!;
  return `CAST('${v.replace(/'/g, "''")}' AS ${names.get(real)})`;
}

export interface ProcRow {
  oid: number;
  proname: string;
  prokind: string;
  proretset: boolean;
  provolatile: string;
  argtypes: number[];
  aggkind?: string | null;
  aggnumdirectargs?: number | null;
}

const ident = (n: string) => (/^[a-z_][a-z0-9_]*$/.test(n) ? n : `"${n.replace(/"/g, '""')}"`);

/** The statements that probe one function: sample set 0 qualified, sample set 1 unqualified. */
export function procProbes(p: ProcRow, names: TypeNames): string[] {
  const out: string[] = [];
  // Both spellings: tools qualify (sqlsmith, pg_dump), people do not.
  for (const [set, fn] of [
    [0, `pg_catalog.${ident(p.proname)}`],
    [1, ident(p.proname)],
  ] as const) {
    const args = p.argtypes.map((t, i) => textArg(p, i, set) ?? sample(t, set, names));
    if (p.prokind === 'a') {
      const other = 1 - set;
      const rows = [set, other, set].map((s) => `(${p.argtypes.map((t) => sample(t, s, names)).join(', ')})`);
      // a text argument naming a format or a separator written in the call (`string_agg(x, ',')`), the others read from the rows
      const cols = p.argtypes.map((_, i) => textArg(p, i, set) ?? `x${i}`);
      const from = `FROM (VALUES ${rows.join(', ')}) AS v(${p.argtypes.map((_, i) => `x${i}`).join(', ')})`;
      if (p.aggkind === 'o' || p.aggkind === 'h') {
        const d = p.aggnumdirectargs ?? 0;
        const direct = args.slice(0, d).join(', ');
        const ordered = cols.slice(d).join(', ');
        out.push(`SELECT ${fn}(${direct}) WITHIN GROUP (ORDER BY ${ordered}) ${from}`);
      } else {
        // a parameterless aggregate is called as agg(*) (count(*))
        out.push(
          p.argtypes.length === 0
            ? `SELECT ${fn}(*) FROM (VALUES (1), (2)) AS v(x)`
            : `SELECT ${fn}(${cols.join(', ')}) ${from}`,
        );
      }
    } else if (p.prokind === 'w') {
      out.push(`SELECT ${fn}(${args.join(', ')}) OVER (ORDER BY n) FROM (VALUES (1), (2), (3)) AS v(n) ORDER BY n`);
    } else if (p.proretset) {
      out.push(`SELECT * FROM ${fn}(${args.join(', ')}) LIMIT 20`);
    } else {
      out.push(`SELECT ${fn}(${args.join(', ')})`);
    }
  }
  return out;
}

export interface OperatorRow {
  oid: number;
  oprname: string;
  oprkind: string;
  oprleft: number;
  oprright: number;
}

export function operatorProbes(o: OperatorRow, names: TypeNames): string[] {
  return [0, 1].map((set) =>
    o.oprkind === 'l'
      ? `SELECT ${o.oprname} ${sample(o.oprright, set, names)}`
      : `SELECT ${sample(o.oprleft, set, names)} ${o.oprname} ${sample(o.oprright, 1 - set, names)}`,
  );
}

export interface CastRow {
  oid: number;
  castsource: number;
  casttarget: number;
}

export function castProbes(c: CastRow, names: TypeNames): string[] {
  return [0, 1].map((set) => `SELECT CAST(${sample(c.castsource, set, names)} AS ${names.get(c.casttarget)})`);
}

/** One statement's outcome as compared: the SQLSTATE, or the result's column types and text rows. */
export interface Outcome {
  error?: string;
  types?: number[];
  rows?: Array<Array<string | null>>;
}

export async function outcome(c: RawPg, sql: string): Promise<Outcome> {
  const r = await c.simple(sql);
  if (r.error) return { error: r.error.code };
  return {
    types: (r.rowDescription?.fields ?? []).map((f) => f.dataTypeID),
    rows: r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString('utf8')))),
  };
}

/**
 * Does the gateway answer as PostgreSQL does? Values and column types must match; for volatile
 * functions (random(), now() …) only the shape and types. Where PostgreSQL refuses the sample,
 * the gateway must refuse it too.
 */
export function agrees(pg: Outcome, gw: Outcome, volatile: boolean): boolean {
  if (pg.error) return gw.error !== undefined;
  if (gw.error) return false;
  if (JSON.stringify(pg.types) !== JSON.stringify(gw.types)) return false;
  if (volatile) return pg.rows!.length === gw.rows!.length;
  return JSON.stringify(pg.rows) === JSON.stringify(gw.rows);
}

/** A row is kept when PostgreSQL answered at least one probe and the gateway agreed on all of them. */
export function keep(results: Array<{ pg: Outcome; gw: Outcome }>, volatile: boolean): boolean {
  return results.some((r) => !r.pg.error) && results.every((r) => agrees(r.pg, r.gw, volatile));
}
