/**
 * The `_pgsem_` macros behind `to_char(number, format)` (number-formats.ts builds the call): PostgreSQL 15's
 * formatting.c as DuckDB runs it per row. `_pgsem_numtext` writes the value as the to_char of its type does
 * before the picture is applied (int4out/int8out, numeric_round + numeric_out, printf's `%.*f` of a float);
 * `_pgsem_numfmt` is NUM_processor's walk over the picture's nodes, each node's text computed from the
 * row's state (sign, digits, leading blanks, last relevant digit) and the node's constants alone.
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

/**
 * A float as float4_to_char/float8_to_char write it: `%.0f` of its magnitude decides how many of the
 * picture's decimals fit in `dig` significant digits, then `%.*f` of the value. Past 2^53 a double is a
 * whole number and DuckDB's printf keeps only 17 exact digits, so its text is the HUGEINT's.
 */
const floatText = (
  dig: number,
): string => `CASE WHEN isnan(CAST(v AS DOUBLE)) OR isinf(CAST(v AS DOUBLE)) THEN ${NOT_FINITE}
  WHEN abs(CAST(v AS DOUBLE)) >= 9007199254740992 AND abs(CAST(v AS DOUBLE)) < 1e38 THEN CAST(CAST(CAST(v AS DOUBLE) AS HUGEINT) AS VARCHAR)
  ELSE printf('%.' || CAST(CASE WHEN length(printf('%.0f', abs(CAST(v AS DOUBLE)))) >= ${dig} THEN 0
    ELSE least(post, ${dig} - length(printf('%.0f', abs(CAST(v AS DOUBLE))))) END AS VARCHAR) || 'f', CAST(v AS DOUBLE)) END`;

/** numeric_round to the picture's decimals, then numeric_out: exactly `post` decimals. */
const DECIMAL_TEXT = `CASE WHEN post = 0 THEN CAST(round(v, 0) AS VARCHAR)
  ELSE split_part(CAST(round(v, post) AS VARCHAR), '.', 1) || '.' || rpad(split_part(CAST(round(v, post) AS VARCHAR), '.', 2), post, '0') END`;

/** int4out/int8out, the picture's decimals written as zeros. */
const INTEGER_TEXT = `CASE WHEN post = 0 THEN CAST(v AS VARCHAR) ELSE CAST(v AS VARCHAR) || '.' || repeat('0', post) END`;

/** `list_transform(list_zip([e1], [e2] …), p -> body)[1]`: each value computed once, read as `struct_extract(p, i)`. */
function bind(param: string, values: string[], body: (ref: (i: number) => string) => string): string {
  return `list_transform(list_zip(${values.map((v) => `[${v}]`).join(', ')}), ${param} -> ${body((i) => `struct_extract(${param}, ${i + 1})`)})[1]`;
}

/**
 * NUM_processor of to_char. `o` is the value's signed text; the picture's constants: `pre` digits, fill mode,
 * a decimal point (`dp`), a '0' before it (`zs`, 0-based) and the last '0' (`ze`), S's place (`lsign`: −1
 * before the number, 1 after, 0 none), PR, PL, MI (SG is both), `npc` digit nodes; and per node its kind,
 * its digit index (for a separator the previous digit's, −1 before any), that previous digit's kind, and
 * its literal text. Per row the digit nodes' characters are laid out once as one string (`lay`): a blank,
 * a '0' fill, the number's characters, chr(2) for a leading 0 written as a blank (IS_PREDEC_SPACE), chr(1)
 * for a decimal fill mode drops, chr(0) past the text's end (C's NUL, which ends PostgreSQL's result).
 */
const NUMFMT = bind('fdl_pg_o', [`CASE WHEN starts_with(o, '-') THEN '-' ELSE '+' END`, `ltrim(o, '-')`], (a) => {
  const [s, u] = [a(0), a(1)];
  const pl = `CASE WHEN contains(${u}, '.') THEN strpos(${u}, '.') - 1 ELSE length(${u}) END`;
  const pe = `CASE WHEN contains(${u}, '.') THEN length(${u}) - strpos(${u}, '.') ELSE 0 END`;
  return bind(
    'fdl_pg_p',
    [
      // digits (or the overflow's #), leading blanks, decimals written, sign already written (or never needed)
      `CASE WHEN ${pl} > pre THEN repeat('#', pre) || '.' || repeat('#', ${pe}) ELSE ${u} END`,
      `CASE WHEN ${pl} < pre THEN pre - ${pl} ELSE 0 END`,
      pe,
      `CASE WHEN plus = 1 OR minus = 1 THEN NOT (plus = 1 AND minus = 0) ELSE ${s} = '+' AND fm = 1 AND lsign = 0 END`,
      // PR, which fill mode drops for a number that is not negative
      `bracket = 1 AND NOT (fm = 1 AND ${s} <> '-')`,
      s,
    ],
    (b) => {
      const [n, ops, pe2, swi, br, s2] = [b(0), b(1), b(2), b(3), b(4), b(5)];
      // the last relevant character (fill mode): the last decimal that is not 0, the point if none, and no
      // earlier than the picture's last '0'
      const dot = `strpos(${n}, '.')`;
      const lr0 = `(${dot} - 1 + length(rtrim(substr(${n}, ${dot} + 1), '0')))`;
      const lz = `least(length(${n}) - 1, ze - ${ops})`;
      const lr = `CASE WHEN fm = 0 OR dp = 0 OR ${dot} = 0 THEN -1 WHEN ze > ${ops} AND ${lr0} < ${lz} THEN ${lz} ELSE ${lr0} END`;
      const predec = `(zero = 0 AND substr(${n}, 1, 1) = '0' AND ${pe2} <> 0)`;
      return bind('fdl_pg_q', [lr], (c) => {
        const lrv = c(0);
        const lrDot = `(${lrv} >= 0 AND substr(${n}, ${lrv} + 1, 1) = '.')`;
        const marked = `CASE WHEN ${predec} THEN chr(2) || substr(${n}, 2) ELSE ${n} END`;
        const kept = `CASE WHEN ${lrv} >= 0 THEN substr(${marked}, 1, ${lrv} + 1) || repeat(chr(1), length(${n}) - ${lrv} - 1) ELSE ${marked} END`;
        const lay = `CASE WHEN zero = 1 THEN repeat(' ', least(${ops}, zs)) || repeat('0', ${ops} - least(${ops}, zs)) ELSE repeat(' ', ${ops}) END || ${kept} || repeat(chr(0), npc)`;
        // the digit before which the sign is written: the first one written, or the picture's first '0'
        const signPos = `CASE WHEN ${swi} OR lsign = 1 THEN -1 WHEN zero = 1 THEN least(${ops}, zs)
            WHEN ${predec} AND NOT ${lrDot} THEN ${ops} + 1 ELSE ${ops} END`;
        const signText = `CASE WHEN lsign = -1 THEN ${s2} WHEN ${br} THEN CASE WHEN ${s2} = '+' THEN ' ' ELSE '<' END
            WHEN ${s2} = '+' THEN CASE WHEN fm = 1 THEN '' ELSE ' ' END ELSE '-' END`;
        // the digit after which PR's '>' or a trailing S is written (its `end`); none where the last relevant
        // character is the next one the text's pointer reaches
        const last = `(${pe2} + pre - 1 + CASE WHEN NOT ${swi} AND ${ops} = 0 THEN 1 ELSE 0 END + CASE WHEN ${ops} > 0 THEN 1 ELSE 0 END + dp - 1)`;
        const after = `CASE WHEN ${last} >= ${ops} THEN least(${last} - ${ops} + 1, length(${n})) ELSE 0 END`;
        const endAt = `CASE WHEN ${lrv} >= 0 AND ${lrv} = ${after} THEN -1 ELSE ${last} END`;
        const endText = `CASE WHEN (${swi} OR (${signPos} >= 0 AND ${last} >= ${signPos})) AND ${br} THEN CASE WHEN ${s2} = '+' THEN ' ' ELSE '>' END
            WHEN lsign = 1 THEN ${s2} ELSE '' END`;
        const th = `CASE WHEN substr(${n}, 1, 1) = '#' OR ${s2} = '-' OR dp = 1 THEN '' ELSE _pgsem_nth(${n}) END`;
        const dropped = `CASE WHEN fm = 0 THEN ' ' WHEN ${lrDot} THEN '0' ELSE '' END`;
        return bind('fdl_pg_r', [lay, signPos, signText, endAt, endText, dropped, n, ops, th, s2], (r) => {
          const [ly, sp, st, ea, et, dr, n2, ops2, th2, s3] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(r) as string[];
          // each digit node's text, written once per row for the digit nodes' count (`npc`): as a 9 and as a 0
          // (a 0 keeps a decimal fill mode drops), and whether it wrote a digit (a following separator's text)
          const ch = (k: string) => `substr(${ly}, ${k} + 1, 1)`;
          const blank = `CASE WHEN fm = 1 THEN '' ELSE ' ' END`;
          const digitText = (k: string, zeroNode: boolean) => `CASE WHEN ${k} = ${sp} THEN ${st} ELSE '' END
                || CASE ${ch(k)} WHEN ' ' THEN ${blank} WHEN chr(2) THEN ${dr}
                  WHEN chr(1) THEN ${zeroNode ? `substr(${n2}, ${k} - ${ops2} + 1, 1)` : "''"} ELSE ${ch(k)} END
                || CASE WHEN ${k} = ${ea} THEN ${et} ELSE '' END`;
          const wrote = (k: string, zeroNode: boolean) =>
            `CASE ${ch(k)} WHEN ' ' THEN false WHEN '.' THEN false WHEN chr(2) THEN false WHEN chr(1) THEN ${zeroNode} ELSE true END`;
          const perDigit = (e: (k: string) => string) => `list_transform(range(npc), fdl_pg_k -> ${e('fdl_pg_k')})`;
          const [kind, k, pk, lit] = [1, 2, 3, 4].map((i) => `struct_extract(fdl_pg_x, ${i})`) as [
            string,
            string,
            string,
            string,
          ];
          const lists = [
            perDigit((k) => digitText(k, false)),
            perDigit((k) => digitText(k, true)),
            perDigit((k) => wrote(k, false)),
            perDigit((k) => wrote(k, true)),
          ];
          return bind('fdl_pg_t', lists, (t) => {
            const [d9, d0, w9, w0] = [0, 1, 2, 3].map(t) as string[];
            const wroteBefore = `(${k} >= 0 AND CASE WHEN ${pk} = 2 THEN ${w0}[${k} + 1] ELSE ${w9}[${k} + 1] END)`;
            const node = `CASE WHEN ${kind} = 0 THEN '' WHEN ${kind} = 2 THEN ${d0}[${k} + 1] WHEN ${kind} <= 4 THEN ${d9}[${k} + 1]
                WHEN ${kind} <= 6 THEN CASE WHEN ${wroteBefore} THEN ',' ELSE ${blank} END
                WHEN ${kind} = 7 THEN ' '
                WHEN ${kind} = 8 THEN CASE WHEN ${s3} = '-' THEN '-' ELSE ${blank} END
                WHEN ${kind} = 9 THEN CASE WHEN ${s3} = '+' THEN '+' ELSE ${blank} END
                WHEN ${kind} = 10 THEN ${s3}
                WHEN ${kind} = 11 THEN upper(${th2})
                WHEN ${kind} = 12 THEN ${th2}
                ELSE ${lit} END`;
            return `split_part(array_to_string(list_transform(list_zip(kinds, ks, pks, lits), fdl_pg_x -> ${node}), ''), chr(0), 1)`;
          });
        });
      });
    },
  );
});

export const NUMBER_FORMAT_MACROS: ReadonlyArray<[string, string]> = [
  ...INTEGERS.map((t): [string, string] => [`_pgsem_numtext(t ${t}, v, post)`, INTEGER_TEXT]),
  ['_pgsem_numtext(t DECIMAL, v, post)', DECIMAL_TEXT],
  ['_pgsem_numtext(t FLOAT, v, post)', floatText(6)],
  ['_pgsem_numtext(t DOUBLE, v, post)', floatText(15)],
  ...NOT_NUMBERS.map((t): [string, string] => [`_pgsem_numtext(t ${t}, v, post)`, `CAST(${NOT_A_NUMBER} AS VARCHAR)`]),
  ['_pgsem_numtext(t, v, post)', `CAST(${NOT_A_NUMBER} AS VARCHAR)`],
  [
    '_pgsem_numfmt(o, pre, fm, dp, zero, zs, ze, lsign, bracket, plus, minus, npc, kinds, ks, pks, lits)',
    `CASE WHEN o IS NULL THEN NULL ELSE ${NUMFMT} END`,
  ],
];
