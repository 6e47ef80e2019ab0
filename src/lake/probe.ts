/**
 * Reading Parquet footers is the expensive part of opening a version, so it is done only where the
 * catalog cannot tell: tables whose nested children evolved (match children by field id) and files
 * not written by DuckLake (may lack field ids → positional mapping). One parquet_schema call in all.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LakeTable } from './model.js';
import type { SrcNode } from './nested.js';
import { lit, optNum, rows, str, type Row } from './sql.js';

/** DuckLake names the files it writes `ducklake-<uuid>.parquet`; those always carry field ids. */
export function writtenByDuckLake(path: string): boolean {
  return /(^|\/)ducklake-[^/]*\.parquet$/.test(path);
}

/** Data files whose footer must be read, as data file id → relative path. */
export function filesToProbe(tables: LakeTable[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const t of tables) {
    for (const f of t.dataFiles) {
      if (f.mappingId !== null || f.key !== null) continue; // name-mapped, or encrypted (footer unreadable)
      if (t.nestedEvolved || !writtenByDuckLake(f.path)) out.set(f.id, f.path);
    }
  }
  return out;
}

/** Turn parquet_schema rows of one file (depth-first) into top-level source nodes. */
export function schemaTree(schemaRows: Row[]): SrcNode[] {
  let i = 0;
  const node = (): SrcNode => {
    const r = schemaRows[i++]!;
    const n = optNum(r.num_children);
    const conv = str(r.converted_type).toUpperCase();
    const logical = str(r.logical_type).toUpperCase();
    const base = { id: optNum(r.field_id), name: str(r.name) };
    if (n === null) return { ...base, kind: 'leaf', children: [] };
    const kids: SrcNode[] = [];
    for (let k = 0; k < n; k++) kids.push(node());
    if (conv === 'LIST' || logical.startsWith('LIST')) {
      // 3-level list: group → repeated group → element; 2-level legacy: the repeated node is the element
      const rep = kids[0]!;
      return {
        ...base,
        kind: 'list',
        children: [rep.kind === 'struct' && rep.children.length === 1 && rep.id === null ? rep.children[0]! : rep],
      };
    }
    if (conv === 'MAP' || conv === 'MAP_KEY_VALUE' || logical.startsWith('MAP')) {
      return { ...base, kind: 'map', children: kids[0]!.children };
    }
    return { ...base, kind: 'struct', children: kids };
  };
  const root = node(); // the schema root
  return root.children;
}

export async function probeShapes(
  conn: DuckDBConnection,
  files: Map<number, string>,
  locate: (rel: string) => string,
): Promise<Map<number, SrcNode[]>> {
  const out = new Map<number, SrcNode[]>();
  if (files.size === 0) return out;
  const byPath = new Map<string, number[]>();
  for (const [id, rel] of files) {
    const abs = locate(rel);
    byPath.set(abs, [...(byPath.get(abs) ?? []), id]);
  }
  const list = [...byPath.keys()].map((p) => lit(p)).join(', ');
  const result = await rows(
    conn,
    `SELECT file_name, name, num_children, converted_type, CAST(logical_type AS VARCHAR) AS logical_type, field_id FROM parquet_schema([${list}])`,
  );
  const perFile = new Map<string, Row[]>();
  for (const r of result) {
    const f = str(r.file_name);
    if (!perFile.has(f)) perFile.set(f, []);
    perFile.get(f)!.push(r);
  }
  for (const [path, ids] of byPath) {
    const schemaRows = perFile.get(path);
    if (!schemaRows) continue;
    const tree = schemaTree(schemaRows);
    for (const id of ids) out.set(id, tree);
  }
  return out;
}
