/**
 * A file is trusted as the bytes hashed only if the path names the very file opened for the hash: a store
 * writer who swaps a folder above it between the gateway's stat and its open (and back afterwards) leaves the
 * file's own identity untouched, so a fingerprint taken from the stat alone vouched for bytes never hashed.
 * The swap is made deterministic by holding every libuv thread in a FIFO's open while it happens: the stat has
 * run (synchronously), the open waits in the queue, and runs after the swap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalVerifier } from '../src/resolver/local-verify.js';
import { VerificationLedger } from '../src/state/verification-ledger.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Runs `start` (which stats synchronously and queues an open on libuv's pool) while every pool thread waits
 * in a FIFO's open, then `swap`, then lets the pool go. `done`: what `start` began.
 */
async function withPoolHeld(
  dir: string,
  start: () => Promise<void>,
  swap: () => void,
): Promise<{ done: Promise<void> }> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const fifos = Array.from({ length: threads }, (_, i) => join(dir, `hold-${i}`));
  for (const f of fifos) execFileSync('mkfifo', [f]);
  const held = fifos.map((f) => open(f, 'r')); // each takes a pool thread until a writer opens it
  await new Promise((r) => setTimeout(r, 100));
  const done = start();
  done.catch(() => undefined); // asserted by the caller, after the pool is let go
  swap();
  for (const f of fifos) closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
  for (const h of held) await (await h).close();
  return { done };
}

/** versions/v1/<file> holds the forged bytes; a folder swapped in over versions/v1 holds the genuine ones. */
function layout(dir: string, file: string): { path: string; swapIn: () => void; swapBack: () => void } {
  const served = join(dir, 'versions', 'v1');
  const genuine = join(dir, 'genuine', 'v1');
  mkdirSync(served, { recursive: true });
  mkdirSync(genuine, { recursive: true });
  writeFileSync(join(served, file), 'forged bytes!');
  writeFileSync(join(genuine, file), 'genuine bytes');
  return {
    path: join(served, file),
    swapIn: () => {
      renameSync(served, join(dir, 'aside'));
      renameSync(genuine, served);
    },
    swapBack: () => {
      renameSync(served, genuine);
      renameSync(join(dir, 'aside'), served);
    },
  };
}

test("a catalog's folder swapped between the stat and the hash is refused, and the forged file is not trusted after", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hash-swap-'));
  try {
    const { path, swapIn, swapBack } = layout(dir, 'catalog.ducklake');
    const verifier = new LocalVerifier('demo');
    const want = sha('genuine bytes');
    const { done } = await withPoolHeld(dir, () => verifier.verify(path, 'v1', 'catalog.ducklake', want, 13), swapIn);
    await assert.rejects(done, { sqlstate: 'XX001', message: /changed while it was verified/ });
    swapBack();
    assert.equal(verifier.unchangedNow(path, want), false, 'the forged catalog is not taken for the one hashed');
    await assert.rejects(verifier.verify(path, 'v1', 'catalog.ducklake', want, 13), {
      sqlstate: 'XX001',
      message: /sha256 mismatch/,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a data file's folder swapped between the stat and the hash is refused, and the ledger keeps nothing of it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hash-swap-'));
  try {
    const { path, swapIn, swapBack } = layout(dir, 'part-0.parquet');
    const ledger = await VerificationLedger.open(null);
    const expect = { size: 13, sha256: sha('genuine bytes') };
    const { done } = await withPoolHeld(dir, () => ledger.verify(path, 'part-0.parquet', expect), swapIn);
    await assert.rejects(done, { sqlstate: 'XX001', message: /changed while it was verified/ });
    swapBack();
    const { statSync } = await import('node:fs');
    assert.equal(ledger.verifiedNow(path, expect, statSync(path)), false, 'the forged file is not taken as verified');
    await assert.rejects(ledger.verify(path, 'part-0.parquet', expect), {
      sqlstate: 'XX001',
      message: /sha256 mismatch/,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file left alone verifies once and is then trusted from its stat', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hash-swap-'));
  try {
    const path = join(dir, 'catalog.ducklake');
    writeFileSync(path, 'genuine bytes');
    const verifier = new LocalVerifier('demo');
    await verifier.verify(path, 'v1', 'catalog.ducklake', sha('genuine bytes'), 13);
    assert.equal(verifier.unchangedNow(path, sha('genuine bytes')), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a catalog's folder renamed away and back after its hash (another catalog read meanwhile) is no longer taken as verified", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-hash-swap-'));
  try {
    const { path, swapIn, swapBack } = layout(dir, 'catalog.ducklake');
    writeFileSync(path, 'genuine bytes'); // the served folder holds the genuine catalog, verified first
    const verifier = new LocalVerifier('demo');
    const want = sha('genuine bytes');
    await verifier.verify(path, 'v1', 'catalog.ducklake', want, 13);
    assert.equal(verifier.unchangedNow(path, want), true);
    // the writer's folder swap and back: the file is the same inode with the same times
    swapIn();
    swapBack();
    assert.equal(verifier.unchangedNow(path, want), false, 'a folder above it was renamed meanwhile');
    await verifier.verify(path, 'v1', 'catalog.ducklake', want, 13); // hashed again: the genuine bytes
    assert.equal(verifier.unchangedNow(path, want), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
