/**
 * A FROM clause naming two of its items alike (`from orders a, customers a`): PostgreSQL refuses it,
 * 42712 `table name "a" specified more than once`, where DuckDB answers, the later name shadowing the
 * earlier. DuckDB's parse (json_serialize_sql), read on every statement, finds the candidates cheaply;
 * it drops the alias of a parenthesized join, so a candidate is confirmed on PostgreSQL's own parse
 * (PostgreSQL's rule, parse_relation.c checkNameSpaceConflicts): each SELECT's FROM apart, a table's
 * name its alias, else its own name; a subquery's, a VALUES list's and a function's their alias (a
 * function's name without one); an aliased join only its alias (and a USING join's alias). Two tables
 * without aliases named alike under different schemas are two relations PostgreSQL tells apart: only
 * identical spellings are refused. A text PostgreSQL's grammar cannot read is never refused here.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { parsePg } from '../pg/pg-parse.js';
import { jsonObjects, type JsonObject as Json } from './json-objects.js';

/** One FROM item's name, and for a table without an alias its spelled schema and catalog. */
interface Named {
  name: string;
  table?: string;
}

function fromNames(item: unknown, into: Named[]): void {
  // joins nest on their left side: walked with a stack, never by recursion
  const stack: unknown[] = [item];
  while (stack.length > 0) {
    const n = stack.pop() as Json | undefined;
    if (!n || typeof n !== 'object') continue;
    const alias = typeof n.alias === 'string' ? n.alias : '';
    switch (n.type) {
      case 'JOIN':
        stack.push(n.right, n.left);
        break;
      case 'BASE_TABLE':
        if (alias !== '') into.push({ name: alias });
        else if (typeof n.table_name === 'string')
          into.push({ name: n.table_name, table: `${String(n.catalog_name ?? '')}.${String(n.schema_name ?? '')}` });
        break;
      case 'TABLE_FUNCTION': {
        const fn = (n.function as Json | undefined)?.function_name;
        const name = alias !== '' ? alias : typeof fn === 'string' ? fn : '';
        if (name !== '') into.push({ name });
        break;
      }
      case 'SUBQUERY':
      case 'EXPRESSION_LIST':
        if (alias !== '') into.push({ name: alias });
        break;
    }
  }
}

/** The first name one FROM clause gives twice, among `names` (`fold`: compared in lower case); undefined when none. */
function twice(names: Named[], fold = false): string | undefined {
  const seen = new Map<string, Named>();
  for (const n of names) {
    const key = fold ? n.name.toLowerCase() : n.name;
    const before = seen.get(key);
    if (before && (before.table === undefined || n.table === undefined || before.table === n.table)) return n.name;
    seen.set(key, n);
  }
  return undefined;
}

/** One FROM item's names in PostgreSQL's parse (RangeVar, RangeSubselect, RangeFunction, JoinExpr…). */
function pgFromNames(item: unknown, into: Named[]): void {
  const stack: unknown[] = [item];
  while (stack.length > 0) {
    const n = stack.pop() as Json | undefined;
    if (!n || typeof n !== 'object') continue;
    const [kind, body] = (Object.entries(n)[0] ?? []) as [string | undefined, Json | undefined];
    if (!kind || !body) continue;
    const alias = (body.alias as Json | undefined)?.aliasname;
    if (kind === 'JoinExpr') {
      const using = (body.join_using_alias as Json | undefined)?.aliasname;
      if (typeof using === 'string') into.push({ name: using });
      if (typeof alias === 'string') into.push({ name: alias });
      else stack.push(body.rarg, body.larg);
    } else if (kind === 'RangeTableSample') stack.push(body.relation);
    else if (kind === 'RangeVar') {
      if (typeof alias === 'string') into.push({ name: alias });
      else if (typeof body.relname === 'string')
        into.push({ name: body.relname, table: `${String(body.catalogname ?? '')}.${String(body.schemaname ?? '')}` });
    } else if (typeof alias === 'string') into.push({ name: alias });
    else if (kind === 'RangeFunction') {
      const items = ((body.functions as Json[] | undefined)?.[0]?.List as Json | undefined)?.items as
        Json[] | undefined;
      const fn = ((items?.[0]?.FuncCall as Json | undefined)?.funcname as Json[] | undefined)?.slice(-1)[0];
      const name = (fn?.String as Json | undefined)?.sval;
      if (typeof name === 'string') into.push({ name });
    }
  }
}

/** Throws 42712 when one FROM clause of the statement names two items alike (`tree`: DuckDB's parse of `sql`). */
export function refuseDuplicateFromNames(tree: unknown, sql: string): void {
  let candidate = false;
  for (const o of jsonObjects(tree)) {
    if (o.type !== 'SELECT_NODE' || !o.from_table || typeof o.from_table !== 'object') continue;
    const names: Named[] = [];
    fromNames(o.from_table, names);
    // (DuckDB's parse keeps an unquoted name's case, which PostgreSQL folds: the candidates are folded)
    if (twice(names, true) !== undefined) candidate = true;
  }
  if (!candidate) return;
  for (const o of jsonObjects(parsePg(sql))) {
    const select = o.SelectStmt as Json | undefined;
    if (!select?.fromClause) continue;
    const names: Named[] = [];
    for (const item of select.fromClause as unknown[]) pgFromNames(item, names);
    const name = twice(names);
    if (name !== undefined)
      throw new SqlError(SQLSTATE.duplicateAlias, `table name "${name}" specified more than once`);
  }
}
