/**
 * One message of a ready session, handed to the Session method that answers it. A promise only
 * while the answer must wait (most messages are answered at once).
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { FrontendMessage } from './messages.js';
import type { Session } from './session.js';

export function dispatch(s: Session, msg: FrontendMessage, flush: () => Promise<void> | undefined): Promise<void> | undefined {
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
