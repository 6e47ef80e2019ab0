/**
 * A file of a repository opened for reading only if it is a regular file, judged on the descriptor:
 * a store writer who swaps a named pipe in between a stat and an open by path would otherwise hold the
 * thread that opens it (a FIFO's open waits for a writer) — four of libuv's threads held so froze every
 * repository's logins (attacker review, session 51). O_NONBLOCK makes a FIFO's open return at once; a
 * regular file reads as usual under it.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Thrown when the path names something other than a regular file (code `EFTYPE`). */
export class NotRegularFileError extends Error {
  readonly code = 'EFTYPE';
}

export async function openRegular(path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if ((await fh.stat()).isFile()) return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
  await fh.close();
  throw new NotRegularFileError('not a regular file');
}
