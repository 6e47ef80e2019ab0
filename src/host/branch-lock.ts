/**
 * A local branch's lock, `<ref>.lock`, as git takes it, naming its writer (writer-id.ts: host, boot,
 * pid, start time): so the next writer, `fdl gc` and `fdl verify` know a lock left by a killed writer,
 * and clear it.
 */
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { thisWriter, writerState, type WriterId } from './writer-id.js';

/**
 * A writer names itself in its lock right after creating it and holds it for well under a second (the
 * ref's swap), so a lock that still names no writer after a minute was left by a process killed in
 * between (or by an fdl that wrote none): nobody can be holding it.
 */
const UNNAMED_LOCK_STALE_MS = 60_000;

async function olderThan(path: string, ms: number): Promise<boolean> {
  return stat(path).then(
    (st) => Date.now() - st.mtimeMs > ms,
    () => false,
  );
}

/** Takes the lock at `path` exclusively and names this writer in it; false when another holds it. */
export async function takeLock(path: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx', 0o644);
  } catch (e) {
    if ((e as { code?: string })?.code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(JSON.stringify(thisWriter()) + '\n');
    await fh.sync();
  } catch (e) {
    await unlink(path).catch(() => undefined);
    throw e;
  } finally {
    await fh.close().catch(() => undefined);
  }
  return true;
}

/** Who holds the lock at `path` (of `key`), in words (for the refusal). */
export async function lockHolder(path: string, key: string): Promise<string> {
  const w = await lockWriter(path);
  return w
    ? `${key}.lock is held by process ${w.pid} on ${w.host}`
    : `${key}.lock exists and names no writer; remove it if no writer is running`;
}

async function lockWriter(path: string): Promise<WriterId | null> {
  try {
    const w = JSON.parse(await readFile(path, 'utf8')) as Partial<WriterId>;
    return typeof w.host === 'string' && Number.isInteger(w.pid) ? (w as WriterId) : null;
  } catch {
    return null;
  }
}

/**
 * A lock whose writer's process is gone from this host (killed between lock and rename) is removed;
 * returns whether one was. A live or unknown writer's lock stays.
 */
export async function clearDeadLock(path: string): Promise<boolean> {
  const w = await lockWriter(path);
  if (w ? writerState(w) !== 'dead' : !(await olderThan(path, UNNAMED_LOCK_STALE_MS))) return false;
  await unlink(path).catch(() => undefined);
  return true;
}

/** Whether a lock exists at `path`. */
export async function isLocked(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
