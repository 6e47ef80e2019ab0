/**
 * Macros that cannot capture their caller's names. DuckDB expands a macro by pasting the argument
 * expressions into its body: an argument `t.oid` inside a body's `(SELECT … FROM _types t …)` read the
 * body's `t` (`format_type(t.oid, …)` answered for the wrong type when the caller's alias was `t`).
 * Every FROM item of a body is therefore named by an alias a client can never spell (`fdl_pg…` is
 * refused in client text by containment.ts); DuckDB binds an unqualified argument in the caller's
 * scope already. The body's text is our own, rewritten once at install time, never a client's.
 */
import { mapCode } from '../../text/split.js';

const KEYWORDS = new Set([
  'where',
  'join',
  'on',
  'group',
  'order',
  'limit',
  'union',
  'left',
  'right',
  'inner',
  'cross',
  'using',
  'having',
  'window',
  'qualify',
]);
/** `FROM name [AS alias]` / `JOIN name [AS alias]` over our own qualified names and table functions. */
const FROM_ITEM = /\b(FROM|JOIN)(\s+)([A-Za-z_][\w.]*(?:\(\))?)(?:(\s+)(?:AS\s+)?([A-Za-z_]\w*))?/gi;

/** `(params) AS body` for CREATE MACRO, with the body's FROM items under aliases no caller can name. */
export function hygienicMacro(params: readonly string[], body: string): string {
  return `(${params.join(', ')}) AS ${hygienicBody(body)}`;
}

export function hygienicBody(body: string): string {
  if (!/\bSELECT\b/i.test(body)) return body;
  const renamed = new Set<string>();
  let n = 0;
  const withAliases = mapCode(body, (code) =>
    code.replace(
      FROM_ITEM,
      (whole: string, kw: string, gap: string, name: string, space: string | undefined, alias: string | undefined) => {
        if (name.startsWith('(') || KEYWORDS.has(name.toLowerCase())) return whole;
        if (alias !== undefined && !KEYWORDS.has(alias.toLowerCase())) {
          renamed.add(alias);
          return `${kw}${gap}${name} AS fdl_pg_${alias}`;
        }
        // unaliased: DuckDB would name it by its table name, which a client may use as an alias
        return `${kw}${gap}${name} AS fdl_pg_anon${n++}${space ?? ''}${alias ?? ''}`;
      },
    ),
  );
  if (renamed.size === 0) return withAliases;
  const qualified = new RegExp(`(?<![\\w.$])(${[...renamed].join('|')})\\.`, 'g');
  return mapCode(withAliases, (code) => code.replace(qualified, 'fdl_pg_$1.'));
}

/** `name(a, b)` → its parameter names. */
export function macroParams(signature: string): string[] {
  const open = signature.indexOf('(');
  return signature
    .slice(open + 1, signature.lastIndexOf(')'))
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}
