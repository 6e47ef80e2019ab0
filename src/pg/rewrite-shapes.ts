/**
 * The PostgreSQL rewrite shared by texts that differ only in comments and in integer constants the
 * rewrite provably does not read (issue 26): a dashboard's statements under the simple protocol are a
 * new text for every value, and the rewrite (PostgreSQL's parse, walk, deparse: 0.4–0.9 ms) is the
 * gateway's largest JavaScript cost per such text.
 *
 * Which integer constants may leave the key is decided by PostgreSQL's own parse of the text, never by
 * a pattern: the text with every integer replaced by a marker (comments dropped) is parsed once per
 * shape; an integer is free only where it stands alone beside a column in a comparison (`col = 5`,
 * `col >= -5`, `col BETWEEN 1 AND 9`, `col IN (1, 2)`) or in `+`, `-`, `*` (`col * 5`, `7 + col`), where the
 * rewrite passes the constant through (rewrite-operators.ts reads a comparison's constants only when they are
 * strings: array text; an operand of `+ - *` beside a column it only casts to int4).
 * Every other integer (LIMIT, other arithmetic, a function's argument, a type's length, TABLESAMPLE) stays
 * in the key as written, so a value that could change the rewrite makes another entry. The rewrite
 * itself runs on that key with the free integers as markers; the entry is kept only when each marker
 * comes out exactly once, and a text's answer is the entry with its own integers put back, written as
 * the deparser writes them (`007` → `7`): byte for byte what rewriting the text itself gives
 * (test/rewrite-shapes.test.ts compares both over the corpus). Only int4 constants are free (a larger
 * integer is a numeric to PostgreSQL, another node); strings, decimals and exponents stay in the key.
 */
import { LRUCache } from 'lru-cache';
import { mapSegments } from '../text/split.js';
import { emptyComment } from '../text/comment-shape.js';
import { parsePg } from './pg-parse.js';
import { lruTrim, trimWhenIdle } from '../idle-memory.js';
import type { RewriteResult } from './rewrite.js';
import { typedKey, type RelationTypes } from './operand-types.js';

type Node = Record<string, any>;

/** Markers are ten digits starting 19; a text holding such a run is rewritten as itself. */
const MARKER_BASE = 1_900_000_001;
const MARKER_RUN = /19\d{8}/;
/** Around an integer's ordinal in the lexed text (a private-use character; a text holding one is rewritten as itself). */
const SLOT = '\uE000';
/**
 * Where the gateway's lexer (text/split.ts) and PostgreSQL's have parted before: dollar quotes (its tags
 * were ASCII-only, PostgreSQL's take any letter: `$é$`) and backslashes (E'…' after a non-ASCII name).
 * A comment one sees and the other not would put two texts under one key: such texts are rewritten
 * as themselves.
 */
const LEXED_APART = /\$(?!\d)|\\/;
/** At most this many integers are taken out of one text. */
const MAX_INTEGERS = 1000;
const INT4_MAX = 2_147_483_647;
/** An integer constant: digits not part of a name, parameter, decimal, exponent or hex/underscore spelling. */
const INTEGER = /(?<![\p{L}\p{N}_$.])\d+(?![\p{L}\p{N}_.])/gu;
const COMPARISONS: ReadonlySet<string> = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
/** `col * 5`, `5 + col`: the rewrite types the constant int4 (rewrite-operators.ts int4Constant), its value passed through. */
const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*']);
const LISTS: ReadonlySet<string> = new Set(['AEXPR_BETWEEN', 'AEXPR_NOT_BETWEEN', 'AEXPR_IN']);
/** What rewriteParsed reads from the text itself rather than its tree (rewrite.ts): must not differ. */
const TEXT_FLAGS = [/\b(?:tableoid|xmin|xmax|cmin|cmax|ctid)\b/i, /\bfloat\b/i];

interface Lexed {
  /** The text without comments, each integer as `\uE000k\uE000` (k its ordinal). */
  slots: string;
  /** Each integer as written. */
  ints: string[];
}

/** Which of a shape's integers are free (by ordinal); null when the text has no PostgreSQL parse. */
const freeByShape = new LRUCache<string, { free: boolean[] | null }>({
  max: 2000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (v, key) => 2 * key.length + 8 * (v.free?.length ?? 0) + 64,
});
/** The rewrite of a key (free integers as markers), or null when it cannot be shared. */
const byKey = new LRUCache<
  string,
  { result: RewriteResult; unchanged: boolean } | { result: null; operandTypes?: boolean }
>({
  max: 2000,
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (v, key) => 2 * (key.length + (v.result?.sql.length ?? 0)) + 64,
});
trimWhenIdle(lruTrim(freeByShape));
trimWhenIdle(lruTrim(byKey));

/** Whether the rewrite reads the same from the two texts' own characters (TEXT_FLAGS), comments included. */
export function readsSameText(a: string, b: string): boolean {
  return TEXT_FLAGS.every((f) => f.test(a) === f.test(b));
}

let shared = 0;
/** For tests and benches: texts answered from another text's rewrite. */
export function rewritesShared(): number {
  return shared;
}

/**
 * `sql`'s rewrite from the entry of its shape, or undefined when the text must be rewritten as itself
 * (`rewrite`, the caller's, then memoizes it by text): nothing to take out, or not shareable.
 */
export function rewriteByShape(
  sql: string,
  rewrite: (sql: string) => RewriteResult,
  types?: RelationTypes,
): RewriteResult | undefined {
  if (MARKER_RUN.test(sql) || sql.includes(SLOT) || LEXED_APART.test(sql)) return undefined;
  const lexed = lex(sql);
  if (!lexed) return undefined;
  const marker = (k: number) => String(MARKER_BASE + k);
  const fill = (free: readonly boolean[] | null) =>
    lexed.slots.replace(/\uE000(\d+)\uE000/g, (_, k: string) =>
      free?.[Number(k)] ? marker(Number(k)) : lexed.ints[Number(k)]!,
    );
  let shape = freeByShape.get(lexed.slots);
  if (!shape) {
    const found = lexed.ints.length === 0 ? [] : freeIntegers(fill(lexed.ints.map(() => true)), lexed.ints.length);
    shape = { free: found };
    freeByShape.set(lexed.slots, shape);
  }
  const free: boolean[] | null = shape.free;
  if (!free) return undefined;
  const key = fill(free);
  if (key === sql) return undefined; // nothing taken out: the text's own memo
  if (!readsSameText(key, sql)) return undefined; // a comment names one
  // (a rewrite that read columns' types under their key too, one made without types apart, as rewrite.ts memoizes one)
  let entry = types ? (byKey.get(key) ?? byKey.get(typedKey(key, types))) : byKey.get(typedKey(key, types));
  if (!entry) {
    entry = shareable(key, free, rewrite);
    byKey.set((entry.result ?? entry).operandTypes || !types ? typedKey(key, types) : key, entry);
  }
  if (!entry.result) return undefined;
  shared++;
  if (entry.unchanged) return { ...entry.result, sql };
  const own = new Map<string, string>();
  free.forEach((f, k) => f && own.set(marker(k), String(Number(lexed.ints[k]))));
  return { ...entry.result, sql: entry.result.sql.replace(/\b19\d{8}\b/g, (m) => own.get(m) ?? m) };
}

/**
 * The text with its comments emptied in place (text/comment-shape.ts: a comment still separates what
 * it separated — dropped, `'a' /* c *\/⏎'b'` became one string where PostgreSQL has a syntax error),
 * its integers in slots; null when there are more than MAX_INTEGERS, or a comment's end is not certain
 * (left open: dropped, the text's own 42601 became rows).
 */
function lex(sql: string): Lexed | null {
  const ints: string[] = [];
  let tooMany = false;
  let uncertain = false;
  const slots = mapSegments(sql, (kind, text) => {
    if (kind === 'comment') {
      const emptied = emptyComment(text);
      if (emptied === null) uncertain = true;
      return emptied ?? text;
    }
    if (kind !== 'code') return text;
    return text.replace(INTEGER, (d) => {
      // Past int4 PostgreSQL parses another node (a numeric constant); 0 the deparser writes the
      // same under a minus sign (`-0` is `0`): such an integer stays.
      if (d.length > 10 || Number(d) > INT4_MAX || Number(d) === 0) return d;
      if (ints.length >= MAX_INTEGERS) tooMany = true;
      ints.push(d);
      return `\uE000${ints.length - 1}\uE000`;
    });
  });
  return tooMany || uncertain ? null : { slots, ints };
}

/** PostgreSQL's parse of the text with every integer a marker: which markers stand free. */
function freeIntegers(marked: string, count: number): boolean[] | null {
  const tree = parsePg(marked);
  if (!tree) return null;
  const free: boolean[] = new Array<boolean>(count).fill(false);
  const seen = new Array<number>(count).fill(0);
  const markerOf = (n: Node | undefined): number | undefined => {
    const v = n?.A_Const?.ival?.ival;
    if (typeof v !== 'number' || Object.keys(n!.A_Const).some((k) => k !== 'ival' && k !== 'location'))
      return undefined;
    const k = Math.abs(v) - MARKER_BASE;
    return k >= 0 && k < count ? k : undefined;
  };
  const isColumn = (n: Node | undefined) => !!n?.ColumnRef;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const n = node as Node;
    const k = markerOf(n);
    if (k !== undefined) seen[k]!++;
    const e = n.A_Expr as Node | undefined;
    if (e && Object.keys(n).length === 1) {
      const op = (e.name as Node[] | undefined)?.slice(-1)[0]?.String?.sval as string | undefined;
      if (
        e.kind === 'AEXPR_OP' &&
        op &&
        (COMPARISONS.has(op) || ARITHMETIC.has(op)) &&
        (e.name as Node[]).length === 1
      ) {
        const l = markerOf(e.lexpr);
        const r = markerOf(e.rexpr);
        if (l !== undefined && isColumn(e.rexpr)) free[l] = true;
        if (r !== undefined && isColumn(e.lexpr)) free[r] = true;
      } else if (LISTS.has(e.kind) && isColumn(e.lexpr) && Array.isArray(e.rexpr?.List?.items)) {
        for (const item of e.rexpr.List.items as Node[]) {
          const m = markerOf(item);
          if (m !== undefined) free[m] = true;
        }
      }
    }
    for (const v of Object.values(n)) visit(v);
  };
  visit(tree);
  // a marker PostgreSQL did not read as one integer constant (or read twice) is not free
  return free.map((f, k) => f && seen[k] === 1);
}

/** The rewrite of `key` if every free marker comes out of it exactly once; else not shareable. */
function shareable(
  key: string,
  free: readonly boolean[],
  rewrite: (sql: string) => RewriteResult,
): { result: RewriteResult; unchanged: boolean } | { result: null; operandTypes?: boolean } {
  let result: RewriteResult;
  try {
    result = rewrite(key);
  } catch {
    return { result: null }; // the text itself is rewritten, for its own error
  }
  if (result.sql === key) return { result, unchanged: true };
  const out = result.sql.match(/\b19\d{8}\b/g) ?? [];
  const wanted = free.flatMap((f, k) => (f ? [String(MARKER_BASE + k)] : []));
  const once = wanted.every((m) => out.filter((o) => o === m).length === 1) && out.length === wanted.length;
  return once ? { result, unchanged: false } : { result: null, operandTypes: !!result.operandTypes };
}
