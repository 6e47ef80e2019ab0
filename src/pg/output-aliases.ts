/**
 * `select 1 as x order by x + 1`: PostgreSQL reads a select list's alias in ORDER BY and GROUP BY only as a
 * bare item; a name inside an expression reads the FROM items' columns, and without any it does not exist
 * (42703). DuckDB reads the alias there too and answered. Judged only for an outermost SELECT without FROM
 * (no table, no outer query whose columns the name could read); with a FROM the name may be a column there,
 * which DuckDB reads first as PostgreSQL does.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { bareColumnNames, type Node } from './rewrite-nodes.js';

/** Throws 42703 for an alias read inside an ORDER BY or GROUP BY expression of a SELECT without FROM. */
export function aliasInExpressionRefused(select: Node): void {
  if ((select.fromClause as Node[] | undefined)?.length || (select.op && select.op !== 'SETOP_NONE')) return;
  const aliases = new Set(((select.targetList as Node[] | undefined) ?? []).map((t) => t.ResTarget?.name));
  const bare = (n: Node | undefined) => (n?.ColumnRef?.fields as Node[] | undefined)?.length === 1;
  const expressions = [
    ...((select.sortClause as Node[] | undefined) ?? []).map((s) => s.SortBy?.node as Node | undefined),
    ...((select.groupClause as Node[] | undefined) ?? []),
  ].filter((n) => !bare(n));
  const name = [...bareColumnNames(expressions)].find((n) => aliases.has(n));
  if (name !== undefined) throw new SqlError(SQLSTATE.undefinedColumn, `column "${name}" does not exist`);
}

/**
 * `select qty as x from t order by x + 1`: with one FROM item (no join), a select-list alias read inside an
 * ORDER BY or GROUP BY expression is qualified by that item's name, so DuckDB reads it only as the item's
 * column, as PostgreSQL does: the same column where the item has one, else 42703 (DuckDB read the alias and
 * answered). Undefined when there is nothing to qualify.
 *
 * Each qualified name is also read in the WHERE clause (`and (o.x is null or true)`, always true): DuckDB
 * binds WHERE first and names a missing column there (42703), where inside a typed macro's argument (a
 * float check, a division, round) it failed the overload choice instead (42725).
 */
export function aliasesInExpressionsQualified(select: Node): Node | undefined {
  const from = select.fromClause as Node[] | undefined;
  if (from?.length !== 1 || (select.op && select.op !== 'SETOP_NONE')) return undefined;
  const item = from[0]!;
  const qualifier: unknown =
    item.RangeVar?.alias?.aliasname ??
    item.RangeVar?.relname ??
    item.RangeSubselect?.alias?.aliasname ??
    item.RangeFunction?.alias?.aliasname;
  if (typeof qualifier !== 'string') return undefined;
  const aliases = new Set(((select.targetList as Node[] | undefined) ?? []).map((t) => t.ResTarget?.name));
  const read: Node[] = [];
  const qualified = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(qualified);
    if (!n || typeof n !== 'object') return n;
    const node = n as Node;
    // a subquery's names are its own FROM items' first; a grouping set's items read aliases as bare items do
    if (node.SelectStmt || node.GroupingSet) return node;
    const fields = node.ColumnRef?.fields as Node[] | undefined;
    if (fields?.length === 1 && aliases.has(fields[0]?.String?.sval)) {
      const ref: Node = { ColumnRef: { ...node.ColumnRef, fields: [{ String: { sval: qualifier } }, fields[0]] } };
      read.push(ref);
      return ref;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, qualified(v)]));
  };
  const bare = (n: Node | undefined) => (n?.ColumnRef?.fields as Node[] | undefined)?.length === 1;
  const sortClause = (select.sortClause as Node[] | undefined)?.map((s) =>
    bare(s.SortBy?.node) ? s : { SortBy: { ...s.SortBy, node: qualified(s.SortBy?.node) } },
  );
  const groupClause = (select.groupClause as Node[] | undefined)?.map((g) => (bare(g) ? g : qualified(g)));
  if (!read.length) return undefined;
  const readInWhere = read.map((ref): Node => ({
    BoolExpr: {
      boolop: 'OR_EXPR',
      args: [
        { NullTest: { arg: structuredClone(ref), nulltesttype: 'IS_NULL' } },
        { A_Const: { boolval: { boolval: true } } },
      ],
    },
  }));
  const terms = [...(select.whereClause ? [select.whereClause as Node] : []), ...readInWhere];
  const whereClause: Node = terms.length === 1 ? terms[0]! : { BoolExpr: { boolop: 'AND_EXPR', args: terms } };
  return { ...select, sortClause, groupClause, whereClause };
}
