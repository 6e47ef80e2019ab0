/**
 * What a session has to tell the client besides a statement's own answer — a NOTICE or WARNING, a
 * changed reported parameter (ParameterStatus) — kept as values in the order they arose. The wire
 * sends them before the next message it writes, so session/ never calls into the protocol.
 */
import { SQLSTATE } from '../errors.js';

export type SessionMessage =
  | { kind: 'notice'; severity: 'NOTICE' | 'WARNING'; code: string; message: string }
  | { kind: 'parameterStatus'; name: string; value: string };

export class Outbox {
  private pending: SessionMessage[] = [];

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

  parameterStatus(name: string, value: string): void {
    this.pending.push({ kind: 'parameterStatus', name, value });
  }

  /** Everything waiting, oldest first; the outbox is empty afterwards. */
  take(): SessionMessage[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}
