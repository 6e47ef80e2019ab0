/**
 * The one way a small state file is replaced on disk: written to a temp file beside it, fsynced,
 * renamed over the old one, then the directory fsynced so the rename itself survives a crash.
 * A reader sees the old file or the new one, never a part.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(4).toString('hex')}`;
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(file));
}

/** Makes a rename in `dir` durable; some filesystems refuse fsync on a directory, which is harmless. */
export async function syncDir(dir: string): Promise<void> {
  let d;
  try {
    d = await open(dir, 'r');
    await d.sync();
  } catch {
    /* best effort: the file itself is complete either way */
  } finally {
    await d?.close().catch(() => undefined);
  }
}
