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
