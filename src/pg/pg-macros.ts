/**
 * PostgreSQL functions DuckDB lacks or answers differently, as macros of the catalog emulation
 * (install.ts declares them with the others; the rewrite redirects a PostgreSQL call to them).
 * Each is checked against PostgreSQL 15 in test/pg-semantics.test.ts.
 */

/** PostgreSQL's pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, PB, each rounded half up. */
const sizePretty = (b: string): string => {
  const half = (x: string) => `CAST(((${x}) + CASE WHEN (${x}) < 0 THEN -1 ELSE 1 END) / 2 AS BIGINT)`;
  const step = (shift: number, unit: string, rest: string) =>
    `CASE WHEN abs(${b} >> ${shift}) < 20479 THEN ${half(`${b} >> ${shift}`)} || ' ${unit}' ELSE ${rest} END`;
  return `CASE WHEN abs(${b}) < 10240 THEN ${b} || ' bytes' ELSE ${step(9, 'kB', step(19, 'MB', step(29, 'GB', step(39, 'TB', `${half(`${b} >> 49`)} || ' PB'`))))} END`;
};

/** DuckDB type spellings (typeof) → PostgreSQL's (pg_typeof as text). */
const PG_TYPE_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['BOOLEAN', 'boolean'], ['TINYINT', 'smallint'], ['SMALLINT', 'smallint'], ['INTEGER', 'integer'], ['BIGINT', 'bigint'],
  ['HUGEINT', 'numeric'], ['FLOAT', 'real'], ['DOUBLE', 'double precision'], ['VARCHAR', 'text'], ['BLOB', 'bytea'],
  ['DATE', 'date'], ['TIME', 'time without time zone'], ['TIMESTAMP', 'timestamp without time zone'],
  ['TIMESTAMP WITH TIME ZONE', 'timestamp with time zone'], ['INTERVAL', 'interval'], ['UUID', 'uuid'], ['JSON', 'json'],
];
const pgTypeName = (t: string): string =>
  `CASE WHEN ${t} LIKE 'DECIMAL%' THEN 'numeric' WHEN ${t} LIKE 'STRUCT(%' THEN 'record' ${PG_TYPE_NAMES.map(([d, p]) => `WHEN ${t} = '${d}' THEN '${p}'`).join(' ')} ELSE lower(${t}) END`;

export const PG_FUNCTION_MACROS: ReadonlyArray<[string, string]> = [
  // Words are runs of letters and digits; the first letter of each is upper case, the rest lower.
  ['initcap(s)', `array_to_string(list_transform(range(1, length(s) + 1), i -> CASE WHEN i = 1 OR NOT regexp_full_match(substr(s, i - 1, 1), '[[:alnum:]]') THEN upper(substr(s, i, 1)) ELSE lower(substr(s, i, 1)) END), '')`],
  ['width_bucket(op, lo, hi, n)', `CAST(CASE WHEN op < lo THEN 0 WHEN op >= hi THEN n + 1 ELSE CAST(floor(CAST(op - lo AS DOUBLE) * n / CAST(hi - lo AS DOUBLE)) AS BIGINT) + 1 END AS INTEGER)`],
  ['date_bin(stride, source, origin)', 'time_bucket(stride, source, origin)'],
  ['pg_size_pretty(b)', sizePretty('CAST(b AS BIGINT)')],
  ['pg_typeof(x)', `CASE WHEN typeof(x) LIKE '%[]' THEN ${pgTypeName("replace(typeof(x), '[]', '')")} || '[]' ELSE ${pgTypeName('typeof(x)')} END`],
];
