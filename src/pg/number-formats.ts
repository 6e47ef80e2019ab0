/**
 * `to_char(number, '999G999D99')`: PostgreSQL 15's numeric picture read here as formatting.c's parse_format
 * and NUMDesc_prepare read it (keywords, their errors), and run per row by the `_pgsem_numfmt` macro
 * (number-format-macros.ts). V, EEEE and RN are refused.
 */
import { COMPAT_DB } from './catalog/names.js';
import { intConst, str, type Node } from './parse-nodes.js';
import { parsePg } from './pg-parse.js';
import { tagOf } from './pg-result-types.js';
import { refuse } from './pg-calls.js';
import { SqlError, SQLSTATE } from '../errors.js';

/** formatting.c's NUM keywords, as the picture's nodes. */
export const enum Kind {
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

/** The nodes that take a digit position: 9, 0 and the decimal point. */
const DIGIT_KINDS: ReadonlySet<Kind> = new Set([Kind.Nine, Kind.Zero, Kind.Point, Kind.D]);

export interface PictureNode {
  kind: Kind;
  text: string;
}

/** parse_format's nodes: keywords, quoted text (a backslash quotes the next character), other characters. */
export function pictureNodes(fmt: string): PictureNode[] {
  const out: PictureNode[] = [];
  for (let i = 0; i < fmt.length;) {
    const kw = KEYWORDS.find(([k]) => fmt.startsWith(k, i));
    if (kw) {
      out.push({ kind: kw[1], text: kw[0] });
      i += kw[0].length;
    } else if (fmt[i] === '"') {
      for (i++; i < fmt.length && fmt[i] !== '"';) {
        if (fmt[i] === '\\' && i + 1 < fmt.length) i++;
        const ch = String.fromCodePoint(fmt.codePointAt(i)!);
        out.push({ kind: Kind.Text, text: ch });
        i += ch.length;
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

/** NUMDesc_prepare's reading of a picture's nodes: the counts and flags, and PostgreSQL's 42601 for pictures it rejects. */
export interface PictureDescription {
  pre: number;
  post: number;
  dec: boolean;
  fm: boolean;
  /** −1 an S before the point, 1 after it, 0 none. */
  lsign: number;
  preLsign: number;
  bracket: boolean;
  plus: boolean;
  minus: boolean;
  zero: boolean;
  zeroStart: number;
  zeroEnd: number;
}

/** NUMDesc_prepare over a picture's nodes; `unsupported` the refusal of V, EEEE and RN. */
export function describePicture(nodes: PictureNode[], unsupported: (text: string) => SqlError): PictureDescription {
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
        throw unsupported(text);
    }
  }
  return { pre, post, dec, fm, lsign, preLsign, bracket, plus, minus, zero, zeroStart, zeroEnd };
}

/**
 * The longest number picture translated (PostgreSQL has no limit). Its expression is composed on the event loop
 * and grows with the picture: two pictures of 256 characters made ~70 KB of SQL and held the loop 650 ms
 * (attacker review, issue 23); 32 characters (`FM9,999,999,999,999,990.00` is 26) keep a call to milliseconds.
 */
export const MAX_NUMBER_PICTURE = 32;

/** `to_char(v, fmt)` of a number, `fmt` a number's picture (isNumberPicture). */
export function numberToCharCall(v: Node, fmt: string): Node {
  if (fmt.length > MAX_NUMBER_PICTURE)
    throw new SqlError(
      SQLSTATE.programLimitExceeded,
      `to_char() with a number's format of more than ${MAX_NUMBER_PICTURE} characters is not supported by fdl-gateway`,
      undefined,
      "A number's to_char picture is translated on the gateway's event loop, which every session shares. Use a shorter picture, or format the parts with to_char and join them with ||.",
    );
  const nodes = pictureNodes(fmt);
  const {
    pre,
    post,
    dec,
    fm,
    lsign: read,
    preLsign,
    bracket,
    plus,
    minus,
    zero,
    zeroStart,
    zeroEnd,
  } = describePicture(nodes, (text) =>
    refuse(
      `to_char() pattern "${text}"`,
      'Supported in a number\'s format: 9 0 . , D G S MI PL SG PR L FM TH, "text"; multiply by a power of ten yourself for V.',
    ),
  );
  let lsign = read;
  // S before the point with every digit before it is written after the number (NUM_processor)
  if (lsign === -1 && pre === preLsign) lsign = 1;
  const sql = pictureSql({
    nodes,
    pre,
    fm,
    dp: dec,
    zeroStart: zero ? zeroStart - 1 : -1,
    zeroEnd,
    lsign,
    bracket,
    plus,
    minus,
  });
  const text: Node = {
    FuncCall: {
      funcname: [COMPAT_DB, 'pgcat', '_pgsem_numtext'].map(str),
      args: [tagOf(v) ?? v, v, intConst(post)],
      funcformat: 'COERCE_EXPLICIT_CALL',
    },
  };
  return withValue(sql, text);
}

/** NUMDesc_prepare's reading of a picture. */
interface Picture {
  nodes: PictureNode[];
  pre: number;
  fm: boolean;
  dp: boolean;
  /** The first '0' before the point (0-based), −1 without. */
  zeroStart: number;
  zeroEnd: number;
  lsign: number;
  bracket: boolean;
  plus: boolean;
  minus: boolean;
}

/** The lambda parameters and the value's place in a picture's SQL (names no statement uses). */
export const VALUE = 'fdl_pg_numtext';
const O = 'fdl_pg_o';
const R = 'fdl_pg_r';

const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * NUM_processor of to_char for this picture as a DuckDB expression over the value's signed text (`VALUE`,
 * `_pgsem_numtext`'s): the row's state computed once (a one-element list mapped by a lambda), then each
 * node's text from it. formatting.c's walk keeps a pointer into the number and flags; for a known picture,
 * digit node k writes the character at k of the layout (the integer digits right-aligned in `pre` places,
 * blanks before them and '0's from the picture's first '0' on; then the point and the decimals), the sign
 * before the node it is first written at (`p`), PR's '>' or a trailing S after the node formatting.c's
 * `end` names (`e`), and a separator after node k writes ',' once a digit or a '0' was written (`w`).
 * Two characters the picture does not hold stand for nothing (fill mode's blanks, dropped decimals) and
 * for C's NUL past the number's end, which ends PostgreSQL's result.
 */
function pictureSql(pic: Picture): string {
  const { nodes, pre, fm, dp, zeroStart: zs, zeroEnd: ze, lsign, bracket, plus, minus } = pic;
  const zero = zs >= 0;
  const literals = nodes.filter((n) => n.kind === Kind.Text).map((n) => n.text);
  const [none, end] = Array.from({ length: 64 }, (_, i) => String.fromCodePoint(0xe000 + i)).filter(
    (c) => !literals.includes(c),
  ) as [string, string];
  const NONE = sqlText(none);
  const END = sqlText(end);
  const blank = fm ? NONE : "' '";
  const digitKinds = nodes.filter((n) => DIGIT_KINDS.has(n.kind)).map((n) => n.kind);
  const decimals = digitKinds.length - pre - (dp ? 1 : 0);
  const has = (...kinds: Kind[]) => nodes.some((n) => kinds.includes(n.kind));

  // the text's parts (A): negative, integer digits, decimals
  const A = 'fdl_pg_a';
  const [neg, i0, d0] = [`${A}.n`, `${A}.i`, `${A}.d`];
  const ov = `length(${i0}) > ${pre}`;
  // the state (R), from them: PostgreSQL's '#' for every digit when the integer digits do not fit
  const d = `CASE WHEN ${ov} THEN translate(${d0}, '0123456789', '##########') ELSE ${d0} END`;
  // the text has a point (PostgreSQL's overflow text always does)
  const hp = `(${ov} OR ${d0} <> '')`;
  const ops = `CASE WHEN ${ov} THEN 0 ELSE ${pre} - length(${i0}) END`;
  // a leading 0 before decimals, written as a blank (IS_PREDEC_SPACE)
  const pd = !zero && dp && pre > 0 ? `(${i0} = '0' AND ${d0} <> '')` : undefined;
  // fill mode's last relevant character (a layout index): the last decimal not 0, or the point, and no
  // earlier than the picture's last '0'
  const lr =
    fm && dp
      ? `CASE WHEN ${hp} THEN greatest(${pre} + CASE WHEN ${ov} THEN length(${d0}) ELSE length(rtrim(${d0}, '0')) END, least(${pre} + length(${d0}), ${ze})) END`
      : undefined;
  const lrDot = lr ? `coalesce(${lr} = ${pre}, false)` : 'false';
  // the sign already written (or never needed) before the first digit node, and PR in force (fill mode
  // drops it for a number not negative)
  const swi = plus || minus ? String(!(plus && !minus)) : fm && lsign === 0 ? `NOT ${neg}` : 'false';
  const br = !bracket ? 'false' : fm ? neg : 'true';
  const signed = swi !== 'true' && lsign !== 1;
  const p = cases(
    [swi, '-1'],
    [String(zero), `least(${ops}, ${zs})`],
    [pd ? `${pd} AND NOT ${lrDot}` : 'false', `${ops} + 1`],
    ['true', ops],
  );
  const st =
    lsign === -1
      ? `CASE WHEN ${neg} THEN '-' ELSE '+' END`
      : cases([br, `CASE WHEN ${neg} THEN '<' ELSE ' ' END`], [neg, "'-'"], ['true', blank]);
  const ended = bracket || lsign === 1;
  // formatting.c's `end`: the digit node after which '>' or a trailing S is written, none where the last
  // relevant character is the next the number's pointer reaches
  const last = `(length(${d0}) + ${pre - (dp ? 1 : 2)} + CASE WHEN ${ops} > 0 OR NOT ${swi} THEN 1 ELSE 0 END)`;
  const numberEnd = `${pre} + CASE WHEN ${hp} THEN length(${d0}) + 1 ELSE 0 END`;
  const after = `CASE WHEN ${last} >= ${ops} THEN least(${last} + 1, ${numberEnd}) ELSE ${ops} END`;
  const e = lr ? `CASE WHEN ${lr} = ${after} THEN -1 ELSE ${last} END` : last;
  const et = cases(
    [`(${swi} OR (${p} >= 0 AND ${last} >= ${p})) AND ${br}`, `CASE WHEN ${neg} THEN '>' ELSE ' ' END`],
    [String(lsign === 1), `CASE WHEN ${neg} THEN '-' ELSE '+' END`],
    ['true', "''"],
  );
  // the integer digits, the leading 0 of IS_PREDEC_SPACE as a blank (in fill mode '0' before a point
  // that ends the number, else nothing)
  const lead = fm ? `CASE WHEN ${lrDot} THEN '0' ELSE ${NONE} END` : "' '";
  const i = cases([ov, `'${'#'.repeat(pre)}'`], [pd ?? 'false', lead], ['true', i0]);
  const state: Record<string, string> = { n: neg };
  if (pre > 0 || has(Kind.TH, Kind.th)) Object.assign(state, { i, o: ops });
  if (dp) state.h = hp;
  if (decimals > 0) state.d = d;
  if (fm && decimals > 0 && lr) state.l = lr;
  if (signed) Object.assign(state, { p, s: st });
  if (ended) Object.assign(state, { e, t: et });
  if (pd && has(Kind.Comma, Kind.G)) state.z = pd;
  const field = (f: string) => `${R}.${f}`;

  const separator = (k: number): string => {
    if (k < 0 || k === pre) return blank;
    if (k > pre)
      return fm && digitKinds[k] !== Kind.Zero
        ? `CASE WHEN coalesce(${k} <= ${field('l')}, true) THEN ',' ELSE ${blank} END`
        : "','";
    if (zero && k >= zs) return "','";
    const wrote = pd
      ? `(${k} > ${field('o')} OR (${k} = ${field('o')} AND NOT ${field('z')}))`
      : `${k} >= ${field('o')}`;
    return `CASE WHEN ${wrote} THEN ',' ELSE ${blank} END`;
  };
  // each node's text
  const parts: string[] = [];
  let k = -1;
  for (const { kind, text } of nodes) {
    if (DIGIT_KINDS.has(kind)) {
      k++;
      // the sign is written before the first digit node written, at most the point
      if (signed && k <= pre) parts.push(`CASE WHEN ${field('p')} = ${k} THEN ${field('s')} ELSE '' END`);
      if (k < pre) {
        const filled = zero && k >= zs ? "'0'" : blank;
        parts.push(
          `CASE WHEN ${k} < ${field('o')} THEN ${filled} ELSE substr(${field('i')}, ${k + 1} - ${field('o')}, 1) END`,
        );
      } else if (k === pre) parts.push(`CASE WHEN ${field('h')} THEN '.' ELSE ${END} END`);
      else {
        // a decimal, C's NUL past the text's end; fill mode drops a 9's decimals past the last relevant one
        const digit = `coalesce(nullif(substr(${field('d')}, ${k - pre}, 1), ''), ${END})`;
        parts.push(
          kind !== Kind.Zero && fm && lr ? `CASE WHEN ${k} > ${field('l')} THEN ${NONE} ELSE ${digit} END` : digit,
        );
      }
      if (ended && k >= pre + (dp ? 1 : 0) - 2)
        parts.push(`CASE WHEN ${field('e')} = ${k} THEN ${field('t')} ELSE '' END`);
    } else if (kind === Kind.Comma || kind === Kind.G) {
      // ',' where the digit node before it wrote a digit or a '0' (formatting.c's num_in), else a blank
      parts.push(separator(k));
    } else if (kind === Kind.L)
      parts.push("' '"); // the C locale's currency symbol
    else if (kind === Kind.MI) parts.push(`CASE WHEN ${field('n')} THEN '-' ELSE ${blank} END`);
    else if (kind === Kind.PL) parts.push(`CASE WHEN ${field('n')} THEN ${blank} ELSE '+' END`);
    else if (kind === Kind.SG) parts.push(`CASE WHEN ${field('n')} THEN '-' ELSE '+' END`);
    else if ((kind === Kind.TH || kind === Kind.th) && !dp) {
      const suffix = kind === Kind.TH ? '_pgsem_nth_upper' : '_pgsem_nth';
      parts.push(
        `CASE WHEN ${field('n')} OR starts_with(${field('i')}, '#') THEN '' ELSE ${COMPAT_DB}.pgcat.${suffix}(${field('i')}) END`,
      );
    } else if (kind === Kind.Text) parts.push(sqlText(text));
  }
  const pack = (fields: Record<string, string>) =>
    `struct_pack(${Object.entries(fields)
      .map(([name, value]) => `${name} => ${value}`)
      .join(', ')})`;
  const textParts = pack({
    n: `starts_with(${O}, '-')`,
    i: `split_part(ltrim(${O}, '-'), '.', 1)`,
    d: `split_part(${O}, '.', 2)`,
  });
  // the parts joined (a node past the number's end ends the text, `NONE` is written as nothing); NULL
  // stays NULL: `n` is NULL only for a NULL text
  let joined = catOf(parts);
  if (dp) joined = `split_part(${joined}, ${END}, 1)`;
  if (fm) joined = `translate(${joined}, ${NONE}, '')`;
  joined = `CASE WHEN ${R} IS NOT NULL THEN ${joined} END`;
  const lists = `list_transform(list_transform(ARRAY[${VALUE}], ${O} -> (CASE WHEN ${O} IS NOT NULL THEN ${textParts} END)), ${A} -> (CASE WHEN ${A} IS NOT NULL THEN ${pack(state)} END))`;
  return `(list_transform(${lists}, ${R} -> (${joined})))[1]`;
}

/** The most arguments of one `_pgsem_numcat` call (number-format-macros.ts). */
export const NUMCAT_ARGS = 16;

/** concat of the texts, without the session's concat guard (each part is one character or a literal). */
function catOf(parts: string[]): string {
  if (parts.length <= NUMCAT_ARGS) return `${COMPAT_DB}.pgcat._pgsem_numcat(${parts.join(', ')})`;
  const groups: string[] = [];
  for (let i = 0; i < parts.length; i += NUMCAT_ARGS) groups.push(catOf(parts.slice(i, i + NUMCAT_ARGS)));
  return catOf(groups);
}

/** A searched CASE of [condition, value] pairs, conditions known here ('true', 'false') decided here. */
function cases(...arms: Array<[string, string]>): string {
  const kept: Array<[string, string]> = [];
  for (const [cond, value] of arms) {
    if (cond === 'false') continue;
    if (cond === 'true') {
      if (kept.length === 0) return value;
      return `CASE ${kept.map(([c, v]) => `WHEN ${c} THEN ${v}`).join(' ')} ELSE ${value} END`;
    }
    kept.push([cond, value]);
  }
  return `CASE ${kept.map(([c, v]) => `WHEN ${c} THEN ${v}`).join(' ')} END`;
}

/** A picture's expression (pictureSql) as a parse tree, the value's text in its place. */
export function withValue(sql: string, value: Node): Node {
  const tree = parsePg(`SELECT ${sql}`) as { stmts: { stmt: { SelectStmt: { targetList: Node[] } } }[] } | null;
  if (!tree) throw new Error(`to_char's expression did not parse: ${sql}`);
  const expr = structuredClone(tree.stmts[0]!.stmt.SelectStmt.targetList[0]!.ResTarget.val) as Node;
  const stack: unknown[] = [expr];
  while (stack.length > 0) {
    const n = stack.pop();
    if (!n || typeof n !== 'object') continue;
    for (const [key, child] of Object.entries(n as Node)) {
      const ref = (child as Node | undefined)?.ColumnRef?.fields as Node[] | undefined;
      if (ref?.length === 1 && ref[0]?.String?.sval === VALUE) (n as Node)[key] = value;
      else stack.push(child);
    }
  }
  return expr;
}

/**
 * to_char calls of a number a statement may hold. Each is a DuckDB bind of its picture's expression, which
 * no statement timeout interrupts: in-process 64 calls took 0.39 s of CPU to prepare (load 20 on 2 cores),
 * as 8 calls of session 53's walking macro did, but through the gateway 64 calls took 40 s at load 15 (not
 * yet explained), so the cap stays.
 */
export const MAX_NUMBER_FORMAT_CALLS = 8;

/**
 * The `_pgsem_numtext` (to_char) and `_pgsem_numbytes` (to_number) calls the walked tree prints, a subtree placed at several places counted at each (as
 * printed), each object's count made once: the rewrite shares subtrees (nested rounds), so printing or
 * stringifying the tree to count them grew exponentially (twenty nested rounds: 36 s, then V8's string limit).
 */
function numberFormatCalls(node: object, memo: Map<object, [number, number]>): [number, number] {
  const known = memo.get(node);
  if (known !== undefined) return known;
  const name = (node as { String?: { sval?: unknown } }).String?.sval;
  const n: [number, number] = [name === '_pgsem_numtext' ? 1 : 0, name === '_pgsem_numbytes' ? 1 : 0];
  for (const v of Object.values(node))
    if (v !== null && typeof v === 'object') {
      const [formats, reads] = numberFormatCalls(v as object, memo);
      n[0] += formats;
      n[1] += reads;
    }
  memo.set(node, n);
  return n;
}

/** Throws 54001 when the walked tree calls to_char of a number and to_number more than MAX_NUMBER_FORMAT_CALLS times (each a picture's expression). */
export function refuseManyNumberFormats(tree: object): void {
  const [formats, reads] = numberFormatCalls(tree, new Map());
  if (formats + reads <= MAX_NUMBER_FORMAT_CALLS) return;
  const what = [
    formats > 0 ? `formats numbers with to_char ${formats} times` : '',
    reads > 0 ? `reads numbers with to_number ${reads} times` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  throw new SqlError(
    SQLSTATE.statementTooComplex,
    `statement is too complex: it ${what}, over fdl-gateway's limit of ${MAX_NUMBER_FORMAT_CALLS} a statement`,
    undefined,
    "Format or read fewer columns with to_char and to_number in one statement (each costs the gateway a preparation of its own), or use printf('%.2f', x) for plain decimals.",
  );
}
