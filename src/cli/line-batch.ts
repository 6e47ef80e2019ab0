/**
 * Log lines gathered in memory and handed to the destination 8 KiB at a time. pino's destination
 * (sonic-boom) measures the byte length of its whole pending buffer on every write, which for one
 * short audit line per statement cost ~4 µs of the ~60 µs a cached statement takes; an array push
 * costs nothing, and the destination then sees one write per batch. `drain` must run before the
 * destination is flushed (every 100 ms, and on the way out), so no line waits longer than that.
 */
export interface LineSink {
  write(chunk: string): boolean;
}

export class LineBatch {
  private lines: string[] = [];
  private chars = 0;
  private handed = false;

  constructor(
    private readonly sink: LineSink,
    private readonly batchChars = 8 * 1024,
  ) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.batchChars) this.drain();
    return true;
  }

  /** Everything gathered so far goes to the destination, in order. */
  drain(): void {
    if (this.lines.length === 0) return;
    const batch = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.handed = true;
    this.sink.write(batch);
  }

  /** Whether anything went to the destination since the last call: a flush of nothing is a write(2) of nothing. */
  handedOver(): boolean {
    const handed = this.handed;
    this.handed = false;
    return handed;
  }
}
