/** Names and fixed OIDs shared by the compat catalog (install.ts) and the rewriter (../rewrite.ts). */

/** The attached in-memory database holding the emulation; one per DuckDB instance. */
export const COMPAT_DB = 'fdl_pg';
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
