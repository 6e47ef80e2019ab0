/**
 * `_pgsem_*` macros for a value's text as PostgreSQL writes it where DuckDB casts to VARCHAR its own
 * way (pg-text.ts calls them): `_pgsem_out` is the type's output function (concat, concat_ws,
 * format's %s and %L, an array's elements, a record's fields: a boolean is `t`), `_pgsem_text` the
 * cast to text (`x::text`, `'a' || x`: a boolean is `true`). Both write arrays as PostgreSQL's array
 * text (`{1,"a b",NULL}`), intervals as IntervalStyle postgres (`1 year 2 mons`), bytea as `\x…`,
 * floats with float8out's digits. A value with no faithful text (a struct that is not a row
 * constructor, a map, an array of records) is refused at run time, 0A000 with a hint.
 */
import { floatText } from './pg-float-macros.js';
import { COST_LIMIT_PHRASE } from '../engine/cost-limit.js';
import { CONCAT_LIMIT_WORDS, MAX_CONCAT_BYTES } from '../engine/concat-guards.js';

/** The scalar types named by the typed overloads: every one DuckDB could otherwise cast into another overload. */
const SCALARS = [
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'UHUGEINT',
  'DECIMAL',
  'FLOAT',
  'DOUBLE',
  'VARCHAR',
  'DATE',
  'TIME',
  'TIMESTAMP',
  'TIMESTAMP WITH TIME ZONE',
  'TIME WITH TIME ZONE',
  'INTERVAL',
  'BLOB',
  'UUID',
  'BIT',
];

/**
 * IntervalStyle postgres (EncodeInterval): `N year(s)`, `N mon(s)`, `N day(s)`, then the time
 * `[-|+]HH:MM:SS[.ffffff]` when non-zero or alone; a positive field after a negative one gets `+`.
 */
const intervalText = (
  x: string,
): string => `list_transform([{'y': datepart('year', ${x}), 'mo': datepart('month', ${x}), 'd': datepart('day', ${x}),
    'us': CAST(datepart('hour', ${x}) AS BIGINT) * 3600000000 + CAST(datepart('minute', ${x}) AS BIGINT) * 60000000 + datepart('microseconds', ${x})}], lambda fdl_pg_i:
  list_transform([{'i': fdl_pg_i, 'a': abs(fdl_pg_i['us'])}], lambda fdl_pg_j: concat_ws(' ',
    CASE WHEN fdl_pg_i['y'] <> 0 THEN CAST(fdl_pg_i['y'] AS VARCHAR) || ' year' || CASE WHEN fdl_pg_i['y'] <> 1 THEN 's' ELSE '' END END,
    CASE WHEN fdl_pg_i['mo'] <> 0 THEN CASE WHEN fdl_pg_i['y'] < 0 AND fdl_pg_i['mo'] > 0 THEN '+' ELSE '' END || CAST(fdl_pg_i['mo'] AS VARCHAR) || ' mon' || CASE WHEN fdl_pg_i['mo'] <> 1 THEN 's' ELSE '' END END,
    CASE WHEN fdl_pg_i['d'] <> 0 THEN CASE WHEN (CASE WHEN fdl_pg_i['mo'] <> 0 THEN fdl_pg_i['mo'] < 0 ELSE fdl_pg_i['y'] < 0 END) AND fdl_pg_i['d'] > 0 THEN '+' ELSE '' END
      || CAST(fdl_pg_i['d'] AS VARCHAR) || ' day' || CASE WHEN fdl_pg_i['d'] <> 1 THEN 's' ELSE '' END END,
    CASE WHEN fdl_pg_i['us'] <> 0 OR (fdl_pg_i['y'] = 0 AND fdl_pg_i['mo'] = 0 AND fdl_pg_i['d'] = 0) THEN
      CASE WHEN fdl_pg_i['us'] < 0 THEN '-' WHEN (CASE WHEN fdl_pg_i['d'] <> 0 THEN fdl_pg_i['d'] < 0 WHEN fdl_pg_i['mo'] <> 0 THEN fdl_pg_i['mo'] < 0 ELSE fdl_pg_i['y'] < 0 END) THEN '+' ELSE '' END
      || CASE WHEN fdl_pg_j['a'] < 36000000000 THEN '0' ELSE '' END || CAST(fdl_pg_j['a'] // 3600000000 AS VARCHAR)
      || ':' || lpad(CAST(fdl_pg_j['a'] // 60000000 % 60 AS VARCHAR), 2, '0') || ':' || lpad(CAST(fdl_pg_j['a'] // 1000000 % 60 AS VARCHAR), 2, '0')
      || CASE WHEN fdl_pg_j['a'] % 1000000 <> 0 THEN '.' || rtrim(lpad(CAST(fdl_pg_j['a'] % 1000000 AS VARCHAR), 6, '0'), '0') ELSE '' END END
  ))[1])[1]`;

/** One scalar's text in `x`: the output function (`cast` false) or the cast to text (a boolean's `true`). */
function scalarText(type: string, x: string, cast: boolean): string {
  switch (type) {
    case 'BOOLEAN':
      return cast ? `CAST(${x} AS VARCHAR)` : `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`;
    case 'DOUBLE':
      return floatText(15, x);
    case 'FLOAT':
      return floatText(6, x);
    case 'INTERVAL':
      // concat_ws of no parts is '': a NULL interval stays NULL
      return `CASE WHEN ${x} IS NULL THEN NULL ELSE ${intervalText(x)} END`;
    case 'BLOB':
      return `'\\x' || lower(hex(${x}))`;
    case 'DATE':
    case 'TIMESTAMP':
      // DuckDB writes an era as ` (BC)`.
      return `replace(CAST(${x} AS VARCHAR), ' (BC)', ' BC')`;
    case 'TIMESTAMP WITH TIME ZONE':
      // A zone's offset before standard time (LMT, `+00:53:28`): DuckDB writes no seconds of it.
      // ±infinity has no offset (NULL): DuckDB's text, `infinity`, is PostgreSQL's.
      return `CASE WHEN coalesce(datepart('timezone', ${x}), 0) % 60 = 0 THEN CAST(${x} AS VARCHAR)
        ELSE CAST(${x} AS VARCHAR) || CASE WHEN regexp_matches(CAST(${x} AS VARCHAR), '[+-]\\d\\d$') THEN ':00' ELSE '' END
          || ':' || lpad(CAST(abs(datepart('timezone', ${x})) % 60 AS VARCHAR), 2, '0') END`;
    default:
      return `CAST(${x} AS VARCHAR)`;
  }
}

/**
 * The most text quoting may build per value (issue 23). DuckDB computes a vector of 2,048 rows at once
 * and its string vectors are outside its memory_limit, so every copy a text function makes of a row's
 * value is held 2,048 times until the vector ends: `array[j, j]::text` over 120 KB texts of `"` (or of
 * spaces, quoted without escapes) took the process to its data limit, and once V8 died there. A quoted
 * text is counted before it is built (twice its bytes when it holds a character to escape, else its
 * bytes, plus the quotes), and the quoting makes two copies of it (the escape, in one pass, and the
 * quotes), an array's text two more (array_to_string and the braces): one call's copies stay within
 * 2,048 × 4 × 64 KiB = 512 MiB per vector, the value guards' bound (engine/value-guards.ts). Over it
 * 54000 (duckdb-errors.ts maps COST_LIMIT_PHRASE).
 */
export const MAX_QUOTED_TEXT = 64 * 1024;

/**
 * The bytes `s` may take quoted: twice its bytes when a character of `escaped` (a class) occurs in it, plus the
 * quotes. The built-in regexp_matches (system.main's: a constant class, linear in the text), not the session
 * guard's macro, which pasted into every quoting helper (quote_ident, every `oid::regclass` shown) doubled its bind.
 */
export const quotedBytes = (s: string, escaped: string): string =>
  `strlen(${s}) * CASE WHEN system.main.regexp_matches(${s}, '${escaped}') THEN 2 ELSE 1 END + 2`;

/** The refusal of `what`'s text over MAX_QUOTED_TEXT. */
export const quotedTooLarge = (what: string): string =>
  `error('${what}: a quoted text ${COST_LIMIT_PHRASE} of ${MAX_QUOTED_TEXT} bytes')`;

/** array_out: an element quoted when empty, `NULL` in any case, or holding `{}",\` or white space; `"` and `\` escaped in one pass. */
const ARRAY_QUOTE = `CASE WHEN s = '' OR (strlen(s) = 4 AND lower(s) = 'null') OR regexp_matches(s, '[{}",\\\\ \\t\\n\\r\\v\\f]')
  THEN CASE WHEN regexp_matches(s, '["\\\\]') THEN system.main.concat('"', system.main.regexp_replace(s, '(["\\\\])', '\\\\\\1', 'g'), '"')
    ELSE system.main.concat('"', s, '"') END
  ELSE s END`;

/** record_out: a field quoted when empty or holding `",\()` or white space; `"` doubled; a field over MAX_QUOTED_TEXT refused. */
const RECORD_QUOTE = `CASE WHEN s = '' OR regexp_matches(s, '[",\\\\() \\t\\n\\r\\v\\f]')
  THEN CASE WHEN ${quotedBytes('s', '["\\\\]')} > ${MAX_QUOTED_TEXT} THEN ${quotedTooLarge('record_out')}
    ELSE system.main.concat('"', replace(replace(s, '\\', '\\\\'), '"', '""'), '"') END
  ELSE s END`;

/** The element types whose text may be long (the others print a few dozen bytes at most): each element's quoted bytes. */
const LONG_ELEMENTS: Readonly<Record<string, (e: string) => string>> = {
  VARCHAR: (e) => quotedBytes(e, '[{}",\\\\ \\t\\n\\r\\v\\f]'),
  BLOB: (e) => `octet_length(${e}) * 2 + 2`,
  BIT: (e) => `length(${e})`,
};

/** A one-dimensional list's array text, its elements of `type`. */
const arrayText = (type: string, x: string): string =>
  `'{' || array_to_string(list_transform(${x}, lambda fdl_pg_e: coalesce(_pgsem_aquote(${scalarText(type, 'fdl_pg_e', false)}), 'NULL')), ',') || '}'`;

/** A list of lists (PostgreSQL's two-dimensional array). */
const matrixText = (type: string, x: string): string =>
  `'{' || array_to_string(list_transform(${x}, lambda fdl_pg_r: coalesce(${arrayText(type, 'fdl_pg_r')}, 'NULL')), ',') || '}'`;

/**
 * An array's text, refused over MAX_QUOTED_TEXT counted from its elements before anything is built
 * (elements of long types only). The list is named twice rather than passed through a one-element
 * lambda: `[x]` copies every element's bytes into a new list (RSS 1.36 GB before the refusal of a
 * vector of 120 KB elements), where the check reads the list in place.
 */
const boundedArrayText = (type: string, x: string, dims: 1 | 2): string => {
  const text = dims === 1 ? arrayText(type, x) : matrixText(type, x);
  const bytes = LONG_ELEMENTS[type];
  if (!bytes) return text;
  const elements = dims === 1 ? x : `flatten(${x})`;
  const size = `coalesce(list_sum(list_transform(${elements}, lambda fdl_pg_b: coalesce(${bytes('fdl_pg_b')}, 4) + 1)), 0)`;
  return `CASE WHEN ${size} > ${MAX_QUOTED_TEXT} THEN ${quotedTooLarge('array_out')} ELSE ${text} END`;
};

const NO_TEXT =
  'this value as text (a record, a map or an array of them) is not supported by fdl-gateway|Select the fields or elements themselves, or build the text with concat() of them.';

/** A value with no faithful text: refused when a row has one (its type is known only at bind time). */
const other = (
  x: string,
): string => `CASE WHEN ${x} IS NULL THEN NULL WHEN regexp_matches(typeof(${x}), '^(STRUCT|MAP|UNION)|\\]$')
  THEN error('${NO_TEXT}')
  ELSE CAST(${x} AS VARCHAR) END`;

/**
 * A value whose type no tag could name (an aggregate inside an expression, a value inside a
 * subquery): its type read by name when it runs, each value re-read from DuckDB's text into its type.
 */
const untyped = (x: string, cast: boolean): string => {
  const as = (type: string) => `TRY_CAST(CAST(${x} AS VARCHAR) AS ${type})`;
  return `CASE WHEN ${x} IS NULL THEN NULL
  WHEN typeof(${x}) = 'BOOLEAN' THEN ${cast ? `CAST(${x} AS VARCHAR)` : `CASE CAST(${x} AS VARCHAR) WHEN 'true' THEN 't' ELSE 'f' END`}
  WHEN typeof(${x}) = 'DOUBLE' THEN ${floatText(15, as('DOUBLE'))}
  WHEN typeof(${x}) = 'FLOAT' THEN ${floatText(6, as('DOUBLE'))}
  WHEN typeof(${x}) = 'INTERVAL' THEN ${intervalText(as('INTERVAL'))}
  WHEN typeof(${x}) = 'BLOB' THEN '\\x' || lower(hex(${as('BLOB')}))
  WHEN typeof(${x}) IN ('DATE', 'TIMESTAMP') THEN replace(CAST(${x} AS VARCHAR), ' (BC)', ' BC')
  WHEN regexp_matches(typeof(${x}), '^(STRUCT|MAP|UNION)|\\]$')
  THEN error('the text of this value (an array or a record) inside a subquery or around an aggregate is not supported by fdl-gateway|Select the value as its own column, or build its text from its elements or fields.')
  ELSE CAST(${x} AS VARCHAR) END`;
};

const family = (name: string, cast: boolean): Array<[string, string]> => [
  [`${name}_any(x)`, untyped('x', cast)],
  ...SCALARS.map((t): [string, string] => [`${name}(t ${t}, x)`, scalarText(t, 'x', cast)]),
  ...SCALARS.map((t): [string, string] => [`${name}(t ${t}[], x)`, boundedArrayText(t, 'x', 1)]),
  ...SCALARS.map((t): [string, string] => [`${name}(t ${t}[][], x)`, boundedArrayText(t, 'x', 2)]),
  [`${name}(t, x)`, other('x')],
];

/**
 * The engine's guards shadow these built-ins with typed macros (engine/value-guards.ts), whose
 * overload DuckDB cannot pick for a correlated value inside a subquery: called as the built-ins,
 * each growing a value at most linearly here. (regexp_matches stays the guard's: over the gateway's own
 * constant patterns the built-in saved psql's \d+ 1.4 ms a call, but held memory after 8,192 quoted 120 KB
 * values — memory-ceilings.test.ts › quoted copies, 74 MiB above the start — session 52.)
 */
const BUILT_IN = /(?<![.\w])(repeat|lpad|rpad|replace|hex|array_to_string)\(/g;

/** The most operands one `_pgsem_pipes` call takes; a longer chain nests a call as the first operand. */
export const MAX_PIPES_OPERANDS = 16;

/**
 * A chain of `||` (`a || b || c …`) as one n-ary call (rewrite-operators.ts): DuckDB keeps every binary
 * `||`'s output vector until its chunk is done, so k operands held 2 + 3 + … + k copies of each row's value
 * (six copies of a 100 KB column over 8,192 rows: 2,557 MiB with memoryLimit 1GB, session 52); concat holds
 * one. `||`'s meaning kept: NULL if any operand is NULL (concat skips them), each operand after the first at
 * most MAX_CONCAT_BYTES (the `||` guard's ceiling, engine/concat-guards.ts), lists joined as lists; BLOBs
 * only stay the binary chain (bytea || bytea is bytea, concat's result text). Both are judged from the
 * operands' sizes before the call, in one lambda over the list of sizes (NULL when one is NULL, the refusal
 * when one is over): each operand is named twice, its size and the call (CONCAT_GUARD_COPIES).
 */
function pipesMacros(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const refusal = `error('||: ${CONCAT_LIMIT_WORDS} ${MAX_CONCAT_BYTES} bytes')`;
  for (let n = 3; n <= MAX_PIPES_OPERANDS; n++) {
    const a = Array.from({ length: n }, (_, i) => `a${i + 1}`);
    // the first operand's size only for its NULL: as the `||` guard, only what is appended is held to the ceiling
    const sizes = a.map((x, i) => `strlen(CAST(${x} AS VARCHAR))${i === 0 ? ' * 0' : ''}`);
    const judged = `system.main.list_transform([[${sizes.join(', ')}]], lambda fdl_pg_l: CASE WHEN system.main.list_count(fdl_pg_l) < system.main.len(fdl_pg_l) THEN NULL WHEN system.main.list_max(fdl_pg_l) > ${MAX_CONCAT_BYTES} THEN ${refusal} ELSE 0 END)[1]`;
    out.push([
      `_pgsem_pipes(${a.map((x) => `${x} BLOB`).join(', ')})`,
      a.reduce((l, x) => `system.main."||"(${l}, ${x})`),
    ]);
    out.push([
      `_pgsem_pipes(${a.join(', ')})`,
      `CASE WHEN ${judged} IS NULL THEN NULL ELSE system.main.concat(${a.join(', ')}) END`,
    ]);
  }
  return out;
}

export const PG_TEXT_MACROS: ReadonlyArray<[string, string]> = (
  [
    ['_pgsem_aquote(s)', ARRAY_QUOTE],
    ['_pgsem_rquote(s)', RECORD_QUOTE],
    ...family('_pgsem_out', false),
    ...family('_pgsem_text', true),
    // array_to_string's elements: each element's output text, a NULL one as n (NULL: array_to_string skips it).
    ...SCALARS.map((t): [string, string] => [
      `_pgsem_elems(t ${t}[], x, n)`,
      `list_transform(x, lambda fdl_pg_e: coalesce(${scalarText(t, 'fdl_pg_e', false)}, n))`,
    ]),
    ['_pgsem_elems(t, x, n)', `list_transform(x, lambda fdl_pg_e: coalesce(${other('fdl_pg_e')}, n))`],
    ['_pgsem_elems_any(x, n)', `list_transform(x, lambda fdl_pg_e: coalesce(${untyped('fdl_pg_e', false)}, n))`],
    // A value inside a subquery (a correlated column, whose own type cannot pick a typed overload there) or a
    // subquery's own value (bound twice as its own tag, nested ones 2^n times): bound once as a lambda's, whose
    // type picks the overload. `_any`'s reading of the type name at run time bound every type's branch: psql's
    // \dp bound 29 MB of plan. The list around the value copies it three times per vector (a column of 120 KB
    // texts took RSS past memoryLimit + 1 GiB), so a text, whose text is itself, skips it: typeof folds when
    // DuckDB binds, and only one branch is left. `_sub` binds it once, by the lambda alone: for a value
    // holding a subquery or another macro (pg-text.ts), which `_once`'s three namings would bind 3^n times nested.
    ...(['out', 'text'] as const).flatMap((f): Array<[string, string]> => [
      [
        `_pgsem_${f}_once(x)`,
        `CASE WHEN typeof(x) = 'VARCHAR' THEN CAST(x AS VARCHAR) ELSE list_transform([x], lambda fdl_pg_o: _pgsem_${f}(fdl_pg_o, fdl_pg_o))[1] END`,
      ],
      [`_pgsem_${f}_sub(x)`, `list_transform([x], lambda fdl_pg_o: _pgsem_${f}(fdl_pg_o, fdl_pg_o))[1]`],
    ]),
    [
      '_pgsem_elems_once(x, n)',
      `CASE WHEN typeof(x) = 'VARCHAR[]' THEN list_transform(x, lambda fdl_pg_e: coalesce(fdl_pg_e, n)) ELSE list_transform([x], lambda fdl_pg_o: _pgsem_elems(fdl_pg_o, fdl_pg_o, n))[1] END`,
    ],
    ['_pgsem_elems_sub(x, n)', 'list_transform([x], lambda fdl_pg_o: _pgsem_elems(fdl_pg_o, fdl_pg_o, n))[1]'],
    // `a || b`: a side that is not a list is cast to text as PostgreSQL's anytextcat does; lists stay lists.
    // bytea || bytea is bytea: a BLOB stays one.
    ...SCALARS.filter((t) => t !== 'BLOB').map((t): [string, string] => [
      `_pgsem_cat(t ${t}, x)`,
      scalarText(t, 'x', true),
    ]),
    // (a record or a map beside || would be DuckDB's struct text: refused as in ::text)
    [
      '_pgsem_cat(t, x)',
      `CASE WHEN regexp_matches(typeof(x), '^(STRUCT|MAP|UNION)') THEN error('${NO_TEXT}') ELSE x END`,
    ],
    ['_pgsem_cat_any(x)', 'x'],
    // a value holding a subquery, bound once (pg-text.ts byType)
    ['_pgsem_cat_sub(x)', 'list_transform([x], lambda fdl_pg_o: _pgsem_cat(fdl_pg_o, fdl_pg_o))[1]'],
    ...pipesMacros(),
  ] as Array<[string, string]>
).map(([sig, body]) => [sig, body.replace(BUILT_IN, 'system.main.$1(')]);
