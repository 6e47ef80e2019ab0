/**
 * The PostgreSQL catalog emulation: a database (`fdl_pg`) shared by every connection of a DuckDB
 * instance, holding views and macros that describe *the calling connection's current database*
 * (the session's lake version), and a second one (`fdl_pg_versions`) holding each attached version's
 * relations, schemas, columns and functions (copied once per version, ./version-snapshot.ts), so
 * nothing is rebuilt when a session switches version. DuckDB refuses objects in `pg_catalog`, hence
 * the rewriter (../rewrite.ts) points `pg_catalog.X` here.
 *
 * Where sessions run, both are files attached READ_ONLY: whatever statement reaches DuckDB, it cannot
 * create, replace, insert or delete in them. They are written here (`catalogDir` given) once per gateway
 * process, by an instance of its own (engine/emulation-files.ts), in one transaction per database,
 * checkpointed; every engine's instances attach them READ_ONLY (`attach`) before they are sealed and
 * before any session connects; a version's rows are later added to a copy of `fdl_pg_versions` by the
 * repository's views builder and swapped in (versions/version-catalogs.ts). Their blocks are the
 * files': under memory pressure DuckDB drops them and reads them again, never spills them to its temp
 * directory. Without `catalogDir` (tests, benches in one process) both are writable in-memory databases.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { PG_CATALOG_RELATIONS } from './pg-data.js';
import { materialiseViews, snapshotStatements } from './version-snapshot.js';
import { functionCatalogStatements } from './functions.js';
import { procedureStatements } from './procedures.js';
import { COMPAT_DB, C, VERSIONS_DB } from './names.js';
import { catalogRelationsStatements, staticTableStatements } from './static-tables.js';
import { typeFormatsStatement } from './format-type.js';
import { catalogViewStatements } from './catalog-views.js';
import { informationSchemaStatements } from './information-schema.js';
import { sessionFreeObjects } from './session-free.js';
import { type Build, functionMacroStatements, scalarMacros, sessionMacroStatements } from './scalar-macros.js';
import { quoteIdent, quoteLiteral } from '../../quote.js';

export interface InstallOptions {
  /** Reported by version(); defaults to the package version. */
  gatewayVersion?: string;
  /** Where the emulation's files are written (compatFiles); absent: in memory, writable. */
  catalogDir?: string;
  /** Files written before (compatFiles, by another instance of this process): only attached, READ_ONLY. */
  attach?: { compat: string; versions: string };
}

/** The emulation's two files in `dir`: `fdl_pg` and the first `fdl_pg_versions` (no version's rows yet). */
export function compatFiles(dir: string): { compat: string; versions: string } {
  return { compat: join(dir, `${COMPAT_DB}.duckdb`), versions: join(dir, `${VERSIONS_DB}-0.duckdb`) };
}

/** Create `fdl_pg` and `fdl_pg_versions` once per DuckDB instance (idempotent; safe to call from every new connection). */
export async function installCompat(conn: DuckDBConnection, options: InstallOptions = {}): Promise<void> {
  const exists = await conn.runAndReadAll(`SELECT 1 FROM duckdb_databases() WHERE database_name = '${COMPAT_DB}'`);
  if (exists.currentRowCount > 0) return;
  if (options.attach) {
    try {
      await conn.run(`ATTACH ${quoteLiteral(options.attach.compat)} AS ${quoteIdent(COMPAT_DB)} (READ_ONLY)`);
      await conn.run(`ATTACH ${quoteLiteral(options.attach.versions)} AS ${quoteIdent(VERSIONS_DB)} (READ_ONLY)`);
    } catch (e) {
      for (const name of [COMPAT_DB, VERSIONS_DB])
        await conn.run(`DETACH DATABASE IF EXISTS ${quoteIdent(name)}`).catch(() => undefined);
      throw e;
    }
    return;
  }
  const duckdbVersion = String(
    (await conn.runAndReadAll('SELECT library_version FROM pragma_version()')).getRows()[0]?.[0],
  );
  const statements = compatStatements({
    gatewayVersion: options.gatewayVersion ?? '0.1.0',
    duckdbVersion,
    arch: process.arch === 'arm64' ? 'aarch64' : 'x86_64',
    startTime: new Date().toISOString(),
  });
  const files = options.catalogDir ? compatFiles(options.catalogDir) : null;
  const dbs: [string, string][] = [
    [COMPAT_DB, files?.compat ?? ':memory:'],
    [VERSIONS_DB, files?.versions ?? ':memory:'],
  ];
  for (const [name, file] of dbs)
    await conn.run(`ATTACH ${quoteLiteral(file)} AS ${quoteIdent(name)}${files ? ` (STORAGE_VERSION 'v1.4.0')` : ''}`);
  try {
    // One commit per run of statements writing the same database (a transaction writes only one):
    // a file-backed database writes its log a dozen times, not once per object.
    let writing: string | undefined;
    for (const sql of statements) {
      const target =
        sql.startsWith(`CREATE TABLE ${VERSIONS_DB}.`) || sql.startsWith(`CREATE SCHEMA ${VERSIONS_DB}.`)
          ? VERSIONS_DB
          : COMPAT_DB;
      if (target !== writing) {
        if (writing) await conn.run('COMMIT');
        await conn.run('BEGIN');
        writing = target;
      }
      await conn.run(sql);
    }
    if (writing) await conn.run('COMMIT');
    if (files)
      for (const [name, file] of dbs) {
        await conn.run(`CHECKPOINT ${quoteIdent(name)}`);
        await conn.run(`DETACH ${quoteIdent(name)}`);
        await conn.run(`ATTACH ${quoteLiteral(file)} AS ${quoteIdent(name)} (READ_ONLY)`);
      }
  } catch (e) {
    // Leave no half-built catalog behind: the next connection retries from scratch.
    await conn.run('ROLLBACK').catch(() => undefined);
    for (const [name] of dbs) await conn.run(`DETACH DATABASE IF EXISTS ${quoteIdent(name)}`).catch(() => undefined);
    throw e;
  }
}

function compatStatements(b: Build): string[] {
  const s: string[] = [
    `CREATE SCHEMA ${COMPAT_DB}.pgcat`,
    `CREATE SCHEMA ${COMPAT_DB}.infoschema`,
    `CREATE SCHEMA ${VERSIONS_DB}.pgcat`,
  ];
  s.push(...staticTableStatements());
  s.push(typeFormatsStatement());
  s.push(...functionCatalogStatements());
  s.push(...procedureStatements());
  s.push(...sessionMacroStatements());
  // ---- relations of the current database
  s.push(...snapshotStatements());
  // _rel (the version's relations) and _nsp (its schemas) are snapshot views (./version-snapshot.ts).
  s.push(...catalogViewStatements());
  s.push(...functionMacroStatements(b));
  s.push(...informationSchemaStatements());
  s.push(...systemColumnViews(s));
  s.push(...catalogRelationsStatements(createdCatalogRelations(s)));
  return dependencyOrder(materialiseViews(s));
}

/** The pg_catalog relations the statements create (`fdl_pg.pgcat.pg_…`, a view or a table). */
function createdCatalogRelations(statements: string[]): Set<string> {
  const created = new Set<string>();
  for (const sql of statements) {
    const rel = /^CREATE (?:VIEW|TABLE) fdl_pg\.pgcat\.(pg_\w+)/.exec(sql)?.[1];
    if (rel) created.add(rel);
  }
  return created;
}

/**
 * `_sys_<relation>`: each pg_catalog relation with PostgreSQL's system columns after its own. The
 * rewriter reads these only for statements naming a system column, so `SELECT *` keeps PostgreSQL's
 * column list. tableoid is the catalog's own pg_class OID; rows never change, so xmin/xmax/cmin/cmax
 * are constant and ctid numbers the rows.
 */
function systemColumnViews(statements: readonly string[]): string[] {
  const oids = new Map(PG_CATALOG_RELATIONS.filter((r) => r[2] === 'r').map((r) => [String(r[1]), Number(r[0])]));
  const out: string[] = [];
  for (const sql of statements) {
    const rel = /^CREATE (?:VIEW|TABLE) fdl_pg\.pgcat\.(pg_\w+)/.exec(sql)?.[1];
    const oid = rel ? oids.get(rel) : undefined;
    if (!rel || oid === undefined) continue;
    out.push(`CREATE VIEW ${C}_sys_${rel} AS SELECT *, CAST(${oid} AS BIGINT) AS tableoid, CAST(1 AS BIGINT) AS xmin, CAST(0 AS BIGINT) AS xmax,
      CAST(0 AS BIGINT) AS cmin, CAST(0 AS BIGINT) AS cmax, '(0,' || row_number() OVER () || ')' AS ctid FROM ${C}${rel}`);
  }
  return out;
}

/** DuckDB binds macro and view bodies at creation, so every object must follow what it references. */
function dependencyOrder(statements: string[]): string[] {
  const nameOf = (sql: string) => /^CREATE (?:MACRO|VIEW|TABLE) (fdl_pg(?:_versions)?\.\w+\.\w+)/.exec(sql)?.[1];
  const byName = new Map<string, number>();
  statements.forEach((sql, i) => {
    const n = nameOf(sql);
    if (n) byName.set(n, i);
  });
  const out: string[] = [];
  const state = new Map<number, 'busy' | 'done'>();
  const visit = (i: number) => {
    if (state.get(i) === 'done') return;
    if (state.get(i) === 'busy') throw new Error(`dependency cycle at ${nameOf(statements[i]!)}`);
    state.set(i, 'busy');
    const sql = statements[i]!;
    const self = nameOf(sql);
    for (const m of sql.matchAll(/fdl_pg(?:_versions)?\.\w+\.\w+/g)) {
      const j = byName.get(m[0]);
      if (j !== undefined && m[0] !== self) visit(j);
    }
    state.set(i, 'done');
    out.push(sql);
  };
  statements.forEach((_, i) => visit(i));
  return out;
}

/**
 * The catalog's statements as built without a gateway's own values, computed once per module load: the
 * names below all read from them, and the text thread loads this module for the rewrite (each build of the
 * statements is ≈ 0.1–0.2 s of CPU on that thread's first task).
 */
const NAMES_BUILD: Build = { gatewayVersion: '', duckdbVersion: '', arch: '', startTime: '' };
const NAMES_STATEMENTS: readonly string[] = compatStatements(NAMES_BUILD);

/** Function name → argument counts the compat catalog defines (the rewriter redirects only those calls). */
export const COMPAT_FUNCTION_ARITIES: ReadonlyMap<string, ReadonlySet<number>> = (() => {
  const m = new Map<string, Set<number>>();
  for (const [sig] of scalarMacros(NAMES_BUILD)) {
    const name = sig.slice(0, sig.indexOf('('));
    const inner = sig.slice(sig.indexOf('(') + 1, -1).trim();
    const set = m.get(name) ?? new Set<number>();
    set.add(inner === '' ? 0 : inner.split(',').length);
    m.set(name, set);
  }
  return m;
})();

/** Relations (views/tables) the compat catalog defines, by schema. */
export const COMPAT_RELATIONS: { pgCatalog: ReadonlySet<string>; informationSchema: ReadonlySet<string> } = (() => {
  const sqls = NAMES_STATEMENTS;
  const pick = (schema: string) =>
    new Set(
      sqls.flatMap((q) => {
        const m = new RegExp(`^CREATE (?:VIEW|TABLE) ${COMPAT_DB}\\.${schema}\\.(\\w+)`).exec(q);
        return m && !m[1]!.startsWith('_') ? [m[1]!] : [];
      }),
    );
  return { pgCatalog: pick('pgcat'), informationSchema: pick('infoschema') };
})();

/** pg_catalog tables that have a `_sys_` twin with system columns (see systemColumnViews). */
export const SYSTEM_COLUMN_RELATIONS: ReadonlySet<string> = new Set(
  NAMES_STATEMENTS.flatMap((q) => {
    const m = /^CREATE VIEW fdl_pg\.pgcat\._sys_(\w+)/.exec(q);
    return m ? [m[1]!] : [];
  }),
);

/**
 * Whether the catalog's view, table or macro `schema.name` (in COMPAT_DB) answers the same for every
 * session reading the same attached version as the same user with the same settings (./session-free.ts).
 */
export const isSessionFreeCatalogObject: (schema: string, name: string) => boolean =
  sessionFreeObjects(NAMES_STATEMENTS);
