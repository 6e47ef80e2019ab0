/**
 * The portals holding an open DuckDB result between Executes and FETCHes. DuckDB keeps one open
 * stream per connection and any other statement ends it; a stream may also be ended by the statement
 * clock (cancel, timeout) or by the temp ceiling. A portal whose stream was ended must fail when
 * resumed, never look finished (that would be a silent short result).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { releaseWatch, type Portal } from './portal.js';
import type { StatementClock } from '../session/statement-clock.js';

export class HeldResults {
  constructor(
    private readonly clock: StatementClock,
    /** The session's portals. */
    private readonly portals: ReadonlyMap<string, Portal>,
  ) {}

  /** Another statement runs on the connection: every open stream but `except`'s ends with it. */
  interruptOpenPortals(except: Portal | null): void {
    for (const p of this.portals.values()) {
      if (p === except || p.done || !p.result) continue;
      p.stoppedBy ??= this.stopOf(p);
      p.interrupted = true;
      releaseWatch(p);
      p.result = null;
      p.ahead = [];
    }
  }

  /**
   * Why the statement clock interrupted DuckDB while this portal's stream was open (DuckDB then
   * reads the stream as ended): the first interruption since it opened, kept once its stream is gone.
   */
  private stopOf(portal: Portal): SqlError | undefined {
    if (portal.stoppedBy || portal.stopsAtOpen === undefined || !portal.result || portal.done) return portal.stoppedBy;
    return this.clock.stopSince(portal.stopsAtOpen);
  }

  /** The portals holding a DuckDB result between Executes/FETCHes (suspended: not running now). */
  suspended(): Portal[] {
    return [...this.portals.values()].filter((p) => !p.done && p.result && !p.endedBy);
  }

  /**
   * A ceiling (temp directory, memory) ends the suspended results of an idle session: they are
   * marked first, so none can ever look finished (their next Execute/FETCH fails with `error`). The
   * caller then interrupts a running prefetch, settles, and lets them go (releaseEnded).
   */
  markEnded(error: SqlError): Portal[] {
    const ended = this.suspended();
    for (const p of ended) p.endedBy = error;
    return ended;
  }

  /**
   * Let go of results ended by a ceiling (a cursor's own DuckDB statement is destroyed at
   * once rather than at CLOSE); DuckDB's stream itself ends with the next statement on the connection.
   */
  releaseEnded(ended: readonly Portal[]): void {
    for (const p of ended) {
      p.result = null;
      p.ahead = [];
      p.chunk = null;
      if (p.cursor?.declared && p.prepared.refs === 1 && !p.prepared.sharedFrom) {
        p.prepared.duck?.destroySync();
        p.prepared.duck = null;
        p.prepared.handles?.gone(p.prepared);
      }
    }
  }

  /** A portal that cannot go on: another statement ended its stream, or the temp ceiling did. */
  assertResumable(portal: Portal): void {
    if (portal.endedBy) throw portal.endedBy;
    const why = this.stopOf(portal);
    if (why) {
      throw new SqlError(
        why.sqlstate,
        why.message,
        'The query of this portal was stopped while it was open; it cannot be resumed.',
      );
    }
    if (portal.interrupted) {
      throw new SqlError(
        SQLSTATE.objectNotInPrerequisiteState,
        'portal cannot be resumed: another statement ran on this connection while it was open',
        'fdl-gateway streams one result at a time per connection; fetch the whole result first, or use another connection.',
      );
    }
  }
}
