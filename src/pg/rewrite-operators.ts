/** Operators in the rewrite: regex and LIKE spellings, ANY/ALL over array text, division, dates, JSON paths. */
import { SqlError, SQLSTATE } from '../errors.js';
import { widenedOperands } from './numeric-width.js';
import { castTo } from './parse-nodes.js';
import { COMPAT_DB } from './catalog/names.js';
import { MAX_PIPES_OPERANDS } from './pg-text-macros.js';
import { differsFromAll, equalsAny } from './array-membership.js';
import {
  aggregateDivision,
  rowDivision,
  concatWithNull,
  constantDivision,
  dateLike,
  dateMinus,
  hasAggregate,
} from './pg-result-types.js';
import { isLikeAny, jsonArrowCall, jsonPathOperator, likeAny } from './pg-operators.js';
import { floatModuloRefused } from './float-modulo.js';
import { guardedExtraction, unguarded, unsuspectConstant, type ArrowOperand } from './json-arrows.js';
import { checkedPower, guardDivisor, refuse, similarTo } from './pg-calls.js';
import { arrayConcat, betweenSymmetric, jsonKeyOperator } from './pg-forms.js';
import { jsonContainment } from './json-containment.js';
import { int4Constant, xorOperator } from './pg-spellings.js';
import { shownAvgArithmetic, shownAvgDivision, shownDivision } from './pg-shown-calls.js';
import {
  likeOf,
  literalLikeOther,
  timePlus,
  typedMinus,
  zonedLiteralBeside,
  zonedLiteralsAmong,
} from './typed-minus.js';
import { arithmeticLiteral } from './arithmetic-literals.js';
import { comparedLiteral, comparedLiteralsAmong } from './compared-literals.js';
import { textNumberItemsRefused, textNumberRefused } from './text-number-comparison.js';
import { float4Widened } from './float4-widening.js';
import { floatChecked, floatCheckedMinus, plainOf } from './float-range.js';
import { EXACT_NUMBER, knownAs, NOT_FLOAT } from './operand-types.js';
import { concatOperand } from './pg-text.js';
import { constantQuotient } from './constant-arithmetic.js';
import {
  call,
  compat,
  names,
  not,
  isRegCast,
  parseArrayText,
  str,
  strConst,
  typedAs,
  type Ctx,
  type Node,
} from './rewrite-nodes.js';
import { walk } from './rewrite-walk.js';
import { compareRows, ROW_COMPARISONS, rowArgs, rowInList, rowScalarSubLink } from './pg-rows.js';
import { re2Pattern } from './are-pattern.js';

const REGEX_OPS: Record<string, { negate: boolean; flags?: string }> = {
  '~': { negate: false },
  '~*': { negate: false, flags: 'i' },
  '!~': { negate: true },
  '!~*': { negate: true, flags: 'i' },
};
const LIKE_OPS: Record<string, { negate: boolean; fn: string }> = {
  '~~': { negate: false, fn: 'like_escape' },
  '!~~': { negate: true, fn: 'like_escape' },
  '~~*': { negate: false, fn: 'ilike_escape' },
  '!~~*': { negate: true, fn: 'ilike_escape' },
};

/** `x ~ p` (and ~*, !~, !~*) over rewritten operands: PostgreSQL's ~ searches, DuckDB's ~ must match the whole string. */
function regexMatch(op: string, lexpr: Node, rexpr: Node): Node {
  const { negate, flags } = REGEX_OPS[op]!;
  const pattern = rexpr?.A_Const?.sval?.sval;
  const re = typeof pattern === 'string' ? strConst(re2Pattern(pattern)) : rexpr;
  const m = call(['regexp_matches'], flags ? [lexpr, re, strConst(flags)] : [lexpr, re]);
  const exact = flags ? asciiCaseOnly(m, lexpr, rexpr) : m;
  return negate ? not(exact) : exact;
}

/**
 * `x ~ ANY (ARRAY[p, q])` (DuckDB's parser has no regular-expression ANY/ALL): one match per pattern
 * joined by OR (ALL: AND), whose NULL logic is PostgreSQL's ScalarArrayOpExpr's. The left side is
 * copied per pattern, so only a column or a constant is taken (a statement's size stays linear);
 * anything else, or patterns not listed as ARRAY[…], is refused.
 */
function regexAny(kind: 'AEXPR_OP_ANY' | 'AEXPR_OP_ALL', op: string, lexpr: Node, rexpr: Node): Node {
  // (ARRAY[…]::text[] lists its patterns too: each is matched as text)
  const patterns = (rexpr?.A_ArrayExpr ?? rexpr?.TypeCast?.arg?.A_ArrayExpr)?.elements as Node[] | undefined;
  const plain = (n: Node): boolean => !!n?.ColumnRef || !!n?.A_Const || (!!n?.TypeCast && plain(n.TypeCast.arg));
  const quantifier = kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL';
  if (!patterns || !plain(lexpr))
    throw refuse(
      `${op} ${quantifier} over ${patterns ? 'an expression' : 'an array that is not ARRAY[…]'}`,
      `Match a column or a constant against listed patterns, x ${op} ${quantifier} (ARRAY['a', 'b']), or write x ${op} 'a' ${kind === 'AEXPR_OP_ANY' ? 'OR' : 'AND'} x ${op} 'b'.`,
    );
  if (patterns.length === 0) return { A_Const: { boolval: { boolval: kind === 'AEXPR_OP_ALL' } } };
  const matches = patterns.map((p) => regexMatch(op, lexpr, p));
  return matches.length === 1
    ? matches[0]!
    : { BoolExpr: { boolop: kind === 'AEXPR_OP_ANY' ? 'OR_EXPR' : 'AND_EXPR', args: matches } };
}

/**
 * ILIKE as PostgreSQL's in the C locale the gateway reports (lc_ctype C): both sides lowered, ASCII
 * letters only, then LIKE (like.c's Generic_Text_IC_like). DuckDB's ILIKE folds all of Unicode: `'ÄBC'
 * ILIKE 'äbc'` was true, and the Kelvin sign matched k.
 */
function asciiIlike(x: Node, pattern: Node, escape: Node): Node {
  return call(['like_escape'], [compat('_pgsem_lower', [x]), compat('_pgsem_lower', [pattern]), escape]);
}

/** The two characters Unicode's case folding maps to ASCII letters: the Kelvin sign and the long s. */
const FOLDS_TO_ASCII = ['\u212A', '\u017F'];

/**
 * `x ~* p`: RE2's case-insensitive match folds all of Unicode; PostgreSQL's in the C locale only ASCII
 * letters. The two agree unless the subject holds a character folding to an ASCII letter, or both sides
 * hold non-ASCII characters (`'Ä' ~* 'ä'`: PostgreSQL false), or the pattern spells a character by its
 * code (`\x`, `\u`): those rows are refused (0A000) when they are reached, never answered otherwise.
 * Told by byte and character counts and plain searches: no regular expression per row.
 */
function asciiCaseOnly(match: Node, x: Node, pattern: Node): Node {
  const or = (args: Node[]): Node => ({ BoolExpr: { boolop: 'OR_EXPR', args } });
  const and = (args: Node[]): Node => ({ BoolExpr: { boolop: 'AND_EXPR', args } });
  const contains = (s: Node, what: string): Node => call(['contains'], [s, strConst(what)]);
  const nonAscii = (s: Node): Node => ({
    A_Expr: { kind: 'AEXPR_OP', name: [str('<>')], lexpr: call(['strlen'], [s]), rexpr: call(['length'], [s]) },
  });
  const text = pattern?.A_Const?.sval?.sval as string | undefined;
  const refusal = call(
    ['error'],
    [
      strConst(
        "a case-insensitive regular expression over characters outside ASCII (or spelled by their code) is not supported by fdl-gateway|PostgreSQL's C locale folds ASCII letters only, RE2 all of Unicode: write both cases of such a letter in the pattern ([Ää]) and match with ~.",
      ),
    ],
  );
  const spelledByCode = (p: string) => FOLDS_TO_ASCII.some((c) => p.includes(c)) || /\\[xuU]/.test(p);
  const conditions: Node[] = FOLDS_TO_ASCII.map((c) => contains(x, c));
  if (typeof text === 'string') {
    if (spelledByCode(text)) conditions.push({ A_Const: { boolval: { boolval: true } } });
    // eslint-disable-next-line no-control-regex
    else if (/[^\x00-\x7F]/.test(text)) conditions.push(nonAscii(x));
  } else {
    conditions.push(
      ...FOLDS_TO_ASCII.map((c) => contains(pattern, c)),
      ...['\\x', '\\u', '\\U'].map((c) => contains(pattern, c)),
      and([nonAscii(x), nonAscii(pattern)]),
    );
  }
  return { CaseExpr: { args: [{ CaseWhen: { expr: or(conditions), result: refusal } }], defresult: match } };
}

export function aExpr(orig: Node, expr: Node, ctx: Ctx): Node {
  jsonComparisonRefused(expr);
  const out = operatorExpr(expr, ctx);
  // `jsonb -> k`, `jsonb #> p` shown as a select-list item: jsonb (3802), though DuckDB holds it as JSON.
  if (ctx.shown?.has(expr) && expr.kind === 'AEXPR_OP' && jsonbOperand({ A_Expr: expr })) {
    ctx.changed = true;
    return typedAs('jsonb', out);
  }
  return out;
}

/** Whether a node is syntactically jsonb: a cast to jsonb, or `->`/`#>` of one. */
function jsonbOperand(n: Node | undefined): boolean {
  const tc = n?.TypeCast as Node | undefined;
  if (tc) return names(tc.typeName?.names).slice(-1)[0] === 'jsonb' && !tc.typeName?.arrayBounds?.length;
  const e = n?.A_Expr as Node | undefined;
  const op = e ? names(e.name).slice(-1)[0] : undefined;
  return e?.kind === 'AEXPR_OP' && (op === '->' || op === '#>') && jsonbOperand(e.lexpr);
}

const COMPARISONS: ReadonlySet<string> = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);

/** Whether a node is syntactically json (not jsonb): a cast to json. */
const jsonCast = (n: Node | undefined): boolean => {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return !!tn && names(tn.names).slice(-1)[0] === 'json' && !tn.arrayBounds?.length;
};

/**
 * `x::json = y`: PostgreSQL's json has no comparison operators (42883); DuckDB's JSON compared the texts
 * and answered. Refused where an operand is written as a json cast.
 */
function jsonComparisonRefused(e: Node): void {
  const op = names(e.name as Node[] | undefined).slice(-1)[0] ?? '';
  if (e.kind !== 'AEXPR_OP' || !COMPARISONS.has(op)) return;
  const [l, r] = [e.lexpr as Node | undefined, e.rexpr as Node | undefined];
  if (!jsonCast(l) && !jsonCast(r)) return;
  const typeOf = (n: Node | undefined) => (jsonCast(n) ? 'json' : n?.A_Const?.sval ? 'unknown' : undefined);
  const [lt, rt] = [typeOf(l), typeOf(r)];
  throw new SqlError(
    SQLSTATE.undefinedFunction,
    lt && rt
      ? `operator does not exist: ${lt} ${op} ${rt}`
      : `operator does not exist: json ${op} (a json value has no comparison operators)`,
    undefined,
    'PostgreSQL compares json values only as jsonb or as text: cast both sides (x::jsonb = y::jsonb, x::text = y::text).',
  );
}

/** `x IN (…)` and `x [NOT] BETWEEN … AND …`: their right operand is a list of items each compared with x. */
const inOrBetween = (kind: unknown) =>
  kind === 'AEXPR_IN' || String(kind).startsWith('AEXPR_BETWEEN') || String(kind).startsWith('AEXPR_NOT_BETWEEN');

/** Types whose input function changes a string constant (pg-input.ts): an oid's range, a "char"'s first byte, a name's 63 bytes. */
const INPUT_READ_TYPES: ReadonlySet<string> = new Set(['oid', 'char', 'name']);

/**
 * `1::oid = '4294967296'`, `'r'::"char" = 'rx'`: PostgreSQL reads a string constant compared with a value
 * written as one of INPUT_READ_TYPES with that type's input (22003; `'r'`); DuckDB compared the text or a
 * BIGINT. The comparison with the constant cast so, or undefined.
 */
function untypedReadAsCast(e: Node): Node | undefined {
  const castType = (n: Node | undefined) => {
    const tn = n?.TypeCast?.typeName as Node | undefined;
    const type = tn && !tn.arrayBounds?.length && !tn.typmods ? names(tn.names).slice(-1)[0] : undefined;
    return type !== undefined && INPUT_READ_TYPES.has(type) ? (tn as Node) : undefined;
  };
  const untyped = (n: Node | undefined) => n?.A_Const?.sval !== undefined;
  const [l, r] = [castType(e.lexpr), castType(e.rexpr)];
  if (l && untyped(e.rexpr)) return { ...e, rexpr: { TypeCast: { arg: e.rexpr, typeName: l } } };
  if (r && untyped(e.lexpr)) return { ...e, lexpr: { TypeCast: { arg: e.lexpr, typeName: r } } };
  return undefined;
}

/** Whether a node is written as a char(n) value (`x::char(3)`, `'a'::bpchar`): the rewrite holds it without its padding. */
function isBpchar(n: Node | undefined): boolean {
  const tn = n?.TypeCast?.typeName as Node | undefined;
  return !!tn && names(tn.names).slice(-1)[0] === 'bpchar' && !tn.arrayBounds?.length;
}

/** A string constant without its trailing spaces (bpchar's comparison semantics); anything else as it is. */
function unpadded(n: Node): Node {
  const sval = n?.A_Const?.sval?.sval as string | undefined;
  return typeof sval === 'string' && / +$/.test(sval)
    ? { A_Const: { ...n.A_Const, sval: { sval: sval.replace(/ +$/, '') } } }
    : n;
}

/** Whether a walked operand is known to be of a type `types` accepts where it stands (operand-types.ts). */
const known =
  (types: RegExp, ctx: Ctx) =>
  (n: Node): boolean =>
    knownAs(types, n, ctx.columnScope, () => (ctx.operandTypes = true));

// An integer beside a column in a comparison (=, <>, <, >, <=, >=, BETWEEN, IN) is passed through
// whatever its value: rewrite-shapes.ts shares one rewrite between texts differing only in those.
function operatorExpr(expr: Node, ctx: Ctx): Node {
  const op = names(expr.name).slice(-1)[0] ?? '';
  // OPERATOR(pg_catalog.=) is the built-in = (psql and pg_dump spell operators so): DuckDB knows it unqualified.
  const qualified = names(expr.name).length === 2 && names(expr.name)[0] === 'pg_catalog';
  if (qualified) ctx.changed = true;
  const e = qualified ? { ...expr, name: [str(op)] } : expr;
  // PostgreSQL's prefix square and cube root operators (float8 only): DuckDB has no such operators
  if (e.kind === 'AEXPR_OP' && !e.lexpr && (op === '|/' || op === '||/')) {
    ctx.changed = true;
    return walk(call([op === '|/' ? 'sqrt' : 'cbrt'], [castTo(e.rexpr, 'float8')]), ctx, false) as Node;
  }
  const rowForm = rowComparison(e, op);
  if (rowForm) {
    ctx.changed = true;
    return walk(rowForm, ctx, false) as Node;
  }
  const typed = e.kind === 'AEXPR_OP' && COMPARISONS.has(op) ? untypedReadAsCast(e) : undefined;
  if (typed) {
    ctx.changed = true;
    return operatorExpr(typed, ctx);
  }
  // LIKE reads a char(n) or bpchar value with its trailing spaces (PostgreSQL's bpcharlike is textlike)
  const likeOperand = (e.kind === 'AEXPR_LIKE' || e.kind === 'AEXPR_ILIKE' || !!LIKE_OPS[op]) && isBpchar(e.lexpr);
  // `||` reads a reg* value by its output function, the name (`'int4'::regtype || 'x'` is `integerx`, not the OID's digits)
  const regText = (n: Node | undefined) => e.kind === 'AEXPR_OP' && op === '||' && isRegCast(n);
  let lexpr = walk(e.lexpr, ctx, likeOperand || regText(e.lexpr)) as Node;
  let rexpr = walk(e.rexpr, ctx, regText(e.rexpr)) as Node;
  const widened = e.kind === 'AEXPR_OP' && e.lexpr ? float4Widened(op, e.lexpr, e.rexpr, lexpr, rexpr) : undefined;
  if (widened) {
    ctx.changed = true;
    [lexpr, rexpr] = widened;
    // (a division goes on to its zero check below; the rest are DuckDB's DOUBLE operators, checked as float8's)
    if (op !== '/') return floatChecked(op, lexpr, rexpr) ?? { A_Expr: { ...e, lexpr, rexpr } };
  }
  if (e.kind === 'AEXPR_SIMILAR') {
    ctx.changed = true;
    return similarTo(lexpr, rexpr, op === '!~');
  }
  if (e.kind === 'AEXPR_OP' && COMPARISONS.has(op) && (isBpchar(e.lexpr) || isBpchar(e.rexpr))) {
    // A string constant beside a char(n) is read as bpchar, whose comparison ignores trailing spaces.
    const [l, r] = [unpadded(lexpr), unpadded(rexpr)];
    if (l !== lexpr || r !== rexpr) {
      ctx.changed = true;
      [lexpr, rexpr] = [l, r];
    }
  }
  if (e.kind === 'AEXPR_IN' && isBpchar(e.lexpr) && rexpr?.List) {
    ctx.changed = true;
    rexpr = { List: { items: (rexpr.List.items as Node[]).map(unpadded) } };
  }
  const zoned = e.kind === 'AEXPR_OP' && COMPARISONS.has(op) && e.lexpr ? zonedLiteralBeside(lexpr, rexpr) : undefined;
  if (zoned) {
    ctx.changed = true;
    [lexpr, rexpr] = zoned;
  }
  // `x BETWEEN '…' AND '…'`, `x IN ('…', …)`: each bound or item beside x as in a comparison
  const listItems = () => (inOrBetween(e.kind) && rexpr?.List ? (rexpr.List.items as Node[]) : undefined);
  const zonedItems = listItems() && zonedLiteralsAmong(lexpr, listItems()!);
  if (zonedItems) {
    ctx.changed = true;
    rexpr = { List: { items: zonedItems } };
  }
  if (e.kind === 'AEXPR_OP' && COMPARISONS.has(op)) textNumberRefused(op, e.lexpr, e.rexpr);
  if (inOrBetween(e.kind) && e.rexpr?.List) textNumberItemsRefused(e.kind, e.lexpr, e.rexpr.List.items as Node[]);
  const compared = e.kind === 'AEXPR_OP' && COMPARISONS.has(op) && e.lexpr ? comparedLiteral(lexpr, rexpr) : undefined;
  if (compared) {
    ctx.changed = true;
    [lexpr, rexpr] = compared;
  }
  const comparedItems = listItems() && comparedLiteralsAmong(lexpr, listItems()!);
  if (comparedItems) {
    ctx.changed = true;
    rexpr = { List: { items: comparedItems } };
  }
  const literalRead = e.kind === 'AEXPR_OP' && e.lexpr ? arithmeticLiteral(op, lexpr, rexpr) : undefined;
  if (literalRead) {
    ctx.changed = true;
    [lexpr, rexpr] = literalRead;
  }
  const likeOther = e.kind === 'AEXPR_OP' && op === '-' && e.lexpr ? literalLikeOther(lexpr, rexpr) : undefined;
  if (likeOther) {
    ctx.changed = true;
    [lexpr, rexpr] = likeOther;
  }
  const plusTime =
    e.kind === 'AEXPR_OP' && op === '+' && e.lexpr ? timePlus(e.lexpr, e.rexpr, lexpr, rexpr) : undefined;
  if (plusTime) {
    ctx.changed = true;
    return plusTime;
  }
  // (over the sides' plain arithmetic: a checked float tree goes on through the typed minus, float-range.ts)
  // (two exact numbers: DuckDB's `-` is the typed minus' own choice)
  const exact = known(EXACT_NUMBER, ctx);
  const minus =
    e.kind === 'AEXPR_OP' && op === '-' && e.lexpr && !(exact(lexpr) && exact(rexpr))
      ? dateLike(lexpr) || dateLike(rexpr)
        ? dateMinus(plainOf(lexpr), plainOf(rexpr))
        : typedMinus(plainOf(lexpr), plainOf(rexpr))
      : undefined;
  if (minus) {
    ctx.changed = true;
    return floatCheckedMinus(lexpr, rexpr, minus, known(NOT_FLOAT, ctx));
  }
  const symmetric = rexpr?.List ? betweenSymmetric(e.kind, lexpr, rexpr.List.items as Node[]) : undefined;
  if (symmetric) {
    ctx.changed = true;
    return symmetric;
  }
  const jsonKey = e.kind === 'AEXPR_OP' && e.lexpr ? jsonKeyOperator(op, lexpr, rexpr) : undefined;
  if (jsonKey) {
    ctx.changed = true;
    return jsonKey;
  }
  const contained =
    e.kind === 'AEXPR_OP' && e.lexpr ? jsonContainment(op, [e.lexpr, e.rexpr], lexpr, rexpr) : undefined;
  if (contained) {
    ctx.changed = true;
    return contained;
  }
  // jsonb || jsonb merges objects and arrays in PostgreSQL; DuckDB's JSON is text, and `||` would join the texts.
  if (e.kind === 'AEXPR_OP' && op === '||' && e.lexpr && (isJsonbCast(e.lexpr) || isJsonbCast(e.rexpr)))
    throw refuse(
      'jsonb || jsonb',
      "PostgreSQL's jsonb concatenation (merging objects, joining arrays) is not emulated: build the value with json_build_object or json_build_array, or concatenate text with ::text on both sides.",
    );
  const listed = e.kind === 'AEXPR_OP' && op === '||' && e.lexpr ? arrayConcat(lexpr, rexpr) : undefined;
  if (listed) {
    ctx.changed = true;
    return listed;
  }
  if (e.kind === 'AEXPR_OP' && op === '||' && e.lexpr) {
    const typed = concatWithNull({ A_Expr: { ...e, lexpr, rexpr } }, lexpr, rexpr);
    if (typed) {
      ctx.changed = true;
      return typed;
    }
    // Each side that is not a list cast to text as PostgreSQL's anytextcat does (pg-text.ts).
    const l = concatOperand(lexpr, (ctx.untypedText ?? 0) > 0);
    const r = concatOperand(rexpr, (ctx.untypedText ?? 0) > 0);
    const chain = pipesChain(l, r);
    if (chain) {
      ctx.changed = true;
      return chain;
    }
    if (l !== lexpr || r !== rexpr) {
      ctx.changed = true;
      return { A_Expr: { ...e, lexpr: l, rexpr: r } };
    }
  }
  if (e.kind === 'AEXPR_OP' && op === '^' && e.lexpr) {
    const pow: Node = { A_Expr: { ...e, lexpr, rexpr } };
    const checked = checkedPower(pow, lexpr, rexpr);
    if (checked !== pow) {
      ctx.changed = true;
      return checked;
    }
  }
  if (e.kind === 'AEXPR_OP' && op === '#' && e.lexpr) {
    ctx.changed = true;
    return xorOperator(lexpr, rexpr);
  }
  if (e.kind === 'AEXPR_OP' && (op === '+' || op === '-' || op === '*') && lexpr && rexpr) {
    // past 18 digits DuckDB's 64-bit DECIMAL overflows where numeric answers: a constant at 19 digits (numeric-width.ts)
    const wide = widenedOperands(lexpr, rexpr);
    if (wide) {
      ctx.changed = true;
      [lexpr, rexpr] = wide;
    }
  }
  if (e.kind === 'AEXPR_OP' && (op === '+' || op === '-' || op === '*') && lexpr && rexpr && ctx.shown?.has(e)) {
    const typed = avgArithmetic(op, e, lexpr, rexpr, ctx);
    if (typed) {
      ctx.changed = true;
      return typed;
    }
  }
  if (e.kind === 'AEXPR_OP' && (op === '+' || op === '-' || op === '*') && lexpr && rexpr) {
    // An integer constant beside an expression is int4 in PostgreSQL; DuckDB narrows it to the other side's type.
    const l4 = rexpr.A_Const ? lexpr : int4Constant(lexpr);
    const r4 = lexpr.A_Const ? rexpr : int4Constant(rexpr);
    // a float result checked for overflow and underflow as PostgreSQL's float8 operators (float-range.ts)
    const checked = floatChecked(op, l4, r4, known(NOT_FLOAT, ctx));
    if (checked || l4 !== lexpr || r4 !== rexpr) {
      ctx.changed = true;
      return checked ?? { A_Expr: { ...e, lexpr: l4, rexpr: r4 } };
    }
  }
  if (e.kind === 'AEXPR_OP' && (op === '#>' || op === '#>>') && e.lexpr) {
    ctx.changed = true;
    return guardedExtraction(op, jsonPathOperator(op, lexpr, rexpr), arrowOperand(e, lexpr, ctx));
  }
  if (e.kind === 'AEXPR_OP' && op === '/' && e.lexpr) {
    const folded = constantDivision(e.lexpr, e.rexpr) ?? constantQuotient(e.lexpr, e.rexpr);
    if (folded) {
      ctx.changed = true;
      return folded;
    }
  }
  if (e.kind === 'AEXPR_OP' && op === '%' && e.lexpr) floatModuloRefused(e.lexpr, e.rexpr);
  if (e.kind === 'AEXPR_OP' && (op === '/' || op === '%') && e.lexpr) {
    const guarded = guardDivisor(rexpr);
    if (guarded !== rexpr) ctx.changed = true;
    const typed =
      op !== '/'
        ? undefined
        : hasAggregate(e.lexpr) || hasAggregate(e.rexpr)
          ? ((ctx.shown?.has(e)
              ? (avgDivision(e, lexpr, guarded, ctx) ?? shownDivision(lexpr, guarded, ctx.ordered === true))
              : undefined) ?? aggregateDivision(lexpr, guarded))
          : rowDivision(lexpr, guarded);
    if (typed) {
      ctx.changed = true;
      return typed;
    }
    return { A_Expr: { ...e, lexpr, rexpr: guarded } };
  }
  // A prefix ~ (no left side) is bitwise NOT, which DuckDB spells the same.
  if (e.kind === 'AEXPR_OP' && REGEX_OPS[op] && e.lexpr) {
    ctx.changed = true;
    return regexMatch(op, lexpr, rexpr);
  }
  const escaped = (e.rexpr as Node | undefined)?.FuncCall as Node | undefined;
  if (
    (e.kind === 'AEXPR_LIKE' || e.kind === 'AEXPR_ILIKE') &&
    LIKE_OPS[op] &&
    escaped &&
    names(escaped.funcname).slice(-1)[0] === 'like_escape' &&
    (escaped.args as Node[] | undefined)?.length === 2
  ) {
    // `x LIKE p ESCAPE e` parses as x ~~ like_escape(p, e): DuckDB's like_escape takes all three.
    const { negate, fn } = LIKE_OPS[op]!;
    ctx.changed = true;
    const [pattern, escape] = (escaped.args as Node[]).map((a) => walk(a, ctx, false) as Node);
    const escapeText = escape?.A_Const?.sval?.sval as string | undefined;
    // ILIKE lowers the pattern after its escapes are read: an escape a letter would be lowered with it
    if (fn === 'ilike_escape' && (typeof escapeText !== 'string' || /[A-Za-z]/.test(escapeText)))
      throw refuse(
        'ILIKE … ESCAPE with an escape that is a letter or not a constant',
        "Escape with a character that is not a letter (ESCAPE '!'), or write lower(x) LIKE lower(p) ESCAPE e.",
      );
    const m = fn === 'ilike_escape' ? asciiIlike(lexpr, pattern!, escape!) : call([fn], [lexpr, pattern!, escape!]);
    return negate ? not(m) : m;
  }
  // `x ~~ p` is LIKE spelled as its operator (AEXPR_OP), with the same default escape.
  const likeKind = e.kind === 'AEXPR_LIKE' || e.kind === 'AEXPR_ILIKE' || (e.kind === 'AEXPR_OP' && !!e.lexpr);
  if (likeKind && LIKE_OPS[op] && !rexpr?.FuncCall) {
    // PostgreSQL's LIKE escapes with backslash by default (pgjdbc sends 'a\_b'); DuckDB's has no escape.
    const { negate, fn } = LIKE_OPS[op]!;
    ctx.changed = true;
    const m =
      fn === 'ilike_escape' ? asciiIlike(lexpr, rexpr, strConst('\\')) : call([fn], [lexpr, rexpr, strConst('\\')]);
    return negate ? not(m) : m;
  }
  if (e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') {
    // ANY('{r,p,f}'): PostgreSQL reads the text as an array of the left side's type.
    const elems = typeof rexpr?.A_Const?.sval?.sval === 'string' ? parseArrayText(rexpr.A_Const.sval.sval) : undefined;
    if (elems) {
      ctx.changed = true;
      // Each element read as x's type, as PostgreSQL types the array (`qty = ANY('{7.5}')` is 22P02).
      const items = elems.map((x) =>
        x === null ? { A_Const: { isnull: true } } : (likeOf(lexpr, strConst(x)) ?? strConst(x)),
      );
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
    // list_contains alone skips NULL elements: array-membership.ts keeps PostgreSQL's three values.
    ctx.changed = true;
    return e.kind === 'AEXPR_OP_ANY' ? equalsAny(rexpr, lexpr) : differsFromAll(rexpr, lexpr);
  }
  if ((e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') && REGEX_OPS[op]) {
    ctx.changed = true;
    return regexAny(e.kind, op, lexpr, rexpr);
  }
  if (e.kind === 'AEXPR_OP_ANY' || e.kind === 'AEXPR_OP_ALL') return { A_Expr: { ...e, lexpr, rexpr } };
  const arrow = e.kind === 'AEXPR_OP' && e.lexpr ? jsonArrowCall(op, lexpr, rexpr) : undefined;
  if (arrow) {
    ctx.changed = true;
    return guardedExtraction(op, arrow, arrowOperand(e, lexpr, ctx));
  }
  // `j ->> 'k' = 'open'`: equal for DuckDB's text exactly where for PostgreSQL's (json-arrows.ts), unguarded
  if (e.kind === 'AEXPR_OP' && (op === '=' || op === '<>' || op === '!=')) {
    const l = unsuspectConstant(rexpr) ? unguarded(lexpr) : lexpr;
    const r = unsuspectConstant(lexpr) ? unguarded(rexpr) : rexpr;
    if (l !== lexpr || r !== rexpr) {
      lexpr = l;
      rexpr = r;
    }
  }
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

/**
 * `a || b || c …` (left-deep, as written without parentheses) as one `_pgsem_pipes(a, b, c, …)`
 * (pg-text-macros.ts): DuckDB holds every binary `||`'s output; the n-ary call holds one result. `l` is
 * the chain so far, already rewritten. Past MAX_PIPES_OPERANDS the chain goes on as binary `||` after
 * the call, as before: a chain is never an operand of a call, which names it twice, and a long chain
 * stays as deep as written, which admission bounds (analysis/expression-work.ts).
 */
function pipesChain(l: Node, r: Node): Node | undefined {
  // a parenthesized chain on the right stays an operand of a binary `||`, as before (named twice by its guard)
  if (isChain(r)) return undefined;
  // a chain that reads no row is folded by DuckDB into one constant, which every row shares; the call, not
  // folded (its guard's lambda), built each row's value: 200 rows of an 8-term chain of 250 KB constants held
  // 400 MB more (ceilings.test.ts › huge rows)
  if (!readsRows(l) && !readsRows(r)) return undefined;
  if (pipesWithRoom(l)) return pipes([...(l.FuncCall!.args as Node[]), r]);
  const pair = binaryPipe(l);
  return pair && !isChain(pair[0]) && !isChain(pair[1]) ? pipes([...pair, r]) : undefined;
}
/** Whether a value may differ from row to row: it names a column or holds a subquery. */
function readsRows(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(readsRows);
  if (!n || typeof n !== 'object') return false;
  const node = n as Node;
  return node.ColumnRef !== undefined || node.SubLink !== undefined || Object.values(node).some(readsRows);
}
const isPipesCall = (n: Node): boolean =>
  (n.FuncCall?.funcname as Node[] | undefined)?.map((x) => x.String?.sval).join('.') === PIPES;
const pipesWithRoom = (n: Node): boolean => isPipesCall(n) && (n.FuncCall!.args as Node[]).length < MAX_PIPES_OPERANDS;
/** `[a, b]` of a plain binary `a || b` (not OPERATOR(pg_catalog.||)). */
function binaryPipe(n: Node): [Node, Node] | undefined {
  const e = n.A_Expr;
  if (e?.kind !== 'AEXPR_OP' || !e.lexpr || (e.name as Node[]).length !== 1) return undefined;
  return (e.name as Node[])[0]?.String?.sval === '||' ? [e.lexpr as Node, e.rexpr as Node] : undefined;
}
const isChain = (n: Node): boolean => isPipesCall(n) || binaryPipe(n) !== undefined;
const pipes = (args: Node[]): Node => ({
  FuncCall: {
    funcname: PIPES.split('.').map((sval) => ({ String: { sval } })),
    args,
    funcformat: 'COERCE_EXPLICIT_CALL',
  },
});
const PIPES = `${COMPAT_DB}.pgcat._pgsem_pipes`;

/** A comparison of row constructors (`(a, b) = (1, NULL)`, `(a, b) IN ((…), …)`, `(a, b) < (SELECT …)`): pg-rows.ts. */
function rowComparison(e: Node, op: string): Node | undefined {
  const l = rowArgs(e.lexpr as Node | undefined);
  if (!l) return undefined;
  const r = e.rexpr as Node | undefined;
  if (e.kind === 'AEXPR_OP' && ROW_COMPARISONS.has(op)) {
    const fields = rowArgs(r);
    if (fields) return compareRows(op, l, fields);
    if (r?.SubLink?.subLinkType === 'EXPR_SUBLINK') return rowScalarSubLink(op, l, r.SubLink.subselect as Node);
  }
  if (e.kind === 'AEXPR_IN' && r?.List) return rowInList(l, r.List.items as Node[], op === '<>');
  return undefined;
}

const isAvg = (n: Node | undefined) => {
  const fc = n?.FuncCall as Node | undefined;
  const parts = names(fc?.funcname);
  return !!fc && parts.slice(-1)[0] === 'avg' && (parts.length === 1 || parts[0] === 'pg_catalog') && !fc.over;
};

/** `avg(x) op b` or `b op avg(x)` (op `*`, `+`, `-`; one side a plain avg call) as an outermost item: on avg's numeric. */
function avgArithmetic(op: '*' | '+' | '-', e: Node, l: Node, r: Node, ctx: Ctx): Node | undefined {
  const avgFirst = isAvg(e.lexpr);
  if (avgFirst === isAvg(e.rexpr)) return undefined;
  const fc = (avgFirst ? e.lexpr : e.rexpr).FuncCall as Node;
  const call: Node = { ...fc, args: walk(fc.args, ctx, false) };
  if (fc.agg_filter) call.agg_filter = walk(fc.agg_filter, ctx, false);
  // an integer constant is int4 in PostgreSQL (DuckDB would narrow it to the avg's side)
  const other = int4Constant(avgFirst ? r : l);
  return shownAvgArithmetic(op, avgFirst, call, avgFirst ? l : r, other);
}

/** `avg(x) / b` or `b / avg(x)` (one side a plain avg call) as an outermost item: shown as PostgreSQL divides avg's numeric. */
function avgDivision(e: Node, l: Node, r: Node, ctx: Ctx): Node | undefined {
  const avgFirst = isAvg(e.lexpr);
  if (!avgFirst && !isAvg(e.rexpr)) return undefined;
  const fc = (avgFirst ? e.lexpr : e.rexpr).FuncCall as Node;
  const call: Node = { ...fc, args: walk(fc.args, ctx, false) };
  if (fc.agg_filter) call.agg_filter = walk(fc.agg_filter, ctx, false);
  return shownAvgDivision(avgFirst, call, avgFirst ? l : r, avgFirst ? r : l);
}

/** The left side of an arrow, as json-arrows.ts guards its member. */
function arrowOperand(e: Node, lexpr: Node, ctx: Ctx): ArrowOperand {
  let base = e.lexpr as Node | undefined;
  while (base?.A_Expr?.kind === 'AEXPR_OP' && ['->', '#>'].includes(names(base.A_Expr.name).slice(-1)[0]!))
    base = base.A_Expr.lexpr as Node | undefined;
  return {
    value: lexpr,
    jsonb: jsonbOperand(e.lexpr),
    normalized: isJsonbCast(base) && base?.TypeCast?.arg?.A_Const?.sval !== undefined,
    shown: ctx.shown?.has(e) === true,
  };
}

/** `x::jsonb` (or `CAST(x AS jsonb)`): a jsonb value as the client's text names it. */
function isJsonbCast(n: Node | undefined): boolean {
  const names = (n?.TypeCast?.typeName as Node | undefined)?.names as Node[] | undefined;
  return String(names?.[names.length - 1]?.String?.sval).toLowerCase() === 'jsonb';
}
