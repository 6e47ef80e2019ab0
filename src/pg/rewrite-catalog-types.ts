/** The PostgreSQL types of catalog columns a select list reads directly (RewriteResult.columnTypes). */
import { PG_STATIC_RELATIONS, PG_VIEW_COLUMNS } from './catalog/pg-data.js';
import { functionStyleCast } from './pg-forms.js';
import { typeInputCall } from './type-input-calls.js';
import { names, REG_TYPES, TO_REG_CALL, type Node } from './rewrite-nodes.js';

/** pg_catalog relation → column → PostgreSQL type (format_type spelling), from PostgreSQL 15's catalog. */
const CATALOG_COLUMNS: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map([
  ...Object.entries(PG_VIEW_COLUMNS).map(([rel, cols]) => [rel, new Map(cols)] as const),
  ...PG_STATIC_RELATIONS.map((r) => [r.name, new Map(r.columns)] as const),
]);

/** See RewriteResult.columnTypes: the select list of one SELECT, read before rewriting. */
export function catalogColumnTypes(
  tree: { stmts?: unknown[] },
  ctes: ReadonlySet<string>,
): (string | undefined)[] | undefined {
  if (tree.stmts?.length !== 1) return undefined;
  const select = (tree.stmts[0] as Node).stmt?.SelectStmt as Node | undefined;
  if (!select?.targetList || (select.op && select.op !== 'SETOP_NONE')) return undefined;
  const rels = new Map<string, string>(); // name columns are qualified by → catalog relation
  const from = (n: Node): void => {
    const rv = n?.RangeVar as Node | undefined;
    if (
      rv &&
      !rv.catalogname &&
      (rv.schemaname === 'pg_catalog' || (!rv.schemaname && !ctes.has(rv.relname))) &&
      CATALOG_COLUMNS.has(rv.relname)
    ) {
      rels.set(rv.alias?.aliasname ?? rv.relname, rv.relname);
    } else if (n?.JoinExpr) {
      from(n.JoinExpr.larg);
      from(n.JoinExpr.rarg);
    }
  };
  for (const n of (select.fromClause ?? []) as Node[]) from(n);
  // A reg* cast in the select list (`cast($1 as regclass)`, `regclass($1)`) is a column of that type, as in PostgreSQL.
  const regCast = (t: Node): string | undefined => {
    const fc = t.ResTarget?.val?.FuncCall as Node | undefined;
    const call = fc && names(fc.funcname);
    const tc = (t.ResTarget?.val?.TypeCast ??
      (call && (call.length === 1 || call[0] === 'pg_catalog')
        ? (functionStyleCast(call.at(-1), fc!) ?? typeInputCall(call.at(-1), fc!))?.TypeCast
        : undefined)) as Node | undefined;
    const type = tc && !tc.typeName?.arrayBounds?.length ? names(tc.typeName?.names).slice(-1)[0] : undefined;
    if (type && REG_TYPES.has(type)) return type;
    // to_regclass(…) and relatives are of their reg* type too (pg/rewrite-calls.ts shows their names).
    const to = call?.length === 1 || call?.[0] === 'pg_catalog' ? TO_REG_CALL.exec(call.at(-1)!) : null;
    return to && fc!.args?.length === 1 ? to[1] : undefined;
  };
  if (rels.size === 0 && !(select.targetList as Node[]).some(regCast)) return undefined;
  const out: (string | undefined)[] = [];
  for (const t of select.targetList as Node[]) {
    const reg = regCast(t);
    if (reg) {
      out.push(reg);
      continue;
    }
    const fields = t.ResTarget?.val?.ColumnRef?.fields as Node[] | undefined;
    if (fields?.some((f) => 'A_Star' in f)) return undefined; // positions unknown after expansion
    const parts = names(fields);
    if (!fields || parts.length > 2) {
      out.push(undefined);
      continue;
    }
    const column = parts[parts.length - 1]!;
    const candidates = parts.length === 2 ? [rels.get(parts[0]!)] : [...rels.values()];
    const found = candidates.flatMap((rel) =>
      rel && CATALOG_COLUMNS.get(rel)?.has(column) ? [CATALOG_COLUMNS.get(rel)!.get(column)!] : [],
    );
    out.push(found.length === 1 ? found[0] : undefined);
  }
  return out;
}
