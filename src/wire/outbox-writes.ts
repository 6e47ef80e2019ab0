/**
 * What the session has to tell the client besides a statement's answer (session/outbox.ts): NOTICEs
 * written before anything else the session writes, in the order they arose; ParameterStatus with
 * ReadyForQuery.
 */
import * as be from './backend.js';
import type { Outbox } from '../session/outbox.js';
import type { SessionOutput } from './result-stream.js';

/** Write the outbox's messages now. */
export function deliverOutbox(outbox: Outbox, out: SessionOutput): void {
  if (outbox.isEmpty) return;
  for (const m of outbox.take()) be.noticeResponse(out.w, { severity: m.severity, code: m.code, message: m.message });
}

/** ReadyForQuery, after the reported parameters whose value changed (as PostgreSQL 14+). */
export function readyForQuery(outbox: Outbox, out: SessionOutput, status: 'I' | 'T' | 'E'): void {
  for (const [name, value] of outbox.takeReports()) be.parameterStatus(out.w, name, value);
  be.readyForQuery(out.w, status);
}

/** `out`, whose writer is handed out only after the outbox's messages are written to it. */
export function outboxFirst(outbox: Outbox, out: SessionOutput): SessionOutput {
  return {
    get w() {
      deliverOutbox(outbox, out);
      return out.w;
    },
    flush: () => out.flush(),
    get closed() {
      return out.closed;
    },
    get backlog() {
      return out.backlog;
    },
  };
}
