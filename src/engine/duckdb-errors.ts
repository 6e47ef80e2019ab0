/**
 * DuckDB reports errors as "<Kind> Error: message". Clients branch on SQLSTATE (Metabase on 42P01,
 * everyone on 57014), so map the kinds and the common messages to PostgreSQL's codes.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { COST_LIMIT_PHRASE } from './cost-guards.js';
import { EngineInternalError, isInternalMessage, isInvalidatedMessage } from './engine-failure.js';
import { NESTING_LIMIT_PHRASE } from './nesting-guards.js';
import { MERGE_LIMIT_HINT, MERGE_LIMIT_WORDS } from './merge-guards.js';
import { REGEX_WEIGHT_WORDS } from './regex-guards.js';
import { CONCAT_LIMIT_HINT, CONCAT_LIMIT_WORDS } from './concat-guards.js';
import { pgWorded } from './pg-error-words.js';

const byPattern: [RegExp, string][] = [
  [/^INTERRUPT Error/i, SQLSTATE.queryCanceled],
  // A cost guard (cost-guards.ts): an input too large for a function whose cost grows faster than it.
  [new RegExp(`^Invalid Input Error: .*${COST_LIMIT_PHRASE}`), SQLSTATE.programLimitExceeded],
  // Raised by the catalog emulation's reg* input functions (compat/install.ts), worded as PostgreSQL's.
  [/^Invalid Input Error: relation ".*" does not exist/, SQLSTATE.undefinedTable],
  [/^Invalid Input Error: function ".*" does not exist/, SQLSTATE.undefinedFunction],
  // percentile_cont's fraction (pg/pg-macros.ts _pgsem_pctcont), worded as PostgreSQL's
  [/^Invalid Input Error: percentile value .* is not between 0 and 1/, SQLSTATE.numericValueOutOfRange],
  // a float result out of range (pg/float-range-macros.ts), PostgreSQL's float.c words
  [/^Invalid Input Error: value out of range: (?:overflow|underflow)$/, SQLSTATE.numericValueOutOfRange],
  // PostgreSQL's wording, raised by the pg/pg-macros.ts overloads of calls PostgreSQL has no function for
  [/^Invalid Input Error: function \w+\([^"]*\) does not exist/, SQLSTATE.undefinedFunction],
  [/^Invalid Input Error: more than one function named ".*"/, SQLSTATE.ambiguousFunction],
  [/^Invalid Input Error: function \w+\([^"]*\) is not unique/, SQLSTATE.ambiguousFunction],
  [/^Invalid Input Error: schema ".*" does not exist/, SQLSTATE.invalidSchemaName],
  [
    /^Invalid Input Error: (type|role|language|tablespace|foreign-data wrapper|server) ".*" does not exist/,
    SQLSTATE.undefinedObject,
  ],
  // regprocedure's input without an argument list, has_sequence_privilege of a relation (none is a sequence)
  [/^Invalid Input Error: expected a left parenthesis/, SQLSTATE.invalidTextRepresentation],
  [/^Invalid Input Error: ".*" is not a sequence/, SQLSTATE.wrongObjectType],
  // the emulation's has_*_privilege lookups (pg/catalog/scalar-macros.ts privilegeMacros)
  [/^Invalid Input Error: database ".*" does not exist/, SQLSTATE.invalidCatalogName],
  [/^Invalid Input Error: column ".*" of relation ".*" does not exist/, SQLSTATE.undefinedColumn],
  [/^Invalid Input Error: unrecognized configuration parameter "/, SQLSTATE.undefinedObject],
  [
    /^Invalid Input Error: must be superuser or have privileges of pg_read_all_settings to examine "/,
    SQLSTATE.insufficientPrivilege,
  ],
  // pg_tablespace_size of pg_global (pg/catalog/scalar-macros.ts), PostgreSQL's words and code
  [/^Invalid Input Error: permission denied for tablespace /, SQLSTATE.insufficientPrivilege],
  [/^Parser Error/i, SQLSTATE.syntaxError],
  [/^Catalog Error: (Table|View|Table Function) with name .* does not exist/i, SQLSTATE.undefinedTable],
  [/^Catalog Error: Schema with name .* does not exist/i, SQLSTATE.invalidSchemaName],
  [
    /^Catalog Error: (Scalar Function|Aggregate Function|Macro Function|Function) with name .* does not exist/i,
    SQLSTATE.undefinedFunction,
  ],
  [/^Catalog Error: Type with name .* does not exist/i, SQLSTATE.undefinedObject],
  [/^Catalog Error/i, SQLSTATE.undefinedObject],
  [
    /^Binder Error: (Referenced column|Values list .* does not have a column|Table .* does not have a column)/i,
    SQLSTATE.undefinedColumn,
  ],
  [/^Binder Error: No function matches/i, SQLSTATE.undefinedFunction],
  // PostgreSQL's "function … is not unique" (an untyped argument two overloads could take).
  [
    /^Binder Error: (?:Could not choose a best candidate function|Macro .* has multiple overloads that match)/i,
    SQLSTATE.ambiguousFunction,
  ],
  [/^Binder Error: Macro .* does not support the supplied arguments/i, SQLSTATE.undefinedFunction],
  [/^Binder Error: Referenced table .* not found/i, SQLSTATE.undefinedTable],
  [/^Binder Error: Ambiguous reference/i, SQLSTATE.ambiguousColumn],
  // PostgreSQL's grouping errors (42803): a column outside GROUP BY, aggregates nested or in WHERE/GROUP BY.
  [
    /^Binder Error: (?:column .* must appear in the GROUP BY clause|aggregate function calls cannot be nested|(?:WHERE|GROUP BY) clause cannot contain aggregates)/i,
    SQLSTATE.groupingError,
  ],
  [/^Binder Error/i, SQLSTATE.syntaxErrorOrAccessRuleViolation],
  [/^Permission Error/i, SQLSTATE.insufficientPrivilege],
  // PostgreSQL's codes for a cast out of range (22003) and for bad date/time input (22008 field out
  // of range, 22007 unreadable); other conversions are 22P02 as PostgreSQL's input functions say.
  [
    /^Conversion Error: Casting value ".*" to type DECIMAL\(\d+,\d+\) failed: value is out of range/i,
    SQLSTATE.numericValueOutOfRange,
  ],
  [
    /^Conversion Error: .*(?:can't be cast because the value is out of range|out of range for (?:the )?(?:destination )?type)/i,
    SQLSTATE.numericValueOutOfRange,
  ],
  [
    /^Conversion Error: Failed to cast decimal value \S+ to type (?:INT16|INT32|INT64)\b/,
    SQLSTATE.numericValueOutOfRange,
  ],
  [/^Conversion Error: (?:date|timestamp|time|date\/time) field value out of range/i, SQLSTATE.datetimeFieldOverflow],
  [/^Conversion Error: invalid (?:date|timestamp|time|interval)(?: field)? format/i, SQLSTATE.invalidDatetimeFormat],
  [/^Conversion Error/i, SQLSTATE.invalidTextRepresentation],
  [/^Out of Range Error/i, SQLSTATE.numericValueOutOfRange],
  [/division by zero/i, SQLSTATE.divisionByZero],
  // raised by the rewrite's power (pg/pg-calls.ts checkedPower), PostgreSQL's words and code
  [
    /^Invalid Input Error: (?:a negative number raised to a non-integer power yields a complex result|zero raised to a negative power is undefined)/,
    SQLSTATE.invalidArgumentForPowerFunction,
  ],
  [/null values cannot be formatted as an SQL identifier/, SQLSTATE.nullValueNotAllowed],
  // raised by the rewrite's substr (pg/pg-spellings.ts), PostgreSQL's words and code
  [/^Invalid Input Error: negative substring length not allowed/, SQLSTATE.substringError],
  [/^Invalid Input Error: .* not supported by fdl-gateway/, SQLSTATE.featureNotSupported],
  // raised by the rewrite's literal read as an integer (pg/pg-macros.ts `_pgsem_likeof`), PostgreSQL's words and code
  [/^Invalid Input Error: invalid input syntax for type /, SQLSTATE.invalidTextRepresentation],
  [/^Invalid Input Error/i, SQLSTATE.invalidParameterValue],
  [/^Not implemented Error/i, SQLSTATE.featureNotSupported],
  // A served data file gone after its version's views were built (clients cannot name files, so any missing file is one).
  [/^IO Error: No files found that match the pattern/i, SQLSTATE.dataCorrupted],
  [/^IO Error/i, SQLSTATE.ioError],
  [/^Out of Memory Error/i, SQLSTATE.outOfMemory],
  [/^Constraint Error/i, SQLSTATE.integrityConstraintViolation],
  [/^Dependency Error/i, SQLSTATE.dependentObjectsStillExist],
  [/^Transaction Error/i, SQLSTATE.invalidTransactionState],
];

/** DuckDB's words for a Parquet file that is empty, a stream or shorter than its metadata says. */
const DAMAGED_DATA_FILE =
  /Reading parquet files from a FIFO stream is not supported|Prefetch registered for bytes outside file|too small to be a Parquet file|No magic bytes found at end of file/;

/** An allocation failed: DuckDB's memory_limit, or the process ceilings (engine/memory-ceiling.ts, memory-watchdog.ts). */
export const OUT_OF_MEMORY_HINT =
  'The statement needed more memory than the gateway allows (memoryLimit, and memoryLimit + 768 MiB for the whole process): read fewer or smaller values, or aggregate.';

/** A list builder's guard (list-guards.ts): the same series streams as a set-returning function in FROM. */
const LIST_BUILDER_LIMIT = /^Invalid Input Error: (?:generate_series|range): a list of more than /;
const REGEX_WEIGHT_LIMIT = new RegExp(`^Invalid Input Error: \\w+: ${REGEX_WEIGHT_WORDS} `);
const REGEX_WEIGHT_HINT =
  'A regular expression that is not a constant is compiled for every row: use a shorter pattern with fewer counted repetitions ({n,m}) and Unicode classes (\\pL), or a constant pattern.';
const MERGE_LIMIT = new RegExp(`^Invalid Input Error: (?:map_concat|json_merge_patch): ${MERGE_LIMIT_WORDS} `);
const LIST_BUILDER_HINT =
  'In a select list the series is built as one value, which is limited; in FROM it streams any number of rows: SELECT g FROM generate_series(1, 100000) AS g.';

const DECIMAL_OVERFLOW =
  /^Out of Range Error: Overflow in (?:addition|subtraction|multiplication|negation) of DECIMAL\(/;
const DECIMAL_OVERFLOW_HINT =
  'fdl-gateway computes numeric with at most 38 significant digits (DuckDB DECIMAL(38,s)); use double precision for larger magnitudes.';
/** Two values of at most 18 digits (a column, a subquery's): DuckDB keeps their sum or product in 18 digits. */
const DECIMAL18_OVERFLOW = /^Out of Range Error: Overflow in \w+ of DECIMAL\((?:[1-9]|1[0-8])\)/;
const DECIMAL18_OVERFLOW_HINT =
  'DuckDB computes numeric values of at most 18 digits (a table column, a subquery column) in 18 digits: cast one to numeric(38, s), e.g. x::numeric(38,2) + 1, for up to 38.';

/** DuckDB's wording of an overflow → PostgreSQL's (`integer out of range`, `numeric field overflow`). */
const PG_TYPE_WORDS: Record<string, string> = {
  INT16: 'smallint',
  INT32: 'integer',
  INT64: 'bigint',
  SMALLINT: 'smallint',
  INTEGER: 'integer',
  BIGINT: 'bigint',
};
function pgWording(message: string): string | undefined {
  const overflow =
    /^Out of Range Error: Overflow in (?:addition|subtraction|multiplication|negation) of (INT16|INT32|INT64)\b/.exec(
      message,
    ) ??
    /^Conversion Error: .*out of range for the destination type (INT16|INT32|INT64|SMALLINT|INTEGER|BIGINT)\b/.exec(
      message,
    ) ??
    /^Conversion Error: Failed to cast decimal value \S+ to type (INT16|INT32|INT64)\b/.exec(message);
  if (overflow) return `${PG_TYPE_WORDS[overflow[1]!]} out of range`;
  // numeric + - * past DuckDB's 38 digits (pg/numeric-width.ts): PostgreSQL's words for a numeric it cannot hold
  if (DECIMAL_OVERFLOW.test(message)) return 'value overflows numeric format';
  if (/^Conversion Error: Casting value ".*" to type DECIMAL\(\d+,\d+\) failed: value is out of range/.test(message))
    return 'numeric field overflow';
  return undefined;
}

/**
 * Calls PostgreSQL answers but DuckDB has no overload for: refused (0A000) with what to write instead,
 * never DuckDB's candidate list (`sum(interval)`, `to_char(interval, …)` → strftime of an INTERVAL).
 */
const NO_OVERLOAD: ReadonlyArray<readonly [RegExp, string, string]> = [
  [
    /^Binder Error: No function matches the given name and argument types '(sum|avg)\(INTERVAL\)'/,
    '$1(interval)',
    "Aggregate the seconds: $1(extract(epoch from x)) * interval '1 second' (PostgreSQL keeps months and days apart).",
  ],
  [
    /^Binder Error: No function matches the given name and argument types 'strftime\(INTERVAL, /,
    'to_char() of an interval',
    'Use extract(hour from x), extract(minute from x) … of its fields, or x::text.',
  ],
  [
    /^Binder Error: correlated columns in window functions not supported/,
    'a window function over a column of the outer query (in a correlated subquery)',
    'Compute the window in the outer query, or join the subquery’s table instead of correlating it.',
  ],
  [
    // DuckDB binds an operator's arguments before it finds a guard macro of its function's name
    // (engine/growth-guards.ts: json_extract for `->`), and cannot expand the macro over them.
    /^(?:[A-Za-z ]+ Error: )?Cannot copy bound expression/,
    "DuckDB's operator for a guarded function (JSON's -> and ->>) in a statement PostgreSQL's grammar cannot read",
    "Call the function by name there (json_extract, json_extract_string), or write the statement in PostgreSQL's syntax, where -> and ->> are translated.",
  ],
];

export function fromDuckDB(e: unknown): SqlError {
  if (e instanceof SqlError) return e;
  const message = e instanceof Error ? e.message : String(e);
  // its first line only: DuckDB adds a stack trace of the server's files and a note about its own bugs
  if (isInternalMessage(message))
    return new EngineInternalError(stripKind(message.split('\n')[0]!), isInvalidatedMessage(message));
  for (const [re, what, hint] of NO_OVERLOAD) {
    const m = re.exec(message);
    if (m)
      return new SqlError(
        SQLSTATE.featureNotSupported,
        `${what.replace('$1', m[1] ?? '')} is not supported by fdl-gateway`,
        undefined,
        hint.replaceAll('$1', m[1] ?? ''),
      );
  }
  // DuckDB's binder and catalog words as PostgreSQL's (pg-error-words.ts), after the refusals above
  const worded = pgWorded(message);
  if (worded) return new SqlError(worded.sqlstate, worded.message, undefined, worded.hint && stripKind(worded.hint));
  // A refusal raised while the statement runs (pg/pg-macros.ts refusedAtRun): `what|hint`.
  const refused = /^Invalid Input Error: ([^|\n]* is not supported by fdl-gateway)\|([^\n]*)/.exec(message);
  if (refused) return new SqlError(SQLSTATE.featureNotSupported, refused[1]!, undefined, refused[2]);
  // date_part/extract of a unit the type has not (pg/pg-value-macros.ts `_pgsem_timeunit`), in PostgreSQL's words.
  const unit = /^Invalid Input Error: (unit "[a-z_]+" not supported for type [a-z ]+)$/.exec(message);
  if (unit) return new SqlError(SQLSTATE.featureNotSupported, unit[1]!);
  // A call PostgreSQL has no function for (pg/pg-macros.ts noSuchFunction), with what to write instead: `what|hint`.
  const noFunction = /^Invalid Input Error: (function \w+\([^"|\n]*\) does not exist)\|([^\n]*)/.exec(message);
  if (noFunction) return new SqlError(SQLSTATE.undefinedFunction, noFunction[1]!, undefined, noFunction[2]);
  const missing = /^IO Error: No files found that match the pattern "([^"\n]*)"/.exec(message);
  if (missing)
    return new SqlError(
      SQLSTATE.dataCorrupted,
      `data file missing: ${missing[1]}`,
      undefined,
      'The file was removed from the repository after this version was opened; the repository needs repair (fdl verify).',
    );
  // A served data file that is no Parquet file of its size any more: replaced after its re-check (a named pipe
  // whose open engine/fifo-opens.ts released reads empty). Clients cannot name files, so it is one of the version's.
  if (DAMAGED_DATA_FILE.test(message))
    return new SqlError(
      SQLSTATE.dataCorrupted,
      `data file changed while being read: ${stripKind(message)}`,
      undefined,
      'A file of the repository was replaced while the statement ran; the repository needs repair (fdl verify).',
    );
  // A nesting guard (nesting-guards.ts), raised by error() or inside DuckDB's words for a structure it cannot read.
  const tooDeep = new RegExp(`^Invalid Input Error: (?:Value ")?(\\w+: [^"\\n]* ${NESTING_LIMIT_PHRASE})`).exec(
    message,
  );
  if (tooDeep) return new SqlError(SQLSTATE.statementTooComplex, tooDeep[1]!);
  // The concatenation ceiling (concat-guards.ts) refuses through a failing cast of its words.
  const concatenated = new RegExp(
    `^(?:Conversion Error: Could not convert string '|Invalid Input Error: )([^'\\n]*: ${CONCAT_LIMIT_WORDS} \\d+ bytes)`,
  ).exec(message);
  if (concatenated) return new SqlError(SQLSTATE.programLimitExceeded, concatenated[1]!, undefined, CONCAT_LIMIT_HINT);
  const overflow = pgWording(message);
  for (const [re, code] of byPattern) {
    if (re.test(message))
      return new SqlError(
        code,
        overflow ?? stripKind(message),
        undefined,
        code === SQLSTATE.outOfMemory
          ? OUT_OF_MEMORY_HINT
          : DECIMAL18_OVERFLOW.test(message)
            ? DECIMAL18_OVERFLOW_HINT
            : DECIMAL_OVERFLOW.test(message)
              ? DECIMAL_OVERFLOW_HINT
              : LIST_BUILDER_LIMIT.test(message)
                ? LIST_BUILDER_HINT
                : MERGE_LIMIT.test(message)
                  ? MERGE_LIMIT_HINT
                  : REGEX_WEIGHT_LIMIT.test(message)
                    ? REGEX_WEIGHT_HINT
                    : undefined,
      );
  }
  return new SqlError(SQLSTATE.internalError, stripKind(message));
}

/** "Catalog Error: Table with name x does not exist!\nDid you mean …" → first line without the kind. */
function stripKind(message: string): string {
  const body = message.replace(/^[A-Za-z ]+ Error: /, '');
  return redactServerPaths(withoutInternalNames(withoutForeignSuggestions(body.trim())));
}

const INTERNAL_NAME = /_pgsem_|fdl_pg|__fdl_|\bpgcat\b|\binfoschema\b/;

/**
 * No name of the gateway's own macros in what a client reads: the PostgreSQL-semantics macros
 * (`fdl_pg.pgcat._pgsem_sum`) are named as the function the client called, DuckDB's list of
 * candidate macros (the emulation's, or a guard's parameters) is dropped, and so is a "LINE n:"
 * quote of a text the gateway rewrote (with the caret under it).
 */
function withoutInternalNames(text: string): string {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^Candidate macros:/.test(line)) {
      while (i + 1 < lines.length && /^\s/.test(lines[i + 1]!) && lines[i + 1]!.trim() !== '') i++;
      continue;
    }
    if (/^LINE \d+:/.test(line) && INTERNAL_NAME.test(line)) {
      if (i + 1 < lines.length && /^\s*\^\s*$/.test(lines[i + 1]!)) i++;
      continue;
    }
    out.push(line.replace(/(?:"?fdl_pg"?\.)?(?:"?pgcat"?\.)?"?_pgsem_(\w+)"?/g, '$1'));
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * DuckDB's "Did you mean …" looks through every attached database: a suggestion naming one that is
 * not the client's to know (another version `NAME@id`, the frozen metadata, the emulation, DuckDB's
 * own) is dropped, whole.
 */
function withoutForeignSuggestions(text: string): string {
  return text
    .split('\n')
    .filter((line) => !(/^\s*Did you mean/i.test(line) && /@|__fdl_|fdl_pg|\b(?:memory|system|temp)\./i.test(line)))
    .join('\n');
}

/**
 * No absolute server path in an error text: DuckDB names files (data files, the cache, the temp
 * directory) by absolute path; a client sees `…/` and the file name. One linear pass.
 */
export function redactServerPaths(text: string): string {
  return text.replace(/(?<![\w.~])\/(?:[^\s'"/]+\/)+([^\s'"/]*)/g, '…/$1');
}

/** A folder of the server a client-visible text must not name: the text says `as` instead. */
export interface ServerRoot {
  readonly path: string;
  /** What replaces the folder itself; a path below it becomes relative to it. */
  readonly as: string;
}

/**
 * Client-visible text without the server's folders: `<root>/versions/x` → `versions/x` (relative
 * to the repository root, as the spec names files), `<root>` alone → its `as`. Longest roots first,
 * so the temp directory inside the cache directory is named as such.
 */
export function hideServerRoots(text: string, roots: readonly ServerRoot[]): string {
  let out = text;
  for (const r of [...roots].sort((a, b) => b.path.length - a.path.length)) {
    if (r.path.length < 2 || !out.includes(r.path)) continue;
    // the root itself, or a path below it; not a sibling that merely starts with its name
    const re = new RegExp(`${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|(?![\\w.-]))`, 'g');
    out = out.replace(re, (_m, slash: string) =>
      slash ? (r.as === '' ? '' : `${r.as}/`) : r.as || 'the repository folder',
    );
  }
  return out;
}
