/**
 * `select 1 a, 2 a order by a`: PostgreSQL's ORDER BY (and DISTINCT ON) reads a bare name as a result
 * column first, and two result columns of that name holding different expressions make it 42702
 * `ORDER BY "a" is ambiguous` (findTargetlistEntrySQL92); DuckDB took the first and answered. Judged for
 * the outermost select, only once its result names repeat, so other statements never parse for it.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { parsePg } from './pg-parse.js';

type Node = Record<string, any>;

/** A node's tree without where it was written: two items compare as PostgreSQL's equal() of their expressions. */
const shape = (n: unknown): string => JSON.stringify(n, (k, v: unknown) => (k === 'location' ? undefined : v));

/** The name of a bare one-part column reference, or undefined. */
function bareName(n: Node | undefined): string | undefined {
  const fields = n?.ColumnRef?.fields as Node[] | undefined;
  return fields?.length === 1 && typeof fields[0]?.String?.sval === 'string'
    ? (fields[0].String.sval as string)
    : undefined;
}

/**
 * Throws 42702 where an ORDER BY or DISTINCT ON item of the outermost select of `sql` names two of its
 * result columns (`names`, PostgreSQL's, in order) that hold different expressions. A select list with a
 * star is left alone (its items are not the columns one to one).
 */
export function refuseAmbiguousOrderBy(sql: string, names: readonly string[]): void {
  if (new Set(names).size === names.length) return;
  const tree = parsePg(sql);
  const select = tree?.stmts?.length === 1 ? (tree.stmts[0]!.stmt?.SelectStmt as Node | undefined) : undefined;
  if (!select) return;
  const setOperation = !!select.op && select.op !== 'SETOP_NONE';
  // a set operation's columns are each its own column; a plain select's are its items' expressions
  let items: readonly string[];
  if (setOperation) items = names.map((_, i) => String(i));
  else {
    const targets = (select.targetList as Node[] | undefined) ?? [];
    const star = targets.some((t) =>
      (t.ResTarget?.val?.ColumnRef?.fields as Node[] | undefined)?.some((f) => f?.A_Star),
    );
    if (star || targets.length !== names.length) return;
    items = targets.map((t) => shape(t.ResTarget?.val));
  }
  const judge = (clause: string, n: Node | undefined) => {
    const name = bareName(n);
    if (name === undefined) return;
    const held = new Set(names.flatMap((c, i) => (c === name ? [items[i]] : [])));
    if (held.size > 1) throw new SqlError(SQLSTATE.ambiguousColumn, `${clause} "${name}" is ambiguous`);
  };
  // (in the order transformSelectStmt reads them)
  for (const s of (select.sortClause as Node[] | undefined) ?? []) judge('ORDER BY', s.SortBy?.node as Node);
  if (!setOperation) for (const d of (select.distinctClause as Node[] | undefined) ?? []) judge('DISTINCT ON', d);
}
