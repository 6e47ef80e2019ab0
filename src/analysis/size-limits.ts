/**
 * Sizes a statement asks for in its own text: a call that builds one value from a constant count
 * (repeat('x', 1500000000), range(300000000) as a list, lpad to a billion characters). DuckDB folds
 * such a constant while it prepares the statement, which no timeout or cancel can stop, outside its
 * memory_limit; the process ceiling (memory-ceiling.ts) ends it with 53200 once it runs into it. This
 * check refuses it before DuckDB sees it (54000), whatever memoryLimit is. Counts that are not
 * constants are left to the ceiling. Pure: the input is DuckDB's parse tree (json_serialize_sql).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { pushMembers } from './json-objects.js';
import { GUARD_ARGUMENT_COPIES, MAX_GUARD_COPIES } from '../engine/value-guards.js';

const PIPES_MACRO = '_pgsem_pipes';

/** The largest value one call may build from constants: characters, bytes or list elements. */
export const MAX_CONSTANT_VALUE = 64 * 1024 * 1024;

type Node = Record<string, unknown>;

/** The number a constant argument stands for (through casts), or null when it is not one. */
function constantNumber(n: unknown): number | null {
  let o = n as Node | undefined;
  while (o && o.class === 'CAST') o = o.child as Node | undefined;
  if (!o || o.class !== 'CONSTANT') return null;
  const v = (o.value as { is_null?: boolean; value?: unknown } | undefined) ?? {};
  if (v.is_null) return null;
  const x = typeof v.value === 'number' || typeof v.value === 'string' ? Number(v.value) : NaN;
  return Number.isFinite(x) ? x : null;
}

/** The length of a constant string argument (1 when it is not one). */
function constantLength(n: unknown): number {
  const o = n as Node | undefined;
  const v = o?.class === 'CONSTANT' ? (o.value as { value?: unknown } | undefined)?.value : undefined;
  return typeof v === 'string' ? Math.max(1, Buffer.byteLength(v)) : 1;
}

/** What one call would build, from its constant arguments; null when unknown. */
function requestedSize(name: string, args: unknown[]): number | null {
  const num = (i: number) => constantNumber(args[i]);
  switch (name) {
    case 'repeat': {
      const n = num(1);
      return n === null ? null : n * constantLength(args[0]);
    }
    case 'lpad':
    case 'rpad':
    case 'list_resize':
    case 'array_resize':
      return num(1);
    case 'to_base':
      return num(2);
    case 'range':
    case 'generate_series': {
      const nums = args.map((_, i) => num(i));
      if (nums.length === 0 || nums.some((x) => x === null)) return null;
      const [a, b, step] = nums.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
      return step === 0 ? null : Math.abs((b - a) / step);
    }
    default:
      return null;
  }
}

/** DuckDB's list aggregates (list_aggr and its aliases), which an engine guard cannot shadow. */
const LIST_AGGREGATES = new Set(['list_aggr', 'array_aggr', 'list_aggregate', 'array_aggregate', 'aggregate']);
const JOINING_AGGREGATES = new Set(['string_agg', 'group_concat', 'listagg']);
/** The longest separator a list aggregate may put between every two elements. */
export const MAX_JOIN_SEPARATOR = 64;

/** The bytes of every string constant under `n` (what a folded expression of them could print at most, unrepeated). */
function textBytes(n: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [n];
  while (stack.length > 0) {
    const o = stack.pop();
    if (!o || typeof o !== 'object') continue;
    const v =
      (o as Node).class === 'CONSTANT' ? ((o as Node).value as { value?: unknown } | undefined)?.value : undefined;
    if (typeof v === 'string') bytes += Buffer.byteLength(v);
    pushMembers(stack, o);
  }
  return bytes;
}

/**
 * `list_aggr(list, 'string_agg', separator)` prints the separator once per element in one call
 * (DuckDB wants it constant; the list's length comes from the data): a separator over
 * MAX_JOIN_SEPARATOR bytes is refused 54000, so the result stays within a few times the list.
 * (`array_to_string`, which calls it, is guarded in the engine: growth-guards.ts.)
 */
function checkJoinSeparator(name: string, args: unknown[]): void {
  if (!LIST_AGGREGATES.has(name) || args.length < 3) return;
  const fn = (args[1] as Node | undefined)?.class === 'CONSTANT' ? (args[1] as Node).value : undefined;
  const aggregate = (fn as { value?: unknown } | undefined)?.value;
  if (typeof aggregate !== 'string' || !JOINING_AGGREGATES.has(aggregate.toLowerCase())) return;
  if (textBytes(args[2]) <= MAX_JOIN_SEPARATOR) return;
  throw new SqlError(
    SQLSTATE.programLimitExceeded,
    `${name}() with ${aggregate.toLowerCase()} takes a separator of at most ${MAX_JOIN_SEPARATOR} bytes`,
    undefined,
    'The separator is repeated between every two elements of the list in one call.',
  );
}

/**
 * Throw 54000 when a call of the statement would build a value over `max` from constant arguments.
 * `tree` is json_serialize_sql's output, parsed. Table functions (range(…) in FROM) stream their
 * rows and are not values: their own arguments are still checked.
 */
export function checkSizeLimits(tree: unknown, max = MAX_CONSTANT_VALUE): void {
  // An explicit stack (no recursion): a deeply nested statement cannot exhaust the call stack.
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const n of node) if (n && typeof n === 'object') stack.push(n);
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    const o = node as Node;
    if (o.type === 'TABLE_FUNCTION') {
      const fn = o.function as Node | undefined;
      if (fn) stack.push(fn.children);
      for (const k in o) {
        const v = o[k];
        if (k !== 'function' && v && typeof v === 'object') stack.push(v);
      }
      continue;
    }
    if (o.class === 'FUNCTION' && typeof o.function_name === 'string' && !o.catalog) {
      const name = o.function_name.toLowerCase();
      checkJoinSeparator(name, Array.isArray(o.children) ? o.children : []);
      const size = requestedSize(name, Array.isArray(o.children) ? o.children : []);
      if (size !== null && size > max) {
        throw new SqlError(
          SQLSTATE.programLimitExceeded,
          `${name}() would build a value of ${size} elements or bytes, over the gateway's limit of ${max}`,
          undefined,
          'Ask for smaller values; a table function in FROM (range(n)) streams its rows instead.',
        );
      }
    }
    pushMembers(stack, o);
  }
}

/**
 * Throw 54001 when a guarded call would be bound more than MAX_GUARD_COPIES times through nested
 * guarded calls (engine/value-guards.ts: each guard's macro body names its arguments several times,
 * and DuckDB's binder, which nothing interrupts, copies an argument per appearance).
 */
export function checkGuardNesting(tree: unknown): void {
  const stack: [unknown, number][] = [[tree, 1]];
  while (stack.length > 0) {
    const [node, copies] = stack.pop()!;
    if (Array.isArray(node)) {
      for (const n of node) if (n && typeof n === 'object') stack.push([n, copies]);
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    const o = node as Node;
    // the engine's guards, unqualified; the rewrite's `||` chain, qualified (fdl_pg.pgcat._pgsem_pipes)
    const perArgument =
      o.class === 'FUNCTION' && typeof o.function_name === 'string' && (!o.catalog || o.function_name === PIPES_MACRO)
        ? GUARD_ARGUMENT_COPIES[o.function_name.toLowerCase()]
        : undefined;
    if (perArgument && Array.isArray(o.children)) {
      // A guarded call is itself a macro expanded each time it is copied (leaves cost nothing).
      if (copies > MAX_GUARD_COPIES) {
        throw new SqlError(
          SQLSTATE.statementTooComplex,
          `statement is too complex: calls of ${String(o.function_name)}() and other size-checked functions are nested too deeply`,
          undefined,
          'Nest fewer of them in one expression, e.g. compute a step in a subquery.',
        );
      }
      o.children.forEach((child, i) =>
        stack.push([child, copies * (perArgument[Math.min(i, perArgument.length - 1)] ?? 1)]),
      );
      for (const k in o) {
        const v = o[k];
        if (k !== 'children' && v && typeof v === 'object') stack.push([v, copies]);
      }
      continue;
    }
    for (const k in o) {
      const v = o[k];
      if (v && typeof v === 'object') stack.push([v, copies]);
    }
  }
}
