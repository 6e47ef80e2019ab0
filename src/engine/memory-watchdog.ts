/**
 * The process's resident memory, watched. DuckDB's memory_limit counts its buffer pool, not the
 * strings its vectors and aggregate states hold (`string_agg` over many rows, a chain of `||`), so a
 * statement can grow the process far past memoryLimit one vector at a time while every vector stays
 * small. The kernel's data limit (memory-ceiling.ts) ends it only at memoryLimit + 2 GiB, with an
 * allocation failing wherever it happens to be (in V8, the process dies). This watchdog reads RSS every `pollMs` and, once it
 * is over `lineBytes` (memoryLimit + 768 MiB), calls `onExceeded`: the gateway
 * interrupts every running statement (53200), which DuckDB honours at the next vector, and frees
 * what they built. Cheap by construction: one read of /proc/self/statm (libuv's rss) per poll.
 */

/**
 * Above memoryLimit, where running statements are stopped: RSS stays within memoryLimit + 1 GiB
 * when the vector being computed adds at most 256 MiB (value-guards.ts bounds the amplifying calls).
 */
export const WATCH_MARGIN_BYTES = 768 * 1024 ** 2;

export interface MemoryWatchdogOptions {
  lineBytes: number;
  /** Told when RSS is over the line; again at each poll while it still is. */
  onExceeded: (rssBytes: number) => void;
  pollMs?: number;
  /** The process's resident set size in bytes (tests give their own). */
  rss?: () => number;
}

export class MemoryWatchdog {
  private timer: NodeJS.Timeout | null = null;
  /** Highest RSS seen since start (status page, tests). */
  peakBytes = 0;

  constructor(private readonly opts: MemoryWatchdogOptions) {}

  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => this.poll(), this.opts.pollMs ?? 50);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One measurement; calls onExceeded when over the line. */
  poll(): number {
    const rss = (this.opts.rss ?? process.memoryUsage.rss)();
    if (rss > this.peakBytes) this.peakBytes = rss;
    if (rss > this.opts.lineBytes) this.opts.onExceeded(rss);
    return rss;
  }
}
