/**
 * An untyped string compared with a jsonb value (`j = '[1,2]'`, `j IN ('{"a":1}', …)`) is jsonb in
 * PostgreSQL: its input reads it into the normal form. Left untyped, DuckDB compared it as text with the
 * normal form (`'[1,2]'::jsonb = '[1,2]'` false) or the rewrite read `'{…}'` as an array literal (22P02).
 * Written as `'…'::jsonb`, the rewrite puts it in the normal form as any jsonb constant (rewrite-casts.ts).
 */
import { isJsonbValued } from './json-containment.js';
import type { Node } from './rewrite-nodes.js';

const EQUALITY = new Set(['=', '<>', '!=']);

const asJsonb = (literal: Node): Node => ({
  TypeCast: { arg: literal, typeName: { names: [{ String: { sval: 'jsonb' } }], typemod: -1 } },
});
const untypedString = (n: Node | undefined): boolean => typeof n?.A_Const?.sval?.sval === 'string';

/** Types, in place, the untyped strings an equality or IN compares with a value written as jsonb. */
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
      } else if (e.kind === 'AEXPR_IN' && isJsonbValued(e.lexpr) && Array.isArray(e.rexpr?.List?.items)) {
        const list = e.rexpr.List as Node;
        list.items = (list.items as Node[]).map((x) => (untypedString(x) ? asJsonb(x) : x));
      }
    }
    for (const v of Object.values(n)) if (v !== null && typeof v === 'object') stack.push(v);
  }
}
