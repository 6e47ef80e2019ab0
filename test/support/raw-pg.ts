/**
 * A raw PostgreSQL protocol client for differential tests: it keeps the exact bytes of every backend
 * message (pg-protocol's Parser decodes DataRow fields as strings, which loses binary formats), and
 * also hands out pg-protocol's parsed form. Frontend messages come from pg-protocol's `serialize`,
 * except Bind, which we build ourselves to allow per-column result format codes.
 *
 *   const c = await RawPg.connect({ port: pg.port });            // trust auth (also cleartext/md5)
 *   const r = await c.query('select 1::int4', { resultFormats: [1] });   // Parse/Bind/Describe/Execute/Sync
 *   r.rowDescription?.fields[0].dataTypeID; r.dataRows[0] (Buffer: full 'D' message incl. header)
 *   const s = await c.simple('SET TimeZone = \'Asia/Kolkata\'');  // simple Query until ReadyForQuery
 *   await c.close();
 */
import { connect as netConnect, type Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { serialize } from 'pg-protocol';
import { Parser } from 'pg-protocol/dist/parser.js';
import type { BackendMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import { orAfter } from './files.js';

export interface RawMessage {
  /** Message type byte as a character, e.g. 'D', 'T', 'C', 'E', 'Z'. */
  code: string;
  /** The complete message: type byte, int32 length, body. */
  raw: Buffer;
  /** pg-protocol's decoding (`name` e.g. 'dataRow', 'rowDescription', 'error'). */
  parsed: BackendMessage;
}

export interface ConnectOptions {
  host?: string;
  port: number;
  user?: string;
  database?: string;
  password?: string;
  /** Extra startup parameters (application_name, TimeZone, ...). */
  params?: Record<string, string>;
  /** Unix socket path instead of host:port. */
  path?: string;
}

export interface QueryOptions {
  /** Parameter values: null, text (string) or binary (Buffer) — format codes follow. */
  params?: (string | Buffer | null)[];
  /** Declared parameter OIDs for Parse (0 = unspecified). */
  paramTypes?: number[];
  /** Result format codes as sent in Bind: [] all text, [f] for all, or one per column. */
  resultFormats?: number[];
  /** Execute row limit (0 = all). */
  maxRows?: number;
}

export interface QueryResult {
  messages: RawMessage[];
  rowDescription?: RowDescriptionMessage;
  /** Raw 'D' messages in order. */
  dataRows: Buffer[];
  commandTag?: string;
  error?: { code: string; message: string; hint?: string };
}

/** Split one raw DataRow message into its column values (null for SQL NULL). */
export function splitDataRow(raw: Buffer): (Buffer | null)[] {
  const n = raw.readInt16BE(5);
  const out: (Buffer | null)[] = [];
  let p = 7;
  for (let i = 0; i < n; i++) {
    const len = raw.readInt32BE(p);
    p += 4;
    if (len < 0) out.push(null);
    else {
      out.push(raw.subarray(p, p + len));
      p += len;
    }
  }
  return out;
}

/** Bind with independent parameter and result format codes (pg-protocol's bind has one flag). */
export function buildBind(opts: {
  portal?: string;
  statement?: string;
  params?: (string | Buffer | null)[];
  resultFormats?: number[];
}): Buffer {
  const parts: Buffer[] = [];
  const cstr = (s: string) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
  const i16 = (v: number) => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return b;
  };
  const i32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return b;
  };
  parts.push(cstr(opts.portal ?? ''), cstr(opts.statement ?? ''));
  const params = opts.params ?? [];
  parts.push(i16(params.length));
  for (const p of params) parts.push(i16(Buffer.isBuffer(p) ? 1 : 0));
  parts.push(i16(params.length));
  for (const p of params) {
    if (p === null) parts.push(i32(-1));
    else {
      const b = Buffer.isBuffer(p) ? p : Buffer.from(p, 'utf8');
      parts.push(i32(b.length), b);
    }
  }
  const rf = opts.resultFormats ?? [];
  parts.push(i16(rf.length));
  for (const f of rf) parts.push(i16(f));
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head[0] = 0x42; // 'B'
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export class RawPg {
  readonly parameters: Record<string, string> = {};
  processId = 0;
  secretKey = 0;
  private pending: Buffer = Buffer.alloc(0);
  private queue: RawMessage[] = [];
  private head = 0; // index of the next unread message (Array.shift is O(n) on long queues)
  private waiter: (() => void) | null = null;
  private closed: Error | null = null;
  private readonly parser = new Parser();

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  static async connect(o: ConnectOptions): Promise<RawPg> {
    const socket = o.path ? netConnect(o.path) : netConnect(o.port, o.host ?? '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const c = new RawPg(socket);
    const user = o.user ?? 'postgres';
    socket.write(serialize.startup({ user, database: o.database ?? 'postgres', ...o.params }));
    for (;;) {
      const m = await c.next();
      const p = m.parsed as any;
      if (m.code === 'R') {
        if (p.name === 'authenticationCleartextPassword') socket.write(serialize.password(o.password ?? ''));
        else if (p.name === 'authenticationMD5Password') {
          const inner = createHash('md5')
            .update((o.password ?? '') + user)
            .digest('hex');
          const outer = createHash('md5')
            .update(Buffer.concat([Buffer.from(inner), p.salt]))
            .digest('hex');
          socket.write(serialize.password('md5' + outer));
        } else if (p.name !== 'authenticationOk') throw new Error(`unsupported auth ${p.name}`);
      } else if (m.code === 'S') c.parameters[p.parameterName] = p.parameterValue;
      else if (m.code === 'K') {
        c.processId = p.processID;
        c.secretKey = p.secretKey;
      } else if (m.code === 'E') throw new Error(`startup failed: ${p.message}`);
      else if (m.code === 'Z') return c;
    }
  }

  private fail(e: Error): void {
    if (!this.closed) this.closed = e;
    this.waiter?.();
  }

  private onData(d: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, d]) : d;
    let p = 0;
    while (this.pending.length - p >= 5) {
      const len = this.pending.readInt32BE(p + 1);
      if (this.pending.length - p < len + 1) break;
      const raw = Buffer.from(this.pending.subarray(p, p + 1 + len));
      let parsed: BackendMessage | undefined;
      this.parser.parse(raw, (m) => {
        parsed = m;
      });
      this.queue.push({ code: String.fromCharCode(raw[0]), raw, parsed: parsed! });
      p += 1 + len;
    }
    this.pending = this.pending.subarray(p);
    this.waiter?.();
  }

  /** How long next() waits for a message by default (a hang guard; a loaded machine may need more). */
  messageTimeoutMs = 20_000;

  /** Next backend message (rejects if the connection closes or nothing arrives within timeoutMs). */
  async next(timeoutMs = this.messageTimeoutMs): Promise<RawMessage> {
    for (;;) {
      if (this.head < this.queue.length) {
        const m = this.queue[this.head];
        this.queue[this.head++] = undefined as unknown as RawMessage;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        return m;
      }
      if (this.closed) throw this.closed;
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => {
          this.waiter = null;
          reject(new Error('timeout waiting for a backend message'));
        }, timeoutMs);
        this.waiter = () => {
          clearTimeout(t);
          this.waiter = null;
          resolve();
        };
      });
    }
  }

  send(b: Buffer): void {
    this.socket.write(b);
  }

  /** Read messages up to and including ReadyForQuery. */
  async untilReady(): Promise<QueryResult> {
    const res: QueryResult = { messages: [], dataRows: [] };
    for (;;) {
      const m = await this.next();
      res.messages.push(m);
      const p = m.parsed as any;
      if (m.code === 'T') res.rowDescription = p;
      else if (m.code === 'D') res.dataRows.push(m.raw);
      else if (m.code === 'C') res.commandTag = p.text;
      else if (m.code === 'E') res.error = { code: p.code, message: p.message, ...(p.hint ? { hint: p.hint } : {}) };
      else if (m.code === 'Z') return res;
    }
  }

  /** Simple Query protocol. */
  simple(sql: string): Promise<QueryResult> {
    this.send(serialize.query(sql));
    return this.untilReady();
  }

  /** Extended protocol: Parse (unnamed) / Bind / Describe portal / Execute / Sync. */
  query(sql: string, o: QueryOptions = {}): Promise<QueryResult> {
    this.send(
      Buffer.concat([
        serialize.parse({ text: sql, types: o.paramTypes ?? [] }),
        buildBind({ params: o.params, resultFormats: o.resultFormats }),
        serialize.describe({ type: 'P' }),
        serialize.execute({ rows: o.maxRows ?? 0 }),
        serialize.sync(),
      ]),
    );
    return this.untilReady();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const done = new Promise<void>((r) => this.socket.once('close', () => r()));
    this.socket.end(serialize.end());
    await orAfter(done, 2000, undefined);
    this.socket.destroy();
  }
}
