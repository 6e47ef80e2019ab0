/**
 * The SQL a version's own catalog holds — its DuckLake views and macros — judged as a client's
 * statement is (containment.ts), before the version's database is built. A session that reads such a
 * view runs its SQL, and nothing in the session's own text names what the view reads: a view planted by
 * anyone who can write the store (`read_parquet` over the data folder, another version's metadata
 * database, `current_setting`) would read past grants, hashes and signatures. A body may read the
 * version's own tables, views and macros and call what a client may call.
 *
 * One more rule than a client's, because DuckDB does work when it *creates* the view or macro, in the
 * builder, where nothing interrupts it and no statement's limits apply: it computes a table function's
 * arguments and a LIMIT/OFFSET at bind (`range(levenshtein(…))`, `LIMIT levenshtein(…)` held a thread for the
 * time of the call). So those must be constants (or, in a macro, read its parameters: computed when used).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { analyze, serializeOn } from './analysis.js';
import { admit, allowedFunctions, refuseInternalNames, type AdmissionContext } from './containment.js';
import { COMPAT_DB } from '../pg/catalog/names.js';
import type { LakeCatalog } from '../lake/model.js';
import { replaceCatalogPlaceholder } from '../lake/views.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { firstLine } from '../degraded.js';
import { MAX_INLINED_NODES } from './cte-expansion.js';

/** A plain name: what a dangling view may name that the catalog no longer has (never a path or a dotted name). */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * `catalog` without the views and macros whose bodies are refused (each overload of a macro judged), and a
 * warning for each: judged before anything is built from the catalog (its views, the pruning index).
 */
export async function admittedBodies(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  versionDb: string,
): Promise<{ catalog: LakeCatalog; warnings: string[] }> {
  const judge = catalogBodyJudge(conn, catalog, versionDb);
  const warnings: string[] = [];
  // each admitted body's parse, by view or macro: what expandedSizes counts
  const parsed = new Map<string, unknown[]>();
  const refused = async (kind: string, name: string, bodies: string[], schema: string) => {
    try {
      const trees = [];
      for (const body of bodies) trees.push(await judge(body, schema));
      parsed.set(bodyKey(schema, name), [...(parsed.get(bodyKey(schema, name)) ?? []), ...trees]);
      return false;
    } catch (e) {
      warnings.push(`${kind} ${schema}.${name} refused: ${firstLine(e)}`);
      return true;
    }
  };
  const macros = [];
  for (const m of catalog.macros) if (!(await refused('macro', m.name, m.bodies, m.schema))) macros.push(m);
  const views = [];
  for (const v of catalog.views)
    if (!(await refused('view', v.name, [replaceCatalogPlaceholder(v.sql, versionDb)], v.schema))) views.push(v);
  const expanded = expandedSizes(parsed, { ...catalog, macros, views });
  const within = (kind: string, schema: string, name: string) => {
    const size = expanded.get(bodyKey(schema, name));
    if (size === undefined || size <= MAX_INLINED_NODES) return true;
    warnings.push(
      `${kind} ${schema}.${name} refused: it binds ${Number.isFinite(size) ? size : 'endlessly many'} parse-tree nodes with the views and macros it names, more than ${MAX_INLINED_NODES}`,
    );
    return false;
  };
  return {
    catalog: {
      ...catalog,
      macros: macros.filter((m) => within('macro', m.schema, m.name)),
      views: views.filter((v) => within('view', v.schema, v.name)),
    },
    warnings,
  };
}

const bodyKey = (schema: string, name: string) => `${schema}.${name}`.toLowerCase();

/**
 * What DuckDB binds for each view and macro: the nodes of its own parse and, for every name in it of
 * another view or macro of the catalog, what that one binds — DuckDB pastes a view's and a macro's body
 * into every use, when it creates a view as when a session reads it. Sixty views each reading the one
 * before twice (`v_i = v_{i-1} UNION ALL v_{i-1}`: tiny rows, far below the catalog ceilings) bound 2^i
 * copies in the views builder, uninterruptibly, until the process ran out of memory (attacker review,
 * session 49). A cycle binds without end (Infinity). Held to the bound of a client's CTE copies.
 */
function expandedSizes(parsed: ReadonlyMap<string, unknown[]>, catalog: LakeCatalog): Map<string, number> {
  const own = new Map<string, { nodes: number; uses: string[] }>();
  const views = new Set(catalog.views.map((v) => bodyKey(v.schema, v.name)));
  const macros = new Map(catalog.macros.map((m) => [m.name.toLowerCase(), bodyKey(m.schema, m.name)]));
  for (const r of [...catalog.views, ...catalog.macros]) {
    const key = bodyKey(r.schema, r.name);
    const uses: string[] = [];
    let nodes = 0;
    for (const tree of parsed.get(key) ?? []) {
      let treeNodes = 0;
      const walk = (n: unknown): void => {
        if (Array.isArray(n)) return n.forEach(walk);
        if (!n || typeof n !== 'object') return;
        treeNodes++;
        const o = n as Parsed;
        if (o.type === 'BASE_TABLE' && typeof o.table_name === 'string') {
          const named = bodyKey(
            typeof o.schema_name === 'string' && o.schema_name ? o.schema_name : r.schema,
            o.table_name,
          );
          if (views.has(named)) uses.push(named);
        }
        const fn = (o.class === 'FUNCTION' ? o : o.type === 'TABLE_FUNCTION' ? (o.function as Parsed) : undefined)
          ?.function_name;
        if (typeof fn === 'string' && macros.has(fn.toLowerCase())) uses.push(macros.get(fn.toLowerCase())!);
        Object.values(o).forEach(walk);
      };
      walk(tree);
      // a macro's overloads: the largest is what a use may bind
      nodes = Math.max(nodes, treeNodes);
    }
    own.set(key, { nodes, uses });
  }
  const sizes = new Map<string, number>();
  const visiting = new Set<string>();
  const size = (key: string): number => {
    const known = sizes.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) return Infinity;
    visiting.add(key);
    const body = own.get(key);
    let total = body?.nodes ?? 0;
    // past the bound the sum stops: its exact size no longer matters
    for (const use of body?.uses ?? []) if (total <= MAX_INLINED_NODES) total += size(use);
    visiting.delete(key);
    sizes.set(key, total);
    return total;
  };
  for (const key of own.keys()) size(key);
  return sizes;
}

/** The judge of `catalog`'s bodies for its database `versionDb`; `conn` parses (a session connection). */
export function catalogBodyJudge(
  conn: DuckDBConnection,
  catalog: LakeCatalog,
  versionDb: string,
): (sql: string, schema: string) => Promise<unknown> {
  const db = versionDb.toLowerCase();
  const relations = new Set([...catalog.tables, ...catalog.views].map((r) => `${r.schema}.${r.name}`.toLowerCase()));
  const macros = new Set(catalog.macros.map((m) => m.name.toLowerCase()));
  let builtinRelations: Promise<Set<string>> | null = null;
  return async (sql, schema) => {
    refuseInternalNames(sql);
    // DuckDB's own views and tables (duckdb_tables, information_schema …) resolve wherever a name is not the
    // version's: such a name is never taken for a dangling one
    builtinRelations ??= conn
      .runAndReadAll(
        `SELECT lower(view_name) FROM duckdb_views() WHERE database_name IN ('system', 'temp')
         UNION SELECT lower(table_name) FROM duckdb_tables() WHERE database_name IN ('system', 'temp')`,
      )
      .then((r) => new Set(r.getRows().map((row) => String(row[0]))));
    const builtin = await builtinRelations;
    const ctx: AdmissionContext = {
      functions: await allowedFunctions(conn),
      versionDb,
      searchSchemas: [schema.toLowerCase(), 'main'],
      pinnedDbs: [],
      compatDb: COMPAT_DB,
      // A plain name the catalog no longer has makes a dangling view, as DuckLake's own (created, failing
      // when read): taken as the version's, so every other relation of the body is still judged.
      hasRelation: (d, s, t) =>
        d === db &&
        (relations.has(`${s}.${t}`) || (PLAIN_NAME.test(t) && !builtin.has(t) && s === schema.toLowerCase())),
      definesFunction: (d, name) => d === db && macros.has(name),
    };
    admit(await analyze(conn, sql), ctx);
    const tree = JSON.parse(await serializeOn(conn, sql)) as unknown;
    const work = bindTimeWork(tree);
    if (work)
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `${work} in a view or macro of the catalog is not served by fdl-gateway (DuckDB computes it when the view is created)`,
      );
    return tree;
  };
}

type Parsed = Record<string, unknown>;

/** An expression DuckDB can fold at bind: nothing in it reads a column (a macro's parameter is one). */
function foldable(e: unknown): boolean {
  if (Array.isArray(e)) return e.every(foldable);
  if (!e || typeof e !== 'object') return true;
  const o = e as Parsed;
  if (o.class === 'COLUMN_REF' || o.class === 'SUBQUERY') return false;
  return Object.values(o).every(foldable);
}

/** What DuckDB's parse holds that it computes at bind: a table function's or a LIMIT/OFFSET's non-constant arguments. */
function bindTimeWork(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const n of node) {
      const w = bindTimeWork(n);
      if (w) return w;
    }
    return null;
  }
  if (!node || typeof node !== 'object') return null;
  const o = node as Parsed;
  if (o.type === 'TABLE_FUNCTION') {
    const args = ((o.function as Parsed | undefined)?.children ?? []) as Parsed[];
    if (args.some((a) => a.class !== 'CONSTANT' && foldable(a))) return 'a table function over a computed argument';
  }
  if (typeof o.type === 'string' && o.type.startsWith('LIMIT')) {
    for (const k of ['limit', 'offset']) {
      const e = o[k] as Parsed | null | undefined;
      if (e && e.class !== 'CONSTANT' && foldable(e)) return 'a computed LIMIT or OFFSET';
    }
  }
  for (const v of Object.values(o)) {
    const w = bindTimeWork(v);
    if (w) return w;
  }
  return null;
}
