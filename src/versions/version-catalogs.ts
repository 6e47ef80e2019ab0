/**
 * The attached versions' rows of the PostgreSQL catalog emulation (`fdl_pg_versions`: relations,
 * schemas, columns, functions, the materialised catalog views, each keyed by the version's database)
 * as the engine holds them: a file the sessions' instance attaches only READ_ONLY, so no statement
 * that reaches DuckDB can forge a catalog row for the repository's other sessions. A version's rows
 * are computed and written by the repository's views builder, in a copy of the file swapped in with
 * one `ATTACH OR REPLACE … (READ_ONLY)` (views-database.ts), while the version's views database is
 * still attached there: the relations' OIDs are therefore the builder's, given once when the version
 * is built and the same for every session for as long as it stays attached (RowDescription's column
 * sources read them from these rows too: analysis/column-sources.ts). Changes are serial per engine.
 */
import type { RepositoryEngine } from '../engine/engines.js';
import { forgetVersionCatalog, snapshotVersionCatalog, VERSIONS_DB } from '../pg/catalog/index.js';
import { ViewsDatabase } from './views-database.js';

const byEngine = new WeakMap<RepositoryEngine, ViewsDatabase>();

function catalogOf(engine: RepositoryEngine): ViewsDatabase {
  let db = byEngine.get(engine);
  if (!db) {
    db = ViewsDatabase.attached(engine, VERSIONS_DB, engine.catalogFile);
    byEngine.set(engine, db);
  }
  return db;
}

/**
 * Add the rows of version database `dbName`, which must be attached in the builder (during its views
 * database's build). `relationInfoSql` tells which of its views are lake tables and which lake views
 * (pg/catalog/session.ts).
 */
export async function addVersionCatalog(
  engine: RepositoryEngine,
  dbName: string,
  relationInfoSql: string,
): Promise<void> {
  await catalogOf(engine).change(async (b) => {
    await b.run(relationInfoSql);
    await snapshotVersionCatalog(b, dbName);
  });
}

/** DuckDB's own empty database, which a listing session (`postgres`: versions/listing.ts) reads. */
const LISTING_DB = 'memory';
const listed = new WeakMap<RepositoryEngine, Promise<void>>();

/**
 * The catalog rows of the empty database listing sessions read, once per engine: PostgreSQL's own
 * relations, types and functions and no table, so `'pg_class'::regclass`, `\df` and pg_dumpall's
 * pg_dump of `postgres` answer as in an empty PostgreSQL database (they found no pg_class).
 */
export function addListingCatalog(engine: RepositoryEngine): Promise<void> {
  let done = listed.get(engine);
  if (!done) {
    done = catalogOf(engine).change(async (b) => {
      await b.run('SET VARIABLE pg_relations = NULL');
      await snapshotVersionCatalog(b, LISTING_DB);
    });
    // tried again by the next listing session if it failed
    done.catch(() => listed.delete(engine));
    listed.set(engine, done);
  }
  return done;
}

/** Remove the rows of version database `dbName` (once it is detached). */
export async function forgetVersionRows(engine: RepositoryEngine, dbName: string): Promise<void> {
  await catalogOf(engine).change((b) => forgetVersionCatalog(b, dbName));
}
