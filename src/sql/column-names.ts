/**
 * Result column names as PostgreSQL gives them. DuckDB names an unaliased expression by its text
 * (`count_star()`, `CAST(id AS VARCHAR)`); PostgreSQL by a rule (FigureColname): the function's name
 * (`count`), the column under a cast (`id`), the type of a cast constant (`int4`), a keyword for a
 * few forms (`case`, `coalesce`, `array`, `exists`) and `?column?` otherwise. Clients and BI tools
 * show these names, so the gateway follows PostgreSQL wherever its grammar parses the statement.
 */
import { LRUCache } from 'lru-cache';
import { parsePg } from './pg-parse.js';

/** Only names DuckDB built from an expression need the parser. */
const PLAIN = /^[A-Za-z_][A-Za-z0-9_$]*$/;

type Node = Record<string, unknown>;

/** Statements repeat (drivers re-parse the same text): remember the answer per text and names. */
const memo = new LRUCache<string, { names: string[] | null }>({ max: 512 });

export function postgresColumnNames(sql: string, duckdbNames: readonly string[]): string[] | null {
  if (duckdbNames.every((n) => PLAIN.test(n))) return null;
  const key = `${sql}\u0000${duckdbNames.join('\u0000')}`;
  const hit = memo.get(key);
  if (hit) return hit.names;
  const names = figureNames(sql, duckdbNames);
  memo.set(key, { names });
  return names;
}

function figureNames(sql: string, duckdbNames: readonly string[]): string[] | null {
  const tree = parsePg(sql);
  if (!tree) return null; // DuckDB syntax: keep DuckDB's names
  if (tree.stmts?.length !== 1) return null;
  let select = (tree.stmts[0]!.stmt as Node | undefined)?.SelectStmt as Node | undefined;
  // A set operation takes its names from its left-most SELECT.
  while (select && select.op !== undefined && select.op !== 'SETOP_NONE') select = (select.larg as Node | undefined) ?? undefined;
  const targets = select?.targetList as { ResTarget?: Node }[] | undefined;
  if (!targets || targets.length !== duckdbNames.length) return null;
  const names: string[] = [];
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i]!.ResTarget;
    if (!t) return null;
    const val = t.val as Node | undefined;
    if (val && isStar(val)) return null; // expanded by DuckDB: its names are the columns'
    names.push(typeof t.name === 'string' ? duckdbNames[i]! : figure(val) ?? '?column?');
  }
  return names;
}

function isStar(val: Node): boolean {
  const fields = (val.ColumnRef as Node | undefined)?.fields as Node[] | undefined;
  return !!fields?.some((f) => 'A_Star' in f);
}

function lastString(list: unknown): string | null {
  if (!Array.isArray(list) || list.length === 0) return null;
  const last = (list[list.length - 1] as Node).String as Node | undefined;
  return typeof last?.sval === 'string' ? last.sval : null;
}

function figure(val: Node | undefined): string | null {
  if (!val) return null;
  const [kind, body] = Object.entries(val)[0] as [string, Node];
  switch (kind) {
    case 'ColumnRef':
      return lastString(body.fields);
    case 'FuncCall':
      return lastString(body.funcname);
    case 'TypeCast':
      return figure(body.arg as Node) ?? lastString((body.typeName as Node | undefined)?.names);
    case 'A_Indirection': {
      const name = lastString(body.indirection);
      return name ?? figure(body.arg as Node);
    }
    case 'CollateClause':
      return figure(body.arg as Node);
    case 'CaseExpr':
      return 'case';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'MinMaxExpr':
      return body.op === 'IS_GREATEST' ? 'greatest' : 'least';
    case 'A_ArrayExpr':
      return 'array';
    case 'RowExpr':
      return 'row';
    case 'GroupingFunc':
      return 'grouping';
    case 'A_Expr':
      return body.kind === 'AEXPR_NULLIF' ? 'nullif' : null;
    case 'SQLValueFunction':
      return String(body.op ?? '').replace(/^SVFOP_/, '').replace(/_N$/, '').toLowerCase() || null;
    case 'SubLink': {
      const type = body.subLinkType;
      if (type === 'EXISTS_SUBLINK') return 'exists';
      if (type === 'ARRAY_SUBLINK') return 'array';
      if (type === 'EXPR_SUBLINK') {
        const sub = (body.subselect as Node | undefined)?.SelectStmt as Node | undefined;
        const first = (sub?.targetList as { ResTarget?: Node }[] | undefined)?.[0]?.ResTarget;
        return typeof first?.name === 'string' ? first.name : figure(first?.val as Node | undefined);
      }
      return null;
    }
    default:
      return null;
  }
}
