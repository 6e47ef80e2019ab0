/**
 * Tags never move (spec Part 4). The ledger remembers, on disk, the version each tag of a
 * repository first resolved to; a later different answer is tampering (or a rewritten mirror)
 * and is refused, naming the recorded version (never the one the tag names now). One JSON file per repository location.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqlError, SQLSTATE } from '../errors.js';
import { writeFileAtomic } from '../atomic-file.js';
import { Slots } from '../serial.js';

export class TagLedger {
  /** Each write replaces the whole file: one at a time. */
  private readonly writes = new Slots();

  private constructor(
    private readonly file: string | null,
    private readonly tags: Map<string, string>,
  ) {}

  /** `dir` null keeps the ledger in memory only (no cache dir configured). */
  static async open(dir: string | null, repositoryLocation: string): Promise<TagLedger> {
    if (dir === null) return new TagLedger(null, new Map());
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${createHash('sha256').update(repositoryLocation).digest('hex').slice(0, 32)}.json`);
    const tags = new Map<string, string>();
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as { tags?: Record<string, unknown> };
      for (const [k, v] of Object.entries(raw.tags ?? {})) if (typeof v === 'string') tags.set(k, v);
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT') {
        throw new SqlError(
          SQLSTATE.ioError,
          `cannot read the tag ledger ${file}: ${(e as Error).message}`,
          undefined,
          'remove the file only if you trust the repository',
        );
      }
    }
    return new TagLedger(file, tags);
  }

  /** Records `tag → versionId` the first time; throws XX001 when the tag points elsewhere now. */
  async check(tag: string, versionId: string, repository: string): Promise<void> {
    const seen = this.tags.get(tag);
    if (seen === versionId) return;
    if (seen !== undefined) {
      throw new SqlError(
        SQLSTATE.dataCorrupted,
        // Not the version it names now: that may be any version of the repository, one the user
        // reading the tag has no grant for (the recorded one is what the tag gave them).
        `tag ${tag} of repository ${repository} moved from version ${seen}; tags never move, refusing it as tampering`,
        `the tag ledger in the state directory recorded ${tag} -> ${seen}; the ref file now names another version`,
      );
    }
    this.tags.set(tag, versionId);
    await this.persist();
  }

  get(tag: string): string | undefined {
    return this.tags.get(tag);
  }

  private persist(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    // serialised: each write replaces the whole file atomically with the current map
    // (a failed write fails the check that asked for it; the next write starts afresh)
    return this.writes.run(() =>
      writeFileAtomic(file, JSON.stringify({ tags: Object.fromEntries(this.tags) }, null, 1), 0o644),
    );
  }
}
