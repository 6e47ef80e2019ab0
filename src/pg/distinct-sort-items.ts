/**
 * `SELECT DISTINCT a … ORDER BY b`: PostgreSQL sorts the distinct rows, so an ORDER BY expression must
 * be one of the select list's (42P10); DuckDB answered, sorting by some row's b. Only the case the parse
 * alone decides is refused: a plain column the select list names nowhere (not as an item, inside an
 * item, nor as an output name) and no `*` — any other expression is left to DuckDB.
 */
import { SqlError } from '../errors.js';
import { names, type Node } from './rewrite-nodes.js';

/** The column names referenced anywhere in `n` (each ColumnRef's last field); `*` as '*'. */
function referenced(n: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(n)) for (const x of n) referenced(x, out);
  else if (n && typeof n === 'object') {
    const ref = (n as Node).ColumnRef as Node | undefined;
    if (ref) {
      const fields = ref.fields as Node[];
      const last = fields[fields.length - 1];
      out.add(last?.A_Star ? '*' : String(last?.String?.sval ?? '').toLowerCase());
    }
    for (const v of Object.values(n)) referenced(v, out);
  }
  return out;
}

/** Throws PostgreSQL's 42P10 for a plain DISTINCT whose ORDER BY names a column the select list does not. */
export function distinctSortRefused(body: Node): void {
  const distinct = body.distinctClause as Node[] | undefined;
  const sorts = body.sortClause as Node[] | undefined;
  // plain DISTINCT only (DISTINCT ON lists its expressions)
  if (!distinct || distinct.length !== 1 || Object.keys(distinct[0] ?? {}).length !== 0 || !sorts?.length) return;
  const targets = (body.targetList ?? []) as Node[];
  const named = referenced(targets, new Set<string>());
  if (named.has('*')) return;
  for (const t of targets) if (t?.ResTarget?.name) named.add(String(t.ResTarget.name).toLowerCase());
  for (const s of sorts) {
    const ref = s?.SortBy?.node?.ColumnRef as Node | undefined;
    const column = ref
      ? names(ref.fields as Node[])
          .at(-1)
          ?.toLowerCase()
      : undefined;
    if (column && !(ref!.fields as Node[]).some((f) => f?.A_Star) && !named.has(column))
      throw new SqlError('42P10', 'for SELECT DISTINCT, ORDER BY expressions must appear in select list');
  }
}
