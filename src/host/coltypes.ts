/**
 * DuckDB result types → DuckLake column trees (type names as the extension writes them in
 * ducklake_column.column_type). Types DuckLake cannot store are converted (ENUM → varchar,
 * fixed ARRAY → list) by the cast the import applies, so the file always matches the catalog.
 */
import {
  DuckDBTypeId,
  type DuckDBType,
  DuckDBStructType,
  DuckDBListType,
  DuckDBMapType,
  DuckDBDecimalType,
  DuckDBArrayType,
} from '@duckdb/node-api';
import { leafType } from '../lake/types.js';
import { quoteIdent as qi, quoteLiteral as lit } from '../quote.js';

export interface ColDef {
  name: string;
  /** DuckLake type name: int32, varchar, decimal(12,2), struct, list, map, ... */
  type: string;
  children: ColDef[];
  /** Assigned by the catalog builder: Parquet field id = ducklake_column.column_id. */
  id?: number;
}

const LEAF: Partial<Record<DuckDBTypeId, string>> = {
  [DuckDBTypeId.BOOLEAN]: 'boolean',
  [DuckDBTypeId.TINYINT]: 'int8',
  [DuckDBTypeId.SMALLINT]: 'int16',
  [DuckDBTypeId.INTEGER]: 'int32',
  [DuckDBTypeId.BIGINT]: 'int64',
  [DuckDBTypeId.HUGEINT]: 'int128',
  [DuckDBTypeId.UTINYINT]: 'uint8',
  [DuckDBTypeId.USMALLINT]: 'uint16',
  [DuckDBTypeId.UINTEGER]: 'uint32',
  [DuckDBTypeId.UBIGINT]: 'uint64',
  [DuckDBTypeId.UHUGEINT]: 'uint128',
  [DuckDBTypeId.FLOAT]: 'float32',
  [DuckDBTypeId.DOUBLE]: 'float64',
  [DuckDBTypeId.DATE]: 'date',
  [DuckDBTypeId.TIME]: 'time',
  [DuckDBTypeId.TIME_NS]: 'time_ns',
  [DuckDBTypeId.TIME_TZ]: 'timetz',
  [DuckDBTypeId.TIMESTAMP]: 'timestamp',
  [DuckDBTypeId.TIMESTAMP_S]: 'timestamp_s',
  [DuckDBTypeId.TIMESTAMP_MS]: 'timestamp_ms',
  [DuckDBTypeId.TIMESTAMP_NS]: 'timestamp_ns',
  [DuckDBTypeId.TIMESTAMP_TZ]: 'timestamptz',
  [DuckDBTypeId.INTERVAL]: 'interval',
  [DuckDBTypeId.VARCHAR]: 'varchar',
  [DuckDBTypeId.BLOB]: 'blob',
  [DuckDBTypeId.UUID]: 'uuid',
  [DuckDBTypeId.ENUM]: 'varchar',
  [DuckDBTypeId.BIT]: 'varchar',
  [DuckDBTypeId.BIGNUM]: 'varchar',
};

export { qi, lit };

export function colDef(name: string, t: DuckDBType): ColDef {
  if (t.alias?.toUpperCase() === 'JSON') return { name, type: 'json', children: [] };
  if (t instanceof DuckDBStructType)
    return { name, type: 'struct', children: t.entryNames.map((n, i) => colDef(n, t.entryTypes[i]!)) };
  if (t instanceof DuckDBListType || t instanceof DuckDBArrayType)
    return { name, type: 'list', children: [colDef('element', t.valueType)] };
  if (t instanceof DuckDBMapType)
    return { name, type: 'map', children: [colDef('key', t.keyType), colDef('value', t.valueType)] };
  if (t instanceof DuckDBDecimalType) return { name, type: `decimal(${t.width},${t.scale})`, children: [] };
  const leaf = LEAF[t.typeId];
  if (!leaf)
    throw new Error(`column ${JSON.stringify(name)}: type ${t.toString()} cannot be stored in a DuckLake table`);
  return { name, type: leaf, children: [] };
}

/** DuckDB SQL type of a column tree (struct field names always quoted). */
export function sqlType(c: ColDef): string {
  switch (c.type) {
    case 'struct':
      return `STRUCT(${c.children.map((k) => `${qi(k.name)} ${sqlType(k)}`).join(', ')})`;
    case 'list':
      return `${sqlType(c.children[0]!)}[]`;
    case 'map':
      return `MAP(${sqlType(c.children[0]!)}, ${sqlType(c.children[1]!)})`;
  }
  return leafType(c.type, `column ${JSON.stringify(c.name)}`);
}

/** FIELD_IDS value for COPY … (FORMAT parquet): nested nodes carry __duckdb_field_id. */
export function fieldIds(cols: ColDef[]): string {
  const one = (c: ColDef): string =>
    c.children.length === 0
      ? String(c.id)
      : `{__duckdb_field_id: ${c.id}, ${c.children.map((k) => `${qi(k.name)}: ${one(k)}`).join(', ')}}`;
  return `{${cols.map((c) => `${qi(c.name)}: ${one(c)}`).join(', ')}}`;
}

/** Same shape and types (names compared exactly), ignoring ids. */
export function sameTree(a: ColDef[], b: ColDef[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => x.name === b[i]!.name && x.type === b[i]!.type && sameTree(x.children, b[i]!.children))
  );
}

/** Leaves with the RETURN_STATS key of each ("s"."x", "l"."element"). */
export function leaves(cols: ColDef[], prefix = ''): { key: string; col: ColDef }[] {
  return cols.flatMap((c) => {
    const key = prefix + qi(c.name);
    return c.children.length === 0 ? [{ key, col: c }] : leaves(c.children, key + '.');
  });
}
