/**
 * The TCP listener: accepts sockets, enforces the connection limits, and keeps the registry of
 * (pid, secret) pairs that CancelRequest messages are checked against. Sockets still authenticating
 * and logged-in sessions have separate pools, so silent pre-auth sockets never take a session slot.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { SqlError, SQLSTATE } from '../errors.js';
import * as be from './backend.js';
import { Connection, newSecret, type ConnectionContext, type ConnectionInfo } from './connection.js';
import { InputBudget } from './connection-context.js';
import { parseProxyHeader, type ProxiedAddress } from './proxy-protocol.js';
import { Writer } from './writer.js';
import type { MemoryHolder } from '../engine/memory-watchdog.js';

/** After suspended results were ended for the temp ceiling: how long DuckDB gets to delete their files before running statements are stopped. */
const SPARE_AFTER_ENDING_MS = 250;
/** The longest running statements are spared in one episode over the ceiling, however many results are ended. */
const MAX_SPARE_MS = 1000;

export interface ServerOptions {
  host: string;
  port: number;
  /** Logged-in sessions. */
  maxConnections: number;
  /** Logged-in sessions of one user (default: maxConnections). */
  maxConnectionsPerUser?: number;
  /** Users refused until a time (epoch ms): GatewayConfig.heldOff. */
  heldOff?: ReadonlyMap<string, number>;
  /** Sockets not yet authenticated; when full, the longest waiting one of the busiest source address is closed for a new one. */
  maxAuthenticating: number;
  /** Sockets not yet authenticated from one source address; past it, that address's longest waiting one is closed. */
  maxAuthenticatingPerAddress?: number;
  /** Bytes of large incomplete messages all connections together may hold (default 256 MiB). */
  maxPendingMessageBytes?: number;
  /** Expect a PROXY v1/v2 header first on every connection (behind HAProxy); refuse without one. */
  proxyProtocol?: boolean;
}

/** What the service layer counts (metrics); every hook is optional and must not throw. */
export interface ServerObserver {
  opened?(): void;
  closed?(): void;
  refused?(reason: 'too_many_connections' | 'draining' | 'proxy_header' | 'held_off'): void;
}

export type ServerContext = Omit<
  ConnectionContext,
  'register' | 'unregister' | 'cancel' | 'claimSessionSlot' | 'inputBudget'
>;

export class WireServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  /** Connections still authenticating, oldest first (a Set keeps insertion order). */
  private readonly authenticating = new Set<Connection>();
  /** The same connections by source address, oldest first: a flood from one address evicts only its own. */
  private readonly authenticatingFrom = new Map<string, Set<Connection>>();
  private readonly sessionSlots = new Set<Connection>();
  /** Session slots taken per user name. */
  private readonly slotsOf = new Map<string, number>();
  private readonly userOf = new Map<Connection, string>();
  private readonly byPid = new Map<number, { conn: Connection; secret: number }>();
  private nextPid = 1000 + Math.floor(Math.random() * 1000);
  private readonly full: ConnectionContext;
  private draining = false;
  /** Sockets accepted with --proxy-protocol whose header has not arrived yet. */
  private awaitingHeader = 0;

  constructor(
    private readonly opts: ServerOptions,
    ctx: ServerContext,
    private readonly observer: ServerObserver = {},
  ) {
    this.full = {
      ...ctx,
      inputBudget: new InputBudget(opts.maxPendingMessageBytes ?? 256 * 1024 * 1024),
      register: (conn) => {
        const pid = this.nextPid++;
        const secret = newSecret();
        this.byPid.set(pid, { conn, secret });
        return { pid, secret };
      },
      unregister: (pid) => this.byPid.delete(pid),
      claimSessionSlot: (conn, user) => {
        const full = () => new SqlError(SQLSTATE.tooManyConnections, 'sorry, too many clients already');
        if (!this.leaveAuthenticating(conn)) throw full(); // evicted or closed meanwhile
        if (this.sessionSlots.size >= this.opts.maxConnections) {
          this.observer.refused?.('too_many_connections');
          throw full();
        }
        const heldUntil = this.opts.heldOff?.get(user);
        if (heldUntil !== undefined && heldUntil > Date.now()) {
          this.observer.refused?.('held_off');
          throw new SqlError(
            SQLSTATE.insufficientResources,
            `sessions of user "${user}" are refused until ${new Date(heldUntil).toISOString()}: a statement of theirs was stopped for memory just before the server process ended`,
            undefined,
            'The statement built more in memory than the gateway allows (docs/security.md › Known limits); try again later with a smaller one.',
          );
        }
        // One user (one leaked password, one runaway pool) cannot take every slot from the others.
        const perUser = this.maxConnectionsPerUser;
        if ((this.slotsOf.get(user) ?? 0) >= perUser) {
          this.observer.refused?.('too_many_connections');
          throw new SqlError(
            SQLSTATE.tooManyConnections,
            `too many connections for user "${user}": the per-user limit (maxConnectionsPerUser) is ${perUser}`,
          );
        }
        this.sessionSlots.add(conn);
        this.userOf.set(conn, user);
        this.slotsOf.set(user, (this.slotsOf.get(user) ?? 0) + 1);
      },
      cancel: (pid, secret) => {
        const entry = this.byPid.get(pid);
        if (!entry) return;
        const a = Buffer.alloc(4);
        const b = Buffer.alloc(4);
        a.writeInt32BE(secret);
        b.writeInt32BE(entry.secret);
        if (timingSafeEqual(a, b)) entry.conn.cancel();
      },
    };
    this.server = net.createServer((socket) => {
      if (this.draining) {
        this.refuse(socket, 'draining', SQLSTATE.cannotConnectNow, 'the database system is shutting down');
        return;
      }
      if (this.opts.proxyProtocol) this.readProxyHeader(socket);
      else this.accept(socket, { address: socket.remoteAddress ?? null, port: socket.remotePort ?? null }, null);
    });
  }

  private get maxConnectionsPerUser(): number {
    return this.opts.maxConnectionsPerUser ?? this.opts.maxConnections;
  }

  private refuse(
    socket: net.Socket,
    reason: 'too_many_connections' | 'draining' | 'proxy_header',
    code: string,
    message: string,
  ): void {
    this.observer.refused?.(reason);
    const w = new Writer(256);
    be.errorResponse(w, { severity: 'FATAL', code, message });
    socket.on('error', () => undefined);
    socket.end(w.flush());
  }

  /** Remove `conn` from the pre-auth pools; false if it was in none (evicted or closed meanwhile). */
  private leaveAuthenticating(conn: Connection): boolean {
    if (!this.authenticating.delete(conn)) return false;
    const source = conn.client.address ?? '';
    const mine = this.authenticatingFrom.get(source);
    mine?.delete(conn);
    if (mine?.size === 0) this.authenticatingFrom.delete(source);
    return true;
  }

  /**
   * Room for one more unauthenticated socket from `source`: a source at its own cap loses its
   * longest waiting socket; with the whole pool full, the source holding most loses its longest
   * waiting one. Clients of other addresses in the middle of a login are never the ones closed.
   */
  private makeRoomFor(source: string): void {
    const perAddress =
      this.opts.maxAuthenticatingPerAddress ?? Math.max(1, Math.floor(this.opts.maxAuthenticating / 2));
    let from = this.authenticatingFrom.get(source);
    if (!from || from.size < perAddress) {
      if (this.authenticating.size < this.opts.maxAuthenticating) return;
      for (const set of this.authenticatingFrom.values()) if (!from || set.size > from.size) from = set;
    }
    const oldest = from!.values().next().value!;
    this.leaveAuthenticating(oldest);
    oldest.evict();
  }

  private accept(socket: net.Socket, client: ProxiedAddress, rest: Buffer | null): void {
    const source = client.address ?? '';
    this.makeRoomFor(source);
    const conn = new Connection(socket, this.full, client);
    this.connections.add(conn);
    this.authenticating.add(conn);
    const from = this.authenticatingFrom.get(source);
    if (from) from.add(conn);
    else this.authenticatingFrom.set(source, new Set([conn]));
    this.observer.opened?.();
    socket.on('close', () => {
      this.leaveAuthenticating(conn);
      this.sessionSlots.delete(conn);
      const user = this.userOf.get(conn);
      if (user !== undefined) {
        this.userOf.delete(conn);
        const n = this.slotsOf.get(user)! - 1;
        if (n > 0) this.slotsOf.set(user, n);
        else this.slotsOf.delete(user);
      }
      if (this.connections.delete(conn)) this.observer.closed?.();
    });
    if (rest && rest.length > 0) conn.push(rest);
  }

  /** The balancer's header comes before any PostgreSQL byte; the connection starts after it. */
  private readProxyHeader(socket: net.Socket): void {
    // Sockets still owing their header are bounded like those still authenticating.
    if (this.awaitingHeader >= this.opts.maxAuthenticating) {
      this.refuse(
        socket,
        'proxy_header',
        SQLSTATE.tooManyConnections,
        'too many connections are waiting to send their PROXY header',
      );
      return;
    }
    this.awaitingHeader++;
    let buf: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => fail('no PROXY protocol header received in time'), this.full.startupTimeoutMs);
    const fail = (message: string) => {
      cleanup();
      this.refuse(socket, 'proxy_header', SQLSTATE.protocolViolation, message);
    };
    let pending = true;
    const cleanup = () => {
      if (pending) this.awaitingHeader--;
      pending = false;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
    };
    const onClose = () => cleanup();
    const onData = (d: Buffer) => {
      buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
      const r = parseProxyHeader(buf);
      if (r.kind === 'incomplete') return;
      if (r.kind === 'error') return fail(r.message);
      cleanup();
      // A LOCAL header (the balancer's own health check) has no client: the peer is the balancer.
      const client = r.client.address
        ? r.client
        : { address: socket.remoteAddress ?? null, port: socket.remotePort ?? null };
      socket.pause();
      this.accept(socket, client, buf.subarray(r.consumed));
      socket.resume();
    };
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.on('error', () => undefined);
  }

  /** Settings that a reload may change for sessions that start afterwards. */
  reconfigure(
    patch: Partial<Pick<ConnectionContext, 'limits' | 'authFor'>> & {
      maxConnections?: number;
      maxConnectionsPerUser?: number;
    },
  ): void {
    const { maxConnections, maxConnectionsPerUser, ...ctx } = patch;
    if (maxConnections !== undefined) this.opts.maxConnections = maxConnections;
    this.opts.maxConnectionsPerUser = maxConnectionsPerUser;
    Object.assign(this.full, ctx);
  }

  /** End the sessions of users `gone` picks (a reload removed them): at once if idle, else after their statement. */
  endSessions(gone: (user: string) => boolean, why: (user: string) => SqlError): void {
    for (const c of this.connections) {
      const user = c.info()?.user;
      if (user !== undefined && gone(user)) c.terminate(why(user));
    }
  }

  /**
   * The engine's temp directory passed its ceiling: every statement that has run for `graceMs` or
   * more stops with 53100. Short statements of other sessions (SELECT 1) are spared; a spilling one
   * is caught at the latest one grace period after it started.
   */
  stopForTempCeiling(limit: string, graceMs: number): void {
    const now = performance.now();
    this.overSince ??= now;
    // Idle sessions' suspended results (a cursor over a spilled sort) go first: their holders are
    // not reading, and their temp would otherwise stop everyone else's statements.
    for (const c of this.connections) {
      const ending = c.endSuspended(
        new SqlError(
          SQLSTATE.diskFull,
          `temporary files exceed max_temp_directory_size (${limit}): this suspended result was ended to free its temporary files`,
          undefined,
          'Read results with temporary spill (large sorts) in one go, or run the query again.',
        ),
      );
      if (!ending) continue;
      this.endingSuspended++;
      void ending.finally(() => {
        this.endingSuspended--;
        this.sparedUntil = performance.now() + SPARE_AFTER_ENDING_MS;
      });
    }
    // Running statements are spared while that temp is freed; still over afterwards, they stop. The
    // spare is bounded per episode over the limit: cursors opened again and again must not keep a
    // spilling statement spared.
    const sparing = this.endingSuspended > 0 || now < this.sparedUntil;
    if (sparing && now - this.overSince < MAX_SPARE_MS) return;
    const startedBefore = now - graceMs;
    for (const c of this.connections) c.stopForTempCeiling(limit, startedBefore);
  }

  /** The running statements and idle sessions' suspended results, for the memory watchdog to pick what to stop (engine/memory-watchdog.ts). */
  memoryHolders(): MemoryHolder[] {
    return [...this.connections].flatMap((c) => c.memoryHolder() ?? []);
  }

  /** The temp directory is within its ceiling again: the next time over is a new episode. */
  tempCeilingHeld(): void {
    this.overSince = null;
  }

  /** Suspended results being ended for the temp ceiling now, and until when running statements are spared. */
  private endingSuspended = 0;
  private sparedUntil = 0;
  /** When the temp directory went over its ceiling (null: within it). */
  private overSince: number | null = null;

  /** The sessions now open (for the status page). */
  sessions(): ConnectionInfo[] {
    return [...this.connections].flatMap((c) => c.info() ?? []);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Graceful drain: refuse new connections (the listener closes, so late SYNs are refused by the
   * kernel), end idle sessions with 57P01 at once and busy ones as soon as their statement is
   * answered. After `timeoutMs`, running statements are cancelled; `graceMs` later, every session
   * still open is ended with 57P01 whether DuckDB has stopped its statement or not. Resolves true
   * once every session has released its DuckDB connection, or false when some has not `releaseMs`
   * after that: DuckDB is still running something it cannot interrupt (a constant folded while it
   * prepares), which only the end of the process stops.
   */
  async drain(timeoutMs: number, graceMs = 1000, releaseMs = 1000): Promise<boolean> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) c.drain();
    const all = () => Promise.all([...this.connections].map((c) => c.finished)).then(() => 'done' as const);
    let timer: NodeJS.Timeout | undefined;
    const after = (ms: number) => new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
    if ((await Promise.race([all(), after(timeoutMs)])) === 'timeout') {
      for (const c of this.connections) c.cancel('shutdown');
      if ((await Promise.race([all(), after(graceMs)])) === 'timeout') {
        for (const c of this.connections)
          c.endNow(
            new SqlError(
              SQLSTATE.adminShutdown,
              'terminating connection due to administrator command: the server is shutting down',
            ),
          );
      }
    }
    clearTimeout(timer);
    // Sockets are gone; their sessions may still be handing back DuckDB connections.
    const released = (await Promise.race([all(), after(releaseMs)])) === 'done';
    clearTimeout(timer);
    await closed;
    return released;
  }

  listen(): Promise<{ host: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        const a = this.server.address() as net.AddressInfo;
        resolve({ host: this.opts.host, port: a.port });
      });
    });
  }

  /** Immediate stop: close every connection; resolves once their sessions are released. */
  async close(): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const finished = [...this.connections].map((c) => c.finished);
    for (const c of this.connections) c.close();
    await Promise.all(finished);
    await closed;
  }
}

export { SqlError };
