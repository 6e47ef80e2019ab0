/**
 * One mapping from DuckDB types to PostgreSQL type OIDs (TYPE_TABLE), used in SQL (pg_attribute,
 * information_schema.columns), in the wire layer (RowDescription, oids.ts) and for
 * declared parameter types, so that `atttypid`/`atttypmod` always agree with what the client sees.
 */
import { PG_CATALOG_COLUMN_OIDS } from './catalog/pg-data.js';

/**
 * The one table of types: each PostgreSQL type the gateway serves DuckDB values as, its array type,
 * the DuckDB type ids and names (as `duckdb_columns().data_type` spells them) served as it, and the
 * DuckDB type a parameter declared with it is prepared as. The wire layer (RowDescription), the
 * catalog (pg_attribute, information_schema) and parameter inference all read this table.
 */
export interface TypeEntry {
  oid: number;
  arrayOid: number;
  /** DuckDBTypeId names (`TIME_NS`, `TIMESTAMP_TZ`…) served as this type. */
  ids: readonly string[];
  /** `duckdb_columns().data_type` spellings (without modifiers) served as this type. */
  names: readonly string[];
  /** DuckDB type for a parameter the client declares as this type (undefined: left to inference). */
  param?: string;
}

export const TYPE_TABLE: readonly TypeEntry[] = [
  { oid: 16, arrayOid: 1000, ids: ['BOOLEAN'], names: ['BOOLEAN'], param: 'BOOLEAN' },
  {
    oid: 21,
    arrayOid: 1005,
    ids: ['TINYINT', 'SMALLINT', 'UTINYINT'],
    names: ['TINYINT', 'SMALLINT', 'UTINYINT'],
    param: 'SMALLINT',
  },
  { oid: 23, arrayOid: 1007, ids: ['INTEGER', 'USMALLINT'], names: ['INTEGER', 'USMALLINT'], param: 'INTEGER' },
  {
    oid: 20,
    arrayOid: 1016,
    ids: ['BIGINT', 'UINTEGER', 'INTEGER_LITERAL'],
    names: ['BIGINT', 'UINTEGER'],
    param: 'BIGINT',
  },
  {
    oid: 1700,
    arrayOid: 1231,
    ids: ['UBIGINT', 'HUGEINT', 'UHUGEINT', 'BIGNUM', 'DECIMAL'],
    names: ['HUGEINT', 'UBIGINT', 'UHUGEINT', 'BIGNUM', 'VARINT', 'DECIMAL'],
  },
  { oid: 700, arrayOid: 1021, ids: ['FLOAT'], names: ['FLOAT'], param: 'FLOAT' },
  { oid: 701, arrayOid: 1022, ids: ['DOUBLE'], names: ['DOUBLE'], param: 'DOUBLE' },
  { oid: 25, arrayOid: 1009, ids: ['VARCHAR'], names: ['VARCHAR'], param: 'VARCHAR' },
  { oid: 17, arrayOid: 1001, ids: ['BLOB'], names: ['BLOB'], param: 'BLOB' },
  { oid: 1082, arrayOid: 1182, ids: ['DATE'], names: ['DATE'], param: 'DATE' },
  { oid: 1083, arrayOid: 1183, ids: ['TIME', 'TIME_NS'], names: ['TIME', 'TIME_NS'], param: 'TIME' },
  { oid: 1266, arrayOid: 1270, ids: ['TIME_TZ'], names: ['TIME WITH TIME ZONE'], param: 'TIMETZ' },
  {
    oid: 1114,
    arrayOid: 1115,
    ids: ['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS'],
    names: ['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS'],
    param: 'TIMESTAMP',
  },
  { oid: 1184, arrayOid: 1185, ids: ['TIMESTAMP_TZ'], names: ['TIMESTAMP WITH TIME ZONE'], param: 'TIMESTAMPTZ' },
  { oid: 1186, arrayOid: 1187, ids: ['INTERVAL'], names: ['INTERVAL'], param: 'INTERVAL' },
  { oid: 2950, arrayOid: 2951, ids: ['UUID'], names: ['UUID'], param: 'UUID' },
  // No PostgreSQL equivalent: nested values are served as JSON documents (VARCHAR alias JSON too).
  {
    oid: 114,
    arrayOid: 199,
    ids: ['STRUCT', 'MAP', 'UNION', 'VARIANT'],
    names: ['JSON', 'STRUCT', 'MAP', 'UNION', 'VARIANT'],
    param: 'JSON',
  },
  // Bit strings are PostgreSQL's varbit, in text ('0101') and binary (bit count, then the bits).
  { oid: 1562, arrayOid: 1563, ids: ['BIT'], names: ['BIT'] },
];

/** Everything else (ENUM labels, GEOMETRY as WKT, NULL-typed columns) is served as text. */
export const FALLBACK_OID = 25;

/** Parameter types PostgreSQL clients declare that have no entry of their own above. */
const EXTRA_PARAM_TYPES: ReadonlyArray<readonly [number, string]> = [
  [18, 'VARCHAR'],
  [19, 'VARCHAR'],
  [1042, 'VARCHAR'],
  [1043, 'VARCHAR'],
  [26, 'UINTEGER'],
  [3802, 'JSON'],
  // reg* values arrive as their text (a name) or their OID digits; the catalog resolves either.
  [24, 'VARCHAR'],
  [2202, 'VARCHAR'],
  [2205, 'VARCHAR'],
  [2206, 'VARCHAR'],
  [4089, 'VARCHAR'],
  [4096, 'VARCHAR'],
  [1028, 'UINTEGER[]'],
  [1015, 'VARCHAR[]'],
];

/** DuckDB type for a parameter OID a client declares in Parse (scalars and their arrays). */
export const PARAM_DUCKDB_TYPE: ReadonlyMap<number, string> = new Map<number, string>([
  ...TYPE_TABLE.flatMap((e) =>
    e.param
      ? ([
          [e.oid, e.param],
          [e.arrayOid, `${e.param}[]`],
        ] as [number, string][])
      : [],
  ),
  ...EXTRA_PARAM_TYPES,
]);

/** PostgreSQL OID for a DuckDBTypeId name (scalar types only). */
export const OID_BY_DUCKDB_ID: ReadonlyMap<string, number> = new Map(
  TYPE_TABLE.flatMap((e) => e.ids.map((id) => [id, e.oid] as const)),
);

/** Element OID → array OID (PostgreSQL's typarray for the types above). */
export const ARRAY_OID: ReadonlyMap<number, number> = new Map(TYPE_TABLE.map((e) => [e.oid, e.arrayOid]));

const SCALAR: ReadonlyArray<readonly [number, readonly string[]]> = TYPE_TABLE.map((e) => [e.oid, e.names] as const);

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
  const scalar = SCALAR_BY_NAME.get(head) ?? FALLBACK_OID;
  const oid = base === t ? scalar : (ARRAY_OID.get(scalar) ?? ARRAY_OID.get(FALLBACK_OID)!);
  return { oid, typmod };
}

/**
 * SQL expression (over a DuckDB type string `dt`) giving the PostgreSQL OID of its element type, as
 * `duckdbTypeToPg` does; callers map arrays through pg_type.typarray (`typeIsArraySql`).
 */
export function elementOidSql(dt: string): string {
  const head = `regexp_replace(regexp_replace(${dt}, '(\\[\\d*\\])+$', ''), '\\(.*$', '', 's')`;
  return `(CASE ${SCALAR.map(([oid, names]) => `WHEN ${head} IN (${names.map((n) => `'${n}'`).join(', ')}) THEN ${oid}`).join(' ')} ELSE ${FALLBACK_OID} END)`;
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
    oid: 'BIGINT',
    regproc: 'BIGINT',
    regtype: 'BIGINT',
    xid: 'BIGINT',
    bigint: 'BIGINT',
    integer: 'INTEGER',
    smallint: 'SMALLINT',
    boolean: 'BOOLEAN',
    real: 'FLOAT',
    'double precision': 'DOUBLE',
    bytea: 'BLOB',
    interval: 'INTERVAL',
    'timestamp with time zone': 'TIMESTAMPTZ',
    int2vector: 'SMALLINT',
    oidvector: 'BIGINT',
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
  return oid === undefined ? undefined : catalogOidIfFits(oid, duckdbType);
}

/** PostgreSQL catalog column types (as format_type spells them) whose OID differs from DuckDB's mapping. */
const CATALOG_TYPE_OIDS: Readonly<Record<string, number>> = {
  '"char"': 18,
  name: 19,
  smallint: 21,
  int2vector: 22,
  regproc: 24,
  oid: 26,
  xid: 28,
  cid: 29,
  oidvector: 30,
  real: 700,
  '"char"[]': 1002,
  'name[]': 1003,
  'oid[]': 1028,
  'aclitem[]': 1034,
  regtype: 26,
};

/** reg* values shown as names (a reg* cast in a select list): announced with their own type, as PostgreSQL does. */
export const REG_NAME_OIDS: Readonly<Record<string, number>> = {
  regclass: 2205,
  regtype: 2206,
  regproc: 24,
  regprocedure: 2202,
  regnamespace: 4089,
  regrole: 4096,
};

/** The announced OID for a catalog column of PostgreSQL type `pgType` (format_type spelling), if it fits the DuckDB type. */
export function catalogTypeOid(pgType: string, duckdbType: string): number | undefined {
  if (REG_NAME_OIDS[pgType] !== undefined && duckdbType.toUpperCase() === 'VARCHAR') return REG_NAME_OIDS[pgType];
  const oid = CATALOG_TYPE_OIDS[pgType];
  return oid === undefined ? undefined : catalogOidIfFits(oid, duckdbType);
}

/** `oid` when a value of DuckDB type `duckdbType` can be sent as it (name/"char" from VARCHAR, oid/int2 from integers…). */
function catalogOidIfFits(oid: number, duckdbType: string): number | undefined {
  const t = duckdbType.toUpperCase();
  const integral = t === 'BIGINT' || t === 'INTEGER' || t === 'SMALLINT' || t === 'UINTEGER';
  switch (oid) {
    case 18:
    case 19:
    case 194:
      return t === 'VARCHAR' ? oid : undefined;
    case 21:
      return t === 'SMALLINT' || t === 'INTEGER' ? 21 : undefined;
    // regproc values are function OIDs here (not names), so they travel as plain oid.
    case 24:
    case 26:
    case 28:
    case 29:
      return integral ? (oid === 24 ? 26 : oid) : undefined;
    case 700:
      return t === 'FLOAT' ? 700 : undefined;
    case 22:
      return t === 'SMALLINT[]' ? 22 : undefined;
    case 30:
    case 1028:
      return t === 'BIGINT[]' ? oid : undefined;
    case 1002:
    case 1003:
    case 1034:
      return t === 'VARCHAR[]' ? oid : undefined;
    default:
      return undefined;
  }
}

/**
 * Column aliases real clients give to catalog expressions whose PostgreSQL type DuckDB cannot carry:
 * asyncpg's type introspection returns `array_agg(atttypid) AS attrtypoids` and decodes it with its
 * built-in oid[] codec (it has none for int8[], so announcing 1016 makes it introspect int8[] forever).
 */
const CLIENT_ALIAS_OIDS: Readonly<Record<string, number>> = {
  attrtypoids: 1028,
  // System columns of catalog tables (compat/install.ts systemColumnViews).
  tableoid: 26,
  xmax: 28,
  cmin: 29,
  cmax: 29,
};

/** The whole name → OID table behind `catalogColumnOid`, for inspection and docs. */
export function catalogColumnTypeOverrides(): ReadonlyMap<string, { oid: number }> {
  return new Map(Object.entries(PG_CATALOG_COLUMN_OIDS).map(([k, oid]) => [k, { oid }]));
}
