/**
 * The rewrite's side of pg/shown-numeric.ts: an outermost select-list item whose numeric result has a
 * display scale PostgreSQL picks per value — `avg(x)`, `variance(x)`, `stddev(x)`… of integers and
 * numerics, `round(x, n)` with n not a constant — is built as a struct of exact parts that the wire
 * sends as numeric. Elsewhere (inside an expression, a subquery) the scale cannot travel with the
 * value: avg keeps its DECIMAL(38,20) (documented), round with a variable n is refused.
 */
import { dispatch, intervalAvg, sumCall } from './pg-result-types.js';
import { str, strConst, type Node } from './rewrite-nodes.js';
import { COMPAT_DB } from './catalog/names.js';
import { int4Constant } from './pg-spellings.js';

/** PostgreSQL's variance and standard deviation aggregates, by the kind shown-numeric.ts computes. */
const VARIANCES: Readonly<Record<string, string>> = {
  variance: 'var_samp',
  var_samp: 'var_samp',
  var_pop: 'var_pop',
  stddev: 'stddev_samp',
  stddev_samp: 'stddev_samp',
  stddev_pop: 'stddev_pop',
};

export const isVariance = (name: string | undefined): boolean => name !== undefined && name in VARIANCES;

/** The outermost SELECTs of a parse (not set operations): their select lists are what the client is sent. */
export function outermostSelects(tree: unknown): Set<Node> {
  const out = new Set<Node>();
  for (const raw of ((tree as Node | null)?.stmts ?? []) as Node[]) {
    const select = raw?.stmt?.SelectStmt as Node | undefined;
    if (select?.targetList && (!select.op || select.op === 'SETOP_NONE')) out.add(select);
  }
  return out;
}

/**
 * The FuncCall bodies that are items of those select lists, as written (the walk meets these same
 * objects): only there may a value be a struct the wire sends as another type (numeric, bpchar, regtype, name).
 */
export function shownItems(outermost: ReadonlySet<Node>): Set<Node> {
  const out = new Set<Node>();
  for (const select of outermost) {
    for (const t of select.targetList as Node[]) {
      const val = t?.ResTarget?.val as Node | undefined;
      if (val?.FuncCall) out.add(val.FuncCall as Node);
      if (val?.A_Expr?.kind === 'AEXPR_OP') out.add(val.A_Expr as Node);
      if (val?.TypeCast) out.add(val.TypeCast as Node);
      if (val?.ColumnRef) out.add(val.ColumnRef as Node);
      if (val?.A_ArrayExpr) out.add(val.A_ArrayExpr as Node);
      if (val?.A_Const?.isnull) out.add(val.A_Const as Node);
      if (val?.SQLValueFunction) out.add(val.SQLValueFunction as Node);
      for (const k of ['CaseExpr', 'CoalesceExpr', 'MinMaxExpr']) if (val?.[k]) out.add(val[k] as Node);
    }
    // A GROUP BY expression spelled as a shown item is rewritten as that item, so DuckDB's binder still
    // finds the item among the groups (`select x::numeric … group by x::numeric` answered 42803).
    const items = new Set((select.targetList as Node[]).map((t) => spelling(t?.ResTarget?.val)));
    for (const g of (select.groupClause ?? []) as Node[]) {
      const k = ['TypeCast', 'CaseExpr', 'CoalesceExpr', 'MinMaxExpr'].find((kind) => g?.[kind]);
      if (k && items.has(spelling(g))) out.add(g[k] as Node);
    }
  }
  return out;
}

/** A parse node's text as the parser gave it, without its positions. */
const spelling = (n: unknown): string => JSON.stringify(n, (k, v: unknown) => (k === 'location' ? undefined : v));

/** The value under a walked `x::numeric` without a typmod (`_pgsem_numeric(x, x)`), or undefined. */
function numericCastOf(arg: Node): Node | undefined {
  const cast = arg.FuncCall as Node | undefined;
  const castName = (cast?.funcname as Node[] | undefined)?.slice(-1)[0]?.String?.sval;
  const args = (cast?.args as Node[] | undefined) ?? [];
  return castName === '_pgsem_numeric' && args.length === 2 ? args[1] : undefined;
}

/**
 * `min(x::numeric)`, `max(x::numeric)` as an outermost select-list item: the numeric of min(x) (a float's
 * numeric rises with it), shown as `x::numeric` is: a float's at its own scale, not DECIMAL(38,16)'s 16.
 */
export function shownNumericExtreme(name: 'min' | 'max', out: Node, arg: Node): Node | undefined {
  const x = numericCastOf(arg);
  if (!x || out.agg_distinct) return undefined;
  const extreme: Node = { FuncCall: { ...out, funcname: [str(name)], args: [x] } };
  return dispatch('shown_numeric', [extreme], [extreme]);
}

/**
 * `sum(x::numeric)` as an outermost select-list item, `arg` the walked cast (`_pgsem_numeric(x, x)`):
 * of a float, the exact DECIMAL(38,16) sum shown at the largest scale of the floats' numerics, as
 * PostgreSQL's numeric sum; of anything else the typed sum as before. Undefined for any other argument.
 */
export function shownFloatSum(out: Node, arg: Node): Node | undefined {
  const cast = arg.FuncCall as Node | undefined;
  const castName = (cast?.funcname as Node[] | undefined)?.slice(-1)[0]?.String?.sval;
  const [tag, x] = (cast?.args as Node[] | undefined) ?? [];
  if (castName !== '_pgsem_numeric' || !tag || !x) return undefined;
  const sum = sumCall({ FuncCall: { ...out, funcname: [str('sum')], args: [arg] } }, arg);
  // each value's scale read from the float itself: the numeric's macro bound once more would double the binding
  const scale = dispatch('fscale', [tag], [x]);
  const largest: Node | undefined = scale && {
    FuncCall: { ...out, funcname: [str('max')], args: [scale], agg_distinct: false },
  };
  return sum && largest && dispatch('shown_fsum', [tag], [sum, largest]);
}

/**
 * `avg(x)`, `variance(x)`… as an outermost select-list item (`out`: the walked call, its FILTER
 * kept): the count, Σx (and Σx²) of integers and numerics in a struct, floats as DuckDB answers.
 * Undefined when no typed form applies (DISTINCT of a variance: Σx² of distinct x is not distinct x²).
 * avg's struct leads with its exact quotient only where its SELECT sorts or deduplicates rows
 * (`ordered`): nothing else reads that key, and the exact division is most of such a statement's cost.
 */
export function shownAggregate(name: string, out: Node, arg: Node, ordered = true): Node | undefined {
  const agg = (fn: string, a: Node = arg): Node => ({ FuncCall: { ...out, funcname: [str(fn)], args: [a] } });
  if (name === 'avg')
    return dispatch(
      out.over || !ordered ? 'shown_wavg' : 'shown_avg',
      [arg],
      [intervalAvg(out, arg), agg('count'), agg('sum')],
    );
  const kind = VARIANCES[name];
  if (!kind || out.agg_distinct) return undefined;
  const square = dispatch('square', [arg], [arg]);
  return (
    square && dispatch('shown_var', [arg], [agg(kind), strConst(kind), agg('count'), agg('sum'), agg('sum', square)])
  );
}

/** `round(x, n)` as an outermost select-list item, n any expression: numeric at scale n per value. */
export function shownRound(arg: Node, places: Node): Node | undefined {
  return dispatch('shown_round', [arg], [arg, places]);
}

/** `round(x, n)` inside an expression, n not a constant: refused for integers and numerics (the scale would be lost). */
export function variableRound(arg: Node, places: Node): Node | undefined {
  return dispatch('roundv', [arg], [arg, places]);
}

/**
 * `a / b` over aggregates as an outermost select-list item: numeric division shown at its own scale, the
 * struct keyed by the exact quotient only where its SELECT sorts or deduplicates rows (`ordered`).
 */
export function shownDivision(l: Node, r: Node, ordered = true): Node | undefined {
  return dispatch(ordered ? 'shown_div' : 'shown_udiv', [l, r], [l, r]);
}

/**
 * `avg(x) / b` (`avgFirst`) or `b / avg(x)` as an outermost select-list item: the count and Σx of avg's
 * argument (its DISTINCT and FILTER kept) beside b, so the wire divides avg's own numeric as PostgreSQL.
 * `avg` is the walked call (DuckDB's avg, the order key), `call` the original avg with walked arguments.
 */
export function shownAvgDivision(avgFirst: boolean, call: Node, avg: Node, other: Node): Node | undefined {
  const agg = (fn: string): Node => ({ FuncCall: { ...call, funcname: [str(fn)] } });
  const arg = (call.args as Node[] | undefined)?.[0];
  if (!arg || call.over || call.agg_star || (call.args as Node[]).length !== 1) return undefined;
  return dispatch(avgFirst ? 'shown_avgdiv' : 'shown_divavg', [arg, other], [avg, agg('count'), agg('sum'), other]);
}

/**
 * `avg(x) * b`, `b * avg(x)`, `avg(x) + b`, `b + avg(x)`, `avg(x) - b`, `b - avg(x)` as an outermost
 * select-list item: the count and Σx of avg's argument beside b, so the wire computes on avg's own numeric.
 */
export function shownAvgArithmetic(
  op: '*' | '+' | '-',
  avgFirst: boolean,
  call: Node,
  avg: Node,
  other: Node,
): Node | undefined {
  const agg = (fn: string): Node => ({ FuncCall: { ...call, funcname: [str(fn)] } });
  const arg = (call.args as Node[] | undefined)?.[0];
  if (!arg || call.over || call.agg_star || (call.args as Node[]).length !== 1) return undefined;
  const kind = op === '*' ? 'avgmul' : op === '+' ? 'avgadd' : avgFirst ? 'avgsub' : 'subavg';
  return dispatch(`shown_${kind}`, [arg, other], [avg, agg('count'), agg('sum'), other]);
}

const isNotNull = (arg: Node): Node => ({ NullTest: { arg, nulltesttype: 'IS_NOT_NULL' } });
const equal = (l: Node, r: Node): Node => ({ A_Expr: { kind: 'AEXPR_OP', name: [str('=')], lexpr: l, rexpr: r } });
const when = (expr: Node, result: Node): Node => ({ CaseWhen: { expr, result } });
const scaleOf = (n: Node): Node => ({
  FuncCall: { funcname: [COMPAT_DB, 'pgcat', '_pgsem_scale'].map(str), args: [n], funcformat: 'COERCE_EXPLICIT_CALL' },
});

/**
 * CASE, COALESCE, GREATEST and LEAST as an outermost select-list item (`kind` and the walked body): a
 * numeric result keeps the scale of the value chosen, as PostgreSQL's (`case … else 0.5 end` is `0.5`
 * beside `27.46`, `greatest(1.37, 2)` is `2`), where DuckDB's one DECIMAL scale per column padded it.
 */
export function shownChoice(kind: string, body: Node): Node | undefined {
  const value: Node = { [kind]: body };
  // DuckDB cannot type GROUPING() before it picks a macro's overload (42725 for the usual "Total" row,
  // `case when grouping(x) = 1 then 'Total' else x end`): such a choice is left as DuckDB shows it
  if (holdsGrouping(body)) return undefined;
  return dispatch('shown_scaled', [value], [value, valueScale(value)]);
}

/** PostgreSQL's text types: a value of one has no numeric scale to show. */
const TEXT_TYPES: ReadonlySet<string> = new Set(['text', 'varchar', 'bpchar', 'name']);

/**
 * Whether a choice (as the client wrote it) can only give text: every result a string constant, NULL or a cast
 * to a text type, at least one not NULL. Its scale is no one's to show, and the wrapper would only paste the
 * choice three times (psql's `CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::regtype::text END`: six
 * correlated type lookups where two do).
 */
export function choosesText(kind: string, body: Node): boolean {
  const results = choiceResults(kind, body);
  const isNull = (n: Node | undefined) => n === undefined || n.A_Const?.isnull === true;
  const isText = (n: Node) =>
    typeof n.A_Const?.sval?.sval === 'string' ||
    (n.TypeCast !== undefined &&
      ((n.TypeCast.typeName?.arrayBounds as unknown[] | undefined)?.length ?? 0) === 0 &&
      TEXT_TYPES.has(String((n.TypeCast.typeName?.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval)));
  return results.some((n) => !isNull(n)) && results.every((n) => isNull(n) || isText(n!) || textCall(n!));
}

/**
 * The wrapper (rewrite-nodes.ts `typedAs`) a text choice (choosesText) is sent as where PostgreSQL's common type
 * of its results is varchar: select_common_type keeps the first typed result's type among string types (a CASE's
 * ELSE first), so `coalesce(null::varchar, 'x')` and `coalesce(x::varchar, y::text)` are varchar (1043). Its typmod
 * is n only where every result is a cast to varchar(n) (exprTypmod: a constant coerced has none). Undefined where
 * the first typed result is not a cast to varchar.
 */
export function varcharChoice(kind: string, body: Node): string | undefined {
  const results = choiceResults(kind, body);
  const ordered = kind === 'CaseExpr' ? [results.at(-1), ...results.slice(0, -1)] : results;
  const lengths = ordered.map(varcharLength);
  const first = ordered.findIndex(
    (n) => n !== undefined && n.A_Const?.isnull !== true && typeof n.A_Const?.sval?.sval !== 'string',
  );
  const length = lengths[first];
  if (length === undefined || Number.isNaN(length)) return undefined;
  return length >= 0 && lengths.every((l) => l === length) ? `varchar_${length}` : 'varchar';
}

/** n of a cast to varchar(n), -1 of one without a length, NaN of another typmod; undefined for anything else. */
function varcharLength(n: Node | undefined): number | undefined {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  if (!tn || ((tn.arrayBounds as unknown[] | undefined)?.length ?? 0) > 0) return undefined;
  if (String((tn.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval) !== 'varchar') return undefined;
  const typmods = tn.typmods as Node[] | undefined;
  return typmods === undefined ? -1 : typmods.length === 1 ? Number(typmods[0]?.A_Const?.ival?.ival ?? NaN) : NaN;
}

function choiceResults(kind: string, body: Node): (Node | undefined)[] {
  return kind === 'CaseExpr'
    ? [...(body.args as Node[]).map((w) => w.CaseWhen?.result as Node | undefined), body.defresult as Node | undefined]
    : ((body.args as Node[] | undefined) ?? []);
}

/** PostgreSQL's functions whose every overload returns text (pg_proc's prorettype 25): no scale to show. */
const TEXT_FUNCTIONS: ReadonlySet<string> = new Set(['quote_ident', 'quote_literal', 'format', 'concat', 'concat_ws']);

/** A call of one of TEXT_FUNCTIONS, bare or pg_catalog's (sqlsmith's `case … then quote_ident(typname) else format(…) end`). */
function textCall(n: Node): boolean {
  const fc = n.FuncCall as Node | undefined;
  if (!fc || fc.over !== undefined || fc.agg_star) return false;
  const parts = ((fc.funcname as Node[] | undefined) ?? []).map((p) => String(p.String?.sval));
  const name = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog') ? parts[parts.length - 1] : '';
  return TEXT_FUNCTIONS.has(name!);
}

function holdsGrouping(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(holdsGrouping);
  if (!n || typeof n !== 'object') return false;
  if ('GroupingFunc' in n) return true;
  return Object.values(n).some(holdsGrouping);
}

/**
 * The scale PostgreSQL's numeric value of a walked node has: the chosen branch's for CASE, COALESCE,
 * GREATEST and LEAST (these keep the first argument equal to the result: PostgreSQL replaces its pick
 * only by a strictly greater/smaller value), the default's for lag/lead beyond the partition, else the
 * type's (DuckDB's one scale per column).
 */
function valueScale(n: Node): Node {
  const kind = ['CaseExpr', 'CoalesceExpr', 'MinMaxExpr'].find((k) => n[k]);
  if (kind === 'CaseExpr') {
    const body = n.CaseExpr as Node;
    const whens = (body.args as Node[]).map((w) => ({
      CaseWhen: { ...w.CaseWhen, result: valueScale(w.CaseWhen.result) },
    }));
    return { CaseExpr: { ...body, args: whens, defresult: body.defresult ? valueScale(body.defresult) : undefined } };
  }
  if (kind) {
    const args = n[kind].args as Node[];
    const test = kind === 'CoalesceExpr' ? isNotNull : (a: Node) => equal(a, n);
    return { CaseExpr: { args: args.map((a) => when(test(a), valueScale(a))) } };
  }
  const fc = n.FuncCall as Node | undefined;
  const name = fc ? (fc.funcname as Node[]).slice(-1)[0]?.String?.sval : undefined;
  const args = fc?.args as Node[] | undefined;
  if ((name === 'lag' || name === 'lead') && fc!.over && args?.length === 3) {
    const beyond: Node = {
      NullTest: {
        arg: { FuncCall: { ...fc, args: [{ A_Const: { ival: { ival: 1 } } }, args[1]] } },
        nulltesttype: 'IS_NULL',
      },
    };
    const x = args[0]!.CaseExpr?.args?.[0]?.CaseWhen?.result ?? args[0]!;
    return { CaseExpr: { args: [when(beyond, valueScale(args[2]!))], defresult: valueScale(x) } };
  }
  return scaleOf(n);
}

/**
 * An integer constant among CASE results or COALESCE/GREATEST/LEAST arguments beside a value is int4
 * in PostgreSQL (`coalesce(int2_col, 0)` is int4); DuckDB narrowed it to the other side's type.
 */
export function int4Choices(kind: string, body: Node): Node {
  const constant = (n: Node | undefined) => !n || n.A_Const !== undefined;
  if (kind === 'CaseExpr') {
    const results = [...(body.args as Node[]).map((w) => w.CaseWhen.result as Node), body.defresult as Node];
    if (results.every(constant)) return body;
    return {
      ...body,
      args: (body.args as Node[]).map((w) => ({
        CaseWhen: { ...w.CaseWhen, result: int4Constant(w.CaseWhen.result) },
      })),
      ...(body.defresult ? { defresult: int4Constant(body.defresult as Node) } : {}),
    };
  }
  const args = body.args as Node[];
  return args.every(constant) ? body : { ...body, args: args.map(int4Constant) };
}

/**
 * `lag/lead(x, n, default)`: PostgreSQL's result is the common type of x and the default (anycompatible:
 * an integer constant is int4, so `lag(int2, 2, 0)` is int4; DuckDB's is x's, the default cast to it).
 * As an outermost select-list item a numeric keeps the scale of the value it is — the default's where
 * the row has no row n away (`lead(amount, 1, 0)` is `0`, not `0.00`). Undefined: a typed default, as written.
 */
export function defaultedOffset(name: string, out: Node, args: Node[], shown: boolean): Node | undefined {
  const [x, n, d] = args as [Node, Node, Node];
  const big = String(d.A_Const?.fval?.fval ?? '');
  const int8 = /^-?\d+$/.test(big) && BigInt(big) >= -(2n ** 63n) && BigInt(big) < 2n ** 63n;
  const fallback = int8 ? { TypeCast: { arg: d, typeName: { names: [str('bigint')], typemod: -1 } } } : int4Constant(d);
  const numericDefault = d.A_Const?.fval !== undefined && !int8;
  if (fallback === d && !(shown && numericDefault)) return undefined;
  const common: Node = {
    CaseExpr: { args: [when({ A_Const: { boolval: { boolval: true } } }, x)], defresult: fallback },
  };
  const value: Node = { FuncCall: { ...out, funcname: [str(name)], args: [common, n, fallback] } };
  if (!shown) return value;
  return dispatch('shown_scaled', [value], [value, valueScale(value)]) ?? value;
}
