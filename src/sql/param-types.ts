/**
 * DuckDB types for parameter OIDs a client declares in Parse. PostgreSQL takes a declared type as
 * the parameter's type; DuckDB would infer its own, so the statement is prepared with an explicit
 * cast. Types without a sensible DuckDB spelling are left to inference.
 */
const BY_OID: Record<number, string> = {
  16: 'BOOLEAN',
  17: 'BLOB',
  18: 'VARCHAR',
  19: 'VARCHAR',
  20: 'BIGINT',
  21: 'SMALLINT',
  23: 'INTEGER',
  25: 'VARCHAR',
  26: 'UINTEGER',
  114: 'JSON',
  700: 'FLOAT',
  701: 'DOUBLE',
  1042: 'VARCHAR',
  1043: 'VARCHAR',
  1082: 'DATE',
  1083: 'TIME',
  1114: 'TIMESTAMP',
  1184: 'TIMESTAMPTZ',
  1186: 'INTERVAL',
  1266: 'TIMETZ',
  2950: 'UUID',
  3802: 'JSON',
  1000: 'BOOLEAN[]',
  1005: 'SMALLINT[]',
  1007: 'INTEGER[]',
  1009: 'VARCHAR[]',
  1015: 'VARCHAR[]',
  1016: 'BIGINT[]',
  1021: 'FLOAT[]',
  1022: 'DOUBLE[]',
  1028: 'UINTEGER[]',
  1115: 'TIMESTAMP[]',
  1182: 'DATE[]',
  1185: 'TIMESTAMPTZ[]',
  2951: 'UUID[]',
};

export function duckTypeForOid(oid: number): string | undefined {
  return BY_OID[oid];
}
