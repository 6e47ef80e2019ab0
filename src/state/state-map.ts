/**
 * A small string → JSON value map kept in the state directory, one file per repository location
 * (like the tag ledger): what the gateway has seen and must not forget when the store changes under
 * it (branch high-water marks, expiries). Every change is written atomically (temp file, fsync,
 * rename, directory fsync) before the caller goes on; an unreadable file stops the repository from
 * opening rather than forgetting what it held.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqlError, SQLSTATE } from '../errors.js';
import { writeFileAtomic } from '../atomic-file.js';
import { Slots } from '../serial.js';

export class StateMap<V> {
  /** Each write replaces the whole file: one at a time. */
  private readonly writes = new Slots();

  private constructor(
    private readonly file: string | null,
    private readonly entries: Map<string, V>,
  ) {}

  /**
   * `dir` null keeps the map in memory only. `accept` keeps the entries of the file it can use
   * (a hand-edited value of the wrong shape is left out, never trusted).
   */
  static async open<V>(
    dir: string | null,
    repositoryLocation: string,
    what: string,
    accept: (v: unknown) => v is V,
  ): Promise<StateMap<V>> {
    if (dir === null) return new StateMap<V>(null, new Map());
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${createHash('sha256').update(repositoryLocation).digest('hex').slice(0, 32)}.json`);
    const entries = new Map<string, V>();
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as { entries?: Record<string, unknown> };
      for (const [k, v] of Object.entries(raw.entries ?? {})) if (accept(v)) entries.set(k, v);
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT') {
        throw new SqlError(
          SQLSTATE.ioError,
          `cannot read the ${what} ${file}: ${(e as Error).message}`,
          undefined,
          'remove the file only if you trust the repository',
        );
      }
    }
    return new StateMap<V>(file, entries);
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Records `key → value` and resolves once it is on disk. */
  set(key: string, value: V): Promise<void> {
    this.entries.set(key, value);
    const file = this.file;
    if (!file) return Promise.resolve();
    // serialised: each write replaces the whole file with the current map
    return this.writes.run(() =>
      writeFileAtomic(file, JSON.stringify({ entries: Object.fromEntries(this.entries) }, null, 1)),
    );
  }
}
