/**
 * A computed value cast to jsonb (`(a || b)::jsonb`, `col::jsonb`) is DuckDB's JSON in its input's text:
 * PostgreSQL's jsonb is the normal form (keys sorted, the last of a duplicate key, numbers as numeric,
 * `{"a": 1}` spacing), so wherever its text is read — compared, ordered, grouped, cast to text,
 * concatenated, aggregated — the answer differed silently. A string constant (pg-jsonb.ts, at rewrite
 * time) and a parameter (the wire's jsonb input) are in the normal form already; a computed one is
 * admitted only where its text is never read by DuckDB:
 * - `shown`: an outermost select-list item the rows are neither ordered, grouped nor deduplicated by
 *   (the wire prints jsonb's normal form of a cast it is told is jsonb);
 * - `read`: the input of `->>`/`#>>` (guarded: a member whose text would differ is refused at run time,
 *   json-arrows.ts), of `->`/`#>` whose member goes on to such a place, an operand of `@>`, `<@`, `?`, `?|`,
 *   `?&` (json-containment.ts reads the structure), of jsonb_typeof/jsonb_array_length, and of the json
 *   set-returning functions (json-sets.ts reads the members in jsonb's order, refusing what it cannot).
 * A subquery's or CTE's item may be such a value; the outer query may then only `read` that column
 * (it reaches the wire as json, not as a jsonb the wire would print). Everywhere else: 0A000.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { Node } from './rewrite-nodes.js';

/** Where a value stands: its text read (`no`), printed by the wire as jsonb (`shown`), or only its structure read (`read`). */
type Use = 'no' | 'shown' | 'read';

const MEMBER_OPS = new Set(['->', '#>']);
/** Operators that read a jsonb operand's structure, not its text. */
const STRUCTURE_OPS = new Set(['->>', '#>>', '@>', '<@', '?', '?|', '?&']);
const STRUCTURE_CALLS = new Set(
  ['typeof', 'array_length', 'each', 'each_text', 'array_elements', 'array_elements_text', 'object_keys'].flatMap(
    (f) => [`json_${f}`, `jsonb_${f}`],
  ),
);

const lastName = (names: unknown): string =>
  String(((names as Node[] | undefined) ?? []).slice(-1)[0]?.String?.sval ?? '').toLowerCase();

interface Scan {
  outermost: ReadonlySet<Node>;
  /** Output names of subquery and CTE items that hold a computed jsonb (innerJsonbColumns). */
  columns: Set<string>;
  /** Names of those subqueries and CTEs: a whole-row reference (`s`, `(s).j`, `row_to_json(s)`) carries the text. */
  rows: Set<string>;
  /** The arms of set operations: their rows are deduplicated or sent by their text. */
  arms: Set<Node>;
}

/** Refuses a computed jsonb value anywhere its text would be read (see above); `outermost` as pg-shown-calls.ts. */
export function refuseComputedJsonb(tree: unknown, outermost: ReadonlySet<Node>): void {
  const arms = new Set<Node>();
  const rows = new Set<string>();
  const scan: Scan = { outermost, arms, rows, columns: innerJsonbColumns(tree, outermost, arms, rows) };
  visit(tree, 'no', scan);
}

function visit(node: unknown, use: Use, scan: Scan): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) visit(n, 'no', scan);
    return;
  }
  const n = node as Node;
  const select = n.SelectStmt as Node | undefined;
  if (select?.targetList) return visitSelect(select, scan);
  const cast = n.TypeCast as Node | undefined;
  // jsonb[]: its elements are neither normalised (constants too) nor typed for the wire
  if (cast && lastName((cast.typeName as Node | undefined)?.names) === 'jsonb' && !isJsonbCast(cast))
    throw computedJsonbRefused();
  if (cast && isComputedJsonb(cast)) {
    if (use === 'no') throw computedJsonbRefused();
    return visit(cast.arg, 'no', scan);
  }
  const fields = n.ColumnRef?.fields as Node[] | undefined;
  if (fields && (scan.columns.size > 0 || scan.rows.size > 0)) {
    const last = fields[fields.length - 1];
    if (fields.length === 1 && scan.rows.has(String(last?.String?.sval))) throw computedJsonbRefused();
    // a star passes such a column on as text; a name is read only where its structure is
    if (last?.A_Star || (scan.columns.has(String(last?.String?.sval)) && use !== 'read')) throw computedJsonbRefused();
    return;
  }
  const expr = n.A_Expr as Node | undefined;
  if (expr?.kind === 'AEXPR_OP') {
    const op = lastName(expr.name);
    if (MEMBER_OPS.has(op)) {
      visit(expr.lexpr, use, scan);
      return visit(expr.rexpr, 'no', scan);
    }
    if (STRUCTURE_OPS.has(op)) {
      visit(expr.lexpr, 'read', scan);
      return visit(expr.rexpr, op === '@>' || op === '<@' ? 'read' : 'no', scan);
    }
  }
  const fc = n.FuncCall as Node | undefined;
  if (fc && STRUCTURE_CALLS.has(lastName(fc.funcname)) && (fc.args as Node[] | undefined)?.length === 1) {
    return visit((fc.args as Node[])[0], 'read', scan);
  }
  for (const v of Object.values(n)) visit(v, 'no', scan);
}

/**
 * A SELECT: an outermost one's items are `shown` unless the rows are ordered, grouped or deduplicated by
 * them; an inner one's items may hold a computed jsonb (its name then `read` only: innerJsonbColumns).
 */
function visitSelect(select: Node, scan: Scan): void {
  const outermost = scan.outermost.has(select);
  const targets = select.targetList as Node[];
  const referenced = itemsReferenced(select, targets);
  targets.forEach((t, i) => {
    const target = t?.ResTarget as Node | undefined;
    const shown = outermost && !select.distinctClause && !referenced.has(i);
    const held =
      !outermost &&
      !scan.arms.has(select) &&
      !select.distinctClause &&
      !referenced.has(i) &&
      holdsComputedJsonb(target?.val);
    visit(target?.val, shown ? 'shown' : held ? 'read' : 'no', scan);
    visit(target?.indirection, 'no', scan);
  });
  for (const [k, v] of Object.entries(select)) if (k !== 'targetList') visit(v, 'no', scan);
}

/** The items ORDER BY or GROUP BY name by position or output name (their expressions are visited as any other). */
function itemsReferenced(select: Node, targets: Node[]): Set<number> {
  const out = new Set<number>();
  const sorts = ((select.sortClause ?? []) as Node[]).map((s) => s?.SortBy?.node as Node | undefined);
  const groups = (select.groupClause ?? []) as Node[];
  for (const ref of [...sorts, ...groups]) {
    const position = ref?.A_Const?.ival?.ival as number | undefined;
    if (position !== undefined) out.add(position - 1);
    const fields = ref?.ColumnRef?.fields as Node[] | undefined;
    const name = fields?.length === 1 ? (fields[0]?.String?.sval as string | undefined) : undefined;
    if (name !== undefined) targets.forEach((t, i) => t?.ResTarget?.name === name && out.add(i));
  }
  // a grouping set, ROLLUP or CUBE: any item may be among its groups
  if (groups.some((g) => g?.GroupingSet)) targets.forEach((_t, i) => out.add(i));
  return out;
}

/** A computed jsonb cast, or `->`/`#>` of one: an item whose column then holds a computed jsonb. */
function holdsComputedJsonb(val: Node | undefined): boolean {
  if (val?.TypeCast) return isComputedJsonb(val.TypeCast as Node);
  const expr = val?.A_Expr as Node | undefined;
  return expr?.kind === 'AEXPR_OP' && MEMBER_OPS.has(lastName(expr.name)) && holdsComputedJsonb(expr.lexpr as Node);
}

/**
 * The output names of items of inner SELECTs (subqueries, CTEs) that hold a computed jsonb, or a column of
 * such a name (a subquery over a subquery), and the column aliases given to them (`t(k)`, `with t(k) as`);
 * a name shared with another column is refused wherever that one is read too (the scan does not resolve
 * scopes: stricter, never looser). Collects the set operations' arms into `arms` on the way.
 */
function innerJsonbColumns(
  tree: unknown,
  outermost: ReadonlySet<Node>,
  arms: Set<Node>,
  rows: Set<string>,
): Set<string> {
  const inner: Node[] = [];
  const aliased: [Node, Node[]][] = []; // a subquery or CTE's SELECT and its column aliases
  const named: [Node, string][] = []; // a subquery or CTE's SELECT and the name its rows go by
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const n = stack.pop() as Node | null;
    if (n === null || typeof n !== 'object') continue;
    const select = n.SelectStmt as Node | undefined;
    if (select?.targetList && !outermost.has(select)) inner.push(select);
    if (select?.op && select.op !== 'SETOP_NONE')
      for (const arm of [select.larg, select.rarg] as (Node | undefined)[]) if (arm) arms.add(arm);
    const query = (n.RangeSubselect?.subquery ?? n.CommonTableExpr?.ctequery)?.SelectStmt as Node | undefined;
    const colnames = (n.RangeSubselect?.alias?.colnames ?? n.CommonTableExpr?.aliascolnames) as Node[] | undefined;
    if (query && colnames) aliased.push([query, colnames]);
    const name = (n.RangeSubselect?.alias?.aliasname ?? n.CommonTableExpr?.ctename) as string | undefined;
    if (query && name !== undefined) named.push([query, name]);
    for (const v of Object.values(n)) if (v !== null && typeof v === 'object') stack.push(v);
  }
  const columns = new Set<string>();
  const holds = (val: Node | undefined): boolean => {
    const fields = val?.ColumnRef?.fields as Node[] | undefined;
    return holdsComputedJsonb(val) || (!!fields && columns.has(String(fields[fields.length - 1]?.String?.sval)));
  };
  const add = (name: string | undefined): boolean => name !== undefined && !columns.has(name) && !!columns.add(name);
  for (let grew = true; grew;) {
    grew = false;
    for (const select of inner)
      for (const t of select.targetList as Node[]) {
        const target = t?.ResTarget as Node | undefined;
        const fields = target?.val?.ColumnRef?.fields as Node[] | undefined;
        const name =
          (target?.name as string | undefined) ?? (fields && String(fields[fields.length - 1]?.String?.sval));
        if (holds(target?.val) && add(name)) grew = true;
      }
    for (const [select, colnames] of aliased)
      ((select.targetList ?? []) as Node[]).forEach((t, i) => {
        if (holds(t?.ResTarget?.val) && add(colnames[i]?.String?.sval as string | undefined)) grew = true;
      });
  }
  for (const [select, name] of named)
    if (((select.targetList ?? []) as Node[]).some((t) => holds(t?.ResTarget?.val))) rows.add(name);
  return columns;
}

const isJsonbCast = (cast: Node | undefined): boolean => {
  const tn = cast?.typeName as Node | undefined;
  return lastName(tn?.names) === 'jsonb' && !(Array.isArray(tn?.arrayBounds) && tn.arrayBounds.length > 0);
};

/** A value in jsonb's normal form: a string constant, a NULL, a parameter (declared text or json is written as a cast: declared-casts.ts), or one of these cast to jsonb. */
const isNormal = (arg: Node | undefined): boolean =>
  arg?.A_Const?.sval !== undefined ||
  !!arg?.A_Const?.isnull ||
  !!arg?.ParamRef ||
  (isJsonbCast(arg?.TypeCast as Node | undefined) && isNormal((arg!.TypeCast as Node).arg as Node | undefined));

/** A cast to (scalar) jsonb of a value not in jsonb's normal form. */
const isComputedJsonb = (cast: Node): boolean => isJsonbCast(cast) && !isNormal(cast.arg as Node | undefined);

function computedJsonbRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'a computed value cast to jsonb is supported only as a select-list item the rows are not ordered, grouped or deduplicated by, or where only its members are read (->>, #>>, ->, #>, @>, <@, ?, jsonb_each…)',
    undefined,
    "PostgreSQL's jsonb is the value's normal form (keys sorted, numbers as numeric); DuckDB keeps the text as computed. Compare, order or group by its members (x::jsonb ->> 'k'), or use json (x::json), which keeps its text as PostgreSQL's json does.",
  );
}
