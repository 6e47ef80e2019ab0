/**
 * Catalog relations and table functions of PostgreSQL features no version has (security labels,
 * per-database role settings, options of foreign objects and relations): PostgreSQL's columns and
 * types, no rows, so a tool that reads them (pg_dump, psql's \drds, \dl+) gets PostgreSQL's answer
 * for a database that does not use the feature.
 */
import { C } from './names.js';

/** Same shape as pg-data.ts' PG_STATIC_RELATIONS (installed by the same loop). */
export const ABSENT_FEATURE_RELATIONS: ReadonlyArray<{
  name: string;
  columns: ReadonlyArray<readonly [string, string]>;
  rows: ReadonlyArray<readonly unknown[]>;
}> = [
  {
    name: 'pg_seclabels',
    columns: [
      ['objoid', 'oid'],
      ['classoid', 'oid'],
      ['objsubid', 'integer'],
      ['objtype', 'text'],
      ['objnamespace', 'oid'],
      ['objname', 'text'],
      ['provider', 'text'],
      ['label', 'text'],
    ],
    rows: [],
  },
  {
    name: 'pg_shseclabel',
    columns: [
      ['objoid', 'oid'],
      ['classoid', 'oid'],
      ['provider', 'text'],
      ['label', 'text'],
    ],
    rows: [],
  },
  {
    name: 'pg_db_role_setting',
    columns: [
      ['setdatabase', 'oid'],
      ['setrole', 'oid'],
      ['setconfig', 'text[]'],
    ],
    rows: [],
  },
  {
    name: 'pg_user_mappings',
    columns: [
      ['umid', 'oid'],
      ['srvid', 'oid'],
      ['srvname', 'name'],
      ['umuser', 'oid'],
      ['usename', 'name'],
      ['umoptions', 'text[]'],
    ],
    rows: [],
  },
  {
    name: 'pg_parameter_acl',
    columns: [
      ['oid', 'oid'],
      ['parname', 'text'],
      ['paracl', 'aclitem[]'],
    ],
    rows: [],
  },
];

/** Scalar functions over those features, as [signature, body] (install.ts' scalar macros). */
export const ABSENT_FEATURE_MACROS: ReadonlyArray<[string, string]> = [
  // No extended statistics object exists; PostgreSQL answers NULL for an OID that names none.
  ['pg_statistics_obj_is_visible(id)', 'CAST(NULL AS BOOLEAN)'],
  ['getdatabaseencoding()', "'UTF8'"],
];

/** Table functions called in FROM, by name (the rewriter points a call there: ../rewrite.ts). */
export const ABSENT_FEATURE_TABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'pg_options_to_table',
  'pg_partition_tree',
]);

export function absentFeatureStatements(): string[] {
  return [
    // 'name=value' items split at the first '=' (an option without one has a NULL value), as PostgreSQL.
    `CREATE MACRO ${C}pg_options_to_table(fdl_pg_opts) AS TABLE SELECT CAST(split_part(fdl_pg_o, '=', 1) AS VARCHAR) AS option_name,
      CAST(CASE WHEN contains(fdl_pg_o, '=') THEN fdl_pg_o[strpos(fdl_pg_o, '=') + 1:] END AS VARCHAR) AS option_value
      FROM (SELECT unnest(coalesce(CAST(fdl_pg_opts AS VARCHAR[]), CAST([] AS VARCHAR[]))) AS fdl_pg_o)`,
    // No relation is partitioned, and PostgreSQL lists no tree for one that is not.
    `CREATE MACRO ${C}pg_partition_tree(fdl_pg_rel) AS TABLE SELECT CAST(fdl_pg_rel AS BIGINT) AS relid, CAST(NULL AS BIGINT) AS parentrelid, true AS isleaf, 0 AS level WHERE false`,
  ];
}
