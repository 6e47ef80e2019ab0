/**
 * A repository's writing side in a local folder (write-target.ts): creates by temp file, fsync and
 * link(2) (atomic and exclusive), the refs index replaced atomically, branches moved under their lock
 * (branch-lock.ts); removals drop the folders they leave empty.
 */
import { createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, open, readFile, readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { checkKey } from '../store/store.js';
import { syncDir, tempBeside, writeDurable, writeFileAtomic } from '../atomic-file.js';
import { clearDeadLock, isLocked, lockHolder, takeLock } from './branch-lock.js';
import { BranchMovedError, readHashing, type Body, type WriteTarget } from './write-target.js';

const code = (e: unknown) => (e as { code?: string })?.code;

export class LocalTarget implements WriteTarget {
  readonly remote = false;
  readonly location: string;
  constructor(root: string) {
    this.location = resolve(root);
  }

  localPath(key: string): string {
    return join(this.location, checkKey(key));
  }

  async read(key: string) {
    try {
      const p = this.localPath(key);
      const [body, st] = await Promise.all([readFile(p), stat(p)]);
      return { body, etag: `${st.size}-${st.mtimeMs}-${st.ino}` };
    } catch (e) {
      if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return null;
      throw e;
    }
  }

  async exists(key: string) {
    try {
      return (await stat(this.localPath(key))).isFile();
    } catch {
      return false;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(join(this.location, rel), { withFileTypes: true });
      } catch (e) {
        if (code(e) === 'ENOENT' || code(e) === 'ENOTDIR') return;
        throw e;
      }
      for (const ent of entries) {
        const r = rel ? `${rel}/${ent.name}` : ent.name;
        if (ent.isDirectory()) await walk(r);
        else out.push(r);
      }
    };
    await walk(prefix.replace(/\/+$/, ''));
    return out.sort();
  }

  async listAged(prefix: string): Promise<{ key: string; modified: number }[]> {
    const out: { key: string; modified: number }[] = [];
    for (const key of await this.list(prefix)) {
      const st = await stat(this.localPath(key)).catch(() => null);
      if (st) out.push({ key, modified: st.mtimeMs });
    }
    return out;
  }

  async remove(key: string): Promise<void> {
    await unlink(this.localPath(key)).catch((e) => {
      if (code(e) !== 'ENOENT') throw e;
    });
    await this.dropEmpty(dirname(this.localPath(key)));
  }

  async removeTree(prefix: string): Promise<void> {
    const dir = this.localPath(prefix.replace(/\/+$/, ''));
    await rm(dir, { recursive: true, force: true });
    await this.dropEmpty(dirname(dir));
  }

  /** Folders a removal leaves empty go too (never the root): a rolled-back write leaves no trace. */
  private async dropEmpty(from: string): Promise<void> {
    let dir = from;
    while (dir.startsWith(this.location + '/')) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty (or gone): stop climbing
      }
      dir = dirname(dir);
    }
  }

  /** Temp file, fsync, then link(2): atomic and exclusive (EEXIST when the name is taken). */
  async create(key: string, body: Body): Promise<boolean> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    const tmp = tempBeside(dest);
    if (Buffer.isBuffer(body)) await writeDurable(tmp, body, 0o644);
    else if (!body.hash) await copyFile(body.file, tmp);
    else {
      await pipeline(readHashing(body.file, body.hash), createWriteStream(tmp, { flags: 'wx' }));
      const fh = await open(tmp, 'r+');
      await fh.sync().finally(() => fh.close());
    }
    if (!(await linkOnce(tmp, dest))) return false;
    await syncDir(dirname(dest));
    return true;
  }

  /** A file already written next to its destination becomes it without a copy. */
  adopt(key: string, file: string): Promise<boolean> {
    return linkOnce(file, this.localPath(key));
  }

  async put(key: string, body: Buffer): Promise<void> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    await writeFileAtomic(dest, body, 0o644);
  }

  /**
   * Git's protocol, with the lock naming its writer: take `<ref>.lock` exclusively (branch-lock.ts),
   * check the ref still holds what we built on, write the new ref by temp file and rename, drop the
   * lock. Two writers cannot both pass; a lock left by a writer whose process is gone from this host
   * is cleared first.
   */
  async swap(key: string, expected: string | null, body: Buffer): Promise<void> {
    const dest = this.localPath(key);
    await mkdir(dirname(dest), { recursive: true });
    const lock = `${dest}.lock`;
    await clearDeadLock(lock);
    if (!(await takeLock(lock)))
      throw new BranchMovedError(key, `is being moved by another writer (${await lockHolder(lock, key)})`);
    try {
      const cur = await this.read(key);
      const now = cur ? cur.body.toString('utf8').trim() : null;
      if (now !== expected)
        throw new BranchMovedError(key, `now points at ${now ?? 'nothing'}, expected ${expected ?? 'nothing'}`);
      await writeFileAtomic(dest, body, 0o644);
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  /** Who holds `<key>.lock`, in words (for the refusal). */
  lockHolder(key: string): Promise<string> {
    return lockHolder(`${this.localPath(key)}.lock`, key);
  }

  /** A `<key>.lock` whose writer's process is gone from this host is removed; returns whether one was. */
  clearDeadLock(key: string): Promise<boolean> {
    return clearDeadLock(`${this.localPath(key)}.lock`);
  }

  /** Before any work: a branch another live writer is moving right now is refused; a dead writer's lock goes. */
  async checkLock(key: string): Promise<void> {
    const lock = `${this.localPath(key)}.lock`;
    await clearDeadLock(lock);
    if (await isLocked(lock))
      throw new BranchMovedError(key, `is being moved by another writer (${await lockHolder(lock, key)})`);
  }
}

/** `file` becomes `dest` by link(2), atomic and exclusive (false when the name is taken); `file`'s own name goes either way. */
async function linkOnce(file: string, dest: string): Promise<boolean> {
  try {
    await link(file, dest);
  } catch (e) {
    if (code(e) === 'EEXIST') return false;
    throw e;
  } finally {
    await unlink(file).catch(() => undefined);
  }
  return true;
}
