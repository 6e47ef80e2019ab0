/**
 * The rewrite's cheap pre-check (rewrite.ts): which statement texts may need the PostgreSQL grammar at
 * all. Most statements match nothing here and skip the parse.
 */
import { mapSegments } from '../text/split.js';

/**
 * Cheap pre-check: only statements matching this go through the parser. Exact for casts, COLLATE
 * and ANY/ALL: it flags what the walk below changes. Over-matches that remain, and why harmless
 * (the parse finds nothing to change and the text goes to DuckDB as written, as without the parse):
 * a prefix `~` (bitwise NOT) — telling it from the regex operators needs the grammar; catalog-ish
 * names (pg_…, current_user…) used as plain identifiers.
 */
const CATALOGISH =
  /pg_|information_schema|::\s*(?:"?(?:reg[a-z]+|oid|name|int2vector|oidvector|jsonb|xid)\b|"char")|~|\bcurrent_(?:setting|schemas?|user|database|catalog|role)\b|\bsession_user\b|\bversion\s*\(|\bset_config\b|\bhas_\w+_privilege\b|\bformat_type\b|\b(?:txid_current|getdatabaseencoding|regclass_oid)\b|\bacldefault\b|\barray_remove\b|\b(?:obj|col|shobj)_description\b|\bquote_(?:ident|literal)\b|\bparse_ident\b|\barray_(?:lower|upper)\b|\binet_|\bto_reg|\bjsonb?_build_object\b|'\{[^']*\}'|\bas\s+"?(?:pg_catalog"?\."?)?reg[a-z]+\b|(?:=|<>|!=)\s*(?:any|some)\s*\(|(?:<>|!=)\s*all\s*\(|\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i;
/**
 * A string constant cast to a type whose input PostgreSQL reads differently (pg-input.ts): `'…'::int`,
 * `CAST('…' AS boolean)`, `timestamptz '…'`, `'today'::date`. The pre-check sees literals as `''`.
 */
const LITERAL_TYPES = String.raw`(?:int[248]?|integer|smallint|bigint|bool(?:ean)?|bytea|timestamptz|timestamp|timetz|time|date)\b`;
const LITERAL_INPUT = String.raw`''\s*::\s*(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\bcast\s*\(\s*''\s+as\s+(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\b${LITERAL_TYPES}\s*''`;
/**
 * PostgreSQL meanings DuckDB spells differently (compat/pg-calls.ts): set-returning generate_series,
 * format(), TABLESAMPLE percentages, numeric constants, char(n)/varchar(n), a zero divisor (22012),
 * row constructors in a select list (records), `float` (PostgreSQL's float8, DuckDB's FLOAT is 4 bytes),
 * a value's text in `||`, concat, concat_ws and array_to_string (pg-text.ts).
 * Also the operators and clauses of pg-operators.ts (`#>`, `LIKE ANY`, `ORDER BY … USING`).
 */
/**
 * A minus near something that is syntactically a date (date - date is int4 in PostgreSQL); a minus
 * whose operands' types decide (time - time an interval) is MINUS below.
 */
const DATE_SIDE = String.raw`(?:\bdate\s*''|::\s*date\b|\bcurrent_date\b|\bmake_date\s*\()`;
const DATE_MINUS = String.raw`${DATE_SIDE}[^;]*\s-\s|\s-\s[^;]*${DATE_SIDE}`;
/**
 * Result types and forms of pg-forms.ts: int4 lengths and ranks, numeric extract, date_trunc of a date,
 * BETWEEN SYMMETRIC, WITH TIES, jsonb's `?` operators, an array joined to an element, a value cast to text,
 * lag/lead with a default (their common type), `^` and power (2201F), CASE/COALESCE/GREATEST/LEAST (the chosen value's numeric scale).
 */
const PG_TYPED_RESULTS = String.raw`\^|\bpow(?:er)?\s*\(|\b(?:sqrt|exp|ln|log|log10)\s*\(|\b(?:coalesce|greatest|least)\s*\(|\bcase\b|\b(?:lag|lead)\s*\([^();]*,[^();]*,|\b(?:lag|lead)\s*\([^();]*,\s*\$\d|\b(?:upper|lower|length|bit_length|to_hex|char_length|character_length|octet_length|strpos|position|array_length|json_array_length|ntile|grouping|extract|date_trunc|date_part|percentile_cont|sign|gcd|lcm)\s*\(|::\s*(?:text|varchar)\b|\bas\s+(?:text|varchar)\s*\)|\bjsonb\s*''|\bsymmetric\b|\bwith\s+ties\b|\?|(?:\barray\s*\[|\[\])[^;]*\|\||\|\|[^;]*(?:\barray\s*\[|\[\])`;
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
/** An ARRAY[…] with a fraction in it: numeric constants of mixed scales (numeric-arrays.ts). */
const FRACTION_ARRAY = String.raw`\barray\s*\[[^;]*?\d?\.\d`;
const PG_MEANING_WORDS = String.raw`${SUBSCRIPT}|${FRACTION_ARRAY}|${MINUS}|${LITERAL_ARITHMETIC}|\bfloat\b|\d[eE][+-]?\d|\bgenerate_series\b|\bformat\s*\(|\btablesample\b|\bnumeric\b|\bdecimal\b|\b(?:char|character|varchar|bpchar)\s*\(|\bcharacter\s+varying\s*\(|[/%]|\brow\s*\(|(?:\bselect|,)\s*\([^()]*,|\b(?:to_char|to_date|to_timestamp|to_number|initcap|jsonb?_agg|json_object_agg|json_build_array|overlay|make_interval|width_bucket|jsonb?_typeof|jsonb_array_length|date_bin|regexp_matches|pg_typeof|pg_size_pretty|encode|decode)\s*\(|\bsimilar\s+to\b|#|\bcardinality\s*\(|\bsubstr(?:ing)?\s*\(|\b(?:corr|regr_slope)\s*\(|::\s*(?:int2|smallint)\b|\bas\s+smallint\b|\bbtrim\s*\(|\b(?:current_|local)?(?:time|timetz|timestamp|timestamptz)\s*\(|\bwith(?:out)?\s+time\s+zone\s*\(|\b[lr]pad\s*\(|\bsha256\s*\(|\bregexp_replace\s*\(|::\s*time\b|::\s*(?:timestamptz|timestamp|interval)\s*\(|''\s*::\s*interval\b|\binterval\s*''|\bas\s+time\s*\)|\bjsonb?_(?:each|array_elements|object_keys)\w*\s*\(|\b(?:i?like)\s+(?:any|some|all)\s*\(|\busing\s*[<>]|\b(?:sum|avg|round|variance|stddev(?:_samp|_pop)?|var_(?:samp|pop))\s*\(|\|\||\b(?:concat|concat_ws|array_to_string)\s*\(|-\s*2147483648(?![\d.eE])|${DATE_MINUS}|${PG_TYPED_RESULTS}`;
/** A whole-row reference as a select list's only item (`select t from (…) t`, `select c from customers c`). */
const WHOLE_ROW = String.raw`\bselect\s+(\w+)\s+from\b[^;]*?[\w)](?<!\b(?:by|where|on|and|or|not|when|then|else|in|is))\s+(?:as\s+)?\1\b`;
/**
 * A bare name among other select items that a FROM item goes by: its alias (`from sales.orders o`,
 * `join … o`, `from a x, … o` without parentheses between, `(…) o`) or its table name (`from sales.orders`), e.g. `select 1, t from … t`.
 */
const FROM_ITEM_NAMED = String.raw`(?:\b(?:from|join)\s+(?:[\w"]+\.)*"?\1\b(?!\s*[.(])|(?:\b(?:from|join)\s+(?:[\w"]+\.)*[\w"]+|\)|\bfrom\b[^;()]*?,\s*(?:[\w"]+\.)*[\w"]+)\s+(?:as\s+)?\1\b(?!\s*[.(]))`;
const WHOLE_ROW_ITEM = String.raw`(?:\bselect\s+(?:distinct\s+)?|,)\s*(\w+)\s*(?=,|\bfrom\b)[^;]*?${FROM_ITEM_NAMED}`;
/**
 * Row semantics (pg-rows.ts): a parenthesized list compared, tested for NULL or IN; `count(t.*)`,
 * `array_agg(t.*)`, `array[(…)]`; and, as separate expressions (a backreference each), a FROM item's
 * name tested for NULL, counted or aggregated into an array.
 */
const ROW_FORMS = String.raw`,[^()]*\)\s*(?:is\b|not\s+in\b|in\b|[=<>!])|\b(?:count|array_agg)\s*\(\s*\w+\s*\.\s*\*|\barray\s*\[\s*\(|\b(?:row_)?to_json\s*\(`;
const WHOLE_ROW_TESTED = [
  String.raw`\b(?:from|join)\s+(?:[\w"]+\.)*"?(\w+)"?\b[^;]*\b\1\s+is\s+(?:not\s+)?null\b`,
  String.raw`(?:\b(?:from|join)\s+(?:[\w"]+\.)*[\w"]+|\))\s+(?:as\s+)?(\w+)\b[^;]*\b\1\s+is\s+(?:not\s+)?null\b`,
  String.raw`\b(?:count|array_agg)\s*\(\s*(\w+)\s*\)[^;]*?${FROM_ITEM_NAMED}`,
  String.raw`\b(\w+)\s+is\s+(?:not\s+)?null\b[^;]*?${FROM_ITEM_NAMED}`,
].map((r) => new RegExp(r, 'i'));
/** A cheap gate before WHOLE_ROW_TESTED's backreferences. */
const ROW_WORDS = /\bis\s+(?:not\s+)?null\b|\b(?:count|array_agg)\s*\(/i;
/** A constant zone of AT TIME ZONE or timezone() (a POSIX specification is refused: posix-zones.ts); split-calls.ts; a star over JOIN … USING (using-star.ts). */
const ZONE_CONSTANT = String.raw`\btime\s+zone\s*''|\btimezone\s*\(\s*''|\b(?:string_to_array|split_part)\s*\(|\bcoalesce\s*\([^;]*''|\bselect\s+(?:distinct\s+)?\*\s*from\b[^;]*(?:\bjoin\b[^;]*\busing\s*\(|\bnatural\s+(?:(?:inner|left|right|full)\s+)?(?:outer\s+)?join\b)`;
const PG_MEANINGS = new RegExp(`${PG_MEANING_WORDS}|${LITERAL_INPUT}|${WHOLE_ROW}|${ROW_FORMS}|${ZONE_CONSTANT}`, 'i');
const WHOLE_ROW_ITEMS = new RegExp(WHOLE_ROW_ITEM, 'i');
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
 * order, to_hex, every (bool_and), string_to_array's null string, a set-returning function in FROM named by its alias, the JSON-to-record functions.
 */
const CALL_FORMS =
  /\bexists\s*\(\s*select\s+from\b|\bgroup\s+by\s+distinct\b|\b(?:array_agg|string_agg)\s*\(\s*distinct\b|\b(?:to_hex|every|string_to_array)\s*\(|\b(?:unnest|regexp_split_to_table|string_to_table|generate_subscripts)\s*\(|\bjsonb?_(?:to|populate)_record/i;

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

/** Whether `sql` may need the PostgreSQL-grammar rewrite (see CATALOGISH for what over-matches). */
export function needsPgRewrite(sql: string): boolean {
  const text = precheckText(sql);
  return (
    CATALOGISH.test(text) ||
    PG_COLLATE.test(text) ||
    PG_MEANINGS.test(text) ||
    WHOLE_ROW_ITEMS.test(text) ||
    (ROW_WORDS.test(text) && WHOLE_ROW_TESTED.some((r) => r.test(text))) ||
    LIKE_PATTERN_NOT_PLAIN.test(text) ||
    ILIKE_WORD.test(text) ||
    CALL_FORMS.test(text) ||
    TYPE_NAME_CALL.test(text) ||
    ZONED_LITERAL.test(sql) ||
    NULL_ITEM.test(text) ||
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
