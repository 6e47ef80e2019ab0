/**
 * `to_number(text, '999G999D99')` as PostgreSQL 15 reads it: the picture read once by number-formats.ts's
 * reader (parse_format, NUMDesc_prepare and their 42601 errors), then formatting.c's NUM_processor for
 * input (NUM_numpart_from_char, NUM_eat_non_data_chars) written for this picture as a DuckDB expression.
 * The walk keeps a position in the input and the number read so far: each picture node is one step over
 * that state (a one-element list mapped by a lambda), in PostgreSQL's order. PostgreSQL walks bytes (a 9
 * steps one byte, a text node one character), so the input is read with each non-ASCII character spelled
 * as its UTF-8 length in placeholder bytes. The number is then numeric_in's with PostgreSQL's typmod
 * (precision: the picture's integer digits plus the decimals read): no digit read is 22P02, more integer
 * digits than the picture has 22003. Its scale is the decimals read: an outermost select-list item is sent
 * at that scale (pg/shown-numeric.ts), elsewhere the value has the picture's scale.
 */
import { COMPAT_DB } from './catalog/names.js';
import { castTo, type Node } from './parse-nodes.js';
import { refuse } from './pg-calls.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { describePicture, Kind, MAX_NUMBER_PICTURE, pictureNodes, VALUE, withValue } from './number-formats.js';

/** DuckDB's DECIMAL holds 38 digits: a picture of more (PostgreSQL's numeric holds 1000) is refused. */
const MAX_DIGITS = 38;

/** The state's name in each step's lambda, and its fields (see stateOf). */
const T = 'fdl_pg_t';
const FIELDS = ['s', 'p', 'g', 'd', 'r', 'a', 'q', 'i', 'e'] as const;
type Field = (typeof FIELDS)[number];

const f = (name: Field): string => `${T}.${name}`;
const ch = (offset = 0): string => `substr(${f('s')}, ${f('p')}${offset ? ` + ${offset}` : ''}, 1)`;
const isDigit = (c: string): string => `(${c} BETWEEN '0' AND '9')`;
const atEnd = `${f('p')} > length(${f('s')})`;
/** pg_mblen at the position: a lead byte's placeholder names its character's length. */
const mblen = `CASE ${ch()} WHEN chr(2) THEN 2 WHEN chr(3) THEN 3 WHEN chr(4) THEN 4 ELSE 1 END`;

/** One step: the state with some fields changed, unchanged once the input is read (NUM_processor's OVERLOAD_TEST). */
function step(changed: Partial<Record<Field, string>>, guard = atEnd): string {
  const fields = FIELDS.map((k) => `${k} => ${changed[k] ?? f(k)}`).join(', ');
  return `CASE WHEN ${guard} THEN ${T} ELSE struct_pack(${fields}) END`;
}

/** The characters NUM_eat_non_data_chars stops at. */
const DATA = [...'0123456789.,+-'].map((c) => `'${c}'`).join(', ');

/** NUM_eat_non_data_chars: up to n characters that are no digit, point, separator or sign. */
function eat(n: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < n; k++) out.push(step({ p: `${f('p')} + ${mblen}` }, `${atEnd} OR ${ch()} IN (${DATA})`));
  return out;
}

/** `to_number(text, fmt)`, fmt a constant picture; `shown` an outermost select-list item (sent at the scale read). */
export function toNumberOf(value: Node, fmt: string, shown: boolean): Node {
  if (fmt.length > MAX_NUMBER_PICTURE)
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `to_number() with a format of more than ${MAX_NUMBER_PICTURE} characters is not supported by fdl-gateway`,
    );
  const nodes = pictureNodes(fmt);
  const pic = describePicture(nodes, (text) =>
    /^(?:EEEE|RN)$/i.test(text)
      ? new SqlError(SQLSTATE.featureNotSupported, `"${text.toUpperCase()}" not supported for input`)
      : refuse(
          `to_number() pattern "${text}"`,
          'Supported in to_number: 9 0 . , D G S MI PL SG PR L FM TH, "text"; divide by a power of ten yourself for V.',
        ),
  );
  if (pic.pre + pic.post > MAX_DIGITS)
    throw refuse(
      `to_number() with a picture of more than ${MAX_DIGITS} digits`,
      "DuckDB's DECIMAL holds 38 digits: use a shorter picture, or CAST(replace(text, ',', '') AS numeric).",
    );
  const lsign = pic.lsign !== 0;
  const steps: string[] = [];
  for (const { kind } of nodes) {
    switch (kind) {
      case Kind.Nine:
      case Kind.Zero:
      case Kind.Point:
      case Kind.D: {
        const digit = kind === Kind.Nine || kind === Kind.Zero;
        // NUM_numpart_from_char: one blank skipped
        steps.push(step({ p: `${f('p')} + CASE WHEN ${ch()} = ' ' THEN 1 ELSE 0 END`, i: 'false', e: 'false' }));
        // a sign before the first digit ('<' for PR)
        if (digit) {
          const minus = pic.bracket ? `${ch()} IN ('-', '<')` : `${ch()} = '-'`;
          steps.push(
            step(
              {
                g: `CASE WHEN ${minus} THEN '-' WHEN ${ch()} = '+' THEN '+' ELSE ${f('g')} END`,
                p: `${f('p')} + CASE WHEN ${minus} OR ${ch()} = '+' THEN 1 ELSE 0 END`,
              },
              `${atEnd} OR ${f('g')} <> ' ' OR ${f('a')} > 0`,
            ),
          );
        }
        // a digit (none past the picture's decimals: that one is skipped), or the point where the picture has one
        const full = `(${f('r')} AND ${f('q')} = ${pic.post})`;
        const point = pic.dec ? `(NOT ${f('r')} AND ${ch()} = '.')` : 'false';
        steps.push(
          step({
            d: `CASE WHEN ${isDigit(ch())} AND NOT ${full} OR ${point} THEN ${f('d')} || ${ch()} ELSE ${f('d')} END`,
            a: `${f('a')} + CASE WHEN ${isDigit(ch())} AND NOT ${full} THEN 1 ELSE 0 END`,
            q: `${f('q')} + CASE WHEN ${isDigit(ch())} AND NOT ${full} AND ${f('r')} THEN 1 ELSE 0 END`,
            r: `${f('r')} OR ${point}`,
            i: `${isDigit(ch())} AND NOT ${full} OR ${point}`,
            e: `${isDigit(ch())} AND ${full}`,
          }),
        );
        // a sign after a digit read: S's right behind it, or MI/PL/SG's where the picture is not exact
        const noSign = `${atEnd} OR ${f('e')} OR ${f('g')} <> ' ' OR ${f('a')} = 0`;
        if (lsign)
          steps.push(
            step(
              {
                g: `CASE WHEN ${ch(1)} IN ('-', '+') THEN ${ch(1)} ELSE ${f('g')} END`,
                p: `${f('p')} + CASE WHEN ${ch(1)} IN ('-', '+') THEN 1 ELSE 0 END`,
              },
              `${noSign} OR NOT ${f('i')} OR ${f('p')} + 1 > length(${f('s')}) OR ${isDigit(ch(1))}`,
            ),
          );
        else if (pic.plus || pic.minus)
          steps.push(
            step({ g: `CASE WHEN ${ch()} IN ('-', '+') THEN ${ch()} ELSE ${f('g')} END` }, `${noSign} OR ${f('i')}`),
          );
        steps.push(step({ p: `${f('p')} + 1` }));
        break;
      }
      case Kind.Comma:
      case Kind.G:
        // a separator read only where the input has one (in fill mode never: no digit is `num_in` on input)
        if (!pic.fm) steps.push(step({ p: `${f('p')} + 1` }, `${atEnd} OR ${ch()} <> ','`));
        break;
      case Kind.L:
        steps.push(...eat(1));
        break;
      case Kind.TH:
      case Kind.th:
        if (!pic.dec) steps.push(...eat(2));
        break;
      case Kind.MI:
      case Kind.PL:
      case Kind.SG: {
        const signs = kind === Kind.MI ? ['-'] : kind === Kind.PL ? ['+'] : ['-', '+'];
        const list = signs.map((s) => `'${s}'`).join(', ');
        // the sign where the input has it, else one character that is no data skipped
        steps.push(
          step({
            g: `CASE WHEN ${ch()} IN (${list}) THEN ${ch()} ELSE ${f('g')} END`,
            p: `${f('p')} + CASE WHEN ${ch()} IN (${list}) THEN 1 WHEN ${ch()} IN (${DATA}) THEN 0 ELSE ${mblen} END`,
          }),
        );
        break;
      }
      case Kind.Text:
        // one input character skipped, whatever it is
        steps.push(step({ p: `${f('p')} + ${mblen}` }));
        break;
      default:
      // S, PR, FM, B, C, SP read nothing here
    }
  }
  const init = `struct_pack(s => ${COMPAT_DB}.pgcat._pgsem_numbytes(${VALUE}), p => 1, g => ' ', d => '', r => false, a => 0, q => 0, i => false, e => false)`;
  let walked = `ARRAY[${init}]`;
  for (const s of steps) walked = `list_transform(${walked}, ${T} -> (${s}))`;
  return withValue(finish(walked, pic.pre, pic.post, shown), castTo(value, 'text'));
}

/** numeric_in of the sign and digits read, with PostgreSQL's typmod: its errors, the value and the scale read. */
function finish(walked: string, pre: number, post: number, shown: boolean): string {
  const digits = `rtrim(${f('d')}, '.')`;
  const integer = `ltrim(split_part(${digits}, '.', 1), '0')`;
  const decimal = `CAST(CASE WHEN ${f('g')} = '-' THEN '-' ELSE '' END || '0' || ${digits} AS DECIMAL(38, ${post}))`;
  const width = pre + post === 0 ? 'DECIMAL(1, 1)' : `DECIMAL(${pre + post}, ${post})`;
  const value = `CASE WHEN ${digits} = '' THEN CAST(error('invalid input syntax for type numeric: "' || ${f('g')} || '"') AS DECIMAL(38, ${post}))
    WHEN length(${integer}) > ${pre} THEN CAST(CAST(${decimal} AS ${width}) AS DECIMAL(38, ${post}))
    ELSE ${decimal} END`;
  // the value computed once, then shown at the scale read (pg/shown-numeric.ts's `scaled`) or as it is
  const V = 'fdl_pg_v';
  const read = `list_transform(${walked}, ${T} -> (struct_pack(v => ${value}, q => ${f('q')})))`;
  const result = shown
    ? `struct_pack(fdl_pg_numeric => CAST(${V}.v AS DOUBLE), fdl_pg_of => 'scaled', fdl_pg_n => ${V}.q, fdl_pg_x => ${V}.v, fdl_pg_x2 => NULL)`
    : `${V}.v`;
  return `CASE WHEN ${VALUE} IS NOT NULL THEN (list_transform(${read}, ${V} -> (${result})))[1] END`;
}
