/** Outputs at least this large change hands instead of being copied (see flush). */
const HANDOVER_BYTES = 32 * 1024;
/** Buffers kept for reuse once the socket has written them (see recycle). */
const SPARE_BUFFERS = 4;
/** A writer that grew past this (one huge row) starts over at its initial size after flush. */
const KEPT_BYTES = 2 * 1024 * 1024;

/**
 * A growable byte buffer for building backend messages without intermediate strings or arrays.
 * One writer per connection is reused for every message; `flush()` hands out the bytes.
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;
  private readonly spare: Buffer[] = [];

  /**
   * `batchBytes`: once this much is written the writer is `full`, and row encoders stop after the
   * current row so the caller can send the batch (a chunk of huge rows never sits here whole).
   */
  constructor(
    private readonly initialSize = 64 * 1024,
    private readonly batchBytes = Infinity,
  ) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.pos;
  }

  get full(): boolean {
    return this.pos >= this.batchBytes;
  }

  /** Make room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  // int16/int32/setInt32 are on every DataRow cell: plain byte stores (Buffer.writeInt32BE's
  // argument checks cost more than the store itself). Values are two's complement, as PG sends.
  int16(v: number): this {
    this.ensure(2);
    const b = this.buf,
      p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    const b = this.buf,
      p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
    this.pos = p + 4;
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }

  int64(v: bigint): this {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
    return this;
  }

  float32(v: number): this {
    this.ensure(4);
    this.buf.writeFloatBE(v, this.pos);
    this.pos += 4;
    return this;
  }

  float64(v: number): this {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** UTF-8 text without terminator; returns the number of bytes written. */
  utf8(s: string): number {
    // Worst case 3 bytes per UTF-16 unit.
    this.ensure(s.length * 3);
    const n = this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
    return n;
  }

  /** NUL-terminated UTF-8 string (protocol "String"). */
  cstring(s: string): this {
    this.utf8(s);
    return this.byte(0);
  }

  /** Reserve a 4-byte length slot; returns its offset for `patchLength`. */
  reserveLength(): number {
    this.ensure(4);
    const at = this.pos;
    this.pos += 4;
    return at;
  }

  /** Write `pos - at` (the length including the slot itself) into a reserved slot. */
  patchLength(at: number): void {
    this.setInt32(at, this.pos - at);
  }

  /** Overwrite an int32 at an absolute offset (e.g. a field length known only afterwards). */
  setInt32(at: number, v: number): void {
    const b = this.buf;
    b[at] = v >>> 24;
    b[at + 1] = v >>> 16;
    b[at + 2] = v >>> 8;
    b[at + 3] = v;
  }

  /** Begin a typed message: type byte + length slot. Returns the slot offset for `end`. */
  begin(type: number): number {
    this.byte(type);
    return this.reserveLength();
  }

  end(at: number): void {
    this.patchLength(at);
  }

  /** The current backing buffer, for encoders that write in place: `ensure(n)` first, write at
   *  `length`, then `advance(n)`. Invalidated by the next `ensure` that grows. */
  get raw(): Buffer {
    return this.buf;
  }

  /** Move the write position forward after writing `n` bytes into `raw` directly. */
  advance(n: number): void {
    this.pos += n;
  }

  /** One-byte-per-char text (ASCII digits, dates...) without UTF-8 encoding; returns bytes written. */
  latin1(s: string): number {
    const n = s.length;
    this.ensure(n);
    if (n <= 24) {
      // Short strings (numbers, dates): a char loop beats the native call into Buffer.write.
      const b = this.buf,
        p = this.pos;
      for (let k = 0; k < n; k++) b[p + k] = s.charCodeAt(k);
      this.pos = p + n;
      return n;
    }
    const written = this.buf.write(s, this.pos, n, 'latin1');
    this.pos += written;
    return written;
  }

  /** Drop everything after offset `at` (e.g. a half-written DataRow when encoding fails). */
  truncate(at: number): void {
    if (at < this.pos) this.pos = at;
  }

  /**
   * Hand out everything written so far and reset. Small outputs are copied (a pooled allocation);
   * a large batch of rows hands over the buffer itself and the writer continues in a fresh one,
   * so streaming copies nothing (allocUnsafe: no zero-filling of memory about to be overwritten).
   */
  flush(): Buffer {
    const n = this.pos;
    this.pos = 0;
    if (n < HANDOVER_BYTES) {
      const out = Buffer.allocUnsafe(n);
      this.buf.copy(out, 0, 0, n);
      if (this.buf.length > KEPT_BYTES) this.buf = Buffer.allocUnsafe(this.initialSize);
      return out;
    }
    const out = this.buf.subarray(0, n);
    // Memory a huge row needed is given back once it is sent, not kept (twice) per connection.
    const size = this.buf.length > KEPT_BYTES ? this.initialSize : this.buf.length;
    let next = this.spare.pop();
    while (next && next.length !== size) next = this.spare.pop(); // the writer grew meanwhile
    this.buf = next ?? Buffer.allocUnsafe(size);
    return out;
  }

  /**
   * A buffer handed out by flush() that its consumer is done with (the socket wrote it) may be
   * written again: large batches cycle through a few buffers instead of allocating one per batch.
   */
  recycle(handedOut: Buffer): void {
    if (handedOut.length < HANDOVER_BYTES || handedOut.byteOffset !== 0 || this.spare.length >= SPARE_BUFFERS) return;
    const whole = Buffer.from(handedOut.buffer, 0, handedOut.buffer.byteLength);
    if (whole.length === this.buf.length && whole.buffer !== this.buf.buffer) this.spare.push(whole);
  }
}
