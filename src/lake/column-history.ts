/**
 * A table's column history (every ducklake_column row, any snapshot) and what is read from it: the
 * column tree as of a snapshot, whether nested fields evolved, which columns never changed type.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { num, optNum, optStr, str, type Row } from './sql.js';
import { type ColNode, leafType, nodeKind } from './types.js';

/** One ducklake_column row (any snapshot). */
export interface ColumnRow {
  tableId: number;
  id: number;
  begin: number;
  end: number | null;
  order: number;
  name: string;
  type: string;
  initialDefault: string | null;
  parent: number | null;
}

/** ducklake_column rows by table id. */
export function columnHistory(columnRows: Row[]): Map<number, ColumnRow[]> {
  const history = new Map<number, ColumnRow[]>();
  for (const r of columnRows) {
    const row: ColumnRow = {
      tableId: num(r.table_id),
      id: num(r.column_id),
      begin: num(r.begin_snapshot),
      end: optNum(r.end_snapshot),
      order: num(r.column_order),
      name: str(r.column_name),
      type: str(r.column_type),
      initialDefault: optStr(r.initial_default),
      parent: optNum(r.parent_column),
    };
    history.set(row.tableId, [...(history.get(row.tableId) ?? []), row]);
  }
  return history;
}

/** Column tree of a table as of snapshot `s`, children in column_order. */
export function treeAt(history: ColumnRow[], s: number, where: string): ColNode[] {
  const live = history
    .filter((c) => c.begin <= s && (c.end === null || s < c.end))
    .sort((a, b) => a.order - b.order || a.id - b.id);
  const build = (parent: number | null): ColNode[] =>
    live
      .filter((c) => c.parent === parent)
      .map((c) => {
        const kind = nodeKind(c.type);
        const node: ColNode = {
          id: c.id,
          name: c.name,
          kind,
          leafType: kind === 'leaf' ? leafType(c.type, `${where} column "${c.name}"`) : '',
          initialDefault: kind === 'leaf' ? c.initialDefault : null,
          children: build(c.id),
        };
        const want = kind === 'list' ? 1 : kind === 'map' ? 2 : -1;
        if (want >= 0 && node.children.length !== want) {
          throw new SqlError(SQLSTATE.featureNotSupported, `${where}: malformed ${kind} column "${c.name}"`);
        }
        return node;
      });
  return build(null);
}

/** Nested children renamed, dropped or re-added after creation: only a by-id read is correct. */
export function nestedEvolved(history: ColumnRow[]): boolean {
  const children = history.filter((c) => c.parent !== null);
  if (children.length === 0) return false;
  const first = Math.min(...history.map((c) => c.begin));
  return children.some((c) => c.end !== null || c.begin > first);
}

/** Columns whose every version has the same type (statistics written under an older type would mislead). */
export function stableTypes(history: ColumnRow[]): Set<number> {
  const types = new Map<number, Set<string>>();
  for (const c of history) types.set(c.id, (types.get(c.id) ?? new Set()).add(c.type.toLowerCase()));
  return new Set([...types].filter(([, t]) => t.size === 1).map(([id]) => id));
}
