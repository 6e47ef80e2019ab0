/**
 * Which operands of `+ - *` the rewrite knows are not floats, so that their float checks (float-range.ts) can be
 * left out: a check's macros cost DuckDB's parse and bind more than the rest of a point query's planning
 * (issue 26), and over numbers that are not floats they only ever pick DuckDB's own operator.
 *
 * A column's type is read from the version's catalog (RelationTypes, given by the planner), its name resolved as
 * DuckDB's binder resolves it: the FROM items of the SELECT it stands in, then those of the SELECTs around it. Where
 * anything else could be meant — a CTE, a subquery, a function or a view in FROM, a select-list alias of that name,
 * a relation's whole row, two FROM items with the name in different types, a lambda — it is not known, and the check
 * stays.
 */
import { foldIdentifier } from '../text/identifier.js';
import type { Node } from './rewrite-nodes.js';
import { COMPAT_RELATIONS } from './catalog/install.js';

/** The version's relations as a statement's names reach them (the planner's, over the session's search path). */
export interface RelationTypes {
  /** What a rewrite made with these types is memoized under (rewrite.ts): the version and the search path. */
  readonly key: string;
  /**
   * A table's columns (DuckDB types by folded name) named `schema.name`, or `name` on the search path (names as
   * PostgreSQL's parse gives them); undefined for anything else (a view, the catalog emulation, nothing).
   */
  columns(schema: string | undefined, name: string): ReadonlyMap<string, string> | undefined;
}

/** Where a rewrite that read columns' types is memoized (rewrite.ts, rewrite-shapes.ts): with the types' key. */
export const typedKey = (key: string, types: RelationTypes | undefined): string => `${types?.key ?? ''}\0${key}`;

/** One FROM item: the name it goes by, its columns' types (undefined: not known). */
interface Entry {
  name: string;
  columns?: ReadonlyMap<string, string>;
}

/** The FROM items of one SELECT and of those around it (for correlated references). */
export interface Scope {
  readonly entries: readonly Entry[];
  /** Names the SELECT's items are given (`AS x`), which DuckDB also lets expressions read; a set operation: null (any). */
  readonly outputs: ReadonlySet<string> | null;
  readonly outer?: Scope;
}

/**
 * DuckDB's exact numbers whose `+ - *` among themselves are exact numbers again (UHUGEINT is not one: beside a
 * signed integer DuckDB computes a DOUBLE), and with its date/time types those whose `+ - *` are never DOUBLE or
 * FLOAT: checked over every pair by test/operand-types.test.ts.
 */
const EXACT = String.raw`TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|DECIMAL\(\d+,\d+\)`;
export const EXACT_NUMBER = new RegExp(`^(?:${EXACT})$`);
export const NOT_FLOAT = new RegExp(`^(?:${EXACT}|DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|INTERVAL)$`);

/** PostgreSQL's names of the integer types a cast may name (`$1::int`, the rewrite's `5::int4`). */
const INTEGER_CASTS: ReadonlySet<string> = new Set(['int2', 'int4', 'int8', 'smallint', 'integer', 'bigint', 'int']);

const sval = (n: Node | undefined): string | undefined => n?.String?.sval as string | undefined;

/** The scope of a SELECT (`body` of a SelectStmt) inside `outer`; `ctes` the statement's CTE names. */
export function selectScope(
  body: Node,
  types: RelationTypes,
  ctes: ReadonlySet<string>,
  outer: Scope | undefined,
): Scope {
  if (body.op && body.op !== 'SETOP_NONE') return { entries: [], outputs: null, ...(outer ? { outer } : {}) };
  const entries: Entry[] = [];
  for (const item of (body.fromClause ?? []) as Node[]) fromEntries(item, types, ctes, entries);
  const outputs = new Set<string>();
  for (const t of (body.targetList ?? []) as Node[]) {
    const rt = t?.ResTarget as Node | undefined;
    const named = typeof rt?.name === 'string' ? foldIdentifier(rt.name) : undefined;
    // `x AS x` names the column it reads
    const reads = (rt?.val?.ColumnRef?.fields as Node[] | undefined)?.map(sval);
    if (named !== undefined && !(reads?.length === 1 && reads[0] !== undefined && foldIdentifier(reads[0]) === named))
      outputs.add(named);
  }
  return { entries, outputs, ...(outer ? { outer } : {}) };
}

function fromEntries(item: Node, types: RelationTypes, ctes: ReadonlySet<string>, into: Entry[]): void {
  const join = item.JoinExpr as Node | undefined;
  if (join) {
    // a join given a name hides its sides' names
    if (join.alias) return void into.push({ name: foldIdentifier(String(join.alias.aliasname)) });
    fromEntries(join.larg as Node, types, ctes, into);
    fromEntries(join.rarg as Node, types, ctes, into);
    return;
  }
  const rv = item.RangeVar as Node | undefined;
  const alias = item[Object.keys(item)[0] ?? '']?.alias as Node | undefined;
  const name = foldIdentifier(String(alias?.aliasname ?? rv?.relname ?? ''));
  if (!rv || alias?.colnames || rv.catalogname) return void into.push({ name });
  const relname = String(rv.relname);
  const schema = rv.schemaname as string | undefined;
  // a CTE of that name (anywhere in the statement) may be what it reads, and the catalog emulation's relations
  // are found before the search path's (rewrite-walk.ts rangeVar)
  if (
    schema === undefined &&
    (COMPAT_RELATIONS.pgCatalog.has(relname) || [...ctes].some((c) => foldIdentifier(c) === foldIdentifier(relname)))
  )
    return void into.push({ name });
  if (schema === 'pg_catalog' || schema === 'information_schema') return void into.push({ name });
  const columns = types.columns(schema, relname);
  into.push(columns ? { name, columns } : { name });
}

/**
 * The DuckDB type of a column reference as DuckDB's binder would resolve it in `scope`; undefined where it is not
 * known for certain.
 */
export function columnType(fields: readonly Node[], scope: Scope | undefined): string | undefined {
  const parts = fields.map(sval);
  if (parts.some((p) => p === undefined) || parts.length === 0 || parts.length > 2) return undefined;
  const column = foldIdentifier(parts.at(-1)!);
  // DuckDB's row id of a table is no catalog column
  if (column === 'rowid') return undefined;
  const qualifier = parts.length === 2 ? foldIdentifier(parts[0]!) : undefined;
  for (let s = scope; s; s = s.outer) {
    if (qualifier !== undefined) {
      const named = s.entries.filter((e) => e.name === qualifier);
      if (named.length === 0) continue;
      // (a name two FROM items go by is DuckDB's error)
      return named.length === 1 ? named[0]!.columns?.get(column) : undefined;
    }
    if (s.outputs === null || s.outputs.has(column)) return undefined;
    if (s.entries.some((e) => !e.columns)) return undefined;
    const found = new Set(s.entries.flatMap((e) => (e.columns?.has(column) ? [e.columns.get(column)!] : [])));
    // a FROM item's name alone is its whole row
    if (found.size === 0 && s.entries.some((e) => e.name === column)) return undefined;
    if (found.size === 0) continue;
    // the same name in two items: merged by USING (or DuckDB's error) — of one type only
    return found.size === 1 ? [...found][0] : undefined;
  }
  return undefined;
}

/**
 * The name of the FROM item, in a SELECT around `scope`'s, that a bare column certainly reads, where no FROM item of
 * `scope`'s own SELECT has it: the column is then qualified with it (rewrite-walk.ts), because DuckDB binds a macro's
 * typed arguments without the outer scopes and reads a bare name there as a select-list alias of the subquery, so
 * `(select round(amount) from sales.customers c …)` was `42725` naming an internal macro (`o.amount` answered).
 * Undefined where anything else could be meant: a FROM item whose columns are not known (a subquery, a function, a
 * view, a CTE — a FROM subquery's siblings are such items too), a select-list alias or a FROM item of that name, two
 * FROM items with the column.
 */
export function outerOwner(column: string, scope: Scope): string | undefined {
  if (!scope.outer) return undefined;
  const name = foldIdentifier(column);
  if (name === 'rowid') return undefined;
  const holders = (s: Scope): readonly Entry[] | undefined =>
    s.outputs === null || s.outputs.has(name) || s.entries.some((e) => !e.columns || e.name === name)
      ? undefined
      : s.entries.filter((e) => e.columns!.has(name));
  if (holders(scope)?.length !== 0) return undefined;
  for (let s: Scope | undefined = scope.outer; s; s = s.outer) {
    const found = holders(s);
    if (!found || found.length > 1) return undefined;
    if (found.length === 1) return found[0]!.name;
  }
  return undefined;
}

/**
 * Whether `n` (a walked operand) is certainly of a type `types` (NOT_FLOAT or EXACT_NUMBER) accepts: a column of
 * such a type, an integer constant, a cast to an integer type, or `+ - *` of such operands. `typed` is told when a
 * column's type was asked for (the rewrite then depends on the relation types: rewrite.ts memoizes it with them).
 */
export function knownAs(types: RegExp, n: Node | undefined, scope: Scope | undefined, typed: () => void): boolean {
  if (!n || typeof n !== 'object') return false;
  if (n.ColumnRef) {
    typed();
    const t = columnType(n.ColumnRef.fields as Node[], scope);
    return t !== undefined && types.test(t);
  }
  const c = n.A_Const as Node | undefined;
  if (c) return c.ival !== undefined && Object.keys(c).every((k) => k === 'ival' || k === 'location');
  const cast = n.TypeCast as Node | undefined;
  if (cast) {
    const tn = cast.typeName as Node;
    const names = ((tn?.names ?? []) as Node[]).map(sval);
    const qualifiedOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
    return qualifiedOk && !tn.arrayBounds && INTEGER_CASTS.has(String(names.at(-1)));
  }
  const e = n.A_Expr as Node | undefined;
  if (e?.kind === 'AEXPR_OP' && (e.name as Node[] | undefined)?.length === 1) {
    const op = sval((e.name as Node[])[0]);
    if (op !== '+' && op !== '-' && op !== '*') return false;
    return (
      (e.lexpr === undefined || knownAs(types, e.lexpr as Node, scope, typed)) &&
      knownAs(types, e.rexpr as Node, scope, typed)
    );
  }
  return false;
}
