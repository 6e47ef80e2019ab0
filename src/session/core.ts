/**
 * A session below the wire: its settings, the version it follows, its transaction, the statement
 * clock, planning with its statement cache, the result-cache policy and the audit line — and what it
 * has to tell the client besides a statement's answer (outbox.ts). The wire owns the protocol objects
 * and the result streams, asks this for values, and is never called back from here.
 */
import { START_CLOCK, STOP_CLOCK } from '../engine/transaction-clock.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SystemTable } from '../text/system-views.js';
import type { VersionLease, VersionSource } from '../versions/lease.js';
import { StatementAudit, type AuditSink } from './audit.js';
import { Outbox } from './outbox.js';
import { ResultCachePolicy, type SessionResults } from './result-cache-policy.js';
import { SessionVersion } from './session-version.js';
import { SetShow } from './set-show.js';
import { SessionSettings, type SettingDefaults } from './settings.js';
import { StatementClock } from './statement-clock.js';
import { StatementPreparer, type PreparerHost } from './statement-preparer.js';
import { Transaction } from './transaction.js';
import { SQLSTATE } from '../errors.js';
import { DEFAULT_MAX_PREPARED_HANDLES, handleBudget } from './handle-budget.js';
import { callRunningOn } from '../engine/engine-calls.js';
import type { NamedLimits } from './named-limits.js';
import type { HandleBudget } from './plan.js';

export class SessionCore implements PreparerHost {
  readonly settings: SessionSettings;
  /** Which version the session reads, following a moving ref. */
  readonly version: SessionVersion;
  /** SET / SHOW / RESET. */
  readonly setShow: SetShow;
  /** Transaction and savepoint state. */
  readonly tx = new Transaction();
  /** statement_timeout, CancelRequest, the temp ceiling, the client leaving. */
  readonly clock: StatementClock;
  /** Planning, with the statement cache by text. */
  readonly preparer: StatementPreparer;
  /** Which runs the result cache answers or records. */
  readonly cachePolicy: ResultCachePolicy;
  /** One line per statement. */
  readonly audit: StatementAudit;
  /** NOTICEs and ParameterStatus for the client, sent by the wire before its next message. */
  readonly outbox = new Outbox();
  readonly cachesResults: boolean;
  /** The user's budget of live DuckDB statements, across their sessions (handle-budget.ts). */
  readonly handles: HandleBudget;
  /** Counts statements (simple-query parts; Parse/Bind/Execute up to a completed Execute) so the ref is judged and versions re-checked once per statement. */
  statementSeq = 0;
  /** A transaction's clock is open (openClock). */
  private clockOpen = false;
  /** The client's address (the real one behind a PROXY-protocol balancer), for fdl.session and pg_stat_activity. */
  clientAddress: string | null = null;

  constructor(
    readonly conn: DuckDBConnection,
    readonly versions: VersionSource,
    readonly repo: string,
    requestedRef: string,
    readonly user: string,
    limits: SettingDefaults & Pick<NamedLimits, 'maxPreparedHandles'>,
    results: SessionResults | null,
    auditSink: AuditSink,
  ) {
    this.settings = new SessionSettings(conn, user, limits, (name, value) => this.outbox.parameterStatus(name, value));
    this.version = new SessionVersion(
      conn,
      versions,
      repo,
      user,
      requestedRef,
      this.settings,
      () => this.preparer.cache.clear(),
      (work) => this.clock.bound(work),
    );
    this.setShow = new SetShow(this.settings, this.version.follower, repo);
    this.clock = new StatementClock(
      () => conn.interrupt(),
      () => Number(this.settings.get('statement_timeout') ?? '0'),
    );
    this.cachePolicy = new ResultCachePolicy(results, user, () => versions.generation?.() ?? 0);
    this.cachesResults = results !== null;
    this.handles = handleBudget(user, limits.maxPreparedHandles ?? DEFAULT_MAX_PREPARED_HANDLES, () =>
      callRunningOn(conn),
    );
    this.preparer = new StatementPreparer(this);
    this.audit = new StatementAudit(auditSink, () => ({
      user: this.user,
      database: this.repo,
      ref: this.version.follower.ref,
      version: this.lease()?.versionId,
    }));
  }

  /** The version the session reads now. */
  lease(): VersionLease | null {
    return this.version.lease;
  }

  /**
   * Branches move: re-resolve at the start of every transaction (each autocommit statement is one).
   * undefined, without a promise, when the session certainly stays on its version (the usual case).
   */
  refreshVersion(): Promise<void> | undefined {
    if (this.versionStaysPut()) return undefined;
    return this.version.refresh(this.statementSeq, this.tx.inBlock).then((moved) => {
      if (moved) this.outbox.notice(moved, 'NOTICE', SQLSTATE.warning);
    });
  }

  /**
   * A transaction's clock: from `open` until `close`, now() and current_timestamp read the time it opened
   * (engine/transaction-clock.ts), as PostgreSQL's read the transaction's start.
   */
  async openClock(): Promise<void> {
    if (this.clockOpen) return; // BEGIN inside a simple Query of several: the Query's transaction goes on
    await this.conn.run(START_CLOCK);
    this.clockOpen = true;
  }

  async closeClock(): Promise<void> {
    if (!this.clockOpen) return;
    this.clockOpen = false;
    await this.conn.run(STOP_CLOCK);
  }

  versionStaysPut(): boolean {
    return this.version.staysPut(this.statementSeq, this.tx.inBlock);
  }

  sessionTable(): SystemTable {
    return this.version.sessionTable(this.clientAddress, this.tx.inBlock);
  }
}
