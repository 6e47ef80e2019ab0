/**
 * `select order_id from a join b using (order_id) join a c on true`: the USING join's merged column and the
 * later item's own column of that name are both in scope, so PostgreSQL's unqualified `order_id` is ambiguous
 * (42702); DuckDB read the merged column and answered. The parse alone says a later item has the column only
 * when it is the same table as one side of the USING join (both sides of a USING have its columns): judged so.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { bareColumnNames, type Node } from './rewrite-nodes.js';

/** `schema.table` of a plain table reference, or undefined. */
const relationOf = (n: Node | undefined): string | undefined =>
  n?.RangeVar ? `${String(n.RangeVar.schemaname ?? '')}.${String(n.RangeVar.relname)}` : undefined;

/** The plain tables anywhere in a FROM item. */
function tablesIn(n: Node | undefined, into: Set<string>): Set<string> {
  const r = relationOf(n);
  if (r) into.add(r);
  if (n?.JoinExpr) {
    tablesIn(n.JoinExpr.larg as Node, into);
    tablesIn(n.JoinExpr.rarg as Node, into);
  }
  return into;
}

const usingNames = (j: Node): string[] =>
  ((j.usingClause as Node[] | undefined) ?? []).map((u) => String(u?.String?.sval));

/** Column names a USING join merges that a FROM item joined beside it (not by USING of that name) also has. */
function ambiguousNames(item: Node, beside: readonly Node[], into: Set<string>): void {
  const j = item.JoinExpr as Node | undefined;
  if (!j) return;
  const check = (using: Node, others: readonly Node[]) => {
    const sides = new Set([relationOf(using.larg as Node), relationOf(using.rarg as Node)].filter((r) => r));
    for (const other of others) {
      const tables = tablesIn(other, new Set());
      if ([...tables].some((t) => sides.has(t))) for (const k of usingNames(using)) into.add(k);
    }
  };
  if (usingNames(j).length > 0) check(j, beside);
  // a USING join on the left of a later join: the later join's right side is beside it unless it merges the name again
  const left = j.larg as Node | undefined;
  if (left?.JoinExpr) {
    const again = new Set(usingNames(j));
    const found = new Set<string>();
    ambiguousNames(left, j.isNatural ? [...beside] : [j.rarg as Node, ...beside], found);
    for (const k of found) if (!again.has(k)) into.add(k);
  }
  if ((j.rarg as Node | undefined)?.JoinExpr) ambiguousNames(j.rarg as Node, [j.larg as Node, ...beside], into);
}

/** Throws 42702 for an unqualified name a USING join merges that a table joined beside it also has. */
export function usingAmbiguityRefused(select: Node): void {
  const from = (select.fromClause as Node[] | undefined) ?? [];
  if (!from.some((f) => f.JoinExpr)) return;
  const names = new Set<string>();
  from.forEach((item, i) => ambiguousNames(item, [...from.slice(0, i), ...from.slice(i + 1)], names));
  if (names.size === 0) return;
  const aliases = new Set(((select.targetList as Node[] | undefined) ?? []).map((t) => t.ResTarget?.name));
  const sorted = ((select.sortClause as Node[] | undefined) ?? []).filter((s) => {
    const fields = (s.SortBy?.node?.ColumnRef?.fields as Node[] | undefined) ?? [];
    return !(fields.length === 1 && aliases.has(fields[0]?.String?.sval));
  });
  const read = bareColumnNames([
    select.targetList,
    select.whereClause,
    select.groupClause,
    select.havingClause,
    sorted,
  ]);
  const name = [...names].find((k) => read.has(k));
  if (name !== undefined) throw new SqlError(SQLSTATE.ambiguousColumn, `column reference "${name}" is ambiguous`);
}
