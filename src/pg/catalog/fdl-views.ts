/**
 * The gateway's own views (`fdl.refs`, `fdl.versions`, `fdl.session`, `fdl.dataset`, `fdl.cache`) in the
 * catalog, so psql's `\d fdl.refs`, `'fdl.refs'::regclass` and drivers' column listings describe them as any
 * view: schema `fdl` in pg_namespace, each view in pg_class with its columns in pg_attribute and a
 * description. Their rows are answered by the gateway when a statement reads them (text/system-views.ts),
 * so, as PostgreSQL's server-provided objects, they are the members of an extension (`fdl`) with an OID
 * below 16384: pg_dump takes such an extension and its members for built-ins (as plpgsql) and dumps
 * neither, where a restore could not create them.
 */
import { SYSTEM_VIEW_COLUMNS, SYSTEM_VIEWS, type SystemViewName } from '../../text/system-views.js';
import { duckdbTypeToPg, TYPE_TABLE } from '../types.js';
import { BOOTSTRAP_ROLE_OID } from './names.js';

/** Fixed OIDs between PostgreSQL's initdb objects (< 14000) and the first user object (16384). */
export const FDL_EXTENSION_OID = 16300;
export const FDL_NAMESPACE_OID = 16301;
const FIRST_VIEW_OID = 16302;

const DESCRIPTIONS: Readonly<Record<SystemViewName, string>> = {
  refs: 'The branches and tags of the repository the user may read, with their versions',
  versions: "The history of the session's version along first parents, as far as the user may read it",
  session: 'The repository, ref and version the session reads',
  dataset: "The dataset description published with the session's version",
  cache: "The gateway's caches: entries, bytes, hits and misses",
};

/** `_fdlrels`: oid, relname, definition (as pg_get_viewdef answers it; one line, as DuckDB's definitions of the version's views). */
export const FDL_RELATIONS: ReadonlyArray<readonly [number, string, string]> = SYSTEM_VIEWS.map((name, i) => [
  FIRST_VIEW_OID + i,
  name,
  `/* rows answered by fdl-gateway when a statement reads the view */ SELECT ${SYSTEM_VIEW_COLUMNS[name].map(([c]) => c).join(', ')} FROM fdl.${name}`,
]);

/** Rows as `_catattrs` holds them: attrelid, attname, atttypid, attnum, atttypmod, attnotnull, attcollation. */
export const FDL_ATTRIBUTES: ReadonlyArray<readonly unknown[]> = SYSTEM_VIEWS.flatMap((name, i) =>
  SYSTEM_VIEW_COLUMNS[name].map(([column, type], k) => {
    // the type a statement reading the view is sent as (`TIMESTAMPTZ` is a parameter's spelling of timestamptz)
    const oid = TYPE_TABLE.find((e) => e.param === type)?.oid ?? duckdbTypeToPg(type).oid;
    return [FIRST_VIEW_OID + i, column, oid, k + 1, -1, false, null];
  }),
);

/** pg_extension's row (its columns as pg-data.ts lists them). */
export const FDL_EXTENSION: readonly unknown[] = [
  FDL_EXTENSION_OID,
  'fdl',
  BOOTSTRAP_ROLE_OID,
  FDL_NAMESPACE_OID,
  false,
  '1.0',
  null,
  null,
];

/** pg_depend's rows: the schema and the views are the extension's members. */
export const FDL_DEPENDS: ReadonlyArray<readonly unknown[]> = [
  [2615, FDL_NAMESPACE_OID, 0, 3079, FDL_EXTENSION_OID, 0, 'e'],
  ...FDL_RELATIONS.map(([oid]) => [1259, oid, 0, 3079, FDL_EXTENSION_OID, 0, 'e']),
];

/** `_builtin_descriptions`' rows: objoid, classoid, description. */
export const FDL_DESCRIPTIONS: ReadonlyArray<readonly unknown[]> = [
  [FDL_EXTENSION_OID, 3079, "fdl-gateway's views of the repository, the session and the gateway"],
  [FDL_NAMESPACE_OID, 2615, "fdl-gateway's views of the repository, the session and the gateway"],
  ...FDL_RELATIONS.map(([oid, name]) => [oid, 1259, DESCRIPTIONS[name as SystemViewName]]),
];
