/**
 * PostgreSQL's data type formatting functions (to_char, to_date, to_timestamp, to_number) as DuckDB
 * strftime/strptime calls, or a precise refusal for a pattern with no faithful translation.
 */
import { call, concatOf, castTo, intConst, str, strConst, type Node } from './parse-nodes.js';
import { refuse } from './pg-calls.js';
import { needsValue } from './param-values.js';
import { isNumberPicture, numberToCharCall } from './number-formats.js';
import { toNumberOf } from './number-input.js';
import { COMPAT_DB } from './catalog/names.js';
import { SqlError, SQLSTATE } from '../errors.js';

/** A string constant, also cast to text or varchar (`'YYYY'::varchar`, as SQLAlchemy binds a format). */
function constantText(n: Node | undefined): string | undefined {
  const names = (n?.TypeCast?.typeName?.names as Node[] | undefined)?.map((p) => p.String?.sval);
  const type = names?.[names.length - 1];
  const c = n?.TypeCast
    ? ['text', 'varchar'].includes(type) && !n.TypeCast.typeName.arrayBounds?.length
      ? n.TypeCast.arg
      : undefined
    : n;
  const text = (c as Node | undefined)?.A_Const?.sval?.sval;
  return typeof text === 'string' ? text : undefined;
}

/** to_char's date/time patterns → strftime codes, or an expression over the value (`v`). */
const DATE_PATTERNS: ReadonlyArray<readonly [string, string | ((v: Node, fm: boolean) => Node)]> = [
  ['HH24', '%H'],
  ['HH12', '%I'],
  ['HH', '%I'],
  ['MI', '%M'],
  ['SS', '%S'],
  ['MS', '%g'],
  ['US', '%f'],
  // FF3 and FF6: the fraction's milliseconds and microseconds, as MS and US (FF1, FF2, FF4, FF5 are refused)
  ['FF3', '%g'],
  ['FF6', '%f'],
  ['ff3', '%g'],
  ['ff6', '%f'],
  ['AM', '%p'],
  ['PM', '%p'],
  ['am', 'lower:%p'],
  ['pm', 'lower:%p'],
  ['YYYY', '%Y'],
  ['YY', '%y'],
  // PostgreSQL reads the numeric fields in lower case too (its keyword table lists both spellings)
  ['hh24', '%H'],
  ['hh12', '%I'],
  ['hh', '%I'],
  ['mi', '%M'],
  ['ss', '%S'],
  ['ms', '%g'],
  ['us', '%f'],
  ['yyyy', '%Y'],
  ['yy', '%y'],
  ['mm', '%m'],
  ['ddd', '%j'],
  ['dd', '%d'],
  ['MONTH', 'upper:pad:%B'],
  ['Month', 'pad:%B'],
  ['month', 'lower:pad:%B'],
  ['MON', 'upper:%b'],
  ['Mon', '%b'],
  ['mon', 'lower:%b'],
  ['MM', '%m'],
  ['DAY', 'upper:pad:%A'],
  ['Day', 'pad:%A'],
  ['day', 'lower:pad:%A'],
  ['DY', 'upper:%a'],
  ['Dy', '%a'],
  ['dy', 'lower:%a'],
  ['DDD', '%j'],
  ['DD', '%d'],
  [
    'D',
    (v) =>
      castTo(
        { A_Expr: { kind: 'AEXPR_OP', name: [str('+')], lexpr: call('dayofweek', [v]), rexpr: intConst(1) } },
        'varchar',
      ),
  ],
  ['Q', (v) => castTo(call('quarter', [v]), 'varchar')],
  [
    'd',
    (v) =>
      castTo(
        { A_Expr: { kind: 'AEXPR_OP', name: [str('+')], lexpr: call('dayofweek', [v]), rexpr: intConst(1) } },
        'varchar',
      ),
  ],
  ['q', (v) => castTo(call('quarter', [v]), 'varchar')],
  // ISO 8601 year, week (01–53) and weekday (1 = Monday); W: the week of the month, (day − 1) / 7 + 1
  ['IYYY', '%G'],
  ['iyyy', '%G'],
  // IDDD: the ISO year's day (001–371), (ISO week − 1) × 7 + ISO weekday
  ['IDDD', isoDayOfYear],
  ['iddd', isoDayOfYear],
  ['IW', isoWeek],
  ['iw', isoWeek],
  ['ID', '%u'],
  ['id', '%u'],
  ['W', weekOfMonth],
  ['w', weekOfMonth],
  // week of the year (the first starts on January 1st), century, and the year's last digits (ISO's too)
  ['WW', weekOfYear],
  ['ww', weekOfYear],
  ['CC', century],
  ['cc', century],
  ['IYY', (v, fm) => lastDigits(call('isoyear', [v]), 3, fm)],
  ['iyy', (v, fm) => lastDigits(call('isoyear', [v]), 3, fm)],
  ['IY', (v, fm) => lastDigits(call('isoyear', [v]), 2, fm)],
  ['iy', (v, fm) => lastDigits(call('isoyear', [v]), 2, fm)],
  ['I', (v, fm) => lastDigits(call('isoyear', [v]), 1, fm)],
  ['i', (v, fm) => lastDigits(call('isoyear', [v]), 1, fm)],
  ['Y,YYY', yearWithComma],
  ['y,yyy', yearWithComma],
  ['YYY', (v, fm) => lastDigits(call('year', [v]), 3, fm)],
  ['yyy', (v, fm) => lastDigits(call('year', [v]), 3, fm)],
  ['Y', (v, fm) => lastDigits(call('year', [v]), 1, fm)],
  ['y', (v, fm) => lastDigits(call('year', [v]), 1, fm)],
];

const op = (name: string, l: Node, r: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr: l, rexpr: r },
});
const caseOf = (when: Node, then: Node, otherwise: Node): Node => ({
  CaseExpr: { args: [{ CaseWhen: { expr: when, result: then } }], defresult: otherwise },
});

/** PostgreSQL's `%0*d`: zero-padded to `width` digits, none with FM. */
function zeroPadded(n: Node, width: number, fm: boolean): Node {
  return fm ? castTo(n, 'varchar') : call('printf', [strConst(`%0${width}d`), n]);
}

/** WW: (day of the year − 1) / 7 + 1, two digits. */
function weekOfYear(v: Node, fm: boolean): Node {
  return zeroPadded(op('+', op('//', op('-', call('dayofyear', [v]), intConst(1)), intConst(7)), intConst(1)), 2, fm);
}

/** CC: (year + 99) / 100, before year 1 year / 100 − 1 (C's division, as DuckDB's `//`); two digits. */
function century(v: Node, fm: boolean): Node {
  const y = call('year', [v]);
  const c = caseOf(
    op('>', y, intConst(0)),
    op('//', op('+', y, intConst(99)), intConst(100)),
    op('-', op('//', y, intConst(100)), intConst(1)),
  );
  // `%0*d` with width 2, or 3 for a negative century (its sign counts)
  return fm ? castTo(c, 'varchar') : caseOf(op('>=', c, intConst(0)), zeroPadded(c, 2, fm), zeroPadded(c, 3, fm));
}

/** Y,YYY: the year's thousands, a comma, its last three digits. */
function yearWithComma(v: Node): Node {
  const y = call('year', [v]);
  const adjusted = caseOf(op('<=', y, intConst(0)), op('-', intConst(1), y), y);
  return call('printf', [strConst('%d,%03d'), op('//', adjusted, intConst(1000)), op('%', adjusted, intConst(1000))]);
}

/** FMYYYY: the year's digits without padding (BC years counted from 1 BC, PostgreSQL's ADJUST_YEAR). */
function yearFilled(v: Node): Node {
  const y = call('year', [v]);
  return castTo(caseOf(op('<=', y, intConst(0)), op('-', intConst(1), y), y), 'varchar');
}

/** YYY, Y, IYY, IY, I: the last digits of the year (BC years counted from 1 BC, PostgreSQL's ADJUST_YEAR). */
function lastDigits(year: Node, digits: number, fm: boolean): Node {
  const adjusted = caseOf(op('<=', year, intConst(0)), op('-', intConst(1), year), year);
  return zeroPadded(op('%', adjusted, intConst(10 ** digits)), digits, fm);
}

function isoDayOfYear(v: Node, fm: boolean): Node {
  const days = op('+', op('*', op('-', call('week', [v]), intConst(1)), intConst(7)), call('isodow', [v]));
  return zeroPadded(days, 3, fm);
}

function isoWeek(v: Node, fm: boolean): Node {
  return fm ? castTo(call('week', [v]), 'varchar') : strftimeOf(v, '%V');
}

function weekOfMonth(v: Node): Node {
  const op = (name: string, l: Node, r: Node): Node => ({
    A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr: l, rexpr: r },
  });
  return castTo(op('+', op('//', op('-', call('day', [v]), intConst(1)), intConst(7)), intConst(1)), 'varchar');
}

/** strftime codes of numbers: a TH/th suffix after one writes its ordinal suffix (PostgreSQL's str_numth). */
const NUMERIC_CODES = new Set(['%H', '%I', '%M', '%S', '%g', '%f', '%Y', '%y', '%m', '%j', '%d', '%G', '%u']);
const NUMERIC_FUNCTIONS = new Set(
  ['D', 'Q', 'IW', 'W', 'WW', 'CC', 'IDDD', 'IYY', 'IY', 'I', 'Y,YYY', 'YYYY', 'YYY', 'Y'].flatMap((p) => [
    p,
    p.toLowerCase(),
  ]),
);
/** Patterns PostgreSQL has that are not translated: refused rather than printed as literal text. */
const UNSUPPORTED_PATTERN =
  /^(?:SSSSS|SSSS|TZH|TZM|TZ|OF|RM|BC|AD|B\.C\.|A\.D\.|A\.M\.|P\.M\.|TH|FX|FF[1245]|J|sssss|ssss|tzh|tzm|tz|of|rm|bc|ad|b\.c\.|a\.d\.|a\.m\.|p\.m\.|th|fx|ff[1245]|j)/;
/** Padded numeric fields lose their leading zero with FM (DuckDB's %-d). */
const FM_CODES: Readonly<Record<string, string>> = {
  '%H': '%-H',
  '%I': '%-I',
  '%M': '%-M',
  '%S': '%-S',
  '%m': '%-m',
  '%d': '%-d',
  '%j': '%-j',
  '%y': '%-y',
};

/**
 * strftime of the value with the rewrite's own codes, through the emulation's one-overload macro: the session
 * guard's two overloads (either argument order) both matched an aggregate's or a window's value, which DuckDB
 * types only after choosing (42725 for `to_char(max(ts), …)`). The codes come from a pattern of at most
 * MAX_TO_CHAR_FORMAT characters, so the guard's bound (10 bytes a code byte) holds without it.
 */
function strftimeOf(v: Node, codes: string): Node {
  return { FuncCall: { funcname: [COMPAT_DB, 'pgcat', '_pgsem_strftime'].map(str), args: [v, strConst(codes)] } };
}

/** The longest to_char pattern translated (PostgreSQL has no limit; a dashboard's are tens of characters). */
const MAX_TO_CHAR_FORMAT = 1024;

/** `to_char(timestamp, 'YYYY-MM-DD HH24:MI')`: PostgreSQL's patterns translated for strftime. */
export function toCharCall(args: Node[]): Node {
  const fmt = constantText(args[1]);
  // PostgreSQL's to_char takes a value and a format, nothing else: another count does not exist (42883)
  if (args.length !== 2)
    throw new SqlError(
      SQLSTATE.undefinedFunction,
      `function to_char with ${args.length} argument${args.length === 1 ? '' : 's'} does not exist`,
      undefined,
      "No function matches the given name and argument types: to_char takes a value and a format, to_char(ts, 'YYYY-MM-DD').",
    );
  // the stand-in describes a number's and a timestamp's call alike (a number's picture over a timestamp fails only at run)
  needsValue(args[1], 'to_char() with its format', "'9'");
  if (typeof fmt !== 'string') {
    throw refuse(
      'to_char() with a format that is not a constant',
      "Write the format as a literal: to_char(ts, 'YYYY-MM-DD').",
    );
  }
  if (fmt.length > MAX_TO_CHAR_FORMAT) {
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `to_char() with a format of more than ${MAX_TO_CHAR_FORMAT} characters is not supported by fdl-gateway`,
    );
  }
  // a number's picture (9, 0 …) formats a number, as PostgreSQL's to_char of int, numeric and float does
  if (isNumberPicture(fmt)) return numberToCharCall(args[0]!, fmt);
  const v = args[0]!;
  const parts: Node[] = [];
  let codes = '';
  const flush = () => {
    if (codes) parts.push(strftimeOf(v, codes));
    codes = '';
  };
  for (let i = 0; i < fmt.length;) {
    // One prefix, as PostgreSQL's parse_format reads it: FM (fill mode) or TM (translation mode: the
    // C locale's names, which are DuckDB's, written without padding). `FMTMMonth` is FM then `TMMonth`.
    const prefix = fmt.slice(i, i + 2);
    const fm = prefix === 'FM' || prefix === 'fm';
    const tm = prefix === 'TM' || prefix === 'tm';
    if (fm || tm) i += 2;
    if (fmt[i] === '"') {
      // Quoted text, as PostgreSQL's parse_format reads it: a backslash quotes the next character.
      for (i++; i < fmt.length && fmt[i] !== '"'; i++) {
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        codes += fmt[i] === '%' ? '%%' : fmt[i];
      }
      i++;
      continue;
    }
    if (fmt[i] === '\\' && fmt[i + 1] === '"') {
      // Outside quotes a backslash is special only before a double quote.
      codes += '"';
      i += 2;
      continue;
    }
    // the longest pattern at i, as PostgreSQL's keyword table lists longer ones first (IYYY, IYY, IY, IW, I)
    const found = DATE_PATTERNS.filter(([p]) => fmt.startsWith(p, i)).reduce<
      (typeof DATE_PATTERNS)[number] | undefined
    >((best, p) => (best && best[0].length >= p[0].length ? best : p), undefined);
    const unsupported = UNSUPPORTED_PATTERN.exec(fmt.slice(i))?.[0];
    // a longer pattern PostgreSQL knows wins over a translated prefix of it (SSSSS is not SS SS S)
    if (unsupported && unsupported.length > (found?.[0].length ?? 0)) {
      throw refuse(
        `to_char() pattern "${unsupported}"`,
        'Supported: YYYY Y,YYY YYY YY Y MM Mon Month DD DDD D Day Dy HH HH12 HH24 MI SS MS US FF3 FF6 AM PM Q CC WW IYYY IYY IY I IW ID IDDD W (or in lower case), FM, TM, a TH suffix after a number, "text".',
      );
    }
    if (!found) {
      if (UNSUPPORTED_PATTERN.test(fmt.slice(i)))
        throw refuse(
          `to_char() pattern "${UNSUPPORTED_PATTERN.exec(fmt.slice(i))![0]}"`,
          'Supported: YYYY Y,YYY YYY YY Y MM Mon Month DD DDD D Day Dy HH HH12 HH24 MI SS MS US FF3 FF6 AM PM Q CC WW IYYY IYY IY I IW ID IDDD W, FM, TM, a TH suffix after a number, "text".',
        );
      codes += fmt[i] === '%' ? '%%' : fmt[i];
      i++;
      continue;
    }
    const [pattern, foundHow] = found;
    i += pattern.length;
    // FMYYYY: the year without zero padding (`99`), a BC year counted from 1 BC as PostgreSQL's ADJUST_YEAR
    const how = fm && (pattern === 'YYYY' || pattern === 'yyyy') ? yearFilled : foundHow;
    // the SP suffix (spell mode) PostgreSQL reads and ignores: `DDSP` is `DD`
    if (fmt.startsWith('SP', i)) i += 2;
    const th = /^(?:TH|th)/.exec(fmt.slice(i))?.[0];
    if (th && (typeof how === 'function' ? NUMERIC_FUNCTIONS.has(pattern) : NUMERIC_CODES.has(how))) {
      // `DDth` → `05th`, `FMDDTH` → `5TH`: the field's text, then the suffix of its last digits
      i += 2;
      flush();
      const text = typeof how === 'function' ? how(v, fm) : strftimeOf(v, fm ? (FM_CODES[how] ?? how) : how);
      const suffix = th === 'TH' ? '_pgsem_nth_upper' : '_pgsem_nth';
      parts.push(text, { FuncCall: { funcname: [COMPAT_DB, 'pgcat', suffix].map(str), args: [text] } });
      continue;
    }
    if (typeof how === 'function') {
      flush();
      parts.push(how(v, fm));
      continue;
    }
    const code = how.replace(/^(?:upper:|lower:)?(?:pad:)?/, '');
    const caseFn = how.startsWith('upper:') ? 'upper' : how.startsWith('lower:') ? 'lower' : undefined;
    const padded = how.includes('pad:') && !fm && !tm;
    if (!caseFn && !padded) {
      codes += fm ? (FM_CODES[code] ?? code) : code;
      continue;
    }
    flush();
    let e = strftimeOf(v, code);
    if (padded) e = call('rpad', [e, intConst(9), strConst(' ')]);
    if (caseFn) e = call(caseFn, [e]);
    parts.push(e);
  }
  flush();
  if (parts.length === 1) return parts[0]!;
  // concat reads a NULL part as '': to_char of NULL is NULL however many parts its pattern makes
  const text = concatOf(parts.length ? parts : [strConst('')]);
  const isNull = { NullTest: { arg: v, nulltesttype: 'IS_NULL' } };
  return {
    CaseExpr: { args: [{ CaseWhen: { expr: isNull, result: { A_Const: { isnull: true } } } }], defresult: text },
  };
}

/** PostgreSQL's input patterns → strptime codes (to_date, to_timestamp). */
const INPUT_PATTERNS: ReadonlyArray<readonly [string, string]> = [
  ['HH24', '%H'],
  ['HH12', '%I'],
  ['HH', '%I'],
  ['MI', '%M'],
  ['SS', '%S'],
  ['MS', '%g'],
  ['US', '%f'],
  ['AM', '%p'],
  ['PM', '%p'],
  ['YYYY', '%Y'],
  ['YY', '%y'],
  ['MONTH', '%B'],
  ['Month', '%B'],
  ['month', '%B'],
  ['MON', '%b'],
  ['Mon', '%b'],
  ['mon', '%b'],
  ['MM', '%m'],
  ['DDD', '%j'],
  ['DD', '%d'],
];

function strptimeFormat(fmt: string, fn: string): string {
  let out = '';
  for (let i = 0; i < fmt.length;) {
    if (/^(?:FM|fm|TM|tm)/.test(fmt.slice(i, i + 2))) {
      i += 2;
      continue;
    }
    if (fmt[i] === '"') {
      // Quoted text (`YYYY-MM-DD"T"HH24:MI`, ISO 8601's T): read as written (a backslash quotes the next character).
      for (i++; i < fmt.length && fmt[i] !== '"'; i++) {
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        out += fmt[i] === '%' ? '%%' : fmt[i];
      }
      i++;
      continue;
    }
    // ISO 8601 year, week and weekday input (`IYYY-IW-ID`): strptime has no reading of them (they were read as literal text)
    if (/^(?:IYYY|IYY|IY|IW|IDDD|ID|I)/i.test(fmt.slice(i)))
      throw refuse(
        `${fn}() with the ISO week-date pattern "${/^(?:IYYY|IYY|IY|IW|IDDD|ID|I)/i.exec(fmt.slice(i))![0]}"`,
        "Compute the date from the ISO year, week and weekday: date_trunc('week', make_date(iyyy, 1, 4)) + ((iw - 1) * 7 + id - 1) * interval '1 day'.",
      );
    const found = INPUT_PATTERNS.find(([p]) => fmt.startsWith(p, i));
    if (found) {
      out += found[1];
      i += found[0].length;
      continue;
    }
    if (
      UNSUPPORTED_PATTERN.test(fmt.slice(i)) ||
      fmt.startsWith('Day', i) ||
      fmt.startsWith('DY', i) ||
      fmt.startsWith('Dy', i)
    ) {
      throw refuse(
        `${fn}() pattern at "${fmt.slice(i, i + 4)}"`,
        'Supported: YYYY YY MM Mon Month DD DDD HH HH12 HH24 MI SS MS US AM PM, FM, TM; or strptime(text, format).',
      );
    }
    out += fmt[i] === '%' ? '%%' : fmt[i];
    i++;
  }
  return out;
}

/** `to_date(text, fmt)` / `to_timestamp(text, fmt)` → strptime with the translated pattern. */
export function parseDateCall(fn: 'to_date' | 'to_timestamp', args: Node[]): Node {
  const fmt = constantText(args[1]);
  needsValue(args[1], `${fn}() with its format`, "'YYYY'");
  if (typeof fmt !== 'string')
    throw refuse(
      `${fn}() with a format that is not a constant`,
      `Write the format as a literal: ${fn}(text, 'YYYY-MM-DD').`,
    );
  const format = strptimeFormat(fmt, fn);
  const text = castTo(args[0]!, 'text');
  // PostgreSQL ignores input past the pattern's end (`'… 10:00:00Z'`); strptime fails on it. Only a text
  // strptime cannot read whole is cut to what the pattern reads, so a plain call costs one try_strptime.
  const cut = call('regexp_extract', [text, strConst(`^${consumedInput(format)}`)]);
  const coalesce = (args: Node[]): Node => ({ CoalesceExpr: { args } });
  const nonEmpty = { A_Expr: { kind: 'AEXPR_NULLIF', name: [str('=')], lexpr: cut, rexpr: strConst('') } };
  // A text that ends before the pattern does (`'2024-01-01'` for `'YYYY-MM-DD HH24:MI'`) leaves the rest
  // zero, as PostgreSQL: read by the longest front of the pattern that reads all of it.
  const shorter = formatFronts(format).map((front) => ({
    CaseWhen: {
      expr: call('regexp_full_match', [text, strConst(`${consumedInput(front)}\\s*`)]),
      result: call('strptime', [call('rtrim', [text]), strConst(front)]),
    },
  }));
  const whole = call('strptime', [coalesce([nonEmpty, text]), strConst(format)]);
  // (the retry inside a CASE: as a bare COALESCE argument DuckDB ran the regular expression on every row)
  const retry: Node = {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: { NullTest: { arg: text, nulltesttype: 'IS_NULL' } },
            result: { A_Const: { isnull: true } },
          },
        },
        ...shorter,
      ],
      defresult: whole,
    },
  };
  const read = coalesce([call('try_strptime', [text, strConst(format)]), retry]);
  // Without a year field PostgreSQL's is year 0, 1 BC (`to_timestamp('12:30', 'HH24:MI')` is 0001-01-01 12:30 BC);
  // strptime's is 1900.
  const parsed = /%[Yy]/.test(format)
    ? read
    : {
        A_Expr: { kind: 'AEXPR_OP', name: [str('-')], lexpr: read, rexpr: castTo(strConst('1900 years'), 'interval') },
      };
  return castTo(parsed, fn === 'to_date' ? 'date' : 'timestamptz');
}

/**
 * What each strptime code reads, as a regular expression (RE2): only where the reading ends matters (strptime
 * reads the fields), and counted repetitions would weigh on the regular-expression guard (engine/regex-guards.ts).
 */
const CODE_INPUT: Readonly<Record<string, string>> = {
  ...Object.fromEntries([...'YymdHIMSjgf'].map((c) => [c, '\\d+'])),
  p: '[AaPp]\\.?[Mm]\\.?',
  B: '[A-Za-z]+',
  b: '[A-Za-z]+',
};

/** The fronts of a strptime format that end after one of its codes, longest first, the whole one excluded. */
function formatFronts(format: string): string[] {
  const ends: number[] = [];
  for (let i = 0; i < format.length; i++) if (format[i] === '%') ends.push(++i + 1);
  return ends
    .filter((end) => end < format.length && format[end - 1] !== '%')
    .reverse()
    .map((end) => format.slice(0, end));
}

/** The text a strptime format reads from the start of its input, as a regular expression. */
function consumedInput(format: string): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '%' && i + 1 < format.length) {
      const code = format[++i]!;
      out += CODE_INPUT[code] ?? (code === '%' ? '%' : '');
    } else out += c === ' ' ? '\\s+' : c.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
  }
  return out;
}

/** `to_number(text, picture)` (number-input.ts); `shown` an outermost select-list item. */
export function toNumberCall(args: Node[], shown: boolean): Node {
  needsValue(args[1], 'to_number() with its format', "'999'");
  // PostgreSQL's to_number is strict: a NULL picture's answer is NULL
  if (args[1]?.A_Const?.isnull || args[1]?.TypeCast?.arg?.A_Const?.isnull) return castTo(args[1]!, 'numeric');
  const fmt = constantText(args[1]);
  if (typeof fmt !== 'string')
    throw refuse(
      'to_number() with a format that is not a constant',
      "Write the format as a literal: to_number(t, '999G999D99'), or CAST(replace(t, ',', '') AS numeric).",
    );
  // an empty picture's answer is NULL (numeric_to_number)
  if (fmt === '') return castTo({ A_Const: { isnull: true } }, 'numeric');
  return toNumberOf(args[0]!, fmt, shown);
}
