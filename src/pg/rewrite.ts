/**
 * PostgreSQL catalog statements → DuckDB: parse with the real PostgreSQL grammar (pgsql-parser, WASM),
 * point pg_catalog / information_schema objects at the compat database (compat/install.ts), translate
 * PostgreSQL-only syntax (reg* casts, `~` search operators, COLLATE "default", '{a,b}' arrays, "char",
 * name, oid), and deparse. Statements without anything catalog-ish skip the parser entirely, and a
 * statement the grammar rejects (DuckDB-only syntax) or that needs no change is returned as is.
 */
import { deparseSync, loadModule } from 'pgsql-parser';
import { LRUCache } from 'lru-cache';
import { parsePg } from './pg-parse.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { mapSegments } from '../text/split.js';
import { COMPAT_FUNCTION_ARITIES, COMPAT_RELATIONS, SYSTEM_COLUMN_RELATIONS } from './catalog/install.js';
import { COMPAT_DB } from './catalog/names.js';
import { ABSENT_FEATURE_TABLE_FUNCTIONS } from './catalog/absent-features.js';
import { PG_STATIC_RELATIONS, PG_VIEW_COLUMNS } from './catalog/pg-data.js';
import { booleanInput, integerInput, isIntegerType, timestamptzInput } from './pg-input.js';
import { aggregateDivision, avgCall, rowDivision, concatWithNull, constantDivision, dateLike, dateMinus, hasAggregate, numericOf, roundCall, SEMANTIC_MACRO_PREFIX, sumCall } from './pg-result-types.js';
import { isLikeAny, jsonPathOperator, likeAny, sortUsing } from './pg-operators.js';
import { codecCall, formatCall, guardDivisor, jsonAggCall, similarTo, lengthCast, LIST_SRF_IN_SELECT, numericCast, parseDateCall, recordValue, regexpMatchesRefused, toCharCall, toNumberCall, unnestSrf } from './pg-calls.js';

// The WASM grammar loads once, at import, so that rewriting stays synchronous.
await loadModule();

/**
 * Cheap pre-check: only statements matching this go through the parser. Exact for casts, COLLATE
 * and ANY/ALL: it flags what the walk below changes. Over-matches that remain, and why harmless
 * (the parse finds nothing to change and the text goes to DuckDB as written, as without the parse):
 * `~~`/`!~~` (LIKE spelled as operators) and a prefix `~` (bitwise NOT) — telling them from the regex
 * operators needs the grammar; catalog-ish names (pg_…, current_user…) used as plain identifiers.
 */
const CATALOGISH =
  /pg_|information_schema|::\s*(?:"?(?:reg[a-z]+|oid|name|int2vector|oidvector|jsonb|xid)\b|"char")|~|\bcurrent_(?:setting|schemas?|user|database|catalog|role)\b|\bsession_user\b|\bversion\s*\(|\bset_config\b|\bhas_\w+_privilege\b|\bformat_type\b|\bacldefault\b|\barray_remove\b|\b(?:obj|col|shobj)_description\b|\bquote_(?:ident|literal)\b|\bparse_ident\b|\barray_(?:lower|upper)\b|\binet_|\bto_reg|\bjson_build_object\b|'\{[^']*\}'|\bas\s+"?(?:pg_catalog"?\."?)?reg[a-z]+\b|(?:=|<>|!=)\s*(?:any|some)\s*\(|(?:<>|!=)\s*all\s*\(|\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i;
/**
 * A string constant cast to a type whose input PostgreSQL reads differently (pg-input.ts): `'…'::int`,
 * `CAST('…' AS boolean)`, `timestamptz '…'`. The pre-check sees literals as `''`.
 */
const LITERAL_TYPES = String.raw`(?:int[248]?|integer|smallint|bigint|bool(?:ean)?|timestamptz|timestamp\s+with\s+time\s+zone)\b`;
const LITERAL_INPUT = String.raw`''\s*::\s*(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\bcast\s*\(\s*''\s+as\s+(?:"?pg_catalog"?\.)?"?${LITERAL_TYPES}|\b${LITERAL_TYPES}\s*''`;
/**
 * PostgreSQL meanings DuckDB spells differently (compat/pg-calls.ts): set-returning generate_series,
 * format(), TABLESAMPLE percentages, numeric constants, char(n)/varchar(n), a zero divisor (22012),
 * row constructors in a select list (records), `float` (PostgreSQL's float8, DuckDB's FLOAT is 4 bytes).
 * Also the operators and clauses of pg-operators.ts (`#>`, `LIKE ANY`, `ORDER BY … USING`).
 */
/** A minus near something that is syntactically a date (date - date is int4 in PostgreSQL). */
const DATE_SIDE = String.raw`(?:\bdate\s*''|::\s*date\b|\bcurrent_date\b|\bmake_date\s*\()`;
const DATE_MINUS = String.raw`${DATE_SIDE}[^;]*\s-\s|\s-\s[^;]*${DATE_SIDE}`;
const PG_MEANING_WORDS = String.raw`\bfloat\b|\bgenerate_series\b|\bformat\s*\(|\btablesample\b|\bnumeric\b|\bdecimal\b|\b(?:char|character|varchar|bpchar)\s*\(|\bcharacter\s+varying\s*\(|[/%]|\brow\s*\(|(?:\bselect|,)\s*\([^()]*,|\b(?:to_char|to_date|to_timestamp|to_number|initcap|jsonb?_agg|width_bucket|date_bin|regexp_matches|pg_typeof|pg_size_pretty|encode|decode)\s*\(|\bsimilar\s+to\b|#>|\b(?:i?like)\s+(?:any|some|all)\s*\(|\busing\s*[<>]|\b(?:sum|avg|round)\s*\(|\|\|\s*null\b|\bnull\s*\|\||${DATE_MINUS}`;
const PG_MEANINGS = new RegExp(`${PG_MEANING_WORDS}|${LITERAL_INPUT}`, 'i');
/**
 * The collations the rewrite drops (PostgreSQL's "default", "C", "POSIX": DuckDB's own order is
 * binary). Quoted, so case-sensitive; any other COLLATE (DuckDB's nocase, …) stays DuckDB's.
 */
const PG_COLLATE = /\b[cC][oO][lL][lL][aA][tT][eE]\s+(?:"?[pP][gG]_[cC][aA][tT][aA][lL][oO][gG]"?\s*\.\s*)?"(?:default|C|POSIX)"/;

/** Whether `sql` may need the PostgreSQL-grammar rewrite (see CATALOGISH for what over-matches). */
export function needsPgRewrite(sql: string): boolean {
  const text = precheckText(sql);
  return CATALOGISH.test(text) || PG_COLLATE.test(text) || PG_MEANINGS.test(text);
}

/** PostgreSQL system columns: catalog relations naming one are served from a view that has them. */
const SYSTEM_COLUMNS = /\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i;

export interface RewriteResult {
  sql: string;
  /** Databases named in front of emulated catalog relations (and the three-part name): the session's own, or 0A000. */
  catalogsNamed?: { db: string; name: string }[];
  /** True when the statement used the PostgreSQL catalog emulation (label its columns with catalog types). */
  rewritten: boolean;
  /**
   * Per select-list item, the PostgreSQL type (format_type spelling) of the catalog column it reads
   * directly (`t.typtype AS kind` → `"char"`), so an alias keeps the catalog type; absent when the
   * list has `*` or the statement is not one SELECT.
   */
  columnTypes?: ReadonlyArray<string | undefined>;
  /**
   * PostgreSQL types of parameters cast directly to a type DuckDB lacks (`$1::oid[]` → 1028), by
   * 1-based number: DuckDB sees `bigint[]`, but ParameterDescription must announce the PostgreSQL
   * type (asyncpg has codecs for oid[] but not int8[] and would otherwise introspect forever).
   */
  paramOids?: ReadonlyMap<number, number>;
}

/** Rewrite one SQL text (one or more statements) for DuckDB; see module comment. */
export function rewriteForDuckDB(sql: string): string {
  return rewriteForDuckDBDetailed(sql).sql;
}

/**
 * What the pre-check reads: the statement without comments and without the contents of string
 * literals (other than PostgreSQL array text, which the rewrite translates), so a catalog name
 * inside a literal or a comment does not send a statement to the PostgreSQL grammar.
 */
function precheckText(sql: string): string {
  if (!/['$]|--|\/\*/.test(sql)) return sql;
  return mapSegments(sql, (kind, text) =>
    kind === 'comment' ? ' ' : kind === 'dollar' || (kind === 'string' && !/^'\{[^']*\}'$/.test(text)) ? "''" : text);
}

/**
 * Rewrites by text, memoized: a client's catalog statements repeat (psql, drivers and BI tools send
 * the same texts at every connect) and parse + walk + deparse cost 2–20 ms of CPU each.
 */
const rewrites = new LRUCache<string, RewriteResult>({ max: 2000, maxSize: 16 * 1024 * 1024, sizeCalculation: (r, sql) => 2 * (sql.length + r.sql.length) + 64 });

export function rewriteForDuckDBDetailed(sql: string): RewriteResult {
  if (!needsPgRewrite(sql)) return { sql, rewritten: false };
  const known = rewrites.get(sql);
  if (known) return known;
  const result = rewriteParsed(sql);
  rewrites.set(sql, result);
  return result;
}

/** The rewrite without the pre-check (tests compare the two). */
export function rewriteParsed(sql: string): RewriteResult {
  const tree = parsePg(sql) as { stmts?: unknown[] } | null;
  if (!tree) return { sql, rewritten: false }; // not PostgreSQL: DuckDB's own syntax, left to DuckDB
  const ctx: Ctx = { changed: false, catalogsNamed: new Map(), ctes: new Set(), params: new Map(), systemColumns: SYSTEM_COLUMNS.test(sql), floatSpelled: /\bfloat\b/i.test(sql) };
  collectCtes(tree, ctx.ctes);
  const out = walk(tree, ctx, false);
  if (!ctx.changed) return { sql, rewritten: false, ...(ctx.params.size > 0 ? { paramOids: ctx.params } : {}) };
  let rewrittenSql = deparseSync(out as Parameters<typeof deparseSync>[0]);
  if (ctx.tableSample) rewrittenSql = percentSamples(rewrittenSql);
  // Only statements that reach the catalog emulation are catalog statements; PostgreSQL syntax
  // translated for DuckDB (ANY over a parameter, array text) leaves a plain query plain.
  // The `_pgsem_` macros (pg-result-types.ts) give PostgreSQL's meaning of plain queries: not catalog emulation.
  const result: RewriteResult = { sql: rewrittenSql, rewritten: rewrittenSql.replaceAll(SEMANTIC_MACRO_PREFIX, '').includes(COMPAT_DB) };
  if (result.rewritten) {
    const types = catalogColumnTypes(tree, ctx.ctes);
    if (types) result.columnTypes = types;
  }
  if (ctx.params.size > 0) result.paramOids = ctx.params;
  if (ctx.catalogsNamed.size > 0) result.catalogsNamed = [...ctx.catalogsNamed].map(([db, name]) => ({ db, name }));
  return result;
}

type Node = Record<string, any>;
interface Ctx {
  changed: boolean;
  /** Databases named in front of catalog relations the emulation serves (`db.pg_catalog.pg_class`): db → the name written. */
  catalogsNamed: Map<string, string>;
  ctes: Set<string>;
  /** Parameter number → PostgreSQL OID, for parameters cast to a type DuckDB spells differently. */
  params: Map<number, number>;
  /** The statement names a system column (tableoid, xmin, ctid…). */
  systemColumns: boolean;
  /** The text spells `float`, which DuckDB reads as FLOAT4 where PostgreSQL means float8. */
  floatSpelled: boolean;
  /** The statement has TABLESAMPLE (its argument is a percentage in PostgreSQL). */
  tableSample?: boolean;
}

/** DuckDB takes a sample's percentage only as a constant; anything else is refused, not misread. */
function samplePercent(sample: Node): void {
  const c = (sample.args as Node[] | undefined)?.[0]?.A_Const as Node | undefined;
  if ((sample.args as Node[]).length !== 1 || !(c?.ival || c?.fval)) {
    throw new SqlError(SQLSTATE.featureNotSupported, 'TABLESAMPLE with a percentage that is not a numeric constant is not supported by fdl-gateway', undefined, 'Write the percentage as a number: TABLESAMPLE BERNOULLI (10).');
  }
}

/**
 * PostgreSQL's `TABLESAMPLE method (n)` samples n percent; DuckDB reads a bare n as a row count.
 * The deparser spells the clause `TABLESAMPLE method (arg)`; the percentage is said explicitly.
 */
function percentSamples(sql: string): string {
  return mapSegments(sql, (kind, text) => (kind === 'code' ? text.replace(/\bTABLESAMPLE\s+(\w+)\s*\(\s*([0-9.]+)\s*\)/gi, 'TABLESAMPLE $1($2 PERCENT)') : text));
}

/** PostgreSQL OIDs (scalar, array) of cast targets recorded for parameters (`$n::oid`). */
const PARAM_CAST_OIDS: Record<string, readonly [number, number]> = {
  oid: [26, 1028], regclass: [2205, 2210], regtype: [2206, 2211], regproc: [24, 1008], regprocedure: [2202, 2207],
  regnamespace: [4089, 4090], regrole: [4096, 4097],
};

const PGCAT = 'pgcat';
const INFOSCHEMA = 'infoschema';
const REG_TYPES = new Set(['regclass', 'regtype', 'regproc', 'regprocedure', 'regnamespace', 'regrole']);
/** PostgreSQL type name → DuckDB type name, for casts in rewritten statements. */
const TYPE_MAP: Record<string, string> = {
  oid: 'bigint', xid: 'bigint', cid: 'bigint', xid8: 'bigint', regoper: 'bigint', regoperator: 'bigint', regconfig: 'bigint',
  name: 'varchar', char: 'varchar', bpchar: 'varchar', text: 'varchar', pg_node_tree: 'varchar', aclitem: 'varchar',
  jsonb: 'json', int2vector: 'smallint[]', oidvector: 'bigint[]',
};
/** Functions whose PostgreSQL name differs from the DuckDB (or compat) one. */
const RENAMED: Record<string, string> = {
  json_build_object: 'json_object', jsonb_build_object: 'json_object', current_database: 'pg_current_database', btrim: 'trim',
};
/** Set-returning functions of one column: an alias without column names names the column too (PostgreSQL does). */
/** Names PostgreSQL takes as an alias that DuckDB's grammar does not (pg_dump writes `pg_attribute at`): renamed. */
const DUCKDB_RESERVED_ALIASES: ReadonlySet<unknown> = new Set(['at', 'by', 'show']);
const SINGLE_COLUMN_SRF = new Set(['unnest', 'generate_series', 'generate_subscripts', 'regexp_split_to_table', 'string_to_table']);
/** Other functions that are table functions in DuckDB or the compat catalog; any other FROM function is scalar. */
const TABLE_FUNCTIONS = new Set([...ABSENT_FEATURE_TABLE_FUNCTIONS, 'pg_get_keywords', 'pg_partition_ancestors', 'pg_partition_ancestors_ord', 'range', 'json_each', 'json_tree', 'read_csv', 'read_parquet', 'read_json']);

const str = (sval: string): Node => ({ String: { sval } });
const names = (list: Node[] | undefined): string[] => (list ?? []).map((n) => String(n?.String?.sval ?? ''));
const call = (name: string[], args: Node[]): Node => ({
  FuncCall: { funcname: name.map(str), args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
const compat = (fn: string, args: Node[]): Node => call([COMPAT_DB, PGCAT, fn], args);
const strConst = (s: string): Node => ({ A_Const: { sval: { sval: s } } });

/** pg_catalog relation → column → PostgreSQL type (format_type spelling), from PostgreSQL 15's catalog. */
const CATALOG_COLUMNS: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map([
  ...Object.entries(PG_VIEW_COLUMNS).map(([rel, cols]) => [rel, new Map(cols)] as const),
  ...PG_STATIC_RELATIONS.map((r) => [r.name, new Map(r.columns)] as const),
]);

/** See RewriteResult.columnTypes: the select list of one SELECT, read before rewriting. */
function catalogColumnTypes(tree: { stmts?: unknown[] }, ctes: ReadonlySet<string>): (string | undefined)[] | undefined {
  if (tree.stmts?.length !== 1) return undefined;
  const select = (tree.stmts[0] as Node).stmt?.SelectStmt as Node | undefined;
  if (!select?.targetList || (select.op && select.op !== 'SETOP_NONE')) return undefined;
  const rels = new Map<string, string>(); // name columns are qualified by → catalog relation
  const from = (n: Node): void => {
    const rv = n?.RangeVar as Node | undefined;
    if (rv && !rv.catalogname && (rv.schemaname === 'pg_catalog' || (!rv.schemaname && !ctes.has(rv.relname))) && CATALOG_COLUMNS.has(rv.relname)) {
      rels.set(rv.alias?.aliasname ?? rv.relname, rv.relname);
    } else if (n?.JoinExpr) {
      from(n.JoinExpr.larg);
      from(n.JoinExpr.rarg);
    }
  };
  for (const n of (select.fromClause ?? []) as Node[]) from(n);
  // A reg* cast in the select list (`cast($1 as regclass)`) is a column of that type, as in PostgreSQL.
  const regCast = (t: Node): string | undefined => {
    const tc = t.ResTarget?.val?.TypeCast as Node | undefined;
    const type = tc && !tc.typeName?.arrayBounds?.length ? names(tc.typeName?.names).slice(-1)[0] : undefined;
    return type && REG_TYPES.has(type) ? type : undefined;
  };
  if (rels.size === 0 && !(select.targetList as Node[]).some(regCast)) return undefined;
  const out: (string | undefined)[] = [];
  for (const t of select.targetList as Node[]) {
    const reg = regCast(t);
    if (reg) { out.push(reg); continue; }
    const fields = t.ResTarget?.val?.ColumnRef?.fields as Node[] | undefined;
    if (fields?.some((f) => 'A_Star' in f)) return undefined; // positions unknown after expansion
    const parts = names(fields);
    if (!fields || parts.length > 2) { out.push(undefined); continue; }
    const column = parts[parts.length - 1]!;
    const candidates = parts.length === 2 ? [rels.get(parts[0]!)] : [...rels.values()];
    const found = candidates.flatMap((rel) => (rel && CATALOG_COLUMNS.get(rel)?.has(column) ? [CATALOG_COLUMNS.get(rel)!.get(column)!] : []));
    out.push(found.length === 1 ? found[0] : undefined);
  }
  return out;
}

function collectCtes(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectCtes(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'CommonTableExpr' && typeof (v as Node).ctename === 'string') into.add((v as Node).ctename);
      collectCtes(v, into);
    }
  }
}

/**
 * Walk the tree, returning the (possibly replaced) node. `display` is true where a value is shown
 * rather than compared (select list, ORDER BY, under a cast to text): there reg* casts yield names.
 */
function walk(node: unknown, ctx: Ctx, display: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(n, ctx, false));
  if (!node || typeof node !== 'object') return node;
  const obj = node as Node;
  if (typeof obj.aliasname === 'string' && DUCKDB_RESERVED_ALIASES.has(obj.aliasname)) {
    ctx.changed = true;
    return walk({ ...obj, aliasname: `fdl_${obj.aliasname}` }, ctx, display);
  }
  const keys = Object.keys(obj);
  if (keys.length === 1) {
    const type = keys[0]!;
    const body = obj[type] as Node;
    switch (type) {
      case 'RangeVar': {
        const named = body.alias?.aliasname ?? body.relname;
        if (!DUCKDB_RESERVED_ALIASES.has(named)) return rangeVar(obj, body, ctx);
        ctx.changed = true;
        const renamed = { ...body, alias: { ...body.alias, aliasname: `fdl_${named}` } };
        return rangeVar({ RangeVar: renamed }, renamed, ctx);
      }
      case 'RangeFunction': return rangeFunction(obj, body, ctx);
      case 'FuncCall': return funcCall(obj, body, ctx, false);
      case 'TypeCast': return typeCast(body, ctx, display);
      case 'A_Expr': return aExpr(obj, body, ctx);
      case 'CollateClause': return collate(obj, body, ctx);
      case 'SQLValueFunction': return sqlValueFunction(obj, body, ctx);
      case 'ResTarget': return resTarget(body, ctx);
      case 'SortBy': {
        const node = walk(body.node, ctx, true);
        if (body.sortby_dir !== 'SORTBY_USING') return { SortBy: { ...body, node } };
        ctx.changed = true;
        return { SortBy: { ...sortUsing(body), node } };
      }
      case 'ColumnRef': return columnRef(obj, body, ctx);
      case 'RowExpr':
        if (!display) break;
        ctx.changed = true;
        return recordValue(walk(body.args ?? [], ctx, false) as Node[]);
      case 'RangeTableSample':
        samplePercent(body);
        ctx.changed = true;
        ctx.tableSample = true;
        break;
    }
  }
  const out: Node = {};
  for (const k of keys) out[k] = walk(obj[k], ctx, false);
  return out;
}

/** Select-list items keep PostgreSQL's column names (DuckDB would name them after the rewritten expression). */
function resTarget(rt: Node, ctx: Ctx): Node {
  const before = ctx.changed;
  ctx.changed = false;
  const val = walk(rt.val, ctx, true);
  const touched = ctx.changed;
  ctx.changed = before || touched;
  const name = rt.name ?? (touched ? figureColname(rt.val) : undefined);
  return { ResTarget: { ...rt, val, ...(name !== undefined ? { name } : {}) } };
}

/** PostgreSQL's FigureColname for the shapes catalog queries use. */
function figureColname(n: Node | undefined): string | undefined {
  if (!n) return undefined;
  if (n.ColumnRef) {
    const last = (n.ColumnRef.fields as Node[]).slice(-1)[0];
    return last?.String ? String(last.String.sval) : undefined;
  }
  if (n.FuncCall) return names(n.FuncCall.funcname).slice(-1)[0];
  if (n.TypeCast) {
    // A cast of something nameless ($1, a constant) is named after the type, as in PostgreSQL.
    const inner = figureColname(n.TypeCast.arg);
    return inner !== undefined && inner !== '?column?' ? inner : names(n.TypeCast.typeName?.names).slice(-1)[0];
  }
  if (n.A_Indirection) {
    const last = (n.A_Indirection.indirection as Node[]).slice(-1)[0];
    return last?.String ? String(last.String.sval) : figureColname(n.A_Indirection.arg);
  }
  if (n.SQLValueFunction) return String(n.SQLValueFunction.op).replace(/^SVFOP_/, '').toLowerCase().replace(/_n$/, '');
  if (n.CaseExpr) return 'case';
  if (n.CoalesceExpr) return 'coalesce';
  if (n.A_ArrayExpr) return 'array';
  if (n.CollateClause) return figureColname(n.CollateClause.arg);
  return '?column?';
}

/**
 * `pg_catalog.pg_class.relname` (SQLAlchemy 2 qualifies columns so): the relation is served from the
 * compat database under its own name, so the column is `pg_class.relname`.
 */
function columnRef(orig: Node, cr: Node, ctx: Ctx): Node {
  const first = (cr.fields as Node[])[0]?.String?.sval;
  if ((cr.fields as Node[]).length >= 2 && DUCKDB_RESERVED_ALIASES.has(first)) {
    // The alias was renamed where it is declared (walk).
    ctx.changed = true;
    return { ColumnRef: { ...cr, fields: [str(`fdl_${first}`), ...(cr.fields as Node[]).slice(1)] } };
  }
  const fields = cr.fields as Node[];
  const schema = fields[0]?.String?.sval;
  const rel = String(fields[1]?.String?.sval);
  const served = (schema === 'pg_catalog' && COMPAT_RELATIONS.pgCatalog.has(rel)) || (schema === 'information_schema' && COMPAT_RELATIONS.informationSchema.has(rel));
  if (fields.length !== 3 || !served) return orig;
  ctx.changed = true;
  return { ColumnRef: { ...cr, fields: fields.slice(1) } };
}

function rangeVar(orig: Node, rv: Node, ctx: Ctx): Node {
  const rel = String(rv.relname);
  const schema = rv.schemaname as string | undefined;
  let target: string | undefined;
  if (schema === 'pg_catalog' && COMPAT_RELATIONS.pgCatalog.has(rel)) target = PGCAT;
  else if (!schema && !rv.catalogname && COMPAT_RELATIONS.pgCatalog.has(rel) && !ctx.ctes.has(rel)) target = PGCAT;
  else if (schema === 'information_schema' && COMPAT_RELATIONS.informationSchema.has(rel)) target = INFOSCHEMA;
  if (!target) return orig;
  ctx.changed = true;
  // `db.information_schema.tables` is served for the session's database whatever db says: the
  // session checks db is its own (0A000 otherwise, as PostgreSQL).
  if (rv.catalogname) ctx.catalogsNamed.set(String(rv.catalogname), `${rv.catalogname}.${schema}.${rel}`);
  if (target === PGCAT && ctx.systemColumns && SYSTEM_COLUMN_RELATIONS.has(rel)) {
    // The same relation with PostgreSQL's system columns; keeps the name its columns are qualified by.
    return { RangeVar: { ...rv, catalogname: COMPAT_DB, schemaname: target, relname: `_sys_${rel}`, alias: rv.alias ?? { aliasname: rel } } };
  }
  return { RangeVar: { ...rv, catalogname: COMPAT_DB, schemaname: target } };
}

function rangeFunction(orig: Node, rf: Node, ctx: Ctx): Node {
  const body: Node = { ...rf };
  body.functions = (rf.functions as Node[]).map((item) => {
    const list = item?.List?.items as Node[] | undefined;
    const fc = list?.[0]?.FuncCall as Node | undefined;
    if (!list || !fc) return walk(item, ctx, false);
    const parts = names(fc.funcname);
    const base = parts[parts.length - 1]!;
    const qualified = parts.length === 2 && parts[0] === 'pg_catalog';
    let replaced: Node;
    if ((parts.length === 1 || qualified) && base === 'pg_get_keywords') {
      replaced = compat('pg_get_keywords', []);
      ctx.changed = true;
    } else if ((parts.length === 1 || qualified) && ABSENT_FEATURE_TABLE_FUNCTIONS.has(base)) {
      replaced = compat(base, walk(fc.args ?? [], ctx, false) as Node[]);
      ctx.changed = true;
    } else if ((parts.length === 1 || qualified) && base === 'pg_partition_ancestors') {
      // DuckDB has no WITH ORDINALITY for table macros: the _ord variant returns the ordinal itself.
      replaced = compat(rf.ordinality ? 'pg_partition_ancestors_ord' : 'pg_partition_ancestors', walk(fc.args ?? [], ctx, false) as Node[]);
      body.ordinality = false;
      ctx.changed = true;
    } else {
      replaced = funcCall(list[0]!, fc, ctx, true);
    }
    return { List: { items: [replaced, ...list.slice(1).map((n) => walk(n, ctx, false))] } };
  });
  const fn = body.functions?.[0]?.List?.items?.[0]?.FuncCall as Node | undefined;
  const fname = fn ? names(fn.funcname).slice(-1)[0] : undefined;
  if (fn && fname && SINGLE_COLUMN_SRF.has(fname) && !rf.ordinality && JSON.stringify(fn.args ?? []).includes(`"${COMPAT_DB}"`)) {
    // DuckDB table functions take no subqueries, and compat macros contain some: unnest a list instead.
    ctx.changed = true;
    const alias = rf.alias ?? { aliasname: fname };
    const col = names(alias.colnames)[0] ?? alias.aliasname;
    const inner = fname === 'unnest' ? fn.args[0] : { FuncCall: fn };
    return {
      RangeSubselect: {
        subquery: { SelectStmt: { targetList: [{ ResTarget: { name: col, val: call(['unnest'], [inner]) } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } },
        alias: { aliasname: alias.aliasname, colnames: [str(col)] },
      },
    };
  }
  if (fn && fname && !SINGLE_COLUMN_SRF.has(fname) && !TABLE_FUNCTIONS.has(fname) && !/^(duckdb_|pragma_|read_|parquet_|ducklake_)/.test(fname) && names(fn.funcname).length < 3 && !rf.ordinality && body.functions.length === 1) {
    // PostgreSQL accepts a scalar function in FROM (one row, one column named after the alias).
    ctx.changed = true;
    const alias = rf.alias ?? { aliasname: fname };
    const col = names(alias.colnames)[0] ?? alias.aliasname;
    return {
      RangeSubselect: {
        subquery: { SelectStmt: { targetList: [{ ResTarget: { name: col, val: { FuncCall: fn } } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } },
        alias: { aliasname: alias.aliasname, colnames: [str(col)] },
      },
    };
  }
  if (rf.alias && !rf.alias.colnames && fname && SINGLE_COLUMN_SRF.has(fname) && !rf.ordinality) {
    body.alias = { ...rf.alias, colnames: [str(rf.alias.aliasname)] };
    ctx.changed = true;
  }
  return orig === rf ? orig : { RangeFunction: body };
}

function funcCall(orig: Node, fc: Node, ctx: Ctx, inFrom: boolean): Node {
  const parts = names(fc.funcname);
  const args = walk(fc.args, ctx, false) as Node[] | undefined;
  const out: Node = { ...fc, args };
  // An aggregate's ORDER BY and FILTER and a window's OVER name columns too (SQLAlchemy 2: array_agg(… ORDER BY pg_catalog.pg_enum.enumsortorder)).
  for (const k of ['agg_order', 'agg_filter', 'over'] as const) if (fc[k] !== undefined) out[k] = walk(fc[k], ctx, false);
  const pgName = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog') ? parts[parts.length - 1]! : undefined;
  if (pgName === 'format' && args && args.length > 0 && !fc.agg_star) {
    ctx.changed = true;
    return formatCall(args, compat);
  }
  if (pgName === 'to_char' && args) { ctx.changed = true; return toCharCall(args); }
  if ((pgName === 'to_date' || pgName === 'to_timestamp') && args?.length === 2) { ctx.changed = true; return parseDateCall(pgName, args); }
  if (pgName === 'to_number' && args?.length === 2) { ctx.changed = true; return toNumberCall(args); }
  if (pgName === 'regexp_matches') throw regexpMatchesRefused();
  const typed = pgName === 'sum' && args?.length === 1 && !fc.agg_star ? sumCall({ FuncCall: out }, args[0]!)
    : pgName === 'round' && args?.length === 1 ? roundCall(args[0]!)
    : pgName === 'avg' && args?.length === 1 && !fc.over && !fc.agg_star ? avgCall(out, args[0]!) : undefined;
  if (typed) { ctx.changed = true; return typed; }
  if ((pgName === 'encode' || pgName === 'decode') && args?.length === 2) { ctx.changed = true; return codecCall(pgName, args); }
  if ((pgName === 'json_agg' || pgName === 'jsonb_agg') && args?.length === 1) { ctx.changed = true; return jsonAggCall(fc, args); }
  if (pgName && LIST_SRF_IN_SELECT.has(pgName) && !inFrom) {
    ctx.changed = true;
    return unnestSrf({ ...out, funcname: [str(pgName)] });
  }
  // EXTRACT(… FROM …), POSITION(… IN …), … parse as pg_catalog calls in SQL syntax: kept, so the
  // deparse spells them as written (DuckDB reads that syntax; `extract(...)` as a call it has not).
  if (parts.length === 2 && parts[0] === 'pg_catalog' && fc.funcformat === 'COERCE_SQL_SYNTAX') return { FuncCall: out };
  if (parts.length === 2 && (parts[0] === 'pg_catalog' || parts[0] === 'information_schema')) {
    ctx.changed = true;
    const base = RENAMED[parts[1]!] ?? parts[1]!;
    if (parts[0] === 'information_schema' && base === '_pg_expandarray') out.funcname = [COMPAT_DB, PGCAT, base].map(str);
    else if (hasCompat(base, args)) out.funcname = [COMPAT_DB, PGCAT, base].map(str);
    else out.funcname = [str(base)];
  } else if (parts.length === 1) {
    const base = RENAMED[parts[0]!] ?? parts[0]!;
    if (!inFrom && hasCompat(base, args)) {
      out.funcname = [COMPAT_DB, PGCAT, base].map(str);
      ctx.changed = true;
    } else if (base !== parts[0]) {
      out.funcname = [str(base)];
      ctx.changed = true;
    }
  }
  return { FuncCall: out };
}

function hasCompat(name: string, args: Node[] | undefined): boolean {
  return COMPAT_FUNCTION_ARITIES.get(name)?.has(args?.length ?? 0) ?? false;
}

/** PostgreSQL array text '{a,"b c",NULL}' → element strings (null for NULL); undefined if not one. */
function parseArrayText(s: string): Array<string | null> | undefined {
  if (!/^\{.*\}$/s.test(s)) return undefined;
  const inner = s.slice(1, -1);
  if (inner.trim() === '') return [];
  const out: Array<string | null> = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*?))\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < inner.length && (m = re.exec(inner))) {
    if (m[1] !== undefined) out.push(m[1].replace(/\\(.)/g, '$1'));
    else out.push(m[2]!.toUpperCase() === 'NULL' ? null : m[2]!);
    if (m[0] === '') break;
  }
  return out;
}

function typeCast(tc: Node, ctx: Ctx, display: boolean): Node {
  const tn = tc.typeName as Node;
  const parts = names(tn.names);
  const type = parts[parts.length - 1]!.toLowerCase();
  const isArray = Array.isArray(tn.arrayBounds) && tn.arrayBounds.length > 0;
  const textual = !isArray && (type === 'text' || type === 'varchar' || type === 'name' || type === 'bpchar');
  // '{a,b}'::text[] → ARRAY['a','b']::text[] (DuckDB reads '[a, b]', not PostgreSQL's array text).
  let arg: Node;
  const sval = tc.arg?.A_Const?.sval?.sval as string | undefined;
  const elems = isArray && sval !== undefined ? parseArrayText(sval) : undefined;
  if (elems) {
    arg = { A_ArrayExpr: { elements: elems.map((e) => (e === null ? { A_Const: { isnull: true } } : strConst(e))) } };
    ctx.changed = true;
  } else {
    arg = walk(tc.arg, ctx, textual) as Node;
  }
  if (!isArray && sval !== undefined) {
    // PostgreSQL's input function decides what a string constant means (pg-input.ts).
    const read = isIntegerType(type) ? integerInput(type, sval) : type === 'bool' || type === 'boolean' ? booleanInput(sval)
      : type === 'timestamptz' ? timestamptzInput(sval) : undefined;
    if (read && read.A_Const.sval.sval !== sval) {
      ctx.changed = true;
      arg = read;
    }
  }
  if (!isArray && (type === 'numeric' || type === 'decimal') && !tn.typmods) {
    const exact = numericCast(tc, arg);
    if (exact) { ctx.changed = true; return exact; }
    // A parameter keeps DuckDB's typing (param-types.ts); any other value keeps its own scale.
    const kept = tc.arg?.ParamRef || tc.arg?.A_Const ? undefined : numericOf(arg);
    if (kept) { ctx.changed = true; return kept; }
  }
  const length = tn.typmods?.length === 1 ? tn.typmods[0]?.A_Const?.ival?.ival : undefined;
  if (!isArray && typeof length === 'number' && (type === 'bpchar' || type === 'varchar')) {
    ctx.changed = true;
    return lengthCast(type, length, arg, display);
  }
  const paramNo = tc.arg?.ParamRef?.number as number | undefined;
  const paramOid = PARAM_CAST_OIDS[type];
  if (paramNo !== undefined && paramOid && !ctx.params.has(paramNo)) ctx.params.set(paramNo, paramOid[isArray ? 1 : 0]);
  if (REG_TYPES.has(type)) {
    ctx.changed = true;
    const kind = type === 'regprocedure' ? 'regproc' : type;
    if (isArray) return { TypeCast: { ...tc, arg, typeName: { ...tn, names: [str('bigint')], typmods: undefined } } };
    // An oid column is already the oid: only text needs a lookup, which fails for an unknown name
    // with PostgreSQL's error (to_regclass and relatives return NULL instead).
    const isOid = arg.ColumnRef !== undefined || arg.A_Const?.ival !== undefined;
    const oid = isOid ? { TypeCast: { arg, typeName: { names: [str('bigint')], typemod: -1 } } } : compat(`_${kind}_in`, [arg]);
    return display ? compat(`_${kind}_name`, [oid]) : oid;
  }
  let typeName = tn;
  // PostgreSQL parses `float` as float8; the original text would hand DuckDB its 4-byte FLOAT.
  if (ctx.floatSpelled && (type === 'float8' || type === 'float4')) ctx.changed = true;
  const mapped = TYPE_MAP[type];
  if (mapped) {
    const [base, arr] = mapped.endsWith('[]') ? [mapped.slice(0, -2), true] : [mapped, false];
    typeName = { ...tn, names: [str(base)], typmods: undefined, arrayBounds: arr || isArray ? [{ Integer: { ival: -1 } }] : undefined };
    ctx.changed = true;
  } else if (parts.length === 2 && parts[0] === 'pg_catalog' && !['int2', 'int4', 'int8', 'float4', 'float8', 'bool', 'numeric', 'timestamptz', 'timestamp', 'date', 'time', 'timetz', 'interval', 'varchar', 'bit', 'varbit'].includes(type)) {
    typeName = { ...tn, names: [str(type)] };
    ctx.changed = true;
  }
  return { TypeCast: { ...tc, arg, typeName } };
}

const REGEX_OPS: Record<string, { negate: boolean; flags?: string }> = {
  '~': { negate: false }, '~*': { negate: false, flags: 'i' }, '!~': { negate: true }, '!~*': { negate: true, flags: 'i' },
};
const LIKE_OPS: Record<string, { negate: boolean; fn: string }> = {
  '~~': { negate: false, fn: 'like_escape' }, '!~~': { negate: true, fn: 'like_escape' },
  '~~*': { negate: false, fn: 'ilike_escape' }, '!~~*': { negate: true, fn: 'ilike_escape' },
};
const not = (n: Node): Node => ({ BoolExpr: { boolop: 'NOT_EXPR', args: [n] } });

function aExpr(orig: Node, expr: Node, ctx: Ctx): Node {
  const op = names(expr.name).slice(-1)[0] ?? '';
  // OPERATOR(pg_catalog.=) is the built-in = (psql and pg_dump spell operators so): DuckDB knows it unqualified.
  const qualified = names(expr.name).length === 2 && names(expr.name)[0] === 'pg_catalog';
  if (qualified) ctx.changed = true;
  const e = qualified ? { ...expr, name: [str(op)] } : expr;
  const lexpr = walk(e.lexpr, ctx, false) as Node;
  let rexpr = walk(e.rexpr, ctx, false) as Node;
  if (e.kind === 'AEXPR_SIMILAR') {
    ctx.changed = true;
    return similarTo(lexpr, rexpr, op === '!~');
  }
  const minus = e.kind === 'AEXPR_OP' && op === '-' && e.lexpr && (dateLike(lexpr) || dateLike(rexpr)) ? dateMinus(lexpr, rexpr) : undefined;
  if (minus) { ctx.changed = true; return minus; }
  if (e.kind === 'AEXPR_OP' && op === '||' && e.lexpr) {
    const typed = concatWithNull({ A_Expr: { ...e, lexpr, rexpr } }, lexpr, rexpr);
    if (typed) { ctx.changed = true; return typed; }
  }
  if (e.kind === 'AEXPR_OP' && (op === '#>' || op === '#>>') && e.lexpr) {
    ctx.changed = true;
    return jsonPathOperator(op, lexpr, rexpr);
  }
  if (e.kind === 'AEXPR_OP' && op === '/' && e.lexpr) {
    const folded = constantDivision(e.lexpr, e.rexpr);
    if (folded) { ctx.changed = true; return folded; }
  }
  if (e.kind === 'AEXPR_OP' && (op === '/' || op === '%') && e.lexpr) {
    const guarded = guardDivisor(rexpr);
    if (guarded !== rexpr) ctx.changed = true;
    const typed = op !== '/' ? undefined : hasAggregate(e.lexpr) || hasAggregate(e.rexpr) ? aggregateDivision(lexpr, guarded) : rowDivision(lexpr, guarded);
    if (typed) { ctx.changed = true; return typed; }
    return { A_Expr: { ...e, lexpr, rexpr: guarded } };
  }
  // A prefix ~ (no left side) is bitwise NOT, which DuckDB spells the same.
  if (e.kind === 'AEXPR_OP' && REGEX_OPS[op] && e.lexpr) {
    // PostgreSQL's ~ searches; DuckDB's ~ must match the whole string.
    const { negate, flags } = REGEX_OPS[op]!;
    ctx.changed = true;
    const m = call(['regexp_matches'], flags ? [lexpr, rexpr, strConst(flags)] : [lexpr, rexpr]);
    return negate ? not(m) : m;
  }
  const escaped = (e.rexpr as Node | undefined)?.FuncCall as Node | undefined;
  if ((e.kind === 'AEXPR_LIKE' || e.kind === 'AEXPR_ILIKE') && LIKE_OPS[op] && escaped && names(escaped.funcname).slice(-1)[0] === 'like_escape' && (escaped.args as Node[] | undefined)?.length === 2) {
    // `x LIKE p ESCAPE e` parses as x ~~ like_escape(p, e): DuckDB's like_escape takes all three.
    const { negate, fn } = LIKE_OPS[op]!;
    ctx.changed = true;
    const [pattern, escape] = (escaped.args as Node[]).map((a) => walk(a, ctx, false) as Node);
    const m = call([fn], [lexpr, pattern!, escape!]);
    return negate ? not(m) : m;
  }
  if ((e.kind === 'AEXPR_LIKE' || e.kind === 'AEXPR_ILIKE') && LIKE_OPS[op] && !rexpr?.FuncCall) {
    // PostgreSQL's LIKE escapes with backslash by default (pgjdbc sends 'a\_b'); DuckDB's has no escape.
    const { negate, fn } = LIKE_OPS[op]!;
    ctx.changed = true;
    const m = call([fn], [lexpr, rexpr, strConst('\\')]);
    return negate ? not(m) : m;
  }
  if (e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') {
    // ANY('{r,p,f}'): PostgreSQL reads the text as an array of the left side's type.
    const elems = typeof rexpr?.A_Const?.sval?.sval === 'string' ? parseArrayText(rexpr.A_Const.sval.sval) : undefined;
    if (elems) {
      ctx.changed = true;
      const items = elems.map((x) => (x === null ? { A_Const: { isnull: true } } : strConst(x)));
      const membership = (e.kind === 'AEXPR_OP_ANY' && op === '=') || (e.kind === 'AEXPR_OP_ALL' && op === '<>');
      if (membership && items.length > 0) {
        // x = ANY('{1,2}') is x IN ('1', '2'): DuckDB casts the literals to x's type, as PostgreSQL types the array.
        return { A_Expr: { kind: 'AEXPR_IN', name: [str(op)], lexpr, rexpr: { List: { items } } } };
      }
      if (membership) return { A_Const: { boolval: { boolval: e.kind === 'AEXPR_OP_ALL' } } };
      rexpr = { A_ArrayExpr: { elements: items } };
    }
  }
  if ((e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') && isLikeAny(op)) {
    ctx.changed = true;
    return likeAny(e.kind, op, lexpr, rexpr);
  }
  if ((e.kind === 'AEXPR_OP_ANY' && op === '=') || (e.kind === 'AEXPR_OP_ALL' && op === '<>')) {
    // DuckDB plans `x = ANY(list)` as a subquery, which it cannot put in an outer join condition.
    // It also lets DuckDB infer an untyped `= ANY($1)` parameter as an array of the left side's type.
    ctx.changed = true;
    const contains = call(['list_contains'], [rexpr, lexpr]);
    return e.kind === 'AEXPR_OP_ANY' ? contains : not(contains);
  }
  if (e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') return { A_Expr: { ...e, lexpr, rexpr } };
  if (e.kind === 'AEXPR_OP' && (op === '=' || op === '<>')) {
    // A column compared with '{...}' array text: give DuckDB its own list text.
    const fix = (n: Node): Node => {
      const s = n?.A_Const?.sval?.sval as string | undefined;
      const elems = s !== undefined ? parseArrayText(s) : undefined;
      if (!elems) return n;
      ctx.changed = true;
      return strConst(`[${elems.map((x) => x ?? 'NULL').join(', ')}]`);
    };
    rexpr = fix(rexpr);
    return { A_Expr: { ...e, lexpr: fix(lexpr), rexpr } };
  }
  return { A_Expr: { ...e, lexpr, rexpr } };
}

function collate(orig: Node, c: Node, ctx: Ctx): Node {
  const name = names(c.collname).slice(-1)[0];
  if (name === 'default' || name === 'C' || name === 'POSIX') {
    ctx.changed = true;
    return walk(c.arg, ctx, false) as Node;
  }
  return { CollateClause: { ...c, arg: walk(c.arg, ctx, false) } };
}

function sqlValueFunction(orig: Node, f: Node, ctx: Ctx): Node {
  switch (f.op) {
    case 'SVFOP_CURRENT_USER': case 'SVFOP_USER': case 'SVFOP_SESSION_USER': case 'SVFOP_CURRENT_ROLE':
      ctx.changed = true;
      return compat('pg_current_user', []);
    case 'SVFOP_CURRENT_CATALOG':
      ctx.changed = true;
      return compat('pg_current_database', []);
    case 'SVFOP_CURRENT_SCHEMA':
      ctx.changed = true;
      return compat('current_schema', []);
    default:
      return orig;
  }
}
