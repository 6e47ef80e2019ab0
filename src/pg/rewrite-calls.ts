/** Function calls in the rewrite: PostgreSQL functions DuckDB spells or answers differently (pg-calls.ts, pg-result-types.ts). */
import { posixZoneRefusal } from './posix-zones.js';
import { unsupportedFunctionRefused } from './unsupported-functions.js';
import { abbreviationZone } from './zone-abbreviations.js';
import { splitPart, stringToArray } from './split-calls.js';
import { generateSubscripts, stringToTable } from './srf-from.js';
import { isJsonSetFunction, jsonSetElsewhereRefused, jsonSetInSelect } from './json-sets.js';
import { COMPAT_FUNCTION_ARITIES } from './catalog/install.js';
import { COMPAT_DB } from './catalog/names.js';
import {
  avgCall,
  constantInteger,
  dispatch,
  int4OfSmallIntegers,
  signCall,
  percentileArgument,
  percentileInterpolated,
  roundCall,
  roundOfNumeric,
  roundPlacesCall,
  sumCall,
} from './pg-result-types.js';
import {
  defaultedOffset,
  isVariance,
  shownAggregate,
  shownFloatSum,
  shownNumericExtreme,
  shownRound,
  variableRound,
} from './pg-shown-calls.js';
import { SqlError, SQLSTATE } from '../errors.js';
import {
  checkedPower,
  codecCall,
  constantZero,
  formatCall,
  LIST_SRF_IN_SELECT,
  numericSeries,
  refuse,
  regexpMatchesRefused,
  unnestSrf,
} from './pg-calls.js';
import { parseDateCall, toCharCall, toNumberCall } from './pg-formatting.js';
import { needsValue } from './param-values.js';
import { OID } from './oids.js';
import {
  asTimestamptz,
  centuryTruncated,
  boundBeside,
  castTo,
  caseMapped,
  datePartFloat8,
  extractNumeric,
  int4Result,
  octetLength,
  lengthCall,
  digestCall,
  settingOrError,
} from './pg-forms.js';
import {
  call,
  compat,
  names,
  PGCAT,
  REG_TYPES,
  str,
  strConst,
  TO_REG_CALL,
  typedAs,
  type Ctx,
  type Node,
} from './rewrite-nodes.js';
import { hasAggregate, numericNullsTyped } from './pg-result-types.js';
import {
  cardinalityCall,
  emptyFillPad,
  jsonbBuildObjectRefused,
  regexSubstring,
  substrCall,
  zeroVarianceNull,
} from './pg-spellings.js';
import { untypedWithin, walk } from './rewrite-walk.js';
import { arrayToStringCall, concatCall } from './pg-text.js';
import { jsonAggOfValues, jsonObjectAgg } from './pg-json-values.js';
import { makeIntervalCall, overlayCall } from './pg-composed-calls.js';
import { re2Flags, re2Pattern, re2Replacement } from './are-pattern.js';
import { jsonExtractPathCall } from './pg-operators.js';
import { numericScaleCall, trimScaleCall } from './numeric-scales.js';
import { jsonbPrettyText } from './pg-jsonb.js';
import { floatCheckedExp, floatCheckedSum } from './float-range.js';
import { REGEXP_FUNCTIONS, regexpFunctionCall, zeroWidthAssertion } from './regexp-functions.js';
import { PG_FUNCTIONS } from './catalog/pg-functions.js';

/**
 * PostgreSQL's functions that are neither aggregates nor window functions (pg_proc's prokind 'f' under
 * every overload): `f(x) OVER (…)` is PostgreSQL's 42809. A rewrite may turn such a call into a macro or
 * an expression, and DuckDB then answered it as if the OVER were not there (`lower(name) over ()`).
 */
const PLAIN_FUNCTIONS: ReadonlySet<string> = (() => {
  const kinds = new Map<string, Set<unknown>>();
  for (const r of PG_FUNCTIONS) kinds.set(r[1] as string, (kinds.get(r[1] as string) ?? new Set()).add(r[6]));
  return new Set([...kinds].filter(([, k]) => k.size === 1 && k.has('f')).map(([name]) => name));
})();

/** The type a node is cast to (`x::interval`, `interval '1 day'`), or undefined. */
function castType(n: Node | undefined): string | undefined {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return tn && !tn.arrayBounds?.length ? names(tn.names).slice(-1)[0] : undefined;
}

/** PostgreSQL's frame option bits (nodes/parsenodes.h): RANGE frames word a bad offset differently. */
const FRAMEOPTION_RANGE = 0x2;

/**
 * Window calls PostgreSQL refuses where DuckDB answers: an aggregate's ORDER BY or DISTINCT under OVER (0A000:
 * DuckDB sorted or deduplicated each frame), `nth_value(x, n)` with a constant n below 1 (22016: DuckDB's NULL),
 * a negative constant frame offset (22013: DuckDB read an empty frame). Raised when the text is planned; PostgreSQL
 * raises the last two when a row reaches the window.
 */
function refuseWindowForms(name: string, fc: Node): void {
  if (fc.agg_order)
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'aggregate ORDER BY is not implemented for window functions',
      undefined,
      `Order the rows in the window itself: ${name}(…) OVER (ORDER BY …), or aggregate in a subquery.`,
    );
  if (fc.agg_distinct)
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'DISTINCT is not implemented for window functions',
      undefined,
      'Aggregate the distinct values in a subquery and join it back.',
    );
  const n = name === 'nth_value' ? constantInteger((fc.args as Node[] | undefined)?.[1]) : undefined;
  if (n !== undefined && n <= 0)
    throw new SqlError(SQLSTATE.invalidArgumentForNthValueFunction, 'argument of nth_value must be greater than zero');
  const w = fc.over as Node;
  for (const [offset, end] of [
    [w.startOffset, 'starting'],
    [w.endOffset, 'ending'],
  ] as const) {
    const v = constantInteger(offset as Node | undefined);
    if (v === undefined || v >= 0) continue;
    throw new SqlError(
      SQLSTATE.invalidPrecedingOrFollowingSize,
      (Number(w.frameOptions) & FRAMEOPTION_RANGE) !== 0
        ? 'invalid preceding or following size in window function'
        : `frame ${end} offset must not be negative`,
    );
  }
}

/** PostgreSQL's functions of no argument whose result is a name (19). */
const NAME_FUNCTIONS: ReadonlySet<string> = new Set(['current_database', 'current_schema']);

/** A user, catalog or schema name (`current_user`, `current_database()`…): PostgreSQL's type name. */
function nameValue(n: Node | undefined): boolean {
  const svf = n?.SQLValueFunction?.op as string | undefined;
  if (svf) return /^SVFOP_(?:CURRENT_USER|USER|SESSION_USER|CURRENT_ROLE|CURRENT_CATALOG|CURRENT_SCHEMA)$/.test(svf);
  const fc = n?.FuncCall as Node | undefined;
  const parts = names(fc?.funcname);
  const own = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog');
  return own && NAME_FUNCTIONS.has(parts.at(-1) ?? '') && !fc?.args?.length;
}

/** Relation size functions: their argument is a regclass. */
const RELATION_SIZES = new Set(['pg_relation_size', 'pg_total_relation_size', 'pg_table_size', 'pg_indexes_size']);

/** Functions whose PostgreSQL name differs from the DuckDB (or compat) one. */
const RENAMED: Record<string, string> = {
  json_build_object: 'json_object',
  current_database: 'pg_current_database',
  btrim: 'trim',
  every: 'bool_and',
};

export function funcCall(orig: Node, fc: Node, ctx: Ctx, inFrom: boolean): Node {
  const parts = names(fc.funcname);
  const called = parts[parts.length - 1]!;
  if (fc.over && (parts.length === 1 || parts[0] === 'pg_catalog') && PLAIN_FUNCTIONS.has(called))
    throw new SqlError(
      SQLSTATE.wrongObjectType,
      `OVER specified, but ${called} is not a window function nor an aggregate function`,
    );
  if (fc.over && (parts.length === 1 || parts[0] === 'pg_catalog')) refuseWindowForms(called, fc);
  const rounded =
    !inFrom && (parts.length === 1 || parts[0] === 'pg_catalog') && parts[parts.length - 1] === 'round' && !fc.over
      ? roundOfNumeric(fc.args as Node[] | undefined, (n) => walk(n, ctx, false) as Node)
      : undefined;
  if (rounded) {
    ctx.changed = true;
    return rounded;
  }
  // A compat macro's arguments, and format()'s when it quotes an identifier (quote_ident), land inside
  // a subquery of the macro's body: no typed overload can be picked there (Ctx.untypedText).
  const last = parts[parts.length - 1]!;
  const pgOwn = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog');
  if (pgOwn) unsupportedFunctionRefused(last);
  // quote_nullable(x): PostgreSQL's own definition, quote_literal(x::text) or NULL spelled NULL (bool::text is `true`)
  if (pgOwn && last === 'quote_nullable' && (fc.args as Node[] | undefined)?.length === 1 && !inFrom && !fc.over) {
    ctx.changed = true;
    const text: Node = { TypeCast: { arg: (fc.args as Node[])[0], typeName: { names: [str('text')], typemod: -1 } } };
    return walk({ CoalesceExpr: { args: [call(['quote_literal'], [text]), strConst('NULL')] } }, ctx, false) as Node;
  }
  // json[b]_extract_path(_text): PostgreSQL's `#>`/`#>>`, walked as the operator is (a shown one typed jsonb by it)
  const path = pgOwn && !inFrom ? jsonExtractPathCall(last, fc) : undefined;
  if (path) {
    ctx.changed = true;
    if (ctx.shown?.has(fc)) ctx.shown.add(path.A_Expr as Node);
    return walk(path, ctx, false) as Node;
  }
  const inSubquery =
    pgOwn &&
    (hasCompat(RENAMED[last] ?? last, fc.args as Node[] | undefined) ||
      (last === 'format' && /%(?:\d+\$)?I/.test(String((fc.args as Node[] | undefined)?.[0]?.A_Const?.sval?.sval))));
  // concat, concat_ws and octet_length read a char(n) padded, as its output function writes it (`'ab'::char(4)`: `ab  `);
  // they and format read a reg* value as its output function writes it too, the name (`format('%I', n::regnamespace)`
  // wrote the OID's digits)
  const padded = pgOwn && ['concat', 'concat_ws', 'octet_length', 'format'].includes(last);
  const asOutput = (a: Node): boolean =>
    castType(a) === 'bpchar' ? last !== 'format' : REG_TYPES.has(castType(a) ?? '') && last !== 'octet_length';
  const walkArgs = (): unknown =>
    padded ? (fc.args as Node[] | undefined)?.map((a) => walk(a, ctx, asOutput(a))) : walk(fc.args, ctx, false);
  const args = (inSubquery ? untypedWithin(ctx, walkArgs) : walkArgs()) as Node[] | undefined;
  const out: Node = { ...fc, args };
  // An aggregate's ORDER BY and FILTER and a window's OVER name columns too (SQLAlchemy 2: array_agg(… ORDER BY pg_catalog.pg_enum.enumsortorder)).
  for (const k of ['agg_order', 'agg_filter', 'over'] as const)
    if (fc[k] !== undefined) out[k] = walk(fc[k], ctx, false);
  const pgName =
    parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog') ? parts[parts.length - 1]! : undefined;
  if (pgName === 'format' && args && args.length > 0 && !fc.agg_star) {
    ctx.changed = true;
    return formatCall(args, compat, (ctx.untypedText ?? 0) > 0);
  }
  if (pgName === 'to_char' && args) {
    ctx.changed = true;
    return toCharCall(args);
  }
  if ((pgName === 'to_date' || pgName === 'to_timestamp') && args?.length === 2) {
    ctx.changed = true;
    return parseDateCall(pgName, args);
  }
  if (pgName === 'to_number' && args?.length === 2) {
    ctx.changed = true;
    return toNumberCall(args, ctx.shown?.has(fc) === true);
  }
  // `x AT TIME ZONE interval '+05:30'`: a fixed offset, east of UTC positive (DuckDB's timezone() takes no interval)
  if (pgName === 'timezone' && args?.length === 2 && castType((fc.args as Node[])[0]) === 'interval' && !inFrom) {
    const shifted = dispatch('atinterval', [args[1]!], [args[1]!, args[0]!]);
    if (shifted) {
      ctx.changed = true;
      return shifted;
    }
  }
  // `x AT TIME ZONE 'UTC+3'` (timezone(zone, x)): PostgreSQL's POSIX sign is the reverse of DuckDB's.
  const zone = pgName === 'timezone' && args?.length === 2 ? args[0]?.A_Const?.sval?.sval : undefined;
  const posix = typeof zone === 'string' ? posixZoneRefusal(zone) : undefined;
  if (posix) throw posix;
  // `x AT TIME ZONE 'PST'`: PostgreSQL's abbreviation is a fixed offset, DuckDB's ICU a zone (or none).
  const abbreviated = typeof zone === 'string' ? abbreviationZone(zone, args![1]!) : undefined;
  if (abbreviated) {
    ctx.changed = true;
    return abbreviated;
  }
  // (in FROM the call stays one: a CASE is no FROM item)
  if (pgName === 'string_to_array' && args?.length === 2 && !fc.over && !inFrom) {
    ctx.changed = true;
    return stringToArray(args[0]!, args[1]!);
  }
  const table =
    args && !fc.over && !inFrom
      ? pgName === 'string_to_table'
        ? stringToTable(args)
        : pgName === 'generate_subscripts'
          ? generateSubscripts(args)
          : undefined
      : undefined;
  if (table) {
    ctx.changed = true;
    return table;
  }
  // date_bin(stride, max(ts), origin): DuckDB cannot type an aggregate's or a window's value before it picks
  // one of the macro's two overloads (42725); one overload, the origin read as timestamp (cast implicitly to
  // timestamptz in the session's zone where the source is one, as PostgreSQL reads an untyped origin)
  if (
    pgName === 'date_bin' &&
    args?.length === 3 &&
    !fc.over &&
    !inFrom &&
    (hasAggregate(args[1]) || hasWindow(args[1]))
  ) {
    ctx.changed = true;
    return compat('_pgsem_date_bin_of', args);
  }
  if (pgName === 'split_part' && args?.length === 3 && !fc.over && !inFrom) {
    ctx.changed = true;
    return splitPart(args[0]!, args[1]!, args[2]!);
  }
  if (pgName === 'regexp_matches') throw regexpMatchesRefused();
  // regexp_match, regexp_like, regexp_count, regexp_substr, regexp_instr (PostgreSQL 15; DuckDB has none or another meaning)
  const regexp =
    pgName && REGEXP_FUNCTIONS.has(pgName) && args && !fc.over && !inFrom
      ? regexpFunctionCall(pgName, args)
      : undefined;
  if (regexp) {
    ctx.changed = true;
    return regexp;
  }
  if (isJsonSetFunction(pgName)) {
    // (a FROM item of this function alone is rewrite-walk.ts's; ROWS FROM with others is not emulated)
    if (fc.over || inFrom) throw jsonSetElsewhereRefused(pgName!);
    ctx.changed = true;
    return jsonSetInSelect(pgName!, args, ctx.shown?.has(fc) === true);
  }
  if (pgName === 'jsonb_build_object') throw jsonbBuildObjectRefused();
  const result = pgCall(pgName, fc, out, args, ctx, inFrom);
  if (result) {
    ctx.changed = true;
    return result;
  }
  // pg_typeof of an untyped literal (a string constant, NULL) is PostgreSQL's `unknown`; DuckDB typed it (text, "null")
  const untyped = (fc.args as Node[] | undefined)?.[0]?.A_Const as Node | undefined;
  // … and of a cast to name or "char", which DuckDB holds as VARCHAR
  const argType = (fc.args as Node[] | undefined)?.[0]?.TypeCast?.typeName as Node | undefined;
  const castTo = argType?.arrayBounds ? undefined : names(argType?.names).at(-1);
  // (and of a cast to oid, held as BIGINT, or of a user, catalog or schema name: PostgreSQL's name)
  const held =
    castTo === 'name' || nameValue((fc.args as Node[] | undefined)?.[0])
      ? 'name'
      : castTo === 'char'
        ? '"char"'
        : castTo === 'oid'
          ? 'oid'
          : castTo === 'varchar'
            ? 'character varying'
            : undefined;
  if (pgName === 'pg_typeof' && args?.length === 1) out.args = [numericNullsTyped(args[0]) as Node];
  const plain =
    pgName === 'pg_typeof' && fc.args.length === 1 && (untyped?.sval || untyped?.isnull || held)
      ? ((ctx.changed = true), strConst(held ?? 'unknown'))
      : namedCall(parts, fc, out, args, ctx, inFrom);
  // pg_typeof's name, in the outermost select list sent as regtype (its binary form the type's OID).
  if (pgName === 'pg_typeof' && ctx.shown?.has(fc)) return typedAs('regtype', plain);
  // current_database() and current_schema() are of type name (19) in PostgreSQL; DuckDB's are VARCHAR
  if (NAME_FUNCTIONS.has(pgName ?? '') && !args?.length && ctx.shown?.has(fc)) return typedAs('name', plain);
  // to_regclass(…) and relatives in the outermost select list: the name, as a reg* cast shows it (the
  // column's type from rewrite-catalog-types.ts); elsewhere the OID, which comparisons and joins read.
  const regKind = pgName === undefined ? undefined : TO_REG_CALL.exec(pgName)?.[1];
  if (regKind && args?.length === 1 && ctx.shown?.has(fc)) {
    ctx.changed = true;
    return compat(`_${regKind}_name`, [plain]);
  }
  if (pgName === 'current_setting' && args?.length === 1 && !inFrom) {
    ctx.changed = true;
    return settingOrError(plain, args[0]!);
  }
  const int4 = pgName && !inFrom && plain.FuncCall ? int4Result(pgName, plain.FuncCall) : undefined;
  if (int4) {
    ctx.changed = true;
    return int4;
  }
  return plain;
}

/** PostgreSQL's result types and argument readings for calls DuckDB has under the same name. */
function pgCall(
  pgName: string | undefined,
  fc: Node,
  out: Node,
  args: Node[] | undefined,
  ctx: Ctx,
  inFrom: boolean,
): Node | undefined {
  if (pgName === 'cardinality' && args?.length === 1 && !inFrom) return cardinalityCall(args[0]!);
  if (pgName === 'string_to_array' && args?.length === 3 && !inFrom) return compat('_pgsem_string_to_array', args);
  // of a numeric: PostgreSQL's numeric answer is not DuckDB's double (pg-value-macros.ts `_pgsem_nmath`)
  if (pgName && ['sqrt', 'exp', 'ln', 'log', 'log10'].includes(pgName) && args?.length === 1 && !inFrom && !fc.over) {
    const plain: Node = { FuncCall: { ...out, funcname: [str(pgName)] } };
    const typed = dispatch('nmath', [args[0]!], [plain, strConst(pgName)]) ?? plain;
    // exp of a float overflows and underflows as PostgreSQL's dexp: 22003 (float-range.ts)
    return pgName === 'exp' ? floatCheckedExp(typed, args[0]!) : typed;
  }
  // log(b, x) is numeric only in PostgreSQL
  if (pgName === 'log' && args?.length === 2 && !inFrom && !fc.over) {
    const plain: Node = { FuncCall: { ...out, funcname: [str(pgName)] } };
    const numeric: Node = { A_Const: { fval: { fval: '0.5' } } };
    return dispatch('nmath', [numeric], [plain, strConst('log')]) ?? plain;
  }
  // trunc(float8, n) does not exist in PostgreSQL (42883): only trunc(numeric, n)
  if (pgName === 'trunc' && args?.length === 2 && !inFrom && !fc.over) {
    const plain: Node = { FuncCall: { ...out, funcname: [str('trunc')] } };
    return dispatch('truncn', [args[0]!], [args[0]!, args[1]!]) ?? plain;
  }
  if ((pgName === 'power' || pgName === 'pow') && args?.length === 2 && !inFrom) {
    const pow: Node = { FuncCall: { ...out, funcname: [str(pgName)] } };
    const checked = checkedPower(pow, args[0]!, args[1]!);
    if (checked !== pow) return checked;
  }
  if ((pgName === 'lag' || pgName === 'lead') && args?.length === 3 && fc.over && !inFrom) {
    const typed = defaultedOffset(pgName, out, args, ctx.shown?.has(fc) === true);
    if (typed) return typed;
  }
  // to_hex of an integer: lower-case digits, an int4's two's complement in 32 bits (DuckDB: upper case, 64 bits).
  if (pgName === 'to_hex' && args?.length === 1 && !inFrom) {
    const hex = dispatch('tohex', [args[0]!], [args[0]!]);
    if (hex) return hex;
  }
  // concat, concat_ws, array_to_string: each value's text as PostgreSQL's output function writes it.
  if ((pgName === 'concat' || pgName === 'concat_ws') && args?.length && !inFrom && !fc.agg_star)
    return concatCall(pgName, args, (ctx.untypedText ?? 0) > 0);
  if (pgName === 'array_to_string' && args && !inFrom) {
    const joined = arrayToStringCall(args, (ctx.untypedText ?? 0) > 0);
    if (joined) return joined;
  }
  // lpad(s, n), rpad(s, n): padded with spaces (DuckDB has only the three-argument form).
  if ((pgName === 'lpad' || pgName === 'rpad') && args?.length === 2 && !inFrom)
    return { FuncCall: { ...out, funcname: [str(pgName)], args: [...args, strConst(' ')] } };
  if ((pgName === 'lpad' || pgName === 'rpad') && args?.length === 3 && !inFrom) {
    const padded = emptyFillPad({ ...out, funcname: [str(pgName)] }, args); // (DuckDB reads pg_catalog.rpad(…) as a method call)
    if (padded) return padded;
  }
  if ((pgName === 'corr' || pgName === 'regr_slope') && args?.length === 2 && !inFrom && !fc.agg_within_group)
    return zeroVarianceNull(pgName, out);
  // (s1, e1) OVERLAPS (s2, e2): the compat macro (pg-macros.ts); an end written as an interval is its start plus it
  if (pgName === 'overlaps' && args?.length === 4 && !inFrom) {
    const end = (s: Node, e: Node): Node =>
      castType(e) === 'interval' ? { A_Expr: { kind: 'AEXPR_OP', name: [str('+')], lexpr: s, rexpr: e } } : e;
    return compat('overlaps', [args[0]!, end(args[0]!, args[1]!), args[2]!, end(args[2]!, args[3]!)]);
  }
  // substring(s similar p escape e), also spelled substring(s from p for e): SQL's regular expressions with
  // `e"` marking the part returned; DuckDB's three-argument substr reads positions (42601 or another answer)
  if (pgName === 'substring' && args?.length === 3 && typeof args[1]?.A_Const?.sval?.sval === 'string')
    throw refuse(
      'substring(s similar pattern escape e)',
      "Write a POSIX regular expression with a group around the part to return: substring(s from 'a(bc).*') or regexp_extract(s, pattern, 1).",
    );
  if (pgName === 'substring' && args?.length === 2 && !inFrom) {
    const regex = regexSubstring(args);
    if (regex) return regex;
  }
  if (
    (pgName === 'substr' || pgName === 'substring') &&
    (args?.length === 2 || args?.length === 3) &&
    !inFrom &&
    !args[1]?.A_Const?.sval
  )
    return substrCall(args);
  if (pgName === 'extract' && args?.length === 2 && fc.funcformat === 'COERCE_SQL_SYNTAX')
    return extractNumeric(out, args);
  if ((pgName === 'regexp_split_to_array' || pgName === 'regexp_split_to_table') && !inFrom) {
    const re = regexpSplitArgs(args ?? []);
    if (re) return { FuncCall: { ...out, funcname: [str(pgName)], args: re } };
  }
  if (pgName === 'regexp_replace' && (args?.length === 3 || args?.length === 4) && !inFrom) {
    const re = regexpReplaceArgs(args);
    if (re) return { FuncCall: { ...out, funcname: [str(pgName)], args: re } };
  }
  // scale(x), min_scale(x): int4 of a numeric (numeric-scales.ts; DuckDB has neither)
  if ((pgName === 'scale' || pgName === 'min_scale') && args?.length === 1 && !inFrom && !fc.over) {
    const scaled = numericScaleCall(pgName, (fc.args as Node[])[0]!, args[0]!);
    if (scaled) return scaled;
  }
  if (pgName === 'trim_scale' && args?.length === 1 && !inFrom && !fc.over) {
    const trimmed = trimScaleCall(args[0]!, ctx.shown?.has(fc) === true);
    if (trimmed) return trimmed;
  }
  if (pgName === 'jsonb_pretty' && args?.length === 1 && !inFrom && !fc.over)
    return jsonbPrettyCall((fc.args as Node[])[0]!);
  if (pgName === 'octet_length' && args?.length === 1) return octetLength(args);
  if (pgName === 'length' && args?.length === 1 && !inFrom) return lengthCall(args);
  if (pgName === 'sha256' && args?.length === 1 && !inFrom) return digestCall({ ...out, funcname: [str(pgName)] });
  if (pgName === 'sign' && args?.length === 1 && !inFrom) return signCall(args[0]!);
  if ((pgName === 'gcd' || pgName === 'lcm') && args?.length === 2 && !inFrom)
    return int4OfSmallIntegers({ FuncCall: { ...out, funcname: [str(pgName)] } }, args[0]!, args[1]!);
  if (pgName === 'date_part' && args?.length === 2 && !inFrom)
    return datePartFloat8({ ...out, funcname: [str('date_part')] });
  if (pgName === 'percentile_cont' && fc.agg_within_group && (out.agg_order as Node[] | undefined)?.length === 1) {
    const by = (out.agg_order as Node[])[0]!.SortBy as Node;
    const f = args?.length === 1 ? args[0]! : undefined;
    const node = f ? percentileArgument(by.node as Node, f) : undefined;
    const lerp = node && f && !out.over ? percentileInterpolated(out, f, { ...by, node }) : undefined;
    if (lerp) return lerp;
    if (node) return { FuncCall: { ...out, funcname: [str(pgName)], agg_order: [{ SortBy: { ...by, node } }] } };
  }
  if ((pgName === 'upper' || pgName === 'lower') && args?.length === 1) return caseMapped(pgName, args[0]!);
  if (pgName === 'date_trunc' && args?.length === 2 && !args[1]!.A_Const) {
    out.args = [args[0]!, asTimestamptz(args[1]!)];
    return centuryTruncated({ FuncCall: { ...out, funcname: [str(pgName)] } });
  }
  if (pgName === 'generate_series' && args?.length === 3 && constantZero(args[2]))
    throw new SqlError(SQLSTATE.invalidParameterValue, 'step size cannot equal zero');
  if (pgName && RELATION_SIZES.has(pgName) && args?.length && args[0]!.A_Const?.sval) {
    // pg_total_relation_size('sales.orders'): the text is read as a regclass, as PostgreSQL reads it.
    out.args = [compat('_regclass_in', [args[0]!]), ...args.slice(1)];
    return { FuncCall: { ...out, funcname: [COMPAT_DB, PGCAT, pgName].map(str) } };
  }
  // generate_series over dates (or untyped strings) with an interval step: timestamptz, as PostgreSQL resolves it.
  const numeric = (n: Node | undefined) =>
    n?.A_Const?.ival !== undefined ||
    n?.A_Const?.fval !== undefined ||
    (n?.A_Const && Object.keys(n.A_Const).length === 0);
  if (pgName === 'generate_series' && args && untypedOnly(args)) throw notUnique(pgName, args.length);
  if (pgName === 'generate_series' && args?.length === 3 && !numeric(args[0]) && !numeric(args[2])) {
    // An untyped bound beside a typed one takes its type (PostgreSQL's unknown; DuckDB's binder casts the
    // literal); two untyped bounds are timestamptz; an untyped step is an interval.
    const [from, to, step] = args as [Node, Node, Node];
    const bound = (n: Node, other: Node) =>
      n.A_Const?.sval && !other.A_Const?.sval ? boundBeside(asTimestamptz(other), n) : asTimestamptz(n);
    out.args = [bound(from, to), bound(to, from), step.A_Const?.sval ? castTo(step, 'interval') : step];
    return LIST_SRF_IN_SELECT.has(pgName) && !inFrom
      ? unnestSrf({ ...out, funcname: [str(pgName)] })
      : { FuncCall: { ...out, funcname: [str(pgName)] } };
  }
  return undefined;
}

/** Renamed and compat-catalog calls, and the ones PostgreSQL means differently by name. */
function namedCall(parts: string[], fc: Node, out: Node, args: Node[] | undefined, ctx: Ctx, inFrom: boolean): Node {
  const pgName =
    parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog') ? parts[parts.length - 1]! : undefined;
  // The typed forms call DuckDB's own aggregate by its bare name (`pg_catalog.sum(x)` would read as a method on a column).
  const shown = ctx.shown?.has(fc) === true;
  // `round($1)` as the client wrote it (`$1::numeric` is bare once rewritten: rewrite-casts.ts)
  const bareParam = (fc.args as Node[] | undefined)?.[0]?.ParamRef !== undefined;
  // round(numeric, n) is numeric at scale n: the plan needs n's value (PostgreSQL reads $n as int4).
  if (pgName === 'round' && args?.length === 2 && !fc.over)
    needsValue(args[1], 'round() with its places', '0', OID.int4);
  // lag/lead's offset must be a constant for the engine's bound on it (analysis/argument-bounds.ts); PostgreSQL reads $n as int4.
  if ((pgName === 'lag' || pgName === 'lead') && fc.over && (args?.length ?? 0) >= 2)
    needsValue(args![1], `${pgName}() with its offset`, '1', OID.int4);
  const floatSum =
    pgName === 'sum' && shown && args?.length === 1 && !fc.agg_star
      ? shownFloatSum(out, args[0]!)
      : (pgName === 'min' || pgName === 'max') && shown && args?.length === 1
        ? shownNumericExtreme(pgName, out, args[0]!)
        : undefined;
  const typed =
    floatSum ??
    (pgName === 'sum' && args?.length === 1 && !fc.agg_star
      ? checkedSum({ FuncCall: { ...out, funcname: [str('sum')] } }, args[0]!)
      : pgName === 'round' && args?.length === 1
        ? roundCall(args[0]!, bareParam)
        : pgName === 'round' && args?.length === 2 && !fc.over
          ? (roundPlacesCall(args[0]!, args[1]!) ??
            (shown
              ? shownRound(args[0]!, args[1]!)
              : constantInteger(args[1]) === undefined
                ? variableRound(args[0]!, args[1]!)
                : undefined))
          : pgName === 'avg' && args?.length === 1 && !fc.agg_star
            ? ((shown ? shownAggregate('avg', out, args[0]!, ctx.ordered === true) : undefined) ??
              avgCall(out, args[0]!))
            : isVariance(pgName) && args?.length === 1 && shown && !fc.agg_star
              ? shownAggregate(pgName!, out, args[0]!)
              : undefined);
  if (typed) {
    ctx.changed = true;
    return typed;
  }
  if ((pgName === 'encode' || pgName === 'decode') && args?.length === 2) {
    ctx.changed = true;
    return codecCall(pgName, args);
  }
  if (pgName === 'json_object_agg' && args?.length === 2 && !fc.over && !fc.agg_distinct) {
    ctx.changed = true;
    return jsonObjectAgg(out, args[0]!, args[1]!);
  }
  if (pgName === 'overlay' && (args?.length === 3 || args?.length === 4)) {
    ctx.changed = true;
    return overlayCall(args);
  }
  if (pgName === 'make_interval' && (args ?? []).length <= 7 && !fc.agg_star) {
    ctx.changed = true;
    return makeIntervalCall(args ?? []);
  }
  if ((pgName === 'json_agg' || pgName === 'jsonb_agg') && args?.length === 1) {
    ctx.changed = true;
    const agg = jsonAggOfValues(out, args[0]!, pgName === 'jsonb_agg');
    // typed jsonb (3802) as an item of the outermost select list, as `x::jsonb` there; DuckDB holds it as JSON
    return pgName === 'jsonb_agg' && ctx.shown?.has(fc) ? typedAs('jsonb', agg) : agg;
  }
  const numericRows = pgName === 'generate_series' && args ? numericSeries(args, inFrom) : undefined;
  if (numericRows) {
    ctx.changed = true;
    return numericRows;
  }
  if (pgName && LIST_SRF_IN_SELECT.has(pgName) && !inFrom) {
    ctx.changed = true;
    const rows = unnestSrf({ ...out, funcname: [str(pgName)] });
    // generate_series of int4 constants is int4 in PostgreSQL (DuckDB's is BIGINT).
    const int4 = pgName === 'generate_series' && args?.length && args.every((a) => a.A_Const?.ival !== undefined);
    return int4 ? { TypeCast: { arg: rows, typeName: { names: [str('int4')], typemod: -1 } } } : rows;
  }
  // EXTRACT(… FROM …), POSITION(… IN …), … parse as pg_catalog calls in SQL syntax: kept, so the
  // deparse spells them as written (DuckDB reads that syntax; `extract(...)` as a call it has not).
  if (parts.length === 2 && parts[0] === 'pg_catalog' && fc.funcformat === 'COERCE_SQL_SYNTAX')
    return { FuncCall: out };
  if (parts.length === 2 && (parts[0] === 'pg_catalog' || parts[0] === 'information_schema')) {
    ctx.changed = true;
    const base = RENAMED[parts[1]!] ?? parts[1]!;
    if (parts[0] === 'information_schema' && base === '_pg_expandarray')
      out.funcname = [COMPAT_DB, PGCAT, base].map(str);
    // The emulation's internal macros (`_`-prefixed) are the rewrite's own: a client's
    // `pg_catalog._x(…)` stays as written, which admission answers 42883 as PostgreSQL does.
    else if (parts[0] === 'pg_catalog' && isInternalName(base)) out.funcname = fc.funcname;
    else if (hasCompat(base, args)) out.funcname = [COMPAT_DB, PGCAT, base].map(str);
    else out.funcname = [str(base)];
  } else if (parts.length === 1) {
    const base = RENAMED[parts[0]!] ?? parts[0]!;
    if (!inFrom && hasCompat(base, args) && !isInternalName(base)) {
      out.funcname = [COMPAT_DB, PGCAT, base].map(str);
      ctx.changed = true;
    } else if (base !== parts[0]) {
      out.funcname = [str(base)];
      ctx.changed = true;
    }
  }
  return { FuncCall: out };
}

/** Every argument an untyped string constant: PostgreSQL cannot choose among a function's overloads. */
const untypedOnly = (args: Node[]): boolean =>
  args.length > 0 && args.every((a) => typeof a.A_Const?.sval?.sval === 'string');

/** PostgreSQL's 42725 for a call whose untyped arguments fit several overloads. */
function notUnique(name: string, arity: number): SqlError {
  return new SqlError(
    SQLSTATE.ambiguousFunction,
    `function ${name}(${Array(arity).fill('unknown').join(', ')}) is not unique`,
    undefined,
    'Could not choose a best candidate function. You might need to add explicit type casts.',
  );
}

/** A name of the emulation's own helpers, which only the rewrite's output calls (fully qualified). */
const isInternalName = (name: string): boolean => name.startsWith('_');

function hasCompat(name: string, args: Node[] | undefined): boolean {
  return COMPAT_FUNCTION_ARITIES.get(name)?.has(args?.length ?? 0) ?? false;
}

/** regexp_replace's constant pattern and replacement with PostgreSQL's escapes (are-pattern.ts); undefined when neither is a constant. */
function regexpReplaceArgs(args: Node[]): Node[] | undefined {
  const [pattern, replacement] = [args[1]?.A_Const?.sval?.sval, args[2]?.A_Const?.sval?.sval];
  if (typeof pattern !== 'string' && typeof replacement !== 'string') return undefined;
  const out = [...args];
  // The newline rules of PostgreSQL's flags are said in the pattern; flags that are not a constant keep DuckDB's reading.
  const flags = args[3] === undefined ? '' : args[3].A_Const?.sval?.sval;
  if (typeof pattern === 'string' && typeof flags === 'string') {
    out[1] = strConst(re2Pattern(pattern, flags));
    if (args[3]) out[3] = strConst(re2Flags(flags));
  }
  if (typeof replacement === 'string') out[2] = strConst(re2Replacement(replacement));
  return out;
}

/**
 * regexp_split_to_array/_table's constant pattern with PostgreSQL's escapes and newline rules (are-pattern.ts),
 * under constant flags; undefined otherwise (DuckDB's reading of a pattern that is not a constant).
 */
export function regexpSplitArgs(args: Node[]): Node[] | undefined {
  if (args.length !== 2 && args.length !== 3) return undefined;
  const pattern = args[1]?.A_Const?.sval?.sval;
  const flags = args[2] === undefined ? '' : args[2].A_Const?.sval?.sval;
  if (typeof pattern !== 'string' || typeof flags !== 'string') return undefined;
  const re2 = re2Pattern(pattern, flags);
  // DuckDB splits at a zero-width match otherwise than PostgreSQL (which skips one at either end or right
  // after a match): `\y` split `foo bar` into characters. A pattern that can match nothing is refused.
  if (zeroWidthAssertion(re2)) throw emptySplitRefused();
  const out = [...args];
  const refusal = strConst(`${emptySplitRefused().message}|${emptySplitRefused().hint}`);
  out[1] = {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: call(['regexp_full_match'], [strConst(''), strConst(re2)]),
            result: call(['error'], [refusal]),
          },
        },
      ],
      defresult: strConst(re2),
    },
  };
  if (args[2]) out[2] = strConst(re2Flags(flags));
  return out;
}

function emptySplitRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'splitting at a pattern that can match an empty string is not supported by fdl-gateway',
    undefined,
    'Make the pattern match at least one character (\\s+ rather than \\s*), or split with string_to_array.',
  );
}

/** A window call anywhere in `n` (outside subqueries). */
function hasWindow(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(hasWindow);
  if (!n || typeof n !== 'object') return false;
  const node = n as Node;
  if (node.SubLink) return false;
  if (node.FuncCall?.over) return true;
  return Object.values(node).some(hasWindow);
}

/**
 * `jsonb_pretty(j)` of a constant (`'{…}'`, `'{…}'::jsonb`): PostgreSQL's layout, printed here; of another
 * value refused (the layout needs the value's structure, which a DuckDB expression cannot recurse into).
 */
function jsonbPrettyCall(written: Node): Node {
  const c = (written.TypeCast?.arg ?? written).A_Const as Node | undefined;
  if (c?.isnull)
    return { TypeCast: { arg: { A_Const: { isnull: true } }, typeName: { names: [str('text')], typemod: -1 } } };
  const text = c?.sval?.sval;
  if (typeof text !== 'string')
    throw refuse(
      'jsonb_pretty() of a value that is not a constant',
      "Pretty-print a constant ('{…}'::jsonb), or read the value compactly (j::text).",
    );
  return strConst(jsonbPrettyText(text));
}

/** The typed sum (pg-result-types.ts sumCall), a float sum checked for overflow as PostgreSQL's float8pl (float-range.ts). */
function checkedSum(sum: Node, arg: Node): Node | undefined {
  const typed = sumCall(sum, arg);
  return typed && (floatCheckedSum(sum, arg, typed) ?? typed);
}
