/**
 * What may stop a session's running statement: statement_timeout, a CancelRequest from another
 * socket, the engine's temp directory or the process's memory passing its ceiling, or the client leaving. Each interrupts DuckDB; why it was interrupted is kept here as state
 * and reported as a typed error (57014, 53100, 53200 or 08006) — never recognised from a marker string. No sockets:
 * the caller gives the interrupt to call; unit-tested directly.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';

/** The client is gone: what a statement still running reports. */
export const DISCONNECTED = new SqlError(SQLSTATE.connectionFailure, 'client disconnected');

export class StatementClock {
  private running = false;
  private cancelRequested = false;
  private timedOut = false;
  /** The server's drain ran out of time: the statement stops because the server is shutting down. */
  private shuttingDown = false;
  private aborted = false;
  /** What a ceiling (temp directory 53100, memory 53200) said when passing it stopped the running statement. */
  private ceiling: SqlError | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When the running statement started (performance.now()). */
  private startedAt = 0;
  /** Work raced by bound(): told the moment the running statement must stop. */
  private readonly stopListeners = new Set<() => void>();
  /**
   * Every interruption of the session's statements, in order: DuckDB reads a stream open across one
   * as ended, so a result opened before it must fail with it (stopSince), never look complete.
   */
  private readonly stops: SqlError[] = [];

  constructor(
    /** Stops what DuckDB runs on the session's connection now. */
    private readonly interrupt: () => void,
    /** statement_timeout as the session has it now (ms, 0 = none). */
    private readonly timeoutMs: () => number,
  ) {}

  /** A statement is being analysed, prepared or run. */
  get isRunning(): boolean {
    return this.running;
  }

  /** How long the running statement has run (ms), or null between statements. */
  get runningMs(): number | null {
    return this.running ? performance.now() - this.startedAt : null;
  }

  /** The client has gone: nothing more is started. */
  get isAborted(): boolean {
    return this.aborted;
  }

  /** How many interruptions happened so far: a stream opened now remembers it (stopSince). */
  get stopCount(): number {
    return this.stops.length;
  }

  /** Why DuckDB was first interrupted after the `count`-th interruption, if it was. */
  stopSince(count: number): SqlError | undefined {
    return this.stops[count];
  }

  /** The running statement must stop (cancelled or timed out). */
  get stopRequested(): boolean {
    return this.cancelRequested || this.timedOut || this.ceiling !== null;
  }

  /**
   * CancelRequest (or `shutdown`: the drain's timeout): interrupt DuckDB if a statement is running;
   * otherwise nothing (as PostgreSQL).
   */
  cancel(reason: 'client' | 'shutdown' = 'client'): void {
    if (!this.running) return;
    this.cancelRequested = true;
    if (reason === 'shutdown') this.shuttingDown = true;
    this.interruptNow();
    this.stopped();
  }

  /**
   * The engine's temp directory passed `limit`: stop what runs now (53100) if it started before
   * `startedBefore` (performance.now(); a statement younger than that has written little yet).
   */
  stopForTempCeiling(limit: string, startedBefore = Infinity): void {
    if (!this.running || this.startedAt > startedBefore) return;
    this.stopForCeiling(
      new SqlError(
        SQLSTATE.diskFull,
        `temporary files of running statements exceed max_temp_directory_size (${limit}): statement stopped`,
      ),
    );
  }

  /** The process's memory passed its watchdog line (engine/memory-watchdog.ts): stop what runs now (53200). */
  stopForMemoryCeiling(error: SqlError): void {
    if (!this.running) return;
    this.stopForCeiling(error);
  }

  private stopForCeiling(error: SqlError): void {
    this.ceiling = error;
    this.interruptNow();
    this.stopped();
  }

  /** The client is gone: interrupt what runs and refuse to start anything else. */
  abort(): void {
    this.aborted = true;
    this.cancel();
  }

  /**
   * A statement starts: statement_timeout is armed and the cancel state starts clean. Only the
   * statement's owner (wire/session.ts) calls this, once per statement: an armed clock is refused,
   * never overwritten (its timer would fire into a later statement). Throws 08006 once the client is gone.
   */
  start(): void {
    if (this.aborted) throw DISCONNECTED;
    if (this.running) throw new SqlError(SQLSTATE.internalError, 'statement clock started twice for one statement');
    this.clearStop();
    this.running = true;
    this.startedAt = performance.now();
    const timeoutMs = this.timeoutMs();
    if (timeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.interruptNow();
        this.stopped();
      }, timeoutMs);
    }
  }

  /**
   * The statement ended: its timer and cancel state go with it, so nothing fires or is reported into
   * a later statement. Take `failure` first when it failed.
   */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.clearStop();
  }

  private clearStop(): void {
    this.cancelRequested = false;
    this.shuttingDown = false;
    this.timedOut = false;
    this.ceiling = null;
  }

  /**
   * `work`, or the running statement's interruption the moment it must stop, without waiting for
   * `work`: DuckDB's prepare cannot be interrupted, and a session's statement_timeout or cancel must
   * not wait for it. The caller owns what `work` still does afterwards.
   */
  bound<T>(work: Promise<T>): Promise<T> {
    if (this.stopRequested || this.aborted) return Promise.reject(this.interruption());
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(this.interruption());
      this.stopListeners.add(onStop);
      work.then(resolve, reject).finally(() => this.stopListeners.delete(onStop));
    });
  }

  /** Record why, then stop what DuckDB runs. */
  private interruptNow(): void {
    this.stops.push(this.interruption());
    this.interrupt();
  }

  private stopped(): void {
    for (const l of [...this.stopListeners]) l();
    this.stopListeners.clear();
  }

  /** Why the running statement stops, as the client is told. */
  interruption(): SqlError {
    if (this.aborted) return DISCONNECTED;
    if (this.ceiling) return this.ceiling;
    if (this.shuttingDown)
      return new SqlError(
        SQLSTATE.adminShutdown,
        'terminating connection due to administrator command: the server is shutting down',
      );
    return new SqlError(
      SQLSTATE.queryCanceled,
      this.timedOut ? 'canceling statement due to statement timeout' : 'canceling statement due to user request',
    );
  }

  /**
   * The error a failed statement reports (before `stop`), its cancel state cleared. DuckDB
   * reports an interrupted query as its own error kind (mapped to 57014); say why it was interrupted.
   */
  failure(e: unknown): SqlError {
    let err = e instanceof SqlError ? e : fromDuckDB(e);
    if (!(e instanceof SqlError) && err.sqlstate === SQLSTATE.queryCanceled && this.stopRequested)
      err = this.interruption();
    this.clearStop();
    return err;
  }
}
