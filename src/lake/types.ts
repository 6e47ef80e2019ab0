/**
 * DuckLake column types → DuckDB types. Leaf names follow the DuckLake spec (case-insensitive);
 * spellings are the ones DESCRIBE prints, so the catalog reports exactly what a client will see.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { quoteIdent } from '../quote.js';

const LEAF: Record<string, string> = {
  boolean: 'BOOLEAN',
  int8: 'TINYINT',
  int16: 'SMALLINT',
  int32: 'INTEGER',
  int64: 'BIGINT',
  int128: 'HUGEINT',
  uint8: 'UTINYINT',
  uint16: 'USMALLINT',
  uint32: 'UINTEGER',
  uint64: 'UBIGINT',
  uint128: 'UHUGEINT',
  float32: 'FLOAT',
  float64: 'DOUBLE',
  date: 'DATE',
  time: 'TIME',
  time_ns: 'TIME_NS',
  timetz: 'TIME WITH TIME ZONE',
  timestamp: 'TIMESTAMP',
  timestamp_us: 'TIMESTAMP',
  timestamp_ms: 'TIMESTAMP_MS',
  timestamp_ns: 'TIMESTAMP_NS',
  timestamp_s: 'TIMESTAMP_S',
  timestamptz: 'TIMESTAMP WITH TIME ZONE',
  interval: 'INTERVAL',
  varchar: 'VARCHAR',
  blob: 'BLOB',
  uuid: 'UUID',
  json: 'JSON',
  variant: 'VARIANT',
  geometry: 'GEOMETRY',
};

export type NodeKind = 'leaf' | 'struct' | 'list' | 'map';

/** One node of a column tree (a DuckLake column or a nested child). `id` is the Parquet field id. */
export interface ColNode {
  id: number;
  name: string;
  kind: NodeKind;
  /** DuckDB type of a leaf (unused for nested nodes). */
  leafType: string;
  /** initial_default as stored (text), or null. */
  initialDefault: string | null;
  children: ColNode[];
}

export function nodeKind(ducklakeType: string): NodeKind {
  const t = ducklakeType.toLowerCase();
  return t === 'struct' || t === 'list' || t === 'map' ? t : 'leaf';
}

/** DuckDB type for a DuckLake leaf type name; 0A000 for anything unknown (never guess). */
export function leafType(ducklakeType: string, where: string): string {
  const t = ducklakeType.trim().toLowerCase();
  const known = LEAF[t];
  if (known) return known;
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `DECIMAL(${dec[1]},${dec[2]})`;
  throw new SqlError(SQLSTATE.featureNotSupported, `${where}: unsupported DuckLake column type "${ducklakeType}"`);
}

/** Struct field names are printed bare by DESCRIBE when they are plain lower-case identifiers. */
function fieldName(name: string, display: boolean): string {
  return display && /^[a-z_][a-z0-9_]*$/.test(name) ? name : quoteIdent(name);
}

/**
 * Full DuckDB type of a node, e.g. `STRUCT(a INTEGER, b VARCHAR[])`. `display` prints struct field
 * names like DESCRIBE does; otherwise they are always quoted (safe inside SQL).
 */
export function sqlType(node: ColNode, display = false): string {
  switch (node.kind) {
    case 'leaf':
      return node.leafType;
    case 'struct':
      return `STRUCT(${node.children.map((c) => `${fieldName(c.name, display)} ${sqlType(c, display)}`).join(', ')})`;
    case 'list':
      return `${sqlType(node.children[0]!, display)}[]`;
    case 'map':
      return `MAP(${sqlType(node.children[0]!, display)}, ${sqlType(node.children[1]!, display)})`;
  }
}
