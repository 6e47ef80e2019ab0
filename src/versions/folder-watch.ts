/**
 * The names on the way to the files a run reads, watched while DuckDB reads them (issue 23). A local repository is
 * read in place and DuckDB opens a file by its path: a writer who renames a data file's folder away, puts a folder
 * with a forged file under the same name and renames the genuine one back before the run ends leaves every file's
 * own identity the verified one, so no stat before or after the run sees it. Comparing the folders' ctime (session
 * 55) saw it, but also every publish that adds files beside them. What tells the two apart is the name: a publish
 * only adds files and folders under new names and never moves a data file or a folder of one, while a swap renames
 * or deletes one of the names the run's paths go through. So each folder on those paths, from the repository's root
 * down to the files' own folder, is watched (inotify through `fs.watch`, one watcher per folder shared by every
 * run and closed with its last), and an event on one of those names — the next folder of a path, a file the run
 * reads, or the folder itself moved or deleted — bumps the folder's generation. A run's watch is set before its
 * files are re-checked (so what it checks is what the watches are on) and compared once DuckDB has read its last
 * row, once the loop has read the events queued before it (WatchedRun.changed).
 *
 * A folder that cannot be watched (ENOSPC past `fs.inotify.max_user_watches`, a file system without inotify) falls
 * back to its identity with its ctime, compared the same way: it fails closed — a swap is still seen, and a publish
 * into that folder during the run ends it XX001 too (a warning says so once). Not seen: changes a file system does
 * not report to inotify (another host's writes on a network file system), and events lost to a full inotify queue
 * (libuv drops IN_Q_OVERFLOW silently: `fs.inotify.max_queued_events` changes queued before the loop reads them).
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** A file a run reads: its located path and its path in the data folder (how many folders up its root is). */
export interface ReadFile {
  readonly path: string;
  readonly rel: string;
}

class WatchedFolder {
  /** Bumped by an event on a name some run watches here (or by a watcher error). */
  generation = 0;
  private runs = 0;
  private idle: NodeJS.Timeout | undefined;
  private readonly names = new Map<string, number>();

  constructor(
    readonly path: string,
    /** The folder's device and inode when it was watched: a watch follows that inode, not the path. */
    readonly id: string,
    private readonly watcher: FSWatcher,
  ) {
    watcher.on('change', (_type, name) => {
      // no name (never on Linux) is taken as any name
      if (name === null || this.names.has(String(name))) this.generation++;
    });
    watcher.on('error', () => {
      this.generation++;
      this.close();
    });
  }

  hold(names: Iterable<string>): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    this.runs++;
    for (const n of names) this.names.set(n, (this.names.get(n) ?? 0) + 1);
  }

  release(names: Iterable<string>): void {
    for (const n of names) {
      const left = (this.names.get(n) ?? 1) - 1;
      if (left > 0) this.names.set(n, left);
      else this.names.delete(n);
    }
    // kept a while after its last run: a watch made and closed per statement cost ~1 ms of CPU each (statement-cost)
    if (--this.runs <= 0) this.idle = setTimeout(() => this.close(), IDLE_WATCH_MS).unref();
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    if (watched.get(this.path) === this) watched.delete(this.path);
    this.watcher.close();
  }
}

const watched = new Map<string, WatchedFolder>();
/** How long a folder no run reads stays watched. */
const IDLE_WATCH_MS = 60_000;
let warnedUnwatched = false;

/** Where a folder that cannot be watched (said once) and a run that saw a name change are told (gateway.ts: its log). */
export const folderWatchLog = {
  unwatched: (folder: string, code: string): void =>
    process.emitWarning(`${folder} cannot be watched (${code}): runs compare its ctime instead`),
  swapped: (folders: readonly string[]): void => void folders,
};

/** A folder's device and inode ('absent' if none), with its ctime when `withCtime` (the fallback's identity). */
function folderId(path: string, withCtime = false): string {
  try {
    const st = statSync(path, { bigint: true });
    return withCtime ? `${st.dev}:${st.ino}:${st.ctimeNs}` : `${st.dev}:${st.ino}`;
  } catch {
    return 'absent';
  }
}

/** To the end of this turn of the event loop: past the poll phase that reads the inotify events pending. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WatchedRun {
  private readonly held: { folder: WatchedFolder; names: string[]; at: number }[] = [];
  private readonly unwatched: { path: string; id: string }[] = [];
  /** A folder already replaced when its watch was set. */
  private readonly seenSwapped: string[] = [];
  private released = false;

  /** Watch `names` in `path` (folders top-down: a folder swapped after its parent's watch is set is seen there). */
  add(path: string, names: string[]): void {
    const id = folderId(path);
    let folder = watched.get(path);
    if (folder && folder.id !== id) {
      // the path names another folder now: that watcher follows the old one (its runs saw the swap in the parent)
      watched.delete(path);
      folder.generation++;
      folder = undefined;
    }
    if (!folder) {
      let watcher: FSWatcher;
      try {
        watcher = watch(path, { persistent: false });
      } catch (e) {
        // gone (the re-check that follows refuses its files) or not watchable: its ctime is compared instead
        const code = (e as NodeJS.ErrnoException).code ?? String(e);
        if (!warnedUnwatched && code !== 'ENOENT' && code !== 'ENOTDIR') {
          warnedUnwatched = true;
          folderWatchLog.unwatched(path, code);
        }
        this.unwatched.push({ path, id: folderId(path, true) });
        return;
      }
      folder = new WatchedFolder(path, id, watcher);
      // replaced between the stat and the watch: the watch may be on another folder than `id` says
      if (folderId(path) !== id) {
        this.seenSwapped.push(path);
        watcher.close();
        return;
      }
      watched.set(path, folder);
    }
    folder.hold(names);
    this.held.push({ folder, names, at: folder.generation });
  }

  /**
   * Whether a watched name changed since the run's watch was set: asked once DuckDB has read the run's last row, one
   * turn of the loop later. A rename is queued by the kernel as it happens, so before the read that met its result,
   * and so before that read's completion woke the loop: the poll phase that runs the completion also reads the inotify
   * events queued before it (in the same batch, or an earlier one), and a check after one setImmediate comes after
   * that poll phase. Lets the watches go.
   */
  async changed(): Promise<boolean> {
    if (this.held.length > 0) await turn();
    const changed = [
      ...this.seenSwapped,
      ...this.held.filter((h) => h.folder.generation !== h.at).map((h) => h.folder.path),
      ...this.unwatched.filter((u) => folderId(u.path, true) !== u.id).map((u) => u.path),
    ];
    this.release();
    if (changed.length > 0) folderWatchLog.swapped(changed);
    return changed.length > 0;
  }

  /**
   * Whether a watched name changed so far, the watches kept: asked before a suspended run's rows are answered as a
   * success (PortalSuspended, a FETCH), since a client need not read a run to its end (attacker review, session 56).
   */
  async changedYet(): Promise<boolean> {
    if (this.held.length > 0) await turn();
    return (
      this.seenSwapped.length > 0 ||
      this.held.some((h) => h.folder.generation !== h.at) ||
      this.unwatched.some((u) => folderId(u.path, true) !== u.id)
    );
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    for (const h of this.held) h.folder.release(h.names);
  }
}

/** The folders to watch for some files, parents first, each with the names in it on the way to them. */
export type WatchPlan = readonly { readonly folder: string; readonly names: string[] }[];

/**
 * The folders on the way to `files`, parents first, each with the names in it on the way to them: from `root` (the
 * repository's real folder, as the store resolved the files' paths under it) down to each file's own folder, whatever
 * the depth — a `data_dir` of several parts or a table folder that is a symlink resolves deeper than a file's path in
 * the data folder says, and counting from that path had left the folders between unwatched (attacker review, session
 * 56). Without `root`, from the folder `rel`'s depth + 1 above each file (its data folder's parent).
 */
export function watchPlan(files: Iterable<ReadFile>, root?: string): WatchPlan {
  const names = new Map<string, Set<string>>();
  const want = (folder: string, name: string) => {
    let set = names.get(folder);
    if (!set) names.set(folder, (set = new Set()));
    set.add(name);
  };
  for (const f of files) {
    const levels = root ? Infinity : f.rel.split('/').length + 1;
    let child = f.path;
    let i = 1;
    let top = false;
    for (; i <= levels; i++) {
      const folder = dirname(child);
      if (folder === child) break; // the file system's root: `root` was not above the file
      if (names.get(folder)?.has(basename(child))) break; // the rest of the way is wanted already
      want(folder, basename(child));
      child = folder;
      if (child === root) {
        top = true;
        break;
      }
    }
    // the root itself renamed away and back (its watcher reports its own move under its own name)
    if (top || i > levels) want(child, basename(child));
  }
  const depth = (folder: string) => folder.split('/').length;
  return [...names.keys()]
    .sort((a, b) => depth(a) - depth(b))
    .map((folder) => ({ folder, names: [...names.get(folder)!] }));
}

/** Watch what `plans` name for one run (set before its files are re-checked); null when they name nothing. */
export function watchRun(plans: Iterable<WatchPlan>): WatchedRun | null {
  let run: WatchedRun | null = null;
  for (const plan of plans) for (const { folder, names } of plan) (run ??= new WatchedRun()).add(folder, names);
  return run;
}
