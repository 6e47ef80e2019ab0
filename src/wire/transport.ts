/**
 * A connection's socket: its input handed on as it arrives, its output written in batches with
 * backpressure, and the switch into TLS on the same TCP connection. What the bytes mean is the
 * connection's (connection.ts); this only moves them.
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { SessionOutput } from './result-stream.js';
import { Writer } from './writer.js';
import { SqlError, SQLSTATE } from '../errors.js';

/** Bytes a connection may queue in its socket before the producer waits (see flush). */
const SOCKET_BACKLOG = 1024 * 1024;
/** Row encoders stop after the row that fills this much (a chunk of ordinary rows fits whole). */
const ENCODE_BATCH_BYTES = 1024 * 1024;

/** What the socket reports: input, and its end (an error or the peer closing). */
export interface TransportEvents {
  data(bytes: Buffer): void;
  gone(): void;
}

export class Transport implements SessionOutput {
  readonly w = new Writer(64 * 1024, ENCODE_BATCH_BYTES);
  private writableWaiters: (() => void)[] = [];
  private isClosed = false;
  private inTls = false;

  constructor(
    private current: Socket,
    private readonly events: TransportEvents,
  ) {
    current.setNoDelay(true);
    this.listen(current);
  }

  /** True once the conversation went on inside TLS. */
  get encrypted(): boolean {
    return this.inTls;
  }

  /** The socket now (the TLS one after an upgrade), for pausing and resuming its input. */
  get socket(): Socket {
    return this.current;
  }

  /** True once the connection is closed: stop producing output. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes queued in the socket that the client has not taken yet. */
  get backlog(): number {
    return this.current.writableLength;
  }

  private listen(socket: Socket): void {
    socket.on('data', (d: Buffer) => this.events.data(d));
    socket.on('drain', () => this.wakeWriters());
    socket.on('error', () => this.events.gone());
    socket.on('close', () => this.events.gone());
  }

  /**
   * An SSLRequest or GSSENCRequest. Bytes the client sent after it (`pending`) would be read as if
   * encrypted (CVE-2021-23214 class): refused. With TLS configured, an SSLRequest on a plaintext
   * socket is answered 'S' and the conversation goes on inside TLS; otherwise 'N', and the client may
   * go on in plaintext. False when the TLS handshake failed (the connection ends).
   */
  async answerEncryptionRequest(kind: 'ssl' | 'gssenc', pending: number, tls?: SecureContext): Promise<boolean> {
    if (pending > 0) throw new SqlError(SQLSTATE.protocolViolation, 'received unencrypted data after SSL request');
    if (kind !== 'ssl' || !tls || this.inTls) {
      this.current.write('N');
      return true;
    }
    try {
      await this.upgradeToTls(tls);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Answer 'S' and go on inside TLS on the same TCP connection: the raw socket's listeners are
   * dropped first (its next bytes are the TLS handshake); the TLS socket is adopted at once (a failure
   * tears it down), the promise resolves once the handshake is done.
   */
  private async upgradeToTls(context: SecureContext): Promise<void> {
    this.inTls = true;
    const raw = this.current;
    raw.removeAllListeners('data');
    raw.removeAllListeners('drain');
    raw.removeAllListeners('error');
    raw.removeAllListeners('close');
    raw.write('S');
    const secure = new TLSSocket(raw, { isServer: true, secureContext: context });
    this.current = secure;
    await new Promise<void>((resolve, reject) => {
      secure.once('secure', resolve);
      secure.once('error', reject);
    });
    this.listen(secure);
  }

  /**
   * Write buffered messages; wait for 'drain' once more than SOCKET_BACKLOG bytes are queued. Not
   * the socket's own 16 KiB mark: every 256 KiB batch of rows would then wait for the socket to
   * empty, and encoding would never overlap sending. Memory stays bounded by the backlog. A promise
   * only when there is something to wait for.
   */
  flush(): Promise<void> | undefined {
    if (this.w.length === 0 || this.isClosed) return undefined;
    const out = this.w.flush();
    this.current.write(out, (err) => {
      if (!err) this.w.recycle(out);
    });
    if (this.current.writableLength > SOCKET_BACKLOG && !this.isClosed) {
      return new Promise<void>((resolve) => this.writableWaiters.push(resolve));
    }
    return undefined;
  }

  /** Write what is buffered now, whatever the backlog (a FATAL error just before closing). */
  flushNow(): void {
    if (!this.current.destroyed) this.current.write(this.w.flush());
  }

  /** Close gracefully: what is written still goes out. */
  end(): void {
    this.current.end();
  }

  /** Closed for good: writers waiting for the socket go on (and see `closed`), the socket is destroyed. */
  destroy(): void {
    this.isClosed = true;
    this.wakeWriters();
    if (!this.current.destroyed) this.current.destroy();
  }

  private wakeWriters(): void {
    const waiters = this.writableWaiters;
    this.writableWaiters = [];
    for (const r of waiters) r();
  }
}
