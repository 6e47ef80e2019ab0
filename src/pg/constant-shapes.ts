/**
 * Which constants of a text a plan may take as parameters (issue 24): catalog clients send one text
 * per object they read — sqlsmith `select unnest(proargtypes) from pg_proc where oid = '<oid>'` for
 * each of its functions, psql `… where c.oid = '<oid>'` — and each new text paid a rewrite, an
 * analysis, the engine line's bind and a DuckDB prepare. Texts that differ only in such constants
 * share one plan of their shape (session/constant-sharing.ts), the constants its parameters.
 *
 * A constant is free only where PostgreSQL's own parse of the text (markers in place of the
 * constants, parsed once per shape) reads it as one operand of a comparison (`=`, `<>`, `<`, `>`,
 * `<=`, `>=`) whose other operand is a column, inside a filter — a WHERE, HAVING or JOIN … ON,
 * through AND/OR/NOT only. There PostgreSQL resolves an unknown-typed `'…'` exactly as it resolves
 * an undeclared parameter in its place (to the column's side: `oid = '1'` an oid, `relname = 'x'` a
 * name), and the comparison's result is a boolean that decides rows, nothing else: no column name,
 * result type, function format or LIMIT reads it. A quoted constant is free only as a plain
 * standard string (no `E`, `B`, `X`, `U&` prefix, no continuation), an integer only as a positive
 * int4 written in digits; a constant under a cast, in a select list, a function's argument, LIKE, IN
 * or anywhere else stays in the shape as written. Which parameter types may stand for it is the
 * sharing's decision, after DuckDB and the gateway planned the shape (session/constant-sharing.ts).
 */
import { LRUCache } from 'lru-cache';
import { mapSegments } from '../text/split.js';
import { emptyComment } from '../text/comment-shape.js';
import { parsePg } from './pg-parse.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';

type Node = Record<string, any>;

/** A free constant: its value as PostgreSQL reads it, and how it was written. */
export interface FreeConstant {
  /** The string's value (`''` read as `'`) or the integer's digits. */
  readonly text: string;
  readonly kind: 'string' | 'integer';
}

/** A text's shape: the text with its free constants as `$1`, `$2`… in order, and those constants. */
export interface ConstantShape {
  readonly sql: string;
  readonly constants: readonly FreeConstant[];
}

/** Around a constant's ordinal in the lexed text (a private-use character; a text holding one has no shape). */
const SLOT = '\uE000';
/** Integer markers: ten digits starting 19 (a text holding such a run has no shape). */
const MARKER_BASE = 1_900_000_001;
const MARKER_RUN = /19\d{8}/;
/** A quoted constant's marker value (private-use characters no text holds: checked with SLOT). */
const stringMarker = (k: number) => `\uE001${k}\uE001`;
/**
 * `$` (the text's own parameters, dollar quotes) and backslashes (where the gateway's lexer and
 * PostgreSQL's have parted before, pg/rewrite-shapes.ts): such texts have no shape.
 */
const LEXED_APART = /[$\\\uE001]/;
/** Texts longer than this are not shaped (their parse would leave the event loop: session/planner.ts). */
const MAX_CHARS = 2 * 1024;
const MAX_CONSTANTS = 100;
const INT4_MAX = 2_147_483_647;
/** An integer constant: digits not part of a name, parameter, decimal, exponent or hex/underscore spelling. */
const INTEGER = /(?<![\p{L}\p{N}_$.])\d+(?![\p{L}\p{N}_.])/gu;
/** Before a standard string's quote: nothing that makes it a prefixed string (E'', U&'', B'', X'') or joins a name. */
const PREFIXED = /[\p{L}\p{N}_&]$/u;
const COMPARISONS: ReadonlySet<string> = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);

interface Lexed {
  /** The text with its comments emptied (text/comment-shape.ts). */
  emptied: string;
  /** That text with each candidate constant as `\uE000k\uE000`. */
  slots: string;
  constants: FreeConstant[];
  /** Each candidate as written in the text. */
  written: string[];
}

/** Which slots of a lexed text are free; null when PostgreSQL cannot parse it. */
const freeBySlots = new LRUCache<string, { free: boolean[] | null }>({
  max: 2000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (v, key) => 2 * key.length + 8 * (v.free?.length ?? 0) + 64,
});
/** Lexed forms met by one text so far (that text): a text met alone is never parsed for its shape. */
const metOnce = new LRUCache<string, string>({
  max: 4000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (v, key) => 2 * (key.length + v.length) + 64,
});
trimWhenIdle(lruTrim(freeBySlots));
trimWhenIdle(lruTrim(metOnce));

/**
 * `sql`'s shape, or null when none of its constants is free, the text is not one to shape, or it is
 * the only text of its lexed form met so far (the shape is worked out from the second one on).
 */
export function constantShape(sql: string): ConstantShape | null {
  if (sql.length > MAX_CHARS || LEXED_APART.test(sql) || sql.includes(SLOT) || MARKER_RUN.test(sql)) return null;
  const lexed = lex(sql);
  if (!lexed || lexed.constants.length === 0) return null;
  let entry = freeBySlots.get(lexed.slots);
  if (!entry) {
    // a lexed form met once costs its scan: PostgreSQL's parse waits for another text of it
    const met = metOnce.get(lexed.slots);
    if (met === undefined || met === sql) {
      metOnce.set(lexed.slots, sql);
      return null;
    }
    metOnce.delete(lexed.slots);
    entry = { free: freeConstants(lexed) };
    freeBySlots.set(lexed.slots, entry);
  }
  const free = entry.free;
  if (!free || !free.some((f) => f)) return null;
  const constants: FreeConstant[] = [];
  // the text (comments emptied: texts differing inside them share it), each free constant a parameter numbered in order
  let k = 0;
  const shaped = mapCandidates(lexed.emptied, (written, next) => {
    const i = k++;
    if (!free[i]) return written;
    constants.push(lexed.constants[i]!);
    // `x='1'or` → `x=$1 or`: a parameter must not run into a name
    return `$${constants.length}${/[\p{L}\p{N}_$]/u.test(next) ? ' ' : ''}`;
  });
  return shaped === null ? null : { sql: shaped, constants };
}

/**
 * The text with each candidate constant (a standard string, an int4 integer) replaced by `fn`'s
 * answer, comments kept as written; null when a comment's end is not certain.
 */
function mapCandidates(sql: string, fn: (written: string, next: string) => string): string | null {
  let at = 0;
  let uncertain = false;
  let previous = '';
  const out = mapSegments(sql, (kind, text) => {
    at += text.length;
    const next = sql.charAt(at);
    let result = text;
    if (kind === 'comment') {
      if (emptyComment(text) === null) uncertain = true;
    } else if (kind === 'string') {
      if (!PREFIXED.test(previous)) result = fn(text, next);
    } else if (kind === 'code') {
      result = text.replace(INTEGER, (d, offset: number) => {
        if (d.length > 10 || Number(d) > INT4_MAX || Number(d) === 0) return d;
        return fn(d, text.charAt(offset + d.length) || next);
      });
    }
    previous = text;
    return result;
  });
  return uncertain ? null : out;
}

/** The text lexed: comments emptied, candidates in slots. */
function lex(sql: string): Lexed | null {
  const constants: FreeConstant[] = [];
  const written: string[] = [];
  // comments emptied first, so texts that differ inside them share a shape (text/comment-shape.ts)
  let uncertain = false;
  const emptied = mapSegments(sql, (kind, text) => {
    if (kind !== 'comment') return text;
    const e = emptyComment(text);
    if (e === null) uncertain = true;
    return e ?? text;
  });
  if (uncertain) return null;
  const slots = mapCandidates(emptied, (w) => {
    written.push(w);
    constants.push(
      w.startsWith("'") ? { kind: 'string', text: w.slice(1, -1).replace(/''/g, "'") } : { kind: 'integer', text: w },
    );
    return `${SLOT}${constants.length - 1}${SLOT}`;
  });
  if (slots === null || constants.length > MAX_CONSTANTS) return null;
  return { emptied, slots, constants, written };
}

/** PostgreSQL's parse of the text with every candidate a marker: which are free. */
function freeConstants(lexed: Lexed): boolean[] | null {
  const count = lexed.constants.length;
  const marked = lexed.slots.replace(/\uE000(\d+)\uE000/g, (_, k: string) =>
    lexed.constants[Number(k)]!.kind === 'string' ? `'${stringMarker(Number(k))}'` : String(MARKER_BASE + Number(k)),
  );
  const tree = parsePg(marked);
  if (!tree) return null;
  const free = new Array<boolean>(count).fill(false);
  const seen = new Array<number>(count).fill(0);
  const markerOf = (n: Node | undefined): number | undefined => {
    const c = n?.A_Const as Node | undefined;
    if (!c || Object.keys(n!).length !== 1) return undefined;
    const keys = Object.keys(c).filter((key) => key !== 'location');
    if (keys.length !== 1) return undefined;
    let k: number | undefined;
    if (keys[0] === 'ival' && typeof c.ival?.ival === 'number') k = c.ival.ival - MARKER_BASE;
    else if (keys[0] === 'sval' && typeof c.sval?.sval === 'string') {
      const m = /^\uE001(\d+)\uE001$/.exec(c.sval.sval);
      if (m) k = Number(m[1]);
    }
    if (k === undefined || k < 0 || k >= count) return undefined;
    // a marker read as the other kind (a quoted integer marker is text, not a constant of ours)
    const kind = keys[0] === 'ival' ? 'integer' : 'string';
    return lexed.constants[k]!.kind === kind ? k : undefined;
  };
  const isColumn = (n: Node | undefined) => !!n?.ColumnRef && Object.keys(n).length === 1;
  /** A filter: a comparison of a column and a marker is free; AND/OR/NOT keep the filter. */
  const filter = (node: unknown): void => {
    const n = node as Node | undefined;
    if (n && typeof n === 'object' && !Array.isArray(n) && Object.keys(n).length === 1) {
      const b = n.BoolExpr as Node | undefined;
      if (b && Array.isArray(b.args)) return (b.args as unknown[]).forEach(filter);
      const e = n.A_Expr as Node | undefined;
      const op = (e?.name as Node[] | undefined)?.length === 1 ? (e!.name as Node[])[0]?.String?.sval : undefined;
      if (e && e.kind === 'AEXPR_OP' && typeof op === 'string' && COMPARISONS.has(op)) {
        const l = markerOf(e.lexpr);
        const r = markerOf(e.rexpr);
        if (l !== undefined && isColumn(e.rexpr)) free[l] = true;
        if (r !== undefined && isColumn(e.lexpr)) free[r] = true;
      }
    }
    visit(node);
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const n = node as Node;
    const k = markerOf(n);
    if (k !== undefined) seen[k]!++;
    for (const [key, v] of Object.entries(n)) {
      // a filter starts at each clause that decides rows
      if (key === 'whereClause' || key === 'havingClause' || (key === 'quals' && n.jointype !== undefined)) {
        filterOnce(v);
      } else visit(v);
    }
  };
  const filtered = new Set<unknown>();
  const filterOnce = (v: unknown) => {
    if (filtered.has(v)) return;
    filtered.add(v);
    filter(v);
  };
  visit(tree);
  // a marker PostgreSQL did not read as one constant (or read twice) is not free
  return free.map((f, k) => f && seen[k] === 1);
}
