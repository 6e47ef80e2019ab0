/**
 * PostgreSQL's input functions for constants DuckDB reads differently, applied by rewrite.ts to a
 * string constant cast to a type (`'1.5'::int`, `'on'::boolean`, `timestamptz '… 12:00+00'`): the
 * constant PostgreSQL 15 reads, or its error (22P02, 22003) — never DuckDB's rounding or refusal.
 */
import {
  DYNAMIC_ZONE_ABBREVIATIONS,
  dynamicAbbreviationRefused,
  FIXED_ZONE_ABBREVIATIONS,
  offsetText,
} from './zone-abbreviations.js';
import { SqlError, SQLSTATE } from '../errors.js';

type Node = Record<string, any>;

const INT_RANGES: Record<string, readonly [string, bigint, bigint]> = {
  int2: ['smallint', -32768n, 32767n],
  smallint: ['smallint', -32768n, 32767n],
  int4: ['integer', -2147483648n, 2147483647n],
  int: ['integer', -2147483648n, 2147483647n],
  integer: ['integer', -2147483648n, 2147483647n],
  int8: ['bigint', -9223372036854775808n, 9223372036854775807n],
  bigint: ['bigint', -9223372036854775808n, 9223372036854775807n],
};

/** PostgreSQL's boolean input words (case-insensitive, trimmed); any unique prefix of them is accepted too. */
const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

/** The integer types whose input PostgreSQL reads strictly (no fraction, no exponent). */
export function isIntegerType(type: string): boolean {
  return type in INT_RANGES;
}

/**
 * `'…'::int4`: PostgreSQL accepts an optional sign and digits with surrounding spaces; anything else
 * is 22P02 and a value out of the type's range 22003 (DuckDB rounds `'1.5'` to 2).
 */
export function integerInput(type: string, text: string): Node {
  const [name, lo, hi] = INT_RANGES[type]!;
  if (!/^\s*[+-]?\d+\s*$/.test(text))
    throw new SqlError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type ${name}: "${text}"`);
  const value = BigInt(text.trim());
  if (value < lo || value > hi)
    throw new SqlError(SQLSTATE.numericValueOutOfRange, `value "${text}" is out of range for type ${name}`);
  return { A_Const: { sval: { sval: value.toString() } } };
}

/**
 * `'…'::oid`: PostgreSQL's oidin reads an unsigned 32-bit number, a negative one down to -2147483648 taken
 * modulo 2^32 (`'-1'` is 4294967295), and anything larger is 22003 (DuckDB holds an oid as a BIGINT and took it).
 */
export function oidInput(text: string): Node {
  if (!/^\s*[+-]?\d+\s*$/.test(text))
    throw new SqlError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type oid: "${text}"`);
  const value = BigInt(text.trim());
  if (value < -2147483648n || value > 4294967295n)
    throw new SqlError(SQLSTATE.numericValueOutOfRange, `value "${text}" is out of range for type oid`);
  return { A_Const: { sval: { sval: (value < 0n ? value + 4294967296n : value).toString() } } };
}

/** PostgreSQL's name holds at most NAMEDATALEN - 1 bytes. */
export const NAME_BYTES = 63;

/** `'…'::name`: namein keeps the first 63 bytes, cut before a character they would split (DuckDB kept it all). */
export function nameInput(text: string): Node {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= NAME_BYTES) return { A_Const: { sval: { sval: text } } };
  let end = NAME_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { A_Const: { sval: { sval: bytes.subarray(0, end).toString('utf8') } } };
}

/**
 * `'01/02/2024'::date`: PostgreSQL reads a date of numbers in the session's DateStyle order (MDY by default,
 * DMY or YMD where a client set it); DuckDB's reader only ISO's order (22007). The rewrite does not know
 * the session's order: refused with what to write instead.
 */
function orderedDateRefused(text: string): void {
  if (/^\s*\d{1,2}([/.-])\d{1,2}\1\d{1,4}(?![\d/.-])/.test(text))
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `a date written in DateStyle's field order ("${text.trim()}") is not supported by fdl-gateway`,
      undefined,
      "Write the date in ISO order, '2024-01-02', or read it with to_date(text, 'MM/DD/YYYY').",
    );
}

/**
 * `'4713-01-01 BC'::date`: DuckDB's reader ignored a trailing ` BC` (4713 AD) and reads only `(BC)`;
 * respelled so. Undefined for other text.
 */
export function dateInput(text: string): Node | undefined {
  // PostgreSQL reads a date's digits alone as YYYYMMDD or YYMMDD (years 70–99 are 19xx); DuckDB's reader refused them (22007).
  const digits = /^\s*(\d{4}|\d{2})(\d\d)(\d\d)\s*$/.exec(text);
  if (digits) {
    const year = digits[1]!.length === 4 ? digits[1]! : `${Number(digits[1]) < 70 ? '20' : '19'}${digits[1]}`;
    return { A_Const: { sval: { sval: `${year}-${digits[2]}-${digits[3]}` } } };
  }
  orderedDateRefused(text);
  const m = /^\s*(\d+-\d+-\d+)\s+BC\s*$/i.exec(text);
  return m ? { A_Const: { sval: { sval: `${m[1]} (BC)` } } } : undefined;
}

/** `'on'::boolean`: PostgreSQL's words (t, yes, on, 1, f, no, off, 0 and prefixes) → the constant it reads. */
export function booleanInput(text: string): Node {
  const word = text.trim().toLowerCase();
  const matches = (words: string[]) =>
    word !== '' && words.some((w) => w.startsWith(word) && (word.length > 1 || !['o'].includes(word)));
  const isTrue = matches(TRUE_WORDS);
  const isFalse = matches(FALSE_WORDS);
  if (isTrue === isFalse)
    throw new SqlError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type boolean: "${text}"`);
  return { A_Const: { sval: { sval: isTrue ? 'true' : 'false' } } };
}

/** A date/time text's parts: the date and time (seconds always written) and its zone, as DuckDB reads them. */
interface ZonedText {
  /** `YYYY-MM-DD HH:MM:SS[.f]` (the text's own separator kept). */
  at: string;
  /** `±HH:MM`, ` Area/City`, or '' when the text names no zone. */
  zone: string;
  /** A dynamic abbreviation named (`MSK`) and its zone: a timestamptz refuses it, a timestamp ignores it. */
  dynamic?: [string, string];
}

/**
 * PostgreSQL's date/time input with a zone, in the forms DuckDB's reader lacks: a time without seconds
 * (`… 12:00+00`, `12:00 UTC`, `12:00 Europe/Paris`), a one-digit or `+0530` offset, a date with a zone
 * and no time (`2024-02-10 +00`, what pgjdbc sends for `setDate` in simple mode).
 */
function zonedText(text: string): ZonedText | undefined {
  // A zone name (`… 12:00 Europe/Paris`): DuckDB reads it after a time with seconds.
  const named =
    /^(\s*\d{4}-\d\d?-\d\d?[ T])(\d\d?:\d\d)(:\d\d(?:\.\d+)?)?\s+([A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+)\s*$/.exec(
      text,
    );
  if (named) return { at: `${named[1]}${named[2]}${named[3] ?? ':00'}`, zone: ` ${named[4]}` };
  // An abbreviation (`… 10:00 EST`, `2024-01-01 PST`): PostgreSQL's fixed offset (zone-abbreviations.ts).
  const abbreviated = /^(\s*\d{4}-\d\d?-\d\d?)(?:[ T](\d\d?:\d\d)(:\d\d(?:\.\d+)?)?)?\s*([A-Za-z]{2,6})\s*$/.exec(text);
  const word = abbreviated?.[4]!.toLowerCase();
  if (abbreviated && word !== undefined && !['z', 'utc', 'gmt'].includes(word)) {
    const at = `${abbreviated[1]} ${abbreviated[2] ?? '00:00'}${abbreviated[3] ?? ':00'}`;
    const seconds = FIXED_ZONE_ABBREVIATIONS.get(word);
    if (seconds !== undefined) return { at, zone: offsetText(seconds) };
    const dynamic = DYNAMIC_ZONE_ABBREVIATIONS.get(word);
    if (dynamic) return { at, zone: '', dynamic: [abbreviated[4]!, dynamic] };
  }
  const offset = (m: RegExpExecArray, at: number): string =>
    m[at] ? `${m[at]}${m[at + 1]!.padStart(2, '0')}:${m[at + 2] ?? '00'}` : m[at + 3] ? '+00:00' : '';
  const dateOnly = /^(\s*\d{4}-\d\d?-\d\d?)\s*(?:([+-])(\d\d?)(?::?(\d\d))?|(Z|UTC|GMT))\s*$/i.exec(text);
  if (dateOnly) return { at: `${dateOnly[1]} 00:00:00`, zone: offset(dateOnly, 2) };
  const m =
    /^(\s*\d{4}-\d\d?-\d\d?[ T])(\d\d?:\d\d)(:\d\d(?:\.\d+)?)?(\s*)(?:([+-])(\d\d?)(?::?(\d\d))?|(Z|UTC|GMT))?\s*$/i.exec(
      text,
    );
  return m ? { at: `${m[1]}${m[2]}${m[3] ?? ':00'}`, zone: offset(m, 5) } : undefined;
}

/** A timestamptz constant PostgreSQL reads but DuckDB's reader does not (zonedText), respelled `… HH:MM:SS±HH:MM`. */
export function timestamptzInput(text: string): Node | undefined {
  orderedDateRefused(text);
  const parts = zonedText(text);
  if (parts?.dynamic) throw dynamicAbbreviationRefused(...parts.dynamic);
  const spelled = parts && `${parts.at}${parts.zone}`;
  return spelled === undefined || spelled === text ? undefined : { A_Const: { sval: { sval: spelled } } };
}

/**
 * A timestamp (without time zone) constant naming a zone: PostgreSQL's input ignores the zone, DuckDB's
 * reader refuses some (`… +00` after a date, a zone name: "not UTC") — the date and time alone.
 */
export function timestampInput(text: string): Node | undefined {
  orderedDateRefused(text);
  const parts = zonedText(text);
  return parts && (parts.zone !== '' || parts.at !== text) ? { A_Const: { sval: { sval: parts.at } } } : undefined;
}

/**
 * A timetz constant with a time without seconds before its offset (`'10:00+02'`, `'10:00 -03:30'`) or a
 * one-digit offset: DuckDB's reader wants `HH:MM:SS±HH:MM` (22008). Respelled so; anything else stays.
 */
export function timetzInput(text: string): Node | undefined {
  // PostgreSQL's special word for midnight UTC (DuckDB's reader: 22008)
  if (text.trim().toLowerCase() === 'allballs') return { A_Const: { sval: { sval: '00:00:00+00' } } };
  const m = /^(\s*\d\d?:\d\d)(:\d\d(?:\.\d+)?)?\s*([+-])(\d\d?)(?::?(\d\d))?\s*$/.exec(text);
  if (!m) return undefined;
  const spelled = `${m[1]}${m[2] ?? ':00'}${m[3]}${m[4]!.padStart(2, '0')}:${m[5] ?? '00'}`;
  return spelled === text ? undefined : { A_Const: { sval: { sval: spelled } } };
}

/**
 * A time of day with AM or PM (`'10:00 PM'`, `'12:30:15 am'`): PostgreSQL's 12-hour reading (12 AM is
 * midnight, 12 PM noon; an hour past 12 is 22008), respelled on the 24-hour clock DuckDB's reader wants.
 */
export function timeInput(text: string): Node | undefined {
  if (text.trim().toLowerCase() === 'allballs') return { A_Const: { sval: { sval: '00:00:00' } } };
  const leap = leapSecond(text);
  if (leap) return { A_Const: { sval: { sval: leap } } };
  const m = /^\s*(\d\d?)(:\d\d(?::\d\d(?:\.\d+)?)?)\s*(am|pm)\s*$/i.exec(text);
  if (!m) return undefined;
  const hour = Number(m[1]);
  if (hour > 12) throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
  const pm = m[3]!.toLowerCase().startsWith('p');
  const h24 = (hour % 12) + (pm ? 12 : 0);
  return { A_Const: { sval: { sval: `${String(h24).padStart(2, '0')}${m[2]}` } } };
}

/**
 * A time of day at second 60 (`'23:59:60'`, `'10:00:60.5'`): PostgreSQL reads it as the next minute's
 * start, up to `24:00:00` (past it 22008); DuckDB's reader refused it (22008).
 */
function leapSecond(text: string): string | undefined {
  const m = /^\s*(\d\d?):(\d\d):60(\.\d+)?\s*$/.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[1]) * 60 + Number(m[2]) + 1;
  const fraction = m[3] && /[1-9]/.test(m[3]) ? m[3] : '';
  if (Number(m[2]) > 59 || minutes > 24 * 60 || (minutes === 24 * 60 && fraction))
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(minutes / 60))}:${two(minutes % 60)}:00${fraction}`;
}

/** C's rint(): to the nearest integer, halves to even (the default rounding mode). */
function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * A date/time constant with more than six fractional digits (`'… 10:00:00.1234567'`): PostgreSQL
 * rounds the fraction to microseconds as its datetime parser does (`rint(fraction * 1e6)` over the
 * fraction read as a double), DuckDB's reader truncates it. The text with six digits, or, when the
 * rounding reaches the next second, the text at `.000000` and `carry` (one second to add).
 */
export function fractionRounded(text: string): { text: string; carry: boolean } | undefined {
  const m = /(\d:\d\d:\d\d)\.(\d{7,})/.exec(text);
  if (!m) return undefined;
  const micros = rint(Number(`0.${m[2]}`) * 1e6);
  const carry = micros >= 1e6;
  const digits = String(carry ? 0 : micros).padStart(6, '0');
  const at = m.index + m[1]!.length;
  return { text: `${text.slice(0, at)}.${digits}${text.slice(at + 1 + m[2]!.length)}`, carry };
}

/**
 * A timestamp at second 60 (`'2024-12-31 23:59:60'`): PostgreSQL reads it as the next minute's start,
 * into the next day or year, and refuses a fraction past it (22008); DuckDB's reader refused it (22007).
 * The text at second 59 (and `.000000`), with `carry`: a second to add, as fractionRounded's.
 */
export function timestampLeapSecond(text: string): { text: string; carry: boolean } | undefined {
  const m = /(\d:\d\d):60(?:\.(\d+))?(?!\d)/.exec(text);
  if (!m || !/^\s*\d{4}-\d\d?-\d\d?[ T]/.test(text)) return undefined;
  if (m[2] !== undefined && rint(Number(`0.${m[2]}`) * 1e6) > 0)
    throw new SqlError(SQLSTATE.datetimeFieldOverflow, `date/time field value out of range: "${text}"`);
  return { text: `${text.slice(0, m.index)}${m[1]}:59.000000${text.slice(m.index + m[0].length)}`, carry: true };
}

/**
 * A time of day's text one second later, up to PostgreSQL's `24:00:00` (the fraction at `.000000`, as
 * fractionRounded leaves it): a time has no next day to carry into, and DuckDB's time plus an interval
 * wraps (`'23:59:59.9999999'::time` had answered `00:00:00`, PostgreSQL `24:00:00`).
 */
export function timeSecondLater(text: string): string | undefined {
  const m = /(\d{1,2}):(\d\d):(\d\d)\.000000/.exec(text);
  if (!m) return undefined;
  const s = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + 1;
  if (s > 24 * 3600) return undefined;
  const two = (n: number) => String(n).padStart(2, '0');
  const later = `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.000000`;
  return text.slice(0, m.index) + later + text.slice(m.index + m[0].length);
}

/**
 * `'\xdeadbeef'::bytea`: PostgreSQL's hex format (pairs of hex digits, blanks between pairs) or its
 * escape format (`\\`, `\ooo` octal, any other character as its UTF-8 bytes). DuckDB's blob text reads
 * only `\xHH` escapes (`\xdeadbeef` was one byte and six letters), so every byte is spelled `\xHH`.
 */
export function byteaInput(text: string): Node {
  const bytes: number[] = [];
  if (text.startsWith('\\x')) {
    const digits = text.slice(2).replace(/[ \t\n\r]/g, '');
    const bad = /[^0-9a-fA-F]/.exec(digits);
    if (bad) throw new SqlError(SQLSTATE.invalidParameterValue, `invalid hexadecimal digit: "${bad[0]}"`);
    if (digits.length % 2 === 1)
      throw new SqlError(SQLSTATE.invalidParameterValue, 'invalid hexadecimal data: odd number of digits');
    for (let i = 0; i < digits.length; i += 2) bytes.push(parseInt(digits.slice(i, i + 2), 16));
  } else {
    for (const part of text.split(/(\\\\|\\[0-3][0-7][0-7]|\\)/)) {
      if (part === '\\') throw new SqlError(SQLSTATE.invalidTextRepresentation, 'invalid input syntax for type bytea');
      if (part === '\\\\') bytes.push(92);
      else if (/^\\[0-3][0-7][0-7]$/.test(part)) bytes.push(parseInt(part.slice(1), 8));
      else bytes.push(...Buffer.from(part, 'utf8'));
    }
  }
  return {
    A_Const: { sval: { sval: bytes.map((b) => `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`).join('') } },
  };
}

/**
 * PostgreSQL's special date/time inputs (`'today'::date`, `timestamp 'yesterday'`, `'epoch'`, `'now'`),
 * which DuckDB's reader refuses (22007) except `epoch`/`infinity`: the expression PostgreSQL means,
 * in the session's zone (DuckDB's current_date and now() follow TimeZone). Undefined for other text.
 */
export function specialDateTime(type: string, text: string): Node | undefined {
  const word = text.trim().toLowerCase();
  const offsets: Record<string, number> = { today: 0, tomorrow: 1, yesterday: -1 };
  if (!(word in offsets) && word !== 'now') return undefined;
  const fn = (name: string, args: Node[] = []): Node => ({
    FuncCall: { funcname: [{ String: { sval: name } }], args, funcformat: 'COERCE_EXPLICIT_CALL' },
  });
  const cast = (arg: Node, to: string): Node => ({
    TypeCast: { arg, typeName: { names: [{ String: { sval: to } }], typemod: -1 } },
  });
  const duckType = type === 'date' ? 'date' : type === 'timestamp' ? 'timestamp' : 'timestamptz';
  if (word === 'now') return type === 'date' ? fn('current_date') : cast(fn('now'), duckType);
  const day = offsets[word]!;
  const date: Node =
    day === 0
      ? fn('current_date')
      : {
          A_Expr: {
            kind: 'AEXPR_OP',
            name: [{ String: { sval: day > 0 ? '+' : '-' } }],
            lexpr: fn('current_date'),
            rexpr: { A_Const: { ival: { ival: 1 } } },
          },
        };
  return type === 'date' ? date : cast(date, duckType);
}
