/**
 * The connection state machine: startup (SSLRequest, GSSENCRequest, CancelRequest, StartupMessage),
 * authentication, then the message loop. Messages are handled strictly in order; while one is
 * being executed, the socket's later bytes wait in the decoder.
 */
import type { Socket } from 'node:net';
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomBytes, randomInt } from 'node:crypto';
import { SqlError, SQLSTATE } from '../errors.js';
import { degraded, firstLine } from '../degraded.js';
import * as be from './backend.js';
import { FrontendDecoder } from './frontend.js';
import { spent, stageClock } from '../stages.js';
import type { FrontendMessage, StartupPacket } from './messages.js';
import type { Session } from './session.js';
import { toNotice } from './error-notice.js';
import { announceSession, openSessionInTurn, statementLog } from './session-open.js';
import type { ConnectionContext, ConnectionInfo, ConnectionLog } from './connection-context.js';
import { startupTarget } from '../session/startup.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';
import { EngineInternalError, engineRestartNotice } from '../engine/engine-failure.js';
import { Login } from './login.js';
import type { MemoryHolder } from '../engine/memory-watchdog.js';
import { Transport } from './transport.js';
import { MessageFlow } from './dispatch.js';
import { InputPacing } from './input-pacing.js';
import type { ProxiedAddress } from './proxy-protocol.js';

// The contracts a connection is built from live in connection-context.ts; re-exported for the server.
export type { ConnectionContext, ConnectionInfo, ConnectionLog };

type Phase = 'startup' | 'auth' | 'ready' | 'closed';

/** Before login: the largest message, and all unprocessed input together. */
export const PRE_AUTH_BYTES = 64 * 1024;
/** Responses of pipelined messages written out (waiting for the socket) once they pass this. */
const OUTPUT_FLUSH_BYTES = 256 * 1024;

export class Connection {
  private readonly decoder: FrontendDecoder;
  /** The socket: input in, output out with backpressure, TLS (wire/transport.ts). */
  private readonly transport: Transport;
  private phase: Phase = 'startup';
  private session: Session | null = null;
  private busy = false;
  /** Messages to the session, skipped after an error in the extended protocol until Sync (wire/dispatch.ts). */
  private readonly flow = new MessageFlow();
  private startupTimer: NodeJS.Timeout | null;
  private pid = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The message loop in progress; teardown waits for it before freeing the DuckDB connection. */
  private pumping: Promise<void> = Promise.resolve();
  /** The StartupMessage's checks and the authentication exchange (wire/login.ts). */
  private readonly login: Login;
  private isClosed = false;
  /** Ending after the statement in progress (graceful drain). */
  private draining = false;
  /** Ending after the statement in progress, before any further message (the user was removed). */
  private ending: SqlError | null = null;
  private readonly startedAt = new Date();
  private identity: { user: string; database: string } | null = null;
  /** The session's repository and DuckDB connection, once connected: an engine failure names them. */
  private engine: { repo: string; conn: DuckDBConnection } | null = null;
  /** Request id of the session; statements are `<id>.<n>`. */
  readonly requestId = randomBytes(6).toString('hex');
  private readonly log: ConnectionLog;
  private markFinished!: () => void;
  /** Resolves once the connection is torn down and its DuckDB connection released. */
  readonly finished = new Promise<void>((resolve) => (this.markFinished = resolve));
  private readonly server: ProxiedAddress;
  /** Set once the client proved who it is; until then PRE_AUTH_BYTES bounds its input. */
  private authenticated = false;
  /** Pausing the socket while much input waits; the shared budget for large messages still arriving. */
  private readonly pacing: InputPacing;

  constructor(
    socket: Socket,
    private readonly ctx: ConnectionContext,
    readonly client: ProxiedAddress = { address: socket.remoteAddress ?? null, port: socket.remotePort ?? null },
  ) {
    // the address and port the client reached (none over a Unix socket): inet_server_addr/port
    this.server = { address: socket.localAddress ?? null, port: socket.localPort ?? null };
    this.log = ctx.log.child?.({ session: this.requestId }) ?? ctx.log;
    this.transport = new Transport(socket, { data: (d) => this.onData(d), gone: () => this.teardown() });
    this.login = new Login(ctx, this.transport.w);
    this.pacing = new InputPacing(ctx.inputBudget);
    // Nothing from an unauthenticated client needs more than a few KiB (a SCRAM message, a password).
    this.decoder = new FrontendDecoder(Math.min(PRE_AUTH_BYTES, ctx.maxMessageBytes));
    this.startupTimer = setTimeout(() => {
      this.fatal(new SqlError(SQLSTATE.protocolViolation, 'startup timeout: no startup message received in time'));
    }, ctx.startupTimeoutMs);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  cancel(reason: 'client' | 'shutdown' = 'client'): void {
    this.session?.cancel(reason);
  }

  /** The engine's temp directory passed its ceiling: stop this session's running statement. */
  stopForTempCeiling(limit: string, startedBefore: number): void {
    this.session?.stopForTempCeiling(limit, startedBefore);
  }

  /**
   * This session as the memory watchdog sees it (engine/memory-watchdog.ts): its running statement, or,
   * idle, its suspended results (a parked cursor keeps DuckDB's chunks: never a suspect, a holder by
   * what they hold); null when neither.
   */
  memoryHolder(): MemoryHolder | null {
    const s = this.session;
    if (!s) return null;
    const runningMs = s.statementRunningMs;
    if (runningMs !== null)
      return { heldBytes: s.heldBytes, runningMs, user: s.user, stop: (error) => s.stopForMemoryCeiling(error) };
    if (this.busy || this.phase !== 'ready' || !s.holdsSuspendedResults) return null;
    return { heldBytes: s.suspendedBytes, runningMs: 0, user: s.user, stop: (error) => void this.endSuspended(error) };
  }

  /**
   * A ceiling (the engine's temp directory, memory) was passed: if this session is idle and holds
   * suspended results, end them (freeing what they hold; their next Execute/FETCH fails with `error`).
   * Handled like a message (no other one meanwhile); resolves once done, or null when there was nothing to end.
   */
  endSuspended(error: SqlError): Promise<void> | null {
    const s = this.session;
    if (this.busy || this.phase !== 'ready' || !s?.holdsSuspendedResults) return null;
    this.busy = true;
    const ending = s
      .endSuspended(error)
      .catch((e: unknown) =>
        degraded('session_end', `ending suspended results under a ceiling failed: ${firstLine(e)}`),
      );
    // Part of the message loop: teardown waits for it before freeing the DuckDB connection, which
    // this uses (a client leaving now must not close the connection under its `select 1`).
    this.pumping = ending.then(() => {
      this.busy = false;
      if (this.phase !== 'closed') return this.pump(); // messages that came meanwhile
    });
    return ending;
  }

  /** Bytes that arrived before the connection existed (after a PROXY header). */
  push(data: Buffer): void {
    this.onData(data);
  }

  /** End the session with 57P01 as soon as it is idle: at once, or after the statement in progress. */
  drain(): void {
    this.draining = true;
    if (!this.busy)
      this.fatal(new SqlError(SQLSTATE.adminShutdown, 'terminating connection due to administrator command'));
  }

  /** End the session with `err` now, even while a statement runs (shutdown past its drain timeout). */
  endNow(err: SqlError): void {
    this.fatal(err);
  }

  /** End the session with `err` at once, or right after the statement in progress; no later message runs. */
  terminate(err: SqlError): void {
    this.ending = err;
    if (!this.busy) this.fatal(err);
  }

  info(): ConnectionInfo | null {
    const s = this.session;
    if (!s || !this.identity || this.isClosed) return null;
    return {
      pid: this.pid,
      ...this.identity,
      clientAddress: this.client.address,
      startedAt: this.startedAt,
      state: this.busy ? 'active' : s.transactionStatus === 'I' ? 'idle' : 'idle in transaction',
      applicationName: s.applicationName,
      statementMs: s.statementRunningMs,
    };
  }

  private onData(data: Buffer): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.decoder.push(data);
    try {
      if (!this.authenticated && this.decoder.pending > PRE_AUTH_BYTES) {
        throw new SqlError(
          SQLSTATE.protocolViolation,
          `more than ${PRE_AUTH_BYTES} bytes sent before authentication completed`,
        );
      }
      this.paceInput();
    } catch (e) {
      this.fatal(e);
      return;
    }
    if (!this.busy) this.pumping = this.pump();
  }

  /** Pause reading while much complete input waits (wire/input-pacing.ts); nothing to pace before login. */
  private paceInput(): void {
    // Before login PRE_AUTH_BYTES bounds input, and the frame at the head may be a startup packet or
    // a typed message (after the StartupMessage is taken, before its answer).
    if (this.phase === 'closed' || !this.authenticated) return;
    this.pacing.pace(this.decoder, this.transport.socket);
  }

  /** Handle every complete message in the decoder, one at a time. */
  private async pump(): Promise<void> {
    this.busy = true;
    try {
      while (this.phase !== 'closed' && !this.ending) {
        if (this.phase === 'startup') {
          const packet = this.decoder.nextStartup();
          if (!packet) break;
          await this.onStartup(packet);
        } else if (this.phase === 'auth') {
          const msg = this.decoder.next();
          if (!msg) break;
          await this.onAuthMessage(msg);
        } else {
          const decoding = stageClock();
          const msg = this.decoder.next();
          spent('decode', decoding);
          if (!msg) break;
          const waiting = this.onMessage(msg);
          if (waiting) await waiting;
          if (this.session?.engineSuspected && (await this.session.engineInvalidated()))
            this.ending = this.engineFailed();
          // Pipelined messages without Sync/Flush would pile up their answers here: send them and
          // wait for the socket (flush) before taking more input.
          if (this.transport.w.length >= OUTPUT_FLUSH_BYTES) await this.flush();
        }
        this.paceInput();
      }
    } catch (e) {
      this.fatal(e);
    } finally {
      this.busy = false;
      if (this.ending) this.fatal(this.ending);
      if (this.draining && this.decoder.pending === 0) {
        this.fatal(new SqlError(SQLSTATE.adminShutdown, 'terminating connection due to administrator command'));
      }
      this.armIdleInTransaction();
    }
  }

  /** A session left inside a transaction holds its version: end it after the configured idle time. */
  private armIdleInTransaction(): void {
    const s = this.session;
    if (!s || this.phase !== 'ready' || s.transactionStatus === 'I' || this.decoder.pending > 0) return;
    const ms = Number(s.settings.get('idle_in_transaction_session_timeout') ?? '0');
    if (!(ms > 0)) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.fatal(
        new SqlError(
          SQLSTATE.idleInTransactionSessionTimeout,
          'terminating connection due to idle-in-transaction timeout',
        ),
      );
    }, ms);
  }

  private async onStartup(p: StartupPacket): Promise<void> {
    switch (p.kind) {
      case 'ssl':
      case 'gssenc':
        // TLS, or 'N' and plaintext; a failed handshake ends the connection.
        if (!(await this.transport.answerEncryptionRequest(p.kind, this.decoder.pending, this.ctx.tls?.context)))
          this.teardown();
        return;
      case 'cancel':
        this.ctx.cancel(p.pid, p.secret);
        this.close();
        return;
      case 'startup':
        await this.startSession(p.params, p.minor, p.unknownOptions);
        return;
    }
  }

  private async startSession(params: Map<string, string>, minor: number, unknownOptions: string[]): Promise<void> {
    const authenticated = this.login.begin(params, minor, unknownOptions, this.transport.encrypted);
    if (authenticated) {
      await this.finishStartup(authenticated);
      return;
    }
    // Wait for the client's password messages; the startup timer keeps running until then.
    this.phase = 'auth';
    await this.flush();
  }

  private async onAuthMessage(msg: FrontendMessage): Promise<void> {
    if (msg.type === 'Terminate') {
      this.close();
      return;
    }
    const authenticated = await this.login.answer(msg);
    if (!authenticated) {
      await this.flush();
      return;
    }
    await this.finishStartup(authenticated);
  }

  private async finishStartup(params: Map<string, string>): Promise<void> {
    if (this.startupTimer) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    // A session slot is taken only now: unauthenticated sockets wait in their own, smaller pool.
    const user = params.get('user')!;
    this.ctx.claimSessionSlot(this, user);
    this.authenticated = true;
    this.decoder.maxMessageBytes = this.ctx.maxMessageBytes;
    const w = this.transport.w;
    const database = params.get('database') ?? user;
    const { repo, ref, engine } = startupTarget(
      database,
      this.ctx.versions.repositories(user),
      this.ctx.defaultRepository(),
    );

    be.authenticationOk(w);
    // A version whose open stalls or queues behind others' (versions/attach.ts' open slots) ends the login, not
    // the open: it goes on, single-flight, for the next login.
    this.startupTimer = setTimeout(() => {
      this.fatal(
        new SqlError(
          SQLSTATE.cannotConnectNow,
          `the session could not be opened within ${this.ctx.sessionOpenTimeoutMs} ms; its version may still be opening`,
          'Try again shortly.',
        ),
      );
    }, this.ctx.sessionOpenTimeoutMs);
    // Opened in the instance's memory turns: another user filling the pool makes a login wait, not fail.
    const { session, inTurn } = await openSessionInTurn(
      this.ctx,
      async () => {
        const taken = await this.ctx.connectDuckDB(engine);
        this.engine = { repo: engine, conn: taken };
        return taken;
      },
      { repo, ref, user, clientAddress: this.client.address, clientPort: this.client.port, server: this.server },
      params,
      this.transport,
      statementLog(this.ctx, this.log, this.requestId, () => this.pid),
    );
    if (this.isClosed) {
      // The client left (or was ended by the timer) while the version was being opened.
      await session.close();
      return;
    }
    this.session = session;
    const key = this.ctx.register(this);
    this.pid = key.pid;
    // The timer runs on through the announcement: it lists the databases the user may read (pg_database).
    await announceSession(session, w, database, key, inTurn);
    if (this.startupTimer) clearTimeout(this.startupTimer);
    this.startupTimer = null;
    if (this.isClosed) return;
    this.phase = 'ready';
    this.identity = { user, database };
    this.ctx.observeStartup?.(SQLSTATE.successfulCompletion);
    this.log.info({
      event: 'connect',
      user,
      database,
      repo,
      ref: ref || 'HEAD',
      version: session.version?.versionId,
      client: this.client.address,
      pid: this.pid,
    });
    await this.flush();
  }

  /** One message of the session; a promise only while it must wait (most messages are answered at once). */
  private onMessage(msg: FrontendMessage): Promise<void> | undefined {
    if (msg.type === 'Terminate') {
      this.close();
      return undefined;
    }
    return this.flow.handle(this.session!, msg, () => this.flush());
  }

  /** Write buffered messages; a promise only while the socket's backlog is full (wire/transport.ts). */
  flush(): Promise<void> | undefined {
    return this.transport.flush();
  }

  /** Close a connection still authenticating to make room for a newer one. */
  evict(): void {
    this.fatal(
      new SqlError(
        SQLSTATE.connectionRejected,
        'too many connections are authenticating; the longest waiting was closed',
      ),
    );
  }

  /**
   * DuckDB invalidated the instance this session runs on: the repository gets a new engine, and this
   * session ends (after the failing statement's error) with PostgreSQL's words after a backend crash.
   */
  private engineFailed(): SqlError {
    const { repo, conn } = this.engine!;
    this.ctx.engineFailed?.(repo, conn);
    return engineRestartNotice(repo);
  }

  /** Report an error that ends the connection (FATAL), then close. */
  private fatal(e: unknown): void {
    if (this.isClosed) return;
    let err = e instanceof SqlError ? e : fromDuckDB(e);
    if (err instanceof EngineInternalError && err.invalidated && this.engine) err = this.engineFailed();
    if (this.phase === 'startup' || this.phase === 'auth') this.ctx.observeStartup?.(err.sqlstate);
    const notice = toNotice(err, this.ctx.serverRoots?.() ?? []);
    be.errorResponse(this.transport.w, { ...notice, severity: 'FATAL' });
    this.transport.flushNow();
    if (err.sqlstate === SQLSTATE.internalError) this.log.warn({ event: 'fatal', sqlstate: err.sqlstate }); // its text may quote a client's values
    this.close();
  }

  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.transport.end();
    this.teardown();
  }

  private teardown(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.phase = 'closed';
    if (this.startupTimer) clearTimeout(this.startupTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.pacing.release();
    this.transport.destroy(); // writers waiting for the socket go on and find it closed
    if (this.pid) this.ctx.unregister(this.pid);
    const s = this.session;
    this.session = null;
    if (s) {
      // Never free a DuckDB connection under a running query: interrupt it, let the message loop
      // finish, then close (disconnecting mid-query wedges or crashes DuckDB).
      s.abort();
      void this.pumping
        .then(() => s.close())
        .catch((e: unknown) => degraded('session_end', `closing a session failed: ${firstLine(e)}`))
        .finally(() => this.markFinished());
    } else {
      // A session still opening finds the connection closed and closes itself; wait for that loop.
      void this.pumping.catch(() => undefined).finally(() => this.markFinished());
    }
  }
}

export function newSecret(): number {
  return randomInt(1, 2 ** 31 - 1);
}
