/**
 * Nothing dropped in silence (degraded.ts), and attached versions (cache/attached-versions.ts): an evicted version's DETACH finishes before the
 * same name is attached again — DuckDB refuses a second ATTACH of a name still attached.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttachedVersions, type Attached } from '../src/cache/attached-versions.js';
import { degradedCounts } from '../src/degraded.js';

/** Stands in for DuckDB's set of attached names: ATTACH of a present name fails, DETACH takes a while. */
function fakeEngine() {
  const attached = new Set<string>();
  let releaseDetach: () => void = () => undefined;
  const load = (dbName: string) => async (): Promise<Attached> => {
    if (attached.has(dbName)) throw new Error(`database "${dbName}" is already attached`);
    attached.add(dbName);
    return {
      dbName,
      heldBytes: 1,
      dispose: () =>
        new Promise<void>((r) => {
          releaseDetach = () => {
            attached.delete(dbName);
            r();
          };
        }),
    };
  };
  return { attached, load, finishDetach: () => releaseDetach() };
}

test('re-attaching a version whose eviction is still detaching waits for the DETACH', async () => {
  const engine = fakeEngine();
  const versions = new AttachedVersions<Attached>(1);
  (await versions.acquire('a', engine.load('v_a'))).release();
  (await versions.acquire('b', engine.load('v_b'))).release(); // 'a' is evicted: its DETACH starts
  assert.ok(engine.attached.has('v_a'), 'the DETACH of a has not finished yet');
  let attachedAgain = false;
  const again = versions.acquire('a', engine.load('v_a')).then((l) => ((attachedAgain = true), l));
  await new Promise((r) => setImmediate(r));
  assert.equal(attachedAgain, false, 'the new ATTACH waits');
  engine.finishDetach();
  const lease = await again; // without waiting, this ATTACH fails: the name is still attached
  assert.equal(lease.value.dbName, 'v_a');
  lease.release();
});

test('a DETACH that fails is logged and counted (fdl_degraded_total{what="detach"})', async () => {
  const before = degradedCounts().get('detach') ?? 0;
  const versions = new AttachedVersions<Attached>(1);
  const failing = (dbName: string) => async (): Promise<Attached> => ({
    dbName,
    heldBytes: 1,
    dispose: () => Promise.reject(new Error('boom')),
  });
  (await versions.acquire('a', failing('v_a'))).release();
  (await versions.acquire('b', failing('v_b'))).release();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(degradedCounts().get('detach'), before + 1);
});

test('degraded cases are exposed in /metrics as fdl_degraded_total{what}', async () => {
  const { Metrics } = await import('../src/service/metrics.js');
  const { degraded } = await import('../src/degraded.js');
  const before = degradedCounts().get('prune_index') ?? 0;
  degraded('prune_index', 'test');
  const { body } = await new Metrics().text();
  assert.match(body, new RegExp(`^fdl_degraded_total\\{what="prune_index"\\} ${before + 1}$`, 'm'));
  assert.match(body, /^fdl_degraded_total\{what="temp_dir_unreadable"\} \d+$/m, 'every case is listed, also at 0');
});

test('an unreadable temp directory is reported, not read as empty in silence', async () => {
  const { directoryBytes } = await import('../src/engine/temp-ceiling.js');
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const before = degradedCounts().get('temp_dir_unreadable') ?? 0;
  const dir = await mkdtemp(join(tmpdir(), 'fdl-degraded-'));
  try {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    assert.equal(await directoryBytes(join(dir, 'absent')), 0);
    assert.equal(degradedCounts().get('temp_dir_unreadable'), before, 'an absent directory is simply empty');
    await directoryBytes(file); // ENOTDIR: cannot be read as a directory (root reads any mode, so no chmod here)
    assert.equal(degradedCounts().get('temp_dir_unreadable'), before + 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('syncDir surfaces a real error (an absent directory) instead of swallowing it', async () => {
  const { syncDir } = await import('../src/atomic-file.js');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'fdl-syncdir-'));
  try {
    await syncDir(dir); // a directory this filesystem can fsync: fine
    await assert.rejects(syncDir(join(dir, 'absent')), { code: 'ENOENT' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
