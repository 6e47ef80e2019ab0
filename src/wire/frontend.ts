/**
 * Frontend codec: bytes in, messages out. No I/O here; the connection feeds `push()` with socket
 * data and pulls complete messages. Malformed input raises a SqlError 08P01 so the connection can
 * report it and close.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import {
  CANCEL_REQUEST_CODE,
  FrontendMessage,
  GSSENC_REQUEST_CODE,
  SSL_REQUEST_CODE,
  StartupPacket,
} from './messages.js';

const protocolError = (msg: string) => new SqlError(SQLSTATE.protocolViolation, msg);

/** Reads fields of one message body, failing cleanly on truncation. */
class BodyReader {
  private pos = 0;
  constructor(private readonly b: Buffer) {}

  get remaining(): number {
    return this.b.length - this.pos;
  }

  int16(): number {
    if (this.pos + 2 > this.b.length) throw protocolError('message too short');
    const v = this.b.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    if (this.pos + 4 > this.b.length) throw protocolError('message too short');
    const v = this.b.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    if (this.pos + 4 > this.b.length) throw protocolError('message too short');
    const v = this.b.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  byte(): number {
    if (this.pos + 1 > this.b.length) throw protocolError('message too short');
    return this.b[this.pos++]!;
  }

  cstring(): string {
    const end = this.b.indexOf(0, this.pos);
    if (end < 0) throw protocolError('unterminated string in message');
    const bytes = this.b.subarray(this.pos, end);
    this.pos = end + 1;
    return decodeUtf8(bytes);
  }

  bytes(n: number): Buffer {
    if (n < 0 || this.pos + n > this.b.length) throw protocolError('message too short');
    const v = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  rest(): Buffer {
    const v = this.b.subarray(this.pos);
    this.pos = this.b.length;
    return v;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new SqlError('22021', 'invalid byte sequence for encoding "UTF8"');
  }
}

/** Accumulates socket bytes and cuts them into messages. */
export class FrontendDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** `maxMessageBytes` may be raised later (after authentication), never per message. */
  constructor(public maxMessageBytes: number) {}

  push(data: Buffer): void {
    this.chunks.push(data);
    this.buffered += data.length;
  }

  get pending(): number {
    return this.buffered;
  }

  /**
   * Bytes of the frame at the head of the buffer (header included), validated from its header
   * before its body is buffered; 0 while the header is incomplete. `startup` frames have no type byte.
   */
  headFrameBytes(startup: boolean): number {
    if (startup) {
      const head = this.peek(4);
      if (!head) return 0;
      const len = head.readInt32BE(0);
      if (len < 8 || len > 10_000) throw protocolError(`invalid startup packet length ${len}`);
      return len;
    }
    const head = this.peek(5);
    if (!head) return 0;
    const len = head.readInt32BE(1);
    if (len < 4) throw protocolError(`invalid message length ${len}`);
    if (len > this.maxMessageBytes) {
      throw protocolError(`message of ${len} bytes exceeds the limit of ${this.maxMessageBytes}`);
    }
    return len + 1;
  }

  private peek(n: number): Buffer | null {
    if (this.buffered < n) return null;
    if (this.chunks[0]!.length < n) {
      this.chunks = [Buffer.concat(this.chunks)];
    }
    return this.chunks[0]!;
  }

  private take(n: number): Buffer {
    const head = this.peek(n)!;
    const out = head.subarray(0, n);
    if (head.length === n) this.chunks.shift();
    else this.chunks[0] = head.subarray(n);
    this.buffered -= n;
    return out;
  }

  /** The untyped startup-phase packet, or null when more bytes are needed. */
  nextStartup(): StartupPacket | null {
    const len = this.headFrameBytes(true);
    if (len === 0 || !this.peek(len)) return null;
    const body = new BodyReader(this.take(len).subarray(4));
    const code = body.int32();
    if (code === SSL_REQUEST_CODE) return { kind: 'ssl' };
    if (code === GSSENC_REQUEST_CODE) return { kind: 'gssenc' };
    if (code === CANCEL_REQUEST_CODE) return { kind: 'cancel', pid: body.int32(), secret: body.int32() };
    const major = code >>> 16;
    const minor = code & 0xffff;
    if (major !== 3) {
      throw new SqlError('0A000', `unsupported frontend protocol ${major}.${minor}: server supports 3.0`);
    }
    const params = new Map<string, string>();
    const unknownOptions: string[] = [];
    for (;;) {
      if (body.remaining === 0) throw protocolError('startup packet missing terminator');
      const key = body.cstring();
      if (key === '') break;
      const value = body.cstring();
      if (key.startsWith('_pq_.')) unknownOptions.push(key);
      else params.set(key, value);
    }
    return { kind: 'startup', major, minor, params, unknownOptions };
  }

  /** The next typed message, or null when more bytes are needed. */
  next(): FrontendMessage | null {
    const frame = this.headFrameBytes(false);
    if (frame === 0 || !this.peek(frame)) return null;
    const type = this.chunks[0]![0]!;
    const body = this.take(frame).subarray(5);
    // An unknown message type means client and server disagree on the protocol: fatal, as in PostgreSQL.
    if (!KNOWN_TYPES.has(type)) throw protocolError(`invalid frontend message type ${type}`);
    try {
      return parseTyped(type, new BodyReader(body));
    } catch (e) {
      // The frame itself was sound, so the stream stays in step: report, and go on.
      if (e instanceof SqlError) return { type: 'Invalid', error: e };
      throw e;
    }
  }
}

const KNOWN_TYPES = new Set([...'QPBDECSHXpdcfF'].map((c) => c.charCodeAt(0)));

function parseTyped(type: number, r: BodyReader): FrontendMessage {
  switch (String.fromCharCode(type)) {
    case 'Q':
      return { type: 'Query', sql: r.cstring() };
    case 'P': {
      const name = r.cstring();
      const sql = r.cstring();
      const n = r.int16();
      if (n < 0) throw protocolError('negative parameter count');
      const paramTypes: number[] = [];
      for (let i = 0; i < n; i++) paramTypes.push(r.uint32());
      return { type: 'Parse', name, sql, paramTypes };
    }
    case 'B': {
      const portal = r.cstring();
      const statement = r.cstring();
      const nf = r.int16();
      if (nf < 0) throw protocolError('negative format count');
      const paramFormats: number[] = [];
      for (let i = 0; i < nf; i++) paramFormats.push(r.int16());
      const np = r.int16();
      if (np < 0) throw protocolError('negative parameter count');
      const params: (Buffer | null)[] = [];
      for (let i = 0; i < np; i++) {
        const len = r.int32();
        if (len < -1) throw protocolError('invalid parameter length');
        params.push(len === -1 ? null : Buffer.from(r.bytes(len)));
      }
      const nr = r.int16();
      if (nr < 0) throw protocolError('negative result format count');
      const resultFormats: number[] = [];
      for (let i = 0; i < nr; i++) resultFormats.push(r.int16());
      for (const f of [...paramFormats, ...resultFormats]) {
        if (f !== 0 && f !== 1) throw new SqlError(SQLSTATE.invalidParameterValue, `unsupported format code: ${f}`);
      }
      return { type: 'Bind', portal, statement, paramFormats, params, resultFormats };
    }
    case 'D': {
      const t = String.fromCharCode(r.byte());
      if (t !== 'S' && t !== 'P') throw protocolError(`invalid DESCRIBE message subtype ${t}`);
      return { type: 'Describe', target: t, name: r.cstring() };
    }
    case 'E':
      return { type: 'Execute', portal: r.cstring(), maxRows: r.int32() };
    case 'C': {
      const t = String.fromCharCode(r.byte());
      if (t !== 'S' && t !== 'P') throw protocolError(`invalid CLOSE message subtype ${t}`);
      return { type: 'Close', target: t, name: r.cstring() };
    }
    case 'S':
      return { type: 'Sync' };
    case 'H':
      return { type: 'Flush' };
    case 'X':
      return { type: 'Terminate' };
    case 'p':
      return { type: 'Password', data: Buffer.from(r.rest()) };
    case 'd':
      return { type: 'CopyData', data: Buffer.from(r.rest()) };
    case 'c':
      return { type: 'CopyDone' };
    case 'f':
      return { type: 'CopyFail', message: r.cstring() };
    case 'F':
      return { type: 'FunctionCall' };
    default:
      throw protocolError(`invalid frontend message type ${type}`);
  }
}
