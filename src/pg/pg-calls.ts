/**
 * PostgreSQL meanings DuckDB spells differently, applied to PostgreSQL parse-tree nodes by rewrite.ts:
 * each function returns the node DuckDB must run to give PostgreSQL 15's answer, or throws a precise
 * refusal where no faithful translation exists (never a silently different answer).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { exactDecimal, exactWithin38, MAX_DECIMAL_DIGITS, type ExactDecimal } from './numeric-literal.js';

import { call, concatOf, castTo, coalesce, intConst, str, strConst, type Node } from './parse-nodes.js';
import { outputText } from './pg-text.js';
import { markOwnWidth } from './numeric-width.js';
import { dispatch } from './pg-result-types.js';
import { floatCheckedPower } from './float-range.js';

/** Functions PostgreSQL returns a set from but DuckDB a list: in a select list they are unnested. */
export const LIST_SRF_IN_SELECT = new Set(['generate_series']);

/** `generate_series(…)` in a select list: PostgreSQL yields one row per value, DuckDB one list. */
export function unnestSrf(fc: Node): Node {
  return call('unnest', [{ FuncCall: fc }]);
}

/** The exact decimal of a constant node (an integer, a decimal, or a string spelling one), exponent forms included. */
function numericLiteral(n: Node | undefined): ExactDecimal | undefined {
  const c = n?.A_Const as Node | undefined;
  if (!c) return undefined;
  if (c.ival) return exactDecimal(String(c.ival.ival ?? 0));
  if (c.fval) return exactDecimal(String(c.fval.fval));
  const s = c.sval?.sval;
  return typeof s === 'string' ? exactDecimal(s) : undefined;
}

/** Whether a node is a constant PostgreSQL would reject as a zero divisor (0, 0.0, '0'). */
export function constantZero(n: Node | undefined): boolean | undefined {
  const v = numericLiteral(n);
  return v === undefined ? undefined : Number(v.plain) === 0;
}

/**
 * `numeric` / `decimal` without a typmod: PostgreSQL keeps a constant's exact digits, DuckDB casts to
 * DECIMAL(18,3). A constant gets DECIMAL(38, its own scale); beyond 38 digits the cast is refused.
 * Other values keep DuckDB's cast (documented in docs/compatibility.md).
 */
export function numericCast(tc: Node, arg: Node): Node | undefined {
  const spelled = numericLiteral(tc.arg);
  if (spelled === undefined) return undefined;
  return exactNumeric(spelled, arg, String(tc.arg?.A_Const?.fval?.fval ?? tc.arg?.A_Const?.sval?.sval ?? ''));
}

/**
 * A numeric constant as DECIMAL(its digits, its PostgreSQL scale): an exponent form is cast from its plain
 * decimal text (DuckDB would read `6.02e23` as a DOUBLE, `'1e-4'` at scale 3); beyond 38 digits, 0A000.
 * The width is the value's own, not 38: DuckDB's common type of DECIMAL(38,0) and a fraction keeps the 38
 * whole digits and rounds the fraction away (`1::numeric UNION ALL 2.5` answered 3).
 */
export function exactNumeric(value: ExactDecimal, arg: Node, spelled: string): Node {
  const exact = exactWithin38(value, spelled);
  return markOwnWidth(
    castTo(exact.exponent ? strConst(exact.plain) : arg, 'decimal', [
      intConst(Math.min(MAX_DECIMAL_DIGITS, Math.max(exact.wholeDigits, 1) + exact.scale)),
      intConst(exact.scale),
    ]),
  );
}

/** A bare constant with an exponent (`1e-4`): numeric in PostgreSQL, a DOUBLE in DuckDB. */
export function exponentConstant(c: Node): Node | undefined {
  const text = c.fval?.fval;
  if (typeof text !== 'string' || !/e/i.test(text)) return undefined;
  const value = exactDecimal(text);
  return value ? exactNumeric(value, { A_Const: c }, text) : undefined;
}

/**
 * `x::char(n)` / `x::varchar(n)`: PostgreSQL truncates to n characters and pads char(n) with spaces
 * when shown; DuckDB ignores the length. Compared, char(n) ignores the padding (PostgreSQL's bpchar).
 */
export function lengthCast(type: string, n: number, arg: Node, display: boolean): Node {
  const cut = call('left', [castTo(arg, 'varchar'), intConst(n)]);
  if (type === 'varchar') return cut;
  return display ? call('rpad', [cut, intConst(n), strConst(' ')]) : call('rtrim', [cut]);
}

/**
 * `a ^ b`, `power(a, b)`: PostgreSQL raises 2201F for a negative base with a fractional exponent and for
 * zero to a negative power; DuckDB answered NaN and infinity. `pow` is the walked call, a and b its operands.
 */
export function checkedPower(pow: Node, a: Node, b: Node): Node {
  const checked = powerChecked(pow, a, b);
  // and overflow or underflow of a float power (dpow), 22003 as PostgreSQL's (float-range.ts)
  return floatCheckedPower(dispatch('npow', [a, b], [checked, strConst('power')]) ?? checked, a, b);
}

function powerChecked(pow: Node, a: Node, b: Node): Node {
  const num = (n: Node): number | undefined => {
    const c = n.A_Const;
    return c?.ival ? Number(c.ival.ival ?? 0) : c?.fval ? Number(c.fval.fval) : undefined;
  };
  const [x, y] = [num(a), num(b)];
  if (x !== undefined && y !== undefined && (x > 0 || (Number.isInteger(y) && (x < 0 || y >= 0)))) return pow;
  const op = (name: string, l: Node, r: Node): Node => ({
    A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr: l, rexpr: r },
  });
  const and = (l: Node, r: Node): Node => ({ BoolExpr: { boolop: 'AND_EXPR', args: [l, r] } });
  const when = (expr: Node, message: string): Node => ({
    CaseWhen: { expr, result: call('error', [strConst(message)]) },
  });
  return {
    CaseExpr: {
      args: [
        when(
          and(op('<', a, intConst(0)), op('<>', b, call('trunc', [b]))),
          'a negative number raised to a non-integer power yields a complex result',
        ),
        when(and(op('=', a, intConst(0)), op('<', b, intConst(0))), 'zero raised to a negative power is undefined'),
      ],
      defresult: pow,
    },
  };
}

/**
 * `a / b`, `a % b`: PostgreSQL raises 22012 on a zero divisor, DuckDB answers NULL. The divisor is
 * checked unless it is a non-zero constant or a bare parameter ($1 is typed after the dividend). DuckDB's error() has side effects, so it is never folded.
 */
export function guardDivisor(divisor: Node): Node {
  // A parameter divisor is left as is: PostgreSQL infers its type from the dividend, a check would not.
  if (constantZero(divisor) === false || divisor.ParamRef) return divisor;
  return {
    CaseExpr: {
      args: [
        {
          CaseWhen: {
            expr: { A_Expr: { kind: 'AEXPR_OP', name: [str('=')], lexpr: divisor, rexpr: intConst(0) } },
            result: call('error', [strConst('division by zero')]),
          },
        },
      ],
      defresult: divisor,
    },
  };
}

/**
 * PostgreSQL's format(fmt, …) with a constant fmt → concatenation DuckDB runs: %s (NULL as ''),
 * %I (quoted identifier), %L (quoted literal, NULL as NULL), %%, and positions (%2$s). Width and
 * `*` are refused; so is a format string that is not a constant.
 */
export function formatCall(args: Node[], compat: (fn: string, args: Node[]) => Node, untyped: boolean): Node {
  const fmt = args[0]?.A_Const?.sval?.sval;
  if (typeof fmt !== 'string') {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'format() with a format string that is not a constant is not supported by fdl-gateway',
      undefined,
      'Write the format string as a literal, or build the text with || or concat().',
    );
  }
  const values = args.slice(1);
  const parts: Node[] = [];
  let next = 0;
  let literal = '';
  const re = /%(?:(\d+)\$)?([-0-9*]*)([sIL%])|%/g;
  let last = 0;
  for (let m = re.exec(fmt); m; m = re.exec(fmt)) {
    literal += fmt.slice(last, m.index);
    last = re.lastIndex;
    if (m[3] === '%' && m[1] === undefined && !m[2]) {
      literal += '%';
      continue;
    }
    // PostgreSQL's flags and width: `-` left-justifies, digits pad to that many characters (never cut)
    const width = /^(-?)(\d*)$/.exec(m[2] ?? '');
    if (!m[3] || !width) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `format() specifier "${m[0]}" is not supported by fdl-gateway`,
        undefined,
        'Supported: %s, %I, %L, %%, positions such as %1$s, and a width such as %5s or %-5s (not *); pad with lpad()/rpad().',
      );
    }
    const index = m[1] !== undefined ? Number(m[1]) - 1 : next;
    next = index + 1;
    const value = values[index];
    if (value === undefined) throw new SqlError(SQLSTATE.invalidParameterValue, 'too few arguments for format()');
    if (literal) parts.push(strConst(literal));
    literal = '';
    // %I's text goes into quote_ident, whose body holds a subquery: no typed overload there.
    const text = outputText(value, untyped || m[3] === 'I');
    const padded = (piece: Node): Node => {
      if (!width![2]) return piece;
      const fill = call('repeat', [
        strConst(' '),
        call('greatest', [
          {
            A_Expr: {
              kind: 'AEXPR_OP',
              name: [str('-')],
              lexpr: intConst(Number(width![2])),
              rexpr: call('length', [piece]),
            },
          },
          intConst(0),
        ]),
      ]);
      return call('concat', width![1] ? [piece, fill] : [fill, piece]);
    };
    const push = (piece: Node) => parts.push(padded(piece));
    if (m[3] === 's') push(coalesce([text, strConst('')]));
    else if (m[3] === 'I') {
      // PostgreSQL refuses a NULL identifier (22004, engine/duckdb-errors.ts).
      const isNull = { NullTest: { arg: text, nulltesttype: 'IS_NULL' } };
      push({
        CaseExpr: {
          args: [
            {
              CaseWhen: {
                expr: isNull,
                result: call('error', [strConst('null values cannot be formatted as an SQL identifier')]),
              },
            },
          ],
          defresult: compat('quote_ident', [text]),
        },
      });
    } else push(coalesce([compat('quote_literal', [text]), strConst('NULL')]));
  }
  literal += fmt.slice(last);
  if (literal) parts.push(strConst(literal));
  return parts.length === 0 ? strConst('') : concatOf(parts);
}

/**
 * `row(a, b)` / `(a, b)` shown in a select list: DuckDB's row() is a struct with empty field names
 * (its values collapse); PostgreSQL's is a record whose fields are f1…fn. A struct with exactly those
 * names is sent as a record (wire/types/records.ts). Row comparisons and NULL tests: pg-rows.ts.
 */
export function recordValue(args: Node[]): Node {
  return {
    FuncCall: {
      funcname: [str('struct_pack')],
      // A NULL or string constant is of type unknown in PostgreSQL's record (705 in its binary form): `f<i>u`.
      args: args.map((arg, i) => ({
        NamedArgExpr: {
          arg,
          name: `f${i + 1}${arg.A_Const?.isnull === true || arg.A_Const?.sval !== undefined ? 'u' : ''}`,
          argnumber: -1,
        },
      })),
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
}

/** A call with no faithful translation: 0A000 naming it, with what to write instead. */
export const refuse = (what: string, hint: string): SqlError =>
  new SqlError(SQLSTATE.featureNotSupported, `${what} is not supported by fdl-gateway`, undefined, hint);

/** PostgreSQL's regexp_matches returns a set of text arrays; DuckDB's the boolean of a search. */
export function regexpMatchesRefused(): SqlError {
  return refuse(
    'regexp_matches() (PostgreSQL returns the matches as rows of text arrays)',
    'Use regexp_extract_all(s, pattern) for every match, regexp_extract(s, pattern, group) for one group, or s ~ pattern for a test.',
  );
}

/**
 * `json_agg(x [ORDER BY …] [FILTER …])`: PostgreSQL prints the elements separated by ", " (no rows:
 * NULL; a NULL element: null; a record element after ", \n "). Built inline so the aggregate keeps its ORDER BY, DISTINCT and FILTER.
 */
export function jsonAggCall(fc: Node, args: Node[], separator = ', '): Node {
  const element = { CoalesceExpr: { args: [castTo(call('to_json', [args[0]!]), 'varchar'), strConst('null')] } };
  const list = { FuncCall: { ...fc, funcname: [str('list')], args: [element] } };
  const concat = (l: Node, r: Node): Node => ({ A_Expr: { kind: 'AEXPR_OP', name: [str('||')], lexpr: l, rexpr: r } });
  return castTo(
    concat(concat(strConst('['), call('array_to_string', [list, strConst(separator)])), strConst(']')),
    'json',
  );
}

/**
 * `s SIMILAR TO 'pattern'`: PostgreSQL's SQL regular expression (% any run, _ one character, the
 * rest regex syntax, matched against the whole string); DuckDB reads the pattern as a plain regex.
 */
export function similarTo(lexpr: Node, escapeCall: Node, negate: boolean): Node {
  const args = (escapeCall?.FuncCall?.args ?? []) as Node[];
  const pattern = args[0]?.A_Const?.sval?.sval;
  if (args.length !== 1)
    throw refuse('SIMILAR TO … ESCAPE', 'Use the default escape (backslash), or regexp_full_match(s, regex).');
  if (typeof pattern !== 'string') {
    // A parameter or column: translated when the statement runs (dots escaped, then % and _).
    let regex = call('replace', [args[0]!, strConst('.'), strConst('\\.')]);
    regex = call('replace', [call('replace', [regex, strConst('%'), strConst('.*')]), strConst('_'), strConst('.')]);
    const m = call('regexp_full_match', [
      lexpr,
      { A_Expr: { kind: 'AEXPR_OP', name: [str('||')], lexpr: strConst('(?s)'), rexpr: regex } },
    ]);
    return negate ? { BoolExpr: { boolop: 'NOT_EXPR', args: [m] } } : m;
  }
  let regex = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) regex += '\\' + pattern[++i];
    else if (ch === '%') regex += '.*';
    else if (ch === '_') regex += '.';
    else if (ch === '.' || ch === '^' || ch === '$') regex += '\\' + ch;
    else regex += ch;
  }
  const m = call('regexp_full_match', [lexpr, strConst(`(?s)${regex}`)]);
  return negate ? { BoolExpr: { boolop: 'NOT_EXPR', args: [m] } } : m;
}

/** PostgreSQL's encode(bytea, format) / decode(text, format) for hex and base64. */
export function codecCall(fn: 'encode' | 'decode', args: Node[]): Node {
  const format = String(args[1]?.A_Const?.sval?.sval ?? '').toLowerCase();
  if (format === 'hex') return fn === 'encode' ? call('lower', [call('hex', [args[0]!])]) : call('unhex', [args[0]!]);
  if (format === 'base64') return fn === 'encode' ? call('to_base64', [args[0]!]) : call('from_base64', [args[0]!]);
  throw refuse(
    `${fn}() with format ${format ? `"${format}"` : 'that is not a constant'}`,
    "Supported formats: 'hex' and 'base64'.",
  );
}

/**
 * `generate_series(1.0, 2.0, 0.5)` of numeric constants in a select list: PostgreSQL's numeric rows
 * (`1.0`, `1.5`, `2.0`: start + k·step, each at the larger of start's and step's scales, the first at
 * start's). DuckDB has no numeric series (42883): the series runs over the values scaled to integers,
 * multiplied back by a numeric of that scale. Where the first value's scale would differ from the
 * others' (a start of smaller scale than the step), in FROM, or past 15 digits, `0A000` with a hint.
 * Undefined when no argument is a fraction (an integer series is DuckDB's own).
 */
export function numericSeries(args: Node[], inFrom: boolean): Node | undefined {
  if (args.length < 2 || args.length > 3 || !args.some((a) => a.A_Const?.fval)) return undefined;
  const values = args.map(numericLiteral);
  const refused = (why: string) =>
    refuse(
      `generate_series() of numeric values ${why}`,
      'Generate integers and scale them: generate_series(10, 20, 5) * 0.1 in a select list, or list the values with VALUES.',
    );
  if (values.some((v) => v === undefined || v.exponent || !isFinite(v.scale))) return undefined;
  const [start, stop, step = exactDecimal('1')!] = values as ExactDecimal[];
  if (inFrom) throw refused('in FROM');
  if (start!.scale < step.scale) throw refused(`whose start has fewer decimals than its step`);
  const scale = start!.scale;
  const scaled = (v: ExactDecimal, round: 'floor' | 'ceil') => {
    const [whole = '0', frac = ''] = v.plain.replace('-', '').split('.');
    const digits = BigInt(whole + frac.padEnd(scale, '0').slice(0, scale));
    const rest = frac.slice(scale).replace(/0+$/, '');
    const negative = v.plain.startsWith('-');
    let n = negative ? -digits : digits;
    if (rest && (round === 'floor') === negative) n += negative ? -1n : 1n;
    return n;
  };
  if (Number(step.plain) === 0) throw new SqlError(SQLSTATE.invalidParameterValue, 'step size cannot equal zero');
  const down = step.plain.startsWith('-');
  const ints = [scaled(start!, 'floor'), scaled(stop!, down ? 'ceil' : 'floor'), scaled(step, 'floor')];
  if (ints.some((n) => n > 10n ** 15n || n < -(10n ** 15n))) throw refused('of more than 15 digits');
  const series = unnestSrf({
    funcname: [str('generate_series')],
    args: ints.map((n) => ({ A_Const: n === 0n ? { ival: {} } : { ival: { ival: Number(n) } } })),
    funcformat: 'COERCE_EXPLICIT_CALL',
  });
  const one = scale === 0 ? '1' : `0.${'0'.repeat(scale - 1)}1`;
  const unit = castTo({ A_Const: { fval: { fval: one } } }, 'decimal', [intConst(38), intConst(scale)]);
  return {
    A_Expr: {
      kind: 'AEXPR_OP',
      name: [str('*')],
      lexpr: castTo(series, 'decimal', [intConst(38), intConst(0)]),
      rexpr: unit,
    },
  };
}
