/**
 * PostgreSQL's answers where DuckDB's differ by the operands' types (sum(int8) is numeric, round of a
 * float8 is half-to-even, date - date is int4, `x::numeric` keeps x's scale): the rewrite cannot see
 * types, so it calls the `_pgsem_*` macros of pg-macros.ts, whose typed tag parameter lets DuckDB's
 * binder pick PostgreSQL's rule for the operand's type. Each returns the node replacing the call.
 */
import { COMPAT_DB } from './catalog/names.js';
import { markTag } from './correlated-tags.js';
import { BIND_ONCE } from './pg-macros.js';
import { FLOAT_CHECKED_CALL } from './float-range-macros.js';

type Node = Record<string, any>;

const str = (sval: string): Node => ({ String: { sval } });
/** A `_pgsem_` macro of the compat catalog; `tags` are read for their types only. */
const sem = (fn: string, tags: Node[], args: Node[]): Node => ({
  FuncCall: {
    funcname: [COMPAT_DB, 'pgcat', `_pgsem_${fn}${BIND_ONCE.has(fn) && holds(args, nestingCall) ? '_once' : ''}`].map(
      str,
    ),
    args: [...tags, ...args],
    funcformat: 'COERCE_EXPLICIT_CALL',
  },
});

/**
 * Whether a tree holds a node that `is` accepts. The rewrite shares subtrees (a tag and its value, a
 * divisor checked and divided by): each object is judged once, so nesting costs no more than its objects.
 */
const judged = new WeakMap<(node: Node) => boolean, WeakMap<object, boolean>>();
function holds(n: unknown, is: (node: Node) => boolean): boolean {
  if (!n || typeof n !== 'object') return false;
  let memo = judged.get(is);
  if (!memo) judged.set(is, (memo = new WeakMap()));
  const known = memo.get(n);
  if (known !== undefined) return known;
  const answer = Array.isArray(n)
    ? n.some((x) => holds(x, is))
    : is(n as Node) || Object.values(n).some((x) => holds(x, is));
  memo.set(n, answer);
  return answer;
}

const isParam = (node: Node): boolean => Boolean(node.ParamRef);

/** A call that nests in arithmetic: a call around it binds it once (pg-macros.ts, BIND_ONCE). */
function nestingCall(node: Node): boolean {
  const name = /^_pgsem_(\w+?)(?:_once)?$/.exec(node.FuncCall?.funcname?.slice(-1)[0]?.String?.sval ?? '');
  return name !== null && BIND_ONCE.has(name[1]);
}

/** Aggregates whose result type a tag cannot stand in for: an expression holding one is left to DuckDB. */
/** Aggregates DuckDB computes as DOUBLE whatever they read (PostgreSQL: float8 of floats, numeric of integers and numerics). */
const STATISTICAL_AGGREGATES = new Set([
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'corr',
  'covar_pop',
  'covar_samp',
  'regr_avgx',
  'regr_avgy',
  'regr_intercept',
  'regr_r2',
  'regr_slope',
  'regr_sxx',
  'regr_sxy',
  'regr_syy',
]);
const OTHER_AGGREGATES =
  /^(?:stddev\w*|var\w*|percentile_\w+|mode|string_agg|array_agg|jsonb?_agg|bool_\w+|every|bit_\w+|corr|covar_\w+|regr_\w+|first|last|any_value|arg_\w+|median|list|listagg|group_concat|product|approx_\w+|grouping)$/;

/**
 * Tags by node: a rewritten operand holds its operands' tags, and its own tag copies them again;
 * nested divisions (`a/(a/(a/…))`) built copies of copies, 4× per level, and 15 levels (80 characters)
 * ran the process out of memory. A node's tag made once is shared (trees are never mutated).
 */
const tags = new WeakMap<object, { tag: any }>();

/**
 * A tag: an expression of the same DuckDB type as `n` but without aggregates (DuckDB cannot bind an
 * aggregate inside a macro's typed argument): `sum(x)` → `_pgsem_sum(x, x)`, `count(…)` → a BIGINT
 * 1, `min/max(x)` → x. Undefined when `n` holds a window or another aggregate.
 */
export function tagOf(n: unknown): any {
  if (!n || typeof n !== 'object') return n;
  const known = tags.get(n);
  if (known) return known.tag;
  const tag = freshTag(n);
  // (a SubLink is its own tag: the same node as the value, never marked)
  if (tag && typeof tag === 'object' && tag !== n) markTag(tag as Node);
  tags.set(n, { tag });
  return tag;
}

function freshTag(n: object): any {
  if (Array.isArray(n)) {
    const out = n.map(tagOf);
    return out.some((x, i) => x === undefined && n[i] !== undefined) ? undefined : out;
  }
  const node = n as Node;
  if (node.SubLink) return node;
  // A parameter has no type at bind time (DuckDB infers it from its use): no overload could be chosen.
  if (node.ParamRef) return undefined;
  // A NULL or a parameter cast to numeric: DuckDB's decimal operators fold a NULL operand (a parameter is
  // one when a NULL value rebinds the statement) to an untyped NULL, so `coalesce($1::numeric * 2, 7) / 2`
  // divided as integers; a 0 of the same type is never folded away.
  if (nullableNumericCast(node)) return { TypeCast: { ...node.TypeCast, arg: { A_Const: { ival: { ival: 0 } } } } };
  // Cast, it has the cast's type: the cast is its own tag.
  if (node.TypeCast?.arg?.ParamRef) return node;
  const fc = node.FuncCall as Node | undefined;
  if (fc) {
    const name = String((fc.funcname as Node[]).slice(-1)[0]?.String?.sval);
    // A division's tag names its type from the operands' tags alone: a copy of the call held both
    // operands twice over, and nested divisions doubled the text and the bind at every level.
    const division = /^_pgsem_(r?div)(?:_once)?$/.exec(name);
    if (division && fc.args?.length === 4) return sem(`${division[1]}type`, [], (fc.args as Node[]).slice(0, 2));
    // a float check (float-range.ts): its first argument is of its type (a tag already, or the checked call)
    if (FLOAT_CHECKED_CALL.test(name)) return tagOf((fc.args as Node[])[0]);
    // sum of floats checked: the typed sum's tag
    if (name === '_pgsem_fsum') return tagOf((fc.args as Node[])[1]);
    // text: `length(string_agg(…))` named the aggregate itself as its tag, which DuckDB cannot type there (42725)
    if (['string_agg', 'listagg', 'group_concat'].includes(name) && !fc.agg_within_group)
      return {
        TypeCast: { arg: { A_Const: { sval: { sval: '' } } }, typeName: { names: [str('varchar')], typemod: -1 } },
      };
    // A typed 1, not a typed NULL: DuckDB folds numeric arithmetic with a NULL constant (`1.5 * NULL::bigint`)
    // to an untyped NULL, and the division around it then picked integer division (`round(1.5*count(*)/700, 4)` → 0).
    const typedOne = (type: string): Node => ({
      TypeCast: { arg: { A_Const: { ival: { ival: 1 } } }, typeName: { names: [str(type)], typemod: -1 } },
    });
    // DuckDB's statistical aggregates are DOUBLE whatever they read: `stddev(x)::numeric` was DuckDB's own
    // cast, DECIMAL(18,3) (139.077 for PostgreSQL's 139.077403280432).
    if (!fc.agg_within_group && STATISTICAL_AGGREGATES.has(name)) return typedOne('double');
    if (fc.agg_within_group || OTHER_AGGREGATES.test(name)) return undefined;
    const args = (fc.args ?? []) as Node[];
    if (['count', 'row_number', 'rank', 'dense_rank', 'ntile'].includes(name)) return typedOne('bigint');
    if (fc.over && ['percent_rank', 'cume_dist'].includes(name)) return typedOne('double');
    const inner = args.length >= 1 ? tagOf(args[0]) : undefined;
    if (['min', 'max', 'lag', 'lead', 'first_value', 'last_value', 'nth_value'].includes(name) && args.length >= 1)
      return inner;
    if (fc.over && !['sum', 'avg'].includes(name)) return undefined;
    if (name === 'sum' && args.length === 1) return inner === undefined ? undefined : sem('sum', [inner], [inner]);
    if (name === 'avg' && args.length === 1)
      return inner === undefined
        ? undefined
        : sem(
            'avg',
            [inner],
            [
              inner,
              inner,
              {
                TypeCast: {
                  arg: { A_Const: { ival: { ival: 1 } } },
                  typeName: { names: [str('bigint')], typemod: -1 },
                },
              },
            ],
          );
    if (fc.agg_star || fc.agg_order || fc.agg_distinct || fc.agg_filter) return undefined;
  }
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    const t = tagOf(v);
    if (t === undefined && v !== undefined) return undefined;
    out[k] = t;
  }
  return out;
}

const NUMERIC_NAMES = new Set(['numeric', 'decimal']);
/** `NULL::numeric(…)` or `$n::numeric(…)`: a value DuckDB may bind as a constant NULL. */
function nullableNumericCast(node: Node): boolean {
  const cast = node.TypeCast as Node | undefined;
  if (!cast || cast.typeName?.arrayBounds?.length) return false;
  const type = String((cast.typeName?.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval);
  return NUMERIC_NAMES.has(type) && (cast.arg?.ParamRef !== undefined || cast.arg?.A_Const?.isnull === true);
}

/**
 * `n` with each `NULL::numeric(…)` a 0 of the same type, for a call that reads only its argument's type
 * (pg_typeof): DuckDB types `NULL::numeric + 1` as a NULL of no type, PostgreSQL numeric.
 */
export function numericNullsTyped(n: unknown): unknown {
  if (Array.isArray(n)) return n.map(numericNullsTyped);
  if (!n || typeof n !== 'object') return n;
  const node = n as Node;
  if (node.SubLink) return node;
  if (nullableNumericCast(node) && !node.TypeCast.arg.ParamRef)
    return { TypeCast: { ...node.TypeCast, arg: { A_Const: { ival: { ival: 0 } } } } };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, numericNullsTyped(v)]));
}

/** A `_pgsem_` call whose typed tags stand for `typed`; undefined (keep DuckDB's meaning) when no tag can. */
export function dispatch(fn: string, typed: Node[], args: Node[]): Node | undefined {
  const tags = typed.map(tagOf);
  return tags.some((t) => t === undefined) ? undefined : sem(fn, tags, args);
}

/** Text of a rewritten statement names the compat catalog only for these macros: not catalog emulation. */
export const SEMANTIC_MACRO_PREFIX = `${COMPAT_DB}.pgcat._pgsem_`;

/** `sum(x)` (with DISTINCT, FILTER, OVER kept): int8 of int2/int4, numeric of int8, float4 of float4. */
export function sumCall(sum: Node, arg: Node): Node | undefined {
  return dispatch('sum', [arg], [sum]);
}

/** `round(x)`: half to even for float8 (PostgreSQL's rint), half away from zero for numeric. */
export function roundCall(arg: Node, bareParam = false): Node | undefined {
  // A parameter the client wrote bare is its own tag: the planner prepares a declared or inferred one cast
  // to its type (param-types.ts declaredParamSql), so the overload is its type's (psycopg 3's float in `round(%s)`).
  return bareParam && arg.ParamRef ? sem('round', [arg], [arg]) : dispatch('round', [arg], [arg]);
}

/** `round(x, n)`, n a constant from 0 to 10: of an integer or a numeric, numeric at scale n as PostgreSQL (DuckDB kept the integer, or a smaller scale). */
export function roundPlacesCall(arg: Node, places: Node): Node | undefined {
  const digits = constantInteger(places);
  if (digits === undefined || digits < 0 || digits > 10) return undefined;
  const zero = {
    TypeCast: {
      arg: { A_Const: { ival: { ival: 0 } } },
      typeName: {
        names: [str('decimal')],
        typemod: -1,
        typmods: [{ A_Const: { ival: { ival: 18 } } }, { A_Const: { ival: { ival: digits } } }],
      },
    },
  };
  const at = { A_Const: { ival: { ival: digits } } };
  const witness = paramWitness(arg);
  return dispatch('roundn', [witness ?? arg], [arg, at, zero]);
}

const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);

/**
 * A stand-in for the type PostgreSQL gives `n` holding bare parameters, which have no type when the
 * rewrite runs (the planner infers them later): `x / $1` is of x's type, as PostgreSQL infers $1 as
 * x's type (`x / x`). Undefined when `n` holds no parameter, or one elsewhere than beside an arithmetic operator.
 */
function paramWitness(n: Node): Node | undefined {
  if (!holds(n, isParam)) return undefined;
  let found = false;
  let lost = false;
  const copy = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(copy);
    if (!x || typeof x !== 'object') return x;
    const node = x as Node;
    if (node.ParamRef) lost = true;
    const e = node.A_Expr as Node | undefined;
    const op = e?.kind === 'AEXPR_OP' ? (e.name as Node[])?.[0]?.String?.sval : undefined;
    if (op && ARITHMETIC.has(op) && e!.lexpr && (e!.lexpr.ParamRef || e!.rexpr?.ParamRef)) {
      found = true;
      return e!.lexpr.ParamRef ? (e!.rexpr.ParamRef ? ((lost = true), x) : copy(e!.rexpr)) : copy(e!.lexpr);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, copy(v)]));
  };
  const out = copy(n) as Node;
  return found && !lost ? out : undefined;
}

/** An integer constant, also cast (`CAST('7' AS integer)`, `7::int`), as a number; undefined otherwise. */
export function constantInteger(n: Node | undefined): number | undefined {
  const cast = n?.TypeCast as Node | undefined;
  const type = cast ? String((cast.typeName?.names as Node[]).slice(-1)[0]?.String?.sval) : undefined;
  if (cast && (!['int2', 'int4', 'int8'].includes(type!) || cast.typeName?.arrayBounds?.length)) return undefined;
  const c = (cast ? cast.arg : n)?.A_Const as Node | undefined;
  if (!c) return undefined;
  if (c.ival) return Number(c.ival.ival ?? 0);
  const text = cast && typeof c.sval?.sval === 'string' ? c.sval.sval.trim() : undefined;
  return text !== undefined && /^[+-]?\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** `x::numeric` of a value (not a constant): a numeric keeps its scale, an integer gets scale 0. */
export function numericOf(arg: Node): Node | undefined {
  return dispatch('numeric', [arg], [arg]);
}

/** `x::numeric` as an item of the outermost select list: a float shown at its decimal's own scale (pg-float-macros.ts). */
export function shownNumericOf(arg: Node): Node | undefined {
  return dispatch('shown_numeric', [arg], [arg]);
}

/** `x` for a cast to numeric(p, s): a float as its text at PostgreSQL's precision, any other value itself. */
export function floatNumericText(arg: Node): Node | undefined {
  return dispatch('fnum', [arg], [arg]);
}

/** `x::time`: of a timestamptz the time of day in the session's zone, as PostgreSQL (DuckDB has no such cast). */
export function timeOf(arg: Node): Node | undefined {
  return dispatch('time', [arg], [arg]);
}

/** Whether a node is syntactically a date: `date '…'`, `…::date`, current_date, make_date(…). */
export function dateLike(n: Node | undefined): boolean {
  if (!n) return false;
  const tc = n.TypeCast as Node | undefined;
  if (tc)
    return (
      String((tc.typeName?.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval) === 'date' &&
      !tc.typeName?.arrayBounds?.length
    );
  if (n.SQLValueFunction?.op === 'SVFOP_CURRENT_DATE') return true;
  const fn = (n.FuncCall?.funcname as Node[] | undefined)?.map((p) => String(p?.String?.sval)).slice(-1)[0];
  return fn === 'make_date';
}

/** `a - b` with a date side: int4 when both are dates (PostgreSQL), as DuckDB says otherwise. */
export function dateMinus(l: Node, r: Node): Node | undefined {
  return dispatch('minus', [l, r], [l, r]);
}

/**
 * `x || NULL`: PostgreSQL reads the NULL as text and answers a text NULL; DuckDB folds it into an
 * INTEGER NULL. An array on the other side keeps DuckDB's answer.
 */
export function concatWithNull(expr: Node, l: Node, r: Node): Node | undefined {
  const isNull = (n: Node) =>
    n?.A_Const?.isnull === true ||
    (n?.TypeCast?.arg?.A_Const?.isnull === true && !n.TypeCast.typeName?.arrayBounds?.length);
  const other = isNull(l) ? r : isNull(r) ? l : undefined;
  if (!other || other.A_ArrayExpr || other.TypeCast?.typeName?.arrayBounds?.length || other.ArrayExpr) return undefined;
  return { TypeCast: { arg: expr, typeName: { names: [str('varchar')], typemod: -1 } } };
}

const AGGREGATES = new Set(['sum', 'avg', 'count', 'min', 'max']);

/** Whether a node holds an aggregate of this query level (not windowed, not in a subquery). */
export function hasAggregate(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(hasAggregate);
  if (!n || typeof n !== 'object') return false;
  const node = n as Node;
  if (node.SubLink) return false;
  const fc = node.FuncCall as Node | undefined;
  if (fc && !fc.over && AGGREGATES.has(String((fc.funcname as Node[]).slice(-1)[0]?.String?.sval))) return true;
  return Object.values(node).some(hasAggregate);
}

/**
 * `a / b` over aggregates (`sum(x) / count(*)`): numeric division when either side is numeric, as
 * PostgreSQL (sum of int8 is numeric) — computed exactly by `_pgsem_ndiv`, once per group. Row-level
 * numeric division stays DuckDB's DOUBLE (documented): exact division per row costs too much.
 */
export function aggregateDivision(l: Node, r: Node): Node | undefined {
  return dispatch('div', [l, r], [l, r]);
}

/**
 * `a / b` per row: numeric (DECIMAL(38,16), through double precision: 15–17 significant digits) when
 * either side is numeric, so round() and the column type follow numeric; integers divide as integers.
 */
export function rowDivision(l: Node, r: Node): Node | undefined {
  if (l.A_Const?.ival && r.A_Const?.ival) return undefined; // integer constants: DuckDB divides them as PostgreSQL
  return dispatch('rdiv', [l, r], [l, r]);
}

/** `avg(x)` (not windowed): numeric for integers and numerics, sum / count divided as PostgreSQL. */
export function avgCall(fc: Node, arg: Node): Node | undefined {
  const as = (name: string): Node => ({ FuncCall: { ...fc, funcname: [str(name)] } });
  return dispatch('avg', [arg], [intervalAvg(fc, arg), as('sum'), as('count')]);
}

/**
 * DuckDB's `avg(x)` (`fc`: the walked call, its DISTINCT, FILTER and OVER kept), except of an interval:
 * PostgreSQL's, the months, days and microseconds summed apart and divided by the count as interval_div
 * (`_pgsem_iavg`; the sums are bound only for an interval). DISTINCT sums the parts of the distinct values.
 */
export function intervalAvg(fc: Node, arg: Node): Node {
  const call = (name: string, a: Node): Node => ({ FuncCall: { ...fc, funcname: [str(name)], args: [a] } });
  const macro = (name: string, a: Node): Node => ({
    FuncCall: { funcname: [COMPAT_DB, 'pgcat', name].map(str), args: [a], funcformat: 'COERCE_EXPLICIT_CALL' },
  });
  const avg = call('avg', arg);
  const sumOf = (part: string): Node =>
    fc.agg_distinct ? macro(`_pgsem_l${part}`, call('list', arg)) : call('sum', macro(`_pgsem_i${part}`, arg));
  return dispatch('iavg', [arg], [avg, call('count', arg), sumOf('months'), sumOf('days'), sumOf('micros')]) ?? avg;
}

/** A numeric constant's digits as [unscaled, scale]; undefined when not a plain number. */
export function constantNumeric(n: Node | undefined): { value: bigint; scale: number; numeric: boolean } | undefined {
  let node = n;
  let numeric = false;
  let typmod: [number, number] | undefined;
  const cast = node?.TypeCast as Node | undefined;
  if (cast) {
    const type = String((cast.typeName?.names as Node[]).slice(-1)[0]?.String?.sval);
    if ((type !== 'numeric' && type !== 'decimal') || cast.typeName?.arrayBounds) return undefined;
    if (cast.typeName?.typmods) {
      const [p, s = 0] = (cast.typeName.typmods as Node[]).map((m) => constantInteger(m) ?? NaN);
      if (!(p! >= 1 && p! <= 1000 && s >= 0 && s <= p!)) return undefined;
      typmod = [p!, s];
    }
    numeric = true;
    node = cast.arg;
  }
  const c = node?.A_Const as Node | undefined;
  const text = c?.ival
    ? String(c.ival.ival ?? 0)
    : c?.fval
      ? String(c.fval.fval)
      : numeric && typeof c?.sval?.sval === 'string'
        ? c.sval.sval.trim()
        : undefined;
  if (text === undefined || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return undefined;
  const [whole = '', frac = ''] = text.replace(/^[+-]/, '').split('.');
  const read = {
    value: BigInt((text.startsWith('-') ? '-' : '') + (whole + frac || '0')),
    scale: frac.length,
    numeric: numeric || text.includes('.'),
  };
  return typmod ? withTypmod(read, typmod[0], typmod[1]) : read;
}

/**
 * `7::numeric(10,4)`: PostgreSQL's numeric(p,s) of a constant, rounded half away from zero at scale s;
 * undefined (the cast left to run, and fail 22003 there) when its integer digits pass p - s.
 */
function withTypmod(
  c: { value: bigint; scale: number; numeric: boolean },
  precision: number,
  scale: number,
): { value: bigint; scale: number; numeric: boolean } | undefined {
  let value = c.value;
  if (c.scale > scale) {
    const unit = 10n ** BigInt(c.scale - scale);
    const half = unit / 2n;
    value = (value < 0n ? value - half : value + half) / unit;
  } else value *= 10n ** BigInt(scale - c.scale);
  const digits = (value < 0n ? -value : value).toString().length;
  return digits > precision && value !== 0n ? undefined : { value, scale, numeric: true };
}

const p10 = (n: number): bigint => 10n ** BigInt(n);
/** PostgreSQL's weight and first base-10000 digit of value·10^-scale (0, 0 for zero). */
function leading(value: bigint, scale: number): [number, bigint] {
  const abs = value < 0n ? -value : value;
  if (abs === 0n) return [0, 0n];
  const w = Math.floor((abs.toString().length - 1 - scale) / 4);
  const e = scale + 4 * w;
  return [w, e >= 0 ? abs / p10(e) : abs * p10(-e)];
}

/**
 * `7.0 / 2`, `1::numeric / 3`: numeric constants divided as PostgreSQL's numeric_div (select_div_scale,
 * rounded half away from zero), folded into a constant of that exact scale. Undefined when not both
 * numeric constants with one of them numeric (integer constants divide as integers).
 */
export function constantDivision(l: Node, r: Node): Node | undefined {
  const a = constantNumeric(l);
  const b = constantNumeric(r);
  if (!a || !b || !(a.numeric || b.numeric) || b.value === 0n) return undefined;
  const [wa, fa] = leading(a.value, a.scale);
  const [wb, fb] = leading(b.value, b.scale);
  const rscale = Math.min(Math.max(16 - 4 * (wa - wb - (fa <= fb ? 1 : 0)), a.scale, b.scale, 0), 1000);
  const n = (a.value < 0n ? -a.value : a.value) * p10(b.scale + rscale);
  const d = (b.value < 0n ? -b.value : b.value) * p10(a.scale);
  const q = n / d + (2n * (n % d) >= d ? 1n : 0n);
  const digits = q.toString().padStart(rscale + 1, '0');
  if (digits.length > 38) return undefined; // beyond DuckDB's DECIMAL: left to DuckDB (documented)
  const negative = a.value < 0n !== b.value < 0n && q !== 0n;
  const text = `${negative ? '-' : ''}${rscale ? `${digits.slice(0, -rscale)}.${digits.slice(-rscale)}` : digits}`;
  return {
    TypeCast: {
      arg: { A_Const: { sval: { sval: text } } },
      typeName: {
        names: [str('decimal')],
        typemod: -1,
        typmods: [{ A_Const: { ival: { ival: 38 } } }, { A_Const: { ival: { ival: rscale } } }],
      },
    },
  };
}

/**
 * `round(x::numeric[, n])` of a value (not a constant), n a constant in [-20, 13]: a float becomes the
 * numeric PostgreSQL's float8_numeric gives (15 significant digits) before rounding; the result has
 * scale n, as PostgreSQL's round(numeric, int). Undefined for any other shape.
 */
export function roundOfNumeric(args: Node[] | undefined, walked: (n: Node) => Node): Node | undefined {
  const cast = args?.[0]?.TypeCast as Node | undefined;
  const type = String((cast?.typeName?.names as Node[] | undefined)?.slice(-1)[0]?.String?.sval);
  if (
    !cast ||
    (type !== 'numeric' && type !== 'decimal') ||
    cast.typeName.typmods ||
    cast.typeName.arrayBounds?.length ||
    cast.arg?.A_Const ||
    cast.arg?.ParamRef
  )
    return undefined;
  // a cast constant too: SQLAlchemy binds the places as `$2::INTEGER`, written in at Bind (session/value-plans.ts)
  const places = args!.length === 1 ? 0 : constantInteger(args![1]);
  if (args!.length > 2 || places === undefined || places < -20 || places > 13) return undefined;
  const x = walked(cast.arg);
  const n = { A_Const: { ival: { ival: places } } };
  const rounded = dispatch('fround', [x], [x, n]);
  return (
    rounded && {
      TypeCast: {
        arg: rounded,
        typeName: {
          names: [str('decimal')],
          typemod: -1,
          typmods: [{ A_Const: { ival: { ival: 38 } } }, { A_Const: { ival: { ival: Math.max(places, 0) } } }],
        },
      },
    }
  );
}

/**
 * `percentile_cont(f) WITHIN GROUP (ORDER BY x)`: x read as PostgreSQL's float8 or interval forms read it (of a
 * date 42883, worded with the fraction's type). A fraction holding a parameter is named as double precision:
 * a parameter only an error's text read would be left without a type.
 */
export function percentileArgument(x: Node, f: Node): Node | undefined {
  const named = holds(f, isParam)
    ? { TypeCast: { arg: { A_Const: { isnull: true } }, typeName: { names: [str('float8')], typemod: -1 } } }
    : f;
  return dispatch('pctarg', [x], [x, named]);
}

/**
 * `percentile_cont(f) WITHIN GROUP (ORDER BY x)` of a fraction or an array of them (`call` with x read by
 * percentileArgument): the values in their order (FILTER kept), interpolated as PostgreSQL interpolates.
 */
export function percentileInterpolated(call: Node, f: Node, by: Node): Node | undefined {
  const x = by.node as Node;
  const tag = tagOf(x);
  if (tag === undefined) return undefined;
  const list: Node = {
    FuncCall: {
      ...call,
      funcname: [str('list')],
      args: [x],
      agg_order: [{ SortBy: { ...by, sortby_nulls: 'SORTBY_NULLS_LAST' } }],
      agg_within_group: false,
    },
  };
  // an array of fractions as written: ARRAY[…], or a cast to an array type ('{0.5,0.9}'::float8[])
  const many = f.A_ArrayExpr || f.ArrayExpr || (f.TypeCast?.typeName as Node | undefined)?.arrayBounds?.length;
  return sem(many ? 'pctconts' : 'pctcont', [tag], [list, f]);
}

/** `sign(x)`: double precision of integers and floats, numeric of numerics (DuckDB keeps the argument's type). */
export function signCall(arg: Node): Node | undefined {
  return dispatch('sign', [arg], [arg]);
}

/** `gcd(a, b)`, `lcm(a, b)`: int4 when both are int2/int4 (DuckDB: BIGINT); the tag is `a + b`, of the wider type. */
export function int4OfSmallIntegers(call: Node, a: Node, b: Node): Node | undefined {
  return dispatch('int4', [{ A_Expr: { kind: 'AEXPR_OP', name: [str('+')], lexpr: a, rexpr: b } }], [call]);
}
