/**
 * What psql's describe commands call beyond the catalog tables: object descriptions (\dx+) and rule
 * definitions (\d+ of a view: pg_rewrite is empty, a view's own rule is never listed). Function
 * definitions (\sf) are ./procedures.ts'.
 */
import { C, PG_CATALOG_OID } from './names.js';
import { DESCRIBE_PROCEDURE_CASES } from './procedures.js';
import { joined } from './sql-literals.js';

/** Scalar macros as [signature, body] (install.ts' scalar macros). */
export const DESCRIBE_MACROS: ReadonlyArray<[string, string]> = [
  // getObjectDescription for the objects a version has: its schemas, relations and types (names joined by the
  // built-in `||`, sql-literals.ts `joined`: the session guard's macro per operator tripled its bind).
  [
    'pg_describe_object(classid, objid, objsubid)',
    `CASE classid
    WHEN 2615 THEN (SELECT ${joined("'schema '", `${C}quote_ident(nspname)`)} FROM ${C}pg_namespace WHERE oid = objid)
    WHEN 1259 THEN (SELECT ${joined(
      `CASE r.relkind WHEN 'v' THEN 'view ' WHEN 'm' THEN 'materialized view ' WHEN 'S' THEN 'sequence ' ELSE 'table ' END`,
      `CASE WHEN r.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), r.nspname) THEN r.fdl_pg_quoted ELSE r.fdl_pg_qualified END`,
      `CASE WHEN objsubid <> 0 THEN ${joined("' column '", `(SELECT a.attname FROM ${C}pg_attribute a WHERE a.attrelid = objid AND a.attnum = objsubid)`)} ELSE '' END`,
    )}
      FROM ${C}_relall r WHERE r.oid = objid)
    WHEN 1247 THEN ${joined("'type '", `${C}_regtype_name(objid)`)}
    ${DESCRIBE_PROCEDURE_CASES}
    END`,
  ],
  ['pg_get_ruledef(id)', 'CAST(NULL AS VARCHAR)'],
  ['pg_get_ruledef(id, pretty)', 'CAST(NULL AS VARCHAR)'],
];
