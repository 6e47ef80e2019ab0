/**
 * DuckDB's binder and catalog errors in PostgreSQL's words, where a client (or its user) reads them:
 * an unknown column (42703 `column "x" does not exist`), an operator or a function with no overload
 * for the argument types (42883, without DuckDB's list of every candidate), and a type or function
 * that lives in one of DuckDB's extensions (never the advice to install one: the engine is sealed).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { WINDOW_ONLY_FUNCTIONS } from '../analysis/window-functions.js';

/** DuckDB's error for a window function called without OVER. */
const WINDOW_WITHOUT_OVER = /^Catalog Error: Scalar Function with name (\w+) does not exist!/;

/** PostgreSQL's own window functions (DuckDB's `fill` is none of them). */
const PG_WINDOW_FUNCTIONS = new Set([...WINDOW_ONLY_FUNCTIONS].filter((f) => f !== 'fill'));

/** DuckDB's type names → PostgreSQL's (`format_type`'s spelling); a literal's type is its PostgreSQL reading. */
const PG_TYPE_NAMES: Readonly<Record<string, string>> = {
  TINYINT: 'smallint',
  SMALLINT: 'smallint',
  INTEGER: 'integer',
  INTEGER_LITERAL: 'integer',
  BIGINT: 'bigint',
  HUGEINT: 'numeric',
  DECIMAL: 'numeric',
  DOUBLE: 'double precision',
  FLOAT: 'real',
  VARCHAR: 'text',
  STRING_LITERAL: 'unknown',
  BOOLEAN: 'boolean',
  DATE: 'date',
  TIME: 'time without time zone',
  'TIME WITH TIME ZONE': 'time with time zone',
  TIMESTAMP: 'timestamp without time zone',
  'TIMESTAMP WITH TIME ZONE': 'timestamp with time zone',
  INTERVAL: 'interval',
  BLOB: 'bytea',
  UUID: 'uuid',
  JSON: 'json',
  '"NULL"': 'unknown',
  NULL: 'unknown',
};

/** One of DuckDB's type spellings as PostgreSQL names it; undefined for a type PostgreSQL has no name for. */
function pgTypeName(duck: string): string | undefined {
  const t = duck.trim();
  const array = /^(.*)\[\]$/.exec(t);
  if (array) {
    const element = pgTypeName(array[1]!);
    return element && `${element}[]`;
  }
  return PG_TYPE_NAMES[t.replace(/^DECIMAL\(\d+,\s*\d+\)$/, 'DECIMAL')];
}

/**
 * A call argument's type as PostgreSQL's parser gives it, read from DuckDB's parse where that alone
 * decides: a literal (a string or NULL is `unknown`, a number integer, bigint or numeric — `1e5` too,
 * which DuckDB reads as DOUBLE —, `true` boolean) or a cast of one to a type both spell alike. Anything
 * else (a column, an expression, a cast to VARCHAR, which is text or character varying) is undefined.
 */
export function literalPgType(node: unknown): string | undefined {
  const n = node as {
    class?: string;
    value?: { type?: { id?: string } };
    cast_type?: { id?: string };
    child?: unknown;
  };
  if (n?.class === 'CONSTANT') {
    const id = n.value?.type?.id;
    if (id === 'VARCHAR' || id === 'NULL') return 'unknown';
    if (id === 'DOUBLE' || id === 'DECIMAL' || id === 'HUGEINT') return 'numeric';
    return id === 'INTEGER' || id === 'BIGINT' || id === 'BOOLEAN' ? PG_TYPE_NAMES[id] : undefined;
  }
  if (n?.class === 'CAST' && n.cast_type?.id !== 'VARCHAR' && (n.child as { class?: string })?.class === 'CONSTANT') {
    const id = n.cast_type?.id;
    // DuckDB's FLOAT is PostgreSQL's float8 in a text not rewritten; TINYINT and HUGEINT have no PostgreSQL name
    return id && !['FLOAT', 'TINYINT', 'HUGEINT'].includes(id) ? pgTypeName(id) : undefined;
  }
  return undefined;
}

/** `a, DECIMAL(18,3), b` split at its top-level commas. */
function topLevelList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

const NO_MATCH =
  /^Binder Error: No function matches the given name and argument types '([^'(]+)\((.*)\)'\. You might need to add explicit type casts\./;
const EXTENSION_ONLY =
  /^Catalog Error: (Type|Scalar Function|Aggregate Function|Table Function|Function) with name "?([^"\s]+)"? is not in the catalog, but it exists in the (\w+) extension\./;
/** DuckDB's words for text a type cannot read → the type PostgreSQL names and the SQLSTATE its input function raises. */
const INPUT_TYPES: Readonly<Record<string, readonly [string, string]>> = {
  INTERVAL: ['interval', SQLSTATE.invalidDatetimeFormat],
  DOUBLE: ['double precision', SQLSTATE.invalidTextRepresentation],
  FLOAT: ['real', SQLSTATE.invalidTextRepresentation],
  date: ['date', SQLSTATE.invalidDatetimeFormat],
  timestamp: ['timestamp', SQLSTATE.invalidDatetimeFormat],
};
const BAD_INPUT =
  /^Conversion Error: (?:Could not convert string '((?:[^'\n]|'')*)' to (INTERVAL|DOUBLE|FLOAT)|invalid (date|timestamp) field format: "([^"\n]*)", expected format is [^\n]*)$/m;
/** A number too wide for numeric(p,s): DuckDB's cast or conversion error naming the decimal type. */
const DECIMAL_OVERFLOW =
  /^Conversion Error: Could not (?:cast value|convert string) ["']?([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)["']? to DECIMAL\((\d+),(\d+)\)/;
/** Text numeric(p,s) cannot read. */
const DECIMAL_INPUT = /^Conversion Error: Could not convert string "((?:[^"\n]|"")*)" to DECIMAL\(\d+,\d+\)/;
/** strptime's words for text its format cannot read (to_date, to_timestamp): PostgreSQL's 22007. */
const UNPARSED_DATETIME =
  /^Invalid Input Error: Could not parse string "((?:[^"\n]|"")*)" according to format specifier "/;
/** strptime's numeric specifiers, as PostgreSQL's to_date/to_timestamp patterns name them, and their widths there. */
const PG_FIELDS: ReadonlyMap<string, [string, number]> = new Map([
  ['Y', ['YYYY', 4]],
  ['y', ['YY', 2]],
  ['m', ['MM', 2]],
  ['d', ['DD', 2]],
  ['H', ['HH24', 2]],
  ['I', ['HH12', 2]],
  ['M', ['MI', 2]],
  ['S', ['SS', 2]],
  ['j', ['DDD', 3]],
]);

/**
 * strptime's "Expected a number" at a numeric field (`to_date('2024-xx-01', 'YYYY-MM-DD')`): the field
 * PostgreSQL names and the input there, as its words put them (`invalid value "xx" for "MM"`). The
 * format is walked over the input (a field reads its digits, other characters one each) to the caret.
 */
function failedField(message: string): { name: string; value: string } | undefined {
  const m =
    /^Invalid Input Error: Could not parse string "((?:[^"\n]|"")*)" according to format specifier "((?:[^"\n]|"")*)"\n[^\n]*\n( *)\^\nError: Expected a number/.exec(
      message,
    );
  if (!m) return undefined;
  const [input, format, caret] = [m[1]!.replaceAll('""', '"'), m[2]!.replaceAll('""', '"'), m[3]!.length];
  let at = 0;
  for (let i = 0; i < format.length && at <= caret; i++) {
    if (format[i] !== '%') {
      at++;
      continue;
    }
    const field = PG_FIELDS.get(format[++i] ?? '');
    if (!field) return undefined;
    if (at === caret) return { name: field[0], value: input.slice(at, at + field[1]) };
    while (at < input.length && /[0-9]/.test(input[at]!)) at++;
  }
  return undefined;
}

/** A type DuckDB's catalog lacks. */
const NO_TYPE = /^Catalog Error: Type with name "?([^"\s!]+)"? does not exist!/;
/**
 * PostgreSQL 15's built-in types that DuckDB has no type for: a cast to one is refused 0A000 (PostgreSQL
 * answers it), never DuckDB's 42704 with its nearest name (`money`: "Did you mean geometry?").
 */
const PG_ONLY_TYPES: Readonly<Record<string, string>> = {
  money:
    "Use numeric(p,2): PostgreSQL's money prints the locale's currency symbol (lc_monetary), which fdl-gateway has no locale for.",
  ...Object.fromEntries(
    ['point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle'].map((t) => [
      t,
      'fdl-gateway has no geometric types: keep the values as text or as numbers.',
    ]),
  ),
  ...Object.fromEntries(
    ['xml', 'tsvector', 'tsquery', 'pg_lsn', 'txid_snapshot', 'pg_snapshot'].map((t) => [
      t,
      'fdl-gateway has no such type: keep the values as text.',
    ]),
  ),
};
const NO_COMPARISON = /^Binder Error: Cannot compare values of type (.+) and type (.+) - an explicit cast is required/;
const OPERATOR_HINT =
  'No operator matches the given name and argument types. You might need to add explicit type casts.';
const MISSING_COLUMN =
  /^Binder Error: Referenced column "([^"]+)" not found in FROM clause!(?:\nCandidate bindings: ([^\n]*))?/;

/** RE2's words for a pattern it cannot compile (its `CodeText`s), which DuckDB passes on. */
const RE2_ERROR =
  /^Invalid Input Error: ((?:invalid escape sequence|invalid character class(?: range)?|missing [\])]|unexpected \)|trailing \\|no argument for repetition operator|invalid repetition size|bad repetition operator|invalid perl operator|invalid UTF-8|invalid named capture group)(?:: [^\n]*)?)$/m;

/**
 * DuckDB's errors for statements PostgreSQL fails the same way, in PostgreSQL's code and words: the
 * statement is the same error, only the SQLSTATE a client branches on differed.
 */
const SAME_FAILURES: ReadonlyArray<readonly [RegExp, string, (m: RegExpExecArray) => string]> = [
  [
    /^Invalid Input Error: More than one row returned by a subquery used as an expression\b/,
    SQLSTATE.cardinalityViolation,
    () => 'more than one row returned by a subquery used as an expression',
  ],
  [
    /^Out of Range Error: cannot take square root of a negative number/,
    SQLSTATE.invalidArgumentForPowerFunction,
    () => 'cannot take square root of a negative number',
  ],
  [
    /^Out of Range Error: cannot take logarithm of (zero|a negative number)/,
    SQLSTATE.invalidArgumentForLogarithm,
    (m) => `cannot take logarithm of ${m[1]}`,
  ],
  [
    /^Invalid Input Error: Argument for ntile must be greater than zero/,
    SQLSTATE.invalidArgumentForNtileFunction,
    () => 'argument of ntile must be greater than zero',
  ],
  [
    /^Conversion Error: Date out of range: (-?\d+)-(\d+)-(\d+)/,
    SQLSTATE.datetimeFieldOverflow,
    (m) => `date field value out of range: ${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`,
  ],
  // a qualified name its FROM item has not, and a qualifier no FROM item goes by: PostgreSQL's words
  [
    /^Binder Error: (?:Values list|Table) "([^"\n]+)" does not have a column named "([^"\n]+)"/,
    SQLSTATE.undefinedColumn,
    (m) => `column ${m[1]}.${m[2]} does not exist`,
  ],
  [
    /^Binder Error: Referenced table "([^"\n]+)" not found!/,
    SQLSTATE.undefinedTable,
    (m) => `missing FROM-clause entry for table "${m[1]}"`,
  ],
  // width_bucket's (pg/pg-macros.ts)
  [
    /^Invalid Input Error: (count must be greater than zero|lower bound cannot equal upper bound|operand, lower bound, and upper bound cannot be NaN|lower and upper bounds must be finite)/,
    SQLSTATE.invalidArgumentForWidthBucketFunction,
    (m) => m[1]!,
  ],
  [
    /^Invalid Input Error: thresholds array must not contain NULLs/,
    SQLSTATE.nullValueNotAllowed,
    () => 'thresholds array must not contain NULLs',
  ],
  [RE2_ERROR, SQLSTATE.invalidRegularExpression, (m) => `invalid regular expression: ${m[1]!.replace('(?s)', '')}`],
  // `f(x) OVER (…)` of a scalar function: PostgreSQL's 42809 (DuckDB's Catalog Error was 42704)
  [
    /^Catalog Error: (?!_pgsem_|fdl_pg|__fdl_)(\w+) is not an aggregate function/,
    SQLSTATE.wrongObjectType,
    (m) => `OVER specified, but ${m[1]} is not a window function nor an aggregate function`,
  ],
  [WINDOW_WITHOUT_OVER, SQLSTATE.wrongObjectType, (m) => `window function ${m[1]} requires an OVER clause`],
  // date_trunc / date_part / extract of a unit the type has none of (DuckDB's conversion error was 22P02)
  [
    /^Conversion Error: extract specifier "((?:[^"\n]|"")*)" not recognized/,
    SQLSTATE.invalidParameterValue,
    (m) => `unit "${m[1]}" not recognized`,
  ],
  // to_timestamp(float) past the timestamp range (DuckDB's conversion error was 22P02)
  [
    /^Conversion Error: Epoch seconds out of range for TIMESTAMP/,
    SQLSTATE.datetimeFieldOverflow,
    () => 'timestamp out of range',
  ],
  // chr(0) (pg/pg-macros.ts)
  [
    /^Invalid Input Error: (null character not permitted|requested character too large for encoding: \d+)/,
    SQLSTATE.programLimitExceeded,
    (m) => m[1]!,
  ],
  // an unknown zone in AT TIME ZONE or timezone() (DuckDB's Not implemented Error was 0A000)
  [
    /^Not implemented Error: Unknown TimeZone '([^'\n]*)'!/,
    SQLSTATE.invalidParameterValue,
    (m) => `time zone "${m[1]}" not recognized`,
  ],
  // to_date/to_timestamp of a field past its range (`2024-13-01`): PostgreSQL's 22008, not a format mismatch (22007)
  [
    /^Invalid Input Error: Could not parse string "((?:[^"\n]|"")*)" according to format specifier "[^\n]*\n[\s\S]*\nError: \w+ out of range\b/,
    SQLSTATE.datetimeFieldOverflow,
    (m) => `date/time field value out of range: "${m[1]}"`,
  ],
  // ORDER BY n past the select list (DuckDB's binder error was 42000)
  [
    /^Binder Error: ORDER term out of range - should be between \d+ and \d+/,
    SQLSTATE.invalidColumnReference,
    (m) => `ORDER BY position ${orderPosition(m.input)} is not in select list`,
  ],
  // GROUP BY n likewise (42P10), and set operations of different widths (PostgreSQL's 42601)
  [
    /^Binder Error: GROUP BY term out of range - should be between \d+ and \d+/,
    SQLSTATE.invalidColumnReference,
    (m) => `GROUP BY position ${orderPosition(m.input)} is not in select list`,
  ],
  [
    /^Binder Error: Set operations can only apply to expressions with the same number of result columns/,
    SQLSTATE.syntaxError,
    () => 'each set operation query must have the same number of columns',
  ],
];

/** The position an `ORDER BY n` named, from DuckDB's quote of the statement (its caret under the number). */
function orderPosition(message: string): string {
  const lines = message.split('\n');
  const i = lines.findIndex((l) => /^\s*\^\s*$/.test(l));
  const quoted = i > 0 ? /^(\s*LINE \d+: ?)(.*)$/.exec(lines[i - 1]!) : null;
  const at = quoted ? lines[i]!.indexOf('^') - quoted[1]!.length : -1;
  return (quoted && at >= 0 ? /^[+-]?\d+/.exec(quoted[2]!.slice(at))?.[0] : undefined) ?? 'n';
}

/** Which clause DuckDB's caret stands in (`limit -1` or `offset -1`): the word before the quoted value. */
function limitClause(message: string): 'LIMIT' | 'OFFSET' | undefined {
  const lines = message.split('\n');
  const i = lines.findIndex((l) => /^\s*\^\s*$/.test(l));
  const quoted = i > 0 ? /^(\s*LINE \d+: ?)(.*)$/.exec(lines[i - 1]!) : null;
  const at = quoted ? lines[i]!.indexOf('^') - quoted[1]!.length : -1;
  const word = quoted && at >= 0 ? /(\w+)[\s(]*$/.exec(quoted[2]!.slice(0, at))?.[1]?.toUpperCase() : undefined;
  // FETCH FIRST/NEXT n ROWS is a LIMIT
  return word === 'LIMIT' || word === 'FIRST' || word === 'NEXT' ? 'LIMIT' : word === 'OFFSET' ? word : undefined;
}

/** The error PostgreSQL would raise for DuckDB's `message`, or undefined to map it by kind. */
export function pgWorded(message: string): SqlError | undefined {
  // DuckDB's quote of the statement's line (LINE n: …, a caret under it) stays with the hint
  const quote = /\nLINE \d+:[\s\S]*$/.exec(message)?.[0].trim();
  // a negative LIMIT or OFFSET: PostgreSQL's 2201W / 2201X (DuckDB's binder error was 42000)
  if (/^Binder Error: LIMIT\/OFFSET cannot be negative/.test(message)) {
    const clause = limitClause(message);
    if (clause)
      return new SqlError(clause === 'LIMIT' ? '2201W' : '2201X', `${clause} must not be negative`, undefined, quote);
  }
  for (const [re, sqlstate, words] of SAME_FAILURES) {
    const m = re.exec(message);
    // a window function called without OVER: PostgreSQL's 42809 for its own window functions only
    if (
      m &&
      (sqlstate !== SQLSTATE.wrongObjectType ||
        re !== WINDOW_WITHOUT_OVER ||
        PG_WINDOW_FUNCTIONS.has(m[1]!.toLowerCase()))
    )
      return new SqlError(sqlstate, words(m), undefined, quote);
  }
  const column = MISSING_COLUMN.exec(message);
  if (column) {
    const rest = message.slice(column[0].length).trim();
    return new SqlError(
      SQLSTATE.undefinedColumn,
      `column "${column[1]}" does not exist`,
      undefined,
      [column[2] ? `Columns with similar names: ${column[2]}` : '', rest].filter((s) => s !== '').join('\n') ||
        undefined,
    );
  }
  const hint = (words: string) => (quote ? `${words}\n\n${quote}` : words);
  const noMatch = NO_MATCH.exec(message);
  if (noMatch && !/_pgsem_|fdl_pg|__fdl_/.test(noMatch[1]!)) {
    const types = topLevelList(noMatch[2]!).map(pgTypeName);
    if (types.every((t) => t !== undefined)) {
      const name = noMatch[1]!;
      const operator = /^[+\-*/<>=~!@#%^&|`?]+$/.test(name);
      if (operator && types.length === 2)
        return new SqlError(
          SQLSTATE.undefinedFunction,
          `operator does not exist: ${types[0]} ${name} ${types[1]}`,
          undefined,
          hint(OPERATOR_HINT),
        );
      if (operator && types.length === 1)
        return new SqlError(
          SQLSTATE.undefinedFunction,
          `operator does not exist: ${name} ${types[0]}`,
          undefined,
          hint('No operator matches the given name and argument type. You might need to add an explicit type cast.'),
        );
      if (!operator)
        return new SqlError(
          SQLSTATE.undefinedFunction,
          `function ${name}(${types.join(', ')}) does not exist`,
          undefined,
          hint('No function matches the given name and argument types. You might need to add explicit type casts.'),
        );
    }
  }
  const compared = NO_COMPARISON.exec(message);
  const [left, right] = [pgTypeName(compared?.[1] ?? ''), pgTypeName(compared?.[2] ?? '')];
  if (compared && left && right)
    return new SqlError(
      SQLSTATE.undefinedFunction,
      `operator does not exist: no comparison of ${left} with ${right}`,
      undefined,
      hint(OPERATOR_HINT),
    );
  const input = BAD_INPUT.exec(message.split('\n')[0]!);
  const [type, code] = input ? INPUT_TYPES[input[2] ?? input[3]!]! : [];
  if (input && type && code)
    return new SqlError(code, `invalid input syntax for type ${type}: "${input[1] ?? input[4]}"`, undefined, quote);
  const overflow = DECIMAL_OVERFLOW.exec(message);
  if (overflow) {
    const [, , p, sc] = overflow;
    const whole = Number(p) - Number(sc);
    return new SqlError(
      SQLSTATE.numericValueOutOfRange,
      'numeric field overflow',
      `A field with precision ${p}, scale ${sc} must round to an absolute value less than ${whole === 0 ? '1' : `10^${whole}`}.`,
      quote,
    );
  }
  const decimalInput = DECIMAL_INPUT.exec(message);
  if (decimalInput)
    return new SqlError(
      SQLSTATE.invalidTextRepresentation,
      `invalid input syntax for type numeric: "${decimalInput[1]}"`,
      undefined,
      quote,
    );
  const unparsed = UNPARSED_DATETIME.exec(message);
  if (unparsed) {
    const field = failedField(message);
    if (field)
      return new SqlError(
        SQLSTATE.invalidDatetimeFormat,
        `invalid value "${field.value}" for "${field.name}"`,
        'Value must be an integer.',
        quote,
      );
    return new SqlError(
      SQLSTATE.invalidDatetimeFormat,
      `invalid value "${unparsed[1]}" for its format`,
      undefined,
      message.split('\n').slice(1).join('\n').trim() || undefined,
    );
  }
  const noType = NO_TYPE.exec(message);
  const pgOnly = noType ? PG_ONLY_TYPES[noType[1]!.toLowerCase()] : undefined;
  if (noType && pgOnly)
    return new SqlError(
      SQLSTATE.featureNotSupported,
      `type ${noType[1]!.toLowerCase()} is not supported by fdl-gateway`,
      undefined,
      hint(pgOnly),
    );
  const extension = EXTENSION_ONLY.exec(message);
  if (extension) {
    const [, kind, name] = extension;
    return kind === 'Type'
      ? new SqlError(
          SQLSTATE.undefinedObject,
          `type "${name}" does not exist`,
          undefined,
          'fdl-gateway has no such type: keep the values as text.',
        )
      : new SqlError(
          SQLSTATE.undefinedFunction,
          `function ${name} does not exist`,
          undefined,
          'fdl-gateway has no such function.',
        );
  }
  return undefined;
}
