/**
 * The one way a file is replaced on disk: written to a temp file beside it, fsynced, renamed over
 * the old one, then the directory fsynced so the rename itself survives a crash. A reader sees the
 * old file or the new one, never a part.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = tempBeside(file);
  try {
    await writeDurable(tmp, data, mode);
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(file));
}

/**
 * A temp name beside `file`, `<file>.tmp-<pid>-<hex>`: it names this process, so `fdl gc` knows
 * whose a temp file left by a killed writer is (host/inventory.ts).
 */
export function tempBeside(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** A new file at `path` (never an existing one) holding `data`, fsynced and closed. */
export async function writeDurable(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const fh = await open(path, 'wx', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Errors of a filesystem (or platform) that cannot fsync a directory: the rename is as durable as
 * it gets there. Any other error (EIO…) is a real failure and is thrown.
 */
const NO_DIR_FSYNC = new Set([
  'EINVAL',
  'ENOTSUP',
  'EOPNOTSUPP',
  'EISDIR',
  ...(process.platform === 'win32' ? ['EPERM'] : []),
]);

/** Makes a rename in `dir` durable. */
export async function syncDir(dir: string): Promise<void> {
  let d;
  try {
    d = await open(dir, 'r');
    await d.sync();
  } catch (e) {
    if (!NO_DIR_FSYNC.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await d?.close().catch(() => undefined);
  }
}
