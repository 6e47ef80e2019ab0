/**
 * The work of list lambdas, read from DuckDB's parse tree. A lambda runs once per element of its
 * list, and its body may build lists of its own: `list_transform(range(30000), x ->
 * list_sum(range(x)))` (52 characters, every list within the list guards) folds 450 million
 * elements while DuckDB prepares it, ~55 s that no timeout or cancel stops. Each lambda call is
 * estimated as the length of its list times the work of its body: a list's length is known for
 * `range`/`generate_series` of constants and list literals, and otherwise taken as the list guards'
 * ceiling (MAX_LIST_ELEMENTS: a list built from a value by range(x) holds at most that many; a
 * list from the data counts as one such list); `range(x)` in a body counts its elements. Over
 * MAX_LAMBDA_WORK the statement is refused 54000 before DuckDB sees it. Pure; iterative, so a deep
 * tree cannot exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { MAX_LIST_ELEMENTS } from '../engine/list-guards.js';

/** The most element steps one statement's lambdas may be estimated to take (~2 s of DuckDB's worst case here). */
export const MAX_LAMBDA_WORK = 1 << 24;

type Node = Record<string, unknown>;
interface Measure {
  /** Element steps, estimated. */
  work: number;
  /** Elements of the list this expression builds, when known. */
  length: number | null;
}

const SERIES = new Set(['range', 'generate_series']);
/** Lambda functions whose result has as many elements as their list. */
const SAME_LENGTH = new Set([
  'list_transform',
  'array_transform',
  'list_apply',
  'array_apply',
  'apply',
  'list_filter',
  'array_filter',
  'filter',
]);

function constantNumber(n: unknown): number | null {
  let o = n as Node | undefined;
  while (o && o.class === 'CAST') o = o.child as Node | undefined;
  if (!o || o.class !== 'CONSTANT') return null;
  const v = (o.value as { is_null?: boolean; value?: unknown } | undefined) ?? {};
  const x = !v.is_null && (typeof v.value === 'number' || typeof v.value === 'string') ? Number(v.value) : NaN;
  return Number.isFinite(x) ? x : null;
}

/** Elements of range/generate_series over constants (null when an argument is not one). */
function seriesLength(args: unknown[]): number | null {
  const nums = args.map(constantNumber);
  if (nums.length === 0 || nums.some((x) => x === null)) return null;
  const [a, b, step] = nums.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
  return step === 0 ? null : Math.max(0, Math.ceil(Math.abs((b - a) / step)));
}

/** The parts of a node whose work counts (a table function's own call streams its rows: only its arguments count). */
function parts(o: Node): unknown[] {
  if (o.type === 'TABLE_FUNCTION') {
    const fn = o.function as Node | undefined;
    return [fn?.children, ...Object.entries(o).flatMap(([k, v]) => (k === 'function' ? [] : [v]))];
  }
  return Object.values(o);
}

/** Throw 54000 when the statement's lambdas are estimated to take more than `max` element steps. */
export function checkLambdaWork(tree: unknown, max = MAX_LAMBDA_WORK): void {
  const measured = new Map<object, Measure>();
  const stack: [object, boolean][] = [];
  const push = (v: unknown) => {
    if (v && typeof v === 'object') stack.push([v, false]);
  };
  const of = (v: unknown): Measure =>
    (v && typeof v === 'object' ? measured.get(v) : undefined) ?? { work: 0, length: null };
  push(tree);
  while (stack.length > 0) {
    const [node, done] = stack.pop()!;
    const children = Array.isArray(node) ? node : parts(node as Node);
    if (!done) {
      stack.push([node, true]);
      for (const c of children) push(c);
      continue;
    }
    const sum = children.reduce((n: number, c) => n + of(c).work, 0);
    const o = node as Node;
    if (Array.isArray(node) || o.class !== 'FUNCTION' || typeof o.function_name !== 'string') {
      measured.set(node, { work: sum, length: null });
      continue;
    }
    const name = o.function_name.toLowerCase();
    const args = Array.isArray(o.children) ? o.children : [];
    const lambda = args.find((a) => (a as Node | undefined)?.class === 'LAMBDA') as Node | undefined;
    if (lambda) {
      const n = of(args[0]).length ?? MAX_LIST_ELEMENTS;
      const calls = n * Math.max(1, of(lambda.expr).work);
      if (calls > max) {
        throw new SqlError(
          SQLSTATE.programLimitExceeded,
          `${name}() would take about ${calls} steps (${n} elements, each running its lambda), over the gateway's limit of ${max}`,
          undefined,
          'Use smaller or fewer nested lists; a table function in FROM (range(n)) streams its rows instead.',
        );
      }
      const others = args.reduce((w: number, a) => (a === lambda ? w : w + of(a).work), 0);
      measured.set(node, { work: others + calls, length: SAME_LENGTH.has(name) ? n : null });
    } else if (SERIES.has(name)) {
      const n = seriesLength(args) ?? MAX_LIST_ELEMENTS;
      measured.set(node, { work: sum + n, length: n });
    } else if (name === 'list_value' || name === 'array_value') {
      measured.set(node, { work: sum + 1, length: args.length });
    } else {
      measured.set(node, { work: sum + 1, length: null });
    }
  }
}
