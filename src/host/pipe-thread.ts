/**
 * Worker body for hashed output (see hashed-output.ts): one task at a time, it opens a named pipe
 * for reading (blocking this thread, never the main thread's I/O pool, until DuckDB opens the other
 * end), copies what DuckDB writes into the real file while hashing it, and reports size and sha256
 * when DuckDB closes the pipe.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { PipeReply, PipeTask } from './hashed-output.js';

const port = parentPort!;
const buf = Buffer.allocUnsafe(1024 * 1024);

port.on('message', (t: PipeTask) => {
  try {
    port.postMessage(copy(t) satisfies PipeReply);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    port.postMessage({ op: 'failed', id: t.id, message: err.message, code: err.code } satisfies PipeReply);
  }
});

function copy(t: PipeTask): PipeReply {
  const from = openSync(t.pipe, 'r');
  port.postMessage({ op: 'opened', id: t.id } satisfies PipeReply);
  let to: number | null = null;
  const h = createHash('sha256');
  let size = 0;
  try {
    for (;;) {
      const n = readSync(from, buf, 0, buf.length, null);
      if (n === 0) break;
      to ??= openSync(t.dest, 'wx', 0o644);
      h.update(buf.subarray(0, n));
      for (let off = 0; off < n;) off += writeSync(to, buf, off, n - off);
      size += n;
    }
  } finally {
    closeSync(from);
    if (to !== null) closeSync(to);
  }
  // Nothing written: a pipe DuckDB never used, released when the write finished.
  if (size === 0) {
    try {
      unlinkSync(t.dest);
    } catch {
      /* never created */
    }
  }
  return { op: 'done', id: t.id, size, sha256: h.digest('hex') };
}
