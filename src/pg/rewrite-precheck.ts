/**
 * The rewrite's cheap pre-check (rewrite.ts): which statement texts may need the PostgreSQL grammar at
 * all. Most statements match nothing here and skip the parse.
 */
import { mapSegments } from '../text/split.js';
import { NUMBER_LIKE_LITERAL } from './compared-literals.js';
import { TYPE_INPUT_CALL } from './type-input-calls.js';

/**
 * Cheap pre-check: only statements matching this go through the parser. Exact for casts, COLLATE
 * and ANY/ALL: it flags what the walk below changes. Over-matches that remain, and why harmless
 * (the parse finds nothing to change and the text goes to DuckDB as written, as without the parse):
 * a prefix `~` (bitwise NOT) — telling it from the regex operators needs the grammar; catalog-ish
 * names (pg_…, current_user…) used as plain identifiers.
 */
const CATALOGISH =
  /pg_|information_schema|::\s*(?:"?(?:reg[a-z]+|oid|name|int2vector|oidvector|jsonb|xid|bpchar)\b|"char")|~|\bcurrent_(?:setting|schemas?|user|database|catalog|role)\b|\bsession_user\b|\bversion\s*\(|\bset_config\b|\bhas_\w+_privilege\b|\bformat_type\b|\b(?:txid_current|getdatabaseencoding|regclass_oid)\b|\bacldefault\b|\barray_remove\b|\b(?:obj|col|shobj)_description\b|\bquote_(?:ident|literal)\b|\bparse_ident\b|\barray_(?:lower|upper)\b|\binet_|\bto_reg|\bjsonb?_build_object\b|'\{[^']*\}'|\bas\s+"?(?:pg_catalog"?\."?)?reg[a-z]+\b|(?:=|<>|!=)\s*(?:any|some)\s*\(|(?:<>|!=)\s*all\s*\(|\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i;
/**
 * A string constant cast to a type whose input PostgreSQL reads differently (pg-input.ts): `'…'::int`,
 * `CAST('…' AS boolean)`, `timestamptz '…'`, `'today'::date`. The pre-check sees literals as `''`.
 */
const LITERAL_TYPES = String.raw`(?:int[248]?|integer|smallint|bigint|bool(?:ean)?|bytea|timestamptz|timestamp|timetz|time|date)\b`;
const LITERAL_INPUT = String.raw`''\s*::\s*(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\bcast\s*\(\s*''\s+as\s+(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\b${LITERAL_TYPES}\s*''`;
/**
 * PostgreSQL meanings DuckDB spells differently (compat/pg-calls.ts): set-returning generate_series,
 * format(), TABLESAMPLE percentages, numeric constants, char(n)/varchar(n) and char without a length (char(1)
 * in PostgreSQL's grammar), a zero divisor (22012),
 * row constructors in a select list (records), `float` (PostgreSQL's float8, DuckDB's FLOAT is 4 bytes),
 * a value's text in `||`, concat, concat_ws and array_to_string (pg-text.ts).
 * Also the operators and clauses of pg-operators.ts (`#>`, `LIKE ANY`, `ORDER BY … USING`).
 */
/**
 * A minus near something that is syntactically a date (date - date is int4 in PostgreSQL); a minus
 * whose operands' types decide (time - time an interval) is MINUS below.
 */
const DATE_SIDE = /\bdate\s*''|::\s*date\b|\bcurrent_date\b|\bmake_date\s*\(/gi;
const BINARY_MINUS = /\s-\s/g;
/**
 * Result types and forms of pg-forms.ts: int4 lengths and ranks, numeric extract, date_trunc of a date,
 * BETWEEN SYMMETRIC, WITH TIES, jsonb's `?` and containment operators, an array joined to an element, a value cast to text,
 * lag/lead with a default (their common type), `^` and power (2201F), CASE/COALESCE/GREATEST/LEAST (the chosen value's numeric scale).
 */
const PG_TYPED_RESULTS = String.raw`\^|\bpow(?:er)?\s*\(|\b(?:sqrt|exp|ln|log|log10)\s*\(|\b(?:coalesce|greatest|least)\s*\(|\bcase\b|\b(?:lag|lead)\s*\([^();]*,[^();]*,|\b(?:lag|lead)\s*\([^();]*,\s*\$\d|\b(?:upper|lower|length|bit_length|to_hex|char_length|character_length|octet_length|strpos|position|array_length|json_array_length|ntile|grouping|extract|date_trunc|date_part|percentile_cont|sign|gcd|lcm)\s*\(|::\s*(?:text|varchar)\b|\bas\s+(?:text|varchar)\s*\)|\bjsonb\s*''|\bsymmetric\b|\bwith\s+ties\b|\?|@>|<@`;
/**
 * A subscript PostgreSQL bounds where DuckDB counts from the end (array-subscripts.ts): anything but a
 * positive integer; and a multi-dimensional ARRAY[[…]], subscripted in every dimension at once
 * (`(array[[1,2],[3,4]])[1]` is NULL).
 */
const SUBSCRIPT = String.raw`(?<!\barray)(?<=[\w"\])])\[(?!\s*[1-9]\d*\s*\])|\barray\s*\[\s*\[`;
/** A binary minus of something not a number: DuckDB's binder picks PostgreSQL's rule by the operands' types (typed-minus.ts). */
const MINUS = String.raw`[\w"')\]]\s*-\s*(?![\d.\s-])`;
/** An untyped literal beside `*` or `+`: read as the other operand's type (arithmetic-literals.ts; `/`, `%` below). */
const LITERAL_ARITHMETIC = String.raw`''\s*[*+]|[*+]\s*''`;
/**
 * An integer constant beside `*`, `+` or a binary `-` and a name, a parameter or a parenthesis (two constants
 * DuckDB types as PostgreSQL): int4 in PostgreSQL, where DuckDB narrows it to a smallint
 * column's or parameter's type (`qty * 10000`, psycopg 3's int2 in `%s * 1000`: 22003), rewrite-operators.ts int4Constant.
 */
const INTEGER_ARITHMETIC = String.raw`(?:(?<![\w$])[A-Za-z_][\w$]*|"[^"]*"|[)\]]|(?<![\w$])\$\d+)\s*[*+-]\s*\d+(?![\w.])|(?<![\w.$])\d+(?![\w.])\s*[*+-]\s*(?:[A-Za-z_"(]|\$\d)`;
/**
 * `+` or `*` between names, parameters or parentheses (`price * qty`): a float result is checked for overflow
 * and underflow (float-range.ts). `select *`, `distinct *` are not operators.
 */
const FLOAT_ARITHMETIC = String.raw`(?:(?<![\w$])(?!(?:select|distinct|all)\b)[A-Za-z_][\w$.]*|"[^"]*"|[)\]])\s*[*+]\s*(?:[A-Za-z_"(]|\$\d)`;
/** An ARRAY[…] and after it a fraction: numeric constants of mixed scales (numeric-arrays.ts). */
const FRACTION_ARRAY = [/\barray\s*\[/gi, /\.\d/g];
/** A set operation with a string literal or a fraction: its column's type or scale (set-operation-types.ts). */
const SET_OPERATION = /\b(?:union|intersect|except)\b/gi;
const LITERAL_OR_FRACTION = /''|\.\d/g;
/** Bit strings (bit-strings.ts): B'…' and X'…' constants, bit(n) and varbit. */
const BIT_STRINGS = /\b[bx]''|::\s*(?:"?pg_catalog"?\.)?"?(?:varbit|bit)\b|\bbit\s*(?:varying\b|\()/i;
/**
 * Window calls PostgreSQL refuses (rewrite-calls.ts refuseWindowForms): an aggregate's ORDER BY or DISTINCT
 * before OVER, nth_value, a negative frame offset. A float4 written as such beside another number (float8 in
 * PostgreSQL, rewrite-operators.ts float4Widened); chr (its 54000 for 0).
 */
const WINDOW_AND_FLOAT4 = String.raw`\border\s+by\b[^()]*\)\s*over\b|\(\s*distinct\b[^()]*\)\s*over\b|\bnth_value\s*\(|-\s*\d+\s+(?:preceding|following)\b|::\s*(?:real|float4)\b|\b(?:real|float4)\s*''|\bas\s+(?:real|float4)\s*\)|\bchr\s*\(|\boverlaps\b`;
/**
 * A long fraction constant beside +, - or *: a sum or product that may pass DuckDB's 18-digit DECIMAL, widened
 * to its 128-bit one (numeric-width.ts; shorter constants rarely reach 18 digits with what they meet).
 */
const WIDE_FRACTION = String.raw`(?<![\w.])(?=[\d.]{11})\d*\.\d+\s*[*+-]|[*+-]\s*(?=[\d.]{11})\d*\.\d+(?![\w.])`;
const PG_MEANING_WORDS = String.raw`::\s*json\b|\bas\s+json\s*\)|${WIDE_FRACTION}|${FLOAT_ARITHMETIC}|\btrunc\s*\(|\|\/|${WINDOW_AND_FLOAT4}|${SUBSCRIPT}|${MINUS}|${LITERAL_ARITHMETIC}|${INTEGER_ARITHMETIC}|\bfloat\b|\d[eE][+-]?\d|\bgenerate_series\b|\bformat\s*\(|\btablesample\b|\bnumeric\b|\bdecimal\b|\b(?:char|character|varchar|bpchar)\s*\(|::\s*(?:char|character)\b(?!\s*(?:\(|varying\b))|\bas\s+(?:char|character)\s*\)|\bcharacter\s+varying\s*\(|[/%]|\brow\s*\(|(?:\bselect|,)\s*\([^()]*,|\b(?:to_char|to_date|to_timestamp|to_number|initcap|jsonb?_agg|json_object_agg|json_build_array|overlay|make_interval|justify_(?:hours|days|interval)|width_bucket|jsonb?_typeof|jsonb_array_length|date_bin|regexp_matches|pg_typeof|pg_size_pretty|encode|decode|scale|min_scale|trim_scale|quote_nullable|jsonb_pretty|clock_timestamp|statement_timestamp|timeofday)\s*\(|\bsimilar\s+to\b|#|\bcardinality\s*\(|\bsubstr(?:ing)?\s*\(|\b(?:corr|regr_slope)\s*\(|::\s*(?:int2|smallint)\b|\bas\s+smallint\b|\bbtrim\s*\(|\b(?:current_|local)?(?:time|timetz|timestamp|timestamptz)\s*\(|\bwith(?:out)?\s+time\s+zone\s*\(|\b[lr]pad\s*\(|\bsha256\s*\(|\bregexp_(?:replace|split_to_array|split_to_table|match|like|count|substr|instr)\s*\(|::\s*time\b|::\s*(?:timestamptz|timestamp|interval)\s*\(|''\s*::\s*interval\b|\binterval\s*''|\bas\s+time\s*\)|\bas\s+interval\s*\)|\bjsonb?_(?:each|array_elements|object_keys|extract_path)\w*\s*\(|\b(?:i?like)\s+(?:any|some|all)\s*\(|\busing\s*[<>]|\b(?:sum|avg|round|variance|stddev(?:_samp|_pop)?|var_(?:samp|pop))\s*\(|\|\||\b(?:concat|concat_ws|array_to_string)\s*\(|-\s*2147483648(?![\d.eE])|${PG_TYPED_RESULTS}`;
/**
 * Whole-row references (pg-rows.ts) are a name read twice: as a select item, tested for NULL, counted or
 * aggregated, and as what a FROM item goes by. A backreference across the text (`(\w+)…[^;]*?\1`) is
 * tried from every item: a 128 KB `IN (1, 2, …)` list took 2.5 s. The names are gathered in one pass
 * each instead and compared (ignoring statement boundaries: an over-match costs a parse, never an answer).
 */
/** A select list's only item (`select t from (…) t`, `select c from customers c`). */
const ONLY_ITEM = /\bselect\s+(\w+)\s+from\b/gi;
/** A name after a word or `)` that is not a clause's keyword: where ONLY_ITEM's alias may stand. */
const NAMED_AFTER_WORD =
  /(?<=[\w)])(?<!\b(?:by|where|on|and|or|not|when|then|else|in|is))\s+(\w+)(?:(?<=\bas)\s+(\w+))?/gi;
/** A bare name among other select items (`select 1, t from … t`). */
const BARE_ITEM = /(?:\bselect\s+(?:distinct\s+)?|,)\s*(\w+)\s*(?=,|\bfrom\b)/gi;
/** A name tested for NULL, counted or aggregated into an array. */
// (in a lookahead: in `x is null is not null` both `x` and `null` are tested)
const TESTED_NAME = /\b(\w+)(?=\s+is\s+(?:not\s+)?null\b)|\b(?:count|array_agg)\s*\(\s*(\w+)\s*\)/gi;
/**
 * What a FROM item goes by: its table's name (`from sales.orders`), its alias after a table or a `)`
 * (`from sales.orders o`, `join … o`, `(…) o`), and the aliases of a FROM clause's comma-listed tables
 * (`from a x, b o`, without parentheses between). After `as`, both words: a name may be `as` itself.
 */
// every part of a qualified name: `from sales.orders` may be read as `orders` or `sales`
const FROM_TABLE = /\b(?:from|join)(?=\s+((?:[\w"]+\.)*"?\w+))/gi;
// Only the keyword or `)` is consumed, the rest read in a lookahead: a global match goes on after the
// last, and in `from a join b x` (or `join from t x`) the next one begins inside it.
const FROM_ALIAS =
  /(?:\b(?:from|join)(?=\s+(?:[\w"]+\.)*[\w"]+\s+(\w+)(?:(?<=\bas)\s+(\w+))?)|\)(?=\s+(\w+)(?:(?<=\bas)\s+(\w+))?))/gi;
const FROM_LIST = /\bfrom\b[^;()]*/gi;
const LISTED_ALIAS = /,\s*(?:[\w"]+\.)*[\w"]+\s+(\w+)(?:(?<=\bas)\s+(\w+))?/gi;

/** Each name a global pattern's groups capture, lower-cased (PostgreSQL folds unquoted names), and where it was last found. */
function lastFound(text: string, pattern: RegExp, into = new Map<string, number>()): Map<string, number> {
  for (const m of text.matchAll(pattern))
    for (const name of m.slice(1))
      if (name !== undefined) into.set(name.toLowerCase(), Math.max(m.index, into.get(name.toLowerCase()) ?? -1));
  return into;
}

function fromItemNames(text: string): Map<string, number> {
  const names = lastFound(text, FROM_ALIAS);
  for (const m of text.matchAll(FROM_TABLE))
    for (const part of m[1]!.replaceAll('"', '').split('.'))
      names.set(part.toLowerCase(), Math.max(m.index, names.get(part.toLowerCase()) ?? -1));
  for (const clause of text.matchAll(FROM_LIST)) {
    for (const [name, at] of lastFound(clause[0], LISTED_ALIAS))
      names.set(name, Math.max(clause.index + at, names.get(name) ?? -1));
  }
  return names;
}

/** Whether a name `pattern` captures is found again after it, among `later`'s names. */
function foundAfter(text: string, pattern: RegExp, later: () => Map<string, number>): boolean {
  let names: Map<string, number> | undefined;
  for (const m of text.matchAll(pattern)) {
    names ??= later();
    if ((names.get(m[1]!.toLowerCase()) ?? -1) >= m.index + m[0].length) return true;
  }
  return false;
}

/** Whether the text may read a FROM item's name as a whole row. */
function wholeRowNamed(text: string): boolean {
  let from: Map<string, number> | undefined;
  const fromNames = () => (from ??= fromItemNames(text));
  if (foundAfter(text, ONLY_ITEM, () => lastFound(text, NAMED_AFTER_WORD))) return true;
  if (foundAfter(text, BARE_ITEM, fromNames)) return true;
  // tested before or after the FROM item
  const tested = lastFound(text, TESTED_NAME);
  return tested.size > 0 && [...tested.keys()].some((name) => fromNames().has(name));
}

/**
 * Row semantics (pg-rows.ts): a parenthesized list compared, tested for NULL or IN (from its last comma:
 * `,[^()]*\)` from every comma was quadratic in a long list); `count(t.*)`, `array_agg(t.*)`, `array[(…)]`.
 */
const ROW_FORMS = String.raw`,[^(),]*\)\s*(?:is\b|not\s+in\b|in\b|[=<>!])|\b(?:count|array_agg)\s*\(\s*\w+\s*\.\s*\*|\barray\s*\[\s*\(|\b(?:row_)?to_json\s*\(`;
/** A constant zone of AT TIME ZONE or timezone() (a POSIX specification is refused: posix-zones.ts); split-calls.ts. */
const ZONE_CONSTANT = String.raw`\btime\s+zone\s*''|\btimezone\s*\(\s*''|\b(?:string_to_array|split_part)\s*\(`;
/** A star over JOIN … USING or a NATURAL JOIN (using-star.ts): in that order within one statement. */
const STAR_FROM = /\bselect\s+(?:distinct\s+)?\*\s*from\b/gi;
const STAR_JOINS = [
  [STAR_FROM, /\bjoin\b/gi, /\busing\s*\(/gi],
  [STAR_FROM, /\bnatural\s+(?:(?:inner|left|right|full)\s+)?(?:outer\s+)?join\b/gi],
];
/** A JOIN … USING and after it another join or FROM item (using-ambiguity.ts: a merged column's name read twice). */
const USING_THEN_JOIN = [/\busing\s*\([^)]*\)/gi, /\bjoin\b|,/gi];
const PG_MEANINGS = new RegExp(`${PG_MEANING_WORDS}|${LITERAL_INPUT}|${ROW_FORMS}|${ZONE_CONSTANT}`, 'i');

/**
 * Whether one statement of `text` (between semicolons) holds matches of `steps` (global patterns) in
 * that order, each found first after the last: the text is read once, where `a[^;]*b` is tried from every `a`.
 */
function inOrder(text: string, steps: RegExp[]): boolean {
  return text.split(';').some((statement) => {
    let at = 0;
    for (const step of steps) {
      step.lastIndex = at;
      const m = step.exec(statement);
      if (!m) return false;
      at = m.index + m[0].length;
    }
    return true;
  });
}

/** Both in one statement, in either order (neither can overlap the other). */
const together = (text: string, a: RegExp, b: RegExp) => inOrder(text, [a, b]) || inOrder(text, [b, a]);
/** A plain SELECT DISTINCT with an ORDER BY (pg/distinct-sort-items.ts: PostgreSQL's 42P10). */
const SELECT_DISTINCT = /\bselect\s+distinct\b(?!\s+on\b)/i;
const ORDER_BY = /\border\s+by\b/i;
/**
 * The collations the rewrite drops (PostgreSQL's "default", "C", "POSIX": DuckDB's own order is
 * binary). Quoted, so case-sensitive; any other COLLATE (DuckDB's nocase, …) stays DuckDB's.
 */
const PG_COLLATE =
  /\b[cC][oO][lL][lL][aA][tT][eE]\s+(?:"?[pP][gG]_[cC][aA][tT][aA][lL][oO][gG]"?\s*\.\s*)?"(?:default|C|POSIX)"/;

/**
 * LIKE escapes with a backslash in PostgreSQL, DuckDB's with nothing (rewrite-operators.ts says so): a
 * pattern that may hold one — a backslash in the text, a parameter, a column, a built string.
 */
const LIKE_PATTERN_NOT_PLAIN = /\bi?like\s+(?!''(?!\s*(?:\|\||::|\[)))/i;
const LIKE_WORD = /\bi?like\b/i;
/** ILIKE folds ASCII letters only in PostgreSQL's C locale, all of Unicode in DuckDB (rewrite-operators.ts asciiIlike). */
const ILIKE_WORD = /\bilike\b/i;

/**
 * Calls PostgreSQL means otherwise (distinct-order.ts, srf-from.ts, pg-forms.ts): a DISTINCT aggregate's
 * order, to_hex, every (bool_and), string_to_array's null string, PostgreSQL 15's functions refused with a hint
 * (unsupported-functions.ts), a set-returning function in FROM named by its alias, the JSON-to-record functions;
 * grouping sets that may all be empty (empty-grouping-sets.ts).
 */
const CALL_FORMS =
  /\b(?:div|pg_client_encoding|hashtext)\s*\(|\bexists\s*\(\s*select\s+from\b|\bgroup\s+by\s+distinct\b|\bgrouping\s+sets\s*\(\s*(?:\(\s*\)|grouping\b)|\b(?:array_agg|string_agg)\s*\(\s*distinct\b|\b(?:to_hex|every|string_to_array)\s*\(|\b(?:unnest|regexp_split_to_table|string_to_table|generate_subscripts)\s*\(|\bjsonb?_(?:to|populate)_record/i;

/** A type's name called as a function (`int4(x)`: pg-forms.ts functionStyleCast); casts with a typmod match too. */
const TYPE_NAME_CALL =
  /(?<![\w$])"?(?:int[248]|float[48]|numeric|text|varchar|bpchar|name|bool|date|time|timetz|timestamp|timestamptz|interval|jsonb?|uuid|bytea|oid|regclass|regtype)"?\s*\(/i;

/**
 * A date/time constant with a zone DuckDB's reader may not read (pg-input.ts zonedText: a time without
 * seconds before a zone, a one-digit offset, a date and a zone), read in the text itself: the pre-check's text has no literals.
 */
const ZONED_LITERAL =
  /'\s*\d{4}-\d\d?-\d\d?(?:[ T]\d\d?:\d\d(?::\d\d(?:\.\d+)?)?)?\s*(?:[+-]\d|[zZ]'|UTC|GMT|[A-Za-z]+\/|[A-Za-z]{2,6}\s*')/;

/**
 * A bare NULL as a select-list item (pg-shown-calls.ts), also of a subquery (`(select null)`, rewrite-walk.ts
 * `nullItemsAsText`): PostgreSQL sends it as text, DuckDB as INTEGER.
 */
const NULL_ITEM = /(?:\bselect\s+|,)\s*null\s*(?:,|\bas\b|\bfrom\b|;|\)|$)/i;

/**
 * A subquery in FROM (LATERAL too) or a CTE's body: its columns are named by PostgreSQL's rule (inner-names.ts).
 * Over-matches (`cast(… as (select …))`) cost a parse and change nothing.
 */
const INNER_QUERY = /\b(?:from|join|lateral|as|materialized)\s*(?:\(\s*)+(?:select|values)\b/i;
/**
 * A subquery after a comma of a FROM list (`from a, (select …) s`): read in one pass, each such comma judged by
 * the last clause keyword before it at its level of parentheses (a select list's `, (select …)` is a scalar
 * subquery: no names).
 */
const LISTED_QUERY =
  /\b(select|from|where|group|having|order|window|limit|offset|on|using|union|intersect|except)\b|(,)(?=\s*(?:\(\s*)+(?:select|values)\b)|([()])/gi;

function listedInFrom(text: string): boolean {
  if (!text.includes(',')) return false;
  const clauses = [''];
  for (const m of text.matchAll(LISTED_QUERY)) {
    if (m[1] !== undefined) clauses[clauses.length - 1] = m[1].toLowerCase();
    else if (m[3] === '(') clauses.push('');
    else if (m[3] === ')') {
      if (clauses.length > 1) clauses.pop();
    } else if (clauses[clauses.length - 1] === 'from') return true;
  }
  return false;
}

/** Whether `sql` may need the PostgreSQL-grammar rewrite (see CATALOGISH for what over-matches). */
export function needsPgRewrite(sql: string): boolean {
  const text = precheckText(sql);
  return (
    CATALOGISH.test(text) ||
    PG_COLLATE.test(text) ||
    PG_MEANINGS.test(text) ||
    inOrder(text, FRACTION_ARRAY) ||
    together(text, SET_OPERATION, LITERAL_OR_FRACTION) ||
    BIT_STRINGS.test(text) ||
    together(text, DATE_SIDE, BINARY_MINUS) ||
    STAR_JOINS.some((steps) => inOrder(text, steps)) ||
    inOrder(text, USING_THEN_JOIN) ||
    wholeRowNamed(text) ||
    LIKE_PATTERN_NOT_PLAIN.test(text) ||
    ILIKE_WORD.test(text) ||
    CALL_FORMS.test(text) ||
    TYPE_NAME_CALL.test(text) ||
    TYPE_INPUT_CALL.test(text) ||
    ZONED_LITERAL.test(sql) ||
    NUMBER_LIKE_LITERAL.test(sql) ||
    NULL_ITEM.test(text) ||
    together(text, SELECT_DISTINCT, ORDER_BY) ||
    INNER_QUERY.test(text) ||
    listedInFrom(text) ||
    (sql.includes('\\') && LIKE_WORD.test(text))
  );
}

/**
 * What the pre-check reads: the statement without comments and without the contents of string
 * literals (other than PostgreSQL array text, which the rewrite translates), so a catalog name
 * inside a literal or a comment does not send a statement to the PostgreSQL grammar.
 */
function precheckText(sql: string): string {
  if (!/['$]|--|\/\*/.test(sql)) return sql;
  return mapSegments(sql, (kind, text) =>
    kind === 'comment' ? ' ' : kind === 'dollar' || (kind === 'string' && !/^'\{[^']*\}'$/.test(text)) ? "''" : text,
  );
}
