/**
 * Files from remote stores on local disk, under a byte budget. Names are content addresses
 * (sha256 when known, else the hash of store+key: data files never change once written).
 * Downloads go through ObjectStore.download (temp → verify → fsync → rename), so a file under
 * its final name is always complete. A pinned file (in use by a query) is never evicted.
 * Files found on disk at startup are not trusted: before first use a content-addressed file is
 * hashed again (a mismatch is counted, deleted and downloaded afresh), any other is downloaded again.
 * While running, each file's identity on disk (size, mtime, ctime, inode) is remembered from when it
 * was verified and compared at every use: a file changed under the gateway is verified again first.
 */
import { createHash } from 'node:crypto';
import { hashFile } from '../state/verification-ledger.js';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import type { ObjectStore } from '../store/store.js';
import { PART_MARK } from '../store/verified-write.js';
import { SingleFlight } from './single-flight.js';
import { SqlError, SQLSTATE } from '../errors.js';

export interface FileSpec {
  sha256?: string;
  size?: number;
}

export interface Lease {
  readonly path: string;
  /** Unpins the file; idempotent. */
  release(): void;
}

export interface FileCacheStats {
  entries: number;
  bytes: number;
  pinned: number;
  hits: number;
  misses: number;
  downloads: number;
  /** Bytes fetched from stores since start (fdl_store_bytes_downloaded_total). */
  downloadedBytes: number;
  evictions: number;
  /** Bytes of files pinned by running queries and attached versions' views (never evicted). */
  pinnedBytes: number;
  /** Highest number of bytes on disk (cached + being downloaded) since start. */
  peakBytes: number;
  /** Files whose bytes differed from their content address when re-verified (then replaced). */
  mismatches: number;
  maxBytes: number;
}

export class FileCache {
  /** name → size, in least-recently-used-first order (Map keeps insertion order). */
  private readonly entries = new Map<string, number>();
  private readonly pins = new Map<string, number>();
  private readonly flights = new SingleFlight<void>();
  /** Adopted at startup and not yet re-verified by this process. */
  private readonly adopted = new Set<string>();
  /** How each verified file looked on disk when it was verified (see identityOf). */
  private readonly identities = new Map<string, string>();
  private bytes = 0;
  /** Bytes of downloads in flight: room for them is made before they start. */
  private reserved = 0;
  private peak = 0;
  private counters = { hits: 0, misses: 0, downloads: 0, downloadedBytes: 0, evictions: 0, mismatches: 0 };
  /** Told about every cached file found tampered with (logging); set by the owner. */
  onMismatch: (name: string, detail: string) => void = () => undefined;

  private constructor(
    readonly dir: string,
    readonly maxBytes: number,
    readonly downloadConcurrency: number,
  ) {}

  /** Opens (creating) the cache dir; leftovers of interrupted downloads are removed, the rest reused. */
  static async open(
    dir: string,
    options: { maxBytes?: number; downloadConcurrency?: number } = {},
  ): Promise<FileCache> {
    await mkdir(dir, { recursive: true });
    const cache = new FileCache(dir, options.maxBytes ?? 10 * 1024 ** 3, Math.max(1, options.downloadConcurrency ?? 8));
    const found: { name: string; size: number; used: number }[] = [];
    for (const area of await readdir(dir)) {
      const areaPath = join(dir, area);
      const st = await stat(areaPath).catch(() => null);
      // Files outside any store's area are from before areas: fetched again when needed.
      if (!st?.isDirectory()) {
        await unlink(areaPath).catch(() => {});
        continue;
      }
      for (const file of await readdir(areaPath)) {
        const name = `${area}/${file}`;
        const p = join(dir, name);
        if (file.includes(PART_MARK)) {
          await unlink(p).catch(() => {});
          continue;
        }
        const fst = await stat(p).catch(() => null);
        if (fst?.isFile()) found.push({ name, size: fst.size, used: fst.mtimeMs });
      }
    }
    found.sort((a, b) => a.used - b.used);
    for (const f of found) {
      cache.add(f.name, f.size);
      cache.adopted.add(f.name);
    }
    await cache.evict();
    return cache;
  }

  /** Where the object lives (or will live) in the cache; stable across restarts. */
  pathFor(store: ObjectStore, key: string, spec: FileSpec = {}): string {
    return join(this.dir, this.nameFor(store, key, spec));
  }

  /**
   * The folder of one store's files. Each repository's DuckDB instance may open its own area only
   * (engine/engines.ts), so the same content served by two repositories is kept twice.
   */
  areaDir(store: ObjectStore): string {
    return join(this.dir, areaOf(store));
  }

  private nameFor(store: ObjectStore, key: string, spec: FileSpec): string {
    const ext = extname(key);
    const suffix = /^\.[a-z0-9]{1,10}$/i.test(ext) ? ext : '';
    if (spec.sha256) return `${areaOf(store)}/sha256-${spec.sha256.toLowerCase()}${suffix}`;
    return `${areaOf(store)}/obj-${createHash('sha256').update(`${store.location}\0${key}`).digest('hex')}${suffix}`;
  }

  /** Ensures the object is present and verified, pinned until the lease is released. */
  async acquire(store: ObjectStore, key: string, spec: FileSpec = {}): Promise<Lease> {
    const name = this.nameFor(store, key, spec);
    const path = join(this.dir, name);
    this.pin(name);
    try {
      const st = this.entries.has(name) ? await stat(path).catch(() => null) : null;
      if (st?.isFile() && (await this.reverify(name, path, spec, st))) {
        this.counters.hits++;
        this.touch(name);
      } else {
        this.drop(name); // vanished from disk behind our back
        this.counters.misses++;
        await this.flights.run(name, async () => {
          if (this.entries.has(name)) return;
          const room = spec.size ?? 0;
          // reserved before room is made: parallel downloads each see the others' reservations
          this.reserved += room;
          try {
            await this.makeRoom(0);
            this.peak = Math.max(this.peak, this.bytes + this.reserved);
            await mkdir(dirname(path), { recursive: true });
            await store.download(key, path, { sha256: spec.sha256, expectedSize: spec.size });
          } finally {
            this.reserved -= room;
          }
          this.counters.downloads++;
          const st = await stat(path);
          this.counters.downloadedBytes += st.size;
          this.add(name, st.size);
          this.identities.set(name, identityOf(st)); // verified while it downloaded
          this.peak = Math.max(this.peak, this.bytes + this.reserved);
        });
        await this.evict();
      }
    } catch (e) {
      this.unpin(name);
      throw e;
    }
    return this.leaseFor(name, path);
  }

  /**
   * Pins the object only if it is already cached and verified (no download): a view built over
   * files fetched earlier keeps only those still on disk. null when it is not (or no longer) here.
   */
  async holdIfCached(store: ObjectStore, key: string, spec: FileSpec = {}): Promise<Lease | null> {
    const name = this.nameFor(store, key, spec);
    const path = join(this.dir, name);
    if (!this.entries.has(name)) return null;
    this.pin(name);
    try {
      const st = await stat(path).catch(() => null);
      if (!st?.isFile() || !(await this.reverify(name, path, spec, st))) {
        this.drop(name);
        this.unpin(name);
        return null;
      }
    } catch (e) {
      this.unpin(name);
      throw e;
    }
    this.counters.hits++;
    this.touch(name);
    return this.leaseFor(name, path);
  }

  private leaseFor(name: string, path: string): Lease {
    let released = false;
    return {
      path,
      release: () => {
        if (released) return;
        released = true;
        this.unpin(name);
        void this.evict();
      },
    };
  }

  /**
   * A file adopted at startup, or changed on disk since it was verified, is used only once it proves
   * to be what its name says: a sha256 address is re-hashed, anything else (no address to check
   * against) is fetched again.
   */
  private async reverify(name: string, path: string, spec: FileSpec, seen: Stats): Promise<boolean> {
    if (!this.adopted.has(name)) {
      if (this.identities.get(name) === identityOf(seen)) return true;
      this.adopted.add(name);
    }
    return this.flights
      .run(`verify:${name}`, async () => {
        if (!this.adopted.has(name)) return;
        const want = /(?:^|\/)sha256-([0-9a-f]{64})/.exec(name)?.[1];
        const before = want ? await stat(path).catch(() => null) : null;
        const got = before ? await hashFile(path).catch(() => null) : null;
        const after = got ? await stat(path).catch(() => null) : null;
        // the identity recorded is the one the hash saw: unchanged from before the read to after it
        const steady =
          before !== null &&
          after !== null &&
          got !== null &&
          identityOf(before) === identityOf(got.opened) &&
          identityOf(before) === identityOf(after);
        if (want && got && steady && got.sha256 === want && (spec.size === undefined || got.size === spec.size)) {
          this.adopted.delete(name);
          this.identities.set(name, identityOf(after));
          return;
        }
        if (want) {
          this.counters.mismatches++;
          this.onMismatch(name, got ? `hashes to ${got.sha256} (${got.size} bytes)` : 'unreadable');
        }
        this.adopted.delete(name);
        this.drop(name);
        await unlink(path).catch(() => {});
      })
      .then(() => this.entries.has(name));
  }

  stats(): FileCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      pinned: this.pins.size,
      pinnedBytes: this.pinnedBytes(),
      peakBytes: this.peak,
      maxBytes: this.maxBytes,
      ...this.counters,
    };
  }

  private pinnedBytes(except?: ReadonlySet<string>): number {
    let n = 0;
    for (const name of this.pins.keys()) if (!except?.has(name)) n += this.entries.get(name) ?? 0;
    return n;
  }

  /**
   * Refuse (53100) a working set the budget cannot hold next to the files other queries pin:
   * better one clear error than a disk filled past the budget. Sizes of files not yet cached are
   * the catalog's.
   */
  checkFits(store: ObjectStore, items: { key: string; spec: FileSpec }[]): void {
    const sizes = new Map<string, number>();
    for (const it of items) {
      const name = this.nameFor(store, it.key, it.spec);
      sizes.set(name, this.entries.get(name) ?? it.spec.size ?? 0);
    }
    const need = [...sizes.values()].reduce((a, b) => a + b, 0);
    const held = this.pinnedBytes(new Set(sizes.keys()));
    if (need + held > this.maxBytes) {
      throw new SqlError(
        SQLSTATE.diskFull,
        `the file cache budget (--cache-max-bytes ${this.maxBytes}) cannot hold this query's files: it needs ${need} bytes` +
          (held ? ` and ${held} bytes are pinned by open versions and running queries` : ''),
        undefined,
        'Filter on columns the files are partitioned or sorted by so fewer files are read, or raise --cache-max-bytes.',
      );
    }
  }

  /** Evict least recently used unpinned files until `incoming` more bytes fit the budget. */
  private async makeRoom(incoming: number): Promise<void> {
    for (const [name] of [...this.entries]) {
      if (this.bytes + this.reserved + incoming <= this.maxBytes) break;
      if (this.pins.has(name)) continue;
      this.drop(name);
      this.counters.evictions++;
      await unlink(join(this.dir, name)).catch(() => {});
    }
  }

  private add(name: string, size: number): void {
    this.drop(name);
    this.entries.set(name, size);
    this.bytes += size;
  }

  private drop(name: string): void {
    this.adopted.delete(name);
    this.identities.delete(name);
    const size = this.entries.get(name);
    if (size === undefined) return;
    this.entries.delete(name);
    this.bytes -= size;
  }

  private touch(name: string): void {
    const size = this.entries.get(name)!;
    this.entries.delete(name);
    this.entries.set(name, size);
    // In memory only: touching the file's times would change the identity it is checked by. After a
    // restart the order is the download order (mtime), which only makes eviction less precise.
  }

  private pin(name: string): void {
    this.pins.set(name, (this.pins.get(name) ?? 0) + 1);
  }

  private unpin(name: string): void {
    const n = (this.pins.get(name) ?? 1) - 1;
    if (n <= 0) this.pins.delete(name);
    else this.pins.set(name, n);
  }

  /** Removes least recently used unpinned files until the budget holds (or only pinned ones remain). */
  private async evict(): Promise<void> {
    if (this.bytes <= this.maxBytes) return;
    for (const [name] of [...this.entries]) {
      if (this.bytes <= this.maxBytes) break;
      if (this.pins.has(name)) continue;
      this.drop(name);
      this.counters.evictions++;
      await unlink(join(this.dir, name)).catch(() => {});
    }
  }
}

/** A file's identity on disk: any write, replacement or metadata change alters one of these. */
function identityOf(st: Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.dev}`;
}

const areas = new WeakMap<ObjectStore, string>();

/** A store's area: a name derived from its location, stable across restarts (hashed once per store). */
function areaOf(store: ObjectStore): string {
  let area = areas.get(store);
  if (area === undefined)
    areas.set(store, (area = `store-${createHash('sha256').update(store.location).digest('hex').slice(0, 24)}`));
  return area;
}
