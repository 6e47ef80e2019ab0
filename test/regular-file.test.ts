/**
 * A repository's file is read only as a regular file, judged on the opened descriptor: a named pipe
 * swapped in by a store writer between a stat and an open by path is refused at once, where a plain open
 * waited for a writer and held the thread (attacker review, session 51: four such threads froze every
 * repository's logins).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotRegularFileError, openRegular } from '../src/regular-file.js';
import { hashFile } from '../src/state/verification-ledger.js';
import { LocalVerifier } from '../src/resolver/local-verify.js';

/** `work` settles within `ms`, or the test fails (a FIFO's open would wait forever). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('a named pipe where a data file or a catalog should be is refused at once; a regular file reads as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-fifo-'));
  try {
    const fifo = join(dir, 'data.parquet');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(within(2000, openRegular(fifo)), NotRegularFileError);
    await assert.rejects(within(2000, hashFile(fifo)), NotRegularFileError);
    const verifier = new LocalVerifier('demo');
    await assert.rejects(within(2000, verifier.verify(fifo, 'v1', 'catalog.ducklake', 'a'.repeat(64), 0)), {
      sqlstate: 'XX001',
    });
    const file = join(dir, 'real.parquet');
    writeFileSync(file, 'abc');
    const { sha256, size } = await hashFile(file);
    assert.deepEqual(
      { sha256, size },
      {
        sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        size: 3,
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
