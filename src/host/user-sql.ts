/**
 * The SQL fragments a user gives fdl delete / update (--where, --set), judged by DuckDB's own parse
 * (json_serialize_sql over `SELECT <fragment>`), never by how the text looks: --where must be exactly
 * one expression, --set a list of `column = expression`, nothing else in the statement (no FROM,
 * WHERE, GROUP BY, ORDER BY, LIMIT, WITH, alias), and no subquery or table reference anywhere, so the
 * fragment sees the table's columns only and cannot read a file or another table. What is run is
 * DuckDB's own rendering of the parse (json_deserialize_sql), not the user's text: a comment or an
 * unbalanced parenthesis cannot reach the statement it is placed in.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { qi } from './coltypes.js';

type Node = Record<string, unknown>;

/** The parse of `SELECT <fragment>`: its select list, after checking the statement holds nothing else (read-only use: numbers may round). */
async function selectList(conn: DuckDBConnection, fragment: string, flag: string): Promise<Node[]> {
  const st = await conn.prepare('SELECT json_serialize_sql($1::VARCHAR) AS j');
  st.bindVarchar(1, `SELECT ${fragment}`);
  const json = String((await st.runAndReadAll()).getRowsJson()[0]![0]);
  const parsed = JSON.parse(json) as { error?: boolean; error_message?: string; statements?: Node[] };
  // DuckDB serializes SELECTs only: this error means it parsed a second, non-SELECT statement after `;`.
  if (parsed.error && /Only SELECT statements can be serialized/i.test(parsed.error_message ?? '')) {
    throw new Error(`${flag}: DuckDB reads more than one statement in it; give a single expression`);
  }
  if (parsed.error) throw new Error(`${flag}: ${parsed.error_message ?? 'DuckDB cannot parse it'}`);
  const statements = parsed.statements ?? [];
  if (statements.length !== 1)
    throw new Error(`${flag}: DuckDB reads ${statements.length} statements in it; give a single expression`);
  const node = statements[0]!.node as Node;
  const extra = [
    (node.from_table as Node | null)?.type !== 'EMPTY' && 'FROM',
    node.where_clause != null && 'WHERE',
    ((node.group_expressions as unknown[]) ?? []).length > 0 && 'GROUP BY',
    node.having != null && 'HAVING',
    node.qualify != null && 'QUALIFY',
    node.sample != null && 'USING SAMPLE',
    ((node.modifiers as unknown[]) ?? []).length > 0 && 'ORDER BY / LIMIT / DISTINCT',
    (((node.cte_map as Node)?.map as unknown[]) ?? []).length > 0 && 'WITH',
    node.type !== 'SELECT_NODE' && 'a set operation',
  ].filter(Boolean);
  if (extra.length)
    throw new Error(
      `${flag}: DuckDB reads ${extra.join(', ')} in it; give an expression over the table's columns only`,
    );
  const items = (node.select_list as Node[]) ?? [];
  for (const item of items) {
    if (item.alias)
      throw new Error(
        `${flag}: DuckDB reads an alias (AS ${item.alias}) in it; give an expression over the table's columns only`,
      );
    const found = readsBeyondColumns(item);
    if (found)
      throw new Error(
        `${flag}: DuckDB reads ${found} in it; the expression may use the table's columns only (no subquery, table or file)`,
      );
  }
  return items;
}

/** A subquery or table reference anywhere under `node`, named, or null. */
function readsBeyondColumns(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const n of node) {
      const f = readsBeyondColumns(n);
      if (f) return f;
    }
    return null;
  }
  if (!node || typeof node !== 'object') return null;
  const o = node as Node;
  if (o.class === 'SUBQUERY') return 'a subquery';
  if (
    typeof o.type === 'string' &&
    /^(BASE_TABLE|TABLE_FUNCTION|SUBQUERY|JOIN|EXPRESSION_LIST|PIVOT|SHOW_REF|COLUMN_DATA)$/.test(o.type) &&
    'alias' in o &&
    'sample' in o
  )
    return 'a table reference';
  for (const v of Object.values(o)) {
    const f = readsBeyondColumns(v);
    if (f) return f;
  }
  return null;
}

/**
 * DuckDB's rendering of item `index` of the fragment's select list (its `right` side with `rhs`).
 * Done in DuckDB's JSON functions: the parse holds 64-bit integers JavaScript numbers would round.
 */
async function render(conn: DuckDBConnection, fragment: string, index: number, rhs = false): Promise<string> {
  const st = await conn.prepare(`
    WITH p AS (SELECT json_serialize_sql($1::VARCHAR)::JSON -> 'statements' -> 0 AS s)
    SELECT json_deserialize_sql(json_object('error', false, 'statements', json_array(json_merge_patch(s, json_object('node',
      json_merge_patch(s -> 'node', json_object('select_list', json_array(s -> 'node' -> 'select_list' -> $2::INTEGER ${rhs ? "-> 'right'" : ''})))))))) AS sql
    FROM p`);
  st.bindVarchar(1, `SELECT ${fragment}`);
  st.bindInteger(2, index);
  const sql = String((await st.runAndReadAll()).getRowsJson()[0]![0]);
  if (!sql.startsWith('SELECT ')) throw new Error(`internal error: DuckDB rendered ${sql}`);
  return sql.slice('SELECT '.length);
}

/** --where: exactly one expression, as DuckDB renders it. */
export async function checkedPredicate(conn: DuckDBConnection, where: string): Promise<string> {
  const items = await selectList(conn, where, '--where');
  if (items.length !== 1)
    throw new Error(
      `--where: DuckDB reads ${items.length} expressions in it; give one predicate (combine conditions with AND / OR)`,
    );
  return render(conn, where, 0);
}

/** --set: `col = expr, …`, each column a plain name; rendered as an UPDATE's SET list. */
export async function checkedAssignments(conn: DuckDBConnection, set: string): Promise<string> {
  const items = await selectList(conn, set, '--set');
  const out: string[] = [];
  for (const [i, item] of items.entries()) {
    const left = item.left as Node | undefined;
    const names = left?.class === 'COLUMN_REF' ? (left.column_names as string[]) : [];
    if (item.type !== 'COMPARE_EQUAL' || names.length !== 1)
      throw new Error('--set wants col = expr, … (DuckDB reads something else in it)');
    out.push(`${qi(names[0]!)} = ${await render(conn, set, i, true)}`);
  }
  return out.join(', ');
}
