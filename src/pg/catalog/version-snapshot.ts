/**
 * A version's columns, tables and functions, copied into tables of the emulation once when the version is
 * attached (a version is immutable). Computing them per statement from duckdb_columns() and
 * duckdb_functions() cost 50–120 ms of DuckDB time for every catalog statement that touched
 * pg_attribute, pg_class or pg_proc (duckdb_functions() lists every built-in function), which made
 * sqlsmith's start-up take tens of seconds. `_cols` and `_funcs` keep their names and columns and
 * read the calling connection's current database from these tables. (A live fallback for databases
 * without a snapshot was measured: DuckDB runs a UNION branch even when its filter is false.)
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { C } from './names.js';
import { elementOidSql, typeIsArraySql, typeModSql } from '../types.js';
import { quoteLiteral } from '../../quote.js';



/** The columns of database `db` (a SQL expression), as `_cols` lists them. */
function columnsOf(db: string): string {
  return `SELECT c.table_oid AS attrelid, c.schema_name, c.table_name, c.column_name AS attname, c.column_index AS attnum,
      CASE WHEN ${typeIsArraySql('c.data_type')} THEN coalesce(e.typarray, 1009) ELSE c.elem END AS atttypid,
      ${typeModSql('c.data_type')} AS atttypmod, c.data_type, c.is_nullable, c.comment, c.column_default
    FROM (SELECT *, ${elementOidSql('data_type')} AS elem FROM duckdb_columns() WHERE database_name = ${db} AND NOT internal) c
      LEFT JOIN ${C}_types e ON e.oid = c.elem`;
}

/** The tables (not views) of database `db`, as `_tables` lists them; their OIDs never change. */
function tablesOf(db: string): string {
  return `SELECT table_oid, table_name, schema_oid, schema_name, comment, estimated_size
    FROM duckdb_tables() WHERE database_name = ${db} AND NOT internal`;
}

/** The user-defined functions (macros) of database `db`, as `_funcs` lists them. */
function functionsOf(db: string): string {
  return `SELECT f.function_oid, f.function_name, n.oid AS schema_oid, len(f.parameters) AS nargs, f.macro_definition
    FROM duckdb_functions() f JOIN duckdb_schemas() n ON n.database_name = f.database_name AND n.schema_name = f.schema_name
    WHERE f.database_name = ${db} AND NOT f.internal`;
}

/** Install-time statements: the snapshot tables (empty) and the `_cols` / `_funcs` views over them. */
export function snapshotStatements(): string[] {
  return [
    `CREATE TABLE ${C}_snapshot_dbs (db VARCHAR PRIMARY KEY)`,
    `CREATE TABLE ${C}_cols_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${columnsOf("''")}) LIMIT 0`,
    `CREATE TABLE ${C}_tables_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${tablesOf("''")}) LIMIT 0`,
    `CREATE TABLE ${C}_funcs_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${functionsOf("''")}) LIMIT 0`,
    `CREATE VIEW ${C}_tables AS SELECT * EXCLUDE (db) FROM ${C}_tables_by_db WHERE db = current_database()`,
    // View OIDs are read live (cheap): a remote version's table views are rebuilt per statement.
    `CREATE VIEW ${C}_cols AS SELECT r.oid AS attrelid, c.* EXCLUDE (db, attrelid)
      FROM ${C}_cols_by_db c JOIN (
        SELECT view_oid AS oid, schema_name, view_name AS name FROM duckdb_views() WHERE database_name = current_database()
        UNION ALL SELECT table_oid, schema_name, table_name FROM ${C}_tables
      ) r ON r.schema_name = c.schema_name AND r.name = c.table_name
      WHERE c.db = current_database()`,
    `CREATE VIEW ${C}_funcs AS SELECT * EXCLUDE (db) FROM ${C}_funcs_by_db WHERE db = current_database()`,
  ];
}

/** Copy database `db`'s columns and functions once it is complete (after attach and comments). */
export async function snapshotVersionCatalog(conn: DuckDBConnection, db: string): Promise<void> {
  await forgetVersionCatalog(conn, db);
  const d = quoteLiteral(db);
  await conn.run(`INSERT INTO ${C}_cols_by_db SELECT ${d}, * FROM (${columnsOf(d)})`);
  await conn.run(`INSERT INTO ${C}_tables_by_db SELECT ${d}, * FROM (${tablesOf(d)})`);
  await conn.run(`INSERT INTO ${C}_funcs_by_db SELECT ${d}, * FROM (${functionsOf(d)})`);
  await conn.run(`INSERT INTO ${C}_snapshot_dbs VALUES (${d})`);
}

/** Drop database `db`'s snapshot (when it is detached). */
export async function forgetVersionCatalog(conn: DuckDBConnection, db: string): Promise<void> {
  const d = quoteLiteral(db);
  await conn.run(`DELETE FROM ${C}_snapshot_dbs WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${C}_cols_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${C}_tables_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${C}_funcs_by_db WHERE db = ${d}`);
}
