/**
 * The catalog's fixed tables, copied from a real PostgreSQL 15 (./pg-data.ts): types, the type I/O
 * functions, settings with the gateway's defaults, keywords, the catalog's own relations and columns,
 * built-in descriptions and the relations no feature here fills.
 */
import {
  PG_CATALOG_RELATIONS,
  PG_KEYWORDS,
  PG_PROCS,
  PG_RANGES,
  PG_SETTINGS,
  PG_STATIC_RELATIONS,
  PG_TYPES,
} from './pg-data.js';
import { duckdbTypeForCatalogColumn } from '../types.js';
import { PRIVILEGED_SETTINGS } from './privileged-settings.js';
import { PG_CATALOG_ATTRIBUTES } from './pg-attributes.js';
import {
  INFORMATION_SCHEMA_ATTRIBUTES,
  INFORMATION_SCHEMA_DOMAINS,
  INFORMATION_SCHEMA_RELATIONS,
  INFORMATION_SCHEMA_VIEW_DEFINITIONS,
} from './pg-information-schema.js';
import { PG_CATALOG_OID } from './names.js';
import { PG_BUILTIN_DESCRIPTIONS } from './builtin-descriptions.js';
import { PG_VIEW_DEFINITIONS } from './pg-viewdefs.js';
import { ABSENT_FEATURE_RELATIONS } from './absent-features.js';
import { FUNCTION_CATALOG_ROWS } from './functions.js';
import { EXTENSION_DEPENDS } from './procedures.js';
import { C, DEFAULT_SERVER_VERSION } from './names.js';
import { lit, pgArrayText, valuesTable } from './sql-literals.js';
import { FDL_ATTRIBUTES, FDL_DEPENDS, FDL_DESCRIPTIONS, FDL_EXTENSION, FDL_RELATIONS } from './fdl-views.js';

/** Settings whose defaults differ from a stock server because the gateway is read-only, UTF-8 and in the C locale. */
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
  lc_collate: 'C',
  lc_ctype: 'C',
  in_hot_standby: 'off',
  max_index_keys: '32',
};
/**
 * The C locale of a server initialised with it (boot values as captured): byte order, DuckDB's, and
 * ASCII-only case mapping, as upper/lower/initcap here; SHOW answers the same (session/parameters.ts).
 */
const LOCALE_SETTINGS = new Set(['lc_messages', 'lc_monetary', 'lc_numeric', 'lc_time']);

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
    client_port: `TRY_CAST(${C}_var('client_port') AS INTEGER)`,
    backend_start: `TRY_CAST(${C}_var('backend_start') AS TIMESTAMPTZ)`,
    state: `'active'`,
    backend_type: `'client backend'`,
  };
  const list = columns.map(
    ([col, pgType]) => `CAST(${exprs[col] ?? 'NULL'} AS ${duckdbTypeForCatalogColumn(pgType)}) AS "${col}"`,
  );
  return `CREATE VIEW ${C}pg_stat_activity AS SELECT ${list.join(', ')}`;
}

/** Rows the gateway has beyond pg-data.ts' copy: the extensions' members, the gateway's own extension (fdl-views.ts). */
const STATIC_ROWS: Readonly<Record<string, ReadonlyArray<readonly unknown[]>>> = {
  pg_depend: [...EXTENSION_DEPENDS, ...FDL_DEPENDS],
  pg_extension: [...(PG_STATIC_RELATIONS.find((r) => r.name === 'pg_extension')?.rows ?? []), FDL_EXTENSION],
};

/** CREATE TABLE (and INSERT) statements for the static data. */
export function staticTableStatements(): string[] {
  const s: string[] = [];
  s.push(
    ...valuesTable(
      '_types',
      [
        ['oid', 'BIGINT'],
        ['typname', 'VARCHAR'],
        ['typlen', 'SMALLINT'],
        ['typbyval', 'BOOLEAN'],
        ['typtype', 'VARCHAR'],
        ['typcategory', 'VARCHAR'],
        ['typispreferred', 'BOOLEAN'],
        ['typdelim', 'VARCHAR'],
        ['typelem', 'BIGINT'],
        ['typarray', 'BIGINT'],
        ['typinput', 'BIGINT'],
        ['typoutput', 'BIGINT'],
        ['typreceive', 'BIGINT'],
        ['typsend', 'BIGINT'],
        ['typmodin', 'BIGINT'],
        ['typmodout', 'BIGINT'],
        ['typanalyze', 'BIGINT'],
        ['typalign', 'VARCHAR'],
        ['typstorage', 'VARCHAR'],
        ['typcollation', 'BIGINT'],
        ['typsubscript', 'BIGINT'],
        ['fmt', 'VARCHAR'],
        ['typnamespace', 'BIGINT'],
        ['typbasetype', 'BIGINT'],
        ['typtypmod', 'INTEGER'],
        ['typnotnull', 'BOOLEAN'],
      ],
      // pg_catalog's base types, and information_schema's domains its served views' columns are typed with
      [...PG_TYPES.map((t) => [...t, PG_CATALOG_OID, 0, -1, false]), ...INFORMATION_SCHEMA_DOMAINS],
    ),
  );
  s.push(
    ...valuesTable(
      '_procs',
      [
        ['oid', 'BIGINT'],
        ['proname', 'VARCHAR'],
        ['pronargs', 'SMALLINT'],
        ['prorettype', 'BIGINT'],
        ['argtypes', 'VARCHAR'],
        ['provolatile', 'VARCHAR'],
        ['proisstrict', 'BOOLEAN'],
        ['prosrc', 'VARCHAR'],
      ],
      PG_PROCS,
    ),
  );
  s.push(
    ...valuesTable(
      '_settings',
      [
        ['name', 'VARCHAR'],
        ['setting', 'VARCHAR'],
        ['unit', 'VARCHAR'],
        ['category', 'VARCHAR'],
        ['short_desc', 'VARCHAR'],
        ['context', 'VARCHAR'],
        ['vartype', 'VARCHAR'],
        ['min_val', 'VARCHAR'],
        ['max_val', 'VARCHAR'],
        ['enumvals', 'VARCHAR[]'],
        ['boot_val', 'VARCHAR'],
      ],
      PG_SETTINGS.filter((r) => !PRIVILEGED_SETTINGS.has(String(r[0]))).map((r) => {
        const row = [...r];
        const d = SETTING_DEFAULTS[String(row[0]).toLowerCase()];
        if (d !== undefined) row[1] = row[10] = d;
        if (LOCALE_SETTINGS.has(String(row[0]))) row[1] = 'C';
        row[9] = null; // replaced below from the text form
        return row;
      }),
    ),
  );
  PG_SETTINGS.forEach((r) => {
    if (typeof r[9] === 'string' && !PRIVILEGED_SETTINGS.has(String(r[0])))
      s.push(`UPDATE ${C}_settings SET enumvals = ${pgArrayText(r[9])} WHERE name = ${lit(r[0])}`);
  });
  s.push(
    ...valuesTable(
      '_keywords',
      [
        ['word', 'VARCHAR'],
        ['catcode', 'VARCHAR'],
        ['barelabel', 'BOOLEAN'],
        ['catdesc', 'VARCHAR'],
        ['baredesc', 'VARCHAR'],
      ],
      PG_KEYWORDS,
    ),
  );
  s.push(
    ...valuesTable(
      '_catattrs',
      [
        ['attrelid', 'BIGINT'],
        ['attname', 'VARCHAR'],
        ['atttypid', 'BIGINT'],
        ['attnum', 'SMALLINT'],
        ['atttypmod', 'INTEGER'],
        ['attnotnull', 'BOOLEAN'],
        ['attcollation', 'BIGINT'],
      ],
      [...PG_CATALOG_ATTRIBUTES, ...INFORMATION_SCHEMA_ATTRIBUTES, ...FDL_ATTRIBUTES],
    ),
  );
  s.push(
    ...valuesTable(
      '_builtin_descriptions',
      [
        ['objoid', 'BIGINT'],
        ['classoid', 'BIGINT'],
        ['description', 'VARCHAR'],
      ],
      [...PG_BUILTIN_DESCRIPTIONS, ...FDL_DESCRIPTIONS],
    ),
  );
  s.push(
    ...valuesTable(
      '_fdlrels',
      [
        ['oid', 'BIGINT'],
        ['relname', 'VARCHAR'],
        ['definition', 'VARCHAR'],
      ],
      FDL_RELATIONS,
    ),
  );
  // PostgreSQL 15's definitions of its pg_catalog views, plain (pg_views) and pretty (psql's \sv and \d+).
  s.push(
    ...valuesTable(
      '_catviewdefs',
      [
        ['oid', 'BIGINT'],
        ['definition', 'VARCHAR'],
        ['pretty_definition', 'VARCHAR'],
        ['reloptions', 'VARCHAR[]'],
      ],
      [...PG_VIEW_DEFINITIONS, ...INFORMATION_SCHEMA_VIEW_DEFINITIONS].map(([oid, , definition, pretty, options]) => [
        oid,
        definition,
        pretty,
        options,
      ]),
    ),
  );
  s.push(
    ...valuesTable(
      '_inforels',
      [
        ['oid', 'BIGINT'],
        ['relname', 'VARCHAR'],
        ['relkind', 'VARCHAR'],
      ],
      INFORMATION_SCHEMA_RELATIONS,
    ),
  );
  s.push(
    ...valuesTable(
      'pg_range',
      [
        ['rngtypid', 'BIGINT'],
        ['rngsubtype', 'BIGINT'],
        ['rngmultitypid', 'BIGINT'],
        ['rngcollation', 'BIGINT'],
        ['rngsubopc', 'BIGINT'],
        ['rngcanonical', 'BIGINT'],
        ['rngsubdiff', 'BIGINT'],
      ],
      PG_RANGES,
    ),
  );
  for (const rel of [...PG_STATIC_RELATIONS, ...ABSENT_FEATURE_RELATIONS]) {
    if (rel.name === 'pg_stat_activity') {
      s.push(statActivityView(rel.columns));
      continue;
    }
    const cols = rel.columns.map(([n, t]) => [n, duckdbTypeForCatalogColumn(t)] as const);
    s.push(
      ...valuesTable(
        rel.name,
        cols,
        (STATIC_ROWS[rel.name] ?? FUNCTION_CATALOG_ROWS[rel.name] ?? rel.rows).map((r) =>
          r.map((v, i) =>
            cols[i]?.[1].endsWith('[]') && typeof v === 'string' ? JSON.parse(pgArrayText(v).replace(/'/g, '"')) : v,
          ),
        ),
      ),
    );
  }
  return s;
}

/**
 * `_catrels`: the pg_catalog relations pg_class lists — PostgreSQL 15's, less those the emulation
 * does not create (`pg_stat_database`, `pg_statistic`, `pg_shadow`, …). A tool that lists the
 * catalog (psql's `\dS`, sqlsmith, an ORM) then reads only relations that answer, never `42P01`.
 */
export function catalogRelationsStatements(created: ReadonlySet<string>): string[] {
  return valuesTable(
    '_catrels',
    [
      ['oid', 'BIGINT'],
      ['relname', 'VARCHAR'],
      ['relkind', 'VARCHAR'],
    ],
    PG_CATALOG_RELATIONS.filter((r) => created.has(String(r[1]))),
  );
}
