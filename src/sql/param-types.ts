/**
 * DuckDB types for parameter OIDs a client declares in Parse. PostgreSQL takes a declared type as
 * the parameter's type; DuckDB would infer its own, so the statement is prepared with an explicit
 * cast. Types without a sensible DuckDB spelling are left to inference. The mapping is part of the
 * one type table (compat/types.ts).
 */
import { PARAM_DUCKDB_TYPE } from './compat/types.js';
import { COMPAT_DB } from './compat/names.js';

export function duckTypeForOid(oid: number): string | undefined {
  return PARAM_DUCKDB_TYPE.get(oid);
}

/** reg* types: a declared parameter is resolved to the OID its name (or OID digits) denotes, as PostgreSQL's input function does. */
const REG_INPUT: ReadonlyMap<number, string> = new Map([
  [2205, '_regclass_in'], [2206, '_regtype_in'], [24, '_regproc_in'], [2202, '_regproc_in'], [4089, '_regnamespace_in'], [4096, '_regrole_in'],
]);

/** The SQL a parameter `$n` declared with `oid` (DuckDB type `duckType`) is prepared as. */
export function declaredParamSql(n: number, duckType: string, oid: number): string {
  const input = REG_INPUT.get(oid);
  return input ? `${COMPAT_DB}.pgcat.${input}(($${n}::${duckType}))` : `($${n}::${duckType})`;
}
