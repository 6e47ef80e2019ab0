/**
 * Before a session exists: the StartupMessage's protocol checks
 * (TLS required, protocol options, replication refused, a user named), then the authentication
 * method's exchange until the client has proved who it is.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import * as be from './backend.js';
import { authenticator, type Authenticator } from './auth.js';
import type { ConnectionContext } from './connection-context.js';
import type { FrontendMessage } from './messages.js';
import type { Writer } from './writer.js';

/** One connection's login: the StartupMessage, then the password messages its method asks for. */
export class Login {
  private pending: { authenticator: Authenticator; params: Map<string, string> } | null = null;

  constructor(
    private readonly ctx: ConnectionContext,
    private readonly w: Writer,
  ) {}

  /** A StartupMessage: its parameters once the client is authenticated, or null while the method waits for an answer. */
  begin(
    params: Map<string, string>,
    minor: number,
    unknownOptions: string[],
    encrypted: boolean,
  ): Map<string, string> | null {
    const w = this.w;
    if (this.ctx.tls?.required && !encrypted) {
      throw new SqlError(SQLSTATE.invalidAuthorization, 'SSL is required: connect with sslmode=require (or stronger)');
    }
    if (minor > 0 || unknownOptions.length > 0) be.negotiateProtocolVersion(w, 0, unknownOptions);
    if (params.has('replication') && !/^(false|off|0|no)$/i.test(params.get('replication')!)) {
      throw new SqlError(SQLSTATE.insufficientPrivilege, 'replication connections are not supported by fdl-gateway');
    }
    const user = params.get('user');
    if (!user) throw new SqlError(SQLSTATE.invalidAuthorization, 'no PostgreSQL user name specified in startup packet');
    const { method, stored, decoyIterations } = this.ctx.authFor(user);
    const auth = authenticator(method, user, stored, decoyIterations);
    if (auth.start(w)) return params;
    this.pending = { authenticator: auth, params };
    return null;
  }

  /** A message during authentication: the StartupMessage's parameters once it completes, or null while it goes on. */
  async answer(msg: FrontendMessage): Promise<Map<string, string> | null> {
    if (msg.type !== 'Password' || !this.pending) {
      throw new SqlError(SQLSTATE.protocolViolation, `expected password response, got message type ${msg.type}`);
    }
    const done = await this.pending.authenticator.step(msg.data, this.w);
    if (!done) return null;
    const params = this.pending.params;
    this.pending = null;
    return params;
  }
}
