/**
 * Mapping a source column (a Parquet column, an old inlined-table column) onto the current column
 * by field id, including nested children. read_parquet's `schema` parameter matches only top-level
 * columns by id and nested children by *name*, so when a file's nested names differ from today's
 * we declare the file's own shape and rebuild the current shape with struct_pack & co.
 */
import { lit } from './sql.js';
import { type ColNode, type NodeKind, sqlType } from './types.js';
import { quoteIdent } from '../quote.js';

/** Shape of a column as stored in one source: names as written there, ids when known. */
export interface SrcNode {
  id: number | null;
  name: string;
  kind: NodeKind;
  children: SrcNode[];
}

const q = quoteIdent;

/** Same names, ids and child order all the way down: a plain CAST is enough. */
export function sameShape(cur: ColNode, src: SrcNode): boolean {
  if (cur.kind !== src.kind) return false; // the node's own name is the parent's business
  if (cur.children.length !== src.children.length) return false;
  return cur.children.every((c, i) => {
    const s = src.children[i]!;
    return s.id === c.id && s.name === c.name && sameShape(c, s);
  });
}

/** Struct children are matched by field id (list/map children are positional). */
function match(src: SrcNode, curChild: ColNode): SrcNode | undefined {
  return src.children.find((s) => s.id === curChild.id);
}

/**
 * Type to declare for a source column so the reader returns the source's own nested names
 * (restricted to children still present today) with today's leaf types. null: nothing to read.
 */
export function shapeType(cur: ColNode, src: SrcNode): string | null {
  if (cur.kind !== src.kind) return null;
  switch (cur.kind) {
    case 'leaf':
      return cur.leafType;
    case 'struct': {
      const fields = cur.children.flatMap((c) => {
        const s = src.children.find((x) => x.id === c.id);
        const t = s ? shapeType(c, s) : null;
        return s && t ? [`${q(s.name)} ${t}`] : [];
      });
      return fields.length ? `STRUCT(${fields.join(', ')})` : null;
    }
    case 'list': {
      const t = shapeType(cur.children[0]!, src.children[0]!);
      return t ? `${t}[]` : null;
    }
    case 'map': {
      const k = shapeType(cur.children[0]!, src.children[0]!);
      const v = shapeType(cur.children[1]!, src.children[1]!);
      return k && v ? `MAP(${k}, ${v})` : null;
    }
  }
}

/** Value of a column absent from a source: its initial_default (leaves only) or NULL. */
export function defaultExpr(cur: ColNode): string {
  return `CAST(${cur.initialDefault === null ? 'NULL' : lit(cur.initialDefault)} AS ${sqlType(cur)})`;
}

/** Expression turning `expr` (shaped like `src`) into the current column `cur`. */
export function convert(expr: string, cur: ColNode, src: SrcNode | undefined, depth = 0): string {
  if (!src || src.kind !== cur.kind) return defaultExpr(cur);
  if (sameShape(cur, src)) return `CAST(${expr} AS ${sqlType(cur)})`;
  const v = `x${depth}`;
  switch (cur.kind) {
    case 'leaf':
      return `CAST(${expr} AS ${sqlType(cur)})`;
    case 'struct': {
      const fields = cur.children.map((c) => {
        const s = match(src, c);
        return `${q(c.name)} := ${s ? convert(`(${expr}).${q(s.name)}`, c, s, depth + 1) : defaultExpr(c)}`;
      });
      // struct_pack of a NULL struct would be a struct of NULLs
      return `CASE WHEN (${expr}) IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
    }
    case 'list':
      return `list_transform(${expr}, lambda ${v}: ${convert(v, cur.children[0]!, src.children[0], depth + 1)})`;
    case 'map': {
      const k = convert(`${v}.key`, cur.children[0]!, src.children[0], depth + 1);
      const val = convert(`${v}.value`, cur.children[1]!, src.children[1], depth + 1);
      return `map_from_entries(list_transform(map_entries(${expr}), lambda ${v}: {'key': ${k}, 'value': ${val}}))`;
    }
  }
}
