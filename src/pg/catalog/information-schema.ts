/** The information_schema views (over the pg_catalog views and the version's snapshot). */
import { C, I } from './names.js';

/** CREATE VIEW (and MACRO) statements of information_schema. */
export function informationSchemaStatements(): string[] {
  const s: string[] = [];
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
  s.push(
    empty('table_constraints', [
      'constraint_catalog',
      'constraint_schema',
      'constraint_name',
      'table_catalog',
      'table_schema',
      'table_name',
      'constraint_type',
      'is_deferrable',
      'initially_deferred',
      'enforced',
      'nulls_distinct',
    ]),
  );
  s.push(
    empty('key_column_usage', [
      'constraint_catalog',
      'constraint_schema',
      'constraint_name',
      'table_catalog',
      'table_schema',
      'table_name',
      'column_name',
      'ordinal_position',
      'position_in_unique_constraint',
    ]),
  );
  s.push(
    empty('referential_constraints', [
      'constraint_catalog',
      'constraint_schema',
      'constraint_name',
      'unique_constraint_catalog',
      'unique_constraint_schema',
      'unique_constraint_name',
      'match_option',
      'update_rule',
      'delete_rule',
    ]),
  );
  s.push(
    empty('constraint_column_usage', [
      'table_catalog',
      'table_schema',
      'table_name',
      'column_name',
      'constraint_catalog',
      'constraint_schema',
      'constraint_name',
    ]),
  );
  s.push(empty('check_constraints', ['constraint_catalog', 'constraint_schema', 'constraint_name', 'check_clause']));
  s.push(
    empty('routines', [
      'specific_catalog',
      'specific_schema',
      'specific_name',
      'routine_catalog',
      'routine_schema',
      'routine_name',
      'routine_type',
      'data_type',
      'routine_definition',
    ]),
  );
  s.push(
    empty('parameters', [
      'specific_catalog',
      'specific_schema',
      'specific_name',
      'ordinal_position',
      'parameter_mode',
      'parameter_name',
      'data_type',
    ]),
  );
  s.push(
    empty('table_privileges', [
      'grantor',
      'grantee',
      'table_catalog',
      'table_schema',
      'table_name',
      'privilege_type',
      'is_grantable',
      'with_hierarchy',
    ]),
  );
  s.push(
    empty('column_privileges', [
      'grantor',
      'grantee',
      'table_catalog',
      'table_schema',
      'table_name',
      'column_name',
      'privilege_type',
      'is_grantable',
    ]),
  );
  s.push(`CREATE MACRO ${I}_pg_expandarray(arr) AS ${C}_pg_expandarray(arr)`);
  return s;
}
