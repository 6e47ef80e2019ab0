/**
 * The process's resident memory, watched. DuckDB's memory_limit counts its buffer pool, not the
 * strings its vectors and aggregate states hold (`string_agg` over many rows, a chain of `||`), nor
 * the chunks of a result on their way to a client, so the process can grow far past memoryLimit one
 * vector at a time while every vector stays small. The kernel's data limit (memory-ceiling.ts) ends
 * it only at memoryLimit + 2 GiB, with an allocation failing wherever it happens to be (in V8, the
 * process dies). This watchdog reads RSS every `pollMs` and, once it is over `lineBytes`
 * (memoryLimit + 768 MiB), stops running statements (53200), which DuckDB honours at the next vector:
 *
 * - the statement that holds the most by the gateway's own accounting (its result's chunks and the
 *   output its client has not taken, wire/result-stream.ts), alone, when it holds HOLDER_BYTES or
 *   more; then `settleMs`, and on while RSS falls, for its memory to come back before more is stopped;
 * - otherwise (nothing the gateway accounts for explains it: values DuckDB builds, string_agg's
 *   state), the statements of the user whose statement has run longest, those running SUSPECT_MS or
 *   more: memory past the line is built over time, and a cheap statement of another user has not
 *   run that long; then settle again, and the next such user if RSS stays over.
 *
 * Never every user's statements at once (before: a value doubled through CTE columns by one user
 * stopped every running statement of every user and repository, 53200): a statement younger than
 * SUSPECT_MS is not stopped, so another user's `select 1` answers while one user's statement is
 * stopped. When no statement is a suspect, nothing is stopped and the kernel's data limit is the
 * last line.
 *
 * A session that merely answers while another holds the memory is not stopped for it. Cheap by
 * construction: one read of /proc/self/statm (libuv's rss) per poll.
 */
import type { SqlError } from '../errors.js';

/**
 * Above memoryLimit, where running statements are stopped: RSS stays within memoryLimit + 1 GiB
 * when the vector being computed adds at most 256 MiB (value-guards.ts bounds the amplifying calls).
 */
export const WATCH_MARGIN_BYTES = 768 * 1024 ** 2;

/** A statement holding at least this much is stopped alone, before any other. */
export const HOLDER_BYTES = 64 * 1024 ** 2;

/** A statement running this long may be blamed for memory that no result accounts for. */
export const SUSPECT_MS = 250;

/** However fast RSS still falls, others are stopped this long after a holder was. */
const SETTLE_LIMIT_MS = 5000;

/** A running statement as the watchdog sees it. */
export interface MemoryHolder {
  /** What it holds by the gateway's own accounting (bytes). */
  readonly heldBytes: number;
  /** How long it has been running (ms). */
  readonly runningMs: number;
  /** Whose it is. */
  readonly user: string;
  /** Stop it with `error` (53200). */
  stop(error: SqlError): void;
}

export interface MemoryWatchdogOptions {
  lineBytes: number;
  /** The running statements now. */
  holders: () => readonly MemoryHolder[];
  /** The error for the statement stopped because it holds `heldBytes`. */
  holderError: (rssBytes: number, heldBytes: number) => SqlError;
  /** The error for a statement stopped because it had run longest (`runningMs`) when no result accounted for the memory. */
  suspectError: (rssBytes: number, runningMs: number) => SqlError;
  /** Told what was stopped (for the log). */
  onStopped?: (rssBytes: number, stopped: 'holder' | 'suspect', heldBytes: number, user?: string) => void;
  pollMs?: number;
  /** After a holder was stopped, how long its memory has to come back before more is stopped. */
  settleMs?: number;
  /** The process's resident set size in bytes (tests give their own). */
  rss?: () => number;
  now?: () => number;
}

export class MemoryWatchdog {
  private timer: NodeJS.Timeout | null = null;
  /** Highest RSS seen since start (status page, tests). */
  peakBytes = 0;
  /** When a holder or suspect was last stopped (its memory is being given back until settleMs after). */
  private holderStoppedAt = -Infinity;
  /** RSS at the previous poll over the line. */
  private lastRss = Infinity;

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

  /** One measurement; stops what holds the memory when over the line. */
  poll(): number {
    const rss = (this.opts.rss ?? process.memoryUsage.rss)();
    if (rss > this.peakBytes) this.peakBytes = rss;
    if (rss > this.opts.lineBytes) this.shed(rss);
    return rss;
  }

  private shed(rss: number): void {
    const now = (this.opts.now ?? performance.now.bind(performance))();
    const previous = this.lastRss;
    this.lastRss = rss;
    // A holder's memory comes back over a few polls (its stream ends, the allocator returns pages):
    // for settleMs, and on while RSS still falls (SETTLE_LIMIT_MS at most), nothing else is stopped.
    const since = now - this.holderStoppedAt;
    if (since < (this.opts.settleMs ?? 1000) || (since < SETTLE_LIMIT_MS && rss < previous)) return;
    const holders = this.opts.holders();
    let largest: MemoryHolder | null = null;
    for (const h of holders) if (!largest || h.heldBytes > largest.heldBytes) largest = h;
    if (largest && largest.heldBytes >= HOLDER_BYTES) {
      const held = largest.heldBytes;
      largest.stop(this.opts.holderError(rss, held));
      this.holderStoppedAt = now;
      this.lastRss = rss;
      this.opts.onStopped?.(rss, 'holder', held, largest.user);
      return;
    }
    // The user whose statement has run longest: their statements running SUSPECT_MS or more.
    const suspects = holders.filter((h) => h.runningMs >= SUSPECT_MS);
    const oldest = suspects.reduce<MemoryHolder | null>((a, h) => (!a || h.runningMs > a.runningMs ? h : a), null);
    if (oldest) {
      for (const h of suspects) if (h.user === oldest.user) h.stop(this.opts.suspectError(rss, h.runningMs));
      this.holderStoppedAt = now;
      this.lastRss = rss;
      this.opts.onStopped?.(rss, 'suspect', 0, oldest.user);
      return;
    }
  }
}
