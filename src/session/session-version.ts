/**
 * The version a session reads, on its DuckDB connection: the requested ref resolved and attached
 * (USE, the version's schemas on search_path, the catalog's identity), followed as it moves
 * (ref-follower.ts), re-checked before every run, and described as fdl.session's one row.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlError, SQLSTATE } from '../errors.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';
import { SYSTEM_VIEW_COLUMNS, type SystemTable } from '../text/system-views.js';
import type { VersionLease, VersionReads, VersionSource } from '../versions/lease.js';
import { watchRun, type WatchedRun } from '../versions/folder-watch.js';
import { RefFollower } from './ref-follower.js';
import { counted, spent, stageClock } from '../stages.js';
import type { SessionSettings } from './settings.js';
import { quoteIdent, quoteLiteral } from '../quote.js';

export class SessionVersion {
  readonly follower: RefFollower;
  /** What was last re-checked, for which statement: a statement's versions are re-checked once (replay, then run). */
  /** Pinned versions authorized again after a reload, with the generation (stillHolds). */
  private readonly reauthorized = new WeakMap<VersionLease, number>();
  private checked: {
    seq: number;
    pinned: readonly VersionLease[];
    reads?: ReadonlyMap<string, VersionReads>;
    lease: VersionLease | null;
  } | null = null;

  constructor(
    conn: DuckDBConnection,
    private readonly versions: VersionSource,
    private readonly repo: string,
    private readonly user: string,
    requestedRef: string,
    settings: SessionSettings,
    /** The session moved to another version: what was prepared against the old one must go. */
    moved: () => void,
    /** A wait raced against the running statement's end (statement-clock.ts). */
    bound?: <T>(work: Promise<T>) => Promise<T>,
  ) {
    this.follower = new RefFollower(
      versions,
      repo,
      user,
      requestedRef,
      async (next) => {
        try {
          await conn.run(`USE ${quoteIdent(next.dbName)}`);
          await settings.useVersion(next.dbName);
          // current_setting('fdl.ref' | 'fdl.version' | 'fdl.repository') answers as SHOW does (catalog `_setting`).
          const v = (name: string, value: string) =>
            `SET VARIABLE ${quoteIdent(`pg_${name}`)} = ${quoteLiteral(value)}`;
          // The version's relation kinds and sizes are in the catalog's tables since its attach (version-snapshot.ts).
          await conn.run(
            [v('fdl.ref', this.follower.ref), v('fdl.version', next.versionId), v('fdl.repository', repo)].join('; '),
          );
        } catch (e) {
          throw fromDuckDB(e);
        }
        moved();
      },
      bound,
    );
  }

  /** The version the session reads now (null before open and after release). */
  get lease(): VersionLease | null {
    return this.follower.lease;
  }

  /** Resolve and attach the startup version; errors here end the connection (3D000 etc.). */
  open(): Promise<void> {
    return this.follower.open();
  }

  release(): void {
    this.follower.release();
  }

  /** Whether refresh would certainly keep the session on its version, decided without waiting. */
  staysPut(statementSeq: number, inBlock: boolean): boolean {
    return this.follower.staysPut(statementSeq, inBlock);
  }

  /**
   * Branches move: re-resolve at the start of every transaction (each autocommit statement is one).
   * Returns what to tell the client when the session moved, or null. Hot paths ask staysPut first:
   * most statements need no resolution at all, and then no promise either.
   */
  async refresh(statementSeq: number, inBlock: boolean): Promise<string | null> {
    const move = await this.follower.refresh(statementSeq, inBlock);
    return move ? `fdl: ${this.repo}@${this.follower.ref} moved from version ${move.from} to ${move.to}` : null;
  }

  /**
   * Versions are re-checked (expiry, files unchanged; versions/) before a statement runs or is
   * replayed: of each, what the statement can read (`reads` by database, lower-cased; a version it
   * was not planned against: all of it). Once per statement (`statementSeq`): a result-cache miss
   * re-checked before the lookup is not re-checked again before it runs.
   */
  revalidate(
    statementSeq: number,
    pinned: readonly VersionLease[],
    reads?: ReadonlyMap<string, VersionReads>,
  ): Promise<void> | undefined {
    const c = this.checked;
    if (c && c.seq === statementSeq && c.pinned === pinned && c.reads === reads && c.lease === this.lease)
      return undefined;
    const of = (l: VersionLease) => reads?.get(l.dbName.toLowerCase()) ?? 'all';
    const started = stageClock();
    counted('revalidation');
    const lease = this.lease;
    const done = () => {
      spent('revalidation', started);
      this.checked = { seq: statementSeq, pinned, reads, lease };
    };
    const own = lease?.revalidate(of(lease));
    if (pinned.length === 0) {
      if (!own) {
        done();
        return undefined; // the usual case: no promise when nothing is due
      }
      return own.then(done, (e: unknown) => {
        spent('revalidation', started);
        throw e;
      });
    }
    return (async () => {
      await own;
      for (const l of pinned) {
        await this.stillHolds(l);
        await l.revalidate(of(l));
      }
    })().then(done, (e: unknown) => {
      spent('revalidation', started);
      throw e;
    });
  }

  /**
   * Whether every version a statement read is still as verified before it ran (the session's own and the
   * `"NAME@REF"` ones it pinned): its result may be kept in the result cache only then.
   */
  readsUnchanged(pinned: readonly VersionLease[], reads?: ReadonlyMap<string, VersionReads>): boolean {
    const of = (l: VersionLease) => reads?.get(l.dbName.toLowerCase()) ?? 'all';
    const lease = this.lease;
    return (!lease || lease.unchangedAfter(of(lease))) && pinned.every((l) => l.unchangedAfter(of(l)));
  }

  /**
   * Watch the folders on the way to the files a statement reads in place, of every version it reads
   * (versions/folder-watch.ts): set before its files are re-checked, compared once DuckDB has read its last row.
   */
  watchReads(pinned: readonly VersionLease[], reads?: ReadonlyMap<string, VersionReads>): WatchedRun | null {
    const of = (l: VersionLease) => reads?.get(l.dbName.toLowerCase()) ?? 'all';
    const lease = this.lease;
    const leases = lease ? [lease, ...pinned] : pinned;
    return watchRun(leases.map((l) => l.watchPlan?.(of(l)) ?? []));
  }

  /**
   * A `"NAME@REF"` version a prepared statement names (planned once, run many times): after a grants
   * reload its ref is authorized again (42501 when the user may no longer read it), and a moved branch
   * refuses the statement rather than answer from the version it was prepared on.
   */
  private async stillHolds(l: VersionLease): Promise<void> {
    const generation = this.versions.generation?.() ?? 0;
    const authorized = this.reauthorized.get(l) ?? l.authorizedIn ?? 0;
    const moved = this.versions.isMoving(l) && this.versions.freshVersion?.(l.repo, l.requested) !== l.versionId;
    if (authorized === generation && !moved) return;
    const now = await this.versions.acquire(l.repo, l.requested, this.user);
    now.release();
    this.reauthorized.set(l, generation);
    if (now.versionId !== l.versionId)
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `"${l.repo}@${l.requested}" has moved to another version since this statement was prepared`,
        undefined,
        'Prepare the statement again (a new Parse, or DEALLOCATE and PREPARE) to read the version it names now.',
      );
  }

  /** fdl.session: what the client asked for and what it reads now. */
  sessionTable(clientAddress: string | null, inBlock: boolean): SystemTable {
    const l = this.lease;
    const moving = l ? this.versions.isMoving(l) : false;
    return {
      columns: SYSTEM_VIEW_COLUMNS.session,
      rows: [
        [
          this.repo,
          this.follower.ref,
          l?.ref ?? null,
          l?.versionId ?? null,
          l?.resolvedAt.toISOString() ?? null,
          !moving || inBlock,
          clientAddress,
        ],
      ],
    };
  }
}
