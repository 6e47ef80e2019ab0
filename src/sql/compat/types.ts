/**
 * One mapping from DuckDB types to PostgreSQL type OIDs, used twice: in SQL (pg_attribute,
 * information_schema.columns) and in TypeScript (the wire layer's RowDescription), so that
 * `atttypid`/`atttypmod` always agree with what the client sees on the wire.
 */
import { PG_CATALOG_COLUMN_OIDS } from './pg-data.js';

/** DuckDB scalar type names (as `duckdb_columns().data_type` spells them) → PostgreSQL OID. */
const SCALAR: ReadonlyArray<readonly [number, readonly string[]]> = [
  [16, ['BOOLEAN']],
  [21, ['TINYINT', 'SMALLINT', 'UTINYINT']],
  [23, ['INTEGER', 'USMALLINT']],
  [20, ['BIGINT', 'UINTEGER']],
  [1700, ['HUGEINT', 'UBIGINT', 'UHUGEINT', 'BIGNUM', 'VARINT', 'DECIMAL']],
  [700, ['FLOAT']],
  [701, ['DOUBLE']],
  [25, ['VARCHAR']],
  [17, ['BLOB']],
  [1082, ['DATE']],
  [1083, ['TIME']],
  [1266, ['TIME WITH TIME ZONE']],
  [1114, ['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS']],
  [1184, ['TIMESTAMP WITH TIME ZONE']],
  [1186, ['INTERVAL']],
  [2950, ['UUID']],
  [114, ['JSON', 'STRUCT', 'MAP', 'UNION', 'VARIANT']],
  [1562, ['BIT']],
];

/** Element OID → array OID (PostgreSQL's typarray for the types above). */
export const ARRAY_OID: ReadonlyMap<number, number> = new Map([
  [16, 1000], [21, 1005], [23, 1007], [20, 1016], [1700, 1231], [700, 1021], [701, 1022], [25, 1009],
  [17, 1001], [1082, 1182], [1083, 1183], [1266, 1270], [1114, 1115], [1184, 1185], [1186, 1187],
  [2950, 2951], [114, 199], [1562, 1563],
]);

const SCALAR_BY_NAME = new Map<string, number>(SCALAR.flatMap(([oid, names]) => names.map((n) => [n, oid] as const)));

export interface PgTypeRef {
  oid: number;
  /** -1 unless the type carries a modifier (DECIMAL → ((p << 16) | s) + 4). */
  typmod: number;
}

const ARRAY_SUFFIX = /(\[\d*\])+$/;
const DECIMAL = /^DECIMAL\((\d+),\s*(\d+)\)$/;

/** PostgreSQL type of a DuckDB type string (`INTEGER`, `DECIMAL(10,2)`, `VARCHAR[]`, `STRUCT(a INTEGER)`…). */
export function duckdbTypeToPg(duckdbType: string): PgTypeRef {
  const t = duckdbType.trim().toUpperCase();
  const base = t.replace(ARRAY_SUFFIX, '');
  const dec = DECIMAL.exec(base);
  const typmod = dec ? ((Number(dec[1]) << 16) | Number(dec[2])) + 4 : -1;
  const head = base.replace(/\(.*$/s, '');
  const scalar = SCALAR_BY_NAME.get(head) ?? (head.startsWith('ENUM') ? 25 : 25);
  const oid = base === t ? scalar : (ARRAY_OID.get(scalar) ?? 1009);
  return { oid, typmod };
}

/**
 * SQL expression (over a DuckDB type string `dt`) giving the PostgreSQL OID of its element type, as
 * `duckdbTypeToPg` does; callers map arrays through pg_type.typarray (`typeIsArraySql`).
 */
export function elementOidSql(dt: string): string {
  const head = `regexp_replace(regexp_replace(${dt}, '(\\[\\d*\\])+$', ''), '\\(.*$', '', 's')`;
  return `(CASE ${SCALAR.map(([oid, names]) => `WHEN ${head} IN (${names.map((n) => `'${n}'`).join(', ')}) THEN ${oid}`).join(' ')} ELSE 25 END)`;
}

/** SQL predicate: is the DuckDB type string a LIST/ARRAY type. */
export function typeIsArraySql(dt: string): string {
  return `regexp_matches(${dt}, '\\]$')`;
}

/** SQL expression equivalent to `duckdbTypeToPg(dt).typmod`. */
export function typeModSql(dt: string): string {
  const base = `regexp_replace(${dt}, '(\\[\\d*\\])+$', '')`;
  const p = `TRY_CAST(regexp_extract(${base}, '^DECIMAL\\((\\d+),\\s*(\\d+)\\)$', 1) AS INTEGER)`;
  const s = `TRY_CAST(regexp_extract(${base}, '^DECIMAL\\((\\d+),\\s*(\\d+)\\)$', 2) AS INTEGER)`;
  return `coalesce(${p} * 65536 + ${s} + 4, -1)`;
}

/** DuckDB column type for a PostgreSQL catalog column type (as format_type spells it). */
export function duckdbTypeForCatalogColumn(pgType: string): string {
  const isArray = pgType.endsWith('[]') || pgType === 'int2vector' || pgType === 'oidvector' || pgType === 'anyarray';
  const elem = pgType.replace(/\[\]$/, '');
  const scalar: Record<string, string> = {
    oid: 'BIGINT', regproc: 'BIGINT', regtype: 'BIGINT', xid: 'BIGINT', bigint: 'BIGINT', integer: 'INTEGER',
    smallint: 'SMALLINT', boolean: 'BOOLEAN', real: 'FLOAT', 'double precision': 'DOUBLE', bytea: 'BLOB',
    interval: 'INTERVAL', 'timestamp with time zone': 'TIMESTAMPTZ', int2vector: 'SMALLINT', oidvector: 'BIGINT',
  };
  const s = scalar[elem] ?? 'VARCHAR';
  return isArray ? `${s}[]` : s;
}

/**
 * PostgreSQL type OID that a result column of a *catalog* statement should carry in RowDescription,
 * chosen by the column's output name (clients such as pgjdbc pick getters by `name`/`oid`/`"char"`),
 * or undefined to keep the ordinary DuckDB→PostgreSQL mapping. The override applies only when the
 * DuckDB type can carry it (VARCHAR for name/"char", integers for oid/int2), so a user alias that
 * happens to be called `relname` over an integer is not mislabelled.
 */
export function catalogColumnOid(columnName: string, duckdbType: string): number | undefined {
  const oid = PG_CATALOG_COLUMN_OIDS[columnName.toLowerCase()] ?? CLIENT_ALIAS_OIDS[columnName.toLowerCase()];
  if (oid === undefined) return undefined;
  const t = duckdbType.toUpperCase();
  const integral = t === 'BIGINT' || t === 'INTEGER' || t === 'SMALLINT' || t === 'UINTEGER';
  switch (oid) {
    case 18: case 19: case 194: return t === 'VARCHAR' ? oid : undefined;
    case 21: return t === 'SMALLINT' || t === 'INTEGER' ? 21 : undefined;
    // regproc values are function OIDs here (not names), so they travel as plain oid.
    case 24: case 26: case 28: return integral ? (oid === 24 ? 26 : oid) : undefined;
    case 700: return t === 'FLOAT' ? 700 : undefined;
    case 22: return t === 'SMALLINT[]' ? 22 : undefined;
    case 30: case 1028: return t === 'BIGINT[]' ? oid : undefined;
    case 1002: case 1003: case 1034: return t === 'VARCHAR[]' ? oid : undefined;
    default: return undefined;
  }
}

/**
 * Column aliases real clients give to catalog expressions whose PostgreSQL type DuckDB cannot carry:
 * asyncpg's type introspection returns `array_agg(atttypid) AS attrtypoids` and decodes it with its
 * built-in oid[] codec (it has none for int8[], so announcing 1016 makes it introspect int8[] forever).
 */
const CLIENT_ALIAS_OIDS: Readonly<Record<string, number>> = { attrtypoids: 1028 };

/** The whole name → OID table behind `catalogColumnOid`, for inspection and docs. */
export function catalogColumnTypeOverrides(): ReadonlyMap<string, { oid: number }> {
  return new Map(Object.entries(PG_CATALOG_COLUMN_OIDS).map(([k, oid]) => [k, { oid }]));
}
