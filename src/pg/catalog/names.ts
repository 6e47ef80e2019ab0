/** Names and fixed OIDs shared by the compat catalog (install.ts) and the rewriter (../rewrite.ts). */

/**
 * The database holding the emulation's macros, views and PostgreSQL's own rows; one per DuckDB instance,
 * attached READ_ONLY where sessions run (install.ts).
 */
export const COMPAT_DB = 'fdl_pg';
/**
 * The database holding the attached versions' rows (relations, schemas, columns, functions, the
 * materialised views), each keyed by the version's database name; written by the views builder and
 * swapped into the sessions' instance READ_ONLY (version-snapshot.ts, versions/version-catalogs.ts).
 */
export const VERSIONS_DB = 'fdl_pg_versions';
/** Qualifier for the per-version tables. */
export const V = `${VERSIONS_DB}.pgcat.`;
/** Qualifier for pg_catalog objects (views, tables, macros). */
export const C = `${COMPAT_DB}.pgcat.`;
/** Qualifier for information_schema objects (DuckDB reserves the name `information_schema`). */
export const I = `${COMPAT_DB}.infoschema.`;

export const PG_CATALOG_OID = 11;
export const INFO_SCHEMA_OID = 13207;
/** Every object is owned by the bootstrap role, which stands for the connected user. */
export const BOOTSTRAP_ROLE_OID = 10;
/** Reported when the session has not set `pg_server_version`. */
export const DEFAULT_SERVER_VERSION = '15.0';
