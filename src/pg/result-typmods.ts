/**
 * Which result columns keep a numeric's declared precision and scale in RowDescription, as PostgreSQL's
 * exprTypmod decides: a column read as it is, a cast to numeric(p,s), a scalar subquery of those, and a
 * choice among them (CASE, COALESCE, NULLIF, GREATEST, LEAST) where every branch has the same typmod;
 * any other expression (`sum(x)`, `x * 2`, `round(x, 2)`, a literal) is numeric with typmod -1, where
 * DuckDB's DECIMAL(p,s) of it had been sent as a typmod of its own.
 *
 * Read from DuckDB's parse of the client's text (analysis/analysis.ts), item by item of the top-level
 * select list. A column of a derived table or CTE is its select item's verdict; a set operation keeps a
 * position's typmod only where every branch has the same one.
 */
import { sourceShape, type SourceShape } from '../analysis/column-sources.js';

type Node = Record<string, any>;

/**
 * A numeric a choice passes on: a table column's declared typmod, read at planning from the tables of
 * its own query (`scope`, column-sources.ts), or a cast's own typmod.
 */
export type TypmodLeaf =
  { column: string; qualifier: string | null; scope: SourceShape | undefined } | { typmod: number };

/**
 * Per top-level select item: whether DuckDB's typmod is kept, 'star' (table columns, kept), or a choice
 * whose typmod is its leaves' where they all agree (-1 otherwise), as PostgreSQL's exprTypmod of a
 * CaseExpr, CoalesceExpr, NullIfExpr or MinMaxExpr.
 */
export type KeptTypmod = boolean | 'star' | { agree: TypmodLeaf[] };

/** An item's verdict, and the leaves its typmod comes from (null where it is -1 or not known from them). */
interface Verdict {
  kept: KeptTypmod;
  leaves: TypmodLeaf[] | null;
}

/** DuckDB's spelling of a bare `numeric`/`decimal` (no precision): DECIMAL(18,3). PostgreSQL's typmod is then -1. */
const BARE_NUMERIC = { width: 18, scale: 3 };

/** A derived table's or CTE's columns by name (lower case); undefined where its columns are not known. */
type Derived = Map<string, Map<string, Verdict> | undefined>;

/** What a select item reads its columns from. */
interface Scope {
  derived: Derived;
  shape: SourceShape | undefined;
}

export function figureKeptTypmods(node: Node | undefined): KeptTypmod[] | undefined {
  return verdicts(node)?.map((v) => v.kept);
}

function verdicts(node: Node | undefined): Verdict[] | undefined {
  if (node?.type === 'SET_OPERATION_NODE') {
    const [l, r] = [verdicts(node.left as Node), verdicts(node.right as Node)];
    if (!l || !r || l.length !== r.length) return undefined;
    return l.map((a, i) => union(a, r[i]!));
  }
  if (node?.type !== 'SELECT_NODE' || !Array.isArray(node.select_list)) return undefined;
  const rows = valuesRows(node);
  if (rows) {
    // VALUES: a column's rows as a set operation's branches (PostgreSQL's common type and typmod of them)
    const none: Scope = { derived: new Map(), shape: undefined };
    return rows[0]!.map((_, i) =>
      rows.slice(1).reduce((v, row) => union(v, verdictOf(row[i], none)), verdictOf(rows[0]![i], none)),
    );
  }
  const scope: Scope = { derived: derivedColumns(node), shape: sourceShape(node) };
  return (node.select_list as Node[]).flatMap((item): Verdict[] => {
    if (item.class !== 'STAR') return [verdictOf(item, scope)];
    // `*` over one derived table or CTE alone: its own items' verdicts, in order
    const ft = node.from_table as Node | undefined;
    const only = scope.derived.size === 1 ? [...scope.derived.entries()][0]! : undefined;
    const single = ft?.type === 'SUBQUERY' || (ft?.type === 'BASE_TABLE' && !ft.schema_name);
    const plain = !item.columns && !item.expr && !item.exclude_list?.length && !item.replace_list?.length;
    const named = !item.relation_name || String(item.relation_name).toLowerCase() === only?.[0];
    return single && only?.[1] && plain && named ? [...only[1].values()] : [{ kept: 'star', leaves: null }];
  });
}

/** A set operation's position: a star only with stars; its branches' leaves together (DuckDB widens a DECIMAL that differs). */
function union(a: Verdict, b: Verdict): Verdict {
  if (a.kept === 'star' || b.kept === 'star') return { kept: a.kept === b.kept, leaves: null };
  const leaves = a.leaves && b.leaves && [...a.leaves, ...b.leaves];
  if (!leaves && a.kept === true && b.kept === true) return { kept: true, leaves };
  return { kept: leaves ? { agree: leaves } : false, leaves };
}

function verdictOf(e: Node | undefined, scope: Scope): Verdict {
  switch (e?.class) {
    case 'COLUMN_REF': {
      const derived = derivedColumn(e, scope);
      if (derived) return derived;
      return { kept: true, leaves: leavesOf(e, scope) };
    }
    case 'CAST':
      return { kept: castTypmod(e) !== undefined, leaves: leavesOf(e, scope) };
    case 'SUBQUERY': {
      if (e.subquery_type !== 'SCALAR') return { kept: false, leaves: null };
      const k = verdicts((e.subquery as Node | undefined)?.node as Node | undefined);
      return k?.length === 1 && k[0]!.kept !== 'star' ? k[0]! : { kept: false, leaves: null };
    }
    default: {
      const leaves = choiceLeaves(e, scope);
      return { kept: leaves ? { agree: leaves } : false, leaves };
    }
  }
}

/** A column of a derived table or CTE: its select item's verdict; undefined for a table's column. */
function derivedColumn(e: Node, scope: Scope): Verdict | undefined {
  const names = e.column_names as string[];
  if (!Array.isArray(names) || names.length === 0) return undefined;
  const column = String(names[names.length - 1]).toLowerCase();
  const tables =
    names.length === 1
      ? [...scope.derived.values()]
      : names.length === 2
        ? [scope.derived.get(String(names[0]).toLowerCase())]
        : [];
  for (const t of tables) {
    const v = t?.get(column);
    if (v) return v;
  }
  return undefined;
}

/** numeric(p,s)'s typmod of a cast to it; undefined for a bare numeric (typmod -1) or another type. */
function castTypmod(e: Node): number | undefined {
  const t = e.cast_type as Node | undefined;
  if (t?.id !== 'DECIMAL') return undefined;
  const info = (t.type_info ?? {}) as Node;
  if (info.width === BARE_NUMERIC.width && info.scale === BARE_NUMERIC.scale) return undefined;
  return ((Number(info.width) << 16) | Number(info.scale)) + 4;
}

/** The numerics a value can come from, each of whose typmods it keeps; null where PostgreSQL's is -1. */
function leavesOf(e: Node | undefined, scope: Scope): TypmodLeaf[] | null {
  if (e?.class === 'COLUMN_REF') {
    const derived = derivedColumn(e, scope);
    if (derived) return derived.leaves;
    const names = e.column_names as string[];
    if (!Array.isArray(names) || names.length === 0 || names.length > 3) return null;
    const qualifier = names.length >= 2 ? names[names.length - 2]! : null;
    return [{ column: names[names.length - 1]!, qualifier, scope: scope.shape }];
  }
  if (e?.class === 'CAST') {
    const typmod = castTypmod(e);
    return typmod === undefined ? null : [{ typmod }];
  }
  return choiceLeaves(e, scope);
}

/**
 * A choice's leaves. CASE: every THEN and the ELSE (DuckDB's parse of a CASE without ELSE has ELSE NULL,
 * a NULL of typmod -1 in PostgreSQL). COALESCE: its arguments but NULL constants, which PostgreSQL's
 * planner drops before the result is described. NULLIF: its first argument. GREATEST/LEAST: all.
 */
function choiceLeaves(e: Node | undefined, scope: Scope): TypmodLeaf[] | null {
  let branches: Node[];
  if (e?.class === 'CASE')
    branches = [...((e.case_checks ?? []) as Node[]).map((c) => c.then_expr as Node), e.else_expr as Node];
  else if (e?.class === 'OPERATOR' && e.type === 'OPERATOR_COALESCE' && Array.isArray(e.children))
    branches = (e.children as Node[]).filter((c) => !isNullConstant(c));
  else if (e?.class === 'FUNCTION' && Array.isArray(e.children) && ['', 'pg_catalog'].includes(e.schema ?? '')) {
    const name = String(e.function_name).toLowerCase();
    if (name === 'nullif' && e.children.length === 2) branches = [e.children[0] as Node];
    else if ((name === 'greatest' || name === 'least') && !e.distinct && !e.filter) branches = e.children as Node[];
    else return null;
  } else return null;
  if (branches.length === 0) return null;
  const leaves: TypmodLeaf[] = [];
  for (const b of branches) {
    const of = leavesOf(b, scope);
    if (!of) return null;
    leaves.push(...of);
  }
  return leaves;
}

const isNullConstant = (e: Node | undefined): boolean =>
  e?.class === 'CONSTANT' && (e.value as Node | undefined)?.is_null === true;

/** The columns of each derived table (FROM's subqueries, by alias) and CTE (by name) a SELECT reads. */
function derivedColumns(node: Node): Derived {
  const out: Derived = new Map();
  const add = (name: string, query: Node | undefined, aliases: unknown) => {
    const k = verdicts(query);
    const names = outputNames(query);
    const renamed = Array.isArray(aliases) ? (aliases as string[]) : [];
    out.set(
      name.toLowerCase(),
      !k || !names || k.some((v) => v.kept === 'star') || k.length !== names.length
        ? undefined // columns not known here: none of them vouched for
        : new Map(names.map((n, i) => [String(renamed[i] ?? n).toLowerCase(), k[i]!])),
    );
  };
  const ctes = new Map<string, Node>();
  for (const entry of (node.cte_map?.map ?? []) as Node[])
    ctes.set(String(entry.key).toLowerCase(), entry.value as Node);
  const from = (n: Node | undefined): void => {
    if (n?.type === 'SUBQUERY' && n.alias)
      add(String(n.alias), (n.subquery as Node)?.node as Node, n.column_name_alias);
    else if (n?.type === 'BASE_TABLE' && !n.schema_name && ctes.has(String(n.table_name).toLowerCase())) {
      const cte = ctes.get(String(n.table_name).toLowerCase())!;
      const aliases = (cte.aliases as string[] | undefined)?.length ? cte.aliases : n.column_name_alias;
      add(String(n.alias || n.table_name), (cte.query as Node)?.node as Node, aliases);
    } else if (n?.type === 'JOIN') {
      from(n.left as Node);
      from(n.right as Node);
    }
  };
  from(node.from_table as Node | undefined);
  return out;
}

/** The rows of DuckDB's parse of VALUES (`SELECT * FROM <expression list>`), each as long as the first. */
function valuesRows(node: Node): Node[][] | undefined {
  const list = node.from_table as Node | undefined;
  const [item, ...more] = node.select_list as Node[];
  if (list?.type !== 'EXPRESSION_LIST' || more.length > 0 || item?.class !== 'STAR' || item.relation_name)
    return undefined;
  const rows = list.values as Node[][] | undefined;
  return Array.isArray(rows) && rows.length > 0 && rows.every((r) => Array.isArray(r) && r.length === rows[0]!.length)
    ? rows
    : undefined;
}

/** A query's output column names as DuckDB's parse gives them: an alias, or a column reference's last name. */
function outputNames(node: Node | undefined): string[] | undefined {
  if (node?.type === 'SET_OPERATION_NODE') return outputNames(node.left as Node);
  if (node?.type !== 'SELECT_NODE' || !Array.isArray(node.select_list)) return undefined;
  const rows = valuesRows(node);
  if (rows) return rows[0]!.map((_, i) => `col${i}`); // DuckDB's names of VALUES' columns
  const names: string[] = [];
  for (const item of node.select_list as Node[]) {
    if (item.alias) names.push(String(item.alias));
    else if (item.class === 'COLUMN_REF') names.push(String((item.column_names as string[]).at(-1)));
    else if (item.class === 'STAR') return undefined;
    else names.push(`?${names.length}`); // a computed item's name is PostgreSQL's own: never matched here
  }
  return names;
}

/** Per result column (a star expanded to the columns around it), what its typmod keeps; null when unsure. */
export function keptTypmodsFor(
  kept: readonly KeptTypmod[] | undefined,
  columns: number,
): Exclude<KeptTypmod, 'star'>[] | null {
  if (!kept) return null;
  const stars = kept.filter((k) => k === 'star').length;
  if (stars > 1 || (stars === 0 && kept.length !== columns) || (stars === 1 && columns < kept.length - 1)) return null;
  const out: Exclude<KeptTypmod, 'star'>[] = [];
  for (const k of kept) {
    if (k !== 'star') out.push(k);
    else for (let i = 0; i < columns - (kept.length - 1); i++) out.push(true);
  }
  return out;
}
