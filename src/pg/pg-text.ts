/**
 * A value's text as PostgreSQL writes it, for the rewrite: concat, concat_ws, format and
 * array_to_string take each value's output function (a boolean is `t`, an array `{1,2}`, a record
 * `(1,a)`), `x::text` and `'a' || x` its cast to text (a boolean is `true`). DuckDB casts to VARCHAR
 * its own way (`true`, `[1, 2]`, `1.0`, `1 year 2 months`); the `_pgsem_` macros of
 * pg-text-macros.ts pick PostgreSQL's text by the value's type when DuckDB binds.
 */
import { tagOf } from './pg-result-types.js';
import { call, concatOf, castTo, strConst, type Node } from './parse-nodes.js';
import { COMPAT_DB } from './catalog/names.js';
import { MAX_CONCAT_ARGS } from '../engine/concat-guards.js';

const sem = (fn: string, args: Node[]): Node => ({
  FuncCall: {
    funcname: [COMPAT_DB, 'pgcat', `_pgsem_${fn}`].map((sval) => ({ String: { sval } })),
    args,
    funcformat: 'COERCE_EXPLICIT_CALL',
  },
});

/** A typed one: a tag of that type. */
const typedOne = (type: string): Node => castTo({ A_Const: { ival: { ival: 1 } } }, type);

/**
 * A tag of the same DuckDB type as `n` without aggregates (pg-result-types.ts tagOf), also for the
 * aggregates tagOf leaves out whose type follows from their name: array_agg(x) a list of x's tag,
 * string_agg text, bool_and a boolean, the statistics double precision.
 */
function textTag(n: Node): Node | undefined {
  const fc = n.FuncCall as Node | undefined;
  const name = fc && !fc.agg_within_group ? String((fc.funcname as Node[]).slice(-1)[0]?.String?.sval) : undefined;
  const first = (fc?.args as Node[] | undefined)?.[0];
  if ((name === 'array_agg' || name === 'list') && first && !fc!.agg_star) {
    const inner = textTag(first);
    return inner && { A_ArrayExpr: { elements: [inner] } };
  }
  if (name && /^(?:string_agg|listagg|group_concat)$/.test(name)) return strConst('');
  if (name && /^(?:bool_and|bool_or|every)$/.test(name)) return typedOne('boolean');
  if (name && /^(?:stddev\w*|var\w*|corr|covar_\w+|regr_\w+)$/.test(name)) return typedOne('double');
  if (name && /^(?:mode|first|last|any_value|arg_\w+)$/.test(name) && first) return textTag(first);
  return tagOf(n);
}

/**
 * `_pgsem_<fn>(tag, x, …)`; a value without a tag, or where DuckDB cannot pick a typed overload
 * (`untyped`: Ctx.untypedText) goes to `_pgsem_<fn>_once` (the value a lambda's, typed there), or with a
 * non-constant extra argument to `_pgsem_<fn>_any`, which reads its type name at run time.
 */
function byType(fn: string, n: Node, untyped: boolean, extra: Node[] = [], bareParams = false): Node {
  // A parameter cast to a type (`$1::float8`, a declared type written so: declared-casts.ts) is typed by the cast:
  // its text by that type's overload, as PostgreSQL's output function writes it (`3`, not DuckDB's `3.0`).
  const paramCast = n.TypeCast?.arg?.ParamRef && !n.TypeCast.arg.ParamRef.indirection ? n.TypeCast : undefined;
  if (paramCast && !untyped && (fn === 'text' || fn === 'out'))
    return sem(fn, [{ TypeCast: { arg: { A_Const: { isnull: true } }, typeName: paramCast.typeName } }, n, ...extra]);
  // Any other parameter is typed only by its use: left to DuckDB as before (a macro would leave it untyped).
  if (holdsParam(n)) return fn === 'cat' || fn === 'elems' || (fn === 'out' && bareParams) ? n : castTo(n, 'varchar');
  // A list holding a subquery, named as its tag too, is bound twice at each level (psql's \d+ table query:
  // `array_to_string(c.reloptions || ARRAY(SELECT …), ', ')` bound its subquery four times, 60 ms of DuckDB's
  // run): bound once, as a lambda's, whose type picks the typed overload.
  if ((fn === 'elems' || fn === 'cat') && extra.every(isPlainConstant) && holds(n, (x) => x.SubLink !== undefined))
    return sem(`${fn}_sub`, [n, ...extra]);
  const tag = untyped ? undefined : textTag(n);
  // No tag (a value inside a subquery, an aggregate), or a subquery as its own tag (bound twice, nested
  // ones 2^n times): the value's type picks the typed overload when DuckDB binds it (pg-text-macros.ts).
  if ((tag === undefined || tag === n) && fn !== 'cat' && extra.every(isPlainConstant)) {
    if (fn !== 'elems' && isText(n)) return n;
    // `_once` binds its value three times and skips the copies a text would cost; `_sub` binds it once, as
    // a lambda's: a value holding a subquery or another macro would be bound 3^n times when nested.
    return sem(`${fn}_${holds(n, (x) => x.SubLink !== undefined || isCompatCall(x)) ? 'sub' : 'once'}`, [n, ...extra]);
  }
  return tag === undefined ? sem(`${fn}_any`, [n, ...extra]) : sem(fn, [tag, n, ...extra]);
}

/** Calls whose value is text whatever they are given: their text is themselves. */
const TEXT_CALLS = new Set(['concat', 'concat_ws', 'quote_ident', 'quote_literal', 'quote_nullable', 'lower', 'upper']);

const isText = (n: Node): boolean =>
  TEXT_CALLS.has(String((n.FuncCall?.funcname as Node[] | undefined)?.slice(-1)[0]?.String?.sval));

const isCompatCall = (n: Node): boolean =>
  (n.FuncCall?.funcname as Node[] | undefined)?.[0]?.String?.sval === COMPAT_DB;

function holds(n: unknown, test: (n: Node) => boolean): boolean {
  if (Array.isArray(n)) return n.some((x) => holds(x, test));
  if (!n || typeof n !== 'object') return false;
  return test(n as Node) || Object.values(n as Node).some((x) => holds(x, test));
}

const holdsParam = (n: unknown): boolean => holds(n, (x) => x.ParamRef !== undefined);

/** A constant whose text is itself (a string, NULL): no macro needed. */
const isPlainConstant = (n: Node): boolean => n.A_Const?.sval !== undefined || n.A_Const?.isnull === true;

/** The output function's text of a (walked) value: what concat(), format('%s') and record fields show. */
export function outputText(n: Node, untyped: boolean, bareParams = false): Node {
  if (isPlainConstant(n)) return n;
  const fields = n.RowExpr?.args as Node[] | undefined;
  if (fields) return recordText(fields, untyped);
  return byType('out', n, untyped, [], bareParams);
}

/** record_out of a row constructor's fields: `(1,"a b",)` (a NULL field is empty). */
export function recordText(fields: Node[], untyped: boolean): Node {
  const parts: Node[] = [strConst('(')];
  fields.forEach((f, i) => {
    if (i > 0) parts.push(strConst(','));
    parts.push(sem('rquote', [outputText(f, untyped)]));
  });
  parts.push(strConst(')'));
  return concatOf(parts);
}

/** `x::text`: a row constructor's record text, any other value's cast to text. */
export function castText(n: Node, untyped: boolean): Node {
  const fields = n.RowExpr?.args as Node[] | undefined;
  return fields ? recordText(fields, untyped) : byType('text', n, untyped);
}

/**
 * concat(…) and concat_ws(sep, …): each value by its output function (NULLs skipped, as DuckDB's). The
 * engine's concatenation guards take up to MAX_CONCAT_ARGS arguments (engine/concat-guards.ts): a longer
 * concat is nested, a longer concat_ws joins its values with array_to_string (which skips NULLs too)
 * inside a one-value concat_ws, which keeps a NULL separator's NULL and all-NULL values' ''.
 */
export function concatCall(fn: 'concat' | 'concat_ws', args: Node[], untyped: boolean): Node {
  const values = fn === 'concat_ws' ? args.slice(1) : args;
  const texts = values.map((v) => outputText(v, untyped, true));
  if (fn === 'concat') return concatOf(texts);
  const sep = args[0]!;
  if (texts.length < MAX_CONCAT_ARGS) return call(fn, [sep, ...texts]);
  const joined = call('array_to_string', [{ A_ArrayExpr: { elements: texts } }, structuredClone(sep)]);
  return call(fn, [sep, joined]);
}

/** array_to_string(a, sep [, null_text]): the elements' output text; a NULL element skipped or written as null_text. */
export function arrayToStringCall(args: Node[], untyped: boolean): Node | undefined {
  const [list, sep, nullText] = args;
  if (!list || !sep || args.length > 3) return undefined;
  return call('array_to_string', [byType('elems', list, untyped, [nullText ?? { A_Const: { isnull: true } }]), sep]);
}

/**
 * One operand of `a || b`: a value that is not a list is cast to text as PostgreSQL's anytextcat does.
 * Where no typed overload can be picked (`untyped`) it is left as DuckDB reads it: a list must stay one.
 */
export function concatOperand(n: Node, untyped: boolean): Node {
  // A nested `||` is already text (or a list), and so is a chain of them (rewrite-operators.ts pipesChain).
  const op = n.A_Expr?.kind === 'AEXPR_OP' ? (n.A_Expr.name as Node[])?.[0]?.String?.sval : undefined;
  const pipes = (n.FuncCall?.funcname as Node[] | undefined)?.at(-1)?.String?.sval === '_pgsem_pipes';
  if (untyped || isPlainConstant(n) || n.A_ArrayExpr || n.ArrayExpr || op === '||' || pipes) return n;
  // An ARRAY(subquery) is a list, which `_pgsem_cat` returns as it is: its lambda around the correlated
  // subquery cost psql's \d+ table query 8 of its 25 ms in DuckDB.
  if ((n.SubLink as Node | undefined)?.subLinkType === 'ARRAY_SUBLINK') return n;
  return byType('cat', n, false);
}
