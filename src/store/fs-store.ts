/**
 * A repository in a local folder, read in place. Keys are checked (no traversal) and every
 * resolved path must stay under the root's real path, so a symlink inside the repository
 * cannot expose files outside it.
 */
import { openRegular } from '../regular-file.js';
import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { SqlError, SQLSTATE } from '../errors.js';
import {
  checkKey,
  DEFAULT_LIMITS,
  ioError,
  tooLarge,
  type DownloadOptions,
  type GetOptions,
  type GetResult,
  type ObjectStore,
  type StoreLimits,
  AbsentObjectError,
} from './store.js';
import { writeVerified } from './verified-write.js';

const ABSENT = new Set(['ENOENT', 'ENOTDIR']);
const isAbsent = (e: unknown) => ABSENT.has((e as { code?: string })?.code ?? '');

/** A path handed out for in-place reading, and the identity of the file it led to when last confined. */
interface HandedOut {
  readonly path: string;
  dev: number;
  ino: number;
}

export class FsStore implements ObjectStore {
  readonly location: string;
  private readonly realRoot: string;
  /** key → the resolved path given to readers (DuckDB opens it); resolved once, re-resolved when it changes. */
  private readonly handedOut = new Map<string, HandedOut>();

  constructor(
    root: string,
    private readonly limits: StoreLimits = DEFAULT_LIMITS,
  ) {
    try {
      this.realRoot = realpathSync(root);
    } catch (e) {
      throw ioError(`cannot open repository folder ${root}`, e);
    }
    this.location = this.realRoot;
  }

  /** The checked absolute path of a key; throws when a symlink leads outside the root. */
  private async resolve(key: string): Promise<string> {
    const p = join(this.realRoot, checkKey(key));
    let real: string;
    try {
      real = await realpath(p);
    } catch (e) {
      if (isAbsent(e)) return p; // callers see the absence when they open it
      throw fsError(`cannot read ${key}`, e);
    }
    this.checkInside(real, key);
    return real;
  }

  private checkInside(real: string, key: string): void {
    if (real !== this.realRoot && !real.startsWith(this.realRoot + sep)) {
      throw new SqlError(SQLSTATE.ioError, `refusing ${key}: it is a link to a file outside the repository`);
    }
  }

  /**
   * The path to read `key` in place: resolved (no symlink left) and confined to the root the first
   * time, then the same path every time, so what a reader opens is what statLocal checks.
   */
  localPath(key: string): string {
    const known = this.handedOut.get(key);
    if (known) return known.path;
    const p = join(this.realRoot, checkKey(key));
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      return p;
    }
    this.checkInside(real, key);
    this.handedOut.set(key, { path: real, dev: -1, ino: -1 });
    return real;
  }

  /**
   * The stats of the file a reader of `localPath(key)` opens now, or null when there is none (or it
   * is not a regular file). Cheap while nothing changed: one lstat of the resolved path, which must
   * still be a regular file with the device and inode it had when last confined. A file swapped for
   * another, the path turned into a symlink, or a parent folder replaced by a link to another tree
   * each change that, and the path is then resolved and confined again (throws when it now leads
   * outside the root). Sameness of content is the caller's (verification ledger).
   */
  statLocal(key: string): Stats | null {
    const path = this.localPath(key);
    const known = this.handedOut.get(key);
    const st = statOrNull(lstatSync, path);
    if (known && st?.isFile() && st.ino === known.ino && st.dev === known.dev) return st;
    let real: string;
    try {
      real = realpathSync(path);
    } catch (e) {
      if (isAbsent(e)) return null;
      throw fsError(`cannot read ${key}`, e);
    }
    this.checkInside(real, key);
    const target = statOrNull(statSync, real);
    if (!target?.isFile()) return null;
    // only a plain file at the handed-out path may take the fast path next time
    if (known) [known.dev, known.ino] = st?.isFile() ? [target.dev, target.ino] : [-1, -1];
    return target;
  }

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    const p = await this.resolve(key);
    const max = options.maxBytes ?? this.limits.maxGetBytes;
    try {
      const st = await stat(p);
      if (!st.isFile()) return null;
      const etag = etagOf(st);
      if (options.ifNoneMatch !== undefined && options.ifNoneMatch === etag) return 'not-modified';
      if (st.size > max) throw tooLarge('the repository', key, max);
      const body = await readFile(p);
      if (body.length > max) throw tooLarge('the repository', key, max);
      return { body, etag };
    } catch (e) {
      if (isAbsent(e)) return null;
      if (e instanceof SqlError) throw e;
      throw fsError(`cannot read ${key}`, e);
    }
  }

  async head(key: string): Promise<{ size: number; etag?: string } | null> {
    const p = await this.resolve(key);
    try {
      const st = await stat(p);
      return st.isFile() ? { size: st.size, etag: etagOf(st) } : null;
    } catch (e) {
      if (isAbsent(e)) return null;
      throw fsError(`cannot read ${key}`, e);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = prefix.replace(/\/+$/, '');
    const dir = base === '' ? this.realRoot : await this.resolve(base);
    const out: string[] = [];
    const walk = async (abs: string, rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(abs, { withFileTypes: true });
      } catch (e) {
        if (isAbsent(e)) return;
        throw fsError(`cannot list ${rel || '/'}`, e);
      }
      for (const ent of entries) {
        const childRel = rel ? `${rel}/${ent.name}` : ent.name;
        if (ent.isDirectory()) await walk(join(abs, ent.name), childRel);
        else if (ent.isFile() || ent.isSymbolicLink()) out.push(childRel);
      }
    };
    await walk(dir, base);
    return out.sort();
  }

  async download(key: string, dest: string, options: DownloadOptions = {}): Promise<void> {
    const p = await this.resolve(key);
    // Opened before streaming: a stream that opens by itself reports a missing file as an 'error'
    // event, which can fire before anything listens and then ends the process.
    const fh = await openRegular(p).catch((e: unknown) => {
      if (isAbsent(e)) throw new AbsentObjectError(key, `${key} does not exist in the repository`);
      throw fsError(`cannot copy ${key}`, e);
    });
    const stream = fh.createReadStream();
    try {
      await writeVerified({ body: stream }, dest, { ...options, key, location: this.location });
    } catch (e) {
      if ((e as { cause?: unknown }).cause && isAbsent((e as { cause?: unknown }).cause)) {
        throw new AbsentObjectError(key, `${key} does not exist in the repository`);
      }
      if (e instanceof SqlError) throw e;
      throw fsError(`cannot copy ${key}`, e);
    } finally {
      stream.destroy();
    }
  }
}

function statOrNull(how: (p: string, o: { throwIfNoEntry: false }) => Stats | undefined, path: string): Stats | null {
  try {
    return how(path, { throwIfNoEntry: false }) ?? null;
  } catch (e) {
    if (isAbsent(e)) return null;
    throw e;
  }
}

/** Size, mtime and inode change whenever a writer replaces a ref file (writers rename into place). */
function etagOf(st: { size: number; mtimeMs: number; ino: number }): string {
  return `"${st.size}-${Math.floor(st.mtimeMs * 1000)}-${st.ino}"`;
}

/**
 * Errors a client may see name keys relative to the repository root, never the folder's absolute
 * path: the cause is reduced to its code (a Node message quotes the absolute path).
 */
function fsError(message: string, cause: unknown): SqlError {
  const code = (cause as { code?: unknown })?.code;
  return new SqlError(SQLSTATE.ioError, `${message}: ${typeof code === 'string' ? code : 'I/O error'}`);
}
