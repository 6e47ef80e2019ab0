/**
 * DuckDB's own opens of a repository's files, released when a named pipe holds them. DuckDB opens a
 * data file by path, without O_NONBLOCK: a store writer who renames a named pipe over a data file
 * between the gateway's re-check (versions/version-recheck.ts, one stat per file) and DuckDB's open
 * leaves DuckDB's thread in open() until the pipe gets a writer — for ever, and no interrupt reaches
 * a thread in a system call (attacker review, session 51: such threads froze every login). The
 * gateway's own readers never wait so (regular-file.ts); DuckDB's cannot be told to.
 *
 * So the kernel is asked which of this process's threads waits for a FIFO's writer (its current
 * system call an open, its wait channel `wait_for_partner`), the path that open names is read from
 * the thread's own arguments (/proc/self/mem), and the FIFO found there is opened for writing,
 * non-blocking, and closed at once: the waiting open returns, DuckDB reads end-of-file, fails the
 * read (the file is no Parquet file), and the statement ends with an error; the next statement's
 * re-check finds the file changed and refuses it (XX001). Only FIFOs are opened, and only for the
 * instant it takes; a pipe the writer has renamed away again meanwhile is looked for beside it.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readFile } from 'node:fs/promises';
import { openSync, readSync, closeSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** The open system calls by number, and which argument holds the path, on the architectures Node runs DuckDB on. */
const OPEN_CALLS: Record<string, Map<number, number>> = {
  x64: new Map([
    [2, 0], // open(path, …)
    [257, 1], // openat(dirfd, path, …)
    [437, 1], // openat2(dirfd, path, …)
  ]),
  arm64: new Map([
    [56, 1], // openat
    [437, 1], // openat2
  ]),
};
/** The kernel's wait of a FIFO's open for its other end (fs/pipe.c). */
const FIFO_WAIT = 'wait_for_partner';
const AT_FDCWD = 0xffffff9c;

/** A thread of this process waiting in an open of a FIFO: its id and the path its open names. */
export interface FifoOpen {
  tid: string;
  path: string;
}

/** The threads of this process that wait now in an open for a FIFO's writer (Linux; elsewhere none). */
export async function blockedFifoOpens(): Promise<FifoOpen[]> {
  const calls = OPEN_CALLS[process.arch];
  if (process.platform !== 'linux' || !calls) return [];
  let tids: string[];
  try {
    tids = await readdir('/proc/self/task');
  } catch {
    return [];
  }
  const found: FifoOpen[] = [];
  for (const tid of tids) {
    const task = `/proc/self/task/${tid}`;
    // the wait channel first: one read per thread in the usual case (nothing waits on a FIFO)
    const wchan = await readFile(`${task}/wchan`, 'utf8').catch(() => '');
    if (wchan.trim() !== FIFO_WAIT) continue;
    const syscall = (await readFile(`${task}/syscall`, 'utf8').catch(() => '')).trim().split(' ');
    const pathArg = calls.get(Number(syscall[0]));
    if (pathArg === undefined) continue;
    const pointer = syscall[1 + pathArg];
    const path = pointer && readCString(BigInt(pointer));
    if (!path) continue;
    const dirfd = pathArg === 1 ? Number(BigInt(syscall[1]!) & 0xffffffffn) : AT_FDCWD;
    found.push({ tid, path: isAbsolute(path) || dirfd === AT_FDCWD ? path : join(`/proc/self/fd/${dirfd}`, path) });
  }
  return found;
}

/** A NUL-terminated string at `address` of this process's memory (undefined when unreadable). */
function readCString(address: bigint): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync('/proc/self/mem', 'r');
    const parts: Buffer[] = [];
    let at = address;
    for (let total = 0; total < 4096;) {
      // never across a page boundary in one read: the next page may be unmapped
      const chunk = Buffer.alloc(Number(4096n - (at % 4096n)));
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (n <= 0) break;
      const end = chunk.subarray(0, n).indexOf(0);
      if (end >= 0) {
        parts.push(chunk.subarray(0, end));
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(chunk.subarray(0, n));
      total += n;
      at += BigInt(n);
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Opens the FIFO at `path` for writing without waiting, and closes it: a reader waiting in its open returns. */
async function wakeReaders(path: string): Promise<boolean> {
  let st: Stats;
  try {
    st = await lstat(path);
  } catch {
    return false;
  }
  if (!st.isFIFO()) return false;
  try {
    // ENXIO when no reader waits: nothing to do
    await (await open(path, constants.O_WRONLY | constants.O_NONBLOCK)).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Every open of this process waiting for a FIFO's writer released: the FIFO at the path it names is
 * opened for writing and closed; if none is there any more (renamed away after the open began),
 * every FIFO beside that path is. Returns the paths of the waits found (logged by the caller).
 */
export async function releaseFifoOpens(): Promise<string[]> {
  const waits = await blockedFifoOpens();
  for (const { path } of waits) {
    if (await wakeReaders(path)) continue;
    const dir = dirname(path);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) await wakeReaders(join(dir, name));
  }
  return waits.map((w) => w.path);
}
