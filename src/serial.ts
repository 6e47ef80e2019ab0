/**
 * Work that must not overlap, in one mechanism: at most `size` at a time, the rest waiting in
 * arrival order. One slot is a serial queue (a ledger's writes; a DuckDB connection that takes one
 * statement at a time) or a lock held across awaits (acquire); more are a semaphore (prepare slots).
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size = 1) {
    this.free = size;
  }

  /** Resolves, once a slot is ours, to the function that gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }

  /** `work` in a slot. Its failure is the caller's; the work queued after it runs all the same. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Resolves once the work queued so far (on a single slot) has finished, failed or not. */
  async idle(): Promise<void> {
    (await this.acquire())();
  }
}
