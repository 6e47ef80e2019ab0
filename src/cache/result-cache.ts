/**
 * Encoded results of repeatable queries. A version never changes, so a query that reads only the
 * version's tables through consistent functions returns the same rows every time it runs against
 * that version: dashboards that refresh, pool health checks (`SELECT 1`) and drivers' housekeeping
 * are answered from memory without a trip through DuckDB. Entries are the DataRow bytes exactly as
 * sent, keyed by everything that shaped them (see ResultKey); what is repeatable is decided by the
 * caller (analysis/determinism.ts).
 */
import { LRUCache } from 'lru-cache';

export interface CachedResult {
  /** Concatenated DataRow messages. */
  readonly rows: Buffer;
  readonly rowCount: number;
}

export interface ResultCacheOptions {
  /** Memory budget for all entries (bytes); 0 disables the cache. */
  maxBytes: number;
  /** Results larger than this are not kept (they stream instead). */
  maxEntryBytes: number;
}

/** Everything an encoded result depends on, besides the rows of the version. */
export interface ResultKey {
  versionId: string;
  /** The attached database the statement resolved names in. */
  database: string;
  /** Its attachment (VersionLease.attachId): the catalog emulation's OIDs are those of one attachment. */
  attachId: string;
  sql: string;
  /** The authenticated user (never a settable value): current_user and the like answer it. */
  user: string;
  /** Session parameters that change text output (TimeZone, extra_float_digits, ...). */
  settings: string;
  /** The parameters' types as prepared (declared or inferred): `$1 / 2` is 1 for int4, 1.5 for float8. */
  paramTypes: readonly number[];
  resultFormats: readonly number[];
  paramFormats: readonly number[];
  params: readonly (Buffer | null)[];
  /** The key as one string, made once per key object (a key reused for repeated runs is not rebuilt). */
  id?: string;
}

function keyOf(k: ResultKey): string {
  if (k.id !== undefined) return k.id;
  const params = k.params.map((p) => (p === null ? '-' : p.toString('base64'))).join(',');
  // \u0000 cannot occur in any part (SQL text, user and settings are NUL-free: the protocol's strings).
  return (k.id = [
    k.versionId,
    k.database,
    k.attachId,
    k.user,
    k.settings,
    k.paramTypes.join(','),
    k.resultFormats.join(''),
    k.paramFormats.join(''),
    params,
    k.sql,
  ].join('\u0000'));
}

export class ResultCache {
  private readonly entries: LRUCache<string, CachedResult> | null;
  readonly maxEntryBytes: number;
  hits = 0;
  misses = 0;
  /** Told the key of each entry that leaves the cache (evicted or deleted; not one replaced by its own key). */
  private readonly dropListeners: ((id: string) => void)[] = [];

  constructor(opts: ResultCacheOptions) {
    this.maxEntryBytes = Math.min(opts.maxEntryBytes, opts.maxBytes);
    this.entries =
      opts.maxBytes > 0
        ? new LRUCache<string, CachedResult>({
            maxSize: opts.maxBytes,
            sizeCalculation: (r, key) => r.rows.length + key.length,
            dispose: (_r, id, reason) => {
              if (reason !== 'set') for (const l of this.dropListeners) l(id);
            },
          })
        : null;
  }

  /** What else is kept for an entry (session/answered-texts.ts) goes with it. */
  onDrop(listener: (id: string) => void): void {
    this.dropListeners.push(listener);
  }

  /** The memory budget of all entries (bytes). */
  get maxBytes(): number {
    return this.entries?.maxSize ?? 0;
  }

  get enabled(): boolean {
    return this.entries !== null;
  }

  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  get(key: ResultKey): CachedResult | undefined {
    if (!this.entries) return undefined;
    const hit = this.entries.get(keyOf(key));
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  /** Whether an entry is kept under this key now (not counted as a hit or a miss, nor made recent). */
  has(key: ResultKey): boolean {
    return this.entries?.has(keyOf(key)) ?? false;
  }

  /** The key's one string (what drop listeners are told). */
  idOf(key: ResultKey): string {
    return keyOf(key);
  }

  set(key: ResultKey, result: CachedResult): void {
    if (!this.entries || result.rows.length > this.maxEntryBytes) return;
    this.entries.set(keyOf(key), result);
  }
}

/** Collects the DataRow bytes of one run, giving up once they exceed the entry limit. */
export class ResultRecorder {
  private parts: Buffer[] = [];
  private length = 0;
  private overflow = false;

  constructor(private readonly limit: number) {}

  /** Returns false once the result has outgrown the limit: nothing more needs to be offered. */
  add(bytes: Uint8Array): boolean {
    if (this.overflow) return false;
    this.length += bytes.length;
    if (this.length > this.limit) {
      this.overflow = true;
      this.parts = [];
      return false;
    }
    this.parts.push(Buffer.from(bytes));
    return true;
  }

  /** The recorded rows, or null when they grew past the limit. */
  finish(rowCount: number): CachedResult | null {
    if (this.overflow) return null;
    return { rows: this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.length), rowCount };
  }
}
