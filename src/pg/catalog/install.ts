/**
 * The PostgreSQL catalog emulation: one in-memory database (`fdl_pg`) shared by every connection of a
 * DuckDB instance, holding views and macros that describe *the calling connection's current database*
 * (the session's lake version). Views are evaluated at query time from the session's `pg_*` variables
 * and each attached version's relations, schemas, columns and functions (copied once at attach,
 * ./version-snapshot.ts), so nothing is rebuilt when a session
 * switches version. DuckDB refuses objects in `pg_catalog`, hence the rewriter (../rewrite.ts)
 * points `pg_catalog.X` here.
 */
import { PG_FUNCTION_MACROS, PG_SEMANTIC_MACROS } from '../pg-macros.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  PG_CATALOG_RELATIONS,
  PG_KEYWORDS,
  PG_PROCS,
  PG_RANGES,
  PG_SETTINGS,
  PG_STATIC_RELATIONS,
  PG_TYPES,
  PG_VIEW_COLUMNS,
} from './pg-data.js';
import { duckdbTypeForCatalogColumn } from '../types.js';
import { PRIVILEGED_SETTINGS, privilegedSettingMessage } from './privileged-settings.js';
import { hygienicMacro, macroParams } from './hygiene.js';
import { materialiseViews, snapshotStatements } from './version-snapshot.js';
import { DESCRIBE_MACROS } from './describe.js';
import { PG_CATALOG_ATTRIBUTES } from './catalog-attributes.js';
import { PG_BUILTIN_DESCRIPTIONS } from './builtin-descriptions.js';
import { ABSENT_FEATURE_MACROS, ABSENT_FEATURE_RELATIONS, absentFeatureStatements } from './absent-features.js';
import { DESCRIPTION_CLASSES, FUNCTION_CATALOG_ROWS, functionCatalogStatements, functionProcSelect } from './functions.js';
import { COMPAT_DB, C, I, INFO_SCHEMA_OID, PG_CATALOG_OID, BOOTSTRAP_ROLE_OID, DEFAULT_SERVER_VERSION } from './names.js';

export interface InstallOptions {
  /** Reported by version(); defaults to the package version. */
  gatewayVersion?: string;
}

/** Settings whose defaults differ from a stock server because the gateway is read-only and UTF-8. */
const SETTING_DEFAULTS: Record<string, string> = {
  server_version: DEFAULT_SERVER_VERSION,
  server_version_num: '150000',
  server_encoding: 'UTF8',
  client_encoding: 'UTF8',
  datestyle: 'ISO, MDY',
  timezone: 'UTC',
  log_timezone: 'UTC',
  default_transaction_read_only: 'on',
  transaction_read_only: 'on',
  transaction_isolation: 'read committed',
  search_path: '"$user", public',
  standard_conforming_strings: 'on',
  integer_datetimes: 'on',
  intervalstyle: 'postgres',
  is_superuser: 'off',
  application_name: '',
  lc_collate: 'C.UTF-8',
  lc_ctype: 'C.UTF-8',
  in_hot_standby: 'off',
  max_index_keys: '32',
};

/** Create `fdl_pg` once per DuckDB instance (idempotent; safe to call from every new connection). */
export async function installCompat(conn: DuckDBConnection, options: InstallOptions = {}): Promise<void> {
  const exists = await conn.runAndReadAll(`SELECT 1 FROM duckdb_databases() WHERE database_name = '${COMPAT_DB}'`);
  if (exists.currentRowCount > 0) return;
  const duckdbVersion = String((await conn.runAndReadAll('SELECT library_version FROM pragma_version()')).getRows()[0]?.[0]);
  const statements = compatStatements({
    gatewayVersion: options.gatewayVersion ?? '0.1.0',
    duckdbVersion,
    arch: process.arch === 'arm64' ? 'aarch64' : 'x86_64',
    startTime: new Date().toISOString(),
  });
  await conn.run(`ATTACH ':memory:' AS ${COMPAT_DB}`);
  try {
    for (const sql of statements) await conn.run(sql);
  } catch (e) {
    // Leave no half-built catalog behind: the next connection retries from scratch.
    await conn.run(`DETACH ${COMPAT_DB}`).catch(() => undefined);
    throw e;
  }
}

/** SQL literal for a JS value (catalog data only: strings, numbers, booleans, null, arrays of those). */
function lit(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(lit).join(', ')}]`;
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** PostgreSQL's text form of an array ('{a,b}') → list literal. */
function pgArrayText(v: unknown): string {
  if (typeof v !== 'string' || !v.startsWith('{')) return 'NULL';
  const items = v.slice(1, -1).split(',').filter((s) => s !== '').map((s) => s.replace(/^"|"$/g, ''));
  return lit(items);
}

function valuesTable(name: string, cols: ReadonlyArray<readonly [string, string]>, rows: ReadonlyArray<readonly unknown[]>): string[] {
  const def = cols.map(([n, t]) => `"${n}" ${t}`).join(', ');
  const out = [`CREATE TABLE ${C}${name} (${def})`];
  if (rows.length > 0) out.push(`INSERT INTO ${C}${name} VALUES ${rows.map((r) => `(${r.map(lit).join(', ')})`).join(',\n')}`);
  return out;
}

/**
 * pg_stat_activity shows the calling session (sessions are separate DuckDB connections; a
 * non-superuser sees no detail of other users' sessions in PostgreSQL either): pid, user, database,
 * application and the client's address — the real one when a PROXY-protocol balancer is in front.
 */
function statActivityView(columns: ReadonlyArray<readonly [string, string]>): string {
  const exprs: Record<string, string> = {
    datname: `${C}_dbname()`,
    pid: `TRY_CAST(${C}_var('backend_pid') AS INTEGER)`,
    usename: `${C}_user()`,
    application_name: `coalesce(${C}_var('application_name'), '')`,
    client_addr: `${C}_var('client_addr')`,
    backend_start: `TRY_CAST(${C}_var('backend_start') AS TIMESTAMPTZ)`,
    state: `'active'`,
    backend_type: `'client backend'`,
  };
  const list = columns.map(([col, pgType]) => `CAST(${exprs[col] ?? 'NULL'} AS ${duckdbTypeForCatalogColumn(pgType)}) AS "${col}"`);
  return `CREATE VIEW ${C}pg_stat_activity AS SELECT ${list.join(', ')}`;
}

/**
 * A catalog view with exactly PostgreSQL's columns, in order and with catalog types, from a SELECT
 * whose output names match; columns the emulation has no value for are NULL.
 */
function pgView(name: string, exprs: Record<string, string>, from: string): string {
  const cols = PG_VIEW_COLUMNS[name];
  if (!cols) throw new Error(`no column list for ${name}`);
  const list = cols.map(([col, pgType]) => `CAST(${exprs[col] ?? 'NULL'} AS ${duckdbTypeForCatalogColumn(pgType)}) AS "${col}"`);
  return `CREATE VIEW ${C}${name} AS SELECT ${list.join(', ')} ${from}`;
}

interface Build {
  gatewayVersion: string;
  duckdbVersion: string;
  arch: string;
  startTime: string;
}

function compatStatements(b: Build): string[] {
  const s: string[] = [`CREATE SCHEMA ${COMPAT_DB}.pgcat`, `CREATE SCHEMA ${COMPAT_DB}.infoschema`];

  // ---- static data from a real server
  s.push(...valuesTable('_types', [
    ['oid', 'BIGINT'], ['typname', 'VARCHAR'], ['typlen', 'SMALLINT'], ['typbyval', 'BOOLEAN'], ['typtype', 'VARCHAR'],
    ['typcategory', 'VARCHAR'], ['typispreferred', 'BOOLEAN'], ['typdelim', 'VARCHAR'], ['typelem', 'BIGINT'],
    ['typarray', 'BIGINT'], ['typinput', 'BIGINT'], ['typoutput', 'BIGINT'], ['typreceive', 'BIGINT'], ['typsend', 'BIGINT'],
    ['typmodin', 'BIGINT'], ['typmodout', 'BIGINT'], ['typanalyze', 'BIGINT'], ['typalign', 'VARCHAR'], ['typstorage', 'VARCHAR'],
    ['typcollation', 'BIGINT'], ['typsubscript', 'BIGINT'], ['fmt', 'VARCHAR'],
  ], PG_TYPES));
  s.push(...valuesTable('_procs', [
    ['oid', 'BIGINT'], ['proname', 'VARCHAR'], ['pronargs', 'SMALLINT'], ['prorettype', 'BIGINT'], ['argtypes', 'VARCHAR'],
    ['provolatile', 'VARCHAR'], ['proisstrict', 'BOOLEAN'], ['prosrc', 'VARCHAR'],
  ], PG_PROCS));
  s.push(...valuesTable('_settings', [
    ['name', 'VARCHAR'], ['setting', 'VARCHAR'], ['unit', 'VARCHAR'], ['category', 'VARCHAR'], ['short_desc', 'VARCHAR'],
    ['context', 'VARCHAR'], ['vartype', 'VARCHAR'], ['min_val', 'VARCHAR'], ['max_val', 'VARCHAR'], ['enumvals', 'VARCHAR[]'],
    ['boot_val', 'VARCHAR'],
  ], PG_SETTINGS.filter((r) => !PRIVILEGED_SETTINGS.has(String(r[0]))).map((r) => {
    const row = [...r];
    const d = SETTING_DEFAULTS[String(row[0]).toLowerCase()];
    if (d !== undefined) row[1] = row[10] = d;
    row[9] = null; // replaced below from the text form
    return row;
  })));
  PG_SETTINGS.forEach((r) => {
    if (typeof r[9] === 'string' && !PRIVILEGED_SETTINGS.has(String(r[0]))) s.push(`UPDATE ${C}_settings SET enumvals = ${pgArrayText(r[9])} WHERE name = ${lit(r[0])}`);
  });
  s.push(...valuesTable('_keywords', [['word', 'VARCHAR'], ['catcode', 'VARCHAR'], ['barelabel', 'BOOLEAN'], ['catdesc', 'VARCHAR'], ['baredesc', 'VARCHAR']], PG_KEYWORDS));
  s.push(...valuesTable('_catattrs', [['attrelid', 'BIGINT'], ['attname', 'VARCHAR'], ['atttypid', 'BIGINT'], ['attnum', 'SMALLINT'], ['atttypmod', 'INTEGER'], ['attnotnull', 'BOOLEAN'], ['attcollation', 'BIGINT']], PG_CATALOG_ATTRIBUTES));
  s.push(...valuesTable('_builtin_descriptions', [['objoid', 'BIGINT'], ['classoid', 'BIGINT'], ['description', 'VARCHAR']], PG_BUILTIN_DESCRIPTIONS));
  s.push(...valuesTable('_catrels', [['oid', 'BIGINT'], ['relname', 'VARCHAR'], ['relkind', 'VARCHAR']], PG_CATALOG_RELATIONS));
  s.push(...valuesTable('pg_range', [
    ['rngtypid', 'BIGINT'], ['rngsubtype', 'BIGINT'], ['rngmultitypid', 'BIGINT'], ['rngcollation', 'BIGINT'],
    ['rngsubopc', 'BIGINT'], ['rngcanonical', 'BIGINT'], ['rngsubdiff', 'BIGINT'],
  ], PG_RANGES));
  for (const rel of [...PG_STATIC_RELATIONS, ...ABSENT_FEATURE_RELATIONS]) {
    if (rel.name === 'pg_stat_activity') {
      s.push(statActivityView(rel.columns));
      continue;
    }
    const cols = rel.columns.map(([n, t]) => [n, duckdbTypeForCatalogColumn(t)] as const);
    s.push(...valuesTable(rel.name, cols, (FUNCTION_CATALOG_ROWS[rel.name] ?? rel.rows).map((r) => r.map((v, i) => (cols[i]?.[1].endsWith('[]') && typeof v === 'string' ? JSON.parse(pgArrayText(v).replace(/'/g, '"')) : v)))));
  }

  s.push(...functionCatalogStatements());

  // ---- session facts (per connection: DuckDB variables are connection-local)
  s.push(`CREATE MACRO ${C}_user() AS coalesce(getvariable('pg_user')::VARCHAR, 'fdl')`);
  s.push(`CREATE MACRO ${C}_dbname() AS coalesce(getvariable('pg_database')::VARCHAR, current_database())`);
  s.push(`CREATE MACRO ${C}_var${hygienicMacro(['n'], `(SELECT value::VARCHAR FROM duckdb_variables() WHERE name = 'pg_' || lower(n))`)}`);
  const privileged = [...PRIVILEGED_SETTINGS].map(lit).join(', ');
  s.push(`CREATE MACRO ${C}_setting${hygienicMacro(['n'], `CASE WHEN lower(n) IN (${privileged}) THEN error(${lit(privilegedSettingMessage('\u0001').split('\u0001')[0])} || lower(n) || '"') ELSE coalesce(${C}_var(n), CASE lower(n) WHEN 'session_authorization' THEN ${C}_user() WHEN 'server_version_num' THEN ${C}_version_num() END, (SELECT setting FROM ${C}_settings WHERE lower(name) = lower(n))) END`)}`);
  s.push(`CREATE MACRO ${C}_server_version() AS coalesce(${C}_var('server_version'), '${DEFAULT_SERVER_VERSION}')`);
  s.push(`CREATE MACRO ${C}_version_num() AS CAST(TRY_CAST(regexp_extract(${C}_server_version(), '^(\\d+)', 1) AS INTEGER) * 10000 + coalesce(TRY_CAST(regexp_extract(${C}_server_version(), '^\\d+\\.(\\d+)', 1) AS INTEGER), 0) AS VARCHAR)`);
  // The version's schemas on the session's search_path, resolved by the session when the path or the version
  // changes (session/settings.ts sets pg_search_schemas); computing them here cost ~5 ms per statement.
  s.push(`CREATE MACRO ${C}_search_path() AS coalesce(CAST(getvariable('pg_search_schemas') AS VARCHAR[]), ['main'])`);

  // ---- relations of the current database
  s.push(...snapshotStatements());
  // _rel (the version's relations) and _nsp (its schemas) are snapshot views (./version-snapshot.ts).
  s.push(`CREATE VIEW ${C}_relall AS
    SELECT oid, relname, relnamespace, nspname, relkind, comment, definition, row_count, size_bytes FROM ${C}_rel
    UNION ALL SELECT oid, relname, ${PG_CATALOG_OID}, 'pg_catalog', relkind, NULL, NULL, NULL, NULL FROM ${C}_catrels`);

  // ---- pg_catalog views
  s.push(pgView('pg_namespace', { oid: 'oid', nspname: 'nspname', nspowner: `${BOOTSTRAP_ROLE_OID}` }, `FROM (
    SELECT ${PG_CATALOG_OID} AS oid, 'pg_catalog' AS nspname UNION ALL SELECT ${INFO_SCHEMA_OID}, 'information_schema'
    UNION ALL SELECT oid, nspname FROM ${C}_nsp WHERE nspname NOT IN ('pg_catalog', 'information_schema'))`));
  s.push(pgView('pg_class', {
    oid: 'r.oid', relname: 'r.relname', relnamespace: 'r.relnamespace', reltype: '0', reloftype: '0', relowner: `${BOOTSTRAP_ROLE_OID}`,
    relam: "CASE WHEN r.relkind = 'r' THEN 2 ELSE 0 END", relfilenode: 'r.oid', reltablespace: '0', relpages: '0',
    reltuples: 'coalesce(r.row_count, -1)', relallvisible: '0', reltoastrelid: '0', relhasindex: 'false', relisshared: 'false',
    relpersistence: "'p'", relkind: 'r.relkind', relnatts: 'coalesce(n.natts, 0)', relchecks: '0', relhasrules: "r.relkind = 'v'",
    relhastriggers: 'false', relhassubclass: 'false', relrowsecurity: 'false', relforcerowsecurity: 'false', relispopulated: 'true',
    relreplident: "CASE WHEN r.relkind = 'v' THEN 'n' ELSE 'd' END", relispartition: 'false', relrewrite: '0', relfrozenxid: '0', relminmxid: '0',
  }, `FROM ${C}_relall r LEFT JOIN (SELECT attrelid, count(*) AS natts FROM ${C}_cols GROUP BY attrelid) n ON n.attrelid = r.oid`));
  s.push(pgView('pg_attribute', {
    attrelid: 'a.attrelid', attname: 'a.attname', atttypid: 'a.atttypid', attstattarget: '-1', attlen: 't.typlen', attnum: 'a.attnum',
    attndims: "CASE WHEN t.typcategory = 'A' THEN 1 ELSE 0 END", attcacheoff: '-1', atttypmod: 'a.atttypmod', attbyval: 't.typbyval',
    attalign: 't.typalign', attstorage: 't.typstorage', attcompression: "''", attnotnull: 'NOT a.is_nullable', atthasdef: 'a.column_default IS NOT NULL',
    atthasmissing: 'false', attidentity: "''", attgenerated: "''", attisdropped: 'false', attislocal: 'true', attinhcount: '0',
    attcollation: 'coalesce(a.attcollation, t.typcollation)',
  }, `FROM (SELECT attrelid, attname, atttypid, attnum, atttypmod, is_nullable, column_default, CAST(NULL AS BIGINT) AS attcollation FROM ${C}_cols
      UNION ALL SELECT attrelid, attname, atttypid, attnum, atttypmod, NOT attnotnull, NULL, attcollation FROM ${C}_catattrs) a LEFT JOIN ${C}_types t ON t.oid = a.atttypid`));
  s.push(pgView('pg_type', {
    oid: 'oid', typname: 'typname', typnamespace: `${PG_CATALOG_OID}`, typowner: `${BOOTSTRAP_ROLE_OID}`, typlen: 'typlen', typbyval: 'typbyval',
    typtype: 'typtype', typcategory: 'typcategory', typispreferred: 'typispreferred', typisdefined: 'true', typdelim: 'typdelim', typrelid: '0',
    typsubscript: 'typsubscript', typelem: 'typelem', typarray: 'typarray', typinput: 'typinput', typoutput: 'typoutput', typreceive: 'typreceive',
    typsend: 'typsend', typmodin: 'typmodin', typmodout: 'typmodout', typanalyze: 'typanalyze', typalign: 'typalign', typstorage: 'typstorage',
    typnotnull: 'false', typbasetype: '0', typtypmod: '-1', typndims: '0', typcollation: 'typcollation',
  }, `FROM ${C}_types`));
  s.push(pgView('pg_proc', {
    oid: 'oid', proname: 'proname', pronamespace: 'pronamespace', proowner: `${BOOTSTRAP_ROLE_OID}`, prolang: 'prolang',
    provariadic: 'provariadic', prosupport: '0', prokind: 'prokind', prosecdef: 'false', proleakproof: 'proleakproof', proisstrict: 'proisstrict',
    proretset: 'proretset', provolatile: 'provolatile', proparallel: 'proparallel', pronargs: 'pronargs', pronargdefaults: 'pronargdefaults',
    prorettype: 'prorettype', procost: 'procost', prorows: 'prorows', proargtypes: 'argtypes', proallargtypes: 'proallargtypes',
    proargmodes: 'proargmodes', proargnames: 'proargnames', prosrc: 'prosrc',
  }, `FROM (
    SELECT oid, proname, ${PG_CATALOG_OID} AS pronamespace, 12 AS prolang, 1 AS procost, 0 AS prorows, 0 AS provariadic, 'f' AS prokind, false AS proleakproof,
      proisstrict, false AS proretset, provolatile, 's' AS proparallel, pronargs, 0 AS pronargdefaults, prorettype,
      CAST(list_transform(list_filter(string_split(argtypes, ' '), x -> x <> ''), x -> x::BIGINT) AS BIGINT[]) AS argtypes,
      CAST(NULL AS BIGINT[]) AS proallargtypes, CAST(NULL AS VARCHAR[]) AS proargmodes, CAST(NULL AS VARCHAR[]) AS proargnames, prosrc FROM ${C}_procs
      -- Type I/O functions cannot be called here, but clients read them: ruby-pg, Rails and Sequel build their
      -- type map by joining pg_type.typinput to pg_proc (int8in → Integer), Npgsql tells arrays by 'array_recv'.
    UNION ALL ${functionProcSelect()}
    UNION ALL
    SELECT f.function_oid, f.function_name, f.schema_oid, 14, 100, 0, 0, 'f', false, false, false, 'v', 'u', f.nargs, 0, 25, [], NULL, NULL, NULL, f.macro_definition
    FROM ${C}_funcs f)`));
  s.push(`CREATE VIEW ${C}_descriptions AS
    SELECT oid AS objoid, 1259 AS classoid, 0 AS objsubid, comment AS description FROM ${C}_rel WHERE comment IS NOT NULL
    UNION ALL SELECT attrelid, 1259, attnum, comment FROM ${C}_cols WHERE comment IS NOT NULL
    UNION ALL SELECT oid, 2615, 0, comment FROM ${C}_nsp WHERE comment IS NOT NULL
    UNION ALL SELECT objoid, classoid, 0, description FROM ${C}_builtin_descriptions
    UNION ALL SELECT objoid, classoid, objsubid, description FROM ${C}_func_descriptions`);
  s.push(pgView('pg_description', { objoid: 'objoid', classoid: 'classoid', objsubid: 'objsubid', description: 'description' }, `FROM ${C}_descriptions`));
  s.push(`CREATE VIEW ${C}_dbs AS SELECT unnest(list_distinct(list_append(coalesce(CAST(getvariable('pg_repositories') AS VARCHAR[]), []), ${C}_dbname()))) AS name`);
  s.push(`CREATE MACRO ${C}_dboid(name) AS 16384 + CAST(hash(name) % 1000000 AS BIGINT)`);
  s.push(pgView('pg_database', {
    oid: `${C}_dboid(name)`, datname: 'name', datdba: `${BOOTSTRAP_ROLE_OID}`, encoding: '6', datlocprovider: "'c'", datistemplate: 'false',
    datallowconn: 'true', datconnlimit: '-1', datfrozenxid: '0', datminmxid: '1', dattablespace: '1663', datcollate: "'C.UTF-8'",
    datctype: "'C.UTF-8'",
  }, `FROM ${C}_dbs`));
  const role = { rolname: `${C}_user()`, rolsuper: 'false', rolinherit: 'true', rolcreaterole: 'false', rolcreatedb: 'false', rolcanlogin: 'true',
    rolreplication: 'false', rolconnlimit: '-1', rolbypassrls: 'false', oid: `${BOOTSTRAP_ROLE_OID}` };
  s.push(pgView('pg_roles', { ...role, rolpassword: "'********'" }, ''));
  s.push(pgView('pg_authid', role, ''));
  s.push(pgView('pg_user', { usename: `${C}_user()`, usesysid: `${BOOTSTRAP_ROLE_OID}`, usecreatedb: 'false', usesuper: 'false', userepl: 'false',
    usebypassrls: 'false', passwd: "'********'" }, ''));
  s.push(pgView('pg_settings', {
    name: 's.name', setting: `coalesce(${C}_var(s.name), s.setting)`, unit: 'unit', category: 'category', short_desc: 'short_desc',
    context: 'context', vartype: 'vartype', source: `CASE WHEN ${C}_var(s.name) IS NULL THEN 'default' ELSE 'session' END`,
    min_val: 'min_val', max_val: 'max_val', enumvals: 'enumvals', boot_val: 'boot_val', reset_val: 'boot_val', pending_restart: 'false',
  }, `FROM ${C}_settings s`));
  s.push(pgView('pg_tables', { schemaname: 'nspname', tablename: 'relname', tableowner: `${C}_user()`, hasindexes: 'false', hasrules: 'false',
    hastriggers: 'false', rowsecurity: 'false' }, `FROM ${C}_rel WHERE relkind = 'r'`));
  s.push(pgView('pg_views', { schemaname: 'nspname', viewname: 'relname', viewowner: `${C}_user()`, definition: `${C}_viewdef(definition)` },
    `FROM ${C}_rel WHERE relkind = 'v'`));
  const stat = { relid: 'oid', schemaname: 'nspname', relname: 'relname', seq_scan: '0', seq_tup_read: '0', idx_scan: '0', idx_tup_fetch: '0',
    n_tup_ins: '0', n_tup_upd: '0', n_tup_del: '0', n_tup_hot_upd: '0', n_live_tup: 'coalesce(row_count, 0)', n_dead_tup: '0',
    n_mod_since_analyze: '0', n_ins_since_vacuum: '0', vacuum_count: '0', autovacuum_count: '0', analyze_count: '0', autoanalyze_count: '0' };
  s.push(pgView('pg_stat_user_tables', stat, `FROM ${C}_rel WHERE relkind = 'r'`));
  s.push(pgView('pg_stat_all_tables', stat, `FROM ${C}_rel WHERE relkind = 'r'`));

  // ---- functions (macros); overloads by arity where PostgreSQL has them
  const macros = scalarMacros(b);
  // Overloads must be declared together in one CREATE MACRO.
  const byName = new Map<string, string[]>();
  for (const [sig, body] of macros) {
    const name = sig.slice(0, sig.indexOf('('));
    const list = byName.get(name) ?? [];
    list.push(hygienicMacro(macroParams(sig), body));
    byName.set(name, list);
  }
  // Macros are bound lazily, so definition order only matters for readability.
  for (const [name, overloads] of byName) s.push(`CREATE MACRO ${C}${name}${overloads.join(', ')}`);

  // Table functions (called in FROM).
  s.push(`CREATE MACRO ${C}pg_get_keywords() AS TABLE SELECT word, catcode, barelabel, catdesc, baredesc FROM ${C}_keywords`);
  s.push(`CREATE MACRO ${C}pg_partition_ancestors_ord(id) AS TABLE SELECT CAST(id AS BIGINT) AS relid, CAST(1 AS BIGINT) AS depth`);
  s.push(`CREATE MACRO ${C}pg_partition_ancestors(id) AS TABLE SELECT CAST(id AS BIGINT) AS relid`);
  s.push(...absentFeatureStatements());

  // ---- information_schema
  const dataType = `CASE WHEN t.typcategory = 'A' THEN 'ARRAY' ELSE t.fmt END`;
  s.push(`CREATE VIEW ${I}schemata AS SELECT ${C}_dbname() AS catalog_name, nspname AS schema_name, ${C}_user() AS schema_owner,
    CAST(NULL AS VARCHAR) AS default_character_set_catalog, CAST(NULL AS VARCHAR) AS default_character_set_schema,
    CAST(NULL AS VARCHAR) AS default_character_set_name, CAST(NULL AS VARCHAR) AS sql_path FROM ${C}pg_namespace`);
  s.push(`CREATE VIEW ${I}tables AS SELECT ${C}_dbname() AS table_catalog, nspname AS table_schema, relname AS table_name,
    CASE relkind WHEN 'v' THEN 'VIEW' ELSE 'BASE TABLE' END AS table_type, CAST(NULL AS VARCHAR) AS self_referencing_column_name,
    CAST(NULL AS VARCHAR) AS reference_generation, CAST(NULL AS VARCHAR) AS user_defined_type_catalog, CAST(NULL AS VARCHAR) AS user_defined_type_schema,
    CAST(NULL AS VARCHAR) AS user_defined_type_name, 'NO' AS is_insertable_into, 'NO' AS is_typed, CAST(NULL AS VARCHAR) AS commit_action FROM ${C}_rel`);
  s.push(`CREATE VIEW ${I}views AS SELECT ${C}_dbname() AS table_catalog, nspname AS table_schema, relname AS table_name,
    ${C}_viewdef(definition) AS view_definition, 'NONE' AS check_option, 'NO' AS is_updatable, 'NO' AS is_insertable_into,
    'NO' AS is_trigger_updatable, 'NO' AS is_trigger_deletable, 'NO' AS is_trigger_insertable_into FROM ${C}_rel WHERE relkind = 'v'`);
  s.push(`CREATE VIEW ${I}columns AS SELECT ${C}_dbname() AS table_catalog, a.schema_name AS table_schema, a.table_name,
    a.attname AS column_name, CAST(a.attnum AS INTEGER) AS ordinal_position, a.column_default, CASE WHEN a.is_nullable THEN 'YES' ELSE 'NO' END AS is_nullable,
    ${dataType} AS data_type, CAST(NULL AS INTEGER) AS character_maximum_length,
    CASE WHEN a.atttypid IN (25) THEN 1073741824 END AS character_octet_length,
    CAST(CASE a.atttypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64 WHEN 700 THEN 24 WHEN 701 THEN 53 WHEN 1700 THEN CASE WHEN a.atttypmod >= 4 THEN (a.atttypmod - 4) // 65536 END END AS INTEGER) AS numeric_precision,
    CAST(CASE WHEN a.atttypid IN (21, 23, 20, 700, 701) THEN 2 WHEN a.atttypid = 1700 THEN 10 END AS INTEGER) AS numeric_precision_radix,
    CAST(CASE WHEN a.atttypid IN (21, 23, 20) THEN 0 WHEN a.atttypid = 1700 AND a.atttypmod >= 4 THEN (a.atttypmod - 4) % 65536 END AS INTEGER) AS numeric_scale,
    CAST(CASE WHEN a.atttypid = 1082 THEN 0 WHEN a.atttypid IN (1083, 1266, 1114, 1184, 1186) THEN 6 END AS INTEGER) AS datetime_precision,
    CAST(NULL AS VARCHAR) AS interval_type, CAST(NULL AS INTEGER) AS interval_precision,
    CAST(NULL AS VARCHAR) AS character_set_catalog, CAST(NULL AS VARCHAR) AS character_set_schema, CAST(NULL AS VARCHAR) AS character_set_name,
    CAST(NULL AS VARCHAR) AS collation_catalog, CAST(NULL AS VARCHAR) AS collation_schema, CAST(NULL AS VARCHAR) AS collation_name,
    CAST(NULL AS VARCHAR) AS domain_catalog, CAST(NULL AS VARCHAR) AS domain_schema, CAST(NULL AS VARCHAR) AS domain_name,
    ${C}_dbname() AS udt_catalog, 'pg_catalog' AS udt_schema, t.typname AS udt_name,
    CAST(NULL AS VARCHAR) AS scope_catalog, CAST(NULL AS VARCHAR) AS scope_schema, CAST(NULL AS VARCHAR) AS scope_name,
    CAST(NULL AS INTEGER) AS maximum_cardinality, CAST(a.attnum AS VARCHAR) AS dtd_identifier, 'NO' AS is_self_referencing,
    'NO' AS is_identity, CAST(NULL AS VARCHAR) AS identity_generation, CAST(NULL AS VARCHAR) AS identity_start, CAST(NULL AS VARCHAR) AS identity_increment,
    CAST(NULL AS VARCHAR) AS identity_maximum, CAST(NULL AS VARCHAR) AS identity_minimum, 'NO' AS identity_cycle, 'NEVER' AS is_generated,
    CAST(NULL AS VARCHAR) AS generation_expression, 'NO' AS is_updatable
    FROM ${C}_cols a JOIN ${C}_types t ON t.oid = a.atttypid`);
  const empty = (name: string, cols: string[]) =>
    `CREATE VIEW ${I}${name} AS SELECT ${cols.map((c) => `CAST(NULL AS ${c.endsWith('position') || c === 'position_in_unique_constraint' ? 'INTEGER' : 'VARCHAR'}) AS ${c}`).join(', ')} WHERE false`;
  s.push(empty('table_constraints', ['constraint_catalog', 'constraint_schema', 'constraint_name', 'table_catalog', 'table_schema', 'table_name', 'constraint_type', 'is_deferrable', 'initially_deferred', 'enforced', 'nulls_distinct']));
  s.push(empty('key_column_usage', ['constraint_catalog', 'constraint_schema', 'constraint_name', 'table_catalog', 'table_schema', 'table_name', 'column_name', 'ordinal_position', 'position_in_unique_constraint']));
  s.push(empty('referential_constraints', ['constraint_catalog', 'constraint_schema', 'constraint_name', 'unique_constraint_catalog', 'unique_constraint_schema', 'unique_constraint_name', 'match_option', 'update_rule', 'delete_rule']));
  s.push(empty('constraint_column_usage', ['table_catalog', 'table_schema', 'table_name', 'column_name', 'constraint_catalog', 'constraint_schema', 'constraint_name']));
  s.push(empty('check_constraints', ['constraint_catalog', 'constraint_schema', 'constraint_name', 'check_clause']));
  s.push(empty('routines', ['specific_catalog', 'specific_schema', 'specific_name', 'routine_catalog', 'routine_schema', 'routine_name', 'routine_type', 'data_type', 'routine_definition']));
  s.push(empty('parameters', ['specific_catalog', 'specific_schema', 'specific_name', 'ordinal_position', 'parameter_mode', 'parameter_name', 'data_type']));
  s.push(empty('table_privileges', ['grantor', 'grantee', 'table_catalog', 'table_schema', 'table_name', 'privilege_type', 'is_grantable', 'with_hierarchy']));
  s.push(empty('column_privileges', ['grantor', 'grantee', 'table_catalog', 'table_schema', 'table_name', 'column_name', 'privilege_type', 'is_grantable']));
  s.push(`CREATE MACRO ${I}_pg_expandarray(arr) AS ${C}_pg_expandarray(arr)`);
  s.push(...systemColumnViews(s));
  return dependencyOrder(materialiseViews(s));
}

/**
 * `_sys_<relation>`: each pg_catalog relation with PostgreSQL's system columns after its own. The
 * rewriter reads these only for statements naming a system column, so `SELECT *` keeps PostgreSQL's
 * column list. tableoid is the catalog's own pg_class OID; rows never change, so xmin/xmax/cmin/cmax
 * are constant and ctid numbers the rows.
 */
function systemColumnViews(statements: readonly string[]): string[] {
  const oids = new Map(PG_CATALOG_RELATIONS.filter((r) => r[2] === 'r').map((r) => [String(r[1]), Number(r[0])]));
  const out: string[] = [];
  for (const sql of statements) {
    const rel = /^CREATE (?:VIEW|TABLE) fdl_pg\.pgcat\.(pg_\w+)/.exec(sql)?.[1];
    const oid = rel ? oids.get(rel) : undefined;
    if (!rel || oid === undefined) continue;
    out.push(`CREATE VIEW ${C}_sys_${rel} AS SELECT *, CAST(${oid} AS BIGINT) AS tableoid, CAST(1 AS BIGINT) AS xmin, CAST(0 AS BIGINT) AS xmax,
      CAST(0 AS BIGINT) AS cmin, CAST(0 AS BIGINT) AS cmax, '(0,' || row_number() OVER () || ')' AS ctid FROM ${C}${rel}`);
  }
  return out;
}

/** DuckDB binds macro and view bodies at creation, so every object must follow what it references. */
function dependencyOrder(statements: string[]): string[] {
  const nameOf = (sql: string) => /^CREATE (?:MACRO|VIEW|TABLE) (fdl_pg\.\w+\.\w+)/.exec(sql)?.[1];
  const byName = new Map<string, number>();
  statements.forEach((sql, i) => {
    const n = nameOf(sql);
    if (n) byName.set(n, i);
  });
  const out: string[] = [];
  const state = new Map<number, 'busy' | 'done'>();
  const visit = (i: number) => {
    if (state.get(i) === 'done') return;
    if (state.get(i) === 'busy') throw new Error(`dependency cycle at ${nameOf(statements[i]!)}`);
    state.set(i, 'busy');
    const sql = statements[i]!;
    const self = nameOf(sql);
    for (const m of sql.matchAll(/fdl_pg\.\w+\.\w+/g)) {
      const j = byName.get(m[0]);
      if (j !== undefined && m[0] !== self) visit(j);
    }
    state.set(i, 'done');
    out.push(sql);
  };
  statements.forEach((_, i) => visit(i));
  return out;
}

/** Scalar macros as [signature, body]; several signatures of one name become one overloaded macro. */
function scalarMacros(b: Build): Array<[string, string]> {
  const macros: Array<[string, string]> = [
    // No server path in a definition: a quoted absolute path keeps only its file name (issue 12);
    // names qualified with the version's internal database name ("NAME@id".s.t) read as s.t.
    // Ending with ';' as PostgreSQL's does (pg_dump strips the last character, psql's \\sv the semicolon).
    [`_viewdef(sql)`, `replace(regexp_replace(regexp_replace(regexp_replace(sql, '^\\s*CREATE\\s+(OR\\s+REPLACE\\s+)?VIEW\\s+.*?\\s+AS\\s+', '', 's'), ';\\s*$', ''), '''/[^'']*/([^''/]*)''', '''\\1''', 'g'), '"' || replace(current_database(), '"', '""') || '".', '') || ';'`],
    [`format_type(oid, typmod)`, `CASE WHEN oid IS NULL THEN NULL WHEN oid = 0 THEN '-' ELSE coalesce((SELECT CASE WHEN t.typcategory = 'A' THEN replace(t.fmt, '[]', '') || (CASE WHEN typmod IS NULL OR typmod < 4 THEN '' WHEN t.typelem = 1700 THEN '(' || ((typmod - 4) // 65536) || ',' || ((typmod - 4) % 65536) || ')' WHEN t.typelem IN (1043, 1042) THEN '(' || (typmod - 4) || ')' ELSE '' END) || '[]' ELSE (CASE WHEN typmod IS NULL OR typmod < 0 THEN t.fmt WHEN t.oid = 1700 AND typmod >= 4 THEN 'numeric(' || ((typmod - 4) // 65536) || ',' || ((typmod - 4) % 65536) || ')' WHEN t.oid = 1043 AND typmod >= 4 THEN 'character varying(' || (typmod - 4) || ')' WHEN t.oid = 1042 AND typmod >= 4 THEN 'character(' || (typmod - 4) || ')' WHEN t.oid = 1114 THEN 'timestamp(' || typmod || ') without time zone' WHEN t.oid = 1184 THEN 'timestamp(' || typmod || ') with time zone' WHEN t.oid = 1083 THEN 'time(' || typmod || ') without time zone' WHEN t.oid = 1266 THEN 'time(' || typmod || ') with time zone' WHEN t.oid = 1560 THEN 'bit(' || typmod || ')' WHEN t.oid = 1562 THEN 'bit varying(' || typmod || ')' WHEN t.oid IN (16, 20, 21, 23, 700, 701, 1043, 1042, 1700, 1186) THEN t.fmt ELSE t.fmt || '(' || typmod || ')' END) END FROM ${C}_types t WHERE t.oid = CAST(oid AS BIGINT)), '???') END`],
    [`pg_get_userbyid(id)`, `CASE WHEN id IS NULL THEN NULL WHEN id = ${BOOTSTRAP_ROLE_OID} THEN ${C}_user() ELSE 'unknown (OID=' || id || ')' END`],
    // An uncorrelated IN (one semi-join per statement) instead of a subquery per row.
    [`pg_table_is_visible(id)`, `coalesce(CAST(id AS BIGINT) IN (SELECT r.oid FROM ${C}_relall r WHERE r.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), r.nspname)), false)`],
    [`pg_type_is_visible(id)`, `EXISTS (SELECT 1 FROM ${C}_types WHERE oid = id)`],
    [`pg_function_is_visible(id)`, 'true'],
    [`pg_get_expr(expr, relid)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_expr(expr, relid, pretty)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_indexdef(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_indexdef(id, col, pretty)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_constraintdef(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_constraintdef(id, pretty)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_triggerdef(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_triggerdef(id, pretty)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_partkeydef(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_statisticsobjdef_columns(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_serial_sequence(tbl, col)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_function_result(id)`, `coalesce((SELECT g.result FROM ${C}_functions g WHERE g.oid = id), (SELECT p.typname FROM ${C}_procs f JOIN ${C}_types p ON p.oid = f.prorettype WHERE f.oid = id))`],
    [`pg_get_function_arguments(id)`, `coalesce((SELECT g.args FROM ${C}_functions g WHERE g.oid = id), '')`],
    [`pg_get_function_identity_arguments(id)`, `coalesce((SELECT g.identity_args FROM ${C}_functions g WHERE g.oid = id), '')`],
    [`pg_operator_is_visible(id)`, 'true'],
    // No function here has a SQL-standard body (prosqlbody is NULL), so psql \df+ shows none.
    [`pg_get_function_sqlbody(id)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_get_viewdef(id)`, `(SELECT ${C}_viewdef(definition) FROM ${C}_rel WHERE oid = TRY_CAST(id AS BIGINT) OR (TRY_CAST(id AS BIGINT) IS NULL AND oid = ${C}_regclass_oid(id)))`],
    [`pg_get_viewdef(id, pretty)`, `(SELECT ${C}_viewdef(definition) FROM ${C}_rel WHERE oid = TRY_CAST(id AS BIGINT) OR (TRY_CAST(id AS BIGINT) IS NULL AND oid = ${C}_regclass_oid(id)))`],
    [`pg_encoding_to_char(e)`, `CASE e WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END`],
    [`pg_char_to_encoding(e)`, `CASE upper(e) WHEN 'UTF8' THEN 6 WHEN 'SQL_ASCII' THEN 0 ELSE -1 END`],
    [`current_setting(n)`, `${C}_setting(n)`],
    [`current_setting(n, missing_ok)`, `${C}_setting(n)`],
    // SET is the session's job; a SELECT cannot change a variable, so set_config only echoes like PostgreSQL.
    [`set_config(n, v, is_local)`, 'v'],
    [`current_schemas(include_implicit)`, `CASE WHEN include_implicit THEN list_prepend('pg_catalog', ${C}_search_path()) ELSE ${C}_search_path() END`],
    [`current_schema()`, `${C}_search_path()[1]`],
    // Named apart from DuckDB's current_database(), which the bodies here need and a same-named macro would shadow.
    [`pg_current_database()`, `${C}_dbname()`],
    [`pg_current_user()`, `${C}_user()`],
    [`version()`, `'PostgreSQL ' || ${C}_server_version() || ' (fdl-gateway ${b.gatewayVersion}, DuckDB ${b.duckdbVersion}) on ${b.arch}-pc-linux-gnu, compiled by fdl-gateway, 64-bit'`],
    [`array_lower(arr, d)`, `CASE WHEN d = 1 AND len(arr) > 0 THEN 1 END`],
    [`array_upper(arr, d)`, `CASE WHEN d = 1 AND len(arr) > 0 THEN len(arr) END`],
    [`array_length(arr, d)`, `CASE WHEN d = 1 AND len(arr) > 0 THEN len(arr) END`],
    [`cardinality(arr)`, `len(arr)`],
    [`quote_ident(x)`, `CASE WHEN regexp_full_match(x, '[a-z_][a-z0-9_$]*') AND NOT EXISTS (SELECT 1 FROM ${C}_keywords WHERE word = x AND catcode <> 'U') THEN x ELSE '"' || replace(x, '"', '""') || '"' END`],
    [`quote_literal(x)`, `'''' || replace(CAST(x AS VARCHAR), '''', '''''') || ''''`],
    [`parse_ident(x)`, `${C}_parse_ident(x)`],
    [`parse_ident(x, strict)`, `${C}_parse_ident(x)`],
    [`_parse_ident(x)`, `list_transform(regexp_extract_all(x, '("([^"]|"")*"|[^."]+)'), p -> CASE WHEN starts_with(p, '"') THEN replace(p[2:-2], '""', '"') ELSE lower(trim(p)) END)`],
    [`pg_backend_pid()`, `coalesce(TRY_CAST(${C}_var('backend_pid') AS INTEGER), 0)`],
    [`obj_description(id)`, `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = 0)`],
    // Built-in types, access methods, languages and extensions have PostgreSQL's descriptions too (builtin-descriptions.ts).
    [`obj_description(id, cat)`, `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = 0 AND classoid = CASE cat ${Object.entries({ ...DESCRIPTION_CLASSES, pg_type: 1247, pg_am: 2601, pg_language: 2612, pg_extension: 3079 }).map(([k, v]) => `WHEN '${k}' THEN ${v}`).join(' ')} ELSE 1259 END)`],
    [`col_description(id, n)`, `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = n AND classoid = 1259)`],
    [`shobj_description(id, cat)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_relation_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_relation_size(id, fork)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_total_relation_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_table_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_indexes_size(id)`, '0'],
    [`pg_database_size(x)`, '0'],
    [`pg_postmaster_start_time()`, `TIMESTAMPTZ '${b.startTime}'`],
    [`pg_conf_load_time()`, `TIMESTAMPTZ '${b.startTime}'`],
    [`inet_server_addr()`, `${C}_var('server_addr')`],
    [`inet_server_port()`, `TRY_CAST(${C}_var('server_port') AS INTEGER)`],
    [`inet_client_addr()`, `${C}_var('client_addr')`],
    [`inet_client_port()`, `TRY_CAST(${C}_var('client_port') AS INTEGER)`],
    [`pg_is_in_recovery()`, 'false'],
    [`pg_advisory_unlock_all()`, 'CAST(NULL AS VARCHAR)'],
    [`pg_stat_get_numscans(id)`, '0'],
    [`pg_relation_is_publishable(id)`, 'false'],
    [`pg_my_temp_schema()`, '0'],
    [`pg_is_other_temp_schema(id)`, 'false'],
    [`pg_tablespace_location(id)`, "''"],
    [`pg_partition_ancestors(id)`, 'CAST(id AS BIGINT)'],
    [`pg_partition_root(id)`, 'CAST(id AS BIGINT)'],
    [`txid_current()`, '1'],
    [`pg_current_xact_id()`, '1'],
    [`pg_jit_available()`, 'false'],
    // pg_dump compares ACLs with the owner's defaults; no object here has an ACL, so neither has a default.
    [`acldefault(kind, owner)`, `list_transform(CASE kind WHEN 'r' THEN ['@=arwdDxt/@'] WHEN 's' THEN ['@=rwU/@'] WHEN 'n' THEN ['@=UC/@'] WHEN 'f' THEN ['=X/@', '@=X/@']
      WHEN 'l' THEN ['=U/@', '@=U/@'] WHEN 'T' THEN ['=U/@', '@=U/@'] WHEN 'd' THEN ['=Tc/@', '@=CTc/@'] WHEN 'L' THEN ['@=rw/@'] WHEN 'S' THEN ['@=U/@']
      WHEN 'F' THEN ['@=U/@'] WHEN 't' THEN ['@=C/@'] WHEN 'c' THEN CAST([] AS VARCHAR[]) END, a -> replace(a, '@', ${C}pg_get_userbyid(owner)))`],
    [`pg_listening_channels()`, 'CAST(NULL AS VARCHAR)'],
    [`array_remove(arr, x)`, `list_filter(arr, fdl_pg_e -> fdl_pg_e IS DISTINCT FROM x)`],
    [`_pg_expandarray(arr)`, `unnest(list_transform(arr, (x, i) -> {'x': x, 'n': CAST(i AS INTEGER)}))`],
    [`regclass_oid(x)`, `${C}_regclass_oid(x)`],
    [`_regclass_oid(x)`, `CASE WHEN x IS NULL THEN NULL WHEN regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT rc.oid FROM ${C}_relall rc
      WHERE (len(${C}_parse_ident(CAST(x AS VARCHAR))) = 2 AND rc.nspname = ${C}_parse_ident(CAST(x AS VARCHAR))[1] AND rc.relname = ${C}_parse_ident(CAST(x AS VARCHAR))[2])
        OR (len(${C}_parse_ident(CAST(x AS VARCHAR))) = 1 AND rc.relname = ${C}_parse_ident(CAST(x AS VARCHAR))[1] AND (rc.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), rc.nspname)))
      ORDER BY list_position(${C}_search_path(), rc.nspname) NULLS FIRST LIMIT 1) END`],
    [`_regclass_name(x)`, `coalesce((SELECT CASE WHEN r.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), r.nspname) THEN ${C}quote_ident(r.relname) ELSE ${C}quote_ident(r.nspname) || '.' || ${C}quote_ident(r.relname) END FROM ${C}_relall r WHERE r.oid = x), CAST(x AS VARCHAR))`],
    [`_regtype_oid(x)`, `CASE WHEN x IS NULL THEN NULL WHEN regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT oid FROM ${C}_types WHERE typname = regexp_replace(CAST(x AS VARCHAR), '^pg_catalog\\.', '') OR fmt = regexp_replace(CAST(x AS VARCHAR), '^pg_catalog\\.', '') ORDER BY oid LIMIT 1) END`],
    [`_regtype_name(x)`, `CASE WHEN x = 0 THEN '-' ELSE coalesce((SELECT fmt FROM ${C}_types WHERE oid = x), CAST(x AS VARCHAR)) END`],
    [`_regproc_oid(x)`, `CASE WHEN x IS NULL THEN NULL WHEN regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT min(oid) FROM ${C}_procs WHERE proname = regexp_replace(CAST(x AS VARCHAR), '^pg_catalog\\.', '')) END`],
    [`_regproc_name(x)`, `CASE WHEN x = 0 THEN '-' ELSE coalesce((SELECT proname FROM ${C}_procs WHERE oid = x), CAST(x AS VARCHAR)) END`],
    [`_regnamespace_oid(x)`, `CASE WHEN x IS NULL THEN NULL WHEN regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT oid FROM ${C}pg_namespace WHERE nspname = ${C}_parse_ident(CAST(x AS VARCHAR))[1]) END`],
    [`_regnamespace_name(x)`, `coalesce((SELECT nspname FROM ${C}pg_namespace WHERE oid = x), CAST(x AS VARCHAR))`],
    [`_regrole_oid(x)`, `CASE WHEN x IS NULL THEN NULL WHEN regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) WHEN CAST(x AS VARCHAR) = ${C}_user() THEN ${BOOTSTRAP_ROLE_OID} END`],
    [`_regrole_name(x)`, `${C}pg_get_userbyid(x)`],
    // Casts of text to reg* fail for unknown names with PostgreSQL's message (duckdb-errors.ts maps the SQLSTATE).
    [`_regclass_in(x)`, `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regclass_oid(x),
      CASE WHEN len(${C}_parse_ident(CAST(x AS VARCHAR))) = 2 AND NOT EXISTS (SELECT 1 FROM ${C}pg_namespace WHERE nspname = ${C}_parse_ident(CAST(x AS VARCHAR))[1])
        THEN error('schema "' || ${C}_parse_ident(CAST(x AS VARCHAR))[1] || '" does not exist') END,
      error('relation "' || CAST(x AS VARCHAR) || '" does not exist')) END`],
    [`_regtype_in(x)`, `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regtype_oid(x), error('type "' || CAST(x AS VARCHAR) || '" does not exist')) END`],
    [`_regproc_in(x)`, `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regproc_oid(x), error('function "' || CAST(x AS VARCHAR) || '" does not exist')) END`],
    [`_regnamespace_in(x)`, `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regnamespace_oid(x), error('schema "' || CAST(x AS VARCHAR) || '" does not exist')) END`],
    [`_regrole_in(x)`, `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regrole_oid(x), error('role "' || CAST(x AS VARCHAR) || '" does not exist')) END`],
    // No relation has an index, so every index property is unknown (NULL), as PostgreSQL answers for a non-index.
    [`pg_index_column_has_property(id, col, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`pg_index_has_property(id, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`pg_indexam_has_property(am, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`to_regclass(x)`, `${C}_regclass_oid(x)`],
    [`to_regtype(x)`, `${C}_regtype_oid(x)`],
    [`to_regproc(x)`, `${C}_regproc_oid(x)`],
    [`to_regnamespace(x)`, `${C}_regnamespace_oid(x)`],
  ];
  const privileges = ['table', 'schema', 'database', 'column', 'any_column', 'function', 'sequence', 'type', 'language', 'tablespace', 'foreign_data_wrapper', 'server'];
  for (const p of privileges) {
    macros.push([`has_${p}_privilege(a, b)`, 'true'], [`has_${p}_privilege(a, b, c)`, 'true']);
    if (p === 'column') macros.push([`has_${p}_privilege(a, b, c, d)`, 'true']);
  }
  macros.push(['pg_has_role(a, b)', 'true'], ['pg_has_role(a, b, c)', 'true']);
  macros.push(...PG_FUNCTION_MACROS, ...PG_SEMANTIC_MACROS);
  macros.push(...ABSENT_FEATURE_MACROS, ...DESCRIBE_MACROS);
  return macros;
}

/** Function name → argument counts the compat catalog defines (the rewriter redirects only those calls). */
export const COMPAT_FUNCTION_ARITIES: ReadonlyMap<string, ReadonlySet<number>> = (() => {
  const m = new Map<string, Set<number>>();
  for (const [sig] of scalarMacros({ gatewayVersion: '', duckdbVersion: '', arch: '', startTime: '' })) {
    const name = sig.slice(0, sig.indexOf('('));
    const inner = sig.slice(sig.indexOf('(') + 1, -1).trim();
    const set = m.get(name) ?? new Set<number>();
    set.add(inner === '' ? 0 : inner.split(',').length);
    m.set(name, set);
  }
  return m;
})();

/** Relations (views/tables) the compat catalog defines, by schema. */
export const COMPAT_RELATIONS: { pgCatalog: ReadonlySet<string>; informationSchema: ReadonlySet<string> } = (() => {
  const sqls = compatStatements({ gatewayVersion: '', duckdbVersion: '', arch: '', startTime: '' });
  const pick = (schema: string) => new Set(sqls.flatMap((q) => { const m = new RegExp(`^CREATE (?:VIEW|TABLE) ${COMPAT_DB}\\.${schema}\\.(\\w+)`).exec(q); return m && !m[1]!.startsWith('_') ? [m[1]!] : []; }));
  return { pgCatalog: pick('pgcat'), informationSchema: pick('infoschema') };
})();

/** pg_catalog tables that have a `_sys_` twin with system columns (see systemColumnViews). */
export const SYSTEM_COLUMN_RELATIONS: ReadonlySet<string> = new Set(
  compatStatements({ gatewayVersion: '', duckdbVersion: '', arch: '', startTime: '' }).flatMap((q) => {
    const m = /^CREATE VIEW fdl_pg\.pgcat\._sys_(\w+)/.exec(q);
    return m ? [m[1]!] : [];
  }),
);
