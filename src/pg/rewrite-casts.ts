/** Casts in the rewrite: reg* types, PostgreSQL array text, typmods, input functions of string constants. */
import { OID } from './oids.js';
import { numericFloatCast } from './numeric-floats.js';
import { isRegprocColumn, regprocName } from './regproc-columns.js';
import { jsonbText } from './pg-jsonb.js';
import { unguarded } from './json-arrows.js';

/** Types whose value read from a member's text is the same for DuckDB's text and PostgreSQL's (`1.5`, `1.50`). */
const VALUE_TYPES: ReadonlySet<string> = new Set([
  'int2',
  'int4',
  'int8',
  'integer',
  'smallint',
  'bigint',
  'float4',
  'float8',
  'real',
  'double precision',
  'bool',
  'boolean',
]);
import {
  booleanInput,
  byteaInput,
  fractionRounded,
  timeSecondLater,
  dateInput,
  integerInput,
  nameInput,
  oidInput,
  isIntegerType,
  specialDateTime,
  timestampInput,
  timestampLeapSecond,
  timestamptzInput,
  timetzInput,
  timeInput,
} from './pg-input.js';
import { dispatch, floatNumericText, numericOf, shownNumericOf, timeOf } from './pg-result-types.js';
import { lengthCast, numericCast } from './pg-calls.js';
import { PG_CATALOG_OID } from './catalog/names.js';
import { castTo } from './pg-forms.js';
import {
  call,
  compat,
  names,
  parseArrayText,
  REG_TYPES,
  str,
  strConst,
  typedAs,
  type Ctx,
  type Node,
} from './rewrite-nodes.js';
import { NO_ROWS, walk } from './rewrite-walk.js';
import { wholeRowName } from './pg-rows.js';
import { castText } from './pg-text.js';
import { numericArrayText } from './numeric-arrays.js';
import { numericSpecialRefused, precisionRefused } from './pg-spellings.js';
import { intervalWithFields, isoInterval } from './interval-fields.js';
import { FRACTIONAL_SECOND_TYPES, fractionalPrecision } from './fractional-seconds.js';

/** PostgreSQL OIDs (scalar, array) of cast targets recorded for parameters (`$n::oid`). */
const PARAM_CAST_OIDS: Record<string, readonly [number, number]> = {
  oid: [26, 1028],
  regclass: [2205, 2210],
  regtype: [2206, 2211],
  regproc: [24, 1008],
  regprocedure: [2202, 2207],
  regnamespace: [4089, 4090],
  regrole: [4096, 4097],
};

/** The types whose input reads PostgreSQL's special words (`'today'`, `'now'`: pg-input.ts specialDateTime). */
const DATETIME_INPUT_TYPES: ReadonlySet<string> = new Set(['date', 'timestamp', 'timestamptz']);

/** The types whose input rounds a fraction of a second to microseconds (pg-input.ts fractionRounded). */
const FRACTION_INPUT_TYPES: ReadonlySet<string> = new Set(['timestamp', 'timestamptz', 'time', 'timetz']);

/** PostgreSQL's input functions for string constants DuckDB reads otherwise (pg-input.ts), by type. */
const CONSTANT_INPUTS: ReadonlyMap<string, (text: string) => Node | undefined> = new Map([
  ['bool', booleanInput],
  ['boolean', booleanInput],
  ['timestamptz', timestamptzInput],
  ['timestamp', timestampInput],
  ['timetz', timetzInput],
  ['time', timeInput],
  ['bytea', byteaInput],
  ['date', dateInput],
  ['oid', oidInput],
  ['name', nameInput],
]);

/** PostgreSQL type name → DuckDB type name, for casts in rewritten statements. */
const TYPE_MAP: Record<string, string> = {
  oid: 'bigint',
  xid: 'bigint',
  cid: 'bigint',
  xid8: 'bigint',
  regoper: 'bigint',
  regoperator: 'bigint',
  regconfig: 'bigint',
  name: 'varchar',
  char: 'varchar',
  bpchar: 'varchar',
  text: 'varchar',
  pg_node_tree: 'varchar',
  aclitem: 'varchar',
  jsonb: 'json',
  int2vector: 'smallint[]',
  oidvector: 'bigint[]',
};

export function typeCast(tc: Node, ctx: Ctx, display: boolean): Node {
  const tn = tc.typeName as Node;
  const parts = names(tn.names);
  const type = parts[parts.length - 1]!.toLowerCase();
  const isArray = Array.isArray(tn.arrayBounds) && tn.arrayBounds.length > 0;
  const textual = !isArray && (type === 'text' || type === 'varchar' || type === 'name' || type === 'bpchar');
  // `'2024-01-01 00:00+03'::text::timestamptz`, `'1.2300'::text::numeric`: a string constant cast to text is that
  // text, which the outer cast reads with the type's input function, as it reads the constant alone (was 22007, 0A000)
  const throughText = !isArray && READ_THROUGH_TEXT.has(type) ? constantThroughText(tc.arg) : undefined;
  if (throughText) {
    ctx.changed = true;
    return typeCast({ ...tc, arg: throughText }, ctx, display);
  }
  // '{a,b}'::text[] → ARRAY['a','b']::text[] (DuckDB reads '[a, b]', not PostgreSQL's array text).
  let arg: Node;
  const sval = tc.arg?.A_Const?.sval?.sval as string | undefined;
  const elems = isArray && sval !== undefined ? parseArrayText(sval) : undefined;
  if (elems) {
    arg = { A_ArrayExpr: { elements: elems.map((e) => (e === null ? { A_Const: { isnull: true } } : strConst(e))) } };
    ctx.changed = true;
  } else {
    // A whole-row reference cast to text as an outermost select-list item: record_out's text, written by the
    // wire; where the rows are sorted or deduplicated (by the struct's fields, not the text) still refused
    const row =
      type === 'text' && !tn.typmods && ctx.shown?.has(tc) && !ctx.ordered
        ? wholeRowName(tc.arg, ctx.rowScope ?? NO_ROWS)
        : undefined;
    if (row) {
      ctx.changed = true;
      return typedAs('rowtext', { ColumnRef: { fields: [str(row)] } });
    }
    // numeric constants of mixed scales: the array's text from their own digits (DuckDB pads them to one scale)
    const constant = textual && !tn.typmods ? numericArrayText(tc.arg) : undefined;
    if (constant) {
      ctx.changed = true;
      return constant;
    }
    // A row constructor cast to text is record_out's text, built from its fields (not shown as a record).
    if (textual && !tn.typmods && tc.arg?.RowExpr) {
      ctx.changed = true;
      return castText(walk(tc.arg, ctx, false) as Node, (ctx.untypedText ?? 0) > 0);
    }
    // char(n) cast to text or varchar loses its padding (PostgreSQL's rtrim1): shown padded only as itself
    const innerType = names((tc.arg?.TypeCast?.typeName as Node | undefined)?.names).slice(-1)[0];
    // `1e300::float8`: DuckDB reads an exponent constant as the double PostgreSQL's numeric casts to (the walk
    // makes it an exact numeric, refused past 38 digits)
    const fval = String(tc.arg?.A_Const?.fval?.fval ?? '');
    const floatConstant =
      !isArray && /[eE]/.test(fval) && (/^[-+]?[0.]+[eE]/.test(fval) || inFloatRange(type, Number(fval)));
    arg = floatConstant
      ? (tc.arg as Node)
      : (walk(tc.arg, ctx, textual && !(innerType === 'bpchar' && type !== 'bpchar')) as Node);
    // `(j ->> 'n')::int`: the same value from DuckDB's text of a member as from PostgreSQL's (json-arrows.ts)
    if (!isArray && (VALUE_TYPES.has(type) || (!!tn.typmods && (type === 'numeric' || type === 'decimal'))))
      arg = unguarded(arg);
    // a text value (a column's or a parameter's text) read as a timestamp: respelled where PostgreSQL's reader and
    // DuckDB's differ (pg-macros.ts `_pgsem_tstext`; pgjdbc's setString with `?::timestamptz` was 22007)
    if (!isArray && (type === 'timestamptz' || type === 'timestamp') && textCastTarget(tc.arg)) {
      ctx.changed = true;
      arg = compat('_pgsem_tstext', [arg]);
    }
  }
  if (textual && !tn.typmods && ctx.readsCatalog && isRegprocColumn(tc.arg)) {
    // regproc's output: the function's name (`typinput::text = 'array_in'`).
    ctx.changed = true;
    return regprocName(arg);
  }
  if (type === 'time' && !isArray && !tn.typmods && sval === undefined && !tc.arg?.ParamRef) {
    const time = timeOf(arg);
    if (time) {
      ctx.changed = true;
      return time;
    }
  }
  // interval(p) parses as the full field range and a precision.
  if (!isArray && type === 'interval' && tn.typmods?.length === 2) throw precisionRefused(type);
  if (type === 'interval' && !isArray && tn.typmods) {
    ctx.changed = true;
    return intervalWithFields(tc.arg, tn.typmods);
  }
  const dateWord =
    !isArray && sval !== undefined && DATETIME_INPUT_TYPES.has(type) ? specialDateTime(type, sval) : undefined;
  if (dateWord) {
    ctx.changed = true;
    return dateWord;
  }
  // a timestamp at second 59 and a second added, where PostgreSQL reads second 60 as the next minute
  const leap =
    !isArray && sval !== undefined && (type === 'timestamp' || type === 'timestamptz')
      ? timestampLeapSecond(sval)
      : undefined;
  let rounded =
    leap ?? (!isArray && sval !== undefined && FRACTION_INPUT_TYPES.has(type) ? fractionRounded(sval) : undefined);
  // a time of day carries within its own text, up to 24:00:00
  const later = rounded?.carry && (type === 'time' || type === 'timetz') ? timeSecondLater(rounded.text) : undefined;
  if (later) rounded = { text: later, carry: false };
  if (rounded) {
    ctx.changed = true;
    const text =
      (type === 'timestamptz'
        ? timestamptzInput(rounded.text)
        : type === 'timestamp'
          ? timestampInput(rounded.text)
          : undefined
      )?.A_Const.sval.sval ?? rounded.text;
    const base: Node = { TypeCast: { arg: strConst(text), typeName: { ...tn, typmods: undefined } } };
    // A fraction rounded up to the next second: that second added to the value read at .000000.
    arg = rounded.carry
      ? {
          A_Expr: {
            kind: 'AEXPR_OP',
            name: [str('+')],
            lexpr: base,
            rexpr: { TypeCast: { arg: strConst('1 second'), typeName: { names: [str('interval')], typemod: -1 } } },
          },
        }
      : strConst(text);
  } else if (!isArray && sval !== undefined) {
    // PostgreSQL's input function decides what a string constant means (pg-input.ts).
    const read = isIntegerType(type) ? integerInput(type, sval) : CONSTANT_INPUTS.get(type)?.(sval);
    // `'-1 days +2 hours'`: PostgreSQL reads a `+` before a field's number, DuckDB's reader does not (22P02);
    // nor a sign apart from its number (`'1 month - 1 day'`, PostgreSQL's `1 mon -1 days`).
    if (type === 'interval' && /\+\s*[\d.]|-\s+\d/.test(sval)) {
      ctx.changed = true;
      arg = strConst(sval.replace(/\+\s*(?=[\d.])/g, '').replace(/-\s+(?=\d)/g, '-'));
    }
    const iso = type === 'interval' && !isArray && !tn.typmods ? isoInterval(sval) : undefined;
    if (iso !== undefined) {
      ctx.changed = true;
      arg = strConst(iso);
    }
    if (type === 'jsonb') {
      // jsonb's normal form (key order, duplicates, numbers, spacing), as PostgreSQL stores and prints it.
      const normal = jsonbText(sval);
      if (normal !== sval) {
        ctx.changed = true;
        arg = strConst(normal);
      }
    }
    if (read && read.A_Const.sval.sval !== sval) {
      ctx.changed = true;
      arg = read;
    }
  }
  const special = !isArray && (type === 'numeric' || type === 'decimal') && sval !== undefined;
  if (special) {
    const refused = numericSpecialRefused(sval);
    if (refused) throw refused;
  }
  if (!isArray && FRACTIONAL_SECOND_TYPES.has(type) && tn.typmods) {
    ctx.changed = true;
    return fractionalPrecision({ TypeCast: { ...tc, arg, typeName: { ...tn, typmods: undefined } } }, tn.typmods);
  }
  if (!isArray && (type === 'numeric' || type === 'decimal') && !tn.typmods) {
    const exact = numericCast(tc, arg);
    if (exact) {
      ctx.changed = true;
      return exact;
    }
    const paramNo = tc.arg?.ParamRef?.number as number | undefined;
    if (paramNo !== undefined && !tc.arg.ParamRef.indirection) {
      // `$n::numeric`: the parameter is typed by its value at Bind, keeping its own precision and scale
      // (param-types.ts valueTypedParam); DuckDB's cast would round it to DECIMAL(18,3).
      if (!ctx.params.has(paramNo)) ctx.params.set(paramNo, OID.numeric);
      if (ctx.params.get(paramNo) === OID.numeric) {
        ctx.changed = true;
        return arg;
      }
    }
    // Any other value keeps its own scale; a float is float8_numeric's decimal, shown at its own scale
    // as an outermost select-list item, else at one scale per column (pg-float-macros.ts).
    const kept =
      tc.arg?.ParamRef || tc.arg?.A_Const ? undefined : ctx.shown?.has(tc) ? shownNumericOf(arg) : numericOf(arg);
    if (kept) {
      ctx.changed = true;
      return kept;
    }
  }
  if (!isArray && (type === 'numeric' || type === 'decimal') && tn.typmods && !tc.arg?.A_Const && !tc.arg?.ParamRef) {
    // numeric(p, s) of a float rounds the float's 15-digit text, as PostgreSQL (pg-float-macros.ts `_pgsem_fnum`).
    const text = floatNumericText(arg);
    if (text) {
      ctx.changed = true;
      return { TypeCast: { ...tc, arg: text } };
    }
  }
  if (
    (type === 'text' || type === 'varchar') &&
    !isArray &&
    !tn.typmods &&
    tc.arg &&
    !tc.arg.A_Const &&
    !tc.arg.ParamRef
  ) {
    // A value cast to text as PostgreSQL writes it (pg-text-macros.ts): a float's digits (`100`, not
    // DuckDB's `100.0`), an array's `{1,2}`, an interval's `1 year 2 mons`, a bytea's `\x…`.
    ctx.changed = true;
    const text = castText(arg, (ctx.untypedText ?? 0) > 0);
    return type === 'varchar' && ctx.shown?.has(tc) ? typedAs('varchar', text) : text;
  }
  if (!isArray && type === 'bpchar' && !tn.typmods) {
    // bpchar without a length keeps its value, trailing spaces too, where it is shown or read padded
    // (LIKE, concat, octet_length); elsewhere PostgreSQL ignores them (comparisons, its cast to text,
    // length): held without them, as char(n) is (lengthCast)
    ctx.changed = true;
    const value = castTo(arg, 'varchar');
    if (ctx.shown?.has(tc)) return typedAs('bpchar', value);
    return display ? value : call(['rtrim'], [value, strConst(' ')]);
  }
  const length = tn.typmods?.length === 1 ? tn.typmods[0]?.A_Const?.ival?.ival : undefined;
  if (!isArray && typeof length === 'number' && (type === 'bpchar' || type === 'varchar')) {
    ctx.changed = true;
    const cast = lengthCast(type, length, arg, display);
    // In the outermost select list, sent as bpchar/varchar (DuckDB has only VARCHAR).
    return ctx.shown?.has(tc) ? typedAs(`${type}_${length}`, cast) : cast;
  }
  const paramNo = tc.arg?.ParamRef?.number as number | undefined;
  const paramOid = PARAM_CAST_OIDS[type];
  if (paramNo !== undefined && paramOid && !ctx.params.has(paramNo)) ctx.params.set(paramNo, paramOid[isArray ? 1 : 0]);
  if (REG_TYPES.has(type)) {
    ctx.changed = true;
    const kind = type;
    if (isArray) return { TypeCast: { ...tc, arg, typeName: { ...tn, names: [str('bigint')], typmods: undefined } } };
    // An oid column is already the oid: only text needs a lookup, which fails for an unknown name
    // with PostgreSQL's error (to_regclass and relatives return NULL instead).
    const isOid = arg.ColumnRef !== undefined || arg.A_Const?.ival !== undefined;
    // `'pg_catalog'::regnamespace` (sqlsmith's and drivers' type lists) is PostgreSQL's fixed OID of pg_catalog in
    // every database: a lookup's subquery in a CASE over pg_type made DuckDB's run 4× the same text with the OID.
    const pgCatalog = kind === 'regnamespace' && arg.A_Const?.sval?.sval === 'pg_catalog';
    const oid = isOid
      ? { TypeCast: { arg, typeName: { names: [str('bigint')], typemod: -1 } } }
      : pgCatalog
        ? {
            TypeCast: {
              arg: { A_Const: { ival: { ival: PG_CATALOG_OID } } },
              typeName: { names: [str('bigint')], typemod: -1 },
            },
          }
        : compat(`_${kind}_in`, [arg]);
    return display ? compat(`_${kind}_name`, [oid]) : oid;
  }
  let typeName = tn;
  // PostgreSQL parses `float` as float8; the original text would hand DuckDB its 4-byte FLOAT.
  if (ctx.floatSpelled && (type === 'float8' || type === 'float4')) ctx.changed = true;
  const mapped = TYPE_MAP[type];
  if (mapped) {
    const [base, arr] = mapped.endsWith('[]') ? [mapped.slice(0, -2), true] : [mapped, false];
    typeName = {
      ...tn,
      names: [str(base)],
      typmods: undefined,
      arrayBounds: arr || isArray ? [{ Integer: { ival: -1 } }] : undefined,
    };
    ctx.changed = true;
  } else if (
    parts.length === 2 &&
    parts[0] === 'pg_catalog' &&
    ![
      'int2',
      'int4',
      'int8',
      'float4',
      'float8',
      'bool',
      'numeric',
      'timestamptz',
      'timestamp',
      'date',
      'time',
      'timetz',
      'interval',
      'varchar',
      'bit',
      'varbit',
    ].includes(type)
  ) {
    typeName = { ...tn, names: [str(type)] };
    ctx.changed = true;
  }
  // `ARRAY[ARRAY['a','b'], …]::text[]`: PostgreSQL's `text[]` has any number of dimensions, DuckDB's VARCHAR[]
  // one: cast so, each inner list became its text (`{"[a, b]", …}`, silently). The constructor's depth says how many.
  const depth = isArray ? constructorDepth(arg) : 1;
  if (depth > 1) {
    typeName = { ...typeName, arrayBounds: Array.from({ length: depth }, () => ({ Integer: { ival: -1 } })) };
    ctx.changed = true;
  }
  const cast = { TypeCast: { ...tc, arg, typeName } };
  // a numeric read as float8/float4 from its decimal text, as PostgreSQL (DuckDB rounded twice)
  if ((type === 'float8' || type === 'float4') && !isArray) {
    const read = numericFloatCast(type, arg, cast);
    if (read !== cast) {
      ctx.changed = true;
      return read;
    }
  }
  // A jsonb value shown as a select-list item is jsonb (3802), though DuckDB holds it as JSON.
  if (type === 'jsonb' && !isArray && ctx.shown?.has(tc)) return typedAs('jsonb', cast);
  // `"char"` holds one byte (its input keeps the first); name and "char" are sent as themselves (19, 18)
  // where shown: asyncpg decodes "char" as bytes, pgjdbc reads a name column's type by its OID.
  if (type === 'char' && !isArray && parts.length <= 2 && !tn.typmods) {
    const first = call(['left'], [cast, { A_Const: { ival: { ival: 1 } } }]);
    return ctx.shown?.has(tc) ? typedAs('char', first) : first;
  }
  // varchar and oid are sent as themselves where shown (1043, 26): DuckDB holds them as VARCHAR and BIGINT
  if ((type === 'varchar' || type === 'oid') && !isArray && !tn.typmods && ctx.shown?.has(tc)) {
    ctx.changed = true;
    return typedAs(type, cast);
  }
  if (type !== 'name' || isArray) return cast;
  // a computed value or a parameter cut to a name's 63 bytes (a constant was cut above)
  const clipped = sval === undefined ? ((ctx.changed = true), dispatch('namein', [], [cast])!) : cast;
  return ctx.shown?.has(tc) ? typedAs('name', clipped) : clipped;
}

/** Types whose cast of a text constant cast to text reads the constant alone (`'…'::text::timestamptz`). */
const READ_THROUGH_TEXT: ReadonlySet<string> = new Set(['timestamptz', 'timestamp', 'date', 'numeric', 'decimal']);

/** `x`'s cast's target where `x` is a cast to text or varchar (of any length), else undefined. */
function textCastTarget(x: Node | undefined): string | undefined {
  const tn = x?.TypeCast?.typeName as Node | undefined;
  if (!tn || (Array.isArray(tn.arrayBounds) && tn.arrayBounds.length > 0)) return undefined;
  const type = names(tn.names).slice(-1)[0]?.toLowerCase();
  return type === 'text' || type === 'varchar' ? type : undefined;
}

/** The string constant of `'…'::text` (no typmod), else undefined. */
function constantThroughText(x: Node | undefined): Node | undefined {
  const inner = x?.TypeCast as Node | undefined;
  if (!textCastTarget(x) || inner!.typeName.typmods || inner!.arg?.A_Const?.sval?.sval === undefined) return undefined;
  return inner!.arg as Node;
}

/** A nonzero value the float type holds without overflow or underflow (outside it PostgreSQL raises 22003; DuckDB gave Infinity or 0). */
function inFloatRange(type: string, v: number): boolean {
  const a = Math.abs(v);
  if (type === 'float8') return Number.isFinite(v) && a >= 2.2250738585072014e-308;
  if (type === 'float4') return a >= 1.1754943508222875e-38 && a <= 3.4028234663852886e38;
  return false;
}

/** Dimensions of an ARRAY constructor whose elements are constructors too (1 for any other value). */
function constructorDepth(n: Node | undefined): number {
  const elements = n?.A_ArrayExpr?.elements as Node[] | undefined;
  if (!elements?.length || !elements.every((e) => e.A_ArrayExpr)) return 1;
  return 1 + Math.min(...elements.map(constructorDepth));
}
