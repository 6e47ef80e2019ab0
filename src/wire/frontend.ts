/**
 * Frontend codec: bytes in, messages out. No I/O here; the connection feeds `push()` with socket
 * data and pulls complete messages. Malformed input raises a SqlError 08P01 so the connection can
 * report it and close.
 *
 * This runs for every message of every statement: fields are read in place from the received
 * chunk (no per-message copies or views), and a statement text the client sent recently is
 * recognised by its bytes and handed out as the same string again (no decoding; the caches keyed
 * by text find it by a hash V8 already computed).
 */
import { isUtf8 } from 'node:buffer';
import { SqlError, SQLSTATE } from '../errors.js';
import {
  CANCEL_REQUEST_CODE,
  FrontendMessage,
  GSSENC_REQUEST_CODE,
  SSL_REQUEST_CODE,
  StartupPacket,
} from './messages.js';

const protocolError = (msg: string) => new SqlError(SQLSTATE.protocolViolation, msg);

/** Statement texts remembered by their bytes, and the longest one kept (at most 64 KiB per connection). */
const RECENT_TEXTS = 4;
const RECENT_TEXT_BYTES = 16 * 1024;

/** Recently decoded statement texts (Query, Parse), most recent first. */
class RecentTexts {
  private readonly entries: { bytes: Buffer; text: string }[] = [];

  /** The text of bytes `b[start, end)` if it is one of the recent ones. */
  find(b: Buffer, start: number, end: number): string | undefined {
    const n = end - start;
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.bytes.length === n && b.compare(e.bytes, 0, n, start, end) === 0) {
        if (i > 0) this.entries.unshift(...this.entries.splice(i, 1));
        return e.text;
      }
    }
    return undefined;
  }

  remember(b: Buffer, start: number, end: number, text: string): void {
    if (end - start > RECENT_TEXT_BYTES) return;
    this.entries.unshift({ bytes: Buffer.from(b.subarray(start, end)), text }); // a copy: the chunk is not ours to keep
    if (this.entries.length > RECENT_TEXTS) this.entries.pop();
  }
}

/** Reads the fields of one message body, `b[pos, end)`, failing cleanly on truncation. */
class BodyReader {
  constructor(
    private readonly b: Buffer,
    private pos: number,
    private readonly end: number,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw protocolError('message too short');
  }

  int16(): number {
    this.need(2);
    const v = this.b.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  /** A count of fields: PostgreSQL reads these two bytes unsigned (up to 65,535 parameters). */
  count16(): number {
    this.need(2);
    const v = this.b.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.b.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.b.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  byte(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }

  /** The NUL-terminated string here, its bytes `[pos, nul)`. */
  private terminated(): number {
    const nul = this.b.indexOf(0, this.pos);
    if (nul < 0 || nul >= this.end) throw protocolError('unterminated string in message');
    return nul;
  }

  cstring(): string {
    const nul = this.terminated();
    const s = decodeUtf8(this.b, this.pos, nul);
    this.pos = nul + 1;
    return s;
  }

  /** A statement's text: the same string as last time when the client sends the same bytes again. */
  text(recent: RecentTexts): string {
    const nul = this.terminated();
    let s = recent.find(this.b, this.pos, nul);
    if (s === undefined) {
      s = decodeUtf8(this.b, this.pos, nul);
      recent.remember(this.b, this.pos, nul, s);
    }
    this.pos = nul + 1;
    return s;
  }

  /** `n` bytes, copied (the received chunk is not kept alive by what a message hands out). */
  bytes(n: number): Buffer {
    if (n < 0) throw protocolError('message too short');
    this.need(n);
    const v = Buffer.from(this.b.subarray(this.pos, this.pos + n));
    this.pos += n;
    return v;
  }

  rest(): Buffer {
    return this.bytes(this.end - this.pos);
  }
}

/** Strict UTF-8 (22021 otherwise, as PostgreSQL); short ASCII, the usual case, without a native call per check. */
function decodeUtf8(b: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n <= 32) {
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (b[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return b.toString('latin1', start, end);
  }
  if (!isUtf8(b.subarray(start, end)))
    throw new SqlError(SQLSTATE.characterNotInRepertoire, 'invalid byte sequence for encoding "UTF8"');
  return b.toString('utf8', start, end);
}

/** A received (or concatenated) chunk this large is not kept alive by a small rest of it. */
const RELEASE_CHUNK_BYTES = 1024 * 1024;

/** Accumulates socket bytes and cuts them into messages. */
export class FrontendDecoder {
  /** Received chunks; the first is consumed up to `head`. */
  private chunks: Buffer[] = [];
  private head = 0;
  private buffered = 0;
  private readonly recent = new RecentTexts();

  /** `maxMessageBytes` may be raised later (after authentication), never per message. */
  constructor(public maxMessageBytes: number) {}

  push(data: Buffer): void {
    // no empty chunk is kept: the next message's type byte is read at chunks[0][head] (headFrameBytes)
    if (data.length === 0) return;
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
      if (!this.contiguous(4)) return 0;
      const len = this.chunks[0]!.readInt32BE(this.head);
      if (len < 8 || len > 10_000) throw protocolError(`invalid startup packet length ${len}`);
      return len;
    }
    // An unknown type is fatal as soon as its byte arrives, as PostgreSQL reads it (SocketBackend): waiting for
    // the body its length announces held a connection until the client gave up (fuzz.test.ts)
    if (this.buffered > 0 && !KNOWN_TYPES.has(this.chunks[0]![this.head]!))
      throw protocolError(`invalid frontend message type ${this.chunks[0]![this.head]!}`);
    if (!this.contiguous(5)) return 0;
    const len = this.chunks[0]!.readInt32BE(this.head + 1);
    if (len < 4) throw protocolError(`invalid message length ${len}`);
    if (len > this.maxMessageBytes) {
      throw protocolError(`message of ${len} bytes exceeds the limit of ${this.maxMessageBytes}`);
    }
    return len + 1;
  }

  /** Whether `n` bytes are buffered; if so they are made contiguous in the first chunk from `head`. */
  private contiguous(n: number): boolean {
    if (this.buffered < n) return false;
    const first = this.chunks[0]!;
    if (first.length - this.head < n) {
      this.chunks = [Buffer.concat([first.subarray(this.head), ...this.chunks.slice(1)])];
      this.head = 0;
    }
    return true;
  }

  /** Take the `n` bytes at the head: the chunk holding them and where they start. */
  private take(n: number): { chunk: Buffer; start: number } {
    const chunk = this.chunks[0]!;
    const start = this.head;
    this.head += n;
    this.buffered -= n;
    if (this.head === chunk.length) {
      this.chunks.shift();
      this.head = 0;
    } else if (chunk.length > RELEASE_CHUNK_BYTES && chunk.length - this.head < chunk.length / 2) {
      // A large message was taken from a chunk that holds the start of the next: copy that start so
      // the large buffer goes with the message (an idle client must not keep 60 MiB alive).
      this.chunks[0] = Buffer.from(chunk.subarray(this.head));
      this.head = 0;
    }
    return { chunk, start };
  }

  /** The untyped startup-phase packet, or null when more bytes are needed. */
  nextStartup(): StartupPacket | null {
    const len = this.headFrameBytes(true);
    if (len === 0 || !this.contiguous(len)) return null;
    const { chunk, start } = this.take(len);
    const body = new BodyReader(chunk, start + 4, start + len);
    const code = body.int32();
    if (code === SSL_REQUEST_CODE) return { kind: 'ssl' };
    if (code === GSSENC_REQUEST_CODE) return { kind: 'gssenc' };
    if (code === CANCEL_REQUEST_CODE) return { kind: 'cancel', pid: body.int32(), secret: body.int32() };
    const major = code >>> 16;
    const minor = code & 0xffff;
    if (major !== 3) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `unsupported frontend protocol ${major}.${minor}: server supports 3.0`,
      );
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
    if (frame === 0 || !this.contiguous(frame)) return null;
    const { chunk, start } = this.take(frame);
    const type = chunk[start]!;
    // An unknown message type means client and server disagree on the protocol: fatal, as in PostgreSQL.
    if (!KNOWN_TYPES.has(type)) throw protocolError(`invalid frontend message type ${type}`);
    try {
      const body = new BodyReader(chunk, start + 5, start + frame);
      const message = parseTyped(type, body, this.recent);
      // Bytes left over (a Query text with a NUL inside it: PostgreSQL reads the string to the NUL)
      // make the message malformed, as PostgreSQL's pq_getmsgend says; DuckDB never sees a cut text.
      if (body.remaining > 0 && CHECKED_TO_END.has(type)) throw protocolError('invalid message format');
      return message;
    } catch (e) {
      // The frame itself was sound, so the stream stays in step: report, and go on.
      if (e instanceof SqlError)
        return type === Q ? { type: 'Invalid', error: e, query: true } : { type: 'Invalid', error: e };
      throw e;
    }
  }
}

const KNOWN_TYPES = new Set([...'QPBDECSHXpdcfF'].map((c) => c.charCodeAt(0)));
/** Messages PostgreSQL reads to their last byte (pq_getmsgend): anything after their fields is an error. */
const CHECKED_TO_END = new Set([...'QPBDECSH'].map((c) => c.charCodeAt(0)));
const code = (c: string) => c.charCodeAt(0);
const [Q, P, B, D, E, C, S, H, X, p, d, c, f, F] = [...'QPBDECSHXpdcfF'].map(code);

function parseTyped(type: number, r: BodyReader, recent: RecentTexts): FrontendMessage {
  switch (type) {
    case Q:
      return { type: 'Query', sql: r.text(recent) };
    case P: {
      const name = r.cstring();
      const sql = r.text(recent);
      const n = r.count16();
      const paramTypes: number[] = [];
      for (let i = 0; i < n; i++) paramTypes.push(r.uint32());
      return { type: 'Parse', name, sql, paramTypes };
    }
    case B: {
      const portal = r.cstring();
      const statement = r.cstring();
      const nf = r.count16();
      const paramFormats: number[] = [];
      for (let i = 0; i < nf; i++) paramFormats.push(format(r.int16()));
      const np = r.count16();
      const params: (Buffer | null)[] = [];
      for (let i = 0; i < np; i++) {
        const len = r.int32();
        if (len < -1) throw protocolError('invalid parameter length');
        params.push(len === -1 ? null : r.bytes(len));
      }
      const nr = r.count16();
      const resultFormats: number[] = [];
      for (let i = 0; i < nr; i++) resultFormats.push(format(r.int16()));
      return { type: 'Bind', portal, statement, paramFormats, params, resultFormats };
    }
    case D: {
      const t = r.byte();
      if (t !== S && t !== P) throw protocolError(`invalid DESCRIBE message subtype ${String.fromCharCode(t)}`);
      return { type: 'Describe', target: t === S ? 'S' : 'P', name: r.cstring() };
    }
    case E:
      return { type: 'Execute', portal: r.cstring(), maxRows: r.int32() };
    case C: {
      const t = r.byte();
      if (t !== S && t !== P) throw protocolError(`invalid CLOSE message subtype ${String.fromCharCode(t)}`);
      return { type: 'Close', target: t === S ? 'S' : 'P', name: r.cstring() };
    }
    case S:
      return { type: 'Sync' };
    case H:
      return { type: 'Flush' };
    case X:
      return { type: 'Terminate' };
    case p:
      return { type: 'Password', data: r.rest() };
    case d:
      return { type: 'CopyData', data: r.rest() };
    case c:
      return { type: 'CopyDone' };
    case f:
      return { type: 'CopyFail', message: r.cstring() };
    case F:
      return { type: 'FunctionCall' };
    default:
      throw protocolError(`invalid frontend message type ${type}`);
  }
}

/** A format code: 0 text, 1 binary (others are refused as PostgreSQL does). */
function format(f: number): number {
  if (f !== 0 && f !== 1) throw new SqlError(SQLSTATE.invalidParameterValue, `unsupported format code: ${f}`);
  return f;
}
