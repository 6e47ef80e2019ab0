/**
 * What sessions get from the version service: a leased, attached version of `repo@ref`, and the
 * rows of the gateway's system views. The wire layer depends on these types, never the reverse.
 */
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { SystemTable, SystemViewName } from '../text/system-views.js';
import type { WatchPlan } from './folder-watch.js';

/** A parameter value bound to a statement. */
export interface BoundParam {
  value: DuckDBValue | null;
  type?: DuckDBType;
}

/** Prefix of the DuckDB databases holding a version's frozen DuckLake catalog: never client-visible. */
export const META_PREFIX = '__fdl_meta_';

export interface VersionLease {
  readonly repo: string;
  /** What the client asked for ('' = HEAD). */
  readonly requested: string;
  readonly ref: string | null;
  readonly kind: 'branch' | 'tag' | 'request' | 'version' | 'head';
  readonly versionId: string;
  /** A listing database (`postgres`, versions/listing.ts): no version at all, `versionId` empty. */
  readonly listing?: true;
  /** The attached DuckDB database holding this version's views. */
  readonly dbName: string;
  /**
   * This attachment of the version (a version detached and attached again gets another): the catalog
   * emulation's OIDs of its relations are the views builder's, given when it is built, so a cached catalog answer
   * (and a column's table OID, analysis/column-sources.ts) holds for one attachment.
   */
  readonly attachId: string;
  readonly resolvedAt: Date;
  /** The grants generation (VersionSource.generation) it was authorized in; absent: before any reload. */
  readonly authorizedIn?: number;
  /**
   * Make these tables of the version readable (fetching remote files) before a statement is bound.
   * With the statement, a remote version fetches only the files its filters can reach. The files
   * stay pinned until the hold is released (when the statement is disposed); the tables' views
   * stay as they are until `bound()` (call it once DuckDB has prepared the statement).
   */
  ensureTables(tables: { schema: string; name: string }[], statement?: StatementFiles): Promise<StatementHold>;
  /** True when statements must ensure their tables first (remote versions: files are fetched and pinned per statement). */
  hasPendingTables(): boolean;
  /**
   * `sql` rewritten to count the rows the catalog counts exactly without reading them, when it is
   * `SELECT count(*)… FROM t` over a local version's table (same answer, same columns); else null.
   * Remote versions do the same through ensureTables.
   */
  countingStatement?(sql: string, searchSchemas: readonly string[]): Promise<string | null>;
  /**
   * Re-checks the version once its verdict is a ref TTL old (expired.json appeared?) and, for a local
   * version, the files (and catalog) of what the statement can read (`reads`, default 'all'): each
   * stat'ed against what was verified. Called before anything runs against the version; throws the
   * same error as attaching it would. undefined when there is nothing to check now (the usual case
   * for a statement that reads no table: it then costs no promise).
   */
  revalidate(reads?: VersionReads): Promise<void> | undefined;
  /** Whether what a statement read of the version (`reads`) is still as verified before it ran (version-recheck.ts). */
  unchangedAfter(reads?: VersionReads): boolean;
  /** The folders to watch while a statement reads `reads` in place (versions/folder-watch.ts); none when not local. */
  watchPlan?(reads?: VersionReads): WatchPlan;
  /** Whether the version has this table (names lower-cased): the result cache serves only those. */
  hasTable(schema: string, table: string): boolean;
  /**
   * The columns of the version's relation `schema.name` (names folded as DuckDB folds them): a table's DuckDB type
   * by folded name, as the catalog gives them (the table's view has these); null for a view (its columns are
   * DuckDB's to bind), undefined when the version has none of that name.
   */
  relationColumns?(schema: string, name: string): ReadonlyMap<string, string> | null | undefined;
  /** Whether the version defines a macro of this name (lower-cased): it may shadow a built-in. */
  definesFunction(name: string): boolean;
  /**
   * What the version's database lets a statement's names reach (version-namespace.ts): versions with the same
   * one bind a text alike except where it reads their tables; undefined where that is not known.
   */
  readonly namespace?: string;
  release(): void;
}

/**
 * What a statement can read of a version: the tables (and views) it names, lower-cased, or 'all'
 * (it names a macro of the version, or nothing is known of it).
 */
export type VersionReads = readonly { schema: string; name: string }[] | 'all';

/**
 * A statement's claim on a version's files: pinned (never evicted) until `release`. Until
 * `bound` (or `release`), no other statement changes the views of the version, so what DuckDB
 * binds is exactly the set of files pinned here.
 */
export interface StatementHold {
  bound(): void;
  release(): void;
  /**
   * Which views of the version the statement is bound to: a number that changes whenever a view
   * is rebuilt. A statement DuckDB prepared under the same number reads the same files (no need to
   * prepare it again); undefined when the version has no per-statement views.
   */
  readonly views?: number;
  /**
   * Before the statement DuckDB prepared under this hold runs again: waits for the views' lock and
   * keeps it (until `bound()`) when no view changed since — DuckDB would otherwise bind it again
   * against another statement's views; false (lock given back) when one did: fetch and prepare again.
   * Absent: the hold has no per-statement views.
   */
  relock?(): Promise<boolean>;
}

/** The statement a fetch is for: pruning judges it with the session's search path. */
export interface StatementFiles {
  sql: string;
  searchSchemas: readonly string[];
  /** Bound parameter values ($1…), as the statement will run with them (null: SQL NULL). */
  params?: readonly BoundParam[];
  /** Progress of a fetch that takes a while (sent to the client as a NOTICE). */
  notice?: (message: string) => void;
}

/** What the session needs from the layers below: version leases for `repo@ref`. */
export interface VersionSource {
  /** Resolve, verify, authorize and attach `repo@ref` for `user`. */
  acquire(repo: string, ref: string, user: string): Promise<VersionLease>;
  /**
   * The version `ref` resolves to without reading anything, while its last resolution is within the
   * ref TTL (undefined otherwise): a session already on it need not acquire it again.
   */
  freshVersion?(repo: string, ref: string): string | undefined;
  /** Whether `ref`, as requested, can move (branches and HEAD are re-resolved per transaction). */
  isMoving(lease: VersionLease): boolean;
  /** The served repositories; with `user`, only those that user may see (the others answer as not served). */
  repositories(user?: string): string[];
  /** The databases `user` may connect to by a repository's name alone (pg_database lists these and the session's own). */
  databases(user: string): Promise<string[]>;
  /** Bumped when grants or repositories change (reload): sessions re-authorize at their next transaction. */
  generation?(): number;
  /** Rows of a gateway system view (fdl.refs, fdl.versions, fdl.dataset, fdl.cache) for this session. */
  systemTable(
    view: Exclude<SystemViewName, 'session'>,
    ctx: { repo: string; user: string; versionId: string },
  ): Promise<SystemTable>;
}
