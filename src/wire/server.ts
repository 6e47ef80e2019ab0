/**
 * The TCP listener: accepts sockets, enforces the connection limits, and keeps the registry of
 * (pid, secret) pairs that CancelRequest messages are checked against. Sockets still authenticating
 * and logged-in sessions have separate pools, so silent pre-auth sockets never take a session slot.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { SqlError } from '../errors.js';
import { Connection, newSecret, type ConnectionContext } from './connection.js';

export interface ServerOptions {
  host: string;
  port: number;
  /** Logged-in sessions. */
  maxConnections: number;
  /** Sockets not yet authenticated; when full, the longest waiting one is closed for a new one. */
  maxAuthenticating: number;
}

export type ServerContext = Omit<ConnectionContext, 'register' | 'unregister' | 'cancel' | 'claimSessionSlot'>;

export class WireServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  /** Connections still authenticating, oldest first (a Set keeps insertion order). */
  private readonly authenticating = new Set<Connection>();
  private readonly sessions = new Set<Connection>();
  private readonly byPid = new Map<number, { conn: Connection; secret: number }>();
  private nextPid = 1000 + Math.floor(Math.random() * 1000);

  constructor(
    private readonly opts: ServerOptions,
    ctx: ServerContext,
  ) {
    const full: ConnectionContext = {
      ...ctx,
      register: (conn) => {
        const pid = this.nextPid++;
        const secret = newSecret();
        this.byPid.set(pid, { conn, secret });
        return { pid, secret };
      },
      unregister: (pid) => this.byPid.delete(pid),
      claimSessionSlot: (conn) => {
        if (!this.authenticating.delete(conn)) return false; // evicted or closed meanwhile
        if (this.sessions.size >= opts.maxConnections) return false;
        this.sessions.add(conn);
        return true;
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
      if (this.authenticating.size >= opts.maxAuthenticating) {
        const oldest = this.authenticating.values().next().value!;
        this.authenticating.delete(oldest);
        oldest.evict();
      }
      const conn = new Connection(socket, full);
      this.connections.add(conn);
      this.authenticating.add(conn);
      socket.on('close', () => {
        this.connections.delete(conn);
        this.authenticating.delete(conn);
        this.sessions.delete(conn);
      });
    });
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

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const c of this.connections) c.close();
    });
  }
}

export { SqlError };
