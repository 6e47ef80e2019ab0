/**
 * The pg_catalog views over the current database (the version's snapshot, ./version-snapshot.ts) and the
 * static tables: pg_namespace, pg_class, pg_attribute, pg_type, pg_proc, pg_description, pg_database,
 * roles, settings and the table listings, each with exactly PostgreSQL's columns.
 */
import { PG_PROCS, PG_TYPES, PG_VIEW_COLUMNS } from './pg-data.js';
import { duckdbTypeForCatalogColumn } from '../types.js';
import { functionProcSelect } from './functions.js';
import { C, INFO_SCHEMA_OID, PG_CATALOG_OID, BOOTSTRAP_ROLE_OID } from './names.js';
import { FDL_NAMESPACE_OID } from './fdl-views.js';
import { joined } from './sql-literals.js';

/**
 * A catalog view with exactly PostgreSQL's columns, in order and with catalog types, from a SELECT
 * whose output names match; columns the emulation has no value for are NULL.
 */
function pgView(name: string, exprs: Record<string, string>, from: string): string {
  return `CREATE VIEW ${C}${name} AS ${pgSelect(name, exprs, from)}`;
}

/** As pgView, a table filled once at install: for relations whose rows never depend on the version or the session. */
function pgTable(name: string, exprs: Record<string, string>, from: string): string {
  return `CREATE TABLE ${C}${name} AS ${pgSelect(name, exprs, from)}`;
}

/** A SELECT of exactly PostgreSQL's columns of catalog relation `name` (see pgView). */
function pgSelect(name: string, exprs: Record<string, string>, from: string): string {
  const cols = PG_VIEW_COLUMNS[name];
  if (!cols) throw new Error(`no column list for ${name}`);
  const list = cols.map(
    ([col, pgType]) => `CAST(${exprs[col] ?? 'NULL'} AS ${duckdbTypeForCatalogColumn(pgType)}) AS "${col}"`,
  );
  return `SELECT ${list.join(', ')} ${from}`;
}

/**
 * The type I/O functions pg_proc lists: those clients read (the input functions of the types answered as PostgreSQL's
 * are callable as their casts, pg/type-input-calls.ts; the others refused by name). ruby-pg, Rails and Sequel
 * build their type map by joining pg_type.typinput to pg_proc (int8in → Integer), Npgsql tells arrays by array_recv.
 * The others (output, receive, send, typmod functions: 277 of 375) are left out, so a tool that builds calls from
 * pg_proc (sqlsmith) does not call them, and reads 277 rows fewer at its start-up; regproc still names them.
 */
const CLIENT_READ_TYPE_IO: readonly number[] = [
  ...new Set([
    ...PG_TYPES.map((t) => Number(t[10])),
    ...PG_PROCS.filter((p) => p[1] === 'array_recv').map((p) => Number(p[0])),
  ]),
];

/** CREATE VIEW statements of the pg_catalog relations that describe the current database. */
export function catalogViewStatements(): string[] {
  const s: string[] = [];
  // fdl_pg_quoted and fdl_pg_qualified: the name as `oid::regclass` shows it, computed once per version with the rest
  // of _relall's rows (version-snapshot.ts materialises it), so _regclass_name reads them instead of calling
  // quote_ident three times per row (named as no caller can name a column: the helpers' subqueries read them).
  s.push(`CREATE VIEW ${C}_relall AS SELECT *, ${C}quote_ident(relname) AS fdl_pg_quoted,
      ${joined(`${C}quote_ident(nspname)`, "'.'", `${C}quote_ident(relname)`)} AS fdl_pg_qualified FROM (
    SELECT oid, relname, relnamespace, nspname, relkind, comment, definition, row_count, size_bytes FROM ${C}_rel
    UNION ALL SELECT oid, relname, ${PG_CATALOG_OID}, 'pg_catalog', relkind, NULL, NULL, NULL, NULL FROM ${C}_catrels
    UNION ALL SELECT oid, relname, ${INFO_SCHEMA_OID}, 'information_schema', relkind, NULL, NULL, NULL, NULL FROM ${C}_inforels
    UNION ALL SELECT oid, relname, ${FDL_NAMESPACE_OID}, 'fdl', 'v', NULL, definition, NULL, NULL FROM ${C}_fdlrels)`);

  // ---- pg_catalog views
  s.push(
    pgView(
      'pg_namespace',
      { oid: 'oid', nspname: 'nspname', nspowner: `${BOOTSTRAP_ROLE_OID}` },
      `FROM (
    SELECT ${PG_CATALOG_OID} AS oid, 'pg_catalog' AS nspname UNION ALL SELECT ${INFO_SCHEMA_OID}, 'information_schema'
    UNION ALL SELECT ${FDL_NAMESPACE_OID}, 'fdl'
    UNION ALL SELECT oid, nspname FROM ${C}_nsp WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'fdl'))`,
    ),
  );
  s.push(
    pgView(
      'pg_class',
      {
        oid: 'r.oid',
        relname: 'r.relname',
        relnamespace: 'r.relnamespace',
        reltype: '0',
        reloftype: '0',
        relowner: `${BOOTSTRAP_ROLE_OID}`,
        relam: "CASE WHEN r.relkind = 'r' THEN 2 ELSE 0 END",
        relfilenode: 'r.oid',
        reltablespace: '0',
        relpages: '0',
        reltuples: 'coalesce(r.row_count, -1)',
        relallvisible: '0',
        reltoastrelid: '0',
        relhasindex: 'false',
        relisshared: 'false',
        relpersistence: "'p'",
        relkind: 'r.relkind',
        relnatts: 'coalesce(n.natts, 0)',
        relchecks: '0',
        relhasrules: "r.relkind = 'v'",
        relhastriggers: 'false',
        relhassubclass: 'false',
        relrowsecurity: 'false',
        relforcerowsecurity: 'false',
        relispopulated: 'true',
        // pg_catalog's relations have no replica identity ('n'; psql's \d+ printed "Replica Identity: ???")
        relreplident: `CASE WHEN r.relkind = 'v' OR r.relnamespace = ${PG_CATALOG_OID} THEN 'n' ELSE 'd' END`,
        relispartition: 'false',
        relrewrite: '0',
        relfrozenxid: '0',
        relminmxid: '0',
        // pg_catalog's views with PostgreSQL's options (pg_stats: security_barrier), which psql's \sv prints
        reloptions: 'd.reloptions',
      },
      `FROM ${C}_relall r LEFT JOIN ${C}_catviewdefs d ON d.oid = r.oid LEFT JOIN (SELECT attrelid, count(*) AS natts FROM ${C}_cols GROUP BY attrelid) n ON n.attrelid = r.oid`,
    ),
  );
  s.push(
    pgView(
      'pg_attribute',
      {
        attrelid: 'a.attrelid',
        attname: 'a.attname',
        atttypid: 'a.atttypid',
        attstattarget: '-1',
        attlen: 't.typlen',
        attnum: 'a.attnum',
        attndims: "CASE WHEN t.typcategory = 'A' THEN 1 ELSE 0 END",
        attcacheoff: '-1',
        atttypmod: 'a.atttypmod',
        attbyval: 't.typbyval',
        attalign: 't.typalign',
        attstorage: 't.typstorage',
        attcompression: "''",
        attnotnull: 'NOT a.is_nullable',
        atthasdef: 'a.column_default IS NOT NULL',
        atthasmissing: 'false',
        attidentity: "''",
        attgenerated: "''",
        attisdropped: 'false',
        attislocal: 'true',
        attinhcount: '0',
        attcollation: 'coalesce(a.attcollation, t.typcollation)',
      },
      `FROM (SELECT attrelid, attname, atttypid, attnum, atttypmod, is_nullable, column_default, CAST(NULL AS BIGINT) AS attcollation FROM ${C}_cols
      UNION ALL SELECT attrelid, attname, atttypid, attnum, atttypmod, NOT attnotnull, NULL, attcollation FROM ${C}_catattrs) a LEFT JOIN ${C}_types t ON t.oid = a.atttypid`,
    ),
  );
  // A table filled once per process (its rows are PostgreSQL's, never the version's): a view's casts were bound
  // again in every statement that read it.
  s.push(
    pgTable(
      'pg_type',
      {
        oid: 'oid',
        typname: 'typname',
        typnamespace: 'typnamespace',
        typowner: `${BOOTSTRAP_ROLE_OID}`,
        typlen: 'typlen',
        typbyval: 'typbyval',
        typtype: 'typtype',
        typcategory: 'typcategory',
        typispreferred: 'typispreferred',
        typisdefined: 'true',
        typdelim: 'typdelim',
        typrelid: '0',
        typsubscript: 'typsubscript',
        typelem: 'typelem',
        typarray: 'typarray',
        typinput: 'typinput',
        typoutput: 'typoutput',
        typreceive: 'typreceive',
        typsend: 'typsend',
        typmodin: 'typmodin',
        typmodout: 'typmodout',
        typanalyze: 'typanalyze',
        typalign: 'typalign',
        typstorage: 'typstorage',
        typnotnull: 'typnotnull',
        typbasetype: 'typbasetype',
        typtypmod: 'typtypmod',
        typndims: '0',
        typcollation: 'typcollation',
      },
      `FROM ${C}_types`,
    ),
  );
  const procColumns: Record<string, string> = {
    oid: 'oid',
    proname: 'proname',
    pronamespace: 'pronamespace',
    proowner: `${BOOTSTRAP_ROLE_OID}`,
    prolang: 'prolang',
    provariadic: 'provariadic',
    prosupport: '0',
    prokind: 'prokind',
    prosecdef: 'false',
    proleakproof: 'proleakproof',
    proisstrict: 'proisstrict',
    proretset: 'proretset',
    provolatile: 'provolatile',
    proparallel: 'proparallel',
    pronargs: 'pronargs',
    pronargdefaults: 'pronargdefaults',
    prorettype: 'prorettype',
    procost: 'procost',
    prorows: 'prorows',
    proargtypes: 'argtypes',
    proallargtypes: 'proallargtypes',
    proargmodes: 'proargmodes',
    proargnames: 'proargnames',
    prosrc: 'prosrc',
  };
  // PostgreSQL's functions, filled once per process; sqlsmith's start-up reads one row of it per function in a
  // statement of its own, and binding the unions and casts of a view cost most of each of those statements.
  s.push(
    `CREATE TABLE ${C}_builtin_procs AS ${pgSelect(
      'pg_proc',
      procColumns,
      `FROM (
    SELECT oid, proname, ${PG_CATALOG_OID} AS pronamespace, 12 AS prolang, 1 AS procost, 0 AS prorows, 0 AS provariadic, 'f' AS prokind, false AS proleakproof,
      proisstrict, false AS proretset, provolatile, 's' AS proparallel, pronargs, 0 AS pronargdefaults, prorettype,
      CAST(list_transform(list_filter(string_split(argtypes, ' '), x -> x <> ''), x -> x::BIGINT) AS BIGINT[]) AS argtypes,
      CAST(NULL AS BIGINT[]) AS proallargtypes, CAST(NULL AS VARCHAR[]) AS proargmodes, CAST(NULL AS VARCHAR[]) AS proargnames, prosrc FROM ${C}_procs
      WHERE oid IN (${CLIENT_READ_TYPE_IO.join(', ')})
    UNION ALL ${functionProcSelect()})`,
    )}`,
  );
  // ... and the version's own macros.
  s.push(
    `CREATE VIEW ${C}pg_proc AS SELECT * FROM ${C}_builtin_procs UNION ALL ${pgSelect(
      'pg_proc',
      procColumns,
      `FROM (SELECT f.function_oid AS oid, f.function_name AS proname, f.schema_oid AS pronamespace, 14 AS prolang, 100 AS procost, 0 AS prorows,
      0 AS provariadic, 'f' AS prokind, false AS proleakproof, false AS proisstrict, false AS proretset, 'v' AS provolatile, 'u' AS proparallel,
      f.nargs AS pronargs, 0 AS pronargdefaults, 25 AS prorettype, [] AS argtypes, NULL AS proallargtypes, NULL AS proargmodes, NULL AS proargnames,
      f.macro_definition AS prosrc FROM ${C}_funcs f)`,
    )}`,
  );
  s.push(`CREATE VIEW ${C}_descriptions AS
    SELECT oid AS objoid, 1259 AS classoid, 0 AS objsubid, comment AS description FROM ${C}_rel WHERE comment IS NOT NULL
    UNION ALL SELECT attrelid, 1259, attnum, comment FROM ${C}_cols WHERE comment IS NOT NULL
    UNION ALL SELECT oid, 2615, 0, comment FROM ${C}_nsp WHERE comment IS NOT NULL
    UNION ALL SELECT objoid, classoid, 0, description FROM ${C}_builtin_descriptions
    UNION ALL SELECT objoid, classoid, objsubid, description FROM ${C}_func_descriptions`);
  s.push(
    pgView(
      'pg_description',
      { objoid: 'objoid', classoid: 'classoid', objsubid: 'objsubid', description: 'description' },
      `FROM ${C}_descriptions`,
    ),
  );
  s.push(
    `CREATE VIEW ${C}_dbs AS SELECT unnest(list_distinct(list_append(coalesce(CAST(getvariable('pg_repositories') AS VARCHAR[]), []), ${C}_dbname()))) AS name`,
  );
  s.push(`CREATE MACRO ${C}_dboid(name) AS 16384 + CAST(hash(name) % 1000000 AS BIGINT)`);
  s.push(
    pgView(
      'pg_database',
      {
        oid: `${C}_dboid(name)`,
        datname: 'name',
        datdba: `${BOOTSTRAP_ROLE_OID}`,
        encoding: '6',
        datlocprovider: "'c'",
        datistemplate: 'false',
        datallowconn: 'true',
        datconnlimit: '-1',
        datfrozenxid: '0',
        datminmxid: '1',
        dattablespace: '1663',
        // the C locale, as SHOW lc_collate/lc_ctype: byte order and ASCII-only case mapping
        datcollate: "'C'",
        datctype: "'C'",
      },
      `FROM ${C}_dbs`,
    ),
  );
  const role = {
    rolname: `${C}_user()`,
    rolsuper: 'false',
    rolinherit: 'true',
    rolcreaterole: 'false',
    rolcreatedb: 'false',
    rolcanlogin: 'true',
    rolreplication: 'false',
    rolconnlimit: '-1',
    rolbypassrls: 'false',
    oid: `${BOOTSTRAP_ROLE_OID}`,
  };
  s.push(pgView('pg_roles', { ...role, rolpassword: "'********'" }, ''));
  s.push(pgView('pg_authid', role, ''));
  s.push(
    pgView(
      'pg_user',
      {
        usename: `${C}_user()`,
        usesysid: `${BOOTSTRAP_ROLE_OID}`,
        usecreatedb: 'false',
        usesuper: 'false',
        userepl: 'false',
        usebypassrls: 'false',
        passwd: "'********'",
      },
      '',
    ),
  );
  s.push(
    pgView(
      'pg_settings',
      {
        name: 's.name',
        // A setting SET in the session (session/settings.ts mirrors its base-unit number as `<name>__base`).
        setting: `coalesce(${C}_var(${joined('s.name', "'__base'")}), ${C}_var(s.name), s.setting)`,
        unit: 'unit',
        category: 'category',
        short_desc: 'short_desc',
        context: 'context',
        vartype: 'vartype',
        source: `CASE WHEN ${C}_var(s.name) IS NULL THEN 'default' ELSE 'session' END`,
        min_val: 'min_val',
        max_val: 'max_val',
        enumvals: 'enumvals',
        boot_val: 'boot_val',
        // what RESET restores: the server's setting (its configuration file's, else the boot value)
        reset_val: 's.setting',
        pending_restart: 'false',
      },
      `FROM ${C}_settings s`,
    ),
  );
  s.push(
    pgView(
      'pg_tables',
      {
        schemaname: 'nspname',
        tablename: 'relname',
        tableowner: `${C}_user()`,
        hasindexes: 'false',
        hasrules: 'false',
        hastriggers: 'false',
        rowsecurity: 'false',
      },
      `FROM ${C}_rel WHERE relkind = 'r'`,
    ),
  );
  s.push(
    pgView(
      'pg_views',
      {
        schemaname: 'r.nspname',
        viewname: 'r.relname',
        viewowner: `${C}_user()`,
        definition: `coalesce(d.definition, ${C}_viewdef(r.definition))`,
      },
      // every view pg_class lists (\dv *.*): the version's, the gateway's own and pg_catalog's, with PostgreSQL's definitions
      `FROM ${C}_relall r LEFT JOIN ${C}_catviewdefs d ON d.oid = r.oid WHERE r.relkind = 'v'`,
    ),
  );
  const stat = {
    relid: 'oid',
    schemaname: 'nspname',
    relname: 'relname',
    seq_scan: '0',
    seq_tup_read: '0',
    idx_scan: '0',
    idx_tup_fetch: '0',
    n_tup_ins: '0',
    n_tup_upd: '0',
    n_tup_del: '0',
    n_tup_hot_upd: '0',
    n_live_tup: 'coalesce(row_count, 0)',
    n_dead_tup: '0',
    n_mod_since_analyze: '0',
    n_ins_since_vacuum: '0',
    vacuum_count: '0',
    autovacuum_count: '0',
    analyze_count: '0',
    autoanalyze_count: '0',
  };
  s.push(pgView('pg_stat_user_tables', stat, `FROM ${C}_rel WHERE relkind = 'r'`));
  s.push(pgView('pg_stat_all_tables', stat, `FROM ${C}_rel WHERE relkind = 'r'`));
  return s;
}
