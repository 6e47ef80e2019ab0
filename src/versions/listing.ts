/**
 * The databases a client connects to before it knows a repository's name: `psql -l` and tools'
 * maintenance connections ask for `postgres` (then `template1`). Where no repository has that name,
 * the session reads no version: its DuckDB connection uses the instance's own empty database, so the
 * catalog describes no tables while `pg_database` lists the repositories the user may connect to by
 * name alone (one granted only at some refs or tags is not listed: `psql -l` would offer a name its
 * user cannot open), and a
 * read of a table is refused as in an empty PostgreSQL database, with a hint naming the way on.
 */
import type { VersionLease } from './lease.js';

/** What PostgreSQL clients connect to for a list of databases. */
export const LISTING_DATABASES: ReadonlySet<string> = new Set(['postgres', 'template1']);

/** DuckDB's own database of every instance, created empty (`:memory:`), which nothing writes to. */
const EMPTY_DATABASE = 'memory';

/** The lease of a listing session: no version, nothing to fetch or re-check. */
export function listingLease(database: string): VersionLease {
  return {
    repo: database,
    requested: '',
    ref: null,
    kind: 'version',
    versionId: '',
    listing: true,
    dbName: EMPTY_DATABASE,
    attachId: `listing:${database}`,
    resolvedAt: new Date(),
    ensureTables: () => Promise.resolve({ bound: () => undefined, release: () => undefined }),
    hasPendingTables: () => false,
    revalidate: () => undefined,
    unchangedAfter: () => true,
    hasTable: () => false,
    definesFunction: () => false,
    release: () => undefined,
  };
}
