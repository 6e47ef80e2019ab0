/**
 * What a planned statement reads: other versions pinned by "NAME@REF", admission of every function
 * and relation (analysis/containment.ts) with the tables it reads of each version, and a remote
 * version's files fetched and pinned for it — at planning, or with a parameterised statement's
 * bound values before each execution.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { replaceQuotedIdentifiers } from '../text/split.js';
import { COMPAT_DB } from '../pg/catalog/index.js';
import {
  admit,
  allowedFunctions,
  relationsOf,
  type AdmissionContext,
  type ResolvedRelation,
} from '../analysis/containment.js';
import type { Analysis } from '../analysis/analysis.js';
import type { BoundParam, StatementFiles, StatementHold, VersionLease, VersionReads } from '../versions/lease.js';
import type { PlanningContext, PreparedStmt, TableReads } from './plan.js';

/**
 * Cross-version catalogs: a quoted `"NAME@REF"` names another version of a served repository.
 * Each is resolved, verified, authorized and attached like a session's own version, then the
 * name is replaced by the attached database of that exact version for this statement.
 */
export async function pinVersionCatalogs(ctx: PlanningContext, sql: string, leases: VersionLease[]): Promise<string> {
  const wanted = new Set<string>();
  const served = new Set(ctx.versions.repositories(ctx.user)); // others read as unknown catalogs
  replaceQuotedIdentifiers(sql, (name) => {
    const at = refAt(ctx.repo, name);
    if (at > 0 && served.has(name.slice(0, at))) wanted.add(name);
    return undefined;
  });
  if (wanted.size === 0) return sql;
  const map = new Map<string, string>();
  for (const name of wanted) {
    const at = refAt(ctx.repo, name);
    // Each repository has its own DuckDB instance (engine/engines.ts): another one's versions are not there.
    if (name.slice(0, at) !== ctx.repo) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `cross-repository references are not supported: "${name}"`,
        undefined,
        `Versions of the session's own repository can be read as "${ctx.repo}@REF"; connect to ${name.slice(0, at)} to read it.`,
      );
    }
    const lease = await ctx.versions.acquire(name.slice(0, at), name.slice(at + 1), ctx.user);
    leases.push(lease);
    map.set(name, lease.dbName);
  }
  return replaceQuotedIdentifiers(sql, (name) => map.get(name));
}

/**
 * Where the ref starts in a catalog name: `NAME@REF`, or `NAME~REF` (the URL spelling, session/startup.ts) of the
 * session's own repository; -1 when neither (another repository's `A~v1` stays PostgreSQL's cross-database 0A000).
 */
function refAt(repo: string, name: string): number {
  const at = name.indexOf('@');
  if (at >= 0) return at;
  return name.startsWith(`${repo}~`) ? repo.length : -1;
}

/**
 * Admission (analysis/containment.ts): every function, table function and relation of the statement
 * must be allowed for this session. Returns the tables of remote versions it reads (their files
 * are fetched before it is bound: fetchTables).
 */
export async function admitFor(
  ctx: PlanningContext,
  analysis: Analysis,
  base: PreparedStmt,
  rewritten: boolean,
): Promise<TableReads> {
  const leases = base.leases;
  const own = ctx.lease;
  if (!own) throw new SqlError(SQLSTATE.invalidCatalogName, 'no version is open');
  const all = [own, ...leases];
  const byDb = new Map(all.map((l) => [l.dbName.toLowerCase(), l] as const));
  const sets = new Map<string, ReadonlySet<string>>();
  for (const db of [...all.map((l) => l.dbName), COMPAT_DB])
    sets.set(db.toLowerCase(), await relationsOf(ctx.conn, db));
  const admission: AdmissionContext = {
    functions: await allowedFunctions(ctx.conn),
    versionDb: own.dbName,
    searchSchemas: ctx.settings.searchSchemas(),
    pinnedDbs: leases.map((l) => l.dbName),
    compatDb: COMPAT_DB,
    hasRelation: (db, schema, table) =>
      !!sets.get(db)?.has(`${schema}.${table}`) || !!byDb.get(db)?.hasTable(schema, table),
    definesFunction: (db, name) => byDb.get(db)?.definesFunction(name) ?? false,
    compatInternals: rewritten,
  };
  const read: ResolvedRelation[] = admit(analysis, admission);
  base.reads = versionReads(analysis, read, all, admission.versionDb);
  // versions in name order, so two statements never wait for each other's views
  const out: TableReads = [];
  for (const [db, lease] of [...byDb].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!lease.hasPendingTables()) continue;
    const tables = read.filter((r) => r.db === db).map((r) => ({ schema: r.schema, name: r.table }));
    if (tables.length) out.push({ lease, tables });
  }
  return out;
}

/**
 * The tables of each version a statement names; a version whose macro it calls may be read
 * anywhere ('all'). Every version of the statement has an entry (none named: nothing read).
 */
function versionReads(
  analysis: Analysis,
  read: readonly ResolvedRelation[],
  leases: readonly VersionLease[],
  ownDb: string,
): Map<string, VersionReads> {
  const out = new Map<string, VersionReads>();
  for (const l of leases) out.set(l.dbName.toLowerCase(), []);
  const own = ownDb.toLowerCase();
  for (const f of [...analysis.functions, ...analysis.tableFunctions]) {
    const db = f.catalog || own;
    if (leases.some((l) => l.dbName.toLowerCase() === db && l.definesFunction(f.name))) out.set(db, 'all');
  }
  for (const r of read) {
    const tables = out.get(r.db);
    if (tables && tables !== 'all')
      (tables as { schema: string; name: string }[]).push({ schema: r.schema, name: r.table });
  }
  return out;
}

/** Fetch and pin the files `statement` needs, each version's pruned by its filters on that version's tables. */
export async function fetchTables(
  ctx: PlanningContext,
  reads: TableReads,
  statement: StatementFiles,
): Promise<StatementHold[]> {
  const holds: StatementHold[] = [];
  try {
    for (const r of reads) holds.push(await r.lease.ensureTables(r.tables, statement));
  } catch (e) {
    for (const h of holds) h.release();
    throw e;
  }
  return holds;
}

/**
 * Before a statement over remote versions runs (every execution: a named statement, an EXECUTE, a
 * cursor, a simple query): its views made right for it and kept so until DuckDB has started it —
 * the returned function gives them back. DuckDB binds a prepared statement again at Execute once
 * another statement changed the views, so without this it would read that statement's files. No
 * view changed since it was prepared (the usual case): one lock, no fetch, no prepare. Else (or
 * with parameters, whose values choose the files): the files fetched and pinned again, and the
 * statement prepared again over them.
 */
export async function readyViews(
  ctx: PlanningContext,
  s: PreparedStmt,
  params: readonly BoundParam[],
): Promise<() => void> {
  const f = s.fetchOnBind;
  if (!f) return () => undefined;
  const holds = s.holds ?? [];
  if (!f.perValues && s.duck && holds.length && (await relockAll(holds))) return () => holds.forEach((h) => h.bound());
  for (const h of holds) h.release();
  s.holds = await fetchTables(ctx, f.reads, {
    sql: f.sql,
    searchSchemas: ctx.settings.searchSchemas(),
    notice: (m) => ctx.notice(m),
    params,
  });
  const now = s.holds;
  try {
    // No view rebuilt since the last execution's prepare: DuckDB's statement already reads these files.
    const views = now.map((h) => h.views);
    const same =
      s.duck && f.views?.length === views.length && views.every((v, i) => v !== undefined && v === f.views![i]);
    if (!same) {
      const duck = await f.prepare();
      s.duck?.destroySync();
      s.duck = duck;
      s.released = false;
      s.handles?.used(s);
      f.views = views;
    }
  } catch (e) {
    for (const h of now) h.bound();
    throw e;
  }
  return () => now.forEach((h) => h.bound());
}

/** Every hold's views locked as they were (in the holds' order, the versions' name order); else none. */
async function relockAll(holds: readonly StatementHold[]): Promise<boolean> {
  const locked: StatementHold[] = [];
  for (const h of holds) {
    if (h.relock && !(await h.relock())) {
      for (const l of locked) l.bound();
      return false;
    }
    locked.push(h);
  }
  return true;
}
