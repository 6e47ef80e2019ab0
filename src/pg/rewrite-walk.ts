/**
 * The rewrite's tree walk (rewrite.ts runs it): relations and columns of the catalog emulation, FROM
 * functions, select-list names; calls, casts and operators are handed to rewrite-calls.ts,
 * rewrite-casts.ts and rewrite-operators.ts.
 */
import { coalesceLiterals, zonedLiteralsAmong } from './typed-minus.js';
import { usingColumnsFirst } from './using-star.js';
import { setOperationTypes } from './set-operation-types.js';
import { bitStringCast, bitStringConstant } from './bit-strings.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { emptyGroupingSetsRefused } from './empty-grouping-sets.js';
import { COMPAT_RELATIONS, SYSTEM_COLUMN_RELATIONS } from './catalog/install.js';
import { COMPAT_DB } from './catalog/names.js';
import { ABSENT_FEATURE_TABLE_FUNCTIONS } from './catalog/absent-features.js';
import { sortUsing } from './pg-operators.js';
import { exponentConstant, recordValue } from './pg-calls.js';
import { isRegprocColumn, shownRegproc } from './regproc-columns.js';
import { functionStyleCast, withTiesRefused } from './pg-forms.js';
import { typeInputCall } from './type-input-calls.js';
import { fromItemNames, wholeRowTargets } from './pg-spellings.js';
import { jsonCall } from './rewrite-records.js';
import { castTo } from './parse-nodes.js';
import {
  filterSubLinks,
  isRecord,
  recordArrayRefused,
  rowArgs,
  rowNullTest,
  rowSubLink,
  wholeRowCount,
} from './pg-rows.js';
import {
  call,
  compat,
  DUCKDB_RESERVED_ALIASES,
  INFOSCHEMA,
  names,
  PGCAT,
  str,
  typedAs,
  type Ctx,
  type Node,
} from './rewrite-nodes.js';
import { funcCall } from './rewrite-calls.js';
import { choosesText, int4Choices, shownChoice, varcharChoice } from './pg-shown-calls.js';
import { typeCast } from './rewrite-casts.js';
import { fractionalPrecision } from './fractional-seconds.js';
import { aExpr } from './rewrite-operators.js';
import { pgIndirection } from './array-subscripts.js';
import { fromBaseZero, isVectorColumn } from './vector-subscripts.js';
import { shownNumericArray } from './numeric-arrays.js';
import { distinctInOrder } from './distinct-order.js';
import { distinctSortRefused } from './distinct-sort-items.js';
import { unguarded } from './json-arrows.js';
import { jsonToRecordRefused, unnestedFromFunction, zippedUnnest } from './srf-from.js';
import { isJsonSetFunction, jsonScalarAliases, jsonSetInFrom } from './json-sets.js';
import { pgColumnName, refuseAmbiguousColumns, withPgColumnNames } from './inner-names.js';
import { aliasesInExpressionsQualified, aliasInExpressionRefused } from './output-aliases.js';
import { usingAmbiguityRefused } from './using-ambiguity.js';
import { outerOwner, selectScope } from './operand-types.js';

/** Set-returning functions of one column: an alias without column names names the column too (PostgreSQL does). */
const SINGLE_COLUMN_SRF = new Set([
  'unnest',
  'generate_series',
  'generate_subscripts',
  'regexp_split_to_table',
  'string_to_table',
]);
/** Other functions that are table functions in DuckDB or the compat catalog; any other FROM function is scalar. */
const TABLE_FUNCTIONS = new Set([
  ...ABSENT_FEATURE_TABLE_FUNCTIONS,
  'pg_get_keywords',
  'pg_partition_ancestors',
  'pg_partition_ancestors_ord',
  'range',
  'json_each',
  'json_tree',
  'read_csv',
  'read_parquet',
  'read_json',
]);

export const NO_ROWS: ReadonlySet<string> = new Set();

/** DuckDB takes a sample's percentage only as a constant; anything else is refused, not misread. */
function samplePercent(sample: Node): void {
  const c = (sample.args as Node[] | undefined)?.[0]?.A_Const as Node | undefined;
  if ((sample.args as Node[]).length !== 1 || !(c?.ival || c?.fval)) {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      'TABLESAMPLE with a percentage that is not a numeric constant is not supported by fdl-gateway',
      undefined,
      'Write the percentage as a number: TABLESAMPLE BERNOULLI (10).',
    );
  }
}

export function collectCtes(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectCtes(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'CommonTableExpr' && typeof (v as Node).ctename === 'string') into.add((v as Node).ctename);
      collectCtes(v, into);
    }
  }
}

/**
 * Walk the tree, returning the (possibly replaced) node. `display` is true where a value is shown
 * rather than compared (select list, ORDER BY, under a cast to text): there reg* casts yield names.
 */
export function walk(node: unknown, ctx: Ctx, display: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(n, ctx, false));
  if (!node || typeof node !== 'object') return node;
  const obj = node as Node;
  if (typeof obj.aliasname === 'string' && DUCKDB_RESERVED_ALIASES.has(obj.aliasname)) {
    ctx.changed = true;
    return walk({ ...obj, aliasname: `fdl_${obj.aliasname}` }, ctx, display);
  }
  const keys = Object.keys(obj);
  if (keys.length === 1) {
    const type = keys[0]!;
    const body = obj[type] as Node;
    switch (type) {
      case 'RangeVar': {
        const named = body.alias?.aliasname ?? body.relname;
        if (!DUCKDB_RESERVED_ALIASES.has(named)) return rangeVar(obj, body, ctx);
        ctx.changed = true;
        const renamed = { ...body, alias: { ...body.alias, aliasname: `fdl_${named}` } };
        return rangeVar({ RangeVar: renamed }, renamed, ctx);
      }
      case 'RangeFunction':
        return rangeFunction(obj, body, ctx);
      case 'RangeSubselect':
      case 'CommonTableExpr': {
        // a FROM subquery's and a CTE's columns named as PostgreSQL names them (inner-names.ts)
        const named = withPgColumnNames(type, body);
        if (!named) break;
        ctx.changed = true;
        return walk(named, ctx, display);
      }
      case 'FuncCall': {
        const parts = names(body.funcname);
        const pgName = parts.length === 1 || parts[0] === 'pg_catalog' ? parts.at(-1) : undefined;
        const cast = functionStyleCast(pgName, body) ?? typeInputCall(pgName, body);
        if (cast) {
          ctx.changed = true;
          if (ctx.shown?.has(body)) ctx.shown.add(cast.TypeCast);
          return walk(cast, ctx, display);
        }
        const ordered = distinctInOrder(body);
        if (ordered) {
          ctx.changed = true;
          return walk({ FuncCall: ordered }, ctx, display);
        }
        const counted = wholeRowCount(body, ctx.rowScope ?? NO_ROWS);
        if (counted) {
          ctx.changed = true;
          return walk(counted, ctx, display);
        }
        const json = jsonCall(body, ctx);
        if (json) return json;
        const agg = names(body.funcname).join('.');
        if (agg === 'array_agg' && isRecord((body.args as Node[] | undefined)?.[0], ctx.rowScope ?? NO_ROWS))
          throw recordArrayRefused('array_agg() of a record');
        return funcCall(obj, body, ctx, false);
      }
      case 'A_ArrayExpr': {
        if ((body.elements as Node[] | undefined)?.some((e) => isRecord(e, ctx.rowScope ?? NO_ROWS)))
          throw recordArrayRefused('ARRAY[…] of records');
        const scaled = ctx.shown?.has(body) ? shownNumericArray(body, walk(body, ctx, false) as Node) : undefined;
        if (!scaled) break;
        ctx.changed = true;
        return scaled;
      }
      case 'NullTest': {
        const tested = rowNullTest(body, body.arg as Node, ctx.rowScope ?? NO_ROWS);
        if (!tested) {
          // `j ->> 'k' IS NULL`: NULL alike for DuckDB's text of a member and PostgreSQL's (json-arrows.ts)
          const arg = walk(body.arg, ctx, false) as Node;
          return { NullTest: { ...body, arg: unguarded(arg) } };
        }
        ctx.changed = true;
        return walk(tested, ctx, false);
      }
      case 'SubLink': {
        // EXISTS (SELECT FROM …): PostgreSQL allows an empty select list; DuckDB's grammar does not (42601).
        // Its rows alone are tested, so a constant column changes nothing.
        const empty = body.subselect?.SelectStmt as Node | undefined;
        if (
          body.subLinkType === 'EXISTS_SUBLINK' &&
          empty &&
          !empty.targetList &&
          (!empty.op || empty.op === 'SETOP_NONE')
        ) {
          ctx.changed = true;
          const one = { ResTarget: { val: { A_Const: { ival: { ival: 1 } } } } };
          return walk(
            { SubLink: { ...body, subselect: { SelectStmt: { ...empty, targetList: [one] } } } },
            ctx,
            display,
          );
        }
        const fields = rowArgs(body.testexpr as Node | undefined);
        const kind =
          body.subLinkType === 'ANY_SUBLINK' ? 'ANY' : body.subLinkType === 'ALL_SUBLINK' ? 'ALL' : undefined;
        if (!fields || !kind) return { SubLink: untypedWithin(ctx, () => walk(body, ctx, false) as Node) };
        ctx.changed = true;
        const name = names(body.operName as Node[] | undefined).slice(-1)[0] ?? '=';
        const filterOnly = ctx.filterSubLinks?.has(body) === true;
        return walk(rowSubLink(kind, name, fields, body.subselect as Node, filterOnly), ctx, false);
      }
      case 'TypeCast': {
        const bits = bitStringCast(body);
        if (bits) {
          ctx.changed = true;
          return bits;
        }
        // `ARRAY[1.5, 2]::numeric[]` shown: the cast changes nothing in PostgreSQL, each element keeps its scale
        const array = ctx.shown?.has(body) && plainNumericArray(body) ? (body.arg as Node).A_ArrayExpr : undefined;
        const scaled = array ? shownNumericArray(array, walk(array, ctx, false) as Node, true) : undefined;
        if (scaled) {
          ctx.changed = true;
          return scaled;
        }
        return typeCast(body, ctx, display);
      }
      case 'A_Const': {
        bitStringConstant(body);
        // `1e-4` is numeric in PostgreSQL, a DOUBLE in DuckDB. (An integer's value is not read here:
        // rewrite-shapes.ts relies on it.)
        // `-2147483648` is int4 in PostgreSQL (its grammar negates the constant before typing it); DuckDB
        // negates a BIGINT 2147483648.
        if (body.fval?.fval === '-2147483648') {
          ctx.changed = true;
          return { TypeCast: { arg: obj, typeName: { names: [str('int4')], typemod: -1 } } };
        }
        const exact = exponentConstant(body);
        if (!exact) break;
        ctx.changed = true;
        return exact;
      }
      case 'A_Expr':
        return aExpr(obj, body, ctx);
      case 'CollateClause':
        return collate(obj, body, ctx);
      case 'SQLValueFunction':
        return sqlValueFunction(obj, body, ctx);
      case 'ResTarget':
        return resTarget(body, ctx);
      case 'SortBy': {
        const node = walk(body.node, ctx, true);
        if (body.sortby_dir !== 'SORTBY_USING') return { SortBy: { ...body, node } };
        ctx.changed = true;
        return { SortBy: { ...sortUsing(body), node } };
      }
      case 'ColumnRef':
        return columnRef(obj, body, ctx);
      case 'RowExpr':
        if (!display) break;
        ctx.changed = true;
        return recordValue(walk(body.args ?? [], ctx, false) as Node[]);
      case 'GroupingFunc':
        // grouping() is int4 in PostgreSQL, BIGINT in DuckDB.
        ctx.changed = true;
        return {
          TypeCast: {
            arg: { GroupingFunc: { ...body, args: walk(body.args, ctx, false) } },
            typeName: { names: [str('integer')], typemod: -1 },
          },
        };
      case 'SelectStmt':
        refuseAmbiguousColumns(body, ctx.cteBodies ?? new Map());
        if (ctx.outermost?.has(body)) {
          aliasInExpressionRefused(body);
          const qualified = aliasesInExpressionsQualified(body);
          if (qualified) {
            ctx.changed = true;
            // (the outermost set is this rewrite's own, built in rewrite.ts: the new body is outermost too)
            (ctx.outermost as Set<Node>).add(qualified);
            return walk({ SelectStmt: qualified }, ctx, display);
          }
        }
        usingAmbiguityRefused(body);
        if (body.limitOption === 'LIMIT_OPTION_WITH_TIES') throw withTiesRefused();
        distinctSortRefused(body);
        // GROUP BY DISTINCT drops repeated grouping sets; of plain expressions there is one set, so it changes nothing.
        if (body.groupDistinct && (body.groupClause as Node[] | undefined)?.some((g) => g?.GroupingSet))
          throw groupDistinctRefused();
        emptyGroupingSetsRefused(body);
        // the branches of a set operation resolve their unknown columns together (`select null union select 1`)
        if (body.op && body.op !== 'SETOP_NONE') {
          // untyped literals take the type the other branches' constants give the column (`select 1 union select '2'`)
          const typed = setOperationTypes(body);
          if (typed) {
            ctx.changed = true;
            return walk({ SelectStmt: typed }, ctx, display);
          }
          for (const b of [body.larg, body.rarg]) if (b) setBranches.add(b);
        }
        {
          const targetList =
            wholeRowTargets(body, ctx.outermost?.has(body) === true) ??
            usingColumnsFirst(body) ??
            nullItemsAsText(body, ctx);
          if (targetList) {
            ctx.changed = true;
            return walk({ SelectStmt: { ...body, targetList } }, ctx, display);
          }
          // The FROM items a whole-row reference can name here: this SELECT's and those of the SELECTs around it.
          const outer = ctx.rowScope;
          const ordered = ctx.ordered;
          ctx.rowScope = fromItemNames(body.fromClause as Node[] | undefined, new Set(outer));
          const outerJson = ctx.jsonColumns;
          ctx.jsonColumns = jsonScalarAliases(body.fromClause as Node[] | undefined, new Map(outerJson));
          const outerColumns = ctx.columnScope;
          if (ctx.relationTypes) ctx.columnScope = selectScope(body, ctx.relationTypes, ctx.ctes, outerColumns);
          ctx.ordered = !!(body.sortClause || body.distinctClause);
          filterSubLinks(body.whereClause as Node | undefined, (ctx.filterSubLinks ??= new Set()));
          filterSubLinks(body.havingClause as Node | undefined, ctx.filterSubLinks);
          try {
            const out: Node = {};
            for (const k of keys) out[k] = walk(obj[k], ctx, false);
            if (body.groupDistinct) {
              ctx.changed = true;
              out.SelectStmt = { ...(out.SelectStmt as Node), groupDistinct: false };
            }
            return out;
          } finally {
            ctx.rowScope = outer;
            ctx.jsonColumns = outerJson;
            ctx.columnScope = outerColumns;
            ctx.ordered = ordered;
          }
        }
      case 'A_Indirection': {
        // `(row(1, 'x')).f1`: a row constructor's fields are f1, f2, …; DuckDB's struct has no such names (42000)
        // (a field PostgreSQL cannot type — an untyped string constant — stays DuckDB's error, as PostgreSQL errs)
        const name = (body.indirection as Node[])[0]?.String?.sval as string | undefined;
        const rowArgs = (body.arg as Node | undefined)?.RowExpr?.args as Node[] | undefined;
        if (rowArgs && name !== undefined && (body.indirection as Node[]).length === 1) {
          const index = Number(/^f([1-9]\d*)$/.exec(name)?.[1] ?? 0);
          if (index === 0 || index > rowArgs.length)
            throw new SqlError(SQLSTATE.undefinedColumn, `could not identify column "${name}" in record data type`);
          const value = rowArgs[index - 1]!;
          if (typeof value.A_Const?.sval?.sval !== 'string') {
            ctx.changed = true;
            return walk(value, ctx, false);
          }
        }
        const arg = walk(body.arg, ctx, false);
        const walked = walk(body.indirection, ctx, false) as Node[];
        // a catalog vector (indkey, proargtypes) counts from 0; its list from 1
        const vector = ctx.readsCatalog && isVectorColumn(body.arg as Node);
        const steps = vector ? fromBaseZero(walked) : walked;
        const read =
          pgIndirection(arg as Node, steps) ??
          (vector ? { A_Indirection: { ...body, arg, indirection: steps } } : undefined);
        if (read) ctx.changed = true;
        return read ?? { A_Indirection: { ...body, arg, indirection: steps } };
      }
      case 'CaseExpr':
      case 'CoalesceExpr':
      case 'MinMaxExpr': {
        let inner = walk(body, ctx, false) as Node;
        // greatest(ts, '2024-03-01 +00'): a zoned literal read beside the value as in a comparison
        const args = type === 'CaseExpr' ? undefined : (inner.args as Node[] | undefined);
        const zoned =
          args &&
          zonedLiteralsAmong(
            args.find((a) => !a.A_Const),
            args,
          );
        if (zoned) {
          ctx.changed = true;
          inner = { ...inner, args: zoned };
        }
        // coalesce(qty, 'n/a'): a string literal beside an integer read as PostgreSQL reads it
        const typed = type === 'CoalesceExpr' ? coalesceLiterals(inner.args as Node[]) : undefined;
        if (typed) {
          ctx.changed = true;
          inner = { ...inner, args: typed };
        }
        const walked = int4Choices(type, inner);
        if (walked !== inner) ctx.changed = true;
        const text = choosesText(type, body);
        const chosen = ctx.shown?.has(body) && !text ? shownChoice(type, walked) : undefined;
        // a choice among varchar casts and constants is varchar (1043) in PostgreSQL, DuckDB's VARCHAR sent as text
        const varchar = ctx.shown?.has(body) && text ? varcharChoice(type, body) : undefined;
        if (chosen || varchar) ctx.changed = true;
        return chosen ?? (varchar ? typedAs(varchar, { [type]: walked }) : { [type]: walked });
      }
      case 'RangeTableSample':
        samplePercent(body);
        ctx.changed = true;
        ctx.tableSample = true;
        break;
    }
  }
  const out: Node = {};
  for (const k of keys) out[k] = walk(obj[k], ctx, false);
  return out;
}

/** `work` with a value's text judged by its type name at run time (Ctx.untypedText). */
export function untypedWithin<T>(ctx: Ctx, work: () => T): T {
  ctx.untypedText = (ctx.untypedText ?? 0) + 1;
  try {
    return work();
  } finally {
    ctx.untypedText--;
  }
}

/** Select-list items keep PostgreSQL's column names (DuckDB would name them after the rewritten expression). */
function resTarget(rt: Node, ctx: Ctx): Node {
  // A bare NULL item is of type unknown, which PostgreSQL sends as text; DuckDB's result makes it INTEGER.
  if (rt.val?.A_Const?.isnull && ctx.shown?.has(rt.val.A_Const)) {
    ctx.changed = true;
    return { ResTarget: { ...rt, val: castTo(rt.val, 'varchar'), name: rt.name ?? '?column?' } };
  }
  const before = ctx.changed;
  ctx.changed = false;
  const val = walk(rt.val, ctx, true);
  const touched = ctx.changed;
  ctx.changed = before || touched;
  const name = rt.name ?? (touched && rt.val ? pgColumnName(rt.val as Node) : undefined);
  return { ResTarget: { ...rt, val, ...(name !== undefined ? { name } : {}) } };
}

/**
 * `pg_catalog.pg_class.relname` (SQLAlchemy 2 qualifies columns so): the relation is served from the
 * compat database under its own name, so the column is `pg_class.relname`.
 */
function columnRef(orig: Node, cr: Node, ctx: Ctx): Node {
  if (ctx.readsCatalog && ctx.shown?.has(cr) && isRegprocColumn(orig)) {
    ctx.changed = true;
    return shownRegproc(columnRef(orig, { ...cr }, { ...ctx, shown: undefined }));
  }
  const first = (cr.fields as Node[])[0]?.String?.sval;
  if ((cr.fields as Node[]).length >= 2 && DUCKDB_RESERVED_ALIASES.has(first)) {
    // The alias was renamed where it is declared (walk).
    ctx.changed = true;
    return { ColumnRef: { ...cr, fields: [str(`fdl_${first}`), ...(cr.fields as Node[]).slice(1)] } };
  }
  const fields = cr.fields as Node[];
  // `e` of `FROM json_array_elements(j) e` is its column (`e.value`), as in PostgreSQL
  const jsonColumn = fields.length === 1 && first !== undefined ? ctx.jsonColumns?.get(first) : undefined;
  if (jsonColumn) {
    ctx.changed = true;
    return { ColumnRef: { ...cr, fields: [str(first!), str(jsonColumn)] } };
  }
  // a bare column of an outer query read in a subquery: qualified with its FROM item (operand-types.ts outerOwner)
  if (fields.length === 1 && first !== undefined && ctx.columnScope?.outer) {
    ctx.operandTypes = true;
    const owner = outerOwner(first, ctx.columnScope);
    if (owner !== undefined) {
      ctx.changed = true;
      return { ColumnRef: { ...cr, fields: [str(owner), str(first)] } };
    }
  }
  const schema = fields[0]?.String?.sval;
  const rel = String(fields[1]?.String?.sval);
  const served =
    (schema === 'pg_catalog' && COMPAT_RELATIONS.pgCatalog.has(rel)) ||
    (schema === 'information_schema' && COMPAT_RELATIONS.informationSchema.has(rel));
  if (fields.length !== 3 || !served) return orig;
  ctx.changed = true;
  return { ColumnRef: { ...cr, fields: fields.slice(1) } };
}

function rangeVar(orig: Node, rv: Node, ctx: Ctx): Node {
  const rel = String(rv.relname);
  const schema = rv.schemaname as string | undefined;
  let target: string | undefined;
  if (schema === 'pg_catalog' && COMPAT_RELATIONS.pgCatalog.has(rel)) target = PGCAT;
  else if (!schema && !rv.catalogname && COMPAT_RELATIONS.pgCatalog.has(rel) && !ctx.ctes.has(rel)) target = PGCAT;
  else if (schema === 'information_schema' && COMPAT_RELATIONS.informationSchema.has(rel)) target = INFOSCHEMA;
  if (!target) return orig;
  ctx.changed = true;
  // `db.information_schema.tables` is served for the session's database whatever db says: the
  // session checks db is its own (0A000 otherwise, as PostgreSQL).
  if (rv.catalogname) ctx.catalogsNamed.set(String(rv.catalogname), `${rv.catalogname}.${schema}.${rel}`);
  if (target === PGCAT && ctx.systemColumns && SYSTEM_COLUMN_RELATIONS.has(rel)) {
    // The same relation with PostgreSQL's system columns; keeps the name its columns are qualified by.
    return {
      RangeVar: {
        ...rv,
        catalogname: COMPAT_DB,
        schemaname: target,
        relname: `_sys_${rel}`,
        alias: rv.alias ?? { aliasname: rel },
      },
    };
  }
  return { RangeVar: { ...rv, catalogname: COMPAT_DB, schemaname: target } };
}

function rangeFunction(orig: Node, rf: Node, ctx: Ctx): Node {
  const only = (rf.functions as Node[]).length === 1 ? (rf.functions as Node[])[0]?.List?.items : undefined;
  // (a column definition list, PostgreSQL's second item, is refused by its parse for these functions)
  const jsonSet = only?.[0]?.FuncCall as Node | undefined;
  const jsonParts = names(jsonSet?.funcname);
  if (jsonSet && (jsonParts.length === 1 || (jsonParts.length === 2 && jsonParts[0] === 'pg_catalog'))) {
    const base = jsonParts[jsonParts.length - 1];
    if (isJsonSetFunction(base)) {
      ctx.changed = true;
      return jsonSetInFrom(base!, walk(jsonSet.args ?? [], ctx, false) as Node[], rf);
    }
  }
  // unnest(a, b, …): the arrays zipped (srf-from.ts)
  if (
    jsonSet &&
    jsonParts[jsonParts.length - 1] === 'unnest' &&
    (jsonParts.length === 1 || (jsonParts.length === 2 && jsonParts[0] === 'pg_catalog')) &&
    ((jsonSet.args as Node[] | undefined)?.length ?? 0) > 1 &&
    Object.keys(only?.[1] ?? {}).length === 0
  ) {
    ctx.changed = true;
    return zippedUnnest(walk(jsonSet.args, ctx, false) as Node[], rf);
  }
  const body: Node = { ...rf };
  body.functions = (rf.functions as Node[]).map((item) => {
    const list = item?.List?.items as Node[] | undefined;
    const fc = list?.[0]?.FuncCall as Node | undefined;
    if (!list || !fc) return walk(item, ctx, false);
    const parts = names(fc.funcname);
    const base = parts[parts.length - 1]!;
    const qualified = parts.length === 2 && parts[0] === 'pg_catalog';
    let replaced: Node;
    if ((parts.length === 1 || qualified) && base === 'pg_get_keywords') {
      replaced = compat('pg_get_keywords', []);
      ctx.changed = true;
    } else if ((parts.length === 1 || qualified) && ABSENT_FEATURE_TABLE_FUNCTIONS.has(base)) {
      replaced = compat(base, walk(fc.args ?? [], ctx, false) as Node[]);
      ctx.changed = true;
    } else if ((parts.length === 1 || qualified) && base === 'pg_partition_ancestors') {
      // DuckDB has no WITH ORDINALITY for table macros: the _ord variant returns the ordinal itself.
      replaced = compat(
        rf.ordinality ? 'pg_partition_ancestors_ord' : 'pg_partition_ancestors',
        walk(fc.args ?? [], ctx, false) as Node[],
      );
      body.ordinality = false;
      ctx.changed = true;
    } else if ((parts.length === 1 || qualified) && unnestedFromFunction(base, fc.args ?? [])) {
      replaced = unnestedFromFunction(base, walk(fc.args ?? [], ctx, false) as Node[])!;
      ctx.changed = true;
    } else {
      if (parts.length === 1 || qualified) {
        const refused = jsonToRecordRefused(base);
        if (refused) throw refused;
      }
      replaced = funcCall(list[0]!, fc, ctx, true);
    }
    return { List: { items: [replaced, ...list.slice(1).map((n) => walk(n, ctx, false))] } };
  });
  const fn = body.functions?.[0]?.List?.items?.[0]?.FuncCall as Node | undefined;
  const fname = fn ? names(fn.funcname).slice(-1)[0] : undefined;
  if (
    fn &&
    fname &&
    SINGLE_COLUMN_SRF.has(fname) &&
    !rf.ordinality &&
    JSON.stringify(fn.args ?? []).includes(`"${COMPAT_DB}"`)
  ) {
    // DuckDB table functions take no subqueries, and compat macros contain some: unnest a list instead.
    ctx.changed = true;
    const alias = rf.alias ?? { aliasname: fname };
    const col = names(alias.colnames)[0] ?? alias.aliasname;
    const inner = fname === 'unnest' ? fn.args[0] : { FuncCall: fn };
    return {
      RangeSubselect: {
        subquery: {
          SelectStmt: {
            targetList: [{ ResTarget: { name: col, val: call(['unnest'], [inner]) } }],
            limitOption: 'LIMIT_OPTION_DEFAULT',
            op: 'SETOP_NONE',
          },
        },
        alias: { aliasname: alias.aliasname, colnames: [str(col)] },
      },
    };
  }
  if (
    fn &&
    fname &&
    !SINGLE_COLUMN_SRF.has(fname) &&
    !TABLE_FUNCTIONS.has(fname) &&
    !/^(duckdb_|pragma_|read_|parquet_|ducklake_)/.test(fname) &&
    names(fn.funcname).length < 3 &&
    !rf.ordinality &&
    body.functions.length === 1
  ) {
    // PostgreSQL accepts a scalar function in FROM (one row, one column named after the alias).
    ctx.changed = true;
    const alias = rf.alias ?? { aliasname: fname };
    const col = names(alias.colnames)[0] ?? alias.aliasname;
    return {
      RangeSubselect: {
        subquery: {
          SelectStmt: {
            targetList: [{ ResTarget: { name: col, val: { FuncCall: fn } } }],
            limitOption: 'LIMIT_OPTION_DEFAULT',
            op: 'SETOP_NONE',
          },
        },
        alias: { aliasname: alias.aliasname, colnames: [str(col)] },
      },
    };
  }
  // One column named after the alias, else after the function (as written: `regexp_split_to_table`
  // became DuckDB's unnest), then `ordinality`; DuckDB names it `unnest` and the alias the row.
  const written = (rf.functions as Node[])[0]?.List?.items?.[0]?.FuncCall as Node | undefined;
  const writtenName = written ? names(written.funcname).slice(-1)[0] : undefined;
  if (
    !rf.alias?.colnames &&
    writtenName &&
    SINGLE_COLUMN_SRF.has(writtenName) &&
    body.functions.length === 1 &&
    (rf.alias || writtenName !== fname || rf.ordinality)
  ) {
    const column = rf.alias?.aliasname ?? writtenName;
    const colnames = rf.ordinality ? [str(column), str('ordinality')] : [str(column)];
    body.alias = { ...(rf.alias ?? { aliasname: writtenName }), colnames };
    ctx.changed = true;
  }
  return orig === rf ? orig : { RangeFunction: body };
}

/** SELECTs that are a set operation's branches (their NULL items take the other branches' type). */
const setBranches = new WeakSet<Node>();

/**
 * A bare NULL item of a subquery, a CTE or a scalar subquery's SELECT (`(select null)`): PostgreSQL
 * resolves an unknown output column to text there, DuckDB made it INTEGER. (The outermost select list's
 * are resTarget's; a set operation's branches resolve theirs together.) Undefined when there is none.
 */
function nullItemsAsText(body: Node, ctx: Ctx): Node[] | undefined {
  if (ctx.outermost?.has(body) || setBranches.has(body) || (body.op && body.op !== 'SETOP_NONE')) return undefined;
  const items = body.targetList as Node[] | undefined;
  if (!items?.some((t) => t?.ResTarget?.val?.A_Const?.isnull)) return undefined;
  return items.map((t) =>
    t?.ResTarget?.val?.A_Const?.isnull
      ? { ResTarget: { ...t.ResTarget, val: castTo(t.ResTarget.val, 'varchar'), name: t.ResTarget.name ?? '?column?' } }
      : t,
  );
}

function collate(orig: Node, c: Node, ctx: Ctx): Node {
  const name = names(c.collname).slice(-1)[0];
  if (name === 'default' || name === 'C' || name === 'POSIX') {
    ctx.changed = true;
    return walk(c.arg, ctx, false) as Node;
  }
  return { CollateClause: { ...c, arg: walk(c.arg, ctx, false) } };
}

function sqlValueFunction(orig: Node, f: Node, ctx: Ctx): Node {
  // PostgreSQL's user, catalog and schema names are of type name (19): sent so where shown (DuckDB's are VARCHAR)
  const named = (value: Node): Node => (ctx.shown?.has(f) ? typedAs('name', value) : value);
  switch (f.op) {
    case 'SVFOP_CURRENT_USER':
    case 'SVFOP_USER':
    case 'SVFOP_SESSION_USER':
    case 'SVFOP_CURRENT_ROLE':
      ctx.changed = true;
      return named(compat('pg_current_user', []));
    case 'SVFOP_CURRENT_CATALOG':
      ctx.changed = true;
      return named(compat('pg_current_database', []));
    case 'SVFOP_CURRENT_SCHEMA':
      ctx.changed = true;
      return named(compat('current_schema', []));
    // current_timestamp(p), localtime(p), …: the value rounded to p fractional digits, as a cast to timestamptz(p).
    case 'SVFOP_CURRENT_TIME_N':
    case 'SVFOP_CURRENT_TIMESTAMP_N':
    case 'SVFOP_LOCALTIME_N':
    case 'SVFOP_LOCALTIMESTAMP_N':
      ctx.changed = true;
      return fractionalPrecision({ SQLValueFunction: { ...f, op: String(f.op).replace(/_N$/, ''), typmod: -1 } }, [
        { A_Const: { ival: { ival: Number(f.typmod ?? 0) } } },
      ]);
    default:
      return orig;
  }
}

/** GROUP BY DISTINCT over ROLLUP, CUBE or GROUPING SETS: DuckDB's grammar has no DISTINCT there. */
function groupDistinctRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'GROUP BY DISTINCT with ROLLUP, CUBE or GROUPING SETS is not supported by fdl-gateway',
    undefined,
    'List the distinct grouping sets yourself: GROUP BY GROUPING SETS ((a, b), (a), ()).',
  );
}

/** A cast of an ARRAY[…] constructor to `numeric[]` without a typmod. */
function plainNumericArray(cast: Node): boolean {
  const t = cast.typeName as Node | undefined;
  return (
    !!(cast.arg as Node | undefined)?.A_ArrayExpr &&
    names(t?.names).slice(-1)[0] === 'numeric' &&
    ((t?.arrayBounds as Node[] | undefined)?.length ?? 0) > 0 &&
    !t?.typmods
  );
}
