/**
 * `_pgsem_*` macros for floats as PostgreSQL prints and converts them (pg-forms.ts calls them):
 * a float's text (`floatText`, used by pg-text-macros.ts: shortest round-trip digits, exponent form
 * outside [1e-4, 1e15) — 1e6 for float4 —, `100` not DuckDB's `100.0`), and `x::numeric` and `round(x::numeric, n)` of a float, whose numeric is the
 * value printed with 15 (float4: 6) significant digits, as PostgreSQL's float8_numeric does.
 */
import { quoteLiteral } from '../quote.js';
import { SHOWN_NUMERIC_FIELDS } from './shown-numeric.js';

/** DuckDB's exact number types (integers and DECIMAL): each has an overload of its own where a tag picks one. */
export const EXACT_NUMBERS: readonly string[] = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'DECIMAL',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'UHUGEINT',
];

/**
 * DuckDB's shortest digits (`100.0`, `1e+20`, `1.5e-07`) laid out as PostgreSQL's float8out: `digits`
 * is the significand without leading and trailing zeros, `x` the decimal exponent of its first digit.
 */
export const floatText = (
  exponentAt: number,
  x = 'x',
): string => `CASE WHEN isnan(${x}) THEN 'NaN' WHEN isinf(${x}) THEN CASE WHEN ${x} > 0 THEN 'Infinity' ELSE '-Infinity' END ELSE
  list_transform([regexp_extract(CAST(${x} AS VARCHAR), '^(-?)(\\d+)(?:\\.(\\d+))?(?:e([+-]\\d+))?$', ['s', 'i', 'f', 'e'])], lambda fdl_pg_m:
    list_transform([{'s': fdl_pg_m['s'], 'all': fdl_pg_m['i'] || fdl_pg_m['f'], 'point': length(fdl_pg_m['i']) + CAST(coalesce(nullif(fdl_pg_m['e'], ''), '0') AS INTEGER)}], lambda fdl_pg_a:
      list_transform([{'s': fdl_pg_a['s'], 'd': rtrim(ltrim(fdl_pg_a['all'], '0'), '0'), 'x': CAST(fdl_pg_a['point'] - (length(fdl_pg_a['all']) - length(ltrim(fdl_pg_a['all'], '0'))) - 1 AS INTEGER)}], lambda fdl_pg_v:
        CASE WHEN fdl_pg_v['d'] = '' THEN fdl_pg_v['s'] || '0'
          WHEN fdl_pg_v['x'] < -4 OR fdl_pg_v['x'] >= ${exponentAt} THEN fdl_pg_v['s'] || left(fdl_pg_v['d'], 1) || CASE WHEN length(fdl_pg_v['d']) > 1 THEN '.' || substr(fdl_pg_v['d'], 2) ELSE '' END
            || 'e' || CASE WHEN fdl_pg_v['x'] < 0 THEN '-' ELSE '+' END || CASE WHEN abs(fdl_pg_v['x']) < 10 THEN '0' ELSE '' END || CAST(abs(fdl_pg_v['x']) AS VARCHAR)
          WHEN fdl_pg_v['x'] < 0 THEN fdl_pg_v['s'] || '0.' || repeat('0', -fdl_pg_v['x'] - 1) || fdl_pg_v['d']
          ELSE fdl_pg_v['s'] || rpad(left(fdl_pg_v['d'], fdl_pg_v['x'] + 1), fdl_pg_v['x'] + 1, '0') || CASE WHEN length(fdl_pg_v['d']) > fdl_pg_v['x'] + 1 THEN '.' || substr(fdl_pg_v['d'], fdl_pg_v['x'] + 2) ELSE '' END END
      )[1])[1])[1] END`;

/**
 * round(numeric of a float, n): the float's text at PostgreSQL's precision read as an exact DECIMAL
 * (scale 29 below 1e9, 18 below 1e20, else 0: each holds every digit of that text), then rounded half
 * away from zero, as text (the rewrite casts it to numeric(38, n): a CASE over DECIMALs of different
 * scales would take the smallest). The rewrite passes only n ≤ 13, where a float below 1e-14 rounds to 0 either way.
 */
const floatRound = (digits: number): string => `list_transform([printf('%.${digits}g', x)], lambda s:
  CASE WHEN isnan(x) OR isinf(x) THEN error('a NaN or infinite float cast to numeric is not supported by fdl-gateway|DuckDB''s DECIMAL has neither NaN nor infinity: keep the value double precision.')
    WHEN abs(x) < 1e9 THEN CAST(round(CAST(s AS DECIMAL(38,29)), n) AS VARCHAR) WHEN abs(x) < 1e20 THEN CAST(round(CAST(s AS DECIMAL(38,18)), n) AS VARCHAR)
    ELSE CAST(round(CAST(s AS DECIMAL(38,0)), n) AS VARCHAR) END)[1]`;

/** Raised at run time as 0A000 with a hint (engine/duckdb-errors.ts reads `what|hint`), as pg-macros.ts's refusedFor. */
const NOT_A_NUMBER = `CAST(CASE WHEN x IS NULL THEN NULL ELSE error('a cast to numeric without precision and scale of a value that is not a number is not supported by fdl-gateway|Give precision and scale: CAST(x AS numeric(38, 6)).') END AS DECIMAL(38,0))`;

/**
 * float8_numeric's value (float4_numeric's), the float printed `%.15g` (`%.6g`): DuckDB's printf rounds
 * the binary value exactly, half to even, as glibc's. Read back as the double nearest that decimal,
 * cheaply (0.1–0.3 µs a value, docs/performance.md; the text cast to DECIMAL costs ~8 µs): 15 digits survive the round trip,
 * so this double stands for the decimal exactly, and equal numerics are equal doubles.
 */
const floatDigits = (t: 'FLOAT' | 'DOUBLE', x = 'x'): string =>
  t === 'DOUBLE' ? `CAST(printf('%.15g', ${x}) AS DOUBLE)` : `CAST(printf('%.6g', CAST(${x} AS DOUBLE)) AS DOUBLE)`;

/** 0A000 with a hint, as pg-macros.ts's refusedAtRun (which imports this module). */
const notSupported = (what: string, hint: string): string =>
  `error(${quoteLiteral(`${what} is not supported by fdl-gateway|${hint}`)})`;
const INSIDE_HINT =
  'PostgreSQL shows it exactly as an item of the outermost select list (SELECT x::numeric); inside an expression give a typmod, x::numeric(38, 20), or keep it double precision.';

/**
 * `x::numeric` of a float inside an expression (`_pgsem_numeric`): the decimal `r` (floatDigits) as
 * DECIMAL(38,16), exact (`_pgsem_digits15`), at one scale per column. Refused where DECIMAL(38,16)
 * cannot hold it: NaN and ±Infinity (PostgreSQL 15 has them), 10^22 and above, and digits past the
 * 16th place (`r` below 0.01 not a multiple of 10^-16: round(r·10^16)/10^16 is then another double).
 */
export const floatNumeric = (t: 'FLOAT' | 'DOUBLE'): string => `list_transform([${floatDigits(t)}], fdl_pg_r ->
  CASE WHEN isnan(fdl_pg_r) OR isinf(fdl_pg_r) THEN ${notSupported('a NaN or infinite float cast to numeric inside an expression', `DuckDB's DECIMAL has neither NaN nor infinity. ${INSIDE_HINT}`)}
    WHEN abs(fdl_pg_r) >= 1e22 THEN ${notSupported('a float of 1e22 or more cast to numeric inside an expression', `DuckDB's DECIMAL(38,16) holds less. ${INSIDE_HINT}`)}
    WHEN fdl_pg_r <> 0 AND abs(fdl_pg_r) < 0.01 AND round(fdl_pg_r * 1e16) / 1e16 <> fdl_pg_r THEN ${notSupported('a float with digits past the 16th decimal place cast to numeric inside an expression', `DuckDB's DECIMAL(38,16) would round them. ${INSIDE_HINT}`)}
    ELSE _pgsem_digits15(fdl_pg_r) END)[1]`;

/**
 * `x::numeric` of a float as an item of the outermost select list: a struct the wire sends as numeric
 * at the decimal's own scale (pg/shown-numeric.ts kind `float`; NaN and ±Infinity too, as PostgreSQL 15),
 * keyed (ordered, deduplicated) by that decimal's double.
 */
export const shownFloat = (t: 'FLOAT' | 'DOUBLE'): string => {
  const fields = [floatDigits(t), "'float'", 'NULL', 'NULL', 'NULL'];
  return `CASE WHEN x IS NULL THEN NULL ELSE {${SHOWN_NUMERIC_FIELDS.map((f, i) => `'${f}': ${fields[i]}`).join(', ')}} END`;
};

export const PG_FLOAT_MACROS: ReadonlyArray<[string, string]> = [
  ['_pgsem_fround(t DOUBLE, x, n)', floatRound(15)],
  ['_pgsem_fround(t FLOAT, x, n)', floatRound(6)],
  ['_pgsem_fround(t DECIMAL, x, n)', 'round(x, n)'],
  ...EXACT_NUMBERS.filter((t) => t !== 'DECIMAL').map((t): [string, string] => [
    `_pgsem_fround(t ${t}, x, n)`,
    'round(CAST(x AS DECIMAL(38,0)), n)',
  ]),
  // Text and other values keep the refusal of a cast to numeric without a typmod (pg-macros.ts).
  ['_pgsem_fround(t VARCHAR, x, n)', NOT_A_NUMBER],
  ['_pgsem_fround(t, x, n)', NOT_A_NUMBER],
  // x::numeric(p, s) of a float rounds the float's text at 15 (float4: 6) significant digits, as float8_numeric
  // does (`1.005::float8::numeric(6,2)` = 1.01); DuckDB's cast rounded the binary value (1.00). The rewrite casts
  // this text to numeric(p, s); other values are passed on as they are.
  ['_pgsem_fnum(t DOUBLE, x)', "printf('%.15g', x)"],
  ['_pgsem_fnum(t FLOAT, x)', "printf('%.6g', CAST(x AS DOUBLE))"],
  ...[...EXACT_NUMBERS, 'VARCHAR'].map((t): [string, string] => [`_pgsem_fnum(t ${t}, x)`, 'x']),
  ['_pgsem_fnum(t, x)', 'x'],
];
