/**
 * The work of list lambdas, read from DuckDB's parse tree. A lambda runs once per element of its
 * list, and DuckDB runs every element of every row of a vector (2,048 rows) in one call that no
 * interrupt reaches (core_functions' lambda_functions.cpp `ExecuteLambda`: the elements are batched
 * 2,048 at a time through the body's ExpressionExecutor; the ClientContext's interrupt flag is read
 * only by the PipelineExecutor between operators and chunks). So one vector of
 * `list_transform(range(32768), x -> length(repeat('ab', 100000 + x % 2)))` over `range(2048)`
 * (32,768 × 200 KB per row) held its thread for hours after the client's 57014, and
 * `list_transform(range(30000), x -> list_sum(range(x)))` folded for ~55 s at prepare.
 *
 * Each lambda call is estimated as the length of its list times the work of its body, in element
 * steps: a plain call is one, a call building a value larger than its inputs counts its possible
 * bytes (call-cost.ts: `repeat('ab', 100000 + x % 2)` at its guard's 256 KiB). A list's length is
 * known for `range`/`generate_series` of constants and list literals, and otherwise taken as the
 * list guards' ceiling (MAX_LIST_ELEMENTS). Two ceilings, both 54000 before DuckDB sees the text:
 * - per row (MAX_LAMBDA_WORK): a lambda's calls for one row, whatever its list; this also bounds
 *   the work a lambda over a list of the data may do per element (MAX_LAMBDA_WORK / 32,768 steps);
 * - per vector (MAX_VECTOR_WORK): a lambda whose list is counted in the statement (a constant, or a
 *   `range(x)` of a value) runs that many elements for every row of a vector, 2,048 rows unless the
 *   statement reads no rows (no FROM, no unnest). A list of the data holds what was read, so a
 *   lambda over it does work linear in the data (at most MAX_LAMBDA_WORK / MAX_LIST_ELEMENTS steps
 *   per element read): that is left to the memory ceilings.
 * Pure; iterative, so a deep tree cannot exhaust the call stack.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { MAX_LIST_ELEMENTS } from '../engine/list-guards.js';
import { callSteps, constantNumber } from './call-cost.js';
import { pushMembers } from './json-objects.js';

/** The most element steps one row's lambdas may be estimated to take (~2 s of DuckDB's worst case here). */
export const MAX_LAMBDA_WORK = 1 << 24;
/** The most element steps one vector's lambdas over lists counted in the statement may take (~2–5 s here). */
export const MAX_VECTOR_WORK = 1 << 28;
/** Rows in one of DuckDB's vectors (STANDARD_VECTOR_SIZE): the unit between two interrupt checks. */
export const VECTOR_ROWS = 2048;

type Node = Record<string, unknown>;
interface Measure {
  /** Element steps per row, estimated. */
  work: number;
  /** Elements of the list this expression builds, when known. */
  length: number | null;
  /** Whether that list's length is counted in the statement (range of a value) rather than read from data. */
  counted: boolean;
  /** Steps per row of the lambdas in this expression whose lists are counted in the statement. */
  vector: number;
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
/** Functions whose list result's length is an argument, not the data's. */
const COUNTED_LISTS = new Set(['list_resize', 'array_resize', 'repeat']);

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

function tooMuch(what: string, steps: number, why: string, max: number): SqlError {
  return new SqlError(
    SQLSTATE.programLimitExceeded,
    `${what} would take about ${steps} steps (${why}), over the gateway's limit of ${max}`,
    undefined,
    'Use smaller or fewer nested lists, or lists of the data; a table function in FROM (range(n)) streams its rows instead.',
  );
}

/**
 * Rows one vector of the statement's expressions may hold: 1 when no part of it reads rows (no
 * FROM, no unnest), else DuckDB's vector size.
 */
function rowsPerVector(tree: unknown): number {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    const o = v as Node;
    const from = o.from_table as Node | undefined;
    if (o.type === 'SELECT_NODE' && from && from.type !== 'EMPTY') return VECTOR_ROWS;
    if (o.type !== 'SELECT_NODE' && typeof o.type === 'string' && o.type.endsWith('_NODE')) return VECTOR_ROWS;
    if (o.class === 'FUNCTION' && typeof o.function_name === 'string' && /^unnest$/i.test(o.function_name))
      return VECTOR_ROWS;
    pushMembers(stack, o);
  }
  return 1;
}

/** Throw 54000 when the statement's lambdas are estimated to take more than `max` element steps per row, or `maxVector` per vector. */
export function checkLambdaWork(tree: unknown, max = MAX_LAMBDA_WORK, maxVector = MAX_VECTOR_WORK): void {
  const measured = new Map<object, Measure>();
  const stack: [object, boolean][] = [];
  const push = (v: unknown) => {
    if (v && typeof v === 'object') stack.push([v, false]);
  };
  const of = (v: unknown): Measure =>
    (v && typeof v === 'object' ? measured.get(v) : undefined) ?? { work: 0, length: null, counted: false, vector: 0 };
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
    const vector = children.reduce((n: number, c) => n + of(c).vector, 0);
    const o = node as Node;
    if (Array.isArray(node) || o.class !== 'FUNCTION' || typeof o.function_name !== 'string') {
      measured.set(node, { work: sum, length: null, counted: false, vector });
      continue;
    }
    const name = o.function_name.toLowerCase();
    const args = Array.isArray(o.children) ? o.children : [];
    const lambda = args.find((a) => (a as Node | undefined)?.class === 'LAMBDA') as Node | undefined;
    if (lambda) {
      const list = of(args[0]);
      const n = list.length ?? MAX_LIST_ELEMENTS;
      const calls = n * Math.max(1, of(lambda.expr).work);
      if (calls > max) throw tooMuch(`${name}()`, calls, `${n} elements, each running its lambda`, max);
      const others = args.reduce((w: number, a) => (a === lambda ? w : w + of(a).work), 0);
      const counted = list.length !== null || list.counted;
      measured.set(node, {
        work: others + calls,
        length: SAME_LENGTH.has(name) ? list.length : null,
        counted: SAME_LENGTH.has(name) && counted,
        // Over a counted list the calls run for every row; over data the body's own counted lambdas still do.
        vector: counted ? vector - of(lambda.expr).vector + calls : vector,
      });
    } else if (SERIES.has(name)) {
      const n = seriesLength(args);
      measured.set(node, { work: sum + (n ?? MAX_LIST_ELEMENTS), length: n, counted: true, vector });
    } else if (name === 'list_value' || name === 'array_value') {
      measured.set(node, { work: sum + 1, length: args.length, counted: false, vector });
    } else {
      const counted = COUNTED_LISTS.has(name);
      measured.set(node, { work: sum + callSteps(name, args), length: null, counted, vector });
    }
  }
  const rows = rowsPerVector(tree);
  const perVector = rows * of(tree).vector;
  if (perVector > maxVector) {
    const why = `${rows} rows per vector, each running lambdas over lists the statement builds`;
    throw tooMuch('One vector of this statement', perVector, why, maxVector);
  }
}
