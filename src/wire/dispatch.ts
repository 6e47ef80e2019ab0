/**
 * One message of a ready session, handed to the Session method that answers it (a promise only
 * while the answer must wait: most messages are answered at once), and the extended protocol's
 * error recovery: after an error, messages are skipped until Sync.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { FrontendMessage } from './messages.js';
import type { Session } from './session.js';

export function dispatch(
  s: Session,
  msg: FrontendMessage,
  flush: () => Promise<void> | undefined,
): Promise<void> | undefined {
  switch (msg.type) {
    case 'Query':
      return s.simpleQuery(msg.sql);
    case 'Parse':
      return s.parse(msg.name, msg.sql, msg.paramTypes);
    case 'Bind':
      s.bind(msg.portal, msg.statement, msg.paramFormats, msg.params, msg.resultFormats);
      return undefined;
    case 'Describe':
      if (msg.target === 'P') return s.describePortal(msg.name);
      s.describeStatement(msg.name);
      return undefined;
    case 'Execute':
      return s.execute(msg.portal, msg.maxRows);
    case 'Close':
      if (msg.target === 'S') s.closeStatement(msg.name);
      else s.closePortal(msg.name);
      return undefined;
    case 'Sync':
      return s.sync();
    case 'Flush':
      return flush();
    case 'Password':
      throw new SqlError(SQLSTATE.protocolViolation, 'unexpected password message');
    case 'CopyData':
    case 'CopyDone':
    case 'CopyFail':
      return undefined; // no COPY FROM is ever started; PostgreSQL ignores these outside COPY too
    case 'FunctionCall':
      throw new SqlError(SQLSTATE.featureNotSupported, 'the fastpath function call protocol is not supported');
    case 'Invalid':
      throw msg.error;
    case 'Terminate':
      return undefined; // handled by the connection
  }
}

/** A ready session's messages in order, with the extended protocol's skipping after an error. */
export class MessageFlow {
  /** After an error in the extended protocol, skip messages until Sync. */
  private skipUntilSync = false;

  /** `msg` answered by `s` (Terminate is the connection's own); a promise only while it must wait. */
  handle(s: Session, msg: FrontendMessage, flush: () => Promise<void> | undefined): Promise<void> | undefined {
    if (msg.type === 'Invalid' && msg.query) {
      // A malformed Query is answered as PostgreSQL answers it: the error, then ReadyForQuery.
      this.skipUntilSync = false;
      s.fail(msg.error);
      return s.sync();
    }
    if (this.skipUntilSync && msg.type !== 'Sync') return undefined;
    if (msg.type === 'FunctionCall') {
      // A fastpath call is answered as PostgreSQL answers one: its outcome, then ReadyForQuery
      // (an error alone left the client waiting for ever).
      s.fail(new SqlError(SQLSTATE.featureNotSupported, 'the fastpath function call protocol is not supported'));
      return s.sync();
    }
    try {
      // Query and Sync end the skipping after an error in the extended protocol.
      if (msg.type === 'Query' || msg.type === 'Sync') this.skipUntilSync = false;
      return dispatch(s, msg, flush)?.catch((e: unknown) => this.failed(s, e, flush));
    } catch (e) {
      return this.failed(s, e, flush);
    }
  }

  private failed(s: Session, e: unknown, flush: () => Promise<void> | undefined): Promise<void> | undefined {
    // The session maps DuckDB's errors itself: an interrupt says why (timeout, cancel, temp ceiling).
    s.fail(e);
    // An error in the extended protocol discards messages until Sync. PostgreSQL sends the
    // error at once: clients that pipeline Parse/Describe/Flush (postgres.js, asyncpg) wait for it.
    // A well-framed but invalid message is such an error too; only broken framing ends the connection.
    this.skipUntilSync = true;
    return flush();
  }
}
