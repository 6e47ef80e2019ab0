/**
 * Mutable small objects (HEAD, refs/*, refs.json, expired.json, "does this version exist yet"):
 * cached for a short TTL, then revalidated with a conditional GET on the ETag, so a branch that
 * did not move costs one 304 and no body. Absence is cached for the same TTL. Concurrent
 * lookups of one key share one request.
 */
import { LRUCache } from 'lru-cache';
import type { ObjectStore } from '../store/store.js';
import { SingleFlight } from './single-flight.js';

interface Entry {
  body: Buffer | null;
  etag?: string;
  fetchedAt: number;
}

/**
 * How long a value derived from several reads stays as fresh as they are: until the earliest of
 * their TTLs ends (or the cache is invalidated). Pass one to `get` for each read it depends on.
 */
export interface Freshness {
  until: number;
  readonly epoch: number;
}

export interface RefCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
}

export interface RefCacheStats {
  entries: number;
  hits: number;
  misses: number;
  revalidations: number;
  notModified: number;
}

export class RefCache {
  readonly ttlMs: number;
  private readonly entries: LRUCache<string, Entry>;
  private readonly flights = new SingleFlight<Buffer | null>();
  private counters = { hits: 0, misses: 0, revalidations: 0, notModified: 0 };
  /** Bumped by invalidate: values derived before it are stale. */
  private epoch = 0;

  constructor(options: RefCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 2000;
    this.entries = new LRUCache({ max: options.maxEntries ?? 10_000 });
  }

  /** A fresh tracker for a value about to be derived from reads through this cache. */
  freshness(): Freshness {
    return { until: Infinity, epoch: this.epoch };
  }

  /** Whether a value derived with `f` is still within the TTL of every read it depends on. */
  isFresh(f: Freshness): boolean {
    return f.epoch === this.epoch && Date.now() < f.until;
  }

  /** Narrows `f` to a read made at `fetchedAt` (also for callers with TTL-bound state of their own). */
  narrow(f: Freshness | undefined, fetchedAt: number): void {
    if (f) f.until = Math.min(f.until, fetchedAt + this.ttlMs);
  }

  /** The object's bytes, or null when absent; at most `ttlMs` old. `seen` is narrowed to this read's TTL. */
  get(store: ObjectStore, key: string, maxBytes: number, seen?: Freshness): Promise<Buffer | null> {
    const id = `${store.location}\0${key}`;
    const cached = this.entries.get(id);
    if (cached && Date.now() - cached.fetchedAt < this.ttlMs) {
      this.counters.hits++;
      this.narrow(seen, cached.fetchedAt);
      return Promise.resolve(cached.body);
    }
    if (seen) {
      return this.fetch(store, key, id, maxBytes).then((body) => {
        this.narrow(seen, this.entries.peek(id)?.fetchedAt ?? 0);
        return body;
      });
    }
    return this.fetch(store, key, id, maxBytes);
  }

  private fetch(store: ObjectStore, key: string, id: string, maxBytes: number): Promise<Buffer | null> {
    return this.flights.run(id, async () => {
      const prev = this.entries.get(id);
      if (prev?.etag !== undefined) this.counters.revalidations++;
      else this.counters.misses++;
      const res = await store.get(key, { ifNoneMatch: prev?.etag, maxBytes });
      const now = Date.now();
      if (res === 'not-modified' && prev) {
        this.counters.notModified++;
        this.entries.set(id, { ...prev, fetchedAt: now });
        return prev.body;
      }
      const entry: Entry =
        res === null || res === 'not-modified'
          ? { body: null, fetchedAt: now }
          : { body: res.body, etag: res.etag, fetchedAt: now };
      this.entries.set(id, entry);
      return entry.body;
    });
  }

  /** Forget one key (or everything for a store), e.g. on `SET fdl.ref` to force a fresh read. */
  invalidate(store?: ObjectStore, key?: string): void {
    this.epoch++;
    if (!store) return this.entries.clear();
    const prefix = `${store.location}\0${key ?? ''}`;
    for (const k of [...this.entries.keys()]) if (key ? k === prefix : k.startsWith(prefix)) this.entries.delete(k);
  }

  stats(): RefCacheStats {
    return { entries: this.entries.size, ...this.counters };
  }
}
