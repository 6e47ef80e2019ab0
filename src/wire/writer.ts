/**
 * A growable byte buffer for building backend messages without intermediate strings or arrays.
 * One writer per connection is reused for every message; `flush()` hands out the bytes.
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.pos;
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

  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
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
    this.buf.writeInt32BE(this.pos - at, at);
  }

  /** Overwrite an int32 at an absolute offset (e.g. a field length known only afterwards). */
  setInt32(at: number, v: number): void {
    this.buf.writeInt32BE(v, at);
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
    this.ensure(s.length);
    const n = this.buf.write(s, this.pos, s.length, 'latin1');
    this.pos += n;
    return n;
  }

  /** Drop everything after offset `at` (e.g. a half-written DataRow when encoding fails). */
  truncate(at: number): void {
    if (at < this.pos) this.pos = at;
  }

  /** Copy out everything written so far and reset. */
  flush(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}
