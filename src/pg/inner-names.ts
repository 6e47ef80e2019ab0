/**
 * The column names of a subquery in FROM and of a CTE, as PostgreSQL gives them. DuckDB names an
 * unaliased select-list item by its expression's text (`count_star()`, `CAST(qty AS INTEGER)`, `(1 + 1)`)
 * and the columns of VALUES col0, col1, …; PostgreSQL by FigureColname (`count`, `qty`, `?column?`) and
 * column1, column2, …. Whatever reads those names differs: `select count from (…) t`, `t.*`, a star over
 * it, `row_to_json(t)`'s keys (Superset and Metabase wrap a user's query as such a subquery). The rewrite
 * (rewrite-walk.ts) gives such items PostgreSQL's name as their alias, in PostgreSQL's own parse tree.
 * The outermost select list keeps DuckDB's names in the text: the wire sends PostgreSQL's (column-names.ts).
 */
import type { Node } from './rewrite-nodes.js';
import { names } from './rewrite-nodes.js';
import { SqlError, SQLSTATE } from '../errors.js';

/**
 * A FROM subquery (`RangeSubselect`) or a CTE (`CommonTableExpr`) whose columns DuckDB would name
 * otherwise than PostgreSQL, with PostgreSQL's names given: the select list's items as aliases (of its
 * left-most branch for a set operation), a VALUES list's as the container's column names. Undefined
 * where nothing changes (so the walk meets the result again and stops).
 */
export function withPgColumnNames(type: 'RangeSubselect' | 'CommonTableExpr', body: Node): Node | undefined {
  const query = (type === 'RangeSubselect' ? body.subquery : body.ctequery) as Node | undefined;
  const select = query?.SelectStmt as Node | undefined;
  if (!select) return undefined;
  // Columns the container's own column list names keep those names in both.
  const listed: Node[] =
    type === 'RangeSubselect' ? ((body.alias?.colnames as Node[] | undefined) ?? []) : (body.aliascolnames ?? []);
  const left = leftmost(select);
  if (left.valuesLists) {
    const width = ((left.valuesLists as Node[])[0]?.List?.items as Node[] | undefined)?.length ?? 0;
    if (width <= listed.length) return undefined;
    const colnames = [...listed];
    for (let i = listed.length; i < width; i++) colnames.push({ String: { sval: `column${i + 1}` } });
    if (type === 'CommonTableExpr') return { CommonTableExpr: { ...body, aliascolnames: colnames } };
    // PostgreSQL requires an alias on a FROM subquery; DuckDB then names the columns by the list.
    if (!body.alias) return undefined;
    return { RangeSubselect: { ...body, alias: { ...body.alias, colnames } } };
  }
  const named = namedLeftmost(select, listed.length);
  if (!named) return undefined;
  const subquery = { SelectStmt: named };
  return type === 'RangeSubselect'
    ? { RangeSubselect: { ...body, subquery } }
    : { CommonTableExpr: { ...body, ctequery: subquery } };
}

/** The left-most SELECT of a set operation (the one whose names the result takes), or the SELECT itself. */
function leftmost(select: Node): Node {
  let s = select;
  while (s.op && s.op !== 'SETOP_NONE' && s.larg) s = s.larg as Node;
  return s;
}

/**
 * `select` with its left-most branch's unnamed items (from the `skip`-th on) aliased, and a name given
 * again aliased as a hidden duplicate (DuckDB would call it `x_1`, a name PostgreSQL does not know), or undefined.
 */
function namedLeftmost(select: Node, skip: number): Node | undefined {
  if (select.op && select.op !== 'SETOP_NONE') {
    const larg = select.larg ? namedLeftmost(select.larg as Node, skip) : undefined;
    return larg ? { ...select, larg } : undefined;
  }
  const targets = select.targetList as Node[] | undefined;
  if (!targets) return undefined;
  const shown = itemNames(targets);
  const seen = new Map<string, number>();
  let changed = false;
  const targetList = targets.map((t, i) => {
    const rt = t?.ResTarget as Node | undefined;
    const name = shown?.[i];
    const again = name !== undefined ? (seen.get(name) ?? 0) : 0;
    if (name !== undefined) seen.set(name, again + 1);
    if (i < skip || !rt) return t;
    if (again > 0 && name !== undefined) {
      changed = true;
      return { ResTarget: { ...rt, name: hiddenDuplicate(name, again) } };
    }
    if (rt.name !== undefined || !needsName(rt.val as Node | undefined)) return t;
    changed = true;
    return { ResTarget: { ...rt, name: pgColumnName(rt.val as Node) } };
  });
  return changed ? { ...select, targetList } : undefined;
}

/** Each item's PostgreSQL name, or undefined when the list has a star (its columns are known only to DuckDB's binder). */
function itemNames(targets: Node[]): string[] | undefined {
  const out: string[] = [];
  for (const t of targets) {
    const rt = t?.ResTarget as Node | undefined;
    if (!rt || isStar(rt.val as Node | undefined)) return undefined;
    out.push(rt.name !== undefined ? String(rt.name) : pgColumnName(rt.val as Node));
  }
  return out;
}

const isStar = (val: Node | undefined): boolean =>
  !!(val?.ColumnRef?.fields as Node[] | undefined)?.some((f) => f?.A_Star !== undefined);

/**
 * A column named like an earlier one of the same subquery: PostgreSQL shows both by that name and refuses
 * a reference to it as ambiguous (42702). DuckDB renames the later one `x_1`; the gateway names it
 * `x` + a private-use mark + its count instead, which no client writes, and the wire shows `x` (shownColumnName).
 */
const DUPLICATE_MARK = '\u{F8FF}';
const hiddenDuplicate = (name: string, again: number): string => `${name}${DUPLICATE_MARK}${again}`;

/** A result column's name as the client is sent it: a hidden duplicate's mark dropped. */
export function shownColumnName(name: string): string {
  const at = name.indexOf(DUPLICATE_MARK);
  return at < 0 ? name : name.slice(0, at);
}

/**
 * PostgreSQL's 42702 for a column of a FROM subquery (or a CTE read in FROM) that names two of its
 * columns alike, referenced in `select`'s select list, WHERE or HAVING by that name (qualified by the
 * item's alias or not), GROUP BY or ORDER BY (other than an explicit alias of the select list); 0A000 for the
 * item's whole row (DuckDB's struct cannot hold one name twice). Nested subqueries are not read.
 */
export function refuseAmbiguousColumns(select: Node, ctes: ReadonlyMap<string, Node>): void {
  const twice = new Map<string, Set<string>>(); // FROM item name → names it gives twice
  const fromItem = (item: Node | undefined): void => {
    if (!item) return;
    if (item.JoinExpr) {
      fromItem(item.JoinExpr.larg as Node);
      fromItem(item.JoinExpr.rarg as Node);
      return;
    }
    const sub = item.RangeSubselect as Node | undefined;
    const cte = item.RangeVar && !item.RangeVar.schemaname ? ctes.get(String(item.RangeVar.relname)) : undefined;
    const query = (sub?.subquery ?? cte?.ctequery)?.SelectStmt as Node | undefined;
    const alias = sub ? sub.alias?.aliasname : (item.RangeVar?.alias?.aliasname ?? item.RangeVar?.relname);
    if (!query || typeof alias !== 'string') return;
    const listed = ((sub ? sub.alias?.colnames : cte?.aliascolnames) as Node[] | undefined) ?? [];
    const left = leftmost(query);
    if (left.valuesLists) return;
    const names = itemNames((left.targetList as Node[] | undefined) ?? []);
    if (!names) return;
    listed.forEach((n, i) => i < names.length && (names[i] = String(n?.String?.sval)));
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    const dup = new Set([...counts].filter(([, c]) => c > 1).map(([n]) => n));
    if (dup.size > 0) twice.set(alias, dup);
  };
  for (const item of (select.fromClause as Node[] | undefined) ?? []) fromItem(item);
  if (twice.size === 0) return;
  const refs: Node[] = [];
  collectRefs([select.targetList, select.whereClause, select.havingClause, select.groupClause], refs);
  // An ORDER BY item that is a bare name reads the select list's item of that name first (an alias given
  // explicitly); anything else in ORDER BY, and GROUP BY, reads the FROM items' columns (PostgreSQL's
  // findTargetlistEntrySQL92): a `*` over the subquery shows both columns, so a bare name is ambiguous too.
  const aliases = new Set(((select.targetList as Node[] | undefined) ?? []).map((t) => t.ResTarget?.name));
  for (const sort of (select.sortClause as Node[] | undefined) ?? []) {
    const fields = (sort.SortBy?.node?.ColumnRef?.fields as Node[] | undefined) ?? [];
    if (fields.length === 1 && aliases.has(fields[0]?.String?.sval)) continue;
    collectRefs(sort, refs);
  }
  for (const ref of refs) {
    const fields = (ref.fields as Node[]).map((f) => f?.String?.sval as string | undefined);
    if (fields.some((f) => f === undefined)) continue;
    const column = fields[fields.length - 1]!;
    // the whole row (`row_to_json(t)`): PostgreSQL's record has both names, DuckDB's struct cannot
    if (fields.length === 1 && twice.has(column) && ![...twice.values()].some((d) => d.has(column)))
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `a whole-row reference to "${column}", which names two columns alike, is not supported by fdl-gateway`,
        undefined,
        `Give the columns of "${column}" distinct aliases.`,
      );
    const ambiguous =
      fields.length === 1
        ? [...twice.values()].some((d) => d.has(column))
        : fields.length === 2 && twice.get(fields[0]!)?.has(column) === true;
    if (ambiguous) throw new SqlError(SQLSTATE.ambiguousColumn, `column reference "${fields.join('.')}" is ambiguous`);
  }
}

/** ColumnRef bodies under `node`, not inside a nested SELECT. */
function collectRefs(node: unknown, into: Node[]): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      stack.push(...n);
      continue;
    }
    if (!n || typeof n !== 'object') continue;
    const o = n as Node;
    if (o.SelectStmt) continue;
    if (o.ColumnRef) {
      into.push(o.ColumnRef as Node);
      continue;
    }
    stack.push(...Object.values(o));
  }
}

/** The CTEs of a statement by name (a name defined twice keeps its last: nothing is judged of it then). */
export function ctesByName(tree: unknown): Map<string, Node> {
  const out = new Map<string, Node>();
  const twice = new Set<string>();
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      stack.push(...n);
      continue;
    }
    if (!n || typeof n !== 'object') continue;
    const cte = (n as Node).CommonTableExpr as Node | undefined;
    if (cte && typeof cte.ctename === 'string') {
      if (out.has(cte.ctename)) twice.add(cte.ctename);
      out.set(cte.ctename, cte);
    }
    stack.push(...Object.values(n as Node));
  }
  for (const name of twice) out.delete(name);
  return out;
}

/**
 * Whether DuckDB's name of an unaliased item may differ from PostgreSQL's: anything but a column
 * reference (both name it by its last part) or a star.
 */
const needsName = (val: Node | undefined): boolean => !!val && !val.ColumnRef;

/** PostgreSQL's name of an unaliased select-list item (FigureColname), `?column?` where it has none. */
export function pgColumnName(val: Node): string {
  return figure(val)[0] ?? '?column?';
}

/**
 * PostgreSQL 15's FigureColnameInternal over its raw parse tree: a name and its strength (2 a real
 * name, 1 a type's name or `case`, 0 none). A cast of something with no better name is named after
 * its type; CASE after its ELSE where that has a real name.
 */
function figure(n: Node | undefined, depth = 0): [string | undefined, number] {
  if (!n || depth > 200) return [undefined, 0];
  if (n.ColumnRef) {
    const last = (n.ColumnRef.fields as Node[]).slice(-1)[0];
    return last?.String ? [String(last.String.sval), 2] : [undefined, 0];
  }
  if (n.A_Indirection) {
    // the last field name among the steps; subscripts alone are named after what they subscript
    const fields = (n.A_Indirection.indirection as Node[]).filter((s) => s?.String);
    const last = fields.slice(-1)[0];
    return last ? [String(last.String.sval), 2] : figure(n.A_Indirection.arg as Node, depth + 1);
  }
  if (n.FuncCall) return [names(n.FuncCall.funcname).slice(-1)[0], 2];
  if (n.A_Expr) return n.A_Expr.kind === 'AEXPR_NULLIF' ? ['nullif', 2] : [undefined, 0];
  if (n.TypeCast) {
    const inner = figure(n.TypeCast.arg as Node, depth + 1);
    return inner[1] <= 1 ? [names(n.TypeCast.typeName?.names).slice(-1)[0], 1] : inner;
  }
  if (n.CollateClause) return figure(n.CollateClause.arg as Node, depth + 1);
  if (n.GroupingFunc) return ['grouping', 2];
  if (n.SubLink) {
    const sub = n.SubLink as Node;
    if (sub.subLinkType === 'EXISTS_SUBLINK') return ['exists', 2];
    if (sub.subLinkType === 'ARRAY_SUBLINK') return ['array', 2];
    if (sub.subLinkType !== 'EXPR_SUBLINK') return [undefined, 0];
    // a scalar subquery: its one column's name (resname: an alias, or its own figured name)
    const select = sub.subselect?.SelectStmt as Node | undefined;
    const target = (leftmost(select ?? {}).targetList as Node[] | undefined)?.[0]?.ResTarget as Node | undefined;
    if (!target) return [undefined, 0];
    return [target.name !== undefined ? String(target.name) : pgColumnName(target.val as Node), 2];
  }
  if (n.CaseExpr) {
    const inner = figure(n.CaseExpr.defresult as Node | undefined, depth + 1);
    return inner[1] === 2 ? inner : ['case', 1];
  }
  if (n.A_ArrayExpr) return ['array', 2];
  if (n.RowExpr) return ['row', 2];
  if (n.CoalesceExpr) return ['coalesce', 2];
  if (n.MinMaxExpr) return [n.MinMaxExpr.op === 'IS_GREATEST' ? 'greatest' : 'least', 2];
  if (n.SQLValueFunction)
    return [
      String(n.SQLValueFunction.op)
        .replace(/^SVFOP_/, '')
        .toLowerCase()
        .replace(/_n$/, ''),
      2,
    ];
  return [undefined, 0];
}
