/**
 * `to_char(number, '999G999D99')`: PostgreSQL 15's numeric picture read here as formatting.c's parse_format
 * and NUMDesc_prepare read it (keywords, their errors), and run per row by the `_pgsem_numfmt` macro
 * (number-format-macros.ts). V, EEEE and RN are refused.
 */
import { COMPAT_DB } from './catalog/names.js';
import { intConst, str, strConst, type Node } from './parse-nodes.js';
import { tagOf } from './pg-result-types.js';
import { refuse } from './pg-calls.js';
import { SqlError, SQLSTATE } from '../errors.js';

/** Node kinds as `_pgsem_numfmt` reads them. */
const enum Kind {
  None = 0,
  Nine = 1,
  Zero = 2,
  Point = 3,
  D = 4,
  Comma = 5,
  G = 6,
  L = 7,
  MI = 8,
  PL = 9,
  SG = 10,
  TH = 11,
  th = 12,
  Text = 13,
  // read, not written by to_char
  S = 20,
  PR = 21,
  FM = 22,
  V = 23,
  EEEE = 24,
  RN = 25,
}

/** formatting.c's NUM keywords in its search order (a longer keyword before its prefix: SG, SP before S). */
const KEYWORDS: ReadonlyArray<readonly [string, Kind]> = [
  [',', Kind.Comma],
  ['.', Kind.Point],
  ['0', Kind.Zero],
  ['9', Kind.Nine],
  ['B', Kind.None],
  ['C', Kind.None],
  ['D', Kind.D],
  ['EEEE', Kind.EEEE],
  ['FM', Kind.FM],
  ['G', Kind.G],
  ['L', Kind.L],
  ['MI', Kind.MI],
  ['PL', Kind.PL],
  ['PR', Kind.PR],
  ['RN', Kind.RN],
  ['SG', Kind.SG],
  ['SP', Kind.None],
  ['S', Kind.S],
  ['TH', Kind.TH],
  ['V', Kind.V],
  ['b', Kind.None],
  ['c', Kind.None],
  ['d', Kind.D],
  ['eeee', Kind.EEEE],
  ['fm', Kind.FM],
  ['g', Kind.G],
  ['l', Kind.L],
  ['mi', Kind.MI],
  ['pl', Kind.PL],
  ['pr', Kind.PR],
  ['rn', Kind.RN],
  ['sg', Kind.SG],
  ['sp', Kind.None],
  ['s', Kind.S],
  ['th', Kind.th],
  ['v', Kind.V],
];

interface PictureNode {
  kind: Kind;
  text: string;
}

/** parse_format's nodes: keywords, quoted text (a backslash quotes the next character), other characters. */
function pictureNodes(fmt: string): PictureNode[] {
  const out: PictureNode[] = [];
  for (let i = 0; i < fmt.length;) {
    const kw = KEYWORDS.find(([k]) => fmt.startsWith(k, i));
    if (kw) {
      out.push({ kind: kw[1], text: kw[0] });
      i += kw[0].length;
    } else if (fmt[i] === '"') {
      for (i++; i < fmt.length && fmt[i] !== '"'; i++) {
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        out.push({ kind: Kind.Text, text: fmt[i]! });
      }
      i++;
    } else {
      if (fmt[i] === '\\' && fmt[i + 1] === '"') i++;
      const ch = String.fromCodePoint(fmt.codePointAt(i)!);
      out.push({ kind: Kind.Text, text: ch });
      i += ch.length;
    }
  }
  return out;
}

/**
 * Whether to_char's format is a number's picture: a digit pattern (9, 0) or RN/EEEE, and no letter outside
 * the number's keywords and quotes (`YYYY`, `HH24:MI`, `Q` are a timestamp's; `DD` and `SS` have no digit).
 */
export function isNumberPicture(fmt: string): boolean {
  const nodes = pictureNodes(fmt);
  const quoted = quotedTextCount(fmt);
  const letters = nodes.filter((n) => n.kind === Kind.Text && /[A-Za-z]/.test(n.text)).length;
  return nodes.some((n) => [Kind.Nine, Kind.Zero, Kind.RN, Kind.EEEE].includes(n.kind)) && letters <= quoted.letters;
}

/** The letters inside double quotes (literal text in either kind of picture). */
function quotedTextCount(fmt: string): { letters: number } {
  let letters = 0;
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== '"') continue;
    for (i++; i < fmt.length && fmt[i] !== '"'; i++) {
      if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
      if (/[A-Za-z]/.test(fmt[i]!)) letters++;
    }
  }
  return { letters };
}

const syntaxError = (message: string): SqlError => new SqlError(SQLSTATE.syntaxError, message);

/** The longest number picture translated (a node list each row walks; PostgreSQL has no limit). */
const MAX_NUMBER_PICTURE = 256;

/** `to_char(v, fmt)` of a number, `fmt` a number's picture (isNumberPicture). */
export function numberToCharCall(v: Node, fmt: string): Node {
  if (fmt.length > MAX_NUMBER_PICTURE)
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `to_char() with a number's format of more than ${MAX_NUMBER_PICTURE} characters is not supported by fdl-gateway`,
    );
  const nodes = pictureNodes(fmt);
  // NUMDesc_prepare: the counts and flags, and PostgreSQL's errors for pictures it rejects (42601)
  let pre = 0;
  let post = 0;
  let dec = false;
  let zero = false;
  let zeroStart = 0;
  let zeroEnd = 0;
  let fm = false;
  let lsign = 0;
  let preLsign = 0;
  let bracket = false;
  let plus = false;
  let minus = false;
  for (const { kind, text } of nodes) {
    switch (kind) {
      case Kind.Nine:
      case Kind.Zero:
        if (bracket) throw syntaxError(`"${text}" must be ahead of "PR"`);
        if (kind === Kind.Zero && !zero && !dec) {
          zero = true;
          zeroStart = pre + 1;
        }
        if (dec) post++;
        else pre++;
        if (kind === Kind.Zero) zeroEnd = pre + post;
        break;
      case Kind.D:
      case Kind.Point:
        if (dec) throw syntaxError('multiple decimal points');
        dec = true;
        break;
      case Kind.FM:
        fm = true;
        break;
      case Kind.S:
        if (lsign !== 0) throw syntaxError('cannot use "S" twice');
        if (plus || minus || bracket) throw syntaxError('cannot use "S" and "PL"/"MI"/"SG"/"PR" together');
        if (!dec) {
          lsign = -1;
          preLsign = pre;
        } else lsign = 1;
        break;
      case Kind.MI:
        if (lsign) throw syntaxError('cannot use "S" and "MI" together');
        minus = true;
        break;
      case Kind.PL:
        if (lsign) throw syntaxError('cannot use "S" and "PL" together');
        plus = true;
        break;
      case Kind.SG:
        if (lsign) throw syntaxError('cannot use "S" and "SG" together');
        plus = minus = true;
        break;
      case Kind.PR:
        if (lsign || plus || minus) throw syntaxError('cannot use "PR" and "S"/"PL"/"MI"/"SG" together');
        bracket = true;
        break;
      case Kind.V:
      case Kind.EEEE:
      case Kind.RN:
        throw refuse(
          `to_char() pattern "${text}"`,
          'Supported in a number\'s format: 9 0 . , D G S MI PL SG PR L FM TH, "text"; multiply by a power of ten yourself for V.',
        );
    }
  }
  // S before the point with every digit before it is written after the number (NUM_processor)
  if (lsign === -1 && pre === preLsign) lsign = 1;
  const digitKinds = new Set([Kind.Nine, Kind.Zero, Kind.Point, Kind.D]);
  const kinds: number[] = [];
  const ks: number[] = [];
  const pks: number[] = [];
  const lits: string[] = [];
  let k = -1;
  let previous = 0;
  for (const n of nodes) {
    if (digitKinds.has(n.kind)) {
      k++;
      previous = n.kind;
      kinds.push(n.kind);
      ks.push(k);
      pks.push(n.kind);
    } else {
      kinds.push(n.kind >= Kind.S ? Kind.None : n.kind);
      ks.push(k);
      pks.push(previous);
    }
    lits.push(n.kind === Kind.Text ? n.text : '');
  }
  const array = (items: Node[]): Node => ({ A_ArrayExpr: { elements: items } });
  const sem = (fn: string, args: Node[]): Node => ({
    FuncCall: { funcname: [COMPAT_DB, 'pgcat', fn].map(str), args, funcformat: 'COERCE_EXPLICIT_CALL' },
  });
  const flag = (b: boolean) => intConst(b ? 1 : 0);
  const text = sem('_pgsem_numtext', [tagOf(v) ?? v, v, intConst(post)]);
  return sem('_pgsem_numfmt', [
    text,
    intConst(pre),
    flag(fm),
    flag(dec),
    flag(zero),
    intConst(zero ? zeroStart - 1 : -1),
    intConst(zeroEnd),
    intConst(lsign),
    flag(bracket),
    flag(plus),
    flag(minus),
    intConst(k + 1),
    array(kinds.map(intConst)),
    array(ks.map(intConst)),
    array(pks.map(intConst)),
    array(lits.map(strConst)),
  ]);
}

/**
 * to_char calls of a number a statement may hold. Each is a bind of the `_pgsem_numfmt` macro, which DuckDB
 * cannot interrupt: ~0.65 s a call through the gateway on a quiet machine (2 cores), so 200 calls in a 9 KB
 * text held a DuckDB thread for 22 s past the statement's timeout (lead, session 53).
 */
export const MAX_NUMBER_FORMAT_CALLS = 8;

/** Throws 54001 when the composed text `sql` calls to_char of a number more than MAX_NUMBER_FORMAT_CALLS times. */
export function refuseManyNumberFormats(sql: string): void {
  let n = 0;
  for (let i = sql.indexOf('_pgsem_numfmt('); i >= 0; i = sql.indexOf('_pgsem_numfmt(', i + 1)) n++;
  if (n <= MAX_NUMBER_FORMAT_CALLS) return;
  throw new SqlError(
    SQLSTATE.statementTooComplex,
    `statement is too complex: it formats numbers with to_char ${n} times, over fdl-gateway's limit of ${MAX_NUMBER_FORMAT_CALLS} a statement`,
    undefined,
    "Format fewer columns with to_char in one statement (each costs the gateway a long preparation), or use printf('%.2f', x) for plain decimals.",
  );
}
