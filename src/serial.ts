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

/**
 * Slots shared in turn among owners (users): a slot given back goes to the next owner waiting after
 * the last one served (round robin), each owner's own work in arrival order. One owner's many waiting
 * tasks delay only that owner: another's next task waits for at most one task of each owner ahead of it.
 */
export class FairSlots {
  private free: number;
  /** Waiting owners in turn order (a Map keeps insertion order): an owner served moves to the back. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(size = 1) {
    this.free = size;
  }

  async acquire(owner: string): Promise<() => void> {
    if (this.free > 0) this.free--;
    else
      await new Promise<void>((r) => {
        const mine = this.waiting.get(owner);
        if (mine) mine.push(r);
        else this.waiting.set(owner, [r]);
      });
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const first = this.waiting.entries().next();
      if (first.done) {
        this.free++;
        return;
      }
      const [next, queue] = first.value;
      const wake = queue.shift()!;
      this.waiting.delete(next);
      if (queue.length > 0) this.waiting.set(next, queue);
      wake();
    };
  }

  /** `work` in a slot of `owner`'s turn. Its failure is the caller's; other work runs all the same. */
  async run<T>(owner: string, work: () => Promise<T> | T): Promise<T> {
    const release = await this.acquire(owner);
    try {
      return await work();
    } finally {
      release();
    }
  }
}
