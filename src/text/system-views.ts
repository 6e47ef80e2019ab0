/**
 * The gateway's own views — fdl.refs, fdl.versions, fdl.session, fdl.dataset, fdl.cache — answer
 * from the resolver and the session, which DuckDB cannot see. A statement naming one gets the rows
 * inlined as a typed VALUES subquery in place of the name, so the views combine with any SQL
 * (WHERE, JOIN, ORDER BY) and always reflect the moment the statement runs.
 */
import { mapCode, mapSegments } from './split.js';
import { quoteLiteral } from '../quote.js';
import { SqlError, SQLSTATE } from '../errors.js';

export const SYSTEM_VIEWS = ['refs', 'versions', 'session', 'dataset', 'cache'] as const;
export type SystemViewName = (typeof SYSTEM_VIEWS)[number];

/** Each view's columns and their DuckDB types: the rows' (versions/system-tables.ts, the session's) and the catalog's (pg/catalog/fdl-views.ts). */
export const SYSTEM_VIEW_COLUMNS: Readonly<Record<SystemViewName, readonly (readonly [string, string])[]>> = {
  refs: [
    ['name', 'VARCHAR'],
    ['kind', 'VARCHAR'],
    ['version', 'VARCHAR'],
    ['created', 'TIMESTAMPTZ'],
    ['signature', 'VARCHAR'],
  ],
  versions: [
    ['id', 'VARCHAR'],
    ['created', 'TIMESTAMPTZ'],
    ['author', 'VARCHAR'],
    ['message', 'VARCHAR'],
    ['signer', 'VARCHAR'],
    ['signature', 'VARCHAR'],
    ['expired', 'BOOLEAN'],
    ['data_hashes', 'VARCHAR'],
  ],
  session: [
    ['repository', 'VARCHAR'],
    ['requested_ref', 'VARCHAR'],
    ['resolved_ref', 'VARCHAR'],
    ['version', 'VARCHAR'],
    ['resolved_at', 'TIMESTAMPTZ'],
    ['pinned', 'BOOLEAN'],
    ['client_addr', 'VARCHAR'],
  ],
  dataset: [
    ['title', 'VARCHAR'],
    ['description', 'VARCHAR'],
    ['license', 'VARCHAR'],
    ['homepage', 'VARCHAR'],
    ['dataset', 'JSON'],
  ],
  cache: [
    ['cache', 'VARCHAR'],
    ['entries', 'BIGINT'],
    ['bytes', 'BIGINT'],
    ['hits', 'BIGINT'],
    ['misses', 'BIGINT'],
    ['downloads', 'BIGINT'],
    ['evictions', 'BIGINT'],
    ['mismatches', 'BIGINT'],
    ['budget_bytes', 'BIGINT'],
    ['pinned_bytes', 'BIGINT'],
    ['peak_bytes', 'BIGINT'],
  ],
};

export interface SystemTable {
  /** Column names and DuckDB types. */
  columns: readonly (readonly [string, string])[];
  rows: readonly (readonly (string | number | boolean | null)[])[];
}

// A database before it (`"demo@v1".fdl.refs`; a quoted name is outside the code segment: a bare `.`) is matched too, to be refused by name rather than spliced into a syntax error.
const REFERENCE = /(?:([a-z_][\w$]*)?\s*\.\s*)?\bfdl\s*\.\s*(refs|versions|session|dataset|cache)\b/gi;
/** Words that can follow a table reference without being its alias. */
const NOT_ALIAS =
  /\s*(where|join|left|right|full|inner|cross|natural|on|using|order|group|having|limit|offset|union|except|intersect|window|qualify|\)|,|;|$)/iy;

/** A `.` after the name: a column reference qualified with the view's schema and name. */
const COLUMN_OF = /\s*\./y;

/** The view and schema names quoted as written unquoted: `"fdl"."refs"` (DBeaver and pgAdmin quote every name). */
const QUOTED_NAME = /^"(fdl|refs|versions|session|dataset|cache)"$/;
const MAY_QUOTE_NAME = /"(fdl|refs|versions|session|dataset|cache)"/;

/**
 * `sql` with those names unquoted: a quoted name of lower-case letters is the same name unquoted (none of these
 * is a keyword), and only code is matched below, where a quoted identifier is a segment of its own.
 */
function unquotedNames(sql: string): string {
  if (!MAY_QUOTE_NAME.test(sql)) return sql;
  return mapSegments(sql, (kind, text) => (kind === 'identifier' && QUOTED_NAME.test(text) ? text.slice(1, -1) : text));
}

export function referencedSystemViews(sql: string): Set<SystemViewName> {
  const found = new Set<SystemViewName>();
  mapCode(unquotedNames(sql), (code) => {
    for (const m of code.matchAll(REFERENCE)) found.add(m[2]!.toLowerCase() as SystemViewName);
    return code;
  });
  return found;
}

export function expandSystemViews(written: string, tables: ReadonlyMap<SystemViewName, SystemTable>): string {
  const sql = unquotedNames(written);
  // The views read as FROM items under their own name (given `AS <view>` below): only their columns may be named
  // `fdl.<view>.<column>`; any other such name is left for DuckDB to refuse, as PostgreSQL refuses it.
  const underOwnName = new Set<string>();
  mapCode(sql, (code) => {
    for (const m of code.matchAll(REFERENCE)) {
      const end = m.index! + m[0].length;
      COLUMN_OF.lastIndex = end;
      NOT_ALIAS.lastIndex = end;
      if (!COLUMN_OF.test(code) && NOT_ALIAS.test(code)) underOwnName.add(m[2]!.toLowerCase());
    }
    return code;
  });
  return mapCode(sql, (code) =>
    code.replace(REFERENCE, (whole: string, db: string | undefined, name: string, offset: number, all: string) => {
      const view = name.toLowerCase() as SystemViewName;
      if (whole.trimStart().startsWith('.') || db !== undefined)
        throw new SqlError(
          SQLSTATE.featureNotSupported,
          `fdl.${view} named with a database is not supported: the gateway's views are named without one`,
          undefined,
          `Write fdl.${view}: it answers for the session's repository and version (connect to database NAME@REF or NAME~REF to choose the version).`,
        );
      const table = tables.get(view);
      if (!table) return whole;
      // `fdl.versions.id` (SQLAlchemy qualifies every column so): the column of the FROM item named `versions` below.
      COLUMN_OF.lastIndex = offset + whole.length;
      if (COLUMN_OF.test(all)) return underOwnName.has(view) ? view : whole;
      // Read what follows in place (sticky): slicing the rest for every reference would be quadratic.
      NOT_ALIAS.lastIndex = offset + whole.length;
      const alias = NOT_ALIAS.test(all) ? ` AS ${view}` : '';
      return `(${valuesSql(table)})${alias}`;
    }),
  );
}

function literal(v: string | number | boolean | null, type: string): string {
  if (v === null) return `NULL::${type}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `${v}::${type}`;
  return `${quoteLiteral(v)}::${type}`;
}

function valuesSql(t: SystemTable): string {
  const names = t.columns.map(([n]) => `"${n}"`).join(', ');
  if (t.rows.length === 0) {
    return `SELECT ${t.columns.map(([n, ty]) => `NULL::${ty} AS "${n}"`).join(', ')} WHERE false`;
  }
  const rows = t.rows.map((r) => `(${r.map((v, i) => literal(v, t.columns[i]![1])).join(', ')})`).join(', ');
  return `SELECT * FROM (VALUES ${rows}) AS v(${names})`;
}
