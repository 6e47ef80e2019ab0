/**
 * What a session has to tell the client besides a statement's own answer — a NOTICE or WARNING, a
 * changed reported parameter (ParameterStatus) — kept as values, so session/ never calls into the
 * protocol. Notices go before the next message the wire writes, in the order they arose; reported
 * parameters just before ReadyForQuery, once each and only where the value differs from what the client
 * was last told, as PostgreSQL 14+ reports them (`begin; set application_name = 'x'; rollback` tells nothing).
 */
import { SQLSTATE } from '../errors.js';

export type SessionMessage = { kind: 'notice'; severity: 'NOTICE' | 'WARNING'; code: string; message: string };

export class Outbox {
  private pending: SessionMessage[] = [];
  private readonly changed = new Map<string, string>();
  private readonly shown = new Map<string, string>();

  /** Whether anything waits to be sent (checked on every write: no allocation when empty). */
  get isEmpty(): boolean {
    return this.pending.length === 0;
  }

  notice(
    message: string,
    severity: 'NOTICE' | 'WARNING' = 'NOTICE',
    code: string = SQLSTATE.successfulCompletion,
  ): void {
    this.pending.push({ kind: 'notice', severity, code, message });
  }

  /** A reported parameter's new value (told at the next ReadyForQuery if it still differs then). */
  parameterStatus(name: string, value: string): void {
    this.changed.set(name, value);
  }

  /** What the client was told of a reported parameter outside the outbox (at startup). */
  told(name: string, value: string): void {
    this.shown.set(name, value);
  }

  /** The reported parameters whose value differs from what the client was last told; told now. */
  takeReports(): [string, string][] {
    if (this.changed.size === 0) return [];
    const out: [string, string][] = [];
    for (const [name, value] of this.changed) {
      if (this.shown.get(name) === value) continue;
      this.shown.set(name, value);
      out.push([name, value]);
    }
    this.changed.clear();
    return out;
  }

  /** Everything waiting, oldest first; the outbox is empty afterwards. */
  take(): SessionMessage[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}
