/**
 * Intervals equal by value but spelled in other fields (`'1 month'` and `'30 days'`, `'1 day'` and
 * `'24 hours'`) in one statement. DuckDB compares two INTERVAL constants by their normalized value
 * (a month as 30 days, a day as 24 hours: interval_t::Normalize), so its binder's aggregate
 * de-duplication, its filter combiner and its common-subexpression optimizer took
 * `ts + interval '30 days'` for `ts + interval '1 month'` and answered the first twice. PostgreSQL's
 * arithmetic keeps the fields apart (a month is a calendar month), and so must the answer.
 *
 * Each constant after the first spelling of one value is put in a scalar subquery, `(SELECT
 * interval '30 days')`: DuckDB neither folds a subquery into a constant nor takes two of them for one
 * expression, and the value is the same. Constants where DuckDB takes no subquery (a FROM function's
 * arguments, a window frame's offset) stay as they are.
 */
import type { Node } from './parse-nodes.js';

const DAY = 86_400_000_000n;

/** Units of PostgreSQL's interval input (DuckDB reads the same words): field and multiple. */
type Field = 'months' | 'days' | 'micros';
const UNIT_WORDS: ReadonlyArray<[string, Field, bigint]> = [
  ['microsecond microseconds us usec usecs', 'micros', 1n],
  ['millisecond milliseconds ms msec msecs', 'micros', 1000n],
  ['second seconds s sec secs', 'micros', 1_000_000n],
  ['minute minutes m min mins', 'micros', 60_000_000n],
  ['hour hours h hr hrs', 'micros', 3_600_000_000n],
  ['day days d', 'days', 1n],
  ['week weeks w', 'days', 7n],
  ['month months mon mons', 'months', 1n],
  ['year years y yr yrs', 'months', 12n],
  ['decade decades', 'months', 120n],
  ['century centuries', 'months', 1200n],
  ['millennium millennia millenniums', 'months', 12000n],
];
const UNITS: ReadonlyMap<string, [Field, bigint]> = new Map(
  UNIT_WORDS.flatMap(([words, field, by]) =>
    words.split(' ').map((w) => [w, [field, by]] as [string, [Field, bigint]]),
  ),
);

const PART = /^\s*([+-]?\d+)\s*([a-z]+)/;
const CLOCK = /^\s*([+-]?)(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?/;

/** An interval's fields as `months/days/micros`, for integer amounts of units and a clock time; undefined otherwise. */
export function intervalFields(text: string): { fields: string; value: string } | undefined {
  let rest = text.trim().toLowerCase().replace(/^@\s*/, '');
  let ago = false;
  if (/\sago$/.test(rest)) {
    ago = true;
    rest = rest.slice(0, -3);
  }
  const sum = { months: 0n, days: 0n, micros: 0n };
  let parts = 0;
  while (rest.trim() !== '') {
    const clock = CLOCK.exec(rest);
    if (clock) {
      const [, sign, h, mi, s, f] = clock;
      const micros =
        BigInt(h!) * 3_600_000_000n +
        BigInt(mi!) * 60_000_000n +
        BigInt(s ?? 0) * 1_000_000n +
        BigInt((f ?? '').padEnd(6, '0'));
      sum.micros += sign === '-' ? -micros : micros;
      rest = rest.slice(clock[0].length);
      parts++;
      continue;
    }
    const part = PART.exec(rest);
    const unit = part ? UNITS.get(part[2]!) : undefined;
    if (!part || !unit) return undefined;
    sum[unit[0]] += BigInt(part[1]!) * unit[1];
    rest = rest.slice(part[0].length).replace(/^\s*,/, '');
    parts++;
  }
  if (parts === 0) return undefined;
  const sign = ago ? -1n : 1n;
  const [months, days, micros] = [sum.months * sign, sum.days * sign, sum.micros * sign];
  return { fields: `${months}/${days}/${micros}`, value: String(months * 30n * DAY + days * DAY + micros) };
}

/** `interval 'text'`, `'text'::interval`, `CAST('text' AS interval)` without a field qualifier: its text. */
function intervalConstant(n: Node): string | undefined {
  const tc = n.TypeCast as Node | undefined;
  const sval = tc?.arg?.A_Const?.sval?.sval as unknown;
  if (typeof sval !== 'string' || tc!.typeName?.typmods || tc!.typeName?.arrayBounds) return undefined;
  const names = (tc!.typeName?.names ?? []) as Node[];
  return names.at(-1)?.String?.sval === 'interval' ? sval : undefined;
}

/**
 * The interval constants in `tree`, in order of appearance. The rewritten tree shares subtrees (a macro naming
 * its operand twice: twenty nested rounds are 2^20 paths), so each object is visited once.
 */
function constants(tree: unknown, out: Node[] = [], seen = new WeakSet<object>()): Node[] {
  if (!tree || typeof tree !== 'object' || seen.has(tree)) return out;
  seen.add(tree);
  if (Array.isArray(tree)) for (const x of tree) constants(x, out, seen);
  else if (intervalConstant(tree as Node) !== undefined) out.push(tree as Node);
  else for (const v of Object.values(tree)) constants(v, out, seen);
  return out;
}

/**
 * The texts of constants to put in a subquery: every spelling of a value after its first, and a text
 * this module does not read (a fraction, ISO 8601) when the statement has another interval constant.
 */
function textsToSeparate(found: readonly Node[]): Set<string> {
  const texts = [...new Set(found.map((n) => intervalConstant(n)!))];
  const separate = new Set<string>();
  const firstFields = new Map<string, string>();
  for (const text of texts) {
    const read = intervalFields(text);
    if (!read) {
      if (texts.length > 1) separate.add(text);
      continue;
    }
    const first = firstFields.get(read.value);
    if (first === undefined) firstFields.set(read.value, read.fields);
    else if (first !== read.fields) separate.add(text);
  }
  return separate;
}

const subquery = (n: Node): Node => ({
  SubLink: {
    subLinkType: 'EXPR_SUBLINK',
    subselect: {
      SelectStmt: { targetList: [{ ResTarget: { val: n } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' },
    },
  },
});

/** Keys whose subtrees DuckDB evaluates without subqueries: FROM functions, window frame offsets. */
const NO_SUBQUERY_KEYS: ReadonlySet<string> = new Set(['RangeFunction', 'startOffset', 'endOffset']);

/** `tree` with `texts`' constants in subqueries; a shared subtree is rewritten once and stays shared. */
function separated(tree: unknown, texts: ReadonlySet<string>, done = new WeakMap<object, unknown>()): unknown {
  if (!tree || typeof tree !== 'object') return tree;
  const known = done.get(tree);
  if (known !== undefined) return known;
  let out: unknown;
  if (Array.isArray(tree)) out = tree.map((x) => separated(x, texts, done));
  else {
    const text = intervalConstant(tree as Node);
    if (text !== undefined) out = texts.has(text) ? subquery(tree as Node) : tree;
    else {
      const node: Node = {};
      for (const [k, v] of Object.entries(tree)) node[k] = NO_SUBQUERY_KEYS.has(k) ? v : separated(v, texts, done);
      out = node;
    }
  }
  done.set(tree, out);
  return out;
}

/** `tree` with the interval constants DuckDB would take for one another kept apart; undefined when none are. */
export function keepIntervalsApart(tree: unknown): unknown {
  const found = constants(tree);
  if (found.length < 2) return undefined;
  const texts = textsToSeparate(found);
  return texts.size === 0 ? undefined : separated(tree, texts);
}
