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

  constructor(options: RefCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 2000;
    this.entries = new LRUCache({ max: options.maxEntries ?? 10_000 });
  }

  /** The object's bytes, or null when absent; at most `ttlMs` old. */
  get(store: ObjectStore, key: string, maxBytes: number): Promise<Buffer | null> {
    const id = `${store.location}\0${key}`;
    const cached = this.entries.get(id);
    if (cached && Date.now() - cached.fetchedAt < this.ttlMs) {
      this.counters.hits++;
      return Promise.resolve(cached.body);
    }
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
      const entry: Entry = res === null || res === 'not-modified' ? { body: null, fetchedAt: now } : { body: res.body, etag: res.etag, fetchedAt: now };
      this.entries.set(id, entry);
      return entry.body;
    });
  }

  /** Forget one key (or everything for a store), e.g. on `SET fdl.ref` to force a fresh read. */
  invalidate(store?: ObjectStore, key?: string): void {
    if (!store) return this.entries.clear();
    const prefix = `${store.location}\0${key ?? ''}`;
    for (const k of [...this.entries.keys()]) if (key ? k === prefix : k.startsWith(prefix)) this.entries.delete(k);
  }

  stats(): RefCacheStats {
    return { entries: this.entries.size, ...this.counters };
  }
}
