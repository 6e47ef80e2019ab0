/**
 * Following a moving ref: which version a session reads, re-resolved once per transaction (each
 * autocommit statement is one) when its ref can move or the grants were reloaded. Attaching a
 * version to the session's DuckDB connection is the caller's (`attach`); this module decides when
 * to resolve again and returns the move as a value for the caller to announce.
 */
import type { VersionLease, VersionSource } from '../versions/lease.js';
import { counted } from '../stages.js';

/** A version change the session should announce (and drop what it prepared against `from`). */
export interface VersionMove {
  from: string;
  to: string;
}

export class RefFollower {
  /** The version the session reads now (null before open and after close). */
  lease: VersionLease | null = null;
  /** The ref the client asked for; '' means HEAD. */
  private requested: string;
  /**
   * Statement number whose ref is settled (judged to stay, or re-resolved): at most one check and
   * one resolution per statement, as PostgreSQL takes one snapshot per statement.
   */
  private settledFor = -1;
  /** Statement number judged to need a resolution (refresh then resolves it without judging again). */
  private unsettledFor = -1;
  /** The version service's generation (reloads) the lease was authorized in. */
  private authorizedIn = 0;
  /** The lease is a snapshot the transaction block imported: the requested ref is resolved again after it. */
  private imported = false;

  constructor(
    private readonly versions: VersionSource,
    private readonly repo: string,
    private readonly user: string,
    requestedRef: string,
    /** Make `next` the connection's version (USE, search_path, catalog identity); may throw. */
    private readonly attach: (next: VersionLease) => Promise<void>,
    /** A wait raced against the running statement's end (statement_timeout, a cancel: statement-clock.ts). */
    private readonly bound: <T>(work: Promise<T>) => Promise<T> = (work) => work,
  ) {
    this.requested = normalize(requestedRef);
  }

  /** The ref as the client names it (HEAD when none was given). */
  get ref(): string {
    return this.requested === '' ? 'HEAD' : this.requested;
  }

  /** The ref before the session opens (startup parameter `fdl.ref`). */
  request(ref: string): void {
    this.requested = normalize(ref);
  }

  /** Resolve and attach the requested ref: the startup version. */
  async open(): Promise<void> {
    this.authorizedIn = this.versions.generation?.() ?? 0;
    await this.switchTo(await this.acquire(this.requested));
  }

  /**
   * A lease of `ref`, waited for only while the running statement may wait: a version whose open stalls
   * ends the statement by its timeout or a cancel (it had waited as long as the open), and the lease
   * that arrives after that is let go.
   */
  private async acquire(ref: string): Promise<VersionLease> {
    const pending = this.versions.acquire(this.repo, ref, this.user);
    try {
      return await this.bound(pending);
    } catch (e) {
      pending.then(
        (late) => late.release(),
        () => undefined,
      );
      throw e;
    }
  }

  /** SET fdl.ref: resolve the new ref and read it from now on (the caller checks it is outside a block). */
  async follow(ref: string): Promise<VersionMove | null> {
    const next = await this.acquire(normalize(ref));
    this.requested = normalize(ref);
    return this.switchTo(next);
  }

  /**
   * SET TRANSACTION SNAPSHOT: read `next` (a version the caller resolved through the user's grants)
   * until the block ends; the session's own ref is resolved again at its next statement.
   */
  async importSnapshot(next: VersionLease): Promise<void> {
    if (next.versionId === this.lease?.versionId) {
      next.release();
      return;
    }
    await this.switchTo(next);
    this.imported = true;
  }

  /**
   * At the start of a transaction (statement `statementSeq`, outside any block): resolve a moving
   * ref again, and any ref after the grants were reloaded. Returns the move, or null if the session
   * stays on its version.
   */
  async refresh(statementSeq: number, inBlock: boolean): Promise<VersionMove | null> {
    if (this.staysPut(statementSeq, inBlock)) return null;
    const generation = this.versions.generation?.() ?? 0;
    const next = await this.acquire(this.requested);
    this.authorizedIn = generation;
    this.settledFor = statementSeq;
    // Back from an imported snapshot: the session's own ref again, no move to announce.
    const quiet = this.imported;
    if (next.versionId === this.lease?.versionId) {
      next.release();
      this.imported = false;
      return null;
    }
    const move = await this.switchTo(next);
    this.imported = false;
    return quiet ? null : move;
  }

  /**
   * Whether refresh would keep the session where it is without resolving anything: inside a block,
   * a ref that cannot move, already resolved for this statement, or still resolved (within the ref
   * TTL) to the version the session reads; its expiry is re-checked by the attached version itself
   * (revalidate) on the same TTL. After a grants reload every ref is resolved (and authorized) again.
   */
  staysPut(statementSeq: number, inBlock: boolean): boolean {
    if (inBlock || !this.lease) return true;
    if (this.imported) return false;
    if (this.settledFor === statementSeq) return true;
    if (this.unsettledFor === statementSeq) return false;
    counted('ref_check');
    const stays =
      (this.versions.generation?.() ?? 0) === this.authorizedIn &&
      (!this.versions.isMoving(this.lease) ||
        this.versions.freshVersion?.(this.repo, this.requested) === this.lease.versionId);
    if (stays) this.settledFor = statementSeq;
    else this.unsettledFor = statementSeq;
    return stays;
  }

  release(): void {
    this.lease?.release();
    this.lease = null;
  }

  private async switchTo(next: VersionLease): Promise<VersionMove | null> {
    try {
      await this.attach(next);
    } catch (e) {
      next.release();
      throw e;
    }
    const old = this.lease;
    this.lease = next;
    old?.release();
    return old ? { from: old.versionId, to: next.versionId } : null;
  }
}

function normalize(ref: string): string {
  return ref === 'HEAD' ? '' : ref;
}
