/**
 * Attach one verified version to DuckDB: its frozen catalog as a hidden metadata database, one
 * view per table in a database named `repo@version`, dataset.json descriptions as comments.
 * Local repositories are read in place; remote ones fetch a table's files when a query first
 * touches the table (its view is a placeholder until then).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Attached } from '../cache/attached-versions.js';
import { attachCatalog, materializeTable, openCatalog, type LakeCatalog, type LakeTable } from '../lake/index.js';
import { lit, qi } from '../lake/sql.js';
import type { Repository } from '../resolver/repository.js';
import { relationInfoStatement } from '../sql/compat/index.js';

export interface AttachedVersion extends Attached {
  readonly versionId: string;
  /** Make the named tables readable (remote repositories download a table's files on first use). */
  ensureTables(tables: { schema: string; name: string }[]): Promise<void>;
  hasPendingTables(): boolean;
  /** Re-checks the version when due (see attachVersion). */
  revalidate(): Promise<void>;
  /** Whether the version has this table (names lower-cased). */
  hasTable(schema: string, table: string): boolean;
  /** Whether the version defines a macro of this name (lower-cased). */
  definesFunction(name: string): boolean;
  readonly catalogInfoSql: string;
  readonly dataset: unknown;
}

/** Local files are re-checked (stat; re-hashed when changed) at most this often while attached. */
const LOCAL_RECHECK_MS = 1000;

/**
 * Opens (verifies) `versionId` of `repo` and attaches it as `dbName`, its catalog as `metaName`.
 * While attached, `revalidate` (called before anything runs against the version) re-checks it once
 * `recheckMs` has passed: an expired.json that appeared refuses it, a local file or catalog changed
 * on disk is re-hashed.
 */
export async function attachVersion(engine: DuckDBInstance, repo: Repository, versionId: string, dbName: string, metaName: string, recheckMs: number): Promise<AttachedVersion> {
  const version = await repo.openVersion(versionId);
  const conn = await engine.connect();
  try {
    const catalog = await openCatalog(conn, version.catalogFile, metaName);
    const remote = !repo.store.localPath;
    const pins: { release(): void }[] = [];
    const locate = (rel: string) => version.locate(rel);
    // Local files are read in place: every byte is verified before any view can read it.
    const allFiles = catalog.tables.flatMap((t) => t.files);
    let checkedAt = Date.now();
    let filesCheckedAt = checkedAt;
    let rechecking: Promise<void> | null = null;
    const due = () => Date.now() - checkedAt >= recheckMs;
    const recheck = () =>
      (rechecking ??= (async () => {
        await repo.checkNotExpired(versionId);
        if (!remote && Date.now() - filesCheckedAt >= LOCAL_RECHECK_MS) {
          // inlined rows are read from the catalog at query time: it is re-checked like the data files
          await version.recheckCatalog();
          (await version.ensureFiles(allFiles)).release();
          filesCheckedAt = Date.now();
        }
        checkedAt = Date.now();
      })().finally(() => (rechecking = null)));
    try {
      if (!remote) pins.push(await version.ensureFiles(allFiles));
      await attachCatalog(conn, catalog, dbName, locate, { deferTables: remote });
      await applyDatasetComments(conn, dbName, catalog, version.dataset);
    } catch (e) {
      await conn.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`).catch(() => undefined);
      throw e;
    }
    const ready = new Map<LakeTable, Promise<void>>();
    const ensureTables = async (wanted: { schema: string; name: string }[]) => {
      if (!remote) return;
      // A DuckLake view may read any table: fetch them all when one is named.
      const viaView = wanted.some((w) => catalog.views.some((v) => v.schema === w.schema && v.name === w.name));
      const tables = viaView ? catalog.tables : catalog.tables.filter((t) => wanted.some((w) => w.schema === t.schema && w.name === t.name));
      await Promise.all(
        tables.map((t) => {
          let p = ready.get(t);
          if (!p) {
            p = (async () => {
              pins.push(await version.ensureFiles(t.files));
              const c = await engine.connect();
              try {
                await materializeTable(c, catalog, t, dbName, locate);
              } finally {
                c.disconnectSync();
              }
            })();
            // A failed download may be retried by the next query.
            p.catch(() => ready.delete(t));
            ready.set(t, p);
          }
          return p;
        }),
      );
    };
    const catalogInfoSql = relationInfoStatement([
      ...catalog.tables.map((t) => ({
        schema: t.schema,
        name: t.name,
        kind: 'table' as const,
        sizeBytes: t.files.reduce((n, f) => n + (f.kind === 'data' ? f.size : 0), 0),
      })),
      ...catalog.views.map((v) => ({ schema: v.schema, name: v.name, kind: 'view' as const })),
    ]);
    const tableNames = new Set(catalog.tables.map((t) => `${t.schema.toLowerCase()}.${t.name.toLowerCase()}`));
    const macroNames = new Set(catalog.macros.map((m) => m.name.toLowerCase()));
    return {
      dbName,
      versionId,
      catalogInfoSql,
      hasTable: (schema, table) => tableNames.has(`${schema}.${table}`),
      definesFunction: (name) => macroNames.has(name),
      dataset: version.dataset,
      ensureTables,
      hasPendingTables: () => remote && ready.size < catalog.tables.length,
      revalidate: async () => {
        if (due()) await recheck();
      },
      async dispose() {
        const c = await engine.connect();
        try {
          await c.run(`DETACH DATABASE IF EXISTS ${qi(dbName)}`);
          await c.run(`DETACH DATABASE IF EXISTS ${qi(metaName)}`);
        } finally {
          c.disconnectSync();
          for (const p of pins) p.release();
          version.close();
        }
      },
    };
  } catch (e) {
    version.close();
    throw e;
  } finally {
    conn.disconnectSync();
  }
}

/**
 * dataset.json descriptions become table and column comments (what BI tools display) where the
 * DuckLake catalog has none of its own.
 */
async function applyDatasetComments(conn: DuckDBConnection, dbName: string, catalog: LakeCatalog, dataset: unknown): Promise<void> {
  const schemas = (dataset as { schemas?: Record<string, { tables?: Record<string, { description?: unknown; columns?: Record<string, unknown> }> }> } | null)?.schemas;
  if (!schemas || typeof schemas !== 'object') return;
  for (const t of catalog.tables) {
    const d = schemas[t.schema]?.tables?.[t.name];
    if (!d) continue;
    const target = `${qi(dbName)}.${qi(t.schema)}.${qi(t.name)}`;
    if (!t.comment && typeof d.description === 'string') await conn.run(`COMMENT ON VIEW ${target} IS ${lit(d.description)}`);
    for (const c of t.columns) {
      const text = d.columns?.[c.name];
      if (!c.comment && typeof text === 'string') await conn.run(`COMMENT ON COLUMN ${target}.${qi(c.name)} IS ${lit(text)}`);
    }
  }
}
