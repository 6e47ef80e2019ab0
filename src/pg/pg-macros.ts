/**
 * PostgreSQL functions DuckDB lacks or answers differently, as macros of the catalog emulation
 * (install.ts declares them with the others; the rewrite redirects a PostgreSQL call to them).
 * Each is checked against PostgreSQL 15 in test/pg-semantics.test.ts.
 */
import { C } from './catalog/names.js';
import { quoteLiteral } from '../quote.js';
import { INTERVAL_DIVISION, INTERVAL_TYPE_DIVISION, PG_VALUE_MACROS } from './pg-value-macros.js';
import { ROW_MACROS } from './pg-rows.js';
import { NUMBER_FORMAT_MACROS } from './number-format-macros.js';
import { SUBSCRIPT_MACROS } from './array-subscripts.js';
import { LIKE_ANY_MACROS } from './pg-operators.js';
import { JSON_VALUE_MACROS } from './pg-json-values.js';
import { JSON_SET_MACROS } from './json-sets.js';
import { JSON_CONTAINMENT_MACROS } from './json-containment.js';
import { REGEXP_MACROS } from './regexp-functions.js';
import { NUMERIC_SCALE_MACROS } from './numeric-scales.js';
import { JSON_ARROW_MACROS } from './json-arrows.js';
import { JSONB_KEY_MACROS } from './jsonb-literals.js';
import { PG_FLOAT_MACROS, floatNumeric, shownFloat } from './pg-float-macros.js';
import { PG_TEXT_MACROS } from './pg-text-macros.js';
import { ARITHMETIC_LITERAL_MACROS } from './arithmetic-literals.js';
import { checkedArithmetic, FLOAT_RANGE_MACROS } from './float-range-macros.js';
import { NUMERIC_FLOAT_MACROS } from './numeric-float-macros.js';
import { NAME_MACROS } from './name-values.js';

/** PostgreSQL's pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, PB, each rounded half up. */
const sizePretty = (b: string): string => {
  const half = (x: string) => `CAST(((${x}) + CASE WHEN (${x}) < 0 THEN -1 ELSE 1 END) / 2 AS BIGINT)`;
  const step = (shift: number, unit: string, rest: string) =>
    `CASE WHEN abs(${b} >> ${shift}) < 20479 THEN ${half(`${b} >> ${shift}`)} || ' ${unit}' ELSE ${rest} END`;
  return `CASE WHEN abs(${b}) < 10240 THEN ${b} || ' bytes' ELSE ${step(9, 'kB', step(19, 'MB', step(29, 'GB', step(39, 'TB', `${half(`${b} >> 49`)} || ' PB'`))))} END`;
};

/** DuckDB type spellings (typeof) → PostgreSQL's (pg_typeof as text). */
const PG_TYPE_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['BOOLEAN', 'boolean'],
  ['TINYINT', 'smallint'],
  ['SMALLINT', 'smallint'],
  ['INTEGER', 'integer'],
  ['BIGINT', 'bigint'],
  ['HUGEINT', 'numeric'],
  ['FLOAT', 'real'],
  ['DOUBLE', 'double precision'],
  ['VARCHAR', 'text'],
  ['BLOB', 'bytea'],
  ['DATE', 'date'],
  ['TIME', 'time without time zone'],
  ['TIMESTAMP', 'timestamp without time zone'],
  ['TIMESTAMP WITH TIME ZONE', 'timestamp with time zone'],
  ['INTERVAL', 'interval'],
  ['UUID', 'uuid'],
  ['JSON', 'json'],
];
const pgTypeName = (t: string): string =>
  `CASE WHEN ${t} LIKE 'DECIMAL%' THEN 'numeric' WHEN ${t} LIKE 'STRUCT(%' THEN 'record' ${PG_TYPE_NAMES.map(([d, p]) => `WHEN ${t} = '${d}' THEN '${p}'`).join(' ')} ELSE lower(${t}) END`;
/** pg_typeof's name of an expression's type, as text (an array's `numeric[]`). */
const pgTypeOf = (x: string): string =>
  `CASE WHEN typeof(${x}) LIKE '%[]' THEN ${pgTypeName(`replace(typeof(${x}), '[]', '')`)} || '[]' ELSE ${pgTypeName(`typeof(${x})`)} END`;

/** Case mapping of the C locale (lc_ctype C, as the gateway reports): ASCII letters only; DuckDB's maps all of Unicode. */
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const ASCII_UPPER = (x: string): string => `translate(${x}, '${LOWER}', '${LOWER.toUpperCase()}')`;
export const ASCII_LOWER = (x: string): string => `translate(${x}, '${LOWER.toUpperCase()}', '${LOWER}')`;

/** Raised at run time as 0A000 with a hint (engine/duckdb-errors.ts reads `what|hint`). */
export const refusedAtRun = (what: string, hint: string): string =>
  `error(${quoteLiteral(`${what} is not supported by fdl-gateway|${hint}`)})`;

/** An interval's fields as PostgreSQL holds them: months, days, microseconds (DuckDB's date_part reads each). */
const intervalFields = (i: string): string =>
  `[CAST(date_part('year', ${i}) AS BIGINT) * 12 + date_part('month', ${i}), date_part('day', ${i}),
    CAST(date_part('hour', ${i}) AS BIGINT) * 3600000000 + CAST(date_part('minute', ${i}) AS BIGINT) * 60000000 + date_part('microseconds', ${i})]`;
const interval = (f: string): string =>
  `to_months(CAST(${f}[1] AS INTEGER)) + to_days(CAST(${f}[2] AS INTEGER)) + to_microseconds(${f}[3])`;
const DAY_US = '86400000000';
/** x / n truncated toward zero, as C's (the part taken off is a whole multiple). */
const wholeOf = (x: string, n: string): string => `(${x} - ${x} % ${n}) // ${n}`;
/** Each step's fields bound once, as a lambda's. */
const then = (fields: string, name: string, body: string): string =>
  `list_transform([${fields}], lambda ${name}: ${body})[1]`;
/** Days and time of one sign: a negative time with positive days borrows a day, and the other way round. */
const daysAndTimeOfOneSign = (f: string): string =>
  `CASE WHEN ${f}[2] > 0 AND ${f}[3] < 0 THEN [${f}[1], ${f}[2] - 1, ${f}[3] + ${DAY_US}]
    WHEN ${f}[2] < 0 AND ${f}[3] > 0 THEN [${f}[1], ${f}[2] + 1, ${f}[3] - ${DAY_US}] ELSE ${f} END`;
const JUSTIFY: ReadonlyArray<[string, string]> = [
  // whole days of time into days
  [
    'justify_hours(i)',
    then(
      intervalFields('CAST(i AS INTERVAL)'),
      'fdl_pg_f',
      then(
        `[fdl_pg_f[1], fdl_pg_f[2] + ${wholeOf('fdl_pg_f[3]', DAY_US)}, fdl_pg_f[3] % ${DAY_US}]`,
        'fdl_pg_g',
        interval(`(${daysAndTimeOfOneSign('fdl_pg_g')})`),
      ),
    ),
  ],
  // whole 30-day months of days into months
  [
    'justify_days(i)',
    then(
      intervalFields('CAST(i AS INTERVAL)'),
      'fdl_pg_f',
      then(
        `[fdl_pg_f[1] + ${wholeOf('fdl_pg_f[2]', '30')}, fdl_pg_f[2] % 30, fdl_pg_f[3]]`,
        'fdl_pg_g',
        interval(`(CASE WHEN fdl_pg_g[1] > 0 AND fdl_pg_g[2] < 0 THEN [fdl_pg_g[1] - 1, fdl_pg_g[2] + 30, fdl_pg_g[3]]
          WHEN fdl_pg_g[1] < 0 AND fdl_pg_g[2] > 0 THEN [fdl_pg_g[1] + 1, fdl_pg_g[2] - 30, fdl_pg_g[3]] ELSE fdl_pg_g END)`),
      ),
    ),
  ],
  // both, then months, days and time of one sign
  [
    'justify_interval(i)',
    then(
      intervalFields('CAST(i AS INTERVAL)'),
      'fdl_pg_f',
      then(
        `[fdl_pg_f[1], fdl_pg_f[2] + ${wholeOf('fdl_pg_f[3]', DAY_US)}, fdl_pg_f[3] % ${DAY_US}]`,
        'fdl_pg_a',
        then(
          `[fdl_pg_a[1] + ${wholeOf('fdl_pg_a[2]', '30')}, fdl_pg_a[2] % 30, fdl_pg_a[3]]`,
          'fdl_pg_b',
          then(
            `CASE WHEN fdl_pg_b[1] > 0 AND (fdl_pg_b[2] < 0 OR (fdl_pg_b[2] = 0 AND fdl_pg_b[3] < 0)) THEN [fdl_pg_b[1] - 1, fdl_pg_b[2] + 30, fdl_pg_b[3]]
              WHEN fdl_pg_b[1] < 0 AND (fdl_pg_b[2] > 0 OR (fdl_pg_b[2] = 0 AND fdl_pg_b[3] > 0)) THEN [fdl_pg_b[1] + 1, fdl_pg_b[2] - 30, fdl_pg_b[3]] ELSE fdl_pg_b END`,
            'fdl_pg_c',
            interval(`(${daysAndTimeOfOneSign('fdl_pg_c')})`),
          ),
        ),
      ),
    ),
  ],
];

export const PG_FUNCTION_MACROS: ReadonlyArray<[string, string]> = [
  // Words are runs of ASCII letters and digits (the C locale the gateway reports); the first letter of each is
  // upper case, the rest lower (a word is ASCII: DuckDB's upper/lower are the C locale's there). Word by word,
  // linear: a character-by-character body read `substr(s, i, 1)` of each (O(n) in UTF-8), so a 24 KB value took
  // minutes and one vector of them hours, uninterruptible (an attacker review).
  [
    'initcap(s)',
    // (the text bound once, as a lambda's value: the guard of regexp_extract_all names its text three times)
    `list_transform([s], lambda fdl_pg_s: CASE WHEN fdl_pg_s IS NULL THEN NULL ELSE array_to_string(list_transform(regexp_extract_all(fdl_pg_s, '[A-Za-z0-9]+|[^A-Za-z0-9]+'), lambda fdl_pg_w:
      CASE WHEN ascii(fdl_pg_w) BETWEEN 48 AND 57 OR ascii(fdl_pg_w) BETWEEN 65 AND 90 OR ascii(fdl_pg_w) BETWEEN 97 AND 122
        THEN upper(left(fdl_pg_w, 1)) || lower(substr(fdl_pg_w, 2)) ELSE fdl_pg_w END), '') END)[1]`,
  ],
  // chr(0) and past Unicode: PostgreSQL's 54000 (text holds no NUL; DuckDB answered it); below 0 its 22023 words
  [
    'chr(n)',
    "CASE WHEN n = 0 THEN error('null character not permitted') WHEN n < 0 THEN error('character number must be positive') WHEN n > 1114111 THEN error('requested character too large for encoding: ' || n) ELSE chr(n) END",
  ],
  // (s1, e1) OVERLAPS (s2, e2): PostgreSQL's overlaps_timestamp, its NULL rules too (DuckDB has no OVERLAPS: 42883).
  // Each period's ends in order; a NULL start takes the end's place; an interval end is added by the rewrite.
  [
    'overlaps(s1, e1, s2, e2)',
    `list_transform([[CASE WHEN s1 IS NULL THEN e1 WHEN e1 IS NULL THEN s1 ELSE least(s1, e1) END,
        CASE WHEN s1 IS NULL OR e1 IS NULL THEN NULL ELSE greatest(s1, e1) END,
        CASE WHEN s2 IS NULL THEN e2 WHEN e2 IS NULL THEN s2 ELSE least(s2, e2) END,
        CASE WHEN s2 IS NULL OR e2 IS NULL THEN NULL ELSE greatest(s2, e2) END]], lambda p:
      CASE WHEN p[1] IS NULL OR p[3] IS NULL THEN NULL
        WHEN p[1] > p[3] THEN CASE WHEN p[4] IS NULL THEN NULL WHEN p[1] < p[4] THEN true WHEN p[2] IS NULL THEN NULL ELSE false END
        WHEN p[1] < p[3] THEN CASE WHEN p[2] IS NULL THEN NULL WHEN p[3] < p[2] THEN true WHEN p[4] IS NULL THEN NULL ELSE false END
        ELSE CASE WHEN p[2] IS NULL OR p[4] IS NULL THEN NULL ELSE true END END)[1]`,
  ],
  // json_typeof/jsonb_typeof: PostgreSQL's words for DuckDB's JSON types (every number is `number`)
  ...['json_typeof(j)', 'jsonb_typeof(j)'].map((f): [string, string] => [
    f,
    "CASE json_type(j) WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' WHEN 'VARCHAR' THEN 'string' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' WHEN 'BIGINT' THEN 'number' WHEN 'UBIGINT' THEN 'number' WHEN 'HUGEINT' THEN 'number' WHEN 'DOUBLE' THEN 'number' END",
  ]),
  // justify_hours, justify_days, justify_interval: PostgreSQL 15's interval.c over the interval's three fields
  ...JUSTIFY,
  // width_bucket(op, b1, b2, n): buckets counted from b1 towards b2, either way (b1 > b2 counts down), as PostgreSQL's;
  // a count below 1, equal bounds, a NaN or an infinite bound are its 2201G
  [
    'width_bucket(op, lo, hi, n)',
    `CAST(CASE WHEN op IS NULL OR lo IS NULL OR hi IS NULL OR n IS NULL THEN NULL
      WHEN n <= 0 THEN error('count must be greater than zero')
      WHEN isnan(CAST(op AS DOUBLE)) OR isnan(CAST(lo AS DOUBLE)) OR isnan(CAST(hi AS DOUBLE)) THEN error('operand, lower bound, and upper bound cannot be NaN')
      WHEN isinf(CAST(lo AS DOUBLE)) OR isinf(CAST(hi AS DOUBLE)) THEN error('lower and upper bounds must be finite')
      WHEN lo = hi THEN error('lower bound cannot equal upper bound')
      WHEN lo < hi THEN CASE WHEN op < lo THEN 0 WHEN op >= hi THEN n + 1
        ELSE least(CAST(floor(CAST(op - lo AS DOUBLE) * n / CAST(hi - lo AS DOUBLE)) AS BIGINT), n - 1) + 1 END
      ELSE CASE WHEN op > lo THEN 0 WHEN op <= hi THEN n + 1
        ELSE least(CAST(floor(CAST(lo - op AS DOUBLE) * n / CAST(lo - hi AS DOUBLE)) AS BIGINT), n - 1) + 1 END END AS INTEGER)`,
  ],
  // jsonb_array_length: json_array_length's count, int4; of an object or a scalar PostgreSQL's 22023 (DuckDB answered 0)
  [
    'jsonb_array_length(j)',
    `CASE WHEN j IS NULL THEN NULL
      WHEN json_type(CAST(j AS JSON)) = 'ARRAY' THEN CAST(json_array_length(CAST(j AS JSON)) AS INTEGER)
      WHEN json_type(CAST(j AS JSON)) = 'OBJECT' THEN CAST(error('cannot get array length of a non-array') AS INTEGER)
      ELSE CAST(error('cannot get array length of a scalar') AS INTEGER) END`,
  ],
  // width_bucket(op, thresholds): PostgreSQL's binary search over ascending lower bounds is the count of
  // bounds ≤ op; an array out of order (PostgreSQL's answer is then its search's) is refused, a NULL bound 22004.
  [
    'width_bucket(op, thresholds)',
    `CASE WHEN op IS NULL OR thresholds IS NULL THEN NULL
      WHEN list_position(thresholds, NULL) IS NOT NULL THEN CAST(error('thresholds array must not contain NULLs') AS INTEGER)
      WHEN list_sort(thresholds) <> thresholds THEN CAST(${refusedAtRun(
        'width_bucket() of thresholds not in ascending order',
        "PostgreSQL's answer for such an array follows its binary search: sort the thresholds (array(select unnest(a) order by 1))",
      )} AS INTEGER)
      ELSE CAST(len(list_filter(thresholds, lambda fdl_pg_b: fdl_pg_b <= op)) AS INTEGER) END`,
  ],
  // date_bin(interval, timestamp[tz], timestamp[tz]): the stride and origin read as PostgreSQL reads untyped
  // ones (time_bucket's VARCHAR origin was ambiguous); PostgreSQL refuses strides with months (0A000).
  ...['TIMESTAMP', 'TIMESTAMP WITH TIME ZONE'].map((t): [string, string] => [
    `date_bin(stride, source ${t}, origin)`,
    `CASE WHEN datepart('month', CAST(stride AS INTERVAL)) <> 0 OR datepart('year', CAST(stride AS INTERVAL)) <> 0 THEN ${refusedAtRun(
      'binning timestamps into intervals containing months or years',
      "PostgreSQL refuses it as well: use date_trunc('month', ts) for calendar months",
    )} ELSE time_bucket(CAST(stride AS INTERVAL), source, CAST(origin AS ${t})) END`,
  ]),
  // the same of an aggregate's or a window's value (pg/rewrite-calls.ts): one overload
  [
    '_pgsem_date_bin_of(stride, source, origin)',
    `CASE WHEN datepart('month', CAST(stride AS INTERVAL)) <> 0 OR datepart('year', CAST(stride AS INTERVAL)) <> 0 THEN ${refusedAtRun(
      'binning timestamps into intervals containing months or years',
      "PostgreSQL refuses it as well: use date_trunc('month', ts) for calendar months",
    )} ELSE time_bucket(CAST(stride AS INTERVAL), source, CAST(origin AS TIMESTAMP)) END`,
  ],
  // Truncated in the given time zone, as PostgreSQL 12+ does (datetrunc: DuckDB's two-argument form under another name, which this macro does not shadow).
  ['date_trunc(unit, ts, tz)', 'timezone(tz, datetrunc(unit, timezone(tz, CAST(ts AS TIMESTAMPTZ))))'],
  ['pg_size_pretty(b)', sizePretty('CAST(b AS BIGINT)')],
  ['pg_typeof(x)', pgTypeOf('x')],
];

/**
 * PostgreSQL's result types where DuckDB's differ, chosen by the argument's DuckDB type: a macro's
 * typed parameter picks the overload at bind time (a tag argument, never evaluated: the body reads
 * only the untyped ones). The rewrite (pg-semantics.ts) calls them; each overload is checked against
 * PostgreSQL 15 by the corpus. Named `_pgsem_…`: not catalog emulation (rewrite.ts), repeatable
 * (analysis/determinism.ts).
 */
const INT_SMALL = ['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'];
const INT_BIG = ['BIGINT', 'UINTEGER', 'HUGEINT', 'UBIGINT', 'UHUGEINT'];
/**
 * An integer type's digits: its numeric is DECIMAL(digits, 0), not DECIMAL(38,0), whose common type with
 * any fraction DuckDB rounds to a whole number (`qty::numeric = any(array[7.5])` matched 7 and 8).
 */
const INT_DIGITS: Record<string, number> = {
  TINYINT: 3,
  UTINYINT: 3,
  SMALLINT: 5,
  USMALLINT: 5,
  INTEGER: 10,
  UINTEGER: 10,
  BIGINT: 19,
  UBIGINT: 20,
};
/** Every type an overload list must name: DuckDB prefers an implicit cast to any typed overload over the untyped one. */
const NUMERIC_TYPES = [...INT_SMALL, ...INT_BIG, 'DECIMAL', 'FLOAT', 'DOUBLE'];
/**
 * A refusal that depends on the value `x` and is typed DECIMAL: a body without `x` would drop the
 * caller's aggregate from the statement, and an untyped NULL would be folded away by the function
 * around it (`round(avg(f)::numeric, 2)` answered a NULL per row instead of refusing).
 */
const refusedFor = (x: string, refusal: string): string =>
  `CAST(CASE WHEN ${x} IS NULL THEN NULL ELSE ${refusal} END AS DECIMAL(38,0))`;

/**
 * PostgreSQL's 42883 for a call it has no function for (engine/duckdb-errors.ts; `hint` after a `|`), raised
 * where `x` is evaluated (typed: a NULL would be folded away with the call around it).
 */
const noSuchFunction = (call: string, x: string, hint?: string): string =>
  `CAST(CASE WHEN ${x} IS NULL OR true THEN error('function ${call} does not exist${hint ? `|${hint}` : ''}') END AS DOUBLE)`;
/** round(x, n) of a float: PostgreSQL has only round(numeric, integer), and no implicit cast of a float to numeric. */
const FLOAT_ROUND: ReadonlyArray<readonly [string, string]> = [
  ['FLOAT', 'real'],
  ['DOUBLE', 'double precision'],
];
const FLOAT_ROUND_HINT =
  'Round a numeric: round(x::numeric, n), as PostgreSQL has only round(numeric, integer) with places.';
const noFloatRound = (t: string, x: string): string =>
  noSuchFunction(`round(${FLOAT_ROUND.find(([d]) => d === t)![1]}, integer)`, x, FLOAT_ROUND_HINT);

const NOT_A_NUMBER = refusedFor(
  'x',
  refusedAtRun(
    'a cast to numeric without precision and scale of a value that is not a number',
    'Give precision and scale: CAST(x AS numeric(38, 6)).',
  ),
);
/** The body of `x::numeric` for x of type t: where it is shown, inside an expression, or a declared parameter. */
const numericCast =
  (where: 'shown' | 'in an expression' | 'parameter') =>
  (t: string): string =>
    t === 'DECIMAL'
      ? 'x'
      : t === 'FLOAT' || t === 'DOUBLE'
        ? where === 'shown'
          ? shownFloat(t)
          : where === 'in an expression'
            ? floatNumeric(t)
            : refusedFor(
                'x',
                refusedAtRun(
                  'a float parameter cast to numeric without precision and scale',
                  'Give the scale: CAST($1 AS numeric(38, 6)), or declare the parameter numeric.',
                ),
              )
        : `CAST(x AS DECIMAL(${INT_DIGITS[t] ?? 38},0))`;

const overloads = (
  name: string,
  params: (type: string) => string,
  body: (type: string) => string,
  types: readonly string[],
): Array<[string, string]> => types.map((t) => [`${name}(${params(t)})`, body(t)]);

const TYPED_MACROS: Array<[string, string]> = [
  // sum(int2/int4) is int8, sum(int8) numeric, sum(float4) float4 (DuckDB: HUGEINT, HUGEINT, DOUBLE).
  ...overloads(
    '_pgsem_sum',
    (t) => `t ${t}, s`,
    (t) =>
      INT_SMALL.includes(t)
        ? 'CAST(s AS BIGINT)'
        : INT_BIG.includes(t)
          ? 'CAST(s AS DECIMAL(38,0))'
          : t === 'FLOAT'
            ? 'CAST(s AS FLOAT)'
            : 's',
    NUMERIC_TYPES,
  ),
  ['_pgsem_sum(t, s)', 's'],
  // round(float8) rounds half to even (rint); round(numeric) half away from zero, as DuckDB's round.
  // An integer has no round of its own: PostgreSQL casts it to float8, its preferred numeric type (`round(qty)` is double precision).
  ...overloads(
    '_pgsem_round',
    (t) => `t ${t}, x`,
    (t) =>
      t === 'FLOAT' || t === 'DOUBLE'
        ? 'round_even(CAST(x AS DOUBLE), 0)'
        : t === 'DECIMAL'
          ? 'round(x)'
          : 'CAST(x AS DOUBLE)',
    NUMERIC_TYPES,
  ),
  ['_pgsem_round(t, x)', 'round(x)'],
  // round(integer or numeric, n) is numeric at scale n (`4.0000`, `13.730`); DuckDB kept the integer, or the smaller scale.
  // `z` is a zero of scale n (a typmod cannot be a macro parameter): the sum takes its scale.
  ...overloads(
    '_pgsem_roundn',
    (t) => `t ${t}, x, n, z`,
    (t) =>
      INT_SMALL.includes(t) || INT_BIG.includes(t)
        ? 'round(CAST(x AS DECIMAL(28,0)), n) + z'
        : t === 'DECIMAL'
          ? 'round(x, n) + z'
          : noFloatRound(t, 'x'),
    NUMERIC_TYPES,
  ),
  ['_pgsem_roundn(t, x, n, z)', 'round(x, n)'],
  // x::numeric keeps a numeric's scale (DuckDB's DECIMAL cast is DECIMAL(18,3)); an integer has scale 0; a
  // float is float8_numeric's decimal (pg-float-macros.ts), as an outermost select-list item at its own scale.
  ...overloads('_pgsem_numeric', (t) => `t ${t}, x`, numericCast('in an expression'), NUMERIC_TYPES),
  ['_pgsem_numeric(t, x)', NOT_A_NUMBER],
  ...overloads('_pgsem_shown_numeric', (t) => `t ${t}, x`, numericCast('shown'), NUMERIC_TYPES),
  ['_pgsem_shown_numeric(t, x)', NOT_A_NUMBER],
  // `$n::numeric` of a declared float8/float4 parameter (param-types.ts): still refused, its scale would be one per column.
  ...overloads('_pgsem_pnumeric', (t) => `t ${t}, x`, numericCast('parameter'), NUMERIC_TYPES),
  ['_pgsem_pnumeric(t, x)', NOT_A_NUMBER],
  // date - date is int4 in PostgreSQL (DuckDB: BIGINT); timestamptz - timestamptz the time elapsed, justified
  // to days of 24 hours (DuckDB counted calendar days in the session's zone: `1 day` across a DST change).
  ['_pgsem_minus(a DATE, b DATE, x, y)', 'CAST(x - y AS INTEGER)'],
  ['_pgsem_minus(a TIMESTAMP, b TIMESTAMP, x, y)', 'x - y'],
  [
    '_pgsem_minus(a TIMESTAMPTZ, b TIMESTAMPTZ, x, y)',
    "timezone('UTC', CAST(x AS TIMESTAMPTZ)) - timezone('UTC', CAST(y AS TIMESTAMPTZ))",
  ],
  // time - time is an interval in PostgreSQL (DuckDB has no such operator).
  ['_pgsem_minus(a TIME, b TIME, x, y)', "(DATE '2000-01-01' + x) - (DATE '2000-01-01' + y)"],
  // timestamp ± time: PostgreSQL casts the time to an interval (DuckDB has no such operator); date - time too.
  ...['DATE', 'TIMESTAMP', 'TIMESTAMPTZ'].map((t): [string, string] => [
    `_pgsem_minus(a ${t}, b TIME, x, y)`,
    'x - to_microseconds(epoch_us(y))',
  ]),
  ['_pgsem_minus(a, b, x, y)', 'x - y'],
  ...['TIMESTAMP', 'TIMESTAMPTZ'].flatMap((t): [string, string][] => [
    [`_pgsem_tplus(a ${t}, b TIME, x, y)`, 'x + to_microseconds(epoch_us(y))'],
    [`_pgsem_tplus(a TIME, b ${t}, x, y)`, 'to_microseconds(epoch_us(x)) + y'],
  ]),
  ['_pgsem_tplus(a, b, x, y)', 'x + y'],
  // A float4 written beside a number whose type the text does not say (float4-widening.ts): float8, as PostgreSQL's
  // float48 operators, unless that number is a float4 too.
  // (each number type its own overload: DuckDB's binder casts an INTEGER tag to a FLOAT parameter)
  ...overloads(
    '_pgsem_f4wide',
    (t) => `t ${t}, x`,
    (t) => (t === 'FLOAT' ? 'x' : 'CAST(x AS DOUBLE)'),
    NUMERIC_TYPES,
  ),
  ['_pgsem_f4wide(t, x)', 'CAST(x AS DOUBLE)'],
  // An untyped literal beside a date/time value is read as that value's type (typed-minus.ts literalLikeOther).
  ...['DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'TIME', 'INTERVAL'].map((t): [string, string] => [
    `_pgsem_likeof(a ${t}, s)`,
    `CAST(s AS ${t})`,
  ]),
  // Beside an integer, PostgreSQL's integer input: digits only (DuckDB's cast rounded '7.5' to 8), else 22P02.
  ...(
    [
      ['SMALLINT', 'smallint'],
      ['INTEGER', 'integer'],
      ['BIGINT', 'bigint'],
    ] as const
  ).map(([t, pg]): [string, string] => [
    `_pgsem_likeof(a ${t}, s)`,
    `CASE WHEN s IS NULL OR regexp_full_match(s, '\\s*[+-]?[0-9]+\\s*') THEN CAST(trim(s) AS ${t}) ELSE error('invalid input syntax for type ${pg}: "' || s || '"') END`,
  ]),
  ...['VARCHAR', 'BOOLEAN', 'TINYINT', 'HUGEINT', 'DECIMAL', 'FLOAT', 'DOUBLE'].map((t): [string, string] => [
    `_pgsem_likeof(a ${t}, s)`,
    's',
  ]),
  ['_pgsem_likeof(a, s)', 's'],
  // A timestamptz literal DuckDB's reader cannot read, beside a timestamptz: respelled `r` (typed-minus.ts zonedLiteralBeside).
  ['_pgsem_tzlit(a TIMESTAMPTZ, s, r)', 'CAST(r AS TIMESTAMPTZ)'],
  // beside a timestamp the zone is ignored, as PostgreSQL's timestamp input ignores it
  [
    '_pgsem_tzlit(a TIMESTAMP, s, r)',
    "CAST(regexp_extract(r, '^\\s*\\d{4}-\\d\\d?-\\d\\d?[ T]\\d\\d?:\\d\\d:\\d\\d(\\.\\d+)?') AS TIMESTAMP)",
  ],
  // (each type DuckDB would otherwise cast to TIMESTAMPTZ named: PostgreSQL reads the literal as theirs)
  ...['DATE', 'VARCHAR'].map((t): [string, string] => [`_pgsem_tzlit(a ${t}, s, r)`, 's']),
  ['_pgsem_tzlit(a, s, r)', 's'],
  // timestamptz::time is the time of day in the session's zone (DuckDB has no such cast).
  ['_pgsem_time(t TIMESTAMP WITH TIME ZONE, x)', 'CAST(CAST(x AS TIMESTAMP) AS TIME)'],
  ['_pgsem_time(t, x)', 'CAST(x AS TIME)'],
  // A text value read as a timestamp or timestamptz (rewrite-casts.ts textDateTime): respelled as DuckDB's reader
  // wants it where PostgreSQL's reads it — seconds after `HH:MM` (`'2024-01-01 00:00+03'`), a one-digit offset
  // (`+3`), a space before the offset — and cast by DuckDB (22007 for what neither reads).
  [
    '_pgsem_tstext(s)',
    "regexp_replace(regexp_replace(regexp_replace(s, '^(\\s*\\d{4}-\\d\\d?-\\d\\d?[ T]\\d\\d?:\\d\\d)([^:\\d]|$)', '\\1:00\\2'), '(\\d:\\d\\d(?:\\.\\d+)?)\\s*([+-])(\\d)(\\D|$)', '\\1\\20\\3\\4'), '(\\d:\\d\\d(?:\\.\\d+)?)\\s+([+-]\\d)', '\\1\\2')",
  ],
  // string_to_array(s, delimiter, null_string): the fields equal to null_string are NULL (DuckDB has two arguments only).
  [
    '_pgsem_string_to_array(s, d, n)',
    'list_transform(string_to_array(s, d), fdl_pg_e -> CASE WHEN fdl_pg_e = n THEN NULL ELSE fdl_pg_e END)',
  ],
];

/** A double's value at 15 significant digits and at most 16 places, in units of 10^-16 (HUGEINT). */
const digits15Units = (q: string): string => {
  const places = `least(16, 14 - floor(log10(abs(${q}))))`;
  return `CASE WHEN ${places} >= 0
      THEN CAST(trunc(${q}) AS HUGEINT) * 10000000000000000
        + CAST(round((${q} - trunc(${q})) * power(10, ${places})) AS HUGEINT) * CAST(power(10, 16 - ${places}) AS HUGEINT)
      ELSE CAST(round(${q} / power(10, -${places})) AS HUGEINT) * CAST(power(10, -${places}) AS HUGEINT) * 10000000000000000 END`;
};
/**
 * PostgreSQL's numeric division (numeric_div, also avg's): the quotient rounded half away from zero
 * at select_div_scale's scale — 16 significant digits from the operands' leading base-10000 digits,
 * at least either operand's scale — computed exactly in HUGEINT (DuckDB divides DECIMALs as DOUBLE).
 * The column is DECIMAL(38,20): the value is PostgreSQL's, trailing zeros pad it to 20 decimals
 * (docs/compatibility.md); a scale above 20 is rounded at 20.
 */
const NUMERIC_DIVISION: Array<[string, string]> = [
  // A quotient exact in 15 significant digits (all a double holds) is exact: Grafana's
  // `floor(extract(epoch from t) / 60) * 60`, a half cent. A direct cast scales the double by 10^16 and
  // loses the last bits (1705770240 / 60 gave 28429503.99999999874…); the quotient's text cast to
  // DECIMAL(38,16) costs ~7 µs a value. The integer part and the rounded fraction are cast apart, as
  // integers; `q` is bound once (a lambda), so nested divisions do not multiply the bind.
  [
    '_pgsem_digits15(q)',
    `list_transform([q], fdl_pg_q ->
      CASE WHEN fdl_pg_q = 0 OR NOT isfinite(fdl_pg_q) THEN CAST(fdl_pg_q AS DECIMAL(38,16))
      ELSE CAST(CAST(${digits15Units('fdl_pg_q')} AS DECIMAL(38,0)) * CAST(0.0000000000000001 AS DECIMAL(17,16)) AS DECIMAL(38,16)) END)[1]`,
  ],
  // 10^n as HUGEINT (n ≤ 38; past that the cast overflows as before). The built-ins are called as
  // system.main's: a digit count this small needs no session guard, and the guards' macros, pasted into
  // every use (eight in each exact division), made a plain avg() cost seconds of DuckDB's binder.
  ['_pgsem_p10(n)', `CAST(system.main."||"('1', system.main.repeat('0', least(CAST(n AS INTEGER), 39))) AS HUGEINT)`],
  [
    '_pgsem_scale(x)',
    `CASE WHEN starts_with(typeof(x), 'DECIMAL(') THEN CAST(regexp_extract(typeof(x), ',(\\d+)\\)', 1) AS INTEGER) ELSE 0 END`,
  ],
  ['_pgsem_unscaled(x)', `CAST(system.main.replace(CAST(x AS VARCHAR), '.', '') AS HUGEINT)`],
  // The weight of X·10^-s's leading base-10000 digit, and that digit (0 for zero, as PostgreSQL).
  [
    '_pgsem_weight(x, s)',
    `CASE WHEN x = 0 THEN 0 ELSE CAST(floor((length(CAST(abs(x) AS VARCHAR)) - 1 - s) / 4.0) AS INTEGER) END`,
  ],
  [
    '_pgsem_first(x, s, w)',
    `CASE WHEN x = 0 THEN 0 WHEN s + 4 * w >= 0 THEN abs(x) // _pgsem_p10(s + 4 * w) ELSE abs(x) * _pgsem_p10(-(s + 4 * w)) END`,
  ],
  // The trailing zeros of unscaled x within its scale s: divided out before the quotient's digits are
  // computed (same value), so a DECIMAL(38,20) operand (avg inside an expression) does not overflow HUGEINT.
  [
    '_pgsem_zeros(x, s)',
    `CASE WHEN x = 0 THEN s ELSE least(length(CAST(abs(x) AS VARCHAR)) - length(rtrim(CAST(abs(x) AS VARCHAR), '0')), s) END`,
  ],
  // n / d rounded half away from zero: the digits of the quotient at scale r (n = |x|·10^(sy+r), d = |y|·10^sx).
  ['_pgsem_qdigits(n, d)', `CAST(n // d + CASE WHEN 2 * (n % d) >= d THEN 1 ELSE 0 END AS VARCHAR)`],
  // Digits q at scale r, signed, as text; read as DECIMAL(38,20) (DuckDB reads no long mantissa with an exponent).
  [
    '_pgsem_ntext(neg, q, r)',
    `system.main."||"(CASE WHEN neg THEN '-' ELSE '' END, CASE WHEN r = 0 THEN q WHEN length(q) > r THEN system.main.concat(left(q, length(q) - r), '.', right(q, r)) ELSE system.main."||"('0.', lpad(q, r, '0')) END)`,
  ],
  ['_pgsem_decimal(neg, q, r)', 'CAST(_pgsem_ntext(neg, q, r) AS DECIMAL(38,20))'],
  // Integer operands (avg of integers, `sum(x) / count(*)`): both scales are 0, so PostgreSQL's scale needs
  // only each operand's digit count and leading base-10000 digit, read from its text, and one lambda binds
  // the operands and the scale once. The general form below (three nested lambdas) cost DuckDB 6–17 ms to
  // prepare and 9–37 ms to run for one avg over 50 rows; this one 3.5 ms and 2–4 ms, the same digits.
  ['_pgsem_iweight(x)', 'CASE WHEN x = 0 THEN 0 ELSE (length(CAST(abs(x) AS VARCHAR)) - 1) // 4 END'],
  [
    '_pgsem_ifirst(x)',
    'CASE WHEN x = 0 THEN 0 ELSE CAST(left(CAST(abs(x) AS VARCHAR), CAST((length(CAST(abs(x) AS VARCHAR)) - 1) % 4 + 1 AS INTEGER)) AS INTEGER) END',
  ],
  [
    '_pgsem_iscale(x, y)',
    'CAST(least(greatest(16 - 4 * (_pgsem_iweight(x) - _pgsem_iweight(y) - CASE WHEN _pgsem_ifirst(x) <= _pgsem_ifirst(y) THEN 1 ELSE 0 END), 0), 20) AS INTEGER)',
  ],
  [
    '_pgsem_indiv(a, b)',
    `list_transform([{'a': CAST(a AS HUGEINT), 'b': CAST(b AS HUGEINT), 'r': _pgsem_iscale(a, b)}], fdl_pg_q ->
      _pgsem_decimal(sign(fdl_pg_q['a']) * sign(fdl_pg_q['b']) < 0, _pgsem_qdigits(abs(fdl_pg_q['a']) * _pgsem_p10(fdl_pg_q['r']), abs(fdl_pg_q['b'])), fdl_pg_q['r']))[1]`,
  ],
  // Each step binds its values once (a lambda over a one-element list): nested macros would paste the
  // operands into the expression many times over. Lambda names are prefixed: a caller's table alias `v`
  // would otherwise bind `v.x` to its column, outside the aggregate (42803 on `FROM (VALUES …) v(x)`).
  // Fields are read as `fdl_pg_v['x']`: in HAVING, DuckDB's binder takes `fdl_pg_v.x` for a column of the table.
  ['_pgsem_ndiv(a, b)', exactQuotient('least(SCALE, 20)', '_pgsem_decimal')],
  // The quotient's text at PostgreSQL's own scale (inside JSON, where the text is the value); a scale over
  // 20 (a quotient under 0.0001) is refused rather than computed past HUGEINT's digits.
  [
    '_pgsem_ndivtext(a, b)',
    exactQuotient(
      `CASE WHEN SCALE > 20 THEN CAST(${refusedAtRun('a numeric quotient under 0.0001 inside JSON', 'Round it first: round(avg(x), 10).')} AS INTEGER) ELSE SCALE END`,
      '_pgsem_ntext',
    ),
  ],
];

/**
 * a / b exactly (numeric.c div_var, rounded half away from zero) at select_div_scale's scale: `scale` is
 * the expression of the scale used, SCALE standing for PostgreSQL's; `finish(neg, digits, r)` writes the result.
 */
function exactQuotient(scale: string, finish: string): string {
  const pgScale = `greatest(16 - 4 * (fdl_pg_w['wx'] - fdl_pg_w['wy'] - CASE WHEN _pgsem_first(fdl_pg_w['x'], fdl_pg_w['sx'], fdl_pg_w['wx']) <= _pgsem_first(fdl_pg_w['y'], fdl_pg_w['sy'], fdl_pg_w['wy']) THEN 1 ELSE 0 END), fdl_pg_w['sx'], fdl_pg_w['sy'], 0)`;
  return `list_transform([{'x': _pgsem_unscaled(a), 'sx': _pgsem_scale(a), 'y': _pgsem_unscaled(b), 'sy': _pgsem_scale(b)}], fdl_pg_v ->
    list_transform([{'x': fdl_pg_v['x'], 'sx': fdl_pg_v['sx'], 'y': fdl_pg_v['y'], 'sy': fdl_pg_v['sy'], 'wx': _pgsem_weight(fdl_pg_v['x'], fdl_pg_v['sx']), 'wy': _pgsem_weight(fdl_pg_v['y'], fdl_pg_v['sy']), 'kx': _pgsem_zeros(fdl_pg_v['x'], fdl_pg_v['sx']), 'ky': _pgsem_zeros(fdl_pg_v['y'], fdl_pg_v['sy'])}], fdl_pg_w ->
      list_transform([{'x': fdl_pg_w['x'], 'sx': fdl_pg_w['sx'], 'y': fdl_pg_w['y'], 'sy': fdl_pg_w['sy'], 'kx': fdl_pg_w['kx'], 'ky': fdl_pg_w['ky'], 'r': ${scale.replaceAll('SCALE', pgScale)}}], fdl_pg_z ->
        ${finish}(sign(fdl_pg_z['x']) * sign(fdl_pg_z['y']) < 0, _pgsem_qdigits(abs(fdl_pg_z['x']) // _pgsem_p10(fdl_pg_z['kx']) * _pgsem_p10(fdl_pg_z['sy'] - fdl_pg_z['ky'] + fdl_pg_z['r']), abs(fdl_pg_z['y']) // _pgsem_p10(fdl_pg_z['ky']) * _pgsem_p10(fdl_pg_z['sx'] - fdl_pg_z['kx'])), fdl_pg_z['r']))[1])[1])[1]`;
}
const NUMERIC_LIKE = ['DECIMAL', 'HUGEINT', 'UBIGINT', 'UHUGEINT'];
const INTEGER_LIKE = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER'];
const FLOAT_TYPES = ['FLOAT', 'DOUBLE'];
const DIVISION_TYPES = [...NUMERIC_LIKE, ...INTEGER_LIKE, ...FLOAT_TYPES];
/** Whether `a / b` of these operand types is numeric division: one is numeric and neither a float. */
const numericDivision = (ta: string, tb: string): boolean =>
  (NUMERIC_LIKE.includes(ta) || NUMERIC_LIKE.includes(tb)) &&
  ta !== 'FLOAT' &&
  ta !== 'DOUBLE' &&
  tb !== 'FLOAT' &&
  tb !== 'DOUBLE';
/** Operand types whose values are integers (scale 0): their exact quotient takes the integer form. */
const INTEGER_VALUED = [...INTEGER_LIKE, 'HUGEINT', 'UBIGINT', 'UHUGEINT'];
/** The exact quotient macro for these operand types: the integer form where both are integers. */
const exactDiv = (ta: string, tb: string, a: string, b: string): string =>
  INTEGER_VALUED.includes(ta) && INTEGER_VALUED.includes(tb) ? `_pgsem_indiv(${a}, ${b})` : `_pgsem_ndiv(${a}, ${b})`;
/**
 * `a / b` by the operands' types: numeric when one is numeric and neither a float; DuckDB's otherwise.
 * `_pgsem_div` divides exactly (over aggregates: once a group), `_pgsem_rdiv` per row through double
 * precision, kept at the 15 significant digits a double holds (`_pgsem_digits15`): exact division per
 * row costs too much in DuckDB's binder.
 */
const DIVISION: Array<[string, string]> = (['div', 'rdiv'] as const).flatMap((fn): Array<[string, string]> => {
  const numeric = (ta: string, tb: string) =>
    fn === 'div' ? exactDiv(ta, tb, 'a', 'b') : '_pgsem_digits15(CAST(a AS DOUBLE) / CAST(b AS DOUBLE))';
  return [
    ...DIVISION_TYPES.flatMap((ta) =>
      DIVISION_TYPES.map((tb): [string, string] => [
        `_pgsem_${fn}(ta ${ta}, tb ${tb}, a, b)`,
        numericDivision(ta, tb)
          ? numeric(ta, tb)
          : FLOAT_TYPES.includes(ta) || FLOAT_TYPES.includes(tb)
            ? checkedArithmetic('/', 'a', 'b')
            : 'a / b',
      ]),
    ),
    ...INTERVAL_DIVISION(`_pgsem_${fn}`),
    [`_pgsem_${fn}(ta, tb, a, b)`, 'a / b'],
    // The division's type from its operands' tags, for a tag of it (pg-result-types.ts, tagOf); no body
    // reads its tags (a body that did would be bound twice a level, as above).
    ...DIVISION_TYPES.flatMap((ta) =>
      DIVISION_TYPES.map((tb): [string, string] => [
        `_pgsem_${fn}type(ta ${ta}, tb ${tb})`,
        numericDivision(ta, tb)
          ? `CAST(1 AS DECIMAL(38,${fn === 'div' ? 20 : 16}))`
          : `CAST(1 AS ${ta}) / CAST(1 AS ${tb})`,
      ]),
    ),
    ...INTERVAL_TYPE_DIVISION(`_pgsem_${fn}type`),
    [`_pgsem_${fn}type(ta, tb)`, 'ta / tb'],
  ];
});
/** Types PostgreSQL has no avg or percentile_cont of, as it names them. */
const DATETIME_TYPES: ReadonlyArray<readonly [string, string]> = [
  ['DATE', 'date'],
  ['TIMESTAMP', 'timestamp without time zone'],
  ['TIMESTAMP WITH TIME ZONE', 'timestamp with time zone'],
  ['TIME', 'time without time zone'],
];
/** PostgreSQL's hint of a call no function matches (parse_func.c). */
const NO_MATCHING_FUNCTION =
  'No function matches the given name and argument types. You might need to add explicit type casts.';
/**
 * One percentile of the ordered values `l` (NULLs among them skipped) at fraction `f`, interpolated as
 * PostgreSQL's percentile_cont_final_common; out of [0, 1] its 22003 (the fraction shown as its `%g`). `t` DOUBLE or INTERVAL (interval_mul: `_pgsem_imul`).
 */
const percentileLerp = (t: 'DOUBLE' | 'INTERVAL', l: string, f: string): string => {
  const at = (i: string) => `fdl_pg_q.l[CAST(${i}(fdl_pg_q.p) AS BIGINT) + 1]`;
  const share = '(fdl_pg_q.p - floor(fdl_pg_q.p))';
  const lerp =
    t === 'DOUBLE'
      ? `${at('floor')} + (${at('ceil')} - ${at('floor')}) * ${share}`
      : `_pgsem_imul(${at('ceil')} - ${at('floor')}, ${share}) + ${at('floor')}`;
  return `CASE WHEN ${f} < 0 OR ${f} > 1 THEN error('percentile value ' || printf('%g', CAST(${f} AS DOUBLE)) || ' is not between 0 and 1')
      ELSE list_transform([{'l': list_filter(${l}, lambda fdl_pg_v: fdl_pg_v IS NOT NULL), 'f': CAST(${f} AS DOUBLE)}], lambda fdl_pg_s:
        list_transform([{'l': fdl_pg_s.l, 'p': fdl_pg_s.f * (len(fdl_pg_s.l) - 1)}], lambda fdl_pg_q:
          CASE WHEN len(fdl_pg_q.l) = 0 THEN NULL
            WHEN ceil(fdl_pg_q.p) = floor(fdl_pg_q.p) THEN ${at('floor')}
            ELSE ${lerp} END)[1])[1] END`;
};
/** avg of integers and numerics is numeric (sum / count by numeric division); of floats and intervals DuckDB's. */
const AVG: Array<[string, string]> = [
  ...[...NUMERIC_LIKE, ...INTEGER_LIKE].map((t): [string, string] => [
    `_pgsem_avg(t ${t}, a, s, n)`,
    `CASE WHEN n = 0 THEN NULL ELSE ${INTEGER_LIKE.includes(t) ? '_pgsem_indiv(s, n)' : '_pgsem_ndiv(s, n)'} END`,
  ]),
  ...['FLOAT', 'DOUBLE'].map((t): [string, string] => [`_pgsem_avg(t ${t}, a, s, n)`, 'a']),
  ...DATETIME_TYPES.map(([t, pg]): [string, string] => [
    `_pgsem_avg(t ${t}, a, s, n)`,
    noSuchFunction(`avg(${pg})`, 'a'),
  ]),
  ['_pgsem_avg(t, a, s, n)', 'a'],
  // percentile_cont orders float8 or interval values (orderedsetaggs.c): numbers as double precision, a time as
  // the interval PostgreSQL casts it to implicitly; of any other type PostgreSQL's 42883, naming the fraction's
  // type `f` as it does (`percentile_cont(numeric, date)`), never DuckDB's quantile_cont.
  ...[...NUMERIC_LIKE, ...INTEGER_LIKE, 'FLOAT', 'DOUBLE'].map((t): [string, string] => [
    `_pgsem_pctarg(t ${t}, x, f)`,
    'CAST(x AS DOUBLE)',
  ]),
  ['_pgsem_pctarg(t INTERVAL, x, f)', 'x'],
  ['_pgsem_pctarg(t TIME, x, f)', 'to_microseconds(epoch_us(x))'],
  [
    '_pgsem_pctarg(t, x, f)',
    `CAST(CASE WHEN x IS NULL OR true THEN error('function percentile_cont(' || ${pgTypeOf('f')} || ', ' || ${pgTypeOf('x')} || ') does not exist|${NO_MATCHING_FUNCTION}') END AS DOUBLE)`,
  ],
  // percentile_cont as PostgreSQL interpolates (orderedsetaggs.c: lo + (hi - lo) * p at the rows floor and ceil
  // of f·(n−1); float8_lerp, or interval_lerp with interval_mi, interval_mul, interval_pl field by field);
  // DuckDB's own interpolation differed in the last digit, and it has none of intervals. `fs` a list of
  // fractions: a list of answers, a NULL fraction's NULL.
  ...(['DOUBLE', 'INTERVAL'] as const).flatMap((t): Array<[string, string]> => [
    [`_pgsem_pctcont(t ${t}, l, f)`, percentileLerp(t, 'l', 'f')],
    [
      `_pgsem_pctconts(t ${t}, l, fs)`,
      `CASE WHEN fs IS NULL THEN NULL ELSE list_transform(fs, lambda fdl_pg_f: CASE WHEN fdl_pg_f IS NULL THEN NULL ELSE ${percentileLerp(t, 'l', 'fdl_pg_f')} END) END`,
    ],
  ]),
];
/**
 * Outermost select-list items PostgreSQL shows at a scale per value (pg-shown-calls.ts): of integers
 * and numerics a struct of exact parts the wire computes and sends as numeric (pg/shown-numeric.ts),
 * its first field the sort key; of floats DuckDB's own answer (`orig`).
 */
const shown = (key: string, of: string, n: string, x: string, x2: string): string =>
  `{'fdl_pg_numeric': ${key}, 'fdl_pg_of': ${of}, 'fdl_pg_n': ${n}, 'fdl_pg_x': ${x}, 'fdl_pg_x2': ${x2}}`;
const EXACT_TYPES = [...NUMERIC_LIKE, ...INTEGER_LIKE];
const SHOWN: Array<[string, string]> = [
  // sum(x::numeric) of a float: PostgreSQL's sum of numerics is shown at the largest scale among them
  // (each float8_numeric's own), where DuckDB's DECIMAL(38,16) sum printed 16 decimals; `n` is that largest
  // scale (`_pgsem_fscale` of each value, the rewrite's max() with the call's FILTER and OVER).
  // (every numeric type spelled: DuckDB would cast an integer or a DECIMAL to a DOUBLE overload)
  ...overloads(
    '_pgsem_shown_fsum',
    (t) => `t ${t}, orig, n`,
    (t) =>
      t === 'DOUBLE' || t === 'FLOAT'
        ? // (the sum named once, inside a one-element list: each mention of a macro's argument is bound anew)
          `list_transform([{'s': orig, 'n': n}], lambda fdl_pg_v: CASE WHEN fdl_pg_v['s'] IS NULL THEN NULL ELSE ${shown("CAST(fdl_pg_v['s'] AS DOUBLE)", "'scaled'", "fdl_pg_v['n']", "fdl_pg_v['s']", 'NULL')} END)[1]`
        : 'orig',
    NUMERIC_TYPES,
  ),
  ['_pgsem_shown_fsum(t, orig, n)', 'orig'],
  // a float's numeric's own scale: the decimals of its `%.15g` (float4 `%.6g`) text, which has no trailing zeros
  ...overloads(
    '_pgsem_fscale',
    (t) => `t ${t}, x`,
    (t) =>
      t === 'DOUBLE' || t === 'FLOAT'
        ? `list_transform([regexp_extract(${t === 'DOUBLE' ? "printf('%.15g', x)" : "printf('%.6g', CAST(x AS DOUBLE))"}, '^-?\\d*(?:\\.(\\d*))?(?:e([+-]\\d+))?$', ['f', 'e'])], lambda fdl_pg_m: greatest(0, length(fdl_pg_m['f']) - coalesce(TRY_CAST(fdl_pg_m['e'] AS INTEGER), 0)))[1]`
        : 'CAST(NULL AS INTEGER)',
    NUMERIC_TYPES,
  ),
  ['_pgsem_fscale(t, x)', 'CAST(NULL AS INTEGER)'],
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_shown_avg(t ${t}, orig, n, sx)`,
    `CASE WHEN n = 0 THEN NULL ELSE ${shown(INTEGER_LIKE.includes(t) ? '_pgsem_indiv(sx, n)' : '_pgsem_ndiv(sx, n)', "'avg'", 'n', 'sx', 'NULL')} END`,
  ]),
  ...DATETIME_TYPES.map(([t, pg]): [string, string] => [
    `_pgsem_shown_avg(t ${t}, orig, n, sx)`,
    noSuchFunction(`avg(${pg})`, 'orig'),
  ]),
  ['_pgsem_shown_avg(t, orig, n, sx)', 'orig'],
  // Over a window, per row: ordered by DuckDB's double avg (exact division per row costs too much); and
  // where no ORDER BY or DISTINCT of its SELECT compares the struct, keyed the same (the key goes unread).
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_shown_wavg(t ${t}, orig, n, sx)`,
    `CASE WHEN n = 0 THEN NULL ELSE ${shown('orig', "'avg'", 'n', 'sx', 'NULL')} END`,
  ]),
  ...DATETIME_TYPES.map(([t, pg]): [string, string] => [
    `_pgsem_shown_wavg(t ${t}, orig, n, sx)`,
    noSuchFunction(`avg(${pg})`, 'orig'),
  ]),
  ['_pgsem_shown_wavg(t, orig, n, sx)', 'orig'],
  // a / b over aggregates (`sum(x) / count(*)`), numeric when `_pgsem_div` would divide as numeric; keyed
  // by the exact quotient (`shown_div`) only where an ORDER BY or DISTINCT of its SELECT compares the struct.
  ...(['shown_div', 'shown_udiv'] as const).flatMap((fn): Array<[string, string]> => [
    ...DIVISION_TYPES.flatMap((ta) =>
      DIVISION_TYPES.map((tb): [string, string] => [
        `_pgsem_${fn}(ta ${ta}, tb ${tb}, a, b)`,
        numericDivision(ta, tb)
          ? `CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE ${shown(fn === 'shown_div' ? exactDiv(ta, tb, 'a', 'b') : 'CAST(NULL AS DOUBLE)', "'div'", 'NULL', 'a', 'b')} END`
          : 'a / b',
      ]),
    ),
    ...INTERVAL_DIVISION(`_pgsem_${fn}`),
    [`_pgsem_${fn}(ta, tb, a, b)`, 'a / b'],
  ]),
  // avg(x) / b and b / avg(x): PostgreSQL divides avg's own numeric (its scale per value), so the wire
  // takes n and Σx and divides twice; the key orders by Σx / (n·b) (b·n / Σx), the same quotient exactly
  // (avg's DECIMAL(38,20) times 10^20 would pass HUGEINT).
  ...EXACT_TYPES.flatMap((t) =>
    DIVISION_TYPES.flatMap((tb): Array<[string, string]> => {
      const exact = numericDivision('DECIMAL', tb);
      const parts = (kind: string, key: string) =>
        exact ? `CASE WHEN n = 0 OR b IS NULL THEN NULL ELSE ${shown(key, `'${kind}'`, 'n', 'sx', 'b')} END` : '';
      return [
        [
          `_pgsem_shown_avgdiv(t ${t}, tb ${tb}, a, n, sx, b)`,
          exact ? parts('avgdiv', '_pgsem_ndiv(sx, n * b)') : 'a / b',
        ],
        [
          `_pgsem_shown_divavg(t ${t}, tb ${tb}, a, n, sx, b)`,
          exact ? parts('divavg', '_pgsem_ndiv(b * n, sx)') : 'b / a',
        ],
      ];
    }),
  ),
  ['_pgsem_shown_avgdiv(t, tb, a, n, sx, b)', 'a / b'],
  ['_pgsem_shown_divavg(t, tb, a, n, sx, b)', 'b / a'],
  // avg(x) * b, avg(x) + b, avg(x) - b, b - avg(x) (b an integer or a numeric): PostgreSQL computes on avg's
  // own numeric (its scale per value, `4.0000000000000000` * 3 = `12.0000000000000000`), so the wire takes n
  // and Σx beside b; the key is DuckDB's value at avg's one scale (what the item answered before).
  ...(
    [
      ['avgmul', 'a * b'],
      ['avgadd', 'a + b'],
      ['avgsub', 'a - b'],
      ['subavg', 'b - a'],
    ] as const
  ).flatMap(([kind, plain]): Array<[string, string]> => [
    ...EXACT_TYPES.flatMap((t) =>
      EXACT_TYPES.map((tb): [string, string] => [
        `_pgsem_shown_${kind}(t ${t}, tb ${tb}, a, n, sx, b)`,
        `CASE WHEN n = 0 OR b IS NULL THEN NULL ELSE ${shown(plain, `'${kind}'`, 'n', 'sx', 'b')} END`,
      ]),
    ),
    [`_pgsem_shown_${kind}(t, tb, a, n, sx, b)`, plain],
  ]),
  // Σx² exactly: integers squared in HUGEINT, numerics at twice their scale.
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_square(t ${t}, x)`,
    t === 'DECIMAL' ? 'x * x' : 'CAST(x AS HUGEINT) * CAST(x AS HUGEINT)',
  ]),
  ['_pgsem_square(t, x)', 'x * x'],
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_shown_var(t ${t}, orig, kind, n, sx, sx2)`,
    `CASE WHEN n = 0 OR (n = 1 AND kind LIKE '%samp') THEN NULL ELSE ${shown('orig', 'kind', 'n', 'sx', 'sx2')} END`,
  ]),
  ['_pgsem_shown_var(t, orig, kind, n, sx, sx2)', 'orig'],
  // round(x, n): the key is x rounded half away from zero at n, unscaled at x's own scale (one per column).
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_shown_round(t ${t}, x, n)`,
    `CASE WHEN x IS NULL OR n IS NULL THEN NULL ELSE list_transform([{'u': ${t === 'DECIMAL' ? '_pgsem_unscaled(x)' : 'CAST(x AS HUGEINT)'}, 'f': _pgsem_p10(least(greatest(${t === 'DECIMAL' ? '_pgsem_scale(x)' : '0'} - n, 0), 38))}], fdl_pg_r ->
      ${shown('sign(fdl_pg_r.u) * ((abs(fdl_pg_r.u) + fdl_pg_r.f // 2) // fdl_pg_r.f) * fdl_pg_r.f', "'round'", 'CAST(n AS BIGINT)', t === 'DECIMAL' ? 'x' : 'CAST(x AS DECIMAL(38,0))', 'NULL')})[1] END`,
  ]),
  ...FLOAT_ROUND.map(([t]): [string, string] => [`_pgsem_shown_round(t ${t}, x, n)`, noFloatRound(t, 'x')]),
  ['_pgsem_shown_round(t, x, n)', 'round(x, n)'],
  // a numeric constant among others of other scales in ARRAY[…], at its own scale (numeric-arrays.ts)
  ['_pgsem_shown_const(x, n)', shown('x', "'round'", 'n', 'x', 'NULL')],
  // CASE, COALESCE, GREATEST, LEAST shown at the scale of the value chosen (pg-shown-calls.ts shownChoice).
  ['_pgsem_shown_scaled(t DECIMAL, x, n)', '_pgsem_shown_round(t, x, n)'],
  // (every other number named, so DuckDB's binder does not pick DECIMAL for an integer or a float)
  ...[...INTEGER_LIKE, 'HUGEINT', 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE'].map((t): [string, string] => [
    `_pgsem_shown_scaled(t ${t}, x, n)`,
    'x',
  ]),
  ['_pgsem_shown_scaled(t, x, n)', 'x'],
  // Inside an expression the scale n cannot travel with the value: refused, not shown at x's scale.
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_roundv(t ${t}, x, n)`,
    refusedFor(
      'x',
      refusedAtRun(
        'round(numeric, n) with n not a constant inside an expression',
        'PostgreSQL shows each value at its own scale n: write n as a constant, or select round(x, n) as its own select-list item.',
      ),
    ),
  ]),
  ...FLOAT_ROUND.map(([t]): [string, string] => [`_pgsem_roundv(t ${t}, x, n)`, noFloatRound(t, 'x')]),
  ['_pgsem_roundv(t, x, n)', 'round(x, n)'],
  // trunc(x, n) of a float: PostgreSQL has only trunc(numeric, integer) with places (42883); DuckDB truncated the double.
  ...FLOAT_ROUND.map(([t, name]): [string, string] => [
    `_pgsem_truncn(t ${t}, x, n)`,
    noSuchFunction(
      `trunc(${name}, integer)`,
      'x',
      'Truncate a numeric: trunc(x::numeric, n), as PostgreSQL has only trunc(numeric, integer) with places.',
    ),
  ]),
  ...[...INTEGER_LIKE, 'DECIMAL', 'HUGEINT', 'UBIGINT', 'UHUGEINT'].map((t): [string, string] => [
    `_pgsem_truncn(t ${t}, x, n)`,
    'trunc(x, n)',
  ]),
  ['_pgsem_truncn(t, x, n)', 'trunc(x, n)'],
];
/** sign() is float8 of integers and floats, numeric (scale 0) of numerics; gcd/lcm of int2/int4 are int4. */
const SIGN_AND_GCD: Array<[string, string]> = [
  ...EXACT_TYPES.map((t): [string, string] => [
    `_pgsem_sign(t ${t}, x)`,
    NUMERIC_LIKE.includes(t) ? 'CAST(sign(x) AS DECIMAL(38,0))' : 'CAST(sign(x) AS DOUBLE)',
  ]),
  ...['FLOAT', 'DOUBLE'].map((t): [string, string] => [`_pgsem_sign(t ${t}, x)`, 'CAST(sign(x) AS DOUBLE)']),
  ['_pgsem_sign(t, x)', 'sign(x)'],
  ...NUMERIC_TYPES.map((t): [string, string] => [
    `_pgsem_int4(t ${t}, x)`,
    INT_SMALL.includes(t) ? 'CAST(x AS INTEGER)' : 'x',
  ]),
  ['_pgsem_int4(t, x)', 'x'],
];
/**
 * Typed macros that nest in arithmetic (`a / b / c`, `round(round(x, 2) * 1.1, 2)`), by how many of
 * their values (after the tags) may be bound once. DuckDB binds the arguments of a macro with typed
 * parameters once to choose the overload and again in the body, so a nested call bound 2^n copies
 * (nine divisions, 40 characters: 20 s, uninterruptible). Where a call holds another (pg-result-types.ts),
 * the rewrite calls `<name>_once`, which binds those values once, as a lambda's, and passes the overloads
 * its fields; the tags and later values (a precision DuckDB needs constant) stay direct. Only there: in
 * a correlated subquery, a lambda's body loses the columns it reads from outside. (A struct literal
 * there is bound when the macro is created, where the types are unknown; `list_zip` is not.)
 */
export const BIND_ONCE: ReadonlyMap<string, number> = new Map(
  Object.entries({
    div: 2,
    rdiv: 2,
    round: 1,
    roundn: 1,
    numeric: 1,
    shown_numeric: 1,
    minus: 1,
    lit_add: 1,
    lit_mul: 1,
    fround: 1,
    fnum: 1,
    sign: 1,
    int4: 1,
  }),
);
/** The `<name>_once` front of each BIND_ONCE macro (its first typed overload says how many tags it takes). */
function bindOnceFronts(macros: ReadonlyArray<[string, string]>): Array<[string, string]> {
  const fronts = new Map<string, [string, string]>();
  for (const [sig] of macros) {
    const [, name, params] = /^_pgsem_(\w+)\((.*)\)$/s.exec(sig) ?? [];
    const bound = BIND_ONCE.get(name);
    const list = params?.split(',').map((p) => p.trim()) ?? [];
    const tags = list.filter((p) => /\s/.test(p)).length;
    if (bound === undefined || tags === 0 || fronts.has(name)) continue;
    const t = list.slice(0, tags).map((_, i) => `t${i + 1}`);
    const v = list.slice(tags).map((_, i) => `v${i + 1}`);
    const args = v.map((x, i) => (i < bound ? `struct_extract(fdl_pg_b, ${i + 1})` : x));
    const lists = v.slice(0, bound).map((x) => `[${x}]`);
    fronts.set(name, [
      `_pgsem_${name}_once(${[...t, ...v].join(', ')})`,
      `list_transform(list_zip(${lists.join(', ')}), fdl_pg_b -> _pgsem_${name}(${[...t, ...args].join(', ')}))[1]`,
    ]);
  }
  return [...macros, ...fronts.values()];
}

/** Every `_pgsem_` macro; bodies name each other qualified (a macro body resolves names in the caller's scope). */
export const PG_SEMANTIC_MACROS: ReadonlyArray<[string, string]> = bindOnceFronts([
  ...TYPED_MACROS,
  ...NUMERIC_DIVISION,
  ...DIVISION,
  ...AVG,
  ...SHOWN,
  ...SIGN_AND_GCD,
  ...PG_VALUE_MACROS,
  ...NUMBER_FORMAT_MACROS,
  ...PG_FLOAT_MACROS,
  ...PG_TEXT_MACROS,
  ...ARITHMETIC_LITERAL_MACROS,
  ...FLOAT_RANGE_MACROS,
  ...NUMERIC_FLOAT_MACROS,
  ...NAME_MACROS,
  ...ROW_MACROS,
  ...SUBSCRIPT_MACROS,
  ...LIKE_ANY_MACROS,
  ...JSON_VALUE_MACROS,
  ...JSON_SET_MACROS,
  ...JSON_CONTAINMENT_MACROS,
  ...REGEXP_MACROS,
  ...NUMERIC_SCALE_MACROS,
  ...JSON_ARROW_MACROS,
  ...JSONB_KEY_MACROS,
  ['_pgsem_upper(s)', ASCII_UPPER('s')],
  ['_pgsem_lower(s)', ASCII_LOWER('s')],
]).map(([sig, body]) => [sig, body.replace(/\b_pgsem_/g, `${C}_pgsem_`)]);
