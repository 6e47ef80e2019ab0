/**
 * PostgreSQL forms DuckDB lacks or types differently, as parse-tree nodes for the rewrite (rewrite-calls.ts,
 * rewrite-operators.ts): BETWEEN SYMMETRIC, `array || element`, jsonb's key operators, int4 results
 * (length, ntile, …), extract's numeric, date arguments read as timestamptz; FETCH … WITH TIES refused.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { COMPAT_DB } from './catalog/names.js';
import { tagOf } from './pg-result-types.js';

type Node = Record<string, any>;

const str = (sval: string): Node => ({ String: { sval } });
const call = (name: string, args: Node[]): Node => ({
  FuncCall: { funcname: [str(name)], args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
const sem = (fn: string, args: Node[]): Node => ({
  FuncCall: { funcname: [COMPAT_DB, 'pgcat', `_pgsem_${fn}`].map(str), args, funcformat: 'COERCE_EXPLICIT_CALL' },
});
export const castTo = (arg: Node, type: string, typmods?: number[]): Node => ({
  TypeCast: {
    arg,
    typeName: {
      names: [str(type)],
      typemod: -1,
      ...(typmods ? { typmods: typmods.map((ival) => ({ A_Const: { ival: { ival } } })) } : {}),
    },
  },
});

/**
 * Types whose name PostgreSQL also reads as a one-argument call: `int4(x)` is `x::int4` (its parser takes a
 * call of a type's name with no function of that signature for an explicit cast). The keywords among type
 * names (`numeric`, `timestamp`, `varchar`, …) are such calls only when quoted, as PostgreSQL's grammar reads them.
 */
const FUNCTION_STYLE_CASTS: ReadonlySet<string> = new Set([
  'int2',
  'int4',
  'int8',
  'float4',
  'float8',
  'numeric',
  'text',
  'varchar',
  'bpchar',
  'name',
  'bool',
  'date',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'interval',
  'json',
  'jsonb',
  'uuid',
  'bytea',
  'oid',
  'regclass',
  'regtype',
]);

/** `int4(x)` (one argument, no aggregate or window form) as the cast PostgreSQL reads it, or undefined. */
export function functionStyleCast(pgName: string | undefined, fc: Node): Node | undefined {
  const args = fc.args as Node[] | undefined;
  if (!pgName || !FUNCTION_STYLE_CASTS.has(pgName) || args?.length !== 1) return undefined;
  if (fc.agg_star || fc.agg_distinct || fc.agg_order || fc.agg_filter || fc.over || fc.func_variadic) return undefined;
  return castTo(args[0]!, pgName);
}

/** `x BETWEEN SYMMETRIC a AND b`: either order of the bounds (DuckDB's parser has no SYMMETRIC). */
export function betweenSymmetric(kind: string, x: Node, bounds: Node[]): Node | undefined {
  if (kind !== 'AEXPR_BETWEEN_SYM' && kind !== 'AEXPR_NOT_BETWEEN_SYM') return undefined;
  const [lo, hi] = bounds;
  const between = (a: Node, b: Node): Node => ({
    A_Expr: { kind: 'AEXPR_BETWEEN', name: [str('BETWEEN')], lexpr: x, rexpr: { List: { items: [a, b] } } },
  });
  const either: Node = { BoolExpr: { boolop: 'OR_EXPR', args: [between(lo!, hi!), between(hi!, lo!)] } };
  return kind === 'AEXPR_BETWEEN_SYM' ? either : { BoolExpr: { boolop: 'NOT_EXPR', args: [either] } };
}

/** Syntactically an array: `ARRAY[…]`, `…::type[]`, `'{…}'::type[]` rewritten to ARRAY[…]. */
const isArray = (n: Node | undefined): boolean =>
  !!(n?.A_ArrayExpr || n?.ArrayExpr || n?.TypeCast?.typeName?.arrayBounds?.length || n?.TypeCast?.arg?.A_ArrayExpr);

/** `array || element`, `element || array`: DuckDB's || joins two lists only. */
export function arrayConcat(l: Node, r: Node): Node | undefined {
  // An untyped NULL is read as the array's type: the array itself (DuckDB folds the whole to NULL).
  if (isArray(l) && r.A_Const?.isnull) return l;
  if (isArray(r) && l.A_Const?.isnull) return r;
  // An untyped string beside an array is read as an array of its type: without `{` PostgreSQL's array input fails
  for (const [a, other] of [
    [l, r],
    [r, l],
  ])
    if (isArray(a) && typeof other.A_Const?.sval?.sval === 'string' && !/^\s*[{[]/.test(other.A_Const.sval.sval))
      throw new SqlError(
        SQLSTATE.invalidTextRepresentation,
        `malformed array literal: "${other.A_Const.sval.sval}"`,
        'Array value must start with "{" or dimension information.',
      );
  if (isArray(l) && !isArray(r) && !r.A_Const?.isnull) return call('list_append', [l, r]);
  if (isArray(r) && !isArray(l) && !l.A_Const?.isnull) return call('list_prepend', [l, r]);
  return undefined;
}

/** jsonb `x ? k`, `x ?| ks`, `x ?& ks`. */
export function jsonKeyOperator(op: string, l: Node, r: Node): Node | undefined {
  const fn = op === '?' ? 'jhas' : op === '?|' ? 'jhas_any' : op === '?&' ? 'jhas_all' : undefined;
  return fn ? sem(fn, [castTo(l, 'json'), r]) : undefined;
}

/** Functions whose result is int4 in PostgreSQL and int8 (or wider) in DuckDB. */
const INT4_RESULTS = new Set([
  'bit_length',
  'char_length',
  'character_length',
  'strpos',
  'position',
  'array_length',
  'json_array_length',
  'ntile',
  'grouping',
]);

/** `length(s)`, `ntile(n) over (…)`, …: the call as DuckDB runs it, cast to int4. */
export function int4Result(name: string, fc: Node): Node | undefined {
  return INT4_RESULTS.has(name) ? castTo({ FuncCall: fc }, 'integer') : undefined;
}

/** `length(x)`: int4, of bytea its bytes (DuckDB has no length of a BLOB). */
export function lengthCall(args: Node[]): Node {
  return sem('length', [textTag(args[0]!), args[0]!]);
}

/** The tag of a string function's argument; an untyped NULL is text, as PostgreSQL resolves `length(null)`. */
function textTag(arg: Node): Node {
  if (arg.A_Const?.isnull) return castTo(arg, 'text');
  return tagOf(arg) ?? arg;
}

/** `sha256(bytea)` and kin are bytea in PostgreSQL; DuckDB's sha256 answers the digest as hex text. */
export function digestCall(fc: Node): Node {
  return { FuncCall: { funcname: [str('unhex')], args: [{ FuncCall: fc }], funcformat: 'COERCE_EXPLICIT_CALL' } };
}

/** `octet_length(x)`: int4, of text too (DuckDB has it for blobs only). */
export function octetLength(args: Node[]): Node {
  return sem('octets', [textTag(args[0]!), args[0]!]);
}

/** The spellings PostgreSQL reads for the seconds' fields (its datetktbl and deltatktbl), by the macro that answers each. */
const SECOND_FIELDS: ReadonlyMap<string, string> = new Map([
  ...['second', 'seconds', 's', 'sec', 'secs'].map((f) => [f, 'seconds'] as const),
  ...['millisecond', 'milliseconds', 'ms', 'msec', 'msecs', 'mseconds', 'millisecon'].map(
    (f) => [f, 'milliseconds'] as const,
  ),
  ...['microsecond', 'microseconds', 'us', 'usec', 'usecs', 'useconds', 'microsecon'].map(
    (f) => [f, 'microseconds'] as const,
  ),
]);

/**
 * `extract(field from x)`: numeric in PostgreSQL 14+ (scale 6 for second and epoch, 3 for
 * milliseconds; an epoch of a date scale 0; the time zone fields, whole seconds or hours, scale 0). `julian` is refused (0A000).
 */
export function extractNumeric(fc: Node, args: Node[]): Node | undefined {
  const field = String(args[0]?.A_Const?.sval?.sval ?? '').toLowerCase();
  const x = args[1];
  if (!x || !field) return undefined;
  // PostgreSQL's julian is numeric (a timestamp's day fraction divided at select_div_scale:
  // `2460311.40069444444444444444`), DuckDB's a double: refused, with the double precision spelling.
  if (field === 'julian')
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'extract(julian from …) is not supported by fdl-gateway',
      undefined,
      "PostgreSQL's numeric Julian date is not emulated: date_part('julian', x) gives it in double precision.",
    );
  // The tag stands for x without its aggregates and windows (`max(t) - min(t)`), which no macro argument may hold.
  if (field === 'epoch') return infiniteRefused(field, x, sem('epoch', [tagOf(x) ?? x, x]));
  if (NOT_TIME_UNITS.has(field))
    return infiniteRefused(field, x, timeUnitChecked(args, extractValue(fc, field, x), 'timeunitn', false));
  // The time zone fields exist only for timestamptz and timetz (PostgreSQL: 0A000 for a timestamp; DuckDB answered 0).
  if (field.startsWith('timezone'))
    return sem('tzfield', [tagOf(x) ?? x, castTo({ FuncCall: fc }, 'decimal', [38, 0])]);
  const seconds = SECOND_FIELDS.get(field);
  if (seconds) return sem(seconds, [x]);
  return extractValue(fc, field, x);
}

/** extract of a whole-number field: numeric; a year without year 0. */
function extractValue(fc: Node, field: string, x: Node): Node {
  const value = castTo({ FuncCall: fc }, 'decimal', [38, 0]);
  if (field !== 'year' && field !== 'years') return value;
  // PostgreSQL has no year 0 for dates and timestamps: 44 BC is -44; DuckDB's year is astronomical (-43).
  return sem('bcyear', [tagOf(x) ?? x, value]);
}

/** `date_part(field, x)`: double precision in PostgreSQL, whatever the field (DuckDB: BIGINT for most). */
export function datePartFloat8(fc: Node): Node {
  const args = fc.args as Node[];
  const value = timeUnitChecked(args, castTo({ FuncCall: fc }, 'double'), 'timeunit');
  const field = String(args[0]?.A_Const?.sval?.sval ?? '').toLowerCase();
  const x = args[1];
  // PostgreSQL 15's NonFiniteTimestampTzPart: ±Infinity for these fields, NULL for the others (DuckDB: NULL for all).
  if (!x || !INFINITE_FIELDS.has(field)) return value;
  return sem('infpart', [tagOf(x) ?? x, x, value]);
}

/**
 * The fields PostgreSQL 15 answers ±Infinity for when the date or timestamp is infinite (its
 * NonFiniteTimestampTzPart and NonFiniteDatePart, every spelling datetktbl reads); other fields are NULL.
 */
const INFINITE_FIELDS: ReadonlySet<string> = new Set([
  ...['epoch', 'julian', 'isoyear', 'y', 'year', 'years', 'yr', 'yrs', 'dec', 'decade', 'decades', 'decs'],
  ...['c', 'cent', 'centuries', 'century', 'mil', 'millennia', 'millennium', 'millenniums', 'mils'],
]);

/**
 * extract's numeric of an infinite date or timestamp, for a field PostgreSQL answers numeric ±Infinity for:
 * DuckDB's DECIMAL has no infinity, so the row is refused (0A000, pg-value-macros.ts `_pgsem_infnum`); it
 * was NULL, silently.
 */
function infiniteRefused(field: string, x: Node, value: Node): Node {
  if (!INFINITE_FIELDS.has(field)) return value;
  return sem('infnum', [tagOf(x) ?? x, x, { A_Const: { sval: { sval: field } } }, value]);
}

/**
 * The spellings of the units PostgreSQL 15 reads for dates and timestamps but refuses for a time of day
 * (`unit "year" not supported for type time without time zone`, 0A000), as its date_part answers each;
 * the time zone fields are a timetz's.
 */
const NOT_TIME_UNITS: ReadonlySet<string> = new Set([
  ...['c', 'cent', 'centuries', 'century', 'd', 'day', 'days', 'dec', 'decade', 'decades', 'decs', 'dow', 'doy'],
  ...['isodow', 'isoyear', 'julian', 'mil', 'millennia', 'millennium', 'millenniums', 'mils', 'mon', 'mons'],
  ...['month', 'months', 'qtr', 'quarter', 'w', 'week', 'weeks', 'y', 'year', 'years', 'yr', 'yrs'],
]);
const ZONE_UNITS: ReadonlySet<string> = new Set([
  'timezone',
  'timezone_h',
  'timezone_hour',
  'timezone_m',
  'timezone_minute',
]);

/**
 * `value` (date_part's or extract's call) refused as PostgreSQL refuses it where x is a time or timetz and
 * the unit one a time of day has not (pg-value-macros.ts `_pgsem_timeunit`); DuckDB's binder answered
 * 42883 (`function year(time without time zone) does not exist`). Other units and types are left as they are.
 */
function timeUnitChecked(args: Node[], value: Node, macro: 'timeunit' | 'timeunitn', zones = true): Node {
  const unit = args[0]?.A_Const?.sval?.sval;
  const x = args[1];
  if (typeof unit !== 'string' || !x) return value;
  const lower = unit.toLowerCase();
  if (!NOT_TIME_UNITS.has(lower) && !(zones && ZONE_UNITS.has(lower))) return value;
  const u = { A_Const: { sval: { sval: lower } } };
  return sem(ZONE_UNITS.has(lower) ? 'tzunit' : macro, [tagOf(x) ?? x, x, u, value]);
}

/**
 * `date_trunc('century' | 'millennium', x)`: PostgreSQL's centuries begin in years …01 (2024 → 2001-01-01,
 * 2000 → 1901-01-01), DuckDB's in …00. A year earlier truncated DuckDB's way, then a year later, is PostgreSQL's
 * (an interval's are DuckDB's: `interval '150 years'` → 100 years).
 */
export function centuryTruncated(trunc: Node): Node {
  const [field, x] = trunc.FuncCall.args as [Node, Node];
  const unit = String(field.A_Const?.sval?.sval ?? '').toLowerCase();
  if (!['century', 'centuries', 'millennium', 'millennia', 'millenniums'].includes(unit)) return trunc;
  const year = (): Node => castTo({ A_Const: { sval: { sval: '1 year' } } }, 'interval');
  const op = (name: string, l: Node, r: Node): Node => ({
    A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr: l, rexpr: r },
  });
  const shifted = op('+', { FuncCall: { ...trunc.FuncCall, args: [field, op('-', x, year())] } }, year());
  // an interval's centuries are counted from 0, as DuckDB's
  return sem('centrunc', [tagOf(x) ?? x, trunc, shifted]);
}

/** A date argument PostgreSQL reads as timestamptz (date_trunc, generate_series); an untyped string constant too. */
export function asTimestamptz(n: Node): Node {
  if (n.A_Const?.sval) return castTo(n, 'timestamptz');
  // A cast says the type, and no macro is needed: a column of a LATERAL's outer side in a typed macro's
  // argument matched every overload in DuckDB's binder (`generate_series(o.t::date, …)`).
  const cast = castName(n) ?? dateShifted(n);
  if (cast === 'date') return castTo(n, 'timestamptz');
  if (cast === 'timestamp' || cast === 'timestamptz') return n;
  // typed by its tag: an aggregate as a macro's argument matched every overload too (`date_trunc('month', min(t))`)
  return sem('tstz', [tagOf(n) ?? n, n]);
}

/** The type an explicit cast names (`x::date` → date), lower case without a pg_catalog qualifier. */
function castName(n: Node): string | undefined {
  const names = (n.TypeCast?.typeName as Node | undefined)?.names as Node[] | undefined;
  const last = names?.[names.length - 1]?.String?.sval;
  return typeof last === 'string' && !(n.TypeCast?.typeName as Node).arrayBounds ? last.toLowerCase() : undefined;
}

/** `x::date + 2` and `x::date - 1`: still a date (PostgreSQL's date ± integer). */
function dateShifted(n: Node): 'date' | undefined {
  const e = n.A_Expr as Node | undefined;
  const op = (e?.name as Node[] | undefined)?.[0]?.String?.sval;
  if (e?.kind !== 'AEXPR_OP' || (op !== '+' && op !== '-')) return undefined;
  const r = e.rexpr as Node;
  const int = (r.TypeCast ? (r.TypeCast.arg as Node) : r).A_Const?.ival !== undefined;
  return castName(e.lexpr as Node) === 'date' && int ? 'date' : undefined;
}

/** An untyped string bound of generate_series beside a typed one: PostgreSQL gives it the other's type. */
export function boundBeside(other: Node, n: Node): Node {
  return sem('bound', [tagOf(other) ?? other, n]);
}

/** `FETCH FIRST n ROWS WITH TIES`: DuckDB has no such clause. */
export function withTiesRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'FETCH FIRST … WITH TIES is not supported by fdl-gateway',
    undefined,
    'Rank the rows in a subquery and keep the first ones: … WHERE r <= n with rank() OVER (ORDER BY …) AS r.',
  );
}

/**
 * `current_setting(name)` of a name neither the session nor PostgreSQL's settings know: 42704, as
 * PostgreSQL (the catalog's lookup answers NULL). `current_setting(name, true)` keeps the NULL.
 */
export function settingOrError(setting: Node, name: Node): Node {
  const message = {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [str('||')],
      lexpr: {
        A_Expr: {
          kind: 'AEXPR_OP',
          name: [str('||')],
          lexpr: { A_Const: { sval: { sval: 'unrecognized configuration parameter "' } } },
          rexpr: castTo(name, 'varchar'),
        },
      },
      rexpr: { A_Const: { sval: { sval: '"' } } },
    },
  };
  return {
    CaseExpr: {
      args: [
        {
          CaseWhen: { expr: { NullTest: { arg: setting, nulltesttype: 'IS_NULL' } }, result: call('error', [message]) },
        },
      ],
      defresult: setting,
    },
  };
}

/** `upper(s)`, `lower(s)`: ASCII letters only, as PostgreSQL under the C locale the gateway reports (lc_ctype). */
export function caseMapped(fn: 'upper' | 'lower', arg: Node): Node {
  return sem(fn, [arg]);
}
