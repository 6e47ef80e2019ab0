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

/**
 * The longest name text the catalog's lookups read (a relation, schema, type, function or setting by
 * name). PostgreSQL's names are at most 63 bytes a part (three parts quoted: under 400 characters);
 * a longer text names nothing here and is answered as an unknown name at once. The lookups compare a
 * name with every catalog row inside one uninterruptible vector: 2,048 row-built names of 240 KB ran
 * 48–112 s past statement_timeout and once took the process past its data limit (attacker review).
 */
export const MAX_NAME_TEXT = 1024;
