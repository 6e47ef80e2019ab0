/**
 * The `_pgsem_` macros behind `to_char(number, format)`: `_pgsem_numtext` writes the value as the to_char of its
 * type does before the picture is applied (int4out/int8out, numeric_round + numeric_out, printf's `%.*f` of a
 * float); number-formats.ts writes the picture's own expression over that text, whose node texts
 * `_pgsem_numcat` joins.
 *
 * Built-ins the session's guards shadow (concat, rpad, repeat, printf, array_to_string: engine/value-guards.ts,
 * concat-guards.ts) are called in `system.main`: each length here is bounded by the picture (at most 256
 * characters) and the number's text, and a guard's expansion is a bind of its own.
 */
import { quoteLiteral } from '../quote.js';

const INTEGERS = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
];
/** Types that are no number: named so DuckDB casts none of them into a number's overload. */
const NOT_NUMBERS = ['VARCHAR', 'DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'TIME', 'INTERVAL', 'BOOLEAN', 'BLOB'];

const refused = (what: string, hint: string): string =>
  `error(${quoteLiteral(`${what} is not supported by fdl-gateway|${hint}`)})`;
const NOT_A_NUMBER = refused(
  "to_char() of this type with a number's format",
  "A number's pattern (9, 0, D, G …) formats int, bigint, numeric, real and double precision; cast the value to one of them.",
);
const NOT_FINITE = refused(
  'to_char() of NaN or Infinity',
  "Format them yourself: CASE WHEN x = 'NaN' OR x IN ('Infinity', '-Infinity') THEN … ELSE to_char(x, …) END.",
);

const S = 'system.main.';
const cat = (...parts: string[]) => `${S}concat(${parts.join(', ')})`;

/**
 * A float as float4_to_char/float8_to_char write it: `%.0f` of its magnitude decides how many of the
 * picture's decimals fit in `dig` significant digits, then `%.*f` of the value. Past 2^53 a double is a
 * whole number and DuckDB's printf keeps only 17 exact digits, so its text is the HUGEINT's.
 */
const floatText = (dig: number): string => {
  const whole = `length(${S}printf('%.0f', abs(CAST(v AS DOUBLE))))`;
  return `CASE WHEN isnan(CAST(v AS DOUBLE)) OR isinf(CAST(v AS DOUBLE)) THEN ${NOT_FINITE}
  WHEN abs(CAST(v AS DOUBLE)) >= 9007199254740992 AND abs(CAST(v AS DOUBLE)) < 1e38 THEN CAST(CAST(CAST(v AS DOUBLE) AS HUGEINT) AS VARCHAR)
  ELSE ${S}printf(${cat("'%.'", `CAST(CASE WHEN ${whole} >= ${dig} THEN 0 ELSE least(post, ${dig} - ${whole}) END AS VARCHAR)`, "'f'")}, CAST(v AS DOUBLE)) END`;
};

/** numeric_round to the picture's decimals, then numeric_out: exactly `post` decimals. */
const DECIMAL_TEXT = `CASE WHEN v IS NULL THEN NULL WHEN post = 0 THEN CAST(round(v, 0) AS VARCHAR)
  ELSE ${cat("split_part(CAST(round(v, post) AS VARCHAR), '.', 1)", "'.'", `${S}rpad(split_part(CAST(round(v, post) AS VARCHAR), '.', 2), CAST(post AS INTEGER), '0')`)} END`;

/** int4out/int8out, the picture's decimals written as zeros (concat would write NULL as ''). */
const INTEGER_TEXT = `CASE WHEN v IS NULL THEN NULL WHEN post = 0 THEN CAST(v AS VARCHAR) ELSE ${cat('CAST(v AS VARCHAR)', "'.'", `${S}repeat('0', post)`)} END`;

/**
 * to_number's input as PostgreSQL's byte walk sees it (number-input.ts): chr(1)…chr(4) (no character a number
 * reads) as chr(5), then each non-ASCII character as its UTF-8 length, chr(n) for its lead byte and chr(1) for
 * each continuation byte (the same byte count: no growth).
 */
const BYTE_TEXT = (() => {
  const re = (t: string, range: string, n: number) =>
    `${S}regexp_replace(${t}, '[${range}]', chr(${n})${' || chr(1)'.repeat(n - 1)}, 'g')`;
  const plain = 'translate(t, chr(1) || chr(2) || chr(3) || chr(4), chr(5) || chr(5) || chr(5) || chr(5))';
  return re(re(re(plain, '\\x{10000}-\\x{10FFFF}', 4), '\\x{800}-\\x{FFFF}', 3), '\\x{80}-\\x{7FF}', 2);
})();

export const NUMBER_FORMAT_MACROS: ReadonlyArray<[string, string]> = [
  ['_pgsem_numbytes(t)', BYTE_TEXT],
  ...INTEGERS.map((t): [string, string] => [`_pgsem_numtext(t ${t}, v, post)`, INTEGER_TEXT]),
  ['_pgsem_numtext(t DECIMAL, v, post)', DECIMAL_TEXT],
  ['_pgsem_numtext(t FLOAT, v, post)', floatText(6)],
  ['_pgsem_numtext(t DOUBLE, v, post)', floatText(15)],
  ...NOT_NUMBERS.map((t): [string, string] => [`_pgsem_numtext(t ${t}, v, post)`, `CAST(${NOT_A_NUMBER} AS VARCHAR)`]),
  ['_pgsem_numtext(t, v, post)', `CAST(${NOT_A_NUMBER} AS VARCHAR)`],
  // the nodes' texts of a picture's expression (number-formats.ts), joined: concat without the session's
  // guard, whose size check names each argument twice (each part here is a character or the picture's text)
  ...Array.from({ length: 16 }, (_, i): [string, string] => {
    const args = Array.from({ length: i + 1 }, (_, j) => `a${j + 1}`).join(', ');
    return [`_pgsem_numcat(${args})`, `${S}concat(${args})`];
  }),
];
