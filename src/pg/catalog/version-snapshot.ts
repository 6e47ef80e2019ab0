/**
 * A version's relations, schemas, columns and functions, copied into tables of the emulation once when
 * the version is attached (a version is immutable). Computing them per statement from duckdb_views(),
 * duckdb_schemas(), duckdb_columns() and duckdb_functions() cost 10–120 ms of DuckDB time for every
 * catalog statement (those table functions walk every attached catalog, DuckLake metadata included;
 * duckdb_functions() lists every built-in), which made sqlsmith's start-up take tens of seconds and psql's
 * \d 30–60× PostgreSQL. `_rel`, `_nsp`, `_cols`, `_tables` and `_funcs` read the calling connection's
 * current database from these tables, which live in `fdl_pg_versions` (names.ts). The gateway runs the
 * copy on its views builder, while the version's views database is attached there being built
 * (versions/version-catalogs.ts): relation, schema and function OIDs are that instance's, given once per
 * version and the same for every session while it stays attached; nothing compares them with the
 * sessions' instance's own (RowDescription's column sources read these rows too). Whether a DuckDB view
 * is a lake table or a lake view comes from the copying connection's `pg_relations` variable (session.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { C, V } from './names.js';
import { elementOidSql, typeIsArraySql, typeModSql } from '../types.js';
import { quoteIdent, quoteLiteral } from '../../quote.js';

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

const RELINFO_TYPE = 'STRUCT(schema_name VARCHAR, name VARCHAR, kind VARCHAR, row_count BIGINT, size_bytes BIGINT)[]';

const RELINFO = `(SELECT unnest(coalesce(CAST(getvariable('pg_relations') AS ${RELINFO_TYPE}), []::${RELINFO_TYPE}), recursive := true))`;

/**
 * The relations (lake tables and views, as DuckDB views; lake tables built as DuckDB tables, versions/native-tables.ts;
 * other DuckDB tables) of database `db`, as `_rel` lists them. A lake table answers the same either way: relkind 'r',
 * no definition, the catalog's row count and size.
 */
function relationsOf(db: string): string {
  return `SELECT v.view_oid AS oid, v.view_name AS relname, v.schema_oid AS relnamespace, v.schema_name AS nspname,
      CASE WHEN i.kind = 'view' THEN 'v' ELSE 'r' END AS relkind, v.comment,
      -- a table's DuckDB view is the gateway's own SQL (files, the frozen catalog): PostgreSQL has no definition for a table
      CASE WHEN i.kind = 'view' THEN v.sql END AS definition, i.row_count, i.size_bytes
    FROM duckdb_views() v LEFT JOIN ${RELINFO} i
      ON i.schema_name = v.schema_name AND i.name = v.view_name
    WHERE v.database_name = ${db} AND NOT v.internal
    UNION ALL
    SELECT t.table_oid, t.table_name, t.schema_oid, t.schema_name, 'r', t.comment, NULL,
      CASE WHEN i.name IS NULL THEN t.estimated_size ELSE i.row_count END, i.size_bytes
    FROM duckdb_tables() t LEFT JOIN ${RELINFO} i
      ON i.kind = 'table' AND i.schema_name = t.schema_name AND i.name = t.table_name
    WHERE t.database_name = ${db} AND NOT t.internal`;
}

/** The schemas of database `db`, as `_nsp` lists them. */
function schemasOf(db: string): string {
  return `SELECT oid, schema_name AS nspname, comment FROM duckdb_schemas() WHERE database_name = ${db}`;
}

/**
 * Catalog views whose rows depend only on the version (not on session variables): materialised per
 * version at attach, so a statement reads a table instead of binding and running the view's joins.
 */
// The relations clients read in nearly every catalog statement, each then one filtered scan of a table instead of
// a union of the version's and the catalog's relations joined to a count of columns (pg_class), a union of
// constants and schemas (pg_namespace), a union of columns joined to the types (pg_attribute), a union of
// PostgreSQL's functions and the version's macros (pg_proc: sqlsmith's start-up reads it once per function) and a
// union of five sources of comments (_descriptions: pgjdbc's getTables, obj_description). In-process, psql's and
// the client fixtures' catalog statements: p50 CPU 4.4 → 2.5 ms (bench/catalog-plan.ts). Switched off once
// after sqlsmith's generated joins over them ran for minutes past statement_timeout; bench/sqlsmith.ts's 2,000
// statements now complete with them (docs/performance.md), and test/sqlsmith.test.ts runs them. They are tables of
// `fdl_pg_versions`, a file the sessions' instance attaches READ_ONLY: under memory pressure DuckDB drops their
// blocks and reads them again; as tables of an in-memory database they were written to its temp directory
// (test/ceilings.test.ts counted 12–36 MB of temp that no statement held).
export const MATERIALISED_VIEWS: readonly string[] = [
  '_relall',
  'pg_namespace',
  'pg_class',
  'pg_attribute',
  'pg_proc',
  '_descriptions',
];

/**
 * Rewrite install statements so each view of MATERIALISED_VIEWS becomes `_live_<name>` (its definition,
 * read once per version by snapshotVersionCatalog) and `<name>` a view over `_<name>_by_db`.
 */
export function materialiseViews(statements: readonly string[]): string[] {
  const out: string[] = [];
  for (const sql of statements) {
    const name = MATERIALISED_VIEWS.find((n) => sql.startsWith(`CREATE VIEW ${C}${n} AS`));
    if (!name) {
      out.push(sql);
      continue;
    }
    out.push(sql.replace(`CREATE VIEW ${C}${name} AS`, `CREATE VIEW ${C}_live_${name} AS`));
    out.push(`CREATE TABLE ${V}_${name}_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM ${C}_live_${name} LIMIT 0`);
    out.push(`CREATE VIEW ${C}${name} AS SELECT * EXCLUDE (db) FROM ${V}_${name}_by_db WHERE db = current_database()`);
  }
  return out;
}

/** Install-time statements: the snapshot tables (empty) and the per-database views over them. */
export function snapshotStatements(): string[] {
  return [
    `CREATE TABLE ${V}_snapshot_dbs (db VARCHAR PRIMARY KEY)`,
    `CREATE TABLE ${V}_cols_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${columnsOf("''")}) LIMIT 0`,
    `CREATE TABLE ${V}_tables_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${tablesOf("''")}) LIMIT 0`,
    `CREATE TABLE ${V}_funcs_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${functionsOf("''")}) LIMIT 0`,
    `CREATE TABLE ${V}_rel_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${relationsOf("''")}) LIMIT 0`,
    `CREATE TABLE ${V}_nsp_by_db AS SELECT CAST(NULL AS VARCHAR) AS db, * FROM (${schemasOf("''")}) LIMIT 0`,
    `CREATE VIEW ${C}_tables AS SELECT * EXCLUDE (db) FROM ${V}_tables_by_db WHERE db = current_database()`,
    `CREATE VIEW ${C}_rel AS SELECT * EXCLUDE (db) FROM ${V}_rel_by_db WHERE db = current_database()`,
    `CREATE VIEW ${C}_nsp AS SELECT * EXCLUDE (db) FROM ${V}_nsp_by_db WHERE db = current_database()`,
    `CREATE VIEW ${C}_cols AS SELECT * EXCLUDE (db) FROM ${V}_cols_by_db WHERE db = current_database()`,
    `CREATE VIEW ${C}_funcs AS SELECT * EXCLUDE (db) FROM ${V}_funcs_by_db WHERE db = current_database()`,
  ];
}

/** Copy database `db`'s relations, schemas, columns and functions once it is complete (after attach and comments; `pg_relations` set). */
export async function snapshotVersionCatalog(conn: DuckDBConnection, db: string): Promise<void> {
  await forgetVersionCatalog(conn, db);
  const d = quoteLiteral(db);
  await conn.run(`INSERT INTO ${V}_rel_by_db SELECT ${d}, * FROM (${relationsOf(d)})`);
  await conn.run(`INSERT INTO ${V}_nsp_by_db SELECT ${d}, * FROM (${schemasOf(d)})`);
  // attrelid: the relation's OID as _rel lists it (columns are matched to relations by name)
  await conn.run(`INSERT INTO ${V}_cols_by_db SELECT ${d}, r.oid, c.* EXCLUDE (attrelid) FROM (${columnsOf(d)}) c
    JOIN ${V}_rel_by_db r ON r.db = ${d} AND r.nspname = c.schema_name AND r.relname = c.table_name`);
  await conn.run(`INSERT INTO ${V}_tables_by_db SELECT ${d}, * FROM (${tablesOf(d)})`);
  // before the materialised views: pg_proc lists the version's macros
  await conn.run(`INSERT INTO ${V}_funcs_by_db SELECT ${d}, * FROM (${functionsOf(d)})`);
  // The live views read the connection's current database: read them with `db` current.
  const current = String((await conn.runAndReadAll('SELECT current_database()')).getRows()[0]?.[0] ?? '');
  const schema = String((await conn.runAndReadAll('SELECT current_schema()')).getRows()[0]?.[0] ?? 'main');
  await conn.run(`USE ${quoteIdent(db)}`);
  try {
    for (const name of MATERIALISED_VIEWS)
      await conn.run(`INSERT INTO ${V}_${name}_by_db SELECT ${d}, * FROM ${C}_live_${name}`);
  } finally {
    if (current !== '' && current !== db) await conn.run(`USE ${quoteIdent(current)}.${quoteIdent(schema)}`);
  }
  await conn.run(`INSERT INTO ${V}_snapshot_dbs VALUES (${d})`);
}

/** Drop database `db`'s snapshot (when it is detached). */
export async function forgetVersionCatalog(conn: DuckDBConnection, db: string): Promise<void> {
  const d = quoteLiteral(db);
  await conn.run(`DELETE FROM ${V}_snapshot_dbs WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${V}_cols_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${V}_tables_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${V}_funcs_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${V}_rel_by_db WHERE db = ${d}`);
  await conn.run(`DELETE FROM ${V}_nsp_by_db WHERE db = ${d}`);
  for (const name of MATERIALISED_VIEWS) await conn.run(`DELETE FROM ${V}_${name}_by_db WHERE db = ${d}`);
}
