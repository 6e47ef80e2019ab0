/**
 * Quoted identifiers keep their case in PostgreSQL: `"Order_Id"` names only a column spelled exactly
 * so (42703 for `order_id`), `sales."Orders"` only such a table (42P01). DuckDB matches every name
 * without regard to case, quoted or not, so it would answer where PostgreSQL refuses. A statement
 * naming a quoted identifier with an upper-case letter is checked here: each such name must be
 * defined by the statement itself (an alias, a column alias, a CTE) or exist with exactly that
 * spelling in DuckDB's catalog; else PostgreSQL's error. Only such statements pay the look-up.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { mapSegments } from '../text/split.js';
import { quoteLiteral } from '../quote.js';
import { parsePg } from './pg-parse.js';

type Node = Record<string, any>;

/** A quoted identifier holding an ASCII upper-case letter (PostgreSQL folds only unquoted names). */
const QUOTED_UPPER = /^"(?:[^"]|"")*[A-Z](?:[^"]|"")*"$/;

export interface CaseNames {
  /** Names as PostgreSQL reads them, used as columns (or their qualifiers) and as relations or schemas. */
  columns: Set<string>;
  relations: Set<string>;
  /** Names the statement defines itself. */
  defined: Set<string>;
}

const hasUpper = (s: unknown): s is string => typeof s === 'string' && /[A-Z]/.test(s);

/** The names of `sql` to check, or undefined when no quoted identifier holds an upper-case letter. */
export function quotedCaseNames(sql: string): CaseNames | undefined {
  let quoted = false;
  mapSegments(sql, (kind, text) => {
    if (kind === 'identifier' && QUOTED_UPPER.test(text)) quoted = true;
    return text;
  });
  if (!quoted) return undefined;
  const tree = parsePg(sql);
  if (!tree) return undefined;
  const names: CaseNames = { columns: new Set(), relations: new Set(), defined: new Set() };
  const ctes = new Set<string>();
  const qualified: unknown[][] = [];
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!n || typeof n !== 'object') return;
    const node = n as Node;
    if (node.ColumnRef) {
      // `"Foo"`, `t."Foo"`: a column and its qualifier. Three names or more (`s.t."Foo"`, `t.s."Foo"`,
      // a pinned version's `"Repo@v1".t.c`) are not checked: a schema's or a struct field's.
      const fields = ((node.ColumnRef.fields ?? []) as Node[]).map((f) => f.String?.sval as unknown);
      if (fields.length <= 2 && fields.some(hasUpper)) qualified.push(fields);
    }
    if (node.RangeVar) {
      const rv = node.RangeVar as Node;
      // A pinned version (`"Repo@v1".t`) is resolved by the gateway, not DuckDB's catalog: not checked.
      for (const s of [rv.schemaname, rv.relname]) if (hasUpper(s) && !s.includes('@')) names.relations.add(s);
      // A FROM item is named by its table name where it has no alias.
      if (typeof rv.relname === 'string') names.defined.add(rv.relname);
    }
    if (node.ResTarget && typeof node.ResTarget.name === 'string') names.defined.add(node.ResTarget.name);
    // A FROM item's alias and column aliases (`… o`, `… t(a, "B")`), in the parse tree as `alias`.
    const alias = (node.alias ?? node.Alias) as Node | undefined;
    if (alias && typeof alias.aliasname === 'string') {
      names.defined.add(alias.aliasname);
      for (const c of (alias.colnames ?? []) as Node[]) names.defined.add(String(c.String?.sval));
    }
    if (node.CommonTableExpr) {
      names.defined.add(String(node.CommonTableExpr.ctename));
      ctes.add(String(node.CommonTableExpr.ctename));
      for (const c of (node.CommonTableExpr.aliascolnames ?? []) as Node[]) names.defined.add(String(c.String?.sval));
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(tree);
  for (const fields of qualified) {
    // `x."Foo"` where x is no name the statement defines may be a column's field (a struct): not checked.
    if (fields.length === 2 && !names.defined.has(String(fields[0]))) continue;
    for (const f of fields) if (hasUpper(f) && !names.defined.has(f) && !f.includes('@')) names.columns.add(f);
  }
  for (const c of ctes) names.relations.delete(c);
  return names.columns.size + names.relations.size > 0 ? names : undefined;
}

/**
 * PostgreSQL's error for a quoted name no column, table or schema of DuckDB's catalog spells exactly
 * (`"Order_Id"` where the column is `order_id`). A name spelled so somewhere passes: the check never
 * refuses what PostgreSQL answers.
 */
export async function refuseCaseMismatch(conn: DuckDBConnection, sql: string): Promise<void> {
  const names = quotedCaseNames(sql);
  if (!names) return;
  const wanted = [...new Set([...names.columns, ...names.relations])];
  const found = await conn.runAndReadAll(
    `SELECT name FROM (SELECT column_name AS name FROM duckdb_columns() UNION ALL SELECT table_name FROM duckdb_tables()
       UNION ALL SELECT view_name FROM duckdb_views() UNION ALL SELECT schema_name FROM duckdb_schemas())
     WHERE name IN (${wanted.map((w) => quoteLiteral(w)).join(', ')})`,
  );
  const known = new Set(found.getRows().map((r) => String(r[0])));
  for (const c of names.columns)
    if (!known.has(c)) throw new SqlError(SQLSTATE.undefinedColumn, `column "${c}" does not exist`);
  for (const r of names.relations)
    if (!known.has(r)) throw new SqlError(SQLSTATE.undefinedTable, `relation "${r}" does not exist`);
}
