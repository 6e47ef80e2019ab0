/**
 * The TCP listener: accepts sockets, enforces the connection limit, and keeps the registry of
 * (pid, secret) pairs that CancelRequest messages are checked against.
 */
import net from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { SqlError, SQLSTATE } from '../errors.js';
import * as be from './backend.js';
import { Connection, newSecret, type ConnectionContext } from './connection.js';
import { Writer } from './writer.js';

export interface ServerOptions {
  host: string;
  port: number;
  maxConnections: number;
}

export type ServerContext = Omit<ConnectionContext, 'register' | 'unregister' | 'cancel'>;

export class WireServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
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
      if (this.connections.size >= opts.maxConnections) {
        const w = new Writer(256);
        be.errorResponse(w, { severity: 'FATAL', code: SQLSTATE.tooManyConnections, message: 'sorry, too many clients already' });
        socket.end(w.flush());
        return;
      }
      const conn = new Connection(socket, full);
      this.connections.add(conn);
      socket.on('close', () => this.connections.delete(conn));
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
