/**
 * DuckDB types for parameter OIDs a client declares in Parse. PostgreSQL takes a declared type as
 * the parameter's type; DuckDB would infer its own, so the statement is prepared with an explicit
 * cast. Types without a sensible DuckDB spelling are left to inference. The mapping is part of the
 * one type table (compat/types.ts).
 */
import { PARAM_DUCKDB_TYPE } from './compat/types.js';

export function duckTypeForOid(oid: number): string | undefined {
  return PARAM_DUCKDB_TYPE.get(oid);
}
