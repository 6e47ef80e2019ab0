/**
 * Forms of DuckDB built-ins the engine's guards cannot offer, refused from DuckDB's parse with
 * what to write instead (0A000) rather than DuckDB's "macro does not support the supplied
 * arguments" (42883, which reads as a missing function). `regexp_extract_all(s, pattern, ['name',
 * …])` wants its pattern constant when its call is bound, which a guard macro's parameter never is
 * (engine/regex-guards.ts). Pure: the input is DuckDB's parse tree.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { pushMembers } from './json-objects.js';

type Node = Record<string, unknown>;

/** Whether an argument is spelled as a list: `[…]`, a list constant, or a cast to a list type. */
function spelledAsList(n: unknown): boolean {
  const o = n as Node | undefined;
  if (!o) return false;
  if (o.class === 'FUNCTION' && typeof o.function_name === 'string')
    return ['list_value', 'array_value'].includes(o.function_name.toLowerCase());
  const type = (o.class === 'CAST' ? o.cast_type : (o.value as Node | undefined)?.type) as Node | undefined;
  return type?.id === 'LIST' || type?.id === 'ARRAY';
}

export function refuseUnofferedForms(tree: unknown): void {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const o = node as Node;
    if (
      o.class === 'FUNCTION' &&
      typeof o.function_name === 'string' &&
      o.function_name.toLowerCase() === 'regexp_extract_all' &&
      Array.isArray(o.children) &&
      spelledAsList(o.children[2])
    ) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        'regexp_extract_all() with a list of group names is not supported by fdl-gateway',
        undefined,
        "Use regexp_extract(s, pattern, ['name', …]) for the first match, or regexp_extract_all(s, pattern, n) for group n of every match.",
      );
    }
    // DuckDB's postfix factorial (`5!`): PostgreSQL 15 has no postfix operators, its parser's 42601
    if (o.class === 'FUNCTION' && o.function_name === '!__postfix')
      throw new SqlError(
        SQLSTATE.syntaxError,
        'syntax error at or near "!"',
        undefined,
        'PostgreSQL has no postfix operators: write factorial(n).',
      );
    pushMembers(stack, node);
  }
}
