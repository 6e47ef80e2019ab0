/**
 * A verified version's files: where a data file lives, what size and sha256 it must have (files.json
 * where it says, else the catalog), and making files readable — local ones hashed unless the
 * verification ledger knows them unchanged, remote ones downloaded into the file cache (hashed while
 * downloading) and pinned. A mismatch is XX001 naming the file, logged and counted.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SqlError, SQLSTATE, isSqlError } from '../errors.js';
import { openRegular } from '../regular-file.js';
import { AbsentObjectError, checkKey, type ObjectStore } from '../store/store.js';
import type { FileCache, Lease } from '../cache/file-cache.js';
import type { VerificationLedger } from '../state/verification-ledger.js';
import type { CatalogEntry, FilesIndex } from './records.js';
import type { LocalVerifier } from './local-verify.js';
import type { DataFile, DataHashPolicy, DownloadProgress, IntegrityFailure, VerifiedVersion } from './types.js';
import type { VersionMeta } from './version-meta.js';

export class VersionFiles {
  constructor(
    private readonly repoName: string,
    readonly store: ObjectStore,
    readonly dataDir: string,
    private readonly dataHashes: DataHashPolicy,
    private readonly fileCache: FileCache | null,
    readonly verification: VerificationLedger,
    readonly local: LocalVerifier,
    private readonly onIntegrityFailure: (f: IntegrityFailure) => void,
  ) {}

  remoteCache(): FileCache {
    if (!this.fileCache)
      throw new SqlError(
        SQLSTATE.internalError,
        `repository ${this.repoName} is remote but no file cache (cache dir) is configured`,
      );
    return this.fileCache;
  }

  /** Size and sha256 a data file must have: files.json where it says, else the catalog's size. */
  private expectation(id: string, f: DataFile, index: FilesIndex | null): { size?: number; sha256?: string } {
    const listed = index?.files.get(f.path);
    if (listed?.size !== undefined && f.size !== undefined && listed.size !== f.size) {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        `size mismatch: ${this.dataDir}${f.path}: files.json of version ${id} says ${listed.size} bytes, its catalog ${f.size}`,
      );
    }
    if (this.dataHashes === 'require' && !listed?.sha256) {
      throw new SqlError(
        SQLSTATE.invalidAuthorization,
        `version ${id} has no sha256 for ${this.dataDir}${f.path}: repository ${this.repoName} requires hash-covered data (--data-hashes require)`,
      );
    }
    return { size: listed?.size ?? f.size, ...(listed?.sha256 ? { sha256: listed.sha256 } : {}) };
  }

  /** A verification failure becomes XX001 naming the file by its path in the repository; logged and counted. */
  private integrityFailure(id: string, key: string, e: unknown): unknown {
    if (!isSqlError(e) || e.sqlstate !== SQLSTATE.dataCorrupted) return e;
    const what = /^(size|sha256) mismatch/.exec(e.message)?.[1];
    const message = what
      ? `${what} mismatch: ${key} (version ${id} of repository ${this.repoName})`
      : `${e.message} (version ${id} of repository ${this.repoName})`;
    if (what && !this.store.localPath) this.verification.countMismatch(); // local mismatches the ledger counted itself
    this.onIntegrityFailure({ repository: this.repoName, version: id, file: key, message });
    return new SqlError(
      SQLSTATE.dataCorrupted,
      message,
      e.detail,
      what ? 'the file differs from what the signed version says; it is not used until it verifies' : undefined,
    );
  }

  /** The handle of a version whose metadata and catalog were verified (leases: the catalog's pin, if remote). */
  handle(
    id: string,
    meta: VersionMeta,
    catalog: CatalogEntry,
    catalogFile: string,
    dataset: unknown,
    leases: Lease[],
    index: FilesIndex | null,
  ): VerifiedVersion {
    const repo = this;
    const dataKey = (rel: string): string => {
      if (
        /^[a-z][a-z0-9+.-]*:/i.test(rel) ||
        rel.startsWith('/') ||
        rel.includes('\\') ||
        rel.split('/').some((c) => c === '..' || c === '.' || c === '')
      ) {
        throw new SqlError(SQLSTATE.dataCorrupted, `data file outside data_dir: ${rel}`);
      }
      return checkKey(`${repo.dataDir}${rel}`);
    };
    // a file's key and expected size/sha256 are fixed for the version: worked out once per file
    const checks = new Map<string, { key: string; expect: { size?: number; sha256?: string } }>();
    const checked = (f: DataFile) => {
      const id2 = `${f.size ?? ''}/${f.path}`;
      let c = checks.get(id2);
      if (!c) checks.set(id2, (c = { key: dataKey(f.path), expect: repo.expectation(id, f, index) }));
      return c;
    };
    let closed = false;
    return {
      id,
      version: meta.record,
      catalog,
      catalogFile,
      dataset,
      signature: meta.signature,
      dataDir: repo.dataDir,
      locate(rel: string): string {
        const key = dataKey(rel);
        // remote: the cache name ensureFiles downloads to (content-addressed when files.json has a sha256)
        return repo.store.localPath
          ? repo.store.localPath(key)
          : repo.remoteCache().pathFor(repo.store, key, { sha256: index?.files.get(rel)?.sha256 });
      },
      async readVerified(f: DataFile): Promise<Buffer> {
        const { key, expect } = checked(f);
        if (!repo.store.localPath) return readFile(this.locate(f.path));
        const bytes = await readRegular(repo.store.localPath(key)).catch((e: unknown) => {
          throw repo.integrityFailure(
            id,
            key,
            new SqlError(SQLSTATE.dataCorrupted, `cannot read ${key}: ${(e as { code?: string }).code ?? 'I/O error'}`),
          );
        });
        const mismatch =
          expect.size !== undefined && bytes.length !== expect.size
            ? new SqlError(
                SQLSTATE.dataCorrupted,
                'size mismatch',
                `the file has ${bytes.length} bytes, the signed version says ${expect.size}`,
              )
            : expect.sha256 && createHash('sha256').update(bytes).digest('hex') !== expect.sha256.toLowerCase()
              ? new SqlError(
                  SQLSTATE.dataCorrupted,
                  'sha256 mismatch',
                  `the bytes read differ from the sha256 the signed version says (${expect.sha256})`,
                )
              : undefined;
        if (mismatch) {
          repo.verification.countMismatch();
          throw repo.integrityFailure(id, key, mismatch);
        }
        return bytes;
      },
      async ensureFiles(files: DataFile[], onProgress?: (p: DownloadProgress) => void): Promise<Lease> {
        const got: Lease[] = [];
        const release = () => got.forEach((l) => l.release());
        try {
          const queue = files.map((f) => ({ f, ...checked(f) }));
          const store = repo.store;
          // local: the path resolved and confined once (fs-store.ts statLocal), then a plain lstat
          const local = store.localPath
            ? (key: string) => ({
                path: store.localPath!(key),
                stats: store.statLocal ? store.statLocal(key) : undefined,
              })
            : null;
          const cache = local ? null : repo.remoteCache();
          // remote: refuse up front (53100) what the disk budget cannot hold
          cache?.checkFits(
            store,
            queue.map((q) => ({ key: q.key, spec: q.expect })),
          );
          const started = Date.now();
          const progress = {
            files: 0,
            totalFiles: queue.length,
            bytes: 0,
            totalBytes: queue.reduce((n, q) => n + (q.f.size ?? 0), 0),
          };
          // a few in parallel: hides download latency, keeps both cores busy hashing local files
          const worker = async () => {
            for (let item = queue.shift(); item; item = queue.shift()) {
              const { key, expect } = item;
              try {
                if (local) {
                  const { path, stats } = local(key);
                  await repo.verification.verify(path, key, expect, stats);
                } else {
                  // a signed version's file that is not there is as unusable as one with other bytes
                  const lease = await cache!.acquire(repo.store, key, expect).catch((e: unknown) => {
                    throw e instanceof AbsentObjectError
                      ? new SqlError(SQLSTATE.dataCorrupted, `data file missing: ${key}`)
                      : e;
                  });
                  got.push(lease);
                }
                progress.files++;
                progress.bytes += item.f.size ?? 0;
                onProgress?.({ ...progress, elapsedMs: Date.now() - started });
              } catch (e) {
                throw repo.integrityFailure(id, key, e);
              }
            }
          };
          const parallel = cache ? cache.downloadConcurrency : 4;
          // On a failure the queue is emptied and every worker is waited for: a download still
          // running then pins its file after the failure, and that pin must be released with the rest.
          const stopping = async () => {
            try {
              await worker();
            } catch (e) {
              queue.length = 0;
              throw e;
            }
          };
          const settled = await Promise.allSettled(Array.from({ length: Math.min(parallel, queue.length) }, stopping));
          const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failed) throw failed.reason;
        } catch (e) {
          release();
          throw e;
        }
        let done = false;
        return { path: '', release: () => (done ? undefined : ((done = true), release())) };
      },
      async holdCached(files: DataFile[]): Promise<{ lease: Lease; missing: Set<string> }> {
        const got: Lease[] = [];
        const missing = new Set<string>();
        const cache = repo.store.localPath ? null : repo.remoteCache();
        try {
          for (const f of files) {
            if (!cache) continue;
            const held = await cache.holdIfCached(repo.store, dataKey(f.path), repo.expectation(id, f, index));
            if (held) got.push(held);
            else missing.add(f.path);
          }
        } catch (e) {
          got.forEach((l) => l.release());
          throw e;
        }
        let done = false;
        return {
          lease: { path: '', release: () => (done ? undefined : ((done = true), got.forEach((l) => l.release()))) },
          missing,
        };
      },
      async recheckCatalog(): Promise<void> {
        if (repo.store.localPath) await repo.local.verify(catalogFile, id, catalog.path, catalog.sha256, catalog.size);
      },
      unchangedNow(files: readonly DataFile[]): boolean {
        const store = repo.store;
        if (!store.localPath || !store.statLocal) return false;
        if (!repo.local.unchangedNow(catalogFile, catalog.sha256)) return false;
        let hits = 0;
        try {
          for (const f of files) {
            const { key, expect } = checked(f);
            if (!repo.verification.verifiedNow(store.localPath(key), expect, store.statLocal(key))) return false;
            if (expect.sha256) hits++;
          }
        } catch {
          return false; // ensureFiles says why, as an integrity failure naming the file
        }
        repo.verification.countHits(hits);
        return true;
      },
      close(): void {
        if (closed) return;
        closed = true;
        leases.forEach((l) => l.release());
      },
    };
  }
}

/** A file's whole bytes, read only if it is a regular file (regular-file.ts). */
async function readRegular(path: string): Promise<Buffer> {
  const fh = await openRegular(path);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
