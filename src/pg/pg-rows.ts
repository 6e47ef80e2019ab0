/**
 * PostgreSQL's row semantics where DuckDB's structs mean something else (rewrite-walk.ts and
 * rewrite-operators.ts call these on PostgreSQL's parse tree):
 * - `row(a, b) IS NULL` is true when every field is NULL, `IS NOT NULL` when none is; a whole-row
 *   reference `t IS NULL` likewise (a row an outer join adds for a missing match is all NULLs), and
 *   `count(t)` / `count(t.*)` count the rows that are not (DuckDB: a struct is NULL only itself, and
 *   `count(t.*)` is `count(*)`);
 * - `row(a, b) = row(c, d)` compares field by field with SQL's NULL logic (DuckDB compares nested NULLs
 *   as equal), `<`, `<=`, `>`, `>=` in order, as PostgreSQL's RowCompareExpr; `(a, b) IN ((…), …)`,
 *   `(a, b) [NOT] IN (SELECT …)`, `(a, b) op ANY/ALL (SELECT …)` and `(a, b) op (SELECT …)` the same way;
 * - a record where the gateway cannot send it — an array of records, `array_agg` of a record — is
 *   refused 0A000 with a hint, never sent as DuckDB's struct text.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { call, names, not, str, type Node } from './rewrite-nodes.js';
import { COMPAT_DB } from './catalog/names.js';
import { PGCAT } from './rewrite-nodes.js';

const rowNullMacro = (negated: boolean, x: Node): Node =>
  call([COMPAT_DB, PGCAT, negated ? '_pgsem_row_not_null' : '_pgsem_row_is_null'], [x]);

/** The macros behind whole-row NULL tests (pg-macros.ts installs them): a struct's fields read through its JSON. */
export const ROW_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_row_is_null(x)',
    `CASE WHEN typeof(x) LIKE 'STRUCT(%' THEN coalesce(list_aggregate(json_extract_string(to_json(x), '$.*'), 'count') = 0, true) ELSE x IS NULL END`,
  ],
  [
    '_pgsem_row_not_null(x)',
    `CASE WHEN typeof(x) LIKE 'STRUCT(%' THEN coalesce(list_aggregate(json_extract_string(to_json(x), '$.*'), 'count') = len(json_extract_string(to_json(x), '$.*')), false) ELSE x IS NOT NULL END`,
  ],
];

const and = (args: Node[]): Node => (args.length === 1 ? args[0]! : { BoolExpr: { boolop: 'AND_EXPR', args } });
const or = (args: Node[]): Node => (args.length === 1 ? args[0]! : { BoolExpr: { boolop: 'OR_EXPR', args } });
const op = (name: string, lexpr: Node, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [str(name)], lexpr, rexpr },
});
/** `x IS [NOT] NULL`; an expression is wrapped in a call, as the deparser prints `a OR b IS NULL` without parentheses. */
const nullTest = (arg: Node, negated: boolean): Node => ({
  NullTest: {
    arg: arg.ColumnRef || arg.A_Const || arg.FuncCall || arg.ParamRef ? arg : { CoalesceExpr: { args: [arg] } },
    nulltesttype: negated ? 'IS_NOT_NULL' : 'IS_NULL',
  },
});
const constBool = (b: boolean): Node => ({ A_Const: { boolval: { boolval: b } } });
const nullConst: Node = { A_Const: { isnull: true } };

export const rowArgs = (n: Node | undefined): Node[] | undefined => n?.RowExpr?.args as Node[] | undefined;

/** The name of a whole-row reference (`t`, or `t.*` where `star`) to a FROM item in scope, else undefined. */
export function wholeRowName(n: Node | undefined, scope: ReadonlySet<string>, star = false): string | undefined {
  const fields = n?.ColumnRef?.fields as Node[] | undefined;
  if (!fields) return undefined;
  const name = fields[0]?.String?.sval as string | undefined;
  const shape = fields.length === 1 || (star && fields.length === 2 && fields[1]!.A_Star !== undefined);
  return shape && name !== undefined && scope.has(name) ? name : undefined;
}

/** `row(…) IS [NOT] NULL` field by field; `t IS [NOT] NULL` of a whole-row reference through the macro. */
export function rowNullTest(test: Node, arg: Node, scope: ReadonlySet<string>): Node | undefined {
  const negated = test.nulltesttype === 'IS_NOT_NULL';
  const fields = rowArgs(arg);
  if (fields) return and(fields.map((f) => nullTest(f, negated)));
  if (wholeRowName(arg, scope)) return rowNullMacro(negated, arg);
  return undefined;
}

/** `count(t)`, `count(t.*)` of a whole-row reference: the rows whose fields are not all NULL. */
export function wholeRowCount(fc: Node, scope: ReadonlySet<string>): Node | undefined {
  const args = fc.args as Node[] | undefined;
  if (names(fc.funcname).join('.') !== 'count' || args?.length !== 1) return undefined;
  const name = wholeRowName(args[0], scope, true);
  if (!name) return undefined;
  if (fc.agg_distinct)
    throw refuse(
      `count(DISTINCT ${name})`,
      `Count distinct columns: count(DISTINCT (${name}.a, ${name}.b)) is not supported either; use count(*) over a SELECT DISTINCT subquery.`,
    );
  const row = { ColumnRef: { fields: [str(name)] } };
  const present = {
    CaseExpr: {
      args: [{ CaseWhen: { expr: rowNullMacro(false, row), result: nullConst } }],
      defresult: { A_Const: { ival: { ival: 1 } } },
    },
  };
  return { FuncCall: { ...fc, args: [present] } };
}

/** PostgreSQL's row comparison of two field lists (`=` all equal, `<>` any differs, `<` … in order). */
export function compareRows(name: string, l: Node[], r: Node[]): Node {
  if (l.length !== r.length) {
    throw new SqlError(SQLSTATE.syntaxError, 'unequal number of entries in row expressions');
  }
  const pairs = l.map((x, i) => [x, r[i]!] as const);
  if (name === '=') return and(pairs.map(([a, b]) => op('=', a, b)));
  if (name === '<>' || name === '!=') return or(pairs.map(([a, b]) => op('<>', a, b)));
  // `<` as PostgreSQL's RowCompareExpr: the first pair not known equal decides (NULL if it compares NULL),
  // the last pair with the operator itself (<= keeps equality). One CASE, each pair named twice: the
  // OR of ANDs it replaces repeated every earlier pair's equality, n²/2 comparisons (a 100-wide row
  // took 4.4 s and 0.8 GB, 600 ran out of memory).
  const strict = name.slice(0, 1);
  const last = pairs.length - 1;
  if (last === 0) return op(name, l[0]!, r[0]!);
  return {
    CaseExpr: {
      args: pairs.slice(0, last).map(([a, b]) => ({
        CaseWhen: {
          expr: { BooleanTest: { arg: op('=', a, b), booltesttype: 'IS_NOT_TRUE' } },
          result: op(strict, a, b),
        },
      })),
      defresult: op(name, pairs[last]![0], pairs[last]![1]),
    },
  };
}

export const ROW_COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);

/** `(a, b) IN ((1, 2), (3, 4))`: OR of row equalities, as PostgreSQL expands it; NOT IN its negation. */
export function rowInList(l: Node[], items: Node[], negated: boolean): Node | undefined {
  const rows = items.map(rowArgs);
  if (rows.some((r) => r === undefined)) return undefined;
  const any = or(rows.map((r) => compareRows('=', l, r!)));
  return negated ? not(any) : any;
}

/** `(SELECT …)` renamed `fdl_rowN(fdl_c1, …)` so the row's fields compare with its columns by name. */
function renamedSubquery(subselect: Node, width: number): { from: Node; columns: Node[] } {
  const targets = subselect.SelectStmt?.targetList as Node[] | undefined;
  const starred = targets?.some((t) => JSON.stringify(t).includes('"A_Star"'));
  if (targets && !starred && subselect.SelectStmt.op === 'SETOP_NONE' && targets.length !== width) {
    throw new SqlError(
      SQLSTATE.syntaxError,
      targets.length > width ? 'subquery has too many columns' : 'subquery has too few columns',
    );
  }
  // One name does: a nested comparison's subquery is in its own EXISTS, where the nearest fdl_row is its own.
  const alias = 'fdl_row';
  const cols = Array.from({ length: width }, (_, i) => `fdl_c${i + 1}`);
  return {
    from: { RangeSubselect: { subquery: subselect, alias: { aliasname: alias, colnames: cols.map(str) } } },
    columns: cols.map((c) => ({ ColumnRef: { fields: [str(alias), str(c)] } })),
  };
}

const selectWhere = (from: Node, where: Node, target: Node): Node => ({
  SelectStmt: {
    targetList: [{ ResTarget: { val: target } }],
    fromClause: [from],
    whereClause: where,
    limitOption: 'LIMIT_OPTION_DEFAULT',
    op: 'SETOP_NONE',
  },
});
const exists = (from: Node, where: Node): Node => ({
  SubLink: { subLinkType: 'EXISTS_SUBLINK', subselect: selectWhere(from, where, { A_Const: { ival: { ival: 1 } } }) },
});

/**
 * `(a, b) op ANY (SELECT …)` (IN is `= ANY`): true when some row compares true, else NULL when some row
 * compares NULL, else false; ALL: false when some row compares false, else NULL, else true.
 */
export function rowSubLink(kind: 'ANY' | 'ALL', name: string, l: Node[], subselect: Node, filterOnly: boolean): Node {
  // The comparison moves into an EXISTS: an aggregate of the outer query cannot be bound there (DuckDB).
  if (l.some(holdsAggregate))
    throw refuse(
      'a row holding an aggregate compared with a subquery’s rows (`(a, count(*)) IN (SELECT …)`)',
      'Compare in a subquery of its own: select … from (select a, count(*) as n … group by a) t where (a, n) in (select …).',
    );
  const { from, columns } = renamedSubquery(subselect, l.length);
  const cmp = compareRows(name, l, columns);
  // As a filter (a conjunct of WHERE or HAVING) NULL and false both drop the row: one EXISTS, an equi-join
  // DuckDB hashes; the NULL case's EXISTS would be a nested-loop join.
  if (kind === 'ANY' && filterOnly) return exists(from, cmp);
  const decided = kind === 'ANY' ? cmp : not(cmp);
  return {
    CaseExpr: {
      args: [
        { CaseWhen: { expr: exists(from, decided), result: constBool(kind === 'ANY') } },
        { CaseWhen: { expr: exists(from, nullTest(cmp, false)), result: nullConst } },
      ],
      defresult: constBool(kind === 'ALL'),
    },
  };
}

/** `(a, b) op (SELECT x, y …)`: the comparison with the subquery's one row (none: NULL; more: DuckDB's error). */
export function rowScalarSubLink(name: string, l: Node[], subselect: Node): Node {
  const { from, columns } = renamedSubquery(subselect, l.length);
  return {
    SubLink: {
      subLinkType: 'EXPR_SUBLINK',
      subselect: selectWhere(from, constBool(true), compareRows(name, l, columns)),
    },
  };
}

const refuse = (what: string, hint: string): SqlError =>
  new SqlError(SQLSTATE.featureNotSupported, `${what} is not supported by fdl-gateway`, undefined, hint);

/** Whether `n` is a record: a row constructor or a whole-row reference to a FROM item in scope. */
export const isRecord = (n: Node | undefined, scope: ReadonlySet<string>): boolean =>
  rowArgs(n) !== undefined || wholeRowName(n, scope, true) !== undefined;

/** An array of records (`array[row(1, 'a')]`, `array_agg(t)`): PostgreSQL's record[] the gateway cannot send. */
export function recordArrayRefused(what: string): SqlError {
  return refuse(
    `${what} (an array of records)`,
    'Aggregate or list the columns instead (array_agg(t.a), array[t.a, t.b]), or build JSON with json_agg(json_build_object(…)).',
  );
}

/** The `(a, b) IN (SELECT …)` / `op ANY (SELECT …)` conjuncts of a WHERE or HAVING clause, where NULL means false. */
export function filterSubLinks(clause: Node | undefined, into: Set<Node>): void {
  if (!clause) return;
  if (clause.BoolExpr?.boolop === 'AND_EXPR') {
    for (const arg of clause.BoolExpr.args as Node[]) filterSubLinks(arg, into);
    return;
  }
  if (clause.SubLink?.subLinkType === 'ANY_SUBLINK' && rowArgs(clause.SubLink.testexpr as Node | undefined))
    into.add(clause.SubLink as Node);
}

/** An aggregate call in a row field (`count(*)`, `sum(x)`, `avg(x) FILTER …`): by its star, DISTINCT or FILTER, or a common aggregate's name. */
function holdsAggregate(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(holdsAggregate);
  if (!n || typeof n !== 'object') return false;
  const fc = (n as Node).FuncCall as Node | undefined;
  if (fc && !fc.over) {
    const name = names(fc.funcname as Node[] | undefined).slice(-1)[0] ?? '';
    if (fc.agg_star || fc.agg_distinct || fc.agg_filter || COMMON_AGGREGATES.has(name)) return true;
  }
  // a subquery's aggregates are its own
  if ((n as Node).SubLink) return false;
  return Object.values(n as Node).some(holdsAggregate);
}

const COMMON_AGGREGATES = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'string_agg',
  'array_agg',
  'stddev',
  'variance',
]);
