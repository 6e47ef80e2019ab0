/**
 * `_pgsem_*` macros for PostgreSQL values DuckDB computes or types differently (pg-forms.ts calls them):
 * extract's numeric fields, date arguments read as timestamptz, jsonb's key operators, interval
 * division, octet_length of text. Typed tag parameters pick the rule at bind time, as in pg-macros.ts;
 * every typed list names the types DuckDB could otherwise cast implicitly into an overload.
 */

/** The date/time types a tag can have; a typed overload list names them all (DuckDB casts VARCHAR to DATE implicitly). */
const TEMPORAL = ['DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'VARCHAR', 'INTERVAL', 'TIME'];
const NUMBERS = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'DECIMAL',
  'FLOAT',
  'DOUBLE',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
];

/** power's operand types: a numeric beside an integer or a numeric makes it numeric in PostgreSQL. */
const FLOATS = ['FLOAT', 'DOUBLE'];
const POWER_TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'DECIMAL', ...FLOATS];
/** Raised at run time as 0A000 with a hint (engine/duckdb-errors.ts reads `what|hint`); `fname` names the call. */
const NUMERIC_MATH_REFUSED = `CASE WHEN x IS NULL THEN NULL ELSE CAST(error(fname || '() of a numeric value is not supported by fdl-gateway|PostgreSQL computes it in numeric at a scale of its own; DuckDB only in double precision, which differs in the last digits. Cast the argument to double precision (x::float8) for the double precision answer (log(b, x): ln(x::float8) / ln(b::float8)).') AS DECIMAL(38,16)) END`;

/** Microseconds of a value's seconds field (seconds × 10⁶ + fraction), as DuckDB's microsecond(). */
const usec = 'CAST(microsecond(x) AS DECIMAL(38,0))';

/** PostgreSQL's interval epoch: a year of 365.25 days, a remaining month of 30. */
const intervalEpochUs = `(CAST((datepart('year', x) * 31557600 + datepart('month', x) * 2592000 + datepart('day', x) * 86400) AS DECIMAL(38,0)) * 1000000
  + CAST(datepart('hour', x) AS DECIMAL(38,0)) * 3600000000 + CAST(datepart('minute', x) AS DECIMAL(38,0)) * 60000000 + ${usec})`;

/**
 * PostgreSQL 15's interval_div and interval_mul (months and days scaled, their fractions carried down to days
 * and microseconds), `op` '/' or '*'. Lambda parameters carry the `fdl_pg_` prefix: a bare `v.m` would bind to a
 * caller's table `v`. Fields are read with brackets: in HAVING, DuckDB's binder takes `fdl_pg_v.m` for a table's column.
 */
const intervalScaled = (
  op: '/' | '*',
): string => `list_transform([{'m': datepart('year', a) * 12 + datepart('month', a), 'd': datepart('day', a),
    't': datepart('hour', a) * 3600000000 + datepart('minute', a) * 60000000 + datepart('microseconds', a), 'f': CAST(b AS DOUBLE)}], fdl_pg_v ->
  list_transform([{'v': fdl_pg_v, 'rm': CAST(trunc(fdl_pg_v['m'] ${op} fdl_pg_v['f']) AS BIGINT), 'rd': CAST(trunc(fdl_pg_v['d'] ${op} fdl_pg_v['f']) AS BIGINT)}], fdl_pg_w ->
    list_transform([{'w': fdl_pg_w, 'mrd': round_even((fdl_pg_w['v']['m'] ${op} fdl_pg_w['v']['f'] - fdl_pg_w['rm']) * 30 * 1000000, 0) / 1000000}], fdl_pg_x ->
      list_transform([{'x': fdl_pg_x, 'sr': round_even((fdl_pg_x['w']['v']['d'] ${op} fdl_pg_x['w']['v']['f'] - fdl_pg_x['w']['rd'] + fdl_pg_x['mrd'] - trunc(fdl_pg_x['mrd'])) * 86400 * 1000000, 0) / 1000000}], fdl_pg_y ->
        list_transform([{'y': fdl_pg_y, 'carry': CASE WHEN abs(fdl_pg_y['sr']) >= 86400 THEN trunc(fdl_pg_y['sr'] / 86400) ELSE 0 END}], fdl_pg_z ->
          to_months(fdl_pg_z['y']['x']['w']['rm']) + to_days(CAST(fdl_pg_z['y']['x']['w']['rd'] + fdl_pg_z['carry'] + trunc(fdl_pg_z['y']['x']['mrd']) AS BIGINT))
          + to_microseconds(CAST(round_even(fdl_pg_z['y']['x']['w']['v']['t'] ${op} fdl_pg_z['y']['x']['w']['v']['f'] + (fdl_pg_z['y']['sr'] - fdl_pg_z['carry'] * 86400) * 1000000, 0) AS BIGINT))
        )[1])[1])[1])[1])[1]`;

/** The keys `?` finds in a jsonb value: an object's top-level keys, an array's string elements, a string itself. */
const JSON_KEYS = `CASE json_type(x) WHEN 'OBJECT' THEN json_keys(x)
  WHEN 'ARRAY' THEN list_transform(list_filter(json_extract(x, '$[*]'), lambda e: json_type(e) = 'VARCHAR'), lambda e: e ->> '$')
  WHEN 'VARCHAR' THEN [x ->> '$'] ELSE CAST([] AS VARCHAR[]) END`;

export const PG_VALUE_MACROS: ReadonlyArray<[string, string]> = [
  // A date argument of date_trunc and generate_series is read as timestamptz (PostgreSQL's preferred type).
  ...[...TEMPORAL, ...NUMBERS].map((t): [string, string] => [
    `_pgsem_tstz(t ${t}, x)`,
    t === 'DATE' ? 'CAST(x AS TIMESTAMP WITH TIME ZONE)' : 'x',
  ]),
  ['_pgsem_tstz(t, x)', 'x'],
  // An untyped bound of generate_series beside a typed one `t`: a timestamp beside a timestamp, else timestamptz.
  ...[...TEMPORAL, ...NUMBERS].map((t): [string, string] => [
    `_pgsem_bound(t ${t}, x)`,
    t === 'TIMESTAMP' ? 'CAST(x AS TIMESTAMP)' : 'CAST(x AS TIMESTAMP WITH TIME ZONE)',
  ]),
  ['_pgsem_bound(t, x)', 'CAST(x AS TIMESTAMP WITH TIME ZONE)'],
  // Fractional seconds rounded half up to a multiple of s microseconds (time(p), timestamp(p): fractional-seconds.ts).
  [
    '_pgsem_fprec(x, s)',
    'x - to_microseconds(microsecond(x) % s) + to_microseconds(CASE WHEN 2 * (microsecond(x) % s) >= s THEN s ELSE 0 END)',
  ],
  // extract(epoch …): numeric, scale 0 for a date, 6 otherwise.
  ...TEMPORAL.map((t): [string, string] => [
    `_pgsem_epoch(t ${t}, x)`,
    t === 'DATE'
      ? 'CAST(epoch_us(CAST(x AS TIMESTAMP)) // 1000000 AS DECIMAL(38,0))'
      : t === 'INTERVAL'
        ? `CAST(${intervalEpochUs} * 0.000001 AS DECIMAL(38,6))`
        : t === 'TIME'
          ? `CAST(CAST(epoch_us(CAST('1970-01-01' AS DATE) + x) AS DECIMAL(38,0)) * 0.000001 AS DECIMAL(38,6))`
          : 'CAST(CAST(epoch_us(x) AS DECIMAL(38,0)) * 0.000001 AS DECIMAL(38,6))',
  ]),
  ['_pgsem_epoch(t, x)', 'CAST(CAST(epoch_us(x) AS DECIMAL(38,0)) * 0.000001 AS DECIMAL(38,6))'],
  // extract(second / milliseconds / microseconds …): numeric at scale 6 / 3 / 0.
  ['_pgsem_seconds(x)', `CAST(${usec} * 0.000001 AS DECIMAL(38,6))`],
  ['_pgsem_milliseconds(x)', `CAST(${usec} * 0.001 AS DECIMAL(38,3))`],
  ['_pgsem_microseconds(x)', usec],
  // x AT TIME ZONE interval: a timestamp read at that offset (timestamptz), a timestamptz shown at it (timestamp);
  // an interval of months or days is PostgreSQL's 22023
  ...[
    ['TIMESTAMP', `timezone('UTC', x - iv)`],
    ['TIMESTAMP WITH TIME ZONE', `timezone('UTC', x) + iv`],
  ].map(([t, body]): [string, string] => [
    `_pgsem_atinterval(t ${t}, x, iv)`,
    `CASE WHEN date_part('month', iv) <> 0 OR date_part('year', iv) <> 0 OR date_part('day', iv) <> 0 THEN error('interval time zone "' || CAST(iv AS VARCHAR) || '" must not include months or days') ELSE ${body} END`,
  ]),
  // jsonb ?, ?|, ?& (NULL keys in the array are ignored, as PostgreSQL does).
  ['_pgsem_jkeys(x)', JSON_KEYS],
  // a NULL operand is NULL (the operators are strict; an absent key list read as empty had answered false)
  ['_pgsem_jhas(x, k)', 'CASE WHEN x IS NOT NULL AND k IS NOT NULL THEN list_contains(_pgsem_jkeys(x), k) END'],
  [
    '_pgsem_jhas_any(x, ks)',
    'CASE WHEN x IS NOT NULL AND ks IS NOT NULL THEN list_has_any(_pgsem_jkeys(x), list_filter(ks, lambda k: k IS NOT NULL)) END',
  ],
  [
    '_pgsem_jhas_all(x, ks)',
    'CASE WHEN x IS NOT NULL AND ks IS NOT NULL THEN list_has_all(_pgsem_jkeys(x), list_filter(ks, lambda k: k IS NOT NULL)) END',
  ],
  // octet_length: int4, of text too (DuckDB has it for blobs only).
  ['_pgsem_octets(t VARCHAR, x)', 'CAST(strlen(x) AS INTEGER)'],
  ['_pgsem_octets(t BLOB, x)', 'CAST(octet_length(x) AS INTEGER)'],
  ['_pgsem_octets(t BIT, x)', 'CAST(octet_length(x) AS INTEGER)'],
  ['_pgsem_octets(t, x)', 'CAST(octet_length(x) AS INTEGER)'],
  // length: int4; of bytea its bytes (DuckDB's length has no BLOB overload).
  ['_pgsem_length(t BLOB, x)', 'CAST(octet_length(x) AS INTEGER)'],
  ['_pgsem_length(t VARCHAR, x)', 'CAST(length(x) AS INTEGER)'],
  ['_pgsem_length(t, x)', 'CAST(length(x) AS INTEGER)'],
  ['_pgsem_idiv(a, b)', intervalScaled('/')],
  ['_pgsem_imul(a, b)', intervalScaled('*')],
  // to_char's TH/th: the ordinal suffix of a number's text (str_numth: a tens digit 1 is always th)
  [
    '_pgsem_nth(s)',
    "CASE WHEN s IS NULL THEN NULL WHEN length(s) >= 2 AND substr(s, length(s) - 1, 1) = '1' THEN 'th' WHEN right(s, 1) = '1' THEN 'st' WHEN right(s, 1) = '2' THEN 'nd' WHEN right(s, 1) = '3' THEN 'rd' ELSE 'th' END",
  ],
  ['_pgsem_nth_upper(s)', 'upper(_pgsem_nth(s))'],
  // to_char's strftime (pg-formatting.ts strftimeOf): one overload, so an aggregate's value binds; the codes are
  // the rewrite's constant, bounded there, which is what the session's strftime guard checks
  ['_pgsem_strftime(v, f)', 'system.main.strftime(v, f)'],
  // x AT TIME ZONE with a fixed abbreviation of s seconds east (zone-abbreviations.ts): a timestamptz is
  // shown at UTC + s, a timestamp read at UTC − s; a date and an untyped string are timestamptz, as PostgreSQL resolves them.
  ...['TIMESTAMP WITH TIME ZONE', 'DATE', 'VARCHAR'].map((t): [string, string] => [
    `_pgsem_atabbrev(t ${t}, x, s)`,
    "timezone('UTC', CAST(x AS TIMESTAMP WITH TIME ZONE)) + to_seconds(s)",
  ]),
  ['_pgsem_atabbrev(t TIMESTAMP, x, s)', "timezone('UTC', x - to_seconds(s))"],
  [
    '_pgsem_atabbrev(t, x, s)',
    `CASE WHEN x IS NULL THEN NULL ELSE error('AT TIME ZONE of a time with a zone abbreviation is not supported by fdl-gateway|Apply it to a timestamp or a timestamptz, or name a zone of the tz database.') END`,
  ],
  // sqrt, exp, ln, log, log10 and power of a numeric: numeric in PostgreSQL, at a scale of its own rules
  // (`exp(1::numeric)` 2.7182818284590452); DuckDB computes them in double precision, so a different
  // number: refused (0A000) with the double precision spelling. Of integers and floats PostgreSQL's is float8, as DuckDB's.
  ...NUMBERS.map((t): [string, string] => [
    `_pgsem_nmath(t ${t}, x, fname)`,
    t === 'DECIMAL' ? NUMERIC_MATH_REFUSED : 'x',
  ]),
  ['_pgsem_nmath(t, x, fname)', 'x'],
  ...POWER_TYPES.flatMap((ta) =>
    POWER_TYPES.map((tb): [string, string] => [
      `_pgsem_npow(ta ${ta}, tb ${tb}, x, fname)`,
      (ta === 'DECIMAL' && !FLOATS.includes(tb)) || (tb === 'DECIMAL' && !FLOATS.includes(ta))
        ? NUMERIC_MATH_REFUSED
        : 'x',
    ]),
  ),
  ['_pgsem_npow(ta, tb, x, fname)', 'x'],
  // avg(interval) as PostgreSQL 15's interval_avg: the fields summed apart (interval_pl), then interval_div by
  // the count; DuckDB's own avg rounded the microseconds otherwise (`08:40:00.333334`, PostgreSQL `…333333`).
  // (of another type 0: DuckDB binds a macro's every argument to choose its overload, used or not)
  ['_pgsem_imonths(x INTERVAL)', "datepart('year', x) * 12 + datepart('month', x)"],
  ['_pgsem_imonths(x)', '0'],
  ['_pgsem_idays(x INTERVAL)', "datepart('day', x)"],
  ['_pgsem_idays(x)', '0'],
  [
    '_pgsem_imicros(x INTERVAL)',
    "datepart('hour', x) * 3600000000 + datepart('minute', x) * 60000000 + datepart('microseconds', x)",
  ],
  ['_pgsem_imicros(x)', '0'],
  ['_pgsem_lmonths(l)', 'list_sum(list_transform(l, lambda fdl_pg_v: _pgsem_imonths(fdl_pg_v)))'],
  ['_pgsem_ldays(l)', 'list_sum(list_transform(l, lambda fdl_pg_v: _pgsem_idays(fdl_pg_v)))'],
  ['_pgsem_lmicros(l)', 'list_sum(list_transform(l, lambda fdl_pg_v: _pgsem_imicros(fdl_pg_v)))'],
  [
    '_pgsem_iavg(t INTERVAL, orig, n, sm, sd, su)',
    'CASE WHEN n = 0 THEN NULL ELSE _pgsem_idiv(to_months(CAST(sm AS INTEGER)) + to_days(CAST(sd AS INTEGER)) + to_microseconds(CAST(su AS BIGINT)), n) END',
  ],
  // (two overloads only: each typed one costs every avg's bind; avg of a string fails in both servers)
  ['_pgsem_iavg(t, orig, n, sm, sd, su)', 'orig'],
  // to_hex: PostgreSQL's lower-case digits; int2/int4 as int4 in 32 bits (DuckDB's to_hex is guarded: the built-in, 16 digits at most).
  [
    '_pgsem_tohex(t INTEGER, x)',
    'lower(system.main.to_hex(CASE WHEN x < 0 THEN CAST(x AS BIGINT) + 4294967296 ELSE CAST(x AS BIGINT) END))',
  ],
  // PostgreSQL has to_hex(int4) and to_hex(int8): of a smallint it cannot choose (42725).
  ...['TINYINT', 'SMALLINT'].map((t): [string, string] => [
    `_pgsem_tohex(t ${t}, x)`,
    `CAST(CASE WHEN x IS NULL THEN NULL ELSE error('more than one function named "to_hex" takes a smallint: cast it to integer or bigint') END AS VARCHAR)`,
  ]),
  ['_pgsem_tohex(t BIGINT, x)', 'lower(system.main.to_hex(x))'],
  ...[...NUMBERS.filter((t) => !['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT'].includes(t)), 'VARCHAR', 'BLOB'].map(
    (t): [string, string] => [`_pgsem_tohex(t ${t}, x)`, 'to_hex(x)'],
  ),
  ['_pgsem_tohex(t, x)', 'to_hex(x)'],
  // extract(timezone… from x): of a timestamptz or timetz its value; of anything else PostgreSQL's 0A000.
  ...['TIMESTAMP WITH TIME ZONE', 'TIME WITH TIME ZONE'].map((t): [string, string] => [
    `_pgsem_tzfield(t ${t}, v)`,
    'v',
  ]),
  ...[...TEMPORAL.filter((t) => t !== 'TIMESTAMP WITH TIME ZONE'), ...NUMBERS].map((t): [string, string] => [
    `_pgsem_tzfield(t ${t}, v)`,
    `CAST(CASE WHEN v IS NULL THEN NULL ELSE error('extract of a time zone field from a value without a time zone is not supported by fdl-gateway|PostgreSQL has the time zone fields for timestamptz and timetz only: cast the value to timestamptz first.') END AS DECIMAL(38,0))`,
  ]),
  ['_pgsem_tzfield(t, v)', 'v'],
  // date_part/extract of a unit a time of day has not (pg-forms.ts timeUnitChecked): PostgreSQL's 0A000 for a
  // time or timetz, with its words (DuckDB's binder had answered `function year(time) does not exist`, 42883);
  // v, the call itself, is never bound there. The type `r` stands for the call's result type.
  ...['TIME', 'TIME WITH TIME ZONE'].flatMap((t): Array<[string, string]> =>
    ['DOUBLE', 'DECIMAL'].map((r) => [
      `_pgsem_timeunit${r === 'DOUBLE' ? '' : 'n'}(t ${t}, x, u, v)`,
      `CAST(CASE WHEN x IS NULL THEN NULL ELSE error('unit "' || u || '" not supported for type ${t === 'TIME' ? 'time without time zone' : 'time with time zone'}') END AS ${r === 'DOUBLE' ? 'DOUBLE' : 'DECIMAL(38,0)'})`,
    ]),
  ),
  ...[...TEMPORAL.filter((t) => t !== 'TIME'), ...NUMBERS].flatMap((t): Array<[string, string]> => [
    [`_pgsem_timeunit(t ${t}, x, u, v)`, 'v'],
    [`_pgsem_timeunitn(t ${t}, x, u, v)`, 'v'],
  ]),
  ['_pgsem_timeunit(t, x, u, v)', 'v'],
  ['_pgsem_timeunitn(t, x, u, v)', 'v'],
  // date_part of a time zone field: a timetz's and a timestamptz's, refused for a time or timestamp (DuckDB answered 0)
  ...['TIME', 'TIMESTAMP'].map((t): [string, string] => [
    `_pgsem_tzunit(t ${t}, x, u, v)`,
    `CAST(CASE WHEN x IS NULL THEN NULL ELSE error('unit "' || u || '" not supported for type ${t.toLowerCase()} without time zone') END AS DOUBLE)`,
  ]),
  ...[...TEMPORAL.filter((t) => t !== 'TIME' && t !== 'TIMESTAMP'), 'TIME WITH TIME ZONE', ...NUMBERS].map(
    (t): [string, string] => [`_pgsem_tzunit(t ${t}, x, u, v)`, 'v'],
  ),
  ['_pgsem_tzunit(t, x, u, v)', 'v'],
  // date_part/extract of ±infinity (pg-forms.ts INFINITE_FIELDS): date_part PostgreSQL's ±Infinity, extract's
  // numeric refused (DuckDB's DECIMAL has no infinity); DuckDB answered NULL for both. Other types keep v.
  ...['DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE'].flatMap((t): Array<[string, string]> => [
    [
      `_pgsem_infpart(t ${t}, x, v)`,
      `CASE WHEN isinf(x) THEN CASE WHEN x > CAST('1970-01-01' AS DATE) THEN CAST('Infinity' AS DOUBLE) ELSE CAST('-Infinity' AS DOUBLE) END ELSE v END`,
    ],
    [
      `_pgsem_infnum(t ${t}, x, u, v)`,
      `CASE WHEN isinf(x) THEN error('extract(' || u || ' from ' || CASE WHEN x > CAST('1970-01-01' AS DATE) THEN 'infinity' ELSE '-infinity' END || ') is not supported by fdl-gateway|PostgreSQL answers numeric Infinity or -Infinity, which DuckDB''s DECIMAL cannot hold: date_part(''' || u || ''', x) answers it in double precision, or test isfinite(x) first.') ELSE v END`,
    ],
  ]),
  ...[
    ...TEMPORAL.filter((t) => !['DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE'].includes(t)),
    'TIME WITH TIME ZONE',
    ...NUMBERS,
  ].flatMap((t): Array<[string, string]> => [
    [`_pgsem_infpart(t ${t}, x, v)`, 'v'],
    [`_pgsem_infnum(t ${t}, x, u, v)`, 'v'],
  ]),
  ['_pgsem_infpart(t, x, v)', 'v'],
  ['_pgsem_infnum(t, x, u, v)', 'v'],
  // PostgreSQL has no year 0 for dates and timestamps (44 BC is -44; DuckDB's year is astronomical, -43);
  // an interval's years are a count (`extract(year from interval '1 day')` is 0).
  ['_pgsem_bcyear(t INTERVAL, v)', 'v'],
  ['_pgsem_bcyear(t, v)', 'CASE WHEN v <= 0 THEN v - 1 ELSE v END'],
  // date_trunc('century' | 'millennium'): a date's or timestamp's PostgreSQL's way (`shifted`), an interval's as DuckDB's.
  ['_pgsem_centrunc(t INTERVAL, plain, shifted)', 'plain'],
  ['_pgsem_centrunc(t, plain, shifted)', 'shifted'],
];

/** interval / number overloads of the division macros (`_pgsem_div`, `_pgsem_rdiv`; pg-macros.ts adds them to its lists). */
export const INTERVAL_DIVISION = (name: string): Array<[string, string]> =>
  NUMBERS.map((t): [string, string] => [`${name}(ta INTERVAL, tb ${t}, a, b)`, '_pgsem_idiv(a, b)']);
/** Their type for a tag: an interval. */
export const INTERVAL_TYPE_DIVISION = (name: string): Array<[string, string]> =>
  NUMBERS.map((t): [string, string] => [`${name}(ta INTERVAL, tb ${t})`, "INTERVAL '1 day'"]);
