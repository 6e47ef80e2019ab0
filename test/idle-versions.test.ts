/**
 * Idle attached versions are bounded by what they hold, not only by their number (cache/attached-versions.ts,
 * versions/version-footprint.ts): a store writer who moves a branch 16 times onto versions with large catalogs
 * had every one of them kept attached (~1 GB RSS, attacker review, session 49).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { AttachedVersions, type Attached } from '../src/cache/attached-versions.js';
import { serveBasic, type RunningGateway } from './support/gateway.js';

const MiB = 1024 * 1024;

/** Versions of the given estimated sizes; `detached` lists the names disposed, in order. */
function fakeVersions() {
  const detached: string[] = [];
  const load = (dbName: string, heldBytes: number) => async (): Promise<Attached> => ({
    dbName,
    heldBytes,
    dispose: async () => void detached.push(dbName),
  });
  return { detached, load };
}

describe('idle versions past a byte budget', () => {
  test('are detached oldest first, whatever their number', async () => {
    const { detached, load } = fakeVersions();
    const versions = new AttachedVersions<Attached>(16, 100 * MiB);
    for (const name of ['a', 'b', 'c', 'd', 'e']) (await versions.acquire(name, load(name, 40 * MiB))).release();
    // five idle versions of 40 MiB in a budget of 100: the three oldest go, the two newest stay
    assert.deepEqual(detached, ['a', 'b', 'c']);
    assert.equal(versions.size, 2);
    assert.equal(versions.idleBytes, 80 * MiB);
    // a version taken back into use is not counted while in use, and is the newest idle one after
    const lease = await versions.acquire('d', load('d', 40 * MiB));
    assert.equal(versions.idleBytes, 40 * MiB);
    lease.release();
    (await versions.acquire('f', load('f', 40 * MiB))).release();
    assert.deepEqual(detached, ['a', 'b', 'c', 'e']);
  });

  test('a version over the budget alone is detached once no session uses it; one in use stays', async () => {
    const { detached, load } = fakeVersions();
    const versions = new AttachedVersions<Attached>(16, 100 * MiB);
    (await versions.acquire('small', load('small', 10 * MiB))).release();
    const big = await versions.acquire('big', load('big', 300 * MiB));
    const again = await versions.acquire('big', load('big', 300 * MiB));
    big.release();
    assert.deepEqual(detached, [], 'still leased');
    again.release();
    assert.deepEqual(detached, ['big']);
    assert.equal(versions.size, 1, 'the small one stays idle');
  });

  test('the number still bounds small ones', async () => {
    const { detached, load } = fakeVersions();
    const versions = new AttachedVersions<Attached>(2, 100 * MiB);
    for (const name of ['a', 'b', 'c']) (await versions.acquire(name, load(name, MiB))).release();
    assert.deepEqual(detached, ['a']);
  });
});

describe('maxIdleVersionBytes in a gateway', () => {
  let gw: RunningGateway;
  // basic's versions are estimated at a little over 5 MiB each (4 MiB, and ~1.3 MB of views database holding their
  // tables as native tables: versions/native-tables.ts): two fit in 13 MiB, not three
  before(async () => {
    gw = await serveBasic([], { config: { maxIdleVersionBytes: 13 * MiB, nativeTableBytes: 64 * MiB } });
  });
  after(() => gw?.stop());

  const oidOf = async (database: string) => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
    await c.connect();
    try {
      await c.query('SET fdl.result_cache = off');
      const r = await c.query(`SELECT c.oid::bigint AS oid FROM pg_catalog.pg_class c WHERE c.relname = 'orders'`);
      return String(r.rows[0]?.oid);
    } finally {
      await c.end();
    }
  };

  test('a version pushed past the budget by newer idle ones is attached anew (its views get new OIDs); within it, kept', async () => {
    const first = await oidOf('basic@v1');
    await oidOf('basic@v2');
    assert.equal(await oidOf('basic@v1'), first, 'two idle versions fit: v1 stayed attached');
    for (const other of ['basic@v2', 'basic@dev', 'basic@main']) await oidOf(other);
    assert.notEqual(await oidOf('basic@v1'), first, 'v1 was detached by the byte budget and attached again');
  });
});
