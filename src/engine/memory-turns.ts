/**
 * One repository's DuckDB instance has one memory pool: `memory_limit` is a global setting in DuckDB
 * 1.5.6, and no setting bounds what one connection or one query takes of it. Every hash join,
 * aggregate and decorrelated subquery of a statement pins at least about a megabyte of it (its first
 * blocks, per thread), whatever its rows — and keeps it after its result was read: a DuckDB prepared
 * statement holds its last run's operator state (hash tables, column data) until it runs again or is
 * destroyed, and the gateway keeps statements (named ones, 64 per session in the statement cache).
 * 20 scalar subqueries over `pg_settings` (each three correlated lookups of the session's variables:
 * nine hash tables) pinned 240 MB of a 244 MiB pool (duckdb_memory(): 183 MB of hash tables, 52 MB
 * of column data), during the run and after it, and another session's statement asking for a block
 * failed 53200 (an attacker review: 3 of 25 of another user's ordinary statements).
 *
 * So a statement's start that fails for memory (1) has every session of the instance let go of the
 * operator state of the statements it keeps and is not running (`onPressure`: each is prepared again
 * at its next run), then (2) is tried again **alone**: the starts and chunk fetches of every other
 * session of the instance wait while it waits for those in flight to return (ALONE_WAIT_MS at most)
 * and while it starts (ALONE_HOLD_MS at most in all: a call DuckDB cannot interrupt must not hold the
 * instance). Between attempts the others run on, so a result read on ends and gives its memory back.
 * A statement that still fails alone, ATTEMPTS times, needs more of the pool than is there: its
 * 53200 stands — the offender's answer, not its victims'. The other calls that take blocks and can
 * simply run again wait their turn the same way (`retriedOn`): every prepare on a session's connection
 * (engine.ts), a new connection's set-up (session-connections.ts) and a session's start-up. Memory a result holds while it stays open
 * (a cursor its client does not read) is not taken back: see docs/security.md.
 */

/** How long an attempt alone waits for the calls in flight to return before it starts anyway. */
export const ALONE_WAIT_MS = 8_000;
/** How long others wait for an attempt alone, all told (its wait, then its start): a start DuckDB cannot interrupt must not hold the instance. */
export const ALONE_HOLD_MS = 15_000;
/** Attempts alone after the first failure. */
export const ATTEMPTS = 3;
/** Pause before the second and third attempt alone (times the attempt's number). */
const PAUSE_MS = 100;

/** Races a wait with the running statement's stop (its StatementClock's `bound`). */
type Bound = <W>(waiting: Promise<W>) => Promise<W>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** DuckDB's own words for a block it could not get (allocate or pin) within memory_limit. */
export const isOutOfMemory = (e: unknown): boolean =>
  /^Out of Memory Error/i.test(String((e as Error | undefined)?.message ?? ''));

/**
 * The same, once reported as a SqlError (fromDuckDB): 53200 with DuckDB's words for a block of the
 * pool (the memory watchdog's 53200 stops a running statement and is not retried).
 */
const isPoolFull = (e: unknown): boolean =>
  isOutOfMemory(e) ||
  ((e as { sqlstate?: string } | undefined)?.sqlstate === '53200' &&
    /^failed to (?:allocate|pin) /.test(String((e as Error).message)));

/**
 * Calls are keyed by what they run on (a session's connection): DuckDB runs one call per connection,
 * so a call on a connection that already has one admitted, or holds the attempt alone, is part of
 * that call (a prepare inside a statement's start, a session's start-up) and runs at once, its
 * failure left to the outer call to retry.
 */
export class MemoryTurns {
  private inFlight = 0;
  /** Keys with a call admitted now (how many each). */
  private readonly admitted = new Map<object, number>();
  /** An attempt alone waiting or running, and its key: other calls wait for it, until `aloneUntil`. */
  private alone: Promise<void> | null = null;
  private holder: object | null = null;
  private aloneUntil = 0;
  private drained: (() => void)[] = [];
  /** Per session: let go of the operator state of the statements it keeps and is not running. */
  private readonly releasers = new Set<() => void>();
  /** Statements started again alone, and those that failed alone too (tests, logs). */
  retried = 0;
  failedAlone = 0;

  /** `release` is called when a start failed for memory; the returned function unregisters it. */
  onPressure(release: () => void): () => void {
    this.releasers.add(release);
    return () => this.releasers.delete(release);
  }

  private within(key: object): boolean {
    return key === this.holder || this.admitted.has(key);
  }

  /** A call on `key`: after an attempt alone, not during one (ALONE_HOLD_MS at most). */
  async shared<T>(key: object, work: () => Promise<T>): Promise<T> {
    if (this.within(key)) return work();
    while (this.alone && Date.now() < this.aloneUntil)
      await Promise.race([this.alone, sleep(this.aloneUntil - Date.now())]);
    this.inFlight++;
    this.admitted.set(key, (this.admitted.get(key) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const n = this.admitted.get(key)! - 1;
      if (n === 0) this.admitted.delete(key);
      else this.admitted.set(key, n);
      if (--this.inFlight === 0) for (const wake of this.drained.splice(0)) wake();
    }
  }

  /**
   * Start a statement on `key` (`start`, a call of its session, not through `shared`): when it fails
   * for memory, start it again alone, up to ATTEMPTS times. After each failure `own.free` lets go of
   * what the failed run keeps (at once, before another attempt alone may start) and `own.again`
   * makes the statement ready to run again; `own.stopped` says it was stopped meanwhile (its error
   * then is the stop's, not memory's); `bound` races each wait with the statement's stop.
   */
  async start<T>(
    key: object,
    start: () => Promise<T>,
    own: { free(): void; again(): Promise<void>; stopped(): boolean },
    bound: Bound,
  ): Promise<T> {
    if (this.within(key)) return start();
    try {
      return await this.shared(key, start);
    } catch (e) {
      if (!isOutOfMemory(e) || own.stopped()) throw e;
      own.free();
    }
    this.retried++;
    for (let attempt = 1; ; attempt++) {
      for (const release of this.releasers) release();
      try {
        // Made ready (prepared again: its memory was given back) alone too: a prepare needs blocks of
        // the pool as well, and one that failed for memory outside the attempt was another user's 53200.
        return await this.once(
          key,
          async () => {
            await own.again();
            return start();
          },
          own,
          bound,
        );
      } catch (e) {
        if (!isOutOfMemory(e) || own.stopped()) throw e;
        if (attempt >= ATTEMPTS) {
          this.failedAlone++;
          throw e;
        }
      }
      await bound(sleep(PAUSE_MS * attempt));
    }
  }

  /** A call on `key` that may simply run again (a prepare, a session's start-up): `retriedOn` with that key. */
  retriedCall<T>(key: object, work: () => Promise<T>): Promise<T> {
    return this.within(key) ? work() : this.retriedOn(() => key, work);
  }

  /**
   * A call that may run again when it failed for memory: a prepare, a new connection's set-up, a
   * session's start-up (startup settings, the version's USE, the session's variables). Each attempt
   * takes its key first (`take`: the connection it runs on, outside any hold); when `work` fails for
   * memory, the instance's sessions let go of what their kept statements hold and it is tried again
   * alone, up to ATTEMPTS times (each ALONE_HOLD_MS at most): another user filling the pool makes it
   * wait its turn, not fail. `work` must undo its own work when it fails (a session opened is closed
   * again), so that it can run anew.
   */
  async retriedOn<K extends object, T>(take: () => K | Promise<K>, work: (key: K) => Promise<T>): Promise<T> {
    const first = await take();
    try {
      return await this.shared(first, () => work(first));
    } catch (e) {
      if (!isPoolFull(e)) throw e;
    }
    this.retried++;
    for (let n = 1; ; n++) {
      for (const release of this.releasers) release();
      const key = await take();
      try {
        return await this.once(
          key,
          () => work(key),
          { free: () => undefined },
          (w) => w,
        );
      } catch (e) {
        if (!isPoolFull(e)) throw e;
        if (n >= ATTEMPTS) {
          this.failedAlone++;
          throw e;
        }
      }
      await sleep(PAUSE_MS * n);
    }
  }

  /** One attempt alone on `key`: the others wait; it waits for those in flight (ALONE_WAIT_MS at most). */
  private async once<T>(key: object, start: () => Promise<T>, own: { free(): void }, bound: Bound): Promise<T> {
    while (this.alone) await bound(this.alone);
    let release!: () => void;
    this.alone = new Promise<void>((r) => (release = r));
    this.holder = key;
    this.aloneUntil = Date.now() + ALONE_HOLD_MS;
    try {
      if (this.inFlight > 0) {
        const drained = new Promise<void>((r) => this.drained.push(r));
        await bound(Promise.race([drained, sleep(ALONE_WAIT_MS)]));
      }
      try {
        return await start();
      } catch (e) {
        // what this run pinned goes before anyone else's attempt alone starts
        if (isOutOfMemory(e)) own.free();
        throw e;
      }
    } finally {
      this.alone = null;
      this.holder = null;
      release();
    }
  }
}

const turns = new WeakMap<object, MemoryTurns>();

/** The turns of one DuckDB instance (or of whatever object stands for its pool). */
export function memoryTurnsOf(pool: object): MemoryTurns {
  let t = turns.get(pool);
  if (!t) turns.set(pool, (t = new MemoryTurns()));
  return t;
}
