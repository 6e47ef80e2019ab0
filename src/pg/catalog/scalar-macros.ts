/**
 * The catalog's functions as DuckDB macros: session facts (from the connection's `pg_*` variables), the
 * scalar functions PostgreSQL's catalog queries call, and the table functions. Each body is made hygienic
 * (./hygiene.ts) so it never depends on the caller's aliases.
 */
import { PG_FUNCTION_MACROS, PG_SEMANTIC_MACROS, refusedAtRun } from '../pg-macros.js';
import { SET_CONFIG_HINT } from '../set-config.js';
import { SHOWN_SETTINGS } from './setting-display.js';

/** current_setting of a setting with a unit prints it as SHOW does (`4MB`, not pg_settings' `4096`). */
const SHOWN_CASES = [...SHOWN_SETTINGS].map(([name, shown]) => `WHEN ${lit(name)} THEN ${lit(shown)}`).join(' ');
import { PRIVILEGED_SETTINGS, privilegedSettingMessage } from './privileged-settings.js';
import { hygienicMacro, macroParams } from './hygiene.js';
import { DESCRIBE_MACROS } from './describe.js';
import { PROCEDURE_MACROS } from './procedures.js';
import { CLOCK_MACROS } from '../clock-calls.js';
import { ABSENT_FEATURE_MACROS, absentFeatureStatements } from './absent-features.js';
import { DESCRIPTION_CLASSES } from './functions.js';
import { C, PG_CATALOG_OID, BOOTSTRAP_ROLE_OID, DEFAULT_SERVER_VERSION, MAX_NAME_TEXT } from './names.js';
import { joined, lit } from './sql-literals.js';
import { PG_KEYWORDS } from './pg-data.js';
import { FORMAT_TYPE_BODY } from './format-type.js';
import { MAX_QUOTED_TEXT, quotedBytes, quotedTooLarge } from '../pg-text-macros.js';

/**
 * The keywords quote_ident quotes (every category but unreserved) as one text, each between spaces: a name
 * (no spaces once it matched the plain-name pattern) is one of them when ' name ' occurs in it. One
 * constant to bind, where a lookup in `_keywords` was a correlated subquery per call (and a pattern of
 * the words, compiled per call, cost as much).
 */
const QUOTED_KEYWORDS = lit(
  ` ${PG_KEYWORDS.filter((k) => k[1] !== 'U')
    .map((k) => String(k[0]))
    .join(' ')} `,
);

/** Facts of the running server that some functions report. */
export interface Build {
  gatewayVersion: string;
  duckdbVersion: string;
  arch: string;
  startTime: string;
}

/** Macros reading the session's facts (per connection: DuckDB variables are connection-local). */
export function sessionMacroStatements(): string[] {
  const s: string[] = [];
  s.push(`CREATE MACRO ${C}_user() AS coalesce(getvariable('pg_user')::VARCHAR, 'fdl')`);
  s.push(`CREATE MACRO ${C}_dbname() AS coalesce(getvariable('pg_database')::VARCHAR, current_database())`);
  s.push(
    `CREATE MACRO ${C}_var${hygienicMacro(['n'], `(SELECT value::VARCHAR FROM duckdb_variables() WHERE name = ${joined("'pg_'", 'lower(n)')})`)}`,
  );
  const privileged = [...PRIVILEGED_SETTINGS].map(lit).join(', ');
  s.push(
    `CREATE MACRO ${C}_setting${hygienicMacro(['n'], `CASE WHEN strlen(CAST(n AS VARCHAR)) > ${MAX_NAME_TEXT} THEN NULL WHEN lower(n) IN (${privileged}) THEN error(${joined(lit(privilegedSettingMessage('\u0001').split('\u0001')[0]), 'lower(n)', `'"'`)}) ELSE coalesce(${C}_var(n), CASE lower(n) WHEN 'session_authorization' THEN ${C}_user() WHEN 'server_version_num' THEN ${C}_version_num() ${SHOWN_CASES} END, (SELECT setting FROM ${C}_settings WHERE lower(name) = lower(n))) END`)}`,
  );
  s.push(`CREATE MACRO ${C}_server_version() AS coalesce(${C}_var('server_version'), '${DEFAULT_SERVER_VERSION}')`);
  s.push(
    `CREATE MACRO ${C}_version_num() AS CAST(TRY_CAST(regexp_extract(${C}_server_version(), '^(\\d+)', 1) AS INTEGER) * 10000 + coalesce(TRY_CAST(regexp_extract(${C}_server_version(), '^\\d+\\.(\\d+)', 1) AS INTEGER), 0) AS VARCHAR)`,
  );
  // The version's schemas on the session's search_path, resolved by the session when the path or the version
  // changes (session/settings.ts sets pg_search_schemas); computing them here cost ~5 ms per statement.
  s.push(`CREATE MACRO ${C}_search_path() AS coalesce(CAST(getvariable('pg_search_schemas') AS VARCHAR[]), ['main'])`);
  return s;
}

/** CREATE MACRO statements of the scalar functions (overloads by arity where PostgreSQL has them) and table functions. */
export function functionMacroStatements(b: Build): string[] {
  const s: string[] = [];
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
  s.push(
    `CREATE MACRO ${C}pg_get_keywords() AS TABLE SELECT word, catcode, barelabel, catdesc, baredesc FROM ${C}_keywords`,
  );
  s.push(
    `CREATE MACRO ${C}pg_partition_ancestors_ord(id) AS TABLE SELECT CAST(id AS BIGINT) AS relid, CAST(1 AS BIGINT) AS depth`,
  );
  s.push(`CREATE MACRO ${C}pg_partition_ancestors(id) AS TABLE SELECT CAST(id AS BIGINT) AS relid`);
  s.push(...absentFeatureStatements());
  return s;
}

/** Scalar macros as [signature, body]; several signatures of one name become one overloaded macro. */
export function scalarMacros(b: Build): Array<[string, string]> {
  const macros: Array<[string, string]> = [
    // No server path in a definition: a quoted absolute path keeps only its file name (issue 12);
    // names qualified with the version's internal database name ("NAME@id".s.t) read as s.t.
    // Ending with ';' as PostgreSQL's does (pg_dump strips the last character, psql's \\sv the semicolon).
    // A catalog's own definition, with constant patterns: the built-ins as system.main's, since the session
    // guards' macros pasted into each call took pg_get_viewdef 0.9 s in-process, 4–10 s through the gateway.
    [
      `_viewdef(sql)`,
      joined(
        `system.main.replace(system.main.regexp_replace(system.main.regexp_replace(system.main.regexp_replace(sql, '^\\s*CREATE\\s+(OR\\s+REPLACE\\s+)?VIEW\\s+.*?\\s+AS\\s+', '', 's'), ';\\s*$', ''), '''/[^'']*/([^''/]*)''', '''\\1''', 'g'), ${joined(`'"'`, `system.main.replace(current_database(), '"', '""')`, `'".'`)}, '')`,
        "';'",
      ),
    ],
    // int2vector and oidvector are arrays that PostgreSQL prints by their own name (plain storage).
    [`format_type(oid, typmod)`, FORMAT_TYPE_BODY],
    [
      `pg_get_userbyid(id)`,
      `CASE WHEN id IS NULL THEN NULL WHEN id = ${BOOTSTRAP_ROLE_OID} THEN ${C}_user() ELSE ${joined("'unknown (OID='", 'id', "')'")} END`,
    ],
    // An uncorrelated IN (one semi-join per statement) instead of a subquery per row.
    [
      `pg_table_is_visible(id)`,
      `coalesce(CAST(id AS BIGINT) IN (SELECT r.oid FROM ${C}_relall r WHERE r.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), r.nspname)), false)`,
    ],
    [`pg_type_is_visible(id)`, `EXISTS (SELECT 1 FROM ${C}_types WHERE oid = id AND typnamespace = ${PG_CATALOG_OID})`],
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
    [
      `pg_get_function_result(id)`,
      `coalesce((SELECT g.result FROM ${C}_functions g WHERE g.oid = id), (SELECT p.typname FROM ${C}_procs f JOIN ${C}_types p ON p.oid = f.prorettype WHERE f.oid = id))`,
    ],
    [`pg_get_function_arguments(id)`, `coalesce((SELECT g.args FROM ${C}_functions g WHERE g.oid = id), '')`],
    [
      `pg_get_function_identity_arguments(id)`,
      `coalesce((SELECT g.identity_args FROM ${C}_functions g WHERE g.oid = id), '')`,
    ],
    [`pg_operator_is_visible(id)`, 'true'],
    // No function here has a SQL-standard body (prosqlbody is NULL), so psql \df+ shows none.
    [`pg_get_function_sqlbody(id)`, 'CAST(NULL AS VARCHAR)'],
    // A pg_catalog view's is PostgreSQL 15's own (pg-viewdefs.ts: plain, or pretty as psql's \sv and \d+ ask).
    [`pg_get_viewdef(id)`, viewdefBody('false')],
    [`pg_get_viewdef(id, pretty)`, viewdefBody('pretty')],
    [`pg_encoding_to_char(e)`, `CASE e WHEN 6 THEN 'UTF8' WHEN 0 THEN 'SQL_ASCII' ELSE '' END`],
    [`pg_char_to_encoding(e)`, `CASE upper(e) WHEN 'UTF8' THEN 6 WHEN 'SQL_ASCII' THEN 0 ELSE -1 END`],
    [`current_setting(n)`, `${C}_setting(n)`],
    [`current_setting(n, missing_ok)`, `${C}_setting(n)`],
    // Applied by the session when it is a statement of its own (pg/set-config.ts); anywhere else a
    // query cannot change a setting, so the call is refused rather than answering without applying.
    [
      `set_config(n, v, is_local)`,
      `CAST(${refusedAtRun('set_config() inside a query (with a FROM, other select items, or non-constant arguments)', SET_CONFIG_HINT)} AS VARCHAR)`,
    ],
    [
      `current_schemas(include_implicit)`,
      `CASE WHEN include_implicit THEN list_prepend('pg_catalog', ${C}_search_path()) ELSE ${C}_search_path() END`,
    ],
    [`current_schema()`, `${C}_search_path()[1]`],
    // Named apart from DuckDB's current_database(), which the bodies here need and a same-named macro would shadow.
    [`pg_current_database()`, `${C}_dbname()`],
    [`pg_current_user()`, `${C}_user()`],
    [
      `version()`,
      joined(
        "'PostgreSQL '",
        `${C}_server_version()`,
        `' (fdl-gateway ${b.gatewayVersion}, DuckDB ${b.duckdbVersion}) on ${b.arch}-pc-linux-gnu, compiled by fdl-gateway, 64-bit'`,
      ),
    ],
    // A list of lists is a PostgreSQL multidimensional array (rectangular): dimension d's length is the
    // first element's at depth d - 1; dimensions past the type's nesting, and any of an empty array, NULL.
    [
      `array_lower(arr, d)`,
      `CAST(CASE WHEN d >= 1 AND d <= ${C}_array_ndims(arr) AND len(arr) > 0 THEN 1 END AS INTEGER)`,
    ],
    [`array_upper(arr, d)`, `${C}_array_dim_length(arr, d)`],
    [`array_length(arr, d)`, `${C}_array_dim_length(arr, d)`],
    [
      `_array_dim_length(arr, d)`,
      `CAST(CASE WHEN d = 1 THEN CASE WHEN len(arr) > 0 THEN len(arr) END
        WHEN d >= 2 AND d <= ${C}_array_ndims(arr) AND len(arr) > 0 THEN json_array_length(CAST(arr AS JSON), '$' || repeat('[0]', d - 1)) END AS INTEGER)`,
    ],
    // The dimensions a list type holds: its trailing []s (a STRUCT's own lists are inside its parentheses).
    [`_array_ndims(arr)`, `length(regexp_extract(typeof(arr), '(\\[\\])+$')) // 2`],
    [`cardinality(arr)`, `len(arr)`],
    [
      `quote_ident(x)`,
      // An identifier over the quoting ceiling is refused before a copy of it is made (pg-text-macros.ts
      // MAX_QUOTED_TEXT); named once through a one-element lambda: format('%I', …) passes a large expression,
      // and each name of it is bound again (four names made the corpus' format('%I', …) time out). Past that
      // check the value is at most 64 KiB, so the built-ins are called as system.main's: the session guards'
      // macros pasted into each call made format('%I.%I', col, …) cost over a second of DuckDB's binder.
      `list_transform([x], lambda fdl_pg_i: CASE WHEN ${quotedBytes('fdl_pg_i', '"')} > ${MAX_QUOTED_TEXT} THEN ${quotedTooLarge('quote_ident')}
        WHEN system.main.regexp_full_match(fdl_pg_i, '[a-z_][a-z0-9_]*') AND NOT system.main.contains(${QUOTED_KEYWORDS}, CAST(system.main."||"(system.main."||"(' ', fdl_pg_i), ' ') AS VARCHAR)) THEN fdl_pg_i
        ELSE system.main."||"(system.main."||"('"', system.main.replace(fdl_pg_i, '"', '""')), '"') END)[1]`,
    ],
    [
      `quote_literal(x)`,
      // a text holding a backslash is written E'…' with it doubled, as PostgreSQL's quote_literal writes it
      `list_transform([CAST(x AS VARCHAR)], lambda fdl_pg_q: CASE WHEN ${quotedBytes('fdl_pg_q', "[''\\\\]")} + 1 > ${MAX_QUOTED_TEXT} THEN ${quotedTooLarge('quote_literal')}
        WHEN system.main.strpos(fdl_pg_q, '\\') > 0 THEN ${joined("'E'''", "system.main.replace(system.main.replace(fdl_pg_q, '\\', '\\\\'), '''', '''''')", "''''")}
        ELSE ${joined("''''", "system.main.replace(fdl_pg_q, '''', '''''')", "''''")} END)[1]`,
    ],
    [`parse_ident(x)`, `${C}_parse_ident(x)`],
    [`parse_ident(x, strict)`, `${C}_parse_ident(x)`],
    [
      `_parse_ident(x)`,
      `list_transform(system.main.regexp_extract_all(x, '("([^"]|"")*"|[^."]+)'), p -> CASE WHEN starts_with(p, '"') THEN system.main.replace(p[2:-2], '""', '"') ELSE lower(trim(p)) END)`,
    ],
    // A name's parts for the catalog's lookups: a text over MAX_NAME_TEXT names nothing (one NULL part).
    [
      `_name_parts(x)`,
      `CASE WHEN strlen(x) > ${MAX_NAME_TEXT} THEN [CAST(NULL AS VARCHAR)] ELSE ${C}_parse_ident(x) END`,
    ],
    [`pg_backend_pid()`, `coalesce(TRY_CAST(${C}_var('backend_pid') AS INTEGER), 0)`],
    [`obj_description(id)`, `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = 0)`],
    // Built-in types, access methods, languages and extensions have PostgreSQL's descriptions too (builtin-descriptions.ts).
    [
      `obj_description(id, cat)`,
      `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = 0 AND classoid = CASE cat ${Object.entries(
        { ...DESCRIPTION_CLASSES, pg_type: 1247, pg_am: 2601, pg_language: 2612, pg_extension: 3079 },
      )
        .map(([k, v]) => `WHEN '${k}' THEN ${v}`)
        .join(' ')} ELSE 1259 END)`,
    ],
    [
      `col_description(id, n)`,
      `(SELECT first(description) FROM ${C}_descriptions WHERE objoid = id AND objsubid = n AND classoid = 1259)`,
    ],
    [`shobj_description(id, cat)`, 'CAST(NULL AS VARCHAR)'],
    [`pg_relation_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_relation_size(id, fork)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_total_relation_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_table_size(id)`, `coalesce((SELECT size_bytes FROM ${C}_rel WHERE oid = id), 0)`],
    [`pg_indexes_size(id)`, '0'],
    [`pg_database_size(x)`, '0'],
    // nothing of a tablespace is local here, as of a database (psql's \db+ calls it); pg_global's size is
    // PostgreSQL's 42501 for a user without pg_read_all_stats, as every gateway user is
    [
      `pg_tablespace_size(x)`,
      "CASE WHEN CAST(x AS BIGINT) = 1664 THEN CAST(error('permission denied for tablespace pg_global') AS BIGINT) ELSE 0 END",
    ],
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
    // A version never changes, so its ID is a snapshot every session of the repository can import (pg_dump -j).
    [`pg_export_snapshot()`, `${C}_var('fdl.version')`],
    [`txid_current()`, '1'],
    [`pg_current_xact_id()`, '1'],
    [`pg_jit_available()`, 'false'],
    // pg_dump compares ACLs with the owner's defaults; no object here has an ACL, so neither has a default.
    [
      `acldefault(kind, owner)`,
      `list_transform(CASE kind WHEN 'r' THEN ['@=arwdDxt/@'] WHEN 's' THEN ['@=rwU/@'] WHEN 'n' THEN ['@=UC/@'] WHEN 'f' THEN ['=X/@', '@=X/@']
      WHEN 'l' THEN ['=U/@', '@=U/@'] WHEN 'T' THEN ['=U/@', '@=U/@'] WHEN 'd' THEN ['=Tc/@', '@=CTc/@'] WHEN 'L' THEN ['@=rw/@'] WHEN 'S' THEN ['@=U/@']
      WHEN 'F' THEN ['@=U/@'] WHEN 't' THEN ['@=C/@'] WHEN 'c' THEN CAST([] AS VARCHAR[]) END, a -> system.main.replace(a, '@', ${C}pg_get_userbyid(owner)))`,
    ],
    [`pg_listening_channels()`, 'CAST(NULL AS VARCHAR)'],
    [`array_remove(arr, x)`, `list_filter(arr, fdl_pg_e -> fdl_pg_e IS DISTINCT FROM x)`],
    [`_pg_expandarray(arr)`, `unnest(list_transform(arr, (x, i) -> {'x': x, 'n': CAST(i AS INTEGER)}))`],
    [`regclass_oid(x)`, `${C}_regclass_oid(x)`],
    // The name split once (a one-row subquery) rather than once per use: binding _parse_ident's lambda and
    // pattern six times was most of a `'name'::regclass` (≈ 5 ms of DuckDB time per statement). The reg*
    // lookups and _parse_ident call the built-ins as system.main's: constant patterns, linear in the name,
    // where the session guards' macros pasted into each call made `pg_get_viewdef('v'::regclass)` 4–10 s.
    [
      `_regclass_oid(x)`,
      `CASE WHEN x IS NULL THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT rc.oid FROM ${C}_relall rc, (SELECT ${C}_name_parts(CAST(x AS VARCHAR)) AS fdl_pg_parts) fdl_pg_name
      WHERE (len(fdl_pg_name.fdl_pg_parts) = 2 AND rc.nspname = fdl_pg_name.fdl_pg_parts[1] AND rc.relname = fdl_pg_name.fdl_pg_parts[2])
        OR (len(fdl_pg_name.fdl_pg_parts) = 1 AND rc.relname = fdl_pg_name.fdl_pg_parts[1] AND (rc.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), rc.nspname)))
      ORDER BY list_position(${C}_search_path(), rc.nspname) NULLS FIRST LIMIT 1) END`,
    ],
    [
      `_regclass_name(x)`,
      `coalesce((SELECT CASE WHEN r.relnamespace = ${PG_CATALOG_OID} OR list_contains(${C}_search_path(), r.nspname) THEN r.fdl_pg_quoted ELSE r.fdl_pg_qualified END FROM ${C}_relall r WHERE r.oid = x), CAST(x AS VARCHAR))`,
    ],
    [
      `_regtype_oid(x)`,
      `CASE WHEN x IS NULL OR strlen(CAST(x AS VARCHAR)) > ${MAX_NAME_TEXT} THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT t.oid FROM ${C}_types t, (SELECT ${C}_regtype_spelling(CAST(x AS VARCHAR)) AS n) q
      WHERE ((t.typname = q.n OR (system.main.ends_with(q.n, '[]') AND t.typname = ${joined("'_'", "system.main.regexp_replace(q.n, '\\[\\]$', '')")}))
        AND t.typnamespace = ${PG_CATALOG_OID}) OR t.fmt = q.n
      ORDER BY t.oid LIMIT 1) END`,
    ],
    // A type name as PostgreSQL's grammar reads it for regtype and regprocedure's arguments (`int`,
    // `varchar(10)`, `float(24)`, `DOUBLE  PRECISION`, `pg_catalog.int4[][]`): its typmod dropped, its
    // keywords lower-cased, its aliases spelled as format_type spells them (which `fmt` holds) or a typname,
    // any array one `[]`. No subquery: regprocedure reads it in a lambda.
    [
      `_regtype_spelling(s)`,
      `${C}_regtype_spelled(system.main.lower(trim(system.main.regexp_replace(system.main.regexp_replace(system.main.regexp_replace(s,
        '^\\s*pg_catalog\\s*\\.\\s*', ''), '\\s*\\([^)]*\\)', '', 'g'), '\\s+', ' ', 'g'))),
        system.main.regexp_matches(s, '^\\s*(?i:float)\\s*\\(\\s*([1-9]|1\\d|2[0-4])\\s*\\)'))`,
    ],
    [
      `_regtype_spelled(m, short_float)`,
      `${joined(
        `CASE WHEN short_float THEN 'real' ELSE coalesce(MAP {'int': 'integer', 'float': 'double precision', 'decimal': 'numeric', 'dec': 'numeric',
          'varchar': 'character varying', 'char': 'character', 'national character varying': 'character varying', 'national character': 'character'}[
          system.main.regexp_replace(m, '(\\[\\])+$', '')], system.main.regexp_replace(m, '(\\[\\])+$', '')) END`,
        `CASE WHEN system.main.ends_with(m, '[]') THEN '[]' ELSE '' END`,
      )}`,
    ],
    [
      `_regtype_name(x)`,
      `CASE WHEN x = 0 THEN '-' ELSE coalesce((SELECT fmt FROM ${C}_types WHERE oid = x), CAST(x AS VARCHAR)) END`,
    ],
    [
      `_regnamespace_oid(x)`,
      `CASE WHEN x IS NULL THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) ELSE (
      SELECT n.oid FROM ${C}pg_namespace n, (SELECT ${C}_name_parts(CAST(x AS VARCHAR))[1] AS fdl_pg_w) q WHERE n.nspname = q.fdl_pg_w) END`,
    ],
    [`_regnamespace_name(x)`, `coalesce((SELECT nspname FROM ${C}pg_namespace WHERE oid = x), CAST(x AS VARCHAR))`],
    [
      `_regrole_oid(x)`,
      `CASE WHEN x IS NULL THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT) WHEN CAST(x AS VARCHAR) = ${C}_user() THEN ${BOOTSTRAP_ROLE_OID} END`,
    ],
    [`_regrole_name(x)`, `${C}pg_get_userbyid(x)`],
    // Casts of text to reg* fail for unknown names with PostgreSQL's message (duckdb-errors.ts maps the SQLSTATE).
    [
      `_regclass_in(x)`,
      `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regclass_oid(x),
      CASE WHEN len(${C}_name_parts(CAST(x AS VARCHAR))) = 2 AND NOT EXISTS (SELECT 1 FROM ${C}pg_namespace WHERE nspname = ${C}_name_parts(CAST(x AS VARCHAR))[1])
        THEN error(${joined(`'schema "'`, `${C}_name_parts(CAST(x AS VARCHAR))[1]`, `'" does not exist'`)}) END,
      error(${joined(`'relation "'`, 'CAST(x AS VARCHAR)', `'" does not exist'`)})) END`,
    ],
    [
      `_regtype_in(x)`,
      `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regtype_oid(x), error(${joined(`'type "'`, 'CAST(x AS VARCHAR)', `'" does not exist'`)})) END`,
    ],
    [
      `_regnamespace_in(x)`,
      `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regnamespace_oid(x), error(${joined(`'schema "'`, 'CAST(x AS VARCHAR)', `'" does not exist'`)})) END`,
    ],
    [
      `_regrole_in(x)`,
      `CASE WHEN x IS NULL THEN NULL ELSE coalesce(${C}_regrole_oid(x), error(${joined(`'role "'`, 'CAST(x AS VARCHAR)', `'" does not exist'`)})) END`,
    ],
    // No relation has an index, so every index property is unknown (NULL), as PostgreSQL answers for a non-index.
    [`pg_index_column_has_property(id, col, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`pg_index_has_property(id, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`pg_indexam_has_property(am, prop)`, 'CAST(NULL AS BOOLEAN)'],
    [`to_regclass(x)`, `${C}_regclass_oid(x)`],
    [`to_regtype(x)`, `${C}_regtype_oid(x)`],
    [`to_regproc(x)`, `${C}_regproc_oid(x)`],
    [`to_regnamespace(x)`, `${C}_regnamespace_oid(x)`],
  ];
  macros.push(...privilegeMacros());
  macros.push(['pg_has_role(a, b)', 'true'], ['pg_has_role(a, b, c)', 'true']);
  macros.push(...PG_FUNCTION_MACROS, ...PG_SEMANTIC_MACROS);
  macros.push(...ABSENT_FEATURE_MACROS, ...DESCRIBE_MACROS, ...PROCEDURE_MACROS, ...CLOCK_MACROS);
  return macros;
}

/**
 * PostgreSQL 15's has_*_privilege functions over what the session can see: a name it does not show (an
 * unknown one, another repository, a ref the user is not granted, which pg_database does not list) is
 * PostgreSQL's error for an unknown object (42P01, 3F000, 3D000, 42703, 42883, 42704), an unknown OID
 * NULL, a role other than the session's user 42704, and an unknown privilege word 22023. What is visible
 * is granted for reading only: SELECT (and USAGE of a schema, CONNECT to the database) is true, every
 * privilege that would write is false, as the gateway refuses writes (25006). The rest answer as
 * PostgreSQL answers an ordinary role (compared with a PG 15 cluster in test/leaks.test.ts): EXECUTE on
 * every listed function (none of those PostgreSQL revokes from PUBLIC is listed), USAGE of every type and
 * language, no CREATE in a tablespace, SET of no parameter (whatever its name); no relation is a sequence
 * (42809) and no foreign-data wrapper or server exists (42704).
 */
/** A privilege word (`fdl_pg_w`, trimmed) without its `WITH GRANT OPTION`. */
const GRANT_OPTION_STRIPPED = `system.main.regexp_replace(fdl_pg_w, '\\s+with\\s+grant\\s+option$', '', 'i')`;

function privilegeMacros(): Array<[string, string]> {
  const list = (words: string[]) => `[${words.map(lit).join(', ')}]`;
  const TABLE = list(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER', 'RULE']);
  const COLUMN = list(['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']);
  const SCHEMA = list(['CREATE', 'USAGE']);
  const DATABASE = list(['CREATE', 'CONNECT', 'TEMPORARY', 'TEMP']);
  const SEQUENCE = list(['USAGE', 'SELECT', 'UPDATE']);
  const USAGE = list(['USAGE']);
  const PARAMETER = list(['SET', 'ALTER SYSTEM']);
  const NONE = 'CAST([] AS VARCHAR[])';
  const isName = (x: string) => `typeof(${x}) = 'VARCHAR'`;
  const notFound = (kind: string, n: string) => joined(`'${kind} "'`, `CAST(${n} AS VARCHAR)`, `'" does not exist'`);
  // The relation, by name as a regclass input (42P01/3F000 when unknown) or by OID (NULL when unknown).
  const table = (t: string) =>
    `CASE WHEN ${isName(t)} THEN ${C}_regclass_in(${t}) ELSE (SELECT oid FROM ${C}_relall WHERE oid = TRY_CAST(${t} AS BIGINT)) END`;
  const schema = (n: string) =>
    `CASE WHEN ${isName(n)} THEN coalesce((SELECT oid FROM ${C}pg_namespace WHERE nspname = CAST(${n} AS VARCHAR)), error(${notFound('schema', n)})) ELSE (SELECT oid FROM ${C}pg_namespace WHERE oid = TRY_CAST(${n} AS BIGINT)) END`;
  const database = (n: string) =>
    `CASE WHEN ${isName(n)} THEN coalesce((SELECT oid FROM ${C}pg_database WHERE datname = CAST(${n} AS VARCHAR)), error(${notFound('database', n)})) ELSE (SELECT oid FROM ${C}pg_database WHERE oid = TRY_CAST(${n} AS BIGINT)) END`;
  // A column by name (42703 when the relation has none) or by number (NULL when none).
  const column = (rel: string, c: string) =>
    `CASE WHEN ${rel} IS NULL THEN NULL WHEN ${isName(c)} THEN coalesce((SELECT attnum FROM ${C}pg_attribute WHERE attrelid = ${rel} AND attname = CAST(${c} AS VARCHAR) AND NOT attisdropped), error(${joined(`'column "'`, `CAST(${c} AS VARCHAR)`, `'" of relation "'`, `(SELECT relname FROM ${C}_relall WHERE oid = ${rel})`, `'" does not exist'`)})) ELSE (SELECT attnum FROM ${C}pg_attribute WHERE attrelid = ${rel} AND attnum = TRY_CAST(${c} AS BIGINT) AND NOT attisdropped) END`;
  const role = (u: string) => `${C}_regrole_in(${u})`;
  // A function by signature as regprocedure's input (22P02/42704/3F000/42883) or by OID; a type as regtype's.
  const fn = (f: string) =>
    `CASE WHEN ${isName(f)} THEN (SELECT oid FROM ${C}_procsig WHERE oid = ${C}_regprocedure_in(${f}) LIMIT 1) ELSE (SELECT oid FROM ${C}_procsig WHERE oid = TRY_CAST(${f} AS BIGINT) LIMIT 1) END`;
  const type = (t: string) =>
    `CASE WHEN ${isName(t)} THEN ${C}_regtype_in(${t}) ELSE (SELECT oid FROM ${C}_types WHERE oid = TRY_CAST(${t} AS BIGINT) LIMIT 1) END`;
  // Objects of a catalog table by name (PostgreSQL's 42704 words when unknown) or by OID (NULL when unknown).
  const named = (table: string, column: string, kind: string) => (n: string) =>
    `CASE WHEN ${isName(n)} THEN coalesce((SELECT oid FROM ${C}${table} WHERE ${column} = CAST(${n} AS VARCHAR)), error(${notFound(kind, n)})) ELSE (SELECT oid FROM ${C}${table} WHERE oid = TRY_CAST(${n} AS BIGINT)) END`;
  const language = named('pg_language', 'lanname', 'language');
  const tablespace = named('pg_tablespace', 'spcname', 'tablespace');
  const fdw = named('pg_foreign_data_wrapper', 'fdwname', 'foreign-data wrapper');
  const server = named('pg_foreign_server', 'srvname', 'server');
  // No relation here is a sequence: a known one is PostgreSQL's 42809 once the privilege words are read
  // (acl.c names the text as typed, or the relation's name for an OID).
  const notSequence = (t: string, p: string) =>
    `CASE WHEN (${table(t)}) IS NULL OR ${C}_privilege_held(${p}, ${SEQUENCE}, ${NONE}) IS NULL THEN NULL
      ELSE CAST(error(${joined(`'"'`, `CASE WHEN ${isName(t)} THEN CAST(${t} AS VARCHAR) ELSE (SELECT relname FROM ${C}_relall WHERE oid = TRY_CAST(${t} AS BIGINT)) END`, `'" is not a sequence'`)}) AS BOOLEAN) END`;
  const known = (...objects: string[]) => objects.map((o) => `(${o}) IS NULL`).join(' OR ');
  const answer = (objects: string[], p: string, valid: string, held: string) =>
    `CASE WHEN ${known(...objects)} THEN NULL ELSE ${C}_privilege_held(${p}, ${valid}, ${held}) END`;
  return [
    // PostgreSQL's privilege list: words separated by commas, each optionally WITH GRANT OPTION (never held here), any case.
    // The list is split once (a one-element lambda) by the built-ins as system.main's: constant patterns, linear in
    // the text, where the session guards' macros pasted into each of five calls cost 50 ms of binding per call.
    [
      `_privilege_held(p, valid, held)`,
      `CASE WHEN p IS NULL THEN NULL ELSE list_transform([list_transform(system.main.string_split(p, ','), fdl_pg_w -> trim(fdl_pg_w))], fdl_pg_ws ->
        CASE WHEN len(list_filter(fdl_pg_ws, fdl_pg_w -> NOT list_contains(valid, upper(${GRANT_OPTION_STRIPPED})))) > 0
          THEN error(${joined(`'unrecognized privilege type: "'`, `list_transform(list_filter(fdl_pg_ws, fdl_pg_w -> NOT list_contains(valid, upper(${GRANT_OPTION_STRIPPED}))), fdl_pg_w -> ${GRANT_OPTION_STRIPPED})[1]`, `'"'`)})
        ELSE list_has_any(list_transform(fdl_pg_ws, fdl_pg_w -> upper(fdl_pg_w)), held) END)[1] END`,
    ],
    [`has_table_privilege(t, p)`, answer([table('t')], 'p', TABLE, "['SELECT']")],
    [`has_table_privilege(u, t, p)`, answer([role('u'), table('t')], 'p', TABLE, "['SELECT']")],
    [`has_any_column_privilege(t, p)`, answer([table('t')], 'p', COLUMN, "['SELECT']")],
    [`has_any_column_privilege(u, t, p)`, answer([role('u'), table('t')], 'p', COLUMN, "['SELECT']")],
    [`has_column_privilege(t, c, p)`, answer([table('t'), column(table('t'), 'c')], 'p', COLUMN, "['SELECT']")],
    [
      `has_column_privilege(u, t, c, p)`,
      answer([role('u'), table('t'), column(table('t'), 'c')], 'p', COLUMN, "['SELECT']"),
    ],
    [`has_schema_privilege(n, p)`, answer([schema('n')], 'p', SCHEMA, "['USAGE']")],
    [`has_schema_privilege(u, n, p)`, answer([role('u'), schema('n')], 'p', SCHEMA, "['USAGE']")],
    [`has_database_privilege(n, p)`, answer([database('n')], 'p', DATABASE, "['CONNECT']")],
    [`has_database_privilege(u, n, p)`, answer([role('u'), database('n')], 'p', DATABASE, "['CONNECT']")],
    [`has_function_privilege(f, p)`, answer([fn('f')], 'p', list(['EXECUTE']), "['EXECUTE']")],
    [`has_function_privilege(u, f, p)`, answer([role('u'), fn('f')], 'p', list(['EXECUTE']), "['EXECUTE']")],
    [`has_type_privilege(t, p)`, answer([type('t')], 'p', USAGE, "['USAGE']")],
    [`has_type_privilege(u, t, p)`, answer([role('u'), type('t')], 'p', USAGE, "['USAGE']")],
    [`has_language_privilege(l, p)`, answer([language('l')], 'p', USAGE, "['USAGE']")],
    [`has_language_privilege(u, l, p)`, answer([role('u'), language('l')], 'p', USAGE, "['USAGE']")],
    [`has_tablespace_privilege(s, p)`, answer([tablespace('s')], 'p', list(['CREATE']), NONE)],
    [`has_tablespace_privilege(u, s, p)`, answer([role('u'), tablespace('s')], 'p', list(['CREATE']), NONE)],
    [`has_foreign_data_wrapper_privilege(w, p)`, answer([fdw('w')], 'p', USAGE, NONE)],
    [`has_foreign_data_wrapper_privilege(u, w, p)`, answer([role('u'), fdw('w')], 'p', USAGE, NONE)],
    [`has_server_privilege(s, p)`, answer([server('s')], 'p', USAGE, NONE)],
    [`has_server_privilege(u, s, p)`, answer([role('u'), server('s')], 'p', USAGE, NONE)],
    [`has_sequence_privilege(t, p)`, notSequence('t', 'p')],
    [`has_sequence_privilege(u, t, p)`, `CASE WHEN (${role('u')}) IS NULL THEN NULL ELSE ${notSequence('t', 'p')} END`],
    // a parameter's name is not looked up (PostgreSQL answers false for any name, known or not)
    [
      `has_parameter_privilege(s, p)`,
      `CASE WHEN s IS NULL THEN NULL ELSE ${C}_privilege_held(p, ${PARAMETER}, ${NONE}) END`,
    ],
    [`has_parameter_privilege(u, s, p)`, answer([role('u')], 'p', PARAMETER, NONE)],
  ];
}

/**
 * pg_get_viewdef's body: the relation by OID or by name, PostgreSQL's text for its own views, else the view's
 * definition. `id` is named once (a one-row subquery): it was pasted three times, each `'v'::regclass` with it.
 */
function viewdefBody(pretty: string): string {
  return `(SELECT coalesce(CASE WHEN ${pretty} THEN d.pretty_definition ELSE d.definition END, ${C}_viewdef(r.definition))
    FROM (SELECT ${C}_regclass_oid(fdl_pg_given.fdl_pg_id) AS oid FROM (SELECT id AS fdl_pg_id) fdl_pg_given) fdl_pg_rel
    JOIN ${C}_relall r ON r.oid = fdl_pg_rel.oid LEFT JOIN ${C}_catviewdefs d ON d.oid = r.oid)`;
}
