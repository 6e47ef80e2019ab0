/**
 * Attached versions: each version's catalog is attached once and shared by every session reading
 * it. Reference counts keep a version in use attached; idle versions beyond `maxIdle` in number, or
 * beyond `maxIdleBytes` by what they are estimated to hold (Attached.heldBytes), are detached, least
 * recently used first. A number alone let a store writer park 16 versions with large catalogs
 * (a branch moved 16 times): ~1 GB held by versions no session used (attacker review, session 49).
 */
import { LRUCache } from 'lru-cache';
import { degraded } from '../degraded.js';

export interface Attached {
  readonly dbName: string;
  /** What it is estimated to hold in memory while idle (versions/version-footprint.ts). */
  readonly heldBytes: number;
  /** Detach from DuckDB and release files (called once, when no lease is left). */
  dispose(): Promise<void>;
}

export interface AttachedLease<T extends Attached> {
  readonly value: T;
  release(): void;
}

interface Entry<T> {
  value: T;
  refs: number;
}

/** The cache counts sizes as positive integers. */
const idleSize = (a: Attached) => (Number.isFinite(a.heldBytes) ? Math.max(1, Math.ceil(a.heldBytes)) : 1);

export class AttachedVersions<T extends Attached> {
  private readonly live = new Map<string, Entry<T>>();
  private readonly loading = new Map<string, Promise<T>>();
  /** Evicted versions still detaching: attaching the same name again waits for it. */
  private readonly detaching = new Map<string, Promise<void>>();
  private readonly idle: LRUCache<string, Entry<T>>;
  /** In use when their engine was replaced: disposed at their last release (retire). */
  private readonly retiring = new Set<Entry<T>>();
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(
    maxIdle: number,
    /** Bytes the idle versions may hold together. */
    private readonly maxIdleBytes: number = Number.MAX_SAFE_INTEGER,
  ) {
    this.idle = new LRUCache<string, Entry<T>>({
      max: Math.max(1, maxIdle),
      maxSize: Math.max(1, maxIdleBytes),
      sizeCalculation: (entry) => idleSize(entry.value),
      dispose: (entry, key, reason) => {
        // 'set' / 'delete' happen when an idle version is taken back into use: keep it.
        if (reason === 'evict') this.detach(key, entry);
      },
    });
  }

  get size(): number {
    return this.live.size + this.idle.size;
  }

  /** The idle versions' estimated bytes together. */
  get idleBytes(): number {
    return this.idle.calculatedSize;
  }

  private detach(key: string, entry: Entry<T>): void {
    this.evictions++;
    const done: Promise<void> = entry.value
      .dispose()
      .catch((e: unknown) => degraded('detach', `detaching ${entry.value.dbName} failed: ${(e as Error).message}`))
      .finally(() => {
        if (this.detaching.get(key) === done) this.detaching.delete(key);
      });
    this.detaching.set(key, done);
  }

  /** Parked for the next session, or detached at once when it alone is over the byte budget (the cache would drop it undisposed). */
  private park(key: string, e: Entry<T>): void {
    if (idleSize(e.value) > this.maxIdleBytes) this.detach(key, e);
    else this.idle.set(key, e);
  }

  /** Lease `key`, attaching it with `load` on first use; concurrent first uses share one load. */
  async acquire(key: string, load: () => Promise<T>): Promise<AttachedLease<T>> {
    let entry = this.live.get(key);
    if (!entry) {
      const parked = this.idle.get(key);
      if (parked) {
        this.idle.delete(key);
        this.live.set(key, parked);
        entry = parked;
      }
    }
    if (entry) {
      this.hits++;
    } else {
      let pending = this.loading.get(key);
      if (!pending) {
        this.misses++;
        const detached = this.detaching.get(key);
        pending = (detached ? detached.then(load) : load()).finally(() => this.loading.delete(key));
        this.loading.set(key, pending);
      } else this.hits++;
      const value = await pending;
      entry = this.live.get(key);
      if (!entry) {
        entry = { value, refs: 0 };
        this.live.set(key, entry);
      }
    }
    entry.refs++;
    const e = entry;
    let released = false;
    return {
      value: e.value,
      release: () => {
        if (released) return;
        released = true;
        e.refs--;
        if (e.refs === 0 && this.live.get(key) === e) {
          this.live.delete(key);
          this.park(key, e);
        } else if (e.refs === 0 && this.retiring.delete(e)) void this.let(e);
      },
    };
  }

  /**
   * The versions whose key matches were attached in an engine that was replaced (engine-failure):
   * each is disposed now when idle, else once its last lease is released; never leased again. A
   * failure to detach is expected there (the instance is closed) and not reported: disposing lets
   * go of the files and connections all the same.
   */
  async retire(matches: (key: string) => boolean): Promise<void> {
    const now: Entry<T>[] = [];
    for (const [key, e] of [...this.idle.entries()]) {
      if (!matches(key)) continue;
      this.idle.delete(key); // reason 'delete': not disposed by the LRU's hook
      now.push(e);
    }
    for (const [key, e] of [...this.live.entries()]) {
      if (!matches(key)) continue;
      this.live.delete(key);
      this.retiring.add(e);
    }
    await Promise.all(now.map((e) => this.let(e)));
  }

  private async let(e: Entry<T>): Promise<void> {
    await e.value.dispose().catch(() => undefined);
  }

  /** Detach everything (shutdown). */
  async clear(): Promise<void> {
    const all = [...this.live.values(), ...this.idle.values()];
    this.live.clear();
    this.idle.clear();
    await Promise.all([
      ...all.map((e) =>
        e.value
          .dispose()
          .catch((err: unknown) => degraded('detach', `detaching ${e.value.dbName} failed: ${(err as Error).message}`)),
      ),
      ...this.detaching.values(),
    ]);
  }
}
