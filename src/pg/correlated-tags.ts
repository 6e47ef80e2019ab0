/**
 * A typed macro's tag (pg-result-types.ts tagOf) inside a subquery that reads a column of an outer
 * query: DuckDB binds a macro's typed arguments without the outer scopes, so every typed overload
 * matched and the statement failed with 42725 (`(select o.amount / 3)`, `(select round(avg(x) / o.qty, 2)
 * from …)`). The tag only names a type: an outer column in it is replaced by a stand-in of the same
 * type that reads no outer scope — `(SELECT o.qty FROM sales.orders AS o LIMIT 0)`, the column's FROM
 * item repeated (a table, a derived table, or a function in FROM that is not LATERAL). The value arguments keep
 * the outer column. Applied once over the walked tree. A
 * function in FROM is such a subquery once rewritten (`from sales.orders, lateral generate_series(ordered_at, …)`).
 */
type Node = Record<string, any>;

/** The tags the walk built (copies, never the value nodes themselves). */
const TAGS = new WeakSet<object>();

export function markTag(tag: Node): void {
  TAGS.add(tag);
}

/** A FROM item by the name its columns are qualified with: a table (or CTE) reference or a derived table. */
type Scope = Map<string, Node>;

/**
 * The walked tree with outer columns in tags replaced by stand-ins; the tree itself when it has one SELECT at most
 * (no subquery, no outer scope: the copy would change nothing, and it cost a new text's rewrite a tenth of its time).
 */
export function standInCorrelatedTags(tree: unknown): unknown {
  return hasNestedSelect(tree) ? visit(tree, []) : tree;
}

/** Whether the tree holds more than one SelectStmt (read without recursion, up to the second). */
function hasNestedSelect(tree: unknown): boolean {
  let selects = 0;
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if ((v as Node).SelectStmt && ++selects > 1) return true;
    for (const c of Object.values(v as Node)) if (c && typeof c === 'object') stack.push(c);
  }
  return false;
}

function visit(node: unknown, scopes: Scope[]): unknown {
  if (Array.isArray(node)) return node.map((n) => visit(n, scopes));
  if (!node || typeof node !== 'object') return node;
  const obj = node as Node;
  if (TAGS.has(obj) && scopes.length > 1) return standIn(obj, scopes);
  const select = obj.SelectStmt as Node | undefined;
  const own = select && !select.larg ? fromItems(select.fromClause as Node[] | undefined) : undefined;
  const inner = own ? [...scopes, own] : scopes;
  const out: Node = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k !== 'SelectStmt' || !own) out[k] = visit(v, select ? inner : scopes);
    else {
      const body: Node = {};
      for (const [bk, bv] of Object.entries(v as Node))
        body[bk] =
          bk === 'fromClause' ? (bv as Node[]).map((item) => visitFromItem(item, scopes, own)) : visit(bv, inner);
      out[k] = body;
    }
  }
  return out;
}

/** A FROM item: inside it (a LATERAL subquery, a function in FROM once rewritten) the items beside it are outer, not itself. */
function visitFromItem(item: Node, scopes: Scope[], own: Scope): Node {
  const join = item?.JoinExpr as Node | undefined;
  if (join) {
    const out: Node = {};
    for (const [k, v] of Object.entries(join))
      out[k] = k === 'larg' || k === 'rarg' ? visitFromItem(v as Node, scopes, own) : visit(v, [...scopes, own]);
    return { ...item, JoinExpr: out };
  }
  const beside = new Map(own);
  for (const name of fromItems([item]).keys()) beside.delete(name);
  return visit(item, [...scopes, beside]) as Node;
}

/** The names a SELECT's FROM list defines (aliases, else table names), with the item each names. */
function fromItems(from: Node[] | undefined): Scope {
  const scope: Scope = new Map();
  const add = (item: Node | undefined): void => {
    if (!item) return;
    if (item.RangeVar) scope.set(item.RangeVar.alias?.aliasname ?? item.RangeVar.relname, item);
    else if (item.RangeSubselect?.alias && !item.RangeSubselect.lateral)
      scope.set(item.RangeSubselect.alias.aliasname, item);
    else if (item.RangeFunction?.alias && !item.RangeFunction.lateral)
      scope.set(item.RangeFunction.alias.aliasname, item); // `range(3) r(x)`: its arguments read no outer column
    else if (item.RangeSubselect?.alias || item.RangeFunction?.alias)
      scope.set((item.RangeSubselect ?? item.RangeFunction).alias.aliasname, {}); // named, no stand-in
    else if (item.JoinExpr) {
      add(item.JoinExpr.larg);
      add(item.JoinExpr.rarg);
    }
  };
  for (const item of from ?? []) add(item);
  return scope;
}

/** `tag` with each outer column (`alias.column`, the alias not this SELECT's) replaced, SubLinks left as they are. */
function standIn(tag: unknown, scopes: Scope[]): unknown {
  if (Array.isArray(tag)) return tag.map((t) => standIn(t, scopes));
  if (!tag || typeof tag !== 'object') return tag;
  const obj = tag as Node;
  if (obj.SubLink) return obj;
  const fields = obj.ColumnRef?.fields as Node[] | undefined;
  if (fields?.length === 2 && fields.every((f) => f.String)) {
    const [alias, column] = fields.map((f) => String(f.String.sval)) as [string, string];
    const replaced = outerStandIn(alias, column, scopes);
    if (replaced) return replaced;
  }
  // A bare column in a SELECT without FROM is the outer query's: named by its one FROM item, if it has one.
  if (fields?.length === 1 && fields[0]!.String && scopes[scopes.length - 1]!.size === 0) {
    const outer = scopes
      .slice(0, -1)
      .reverse()
      .find((s) => s.size > 0);
    // (a function or LATERAL subquery beside it, this one among them, has no stand-in: not counted)
    const standable = outer
      ? [...outer].filter(([, item]) => item.RangeVar || item.RangeSubselect || item.RangeFunction)
      : [];
    const only = standable.length === 1 ? standable[0]![0] : undefined;
    const replaced = only === undefined ? undefined : outerStandIn(only, String(fields[0]!.String.sval), scopes);
    if (replaced) return replaced;
  }
  const out: Node = {};
  for (const [k, v] of Object.entries(obj)) out[k] = standIn(v, scopes);
  return out;
}

function outerStandIn(alias: string, column: string, scopes: Scope[]): Node | undefined {
  if (scopes[scopes.length - 1]!.has(alias)) return undefined;
  for (let i = scopes.length - 2; i >= 0; i--) {
    const item = scopes[i]!.get(alias);
    if (!item) continue;
    if (!item.RangeVar && !item.RangeSubselect && !item.RangeFunction) return undefined;
    const source = item.RangeVar
      ? { RangeVar: { ...item.RangeVar, alias: item.RangeVar.alias ?? { aliasname: alias } } }
      : item.RangeSubselect
        ? { RangeSubselect: { ...item.RangeSubselect, alias: { ...item.RangeSubselect.alias, aliasname: alias } } }
        : { RangeFunction: { ...item.RangeFunction, alias: { ...item.RangeFunction.alias, aliasname: alias } } };
    return {
      SubLink: {
        subLinkType: 'EXPR_SUBLINK',
        subselect: {
          SelectStmt: {
            targetList: [
              { ResTarget: { val: { ColumnRef: { fields: [alias, column].map((sval) => ({ String: { sval } })) } } } },
            ],
            fromClause: [source],
            limitCount: { A_Const: { ival: { ival: 0 } } },
            limitOption: 'LIMIT_OPTION_COUNT',
            op: 'SETOP_NONE',
          },
        },
      },
    };
  }
  return undefined;
}
