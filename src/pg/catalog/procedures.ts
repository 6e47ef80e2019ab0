/**
 * Functions by name and signature: regproc/regprocedure input and output, PostgreSQL's handler
 * functions (access methods', plpgsql's: clients read them through pg_am, pg_language and
 * pg_extension; nobody can call them, so pg_proc does not list them), the extension's members in
 * pg_depend, and pg_get_functiondef (psql's \sf), which prints PostgreSQL's own definition of a
 * function the gateway answers as PostgreSQL does.
 */
import { C, MAX_NAME_TEXT } from './names.js';
import { PG_TYPES } from './pg-data.js';
import { PG_PROC_NAMES } from './pg-proc-names.js';
import { joined, valuesTable } from './sql-literals.js';
import { quoteLiteral } from '../../quote.js';

/** PostgreSQL 15's handler and validator functions: oid, name, argument type OIDs ('2281'), result type OID. */
const HANDLER_PROCS: ReadonlyArray<readonly [number, string, string, number]> = [
  [3, 'heap_tableam_handler', '2281', 269],
  [330, 'bthandler', '2281', 325],
  [331, 'hashhandler', '2281', 325],
  [332, 'gisthandler', '2281', 325],
  [333, 'ginhandler', '2281', 325],
  [334, 'spghandler', '2281', 325],
  [335, 'brinhandler', '2281', 325],
  [2246, 'fmgr_internal_validator', '26', 2278],
  [2247, 'fmgr_c_validator', '26', 2278],
  [2248, 'fmgr_sql_validator', '26', 2278],
  [13560, 'plpgsql_call_handler', '', 2280],
  [13561, 'plpgsql_inline_handler', '2281', 2278],
  [13562, 'plpgsql_validator', '26', 2278],
];

/** The planner support functions (prosupport) of functions pg_proc lists, which pg_get_functiondef names. */
const SUPPORT_FUNCTIONS: ReadonlyMap<number, string> = new Map([
  [1068, 'generate_series_int8_support'],
  [1069, 'generate_series_int8_support'],
  [2147, 'int8inc_support'],
  [2331, 'array_unnest_support'],
  [2803, 'int8inc_support'],
  [3100, 'window_row_number_support'],
  [3101, 'window_rank_support'],
  [3102, 'window_dense_rank_support'],
  [3696, 'text_starts_with_support'],
]);

/** pg_depend's rows: the members of the one extension (plpgsql, 13559): its three functions and its language. */
export const EXTENSION_DEPENDS: ReadonlyArray<readonly unknown[]> = [
  [1255, 13560, 0, 3079, 13559, 0, 'e'],
  [1255, 13561, 0, 3079, 13559, 0, 'e'],
  [1255, 13562, 0, 3079, 13559, 0, 'e'],
  [2612, 13563, 0, 3079, 13559, 0, 'e'],
];

/** `_procsig`: every function OID the catalog knows with its name and argument types (pg_proc's, and the handlers). */
export function procedureStatements(): string[] {
  return [
    ...valuesTable(
      '_handler_procs',
      [
        ['oid', 'BIGINT'],
        ['proname', 'VARCHAR'],
        ['argtypes', 'VARCHAR'],
        ['prorettype', 'BIGINT'],
      ],
      HANDLER_PROCS,
    ),
    // How regproc and regprocedure print every PostgreSQL function, also those pg_proc leaves out (operators',
    // aggregates' and casts' implementation functions): a name is only shown, never made callable by this.
    ...valuesTable(
      '_proc_names',
      [
        ['oid', 'BIGINT'],
        ['regproc', 'VARCHAR'],
        ['regprocedure', 'VARCHAR'],
      ],
      PG_PROC_NAMES,
    ),
    `CREATE VIEW ${C}_procsig AS SELECT oid, proname, CAST(list_transform(list_filter(system.main.string_split(argtypes, ' '), x -> x <> ''), x -> x::BIGINT) AS BIGINT[]) AS argtypes
      FROM (SELECT oid, proname, argtypes FROM ${C}_procs UNION ALL SELECT oid, proname, proargtypes FROM ${C}_functions
        UNION ALL SELECT oid, proname, argtypes FROM ${C}_handler_procs)`,
    // What pg_get_functiondef prints, for pg_proc's functions and the type I/O functions (all internal, parallel safe).
    `CREATE VIEW ${C}_functiondefs AS
      SELECT oid, proname, prolang, procost, prorows, prokind, prosecdef, proleakproof, proisstrict, proretset, provolatile, proparallel, prosrc, args, result FROM ${C}_functions
      UNION ALL SELECT p.oid, p.proname, 12, 1, 0, 'f', false, false, p.proisstrict, false, p.provolatile, 's', p.prosrc,
        coalesce((SELECT string_agg(${C}format_type(a.t, NULL), ', ' ORDER BY a.i) FROM (SELECT unnest(s.argtypes) AS t, generate_subscripts(s.argtypes, 1) AS i) a), ''),
        ${C}format_type(p.prorettype, NULL)
      FROM ${C}_procs p JOIN ${C}_procsig s ON s.oid = p.oid`,
  ];
}

/**
 * `name(type, …)` split into the bare name (no `pg_catalog.`) and its argument type OIDs; `name` alone has no list.
 * The built-ins are system.main's (constant patterns and separators, linear in the text): the session guards'
 * macros, pasted into every use, made `'pg_catalog.array_in'::regproc` (pgjdbc's type query) cost 10 ms to bind.
 */
const sigName = `system.main.regexp_replace(trim(system.main.string_split(CAST(x AS VARCHAR), '(')[1]), '^pg_catalog\\.', '')`;
const sigParts = `list_filter(list_transform(system.main.string_split(regexp_extract(CAST(x AS VARCHAR), '\\((.*)\\)', 1), ','), a -> trim(a)), a -> a <> '')`;
/** Type name (typname or format_type's spelling) → OID, the first of equals, as a constant: no subquery per lookup. */
const typeOids = (() => {
  const m = new Map<string, number>();
  for (const r of [...PG_TYPES].sort((a, b) => Number(a[0]) - Number(b[0])))
    for (const n of [r[1], r[r.length - 1]]) if (!m.has(String(n))) m.set(String(n), Number(r[0]));
  return `MAP {${[...m].map(([n, oid]) => `${quoteLiteral(n)}: ${oid}`).join(', ')}}`;
})();
/** The argument types of `name(type, …)` that name no type, as written. */
// (each read as regtype reads it: `abs(int)`, `left(varchar, int)`)
const unknownArgs = `list_filter(${sigParts}, a -> map_extract_value(${typeOids}, ${C}_regtype_spelling(a)) IS NULL)`;
const sigArgs = `CASE WHEN system.main.contains(CAST(x AS VARCHAR), '(') THEN list_transform(${sigParts}, a -> CAST(map_extract_value(${typeOids}, ${C}_regtype_spelling(a)) AS BIGINT)) END`;

/**
 * The FROM and WHERE of the functions `x` names (`_procsig fdl_pg_p`). regproc's input counts them in one aggregate
 * over this: a list of them read by a second subquery (`len(m)`, `m[1]`) planned as two nested scalar subqueries, each
 * with DuckDB's one-row check (a grouped aggregate), and made pgjdbc's type query (`typinput =
 * 'pg_catalog.array_in'::regproc` beside a join) 2.5× the same query with the OID written in.
 */
const matchingProcs = `${C}_procsig fdl_pg_p, (SELECT ${sigName} AS fdl_pg_name, ${sigArgs} AS fdl_pg_args) fdl_pg_sig
      WHERE fdl_pg_p.proname = fdl_pg_sig.fdl_pg_name AND (fdl_pg_sig.fdl_pg_args IS NULL OR fdl_pg_p.argtypes = fdl_pg_sig.fdl_pg_args)`;

const noFunction = (name: string) => joined(`'function "'`, name, `'" does not exist'`);
const ambiguousFunction = (name: string) => joined(`'more than one function named "'`, name, `'"'`);
const NO_FUNCTION = noFunction('CAST(x AS VARCHAR)');
const AMBIGUOUS_FUNCTION = ambiguousFunction('CAST(x AS VARCHAR)');

/** Scalar macros as [signature, body] (scalar-macros.ts). */
export const PROCEDURE_MACROS: ReadonlyArray<[string, string]> = [
  // The matches of a name (with its argument types when given, as regprocedure's input has them). The name
  // and the argument types are read once (a one-row subquery): the type names' constant map, pasted into each
  // use, made `'f'::regproc` 0.25 MB of bound plan and `'f(int4)'::regprocedure` 2.7 MB.
  [`_regproc_matches(x)`, `(SELECT list(fdl_pg_p.oid ORDER BY fdl_pg_p.oid) FROM ${matchingProcs})`],
  // An OID as itself; a name naming exactly one function (PostgreSQL refuses an ambiguous one).
  [
    `_regproc_oid(x)`,
    `CASE WHEN x IS NULL OR strlen(CAST(x AS VARCHAR)) > ${MAX_NAME_TEXT} THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT)
    ELSE (SELECT CASE WHEN count(*) = 1 THEN min(fdl_pg_p.oid) END FROM ${matchingProcs}) END`,
  ],
  // PostgreSQL's own output for its functions (regprocout qualifies an overloaded name), else the gateway's name.
  [
    `_regproc_name(x)`,
    `CASE WHEN x = 0 THEN '-' ELSE coalesce((SELECT first(regproc) FROM ${C}_proc_names WHERE oid = x),
      (SELECT first(proname) FROM ${C}_procsig WHERE oid = x), CAST(x AS VARCHAR)) END`,
  ],
  [
    `_regprocedure_name(x)`,
    `CASE WHEN x = 0 THEN '-' ELSE coalesce((SELECT first(regprocedure) FROM ${C}_proc_names WHERE oid = x), (SELECT first(${joined(
      'p.proname',
      "'('",
      `coalesce((SELECT string_agg(${C}format_type(a.t, NULL), ',' ORDER BY a.i)
      FROM (SELECT unnest(p.argtypes) AS t, generate_subscripts(p.argtypes, 1) AS i) a), '')`,
      "')'",
    )}) FROM ${C}_procsig p WHERE p.oid = x), CAST(x AS VARCHAR)) END`,
  ],
  // One lookup: the match, or PostgreSQL's refusal of an ambiguous or unknown name.
  [
    `_regproc_in(x)`,
    `CASE WHEN x IS NULL THEN NULL WHEN strlen(CAST(x AS VARCHAR)) > ${MAX_NAME_TEXT} THEN error(${NO_FUNCTION})
    WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT)
    ELSE (SELECT CASE count(*) WHEN 1 THEN min(fdl_pg_p.oid) WHEN 0 THEN error(${NO_FUNCTION})
      ELSE error(${AMBIGUOUS_FUNCTION}) END FROM ${matchingProcs}) END`,
  ],
  [`_regprocedure_oid(x)`, `${C}_regproc_oid(x)`],
  // regprocedure's input as PostgreSQL's regprocedurein: the argument list is required (22P02), an unknown
  // argument type (42704) or schema (3F000) is named before the function is looked up. Every error() is
  // outside a subquery: DuckDB runs a CASE's subqueries before it picks a branch. What the checks read is
  // computed once, as one struct a lambda reads (each was pasted two or three times: 2.7 MB of bound plan).
  [
    `_regprocedure_in(x)`,
    `CASE WHEN x IS NULL THEN NULL WHEN system.main.regexp_full_match(CAST(x AS VARCHAR), '\\d+') THEN CAST(CAST(x AS VARCHAR) AS BIGINT)
    WHEN strlen(CAST(x AS VARCHAR)) > ${MAX_NAME_TEXT} THEN error(${NO_FUNCTION})
    WHEN NOT system.main.contains(CAST(x AS VARCHAR), '(') THEN error('expected a left parenthesis')
    ELSE list_transform([{'x': CAST(x AS VARCHAR), 'unknown': ${unknownArgs}, 'name': ${sigName},
        'schema': EXISTS (SELECT 1 FROM ${C}pg_namespace WHERE nspname = system.main.string_split(${sigName}, '.')[1]), 'matches': ${C}_regproc_matches(x)}],
      lambda fdl_pg_s: CASE WHEN len(fdl_pg_s.unknown) > 0 THEN error(${joined(`'type "'`, 'fdl_pg_s.unknown[1]', `'" does not exist'`)})
        WHEN system.main.contains(fdl_pg_s.name, '.') AND NOT fdl_pg_s.schema
          THEN error(${joined(`'schema "'`, `system.main.string_split(fdl_pg_s.name, '.')[1]`, `'" does not exist'`)})
        WHEN coalesce(len(fdl_pg_s.matches), 0) = 0 THEN error(${noFunction('fdl_pg_s.x')})
        WHEN len(fdl_pg_s.matches) > 1 THEN error(${ambiguousFunction('fdl_pg_s.x')})
        ELSE fdl_pg_s.matches[1] END)[1] END`,
  ],
  // PostgreSQL's definition of a function listed in pg_proc, in pg_get_functiondef's layout; aggregates have none.
  [
    `pg_get_functiondef(id)`,
    `(SELECT CASE WHEN f.prokind = 'a' THEN error('"' || f.proname || '" is an aggregate function')
      ELSE 'CREATE OR REPLACE FUNCTION pg_catalog.' || ${C}quote_ident(f.proname) || '(' || f.args || ')' || chr(10)
        || ' RETURNS ' || f.result || chr(10)
        || ' LANGUAGE ' || CASE f.prolang WHEN 12 THEN 'internal' WHEN 13 THEN 'c' WHEN 14 THEN 'sql' ELSE 'plpgsql' END || chr(10)
        || CASE WHEN f.prokind = 'w' THEN ' WINDOW' ELSE '' END
        || CASE f.provolatile WHEN 'i' THEN ' IMMUTABLE' WHEN 's' THEN ' STABLE' ELSE '' END
        || CASE f.proparallel WHEN 's' THEN ' PARALLEL SAFE' WHEN 'r' THEN ' PARALLEL RESTRICTED' ELSE '' END
        || CASE WHEN f.proisstrict THEN ' STRICT' ELSE '' END || CASE WHEN f.prosecdef THEN ' SECURITY DEFINER' ELSE '' END
        || CASE WHEN f.proleakproof THEN ' LEAKPROOF' ELSE '' END
        || CASE WHEN f.procost <> CASE WHEN f.prolang IN (12, 13) THEN 1 ELSE 100 END THEN ' COST ' || CAST(f.procost AS INTEGER) ELSE '' END
        || CASE WHEN f.proretset AND f.prorows <> 1000 THEN ' ROWS ' || CAST(f.prorows AS INTEGER) ELSE '' END
        || CASE f.oid ${[...SUPPORT_FUNCTIONS].map(([oid, name]) => `WHEN ${oid} THEN ' SUPPORT ${name}'`).join(' ')} ELSE '' END
        || chr(10) || 'AS $function$' || f.prosrc || '$function$' || chr(10) END
    FROM ${C}_functiondefs f WHERE f.oid = id)`,
  ],
];

/** pg_describe_object's words for functions and languages (describe.ts covers the version's objects). */
export const DESCRIBE_PROCEDURE_CASES = `WHEN 1255 THEN ${joined("'function '", `${C}_regprocedure_name(objid)`)}
    WHEN 2612 THEN (SELECT ${joined("'language '", 'lanname')} FROM ${C}pg_language WHERE oid = objid)`;
