/**
 * An untyped string compared with a jsonb value (`j = '[1,2]'`, `j IN ('{"a":1}', …)`) is jsonb in
 * PostgreSQL: its input reads it into the normal form. Left untyped, DuckDB compared it as text with the
 * normal form (`'[1,2]'::jsonb = '[1,2]'` false) or the rewrite read `'{…}'` as an array literal (22P02).
 * Written as `'…'::jsonb`, the rewrite puts it in the normal form as any jsonb constant (rewrite-casts.ts).
 */
import { isJsonbValued } from './json-containment.js';
import { compat, type Node } from './rewrite-nodes.js';

const EQUALITY = new Set(['=', '<>', '!=']);

const asJsonb = (literal: Node): Node => ({
  TypeCast: { arg: literal, typeName: { names: [{ String: { sval: 'jsonb' } }], typemod: -1 } },
});
const untypedString = (n: Node | undefined): boolean => typeof n?.A_Const?.sval?.sval === 'string';

/**
 * jsonb's equality key: the normal form (keys sorted, one per name, spacing) with each number at its least
 * scale, as PostgreSQL compares numerics by value (`{"a": 1.50}` = `{"a": 1.5}`); strings kept as written.
 * The printed text keeps `1.50`, as PostgreSQL's does.
 */
export const JSONB_KEY_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_jsonb_key(x)',
    String.raw`system.main.regexp_replace(CAST(x AS VARCHAR), '("(?:[^"\\\\]|\\\\.)*")|(-?[0-9]+)(?:(\.[0-9]*[1-9])0*|\.0+)?', '\1\2\3', 'g')`,
  ],
];

// (a backslash doubled: the macro's text is read once more as an escaped string)
const keyOf = (n: Node): Node => compat('_pgsem_jsonb_key', [n]);

/**
 * Types, in place, the untyped strings an equality or IN compares with a value written as jsonb, and compares
 * both sides by jsonb's equality key (JSONB_KEY_MACROS).
 */
export function typeJsonbLiterals(tree: unknown): void {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const n = stack.pop() as Node | null;
    if (n === null || typeof n !== 'object') continue;
    const e = n.A_Expr as Node | undefined;
    const op = String((e?.name as Node[] | undefined)?.slice(-1)[0]?.String?.sval ?? '');
    if (e && EQUALITY.has(op)) {
      if (e.kind === 'AEXPR_OP') {
        if (isJsonbValued(e.lexpr) && untypedString(e.rexpr)) e.rexpr = asJsonb(e.rexpr);
        else if (isJsonbValued(e.rexpr) && untypedString(e.lexpr)) e.lexpr = asJsonb(e.lexpr);
        if (isJsonbValued(e.lexpr) || isJsonbValued(e.rexpr)) {
          e.lexpr = keyOf(e.lexpr);
          e.rexpr = keyOf(e.rexpr);
        }
      } else if (e.kind === 'AEXPR_IN' && isJsonbValued(e.lexpr) && Array.isArray(e.rexpr?.List?.items)) {
        const list = e.rexpr.List as Node;
        list.items = (list.items as Node[]).map((x) => keyOf(untypedString(x) ? asJsonb(x) : x));
        e.lexpr = keyOf(e.lexpr);
      }
    }
    for (const v of Object.values(n)) if (v !== null && typeof v === 'object') stack.push(v);
  }
}
