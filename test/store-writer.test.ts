/**
 * An attacker who can write the store but holds no publisher key (docs/security.md, "Store writer
 * without a key"), through the real gateway: a branch moved back to an older signed version is
 * refused, also after a restart; an expiry once seen stays, also when expired.json is deleted.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { buildConfig } from '../src/cli/config.js';
import { copyFixtures, FIXTURES, runFdl, startGateway, type RunningGateway } from './support/gateway.js';

const SIGNERS = join(FIXTURES, 'keys/allowed_signers');
const refs = (
  JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: { basic: { refs: Record<string, string> } };
  }
).repos.basic.refs;
// basic's history: v1 <- v2 <- {dev, requests/1, main}
const V1 = refs['refs/tags/v1']!;
const V2 = refs['refs/tags/v2']!;
const DEV = refs['refs/heads/dev']!;
const MAIN = refs['refs/heads/main']!;

async function version(gw: RunningGateway, database: string): Promise<string> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'test', database });
  await c.connect();
  try {
    return String((await c.query('SHOW fdl.version')).rows[0]['fdl.version']);
  } finally {
    await c.end();
  }
}

async function refused(gw: RunningGateway, database: string, code: string, message: RegExp): Promise<string> {
  const e = await version(gw, database).then(
    (v) => assert.fail(`served ${v}`),
    (err: { code?: string; message?: string; detail?: string }) => err,
  );
  assert.equal(e.code, code, e.message);
  assert.match(e.message!, message);
  return `${e.message} ${e.detail ?? ''}`;
}

/** The files under the state directory and what they hold (to prove a refusal changed nothing). */
function stateOf(dir: string): string {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [`${join(d, e.name)}=${readFileSync(join(d, e.name), 'utf8')}`],
    );
  return walk(dir).sort().join('\n');
}

describe('store writer without a key', () => {
  test('a branch only moves forward: moved back (or sideways) to an older signed version it is refused with XX001, also after a restart', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const stateDir = join(repos.dir, 'state');
    const args = [
      '--repo',
      `b=${root}`,
      '--allowed-signers',
      `b=${SIGNERS}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--state-dir',
      stateDir,
      '--ref-ttl',
      '0',
    ];
    const point = (id: string) => writeFileSync(join(root, 'refs', 'heads', 'main'), `${id}\n`);
    try {
      point(V1);
      let gw = await startGateway(args);
      try {
        assert.equal(await version(gw, 'b@main'), V1);
        point(V2); // forward, one step
        assert.equal(await version(gw, 'b@main'), V2);
        point(MAIN); // forward again
        assert.equal(await version(gw, 'b@main'), MAIN);
        const before = stateOf(stateDir);
        point(V2); // back to its signed parent
        const text = await refused(
          gw,
          'b@main',
          'XX001',
          new RegExp(`branch refs/heads/main of repository b moved back: it no longer leads to version ${MAIN}`),
        );
        assert.ok(!text.includes(V2), 'the refusal names what was recorded, not what the store holds now');
        point(DEV); // a signed sibling: not a descendant either
        await refused(gw, 'b@main', 'XX001', /moved back/);
        assert.equal(stateOf(stateDir), before, 'a refusal records nothing');
        assert.equal(await version(gw, 'b@dev'), DEV, 'other branches unaffected');
      } finally {
        await gw.stop();
      }
      point(V2);
      gw = await startGateway(args);
      try {
        await refused(gw, 'b@main', 'XX001', new RegExp(`moved back: it no longer leads to version ${MAIN}`));
        point(MAIN);
        assert.equal(await version(gw, 'b@main'), MAIN, 'back at the mark: served');
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
    }
  });

  test('a review request and a detached HEAD only move forward too (a rollback through either is XX001)', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const stateDir = join(repos.dir, 'state');
    const args = [
      '--repo',
      `b=${root}`,
      '--allowed-signers',
      `b=${SIGNERS}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--state-dir',
      stateDir,
      '--ref-ttl',
      '0',
    ];
    const REQUEST = refs['refs/requests/1']!;
    try {
      writeFileSync(join(root, 'HEAD'), `${MAIN}\n`); // detached
      const gw = await startGateway(args);
      try {
        assert.equal(await version(gw, 'b'), MAIN);
        assert.equal(await version(gw, 'b@requests/1'), REQUEST);
        writeFileSync(join(root, 'HEAD'), `${V1}\n`);
        await refused(
          gw,
          'b',
          'XX001',
          new RegExp(`HEAD of repository b moved back: it no longer leads to version ${MAIN}`),
        );
        writeFileSync(join(root, 'refs', 'requests', '1'), `${V1}\n`);
        await refused(
          gw,
          'b@requests/1',
          'XX001',
          new RegExp(`request refs/requests/1 of repository b moved back: it no longer leads to version ${REQUEST}`),
        );
        writeFileSync(join(root, 'HEAD'), `${MAIN}\n`);
        assert.equal(await version(gw, 'b'), MAIN, 'back at the mark: served');
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
    }
  });

  test('an expiry once seen is kept in the state directory: deleting expired.json does not un-expire the version, also after a restart', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const stateDir = join(repos.dir, 'state');
    const args = [
      '--repo',
      `b=${root}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--state-dir',
      stateDir,
      '--ref-ttl',
      '0',
    ];
    const marker = join(root, 'versions', V1, 'expired.json');
    try {
      let gw = await startGateway(args);
      try {
        assert.equal(await version(gw, 'b@v1'), V1);
        // a reason that is not a short word is the store's content: never shown
        writeFileSync(
          marker,
          JSON.stringify({ expired: '2026-01-01T00:00:00Z', reason: 'token=AKIAsecret/xyz', successor: V2 }),
        );
        const text = await refused(
          gw,
          'b@v1',
          '3D000',
          new RegExp(`version ${V1} expired 2026-01-01T00:00:00Z, successor ${V2}`),
        );
        assert.ok(!text.includes('AKIAsecret'), text);
        unlinkSync(marker);
        await refused(gw, 'b@v1', '3D000', new RegExp(`version ${V1} expired`));
        assert.equal(await version(gw, 'b@v2'), V2, 'other versions unaffected');
      } finally {
        await gw.stop();
      }
      rmSync(join(repos.dir, 'cache'), { recursive: true, force: true });
      gw = await startGateway(args);
      try {
        await refused(gw, 'b@v1', '3D000', new RegExp(`version ${V1} expired 2026-01-01T00:00:00Z, successor ${V2}`));
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
    }
  });

  test('with allowed_signers configured the default policy is require: an unsigned version a store writer made is refused (28000); prefer only when asked', async () => {
    const pol = (flags: Parameters<typeof buildConfig>[0]) =>
      buildConfig(flags).repos.map((r) => r.signatures ?? 'prefer');
    assert.deepEqual(pol({ repo: ['b=/x'], allowedSigners: [`b=${SIGNERS}`] }), ['require']);
    assert.deepEqual(pol({ repo: ['b=/x'], allowedSigners: [`b=${SIGNERS}`], signatures: ['b=prefer'] }), ['prefer']);
    assert.deepEqual(pol({ repo: ['b=/x'] }), ['prefer'], 'no keys: nothing to require');
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const args = [
      '--repo',
      `b=${root}`,
      '--allowed-signers',
      `b=${SIGNERS}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--ref-ttl',
      '0',
    ];
    try {
      // the store writer drops the signature of main's version (as good as writing an unsigned one)
      unlinkSync(join(root, 'versions', MAIN, 'version.json.sig'));
      const gw = await startGateway(args);
      try {
        await refused(gw, 'b@main', '28000', new RegExp(`version ${MAIN} has no signature`));
        assert.equal(await version(gw, 'b@v2'), V2, 'signed versions are served');
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
    }
  });
  test('a branch moved on through an unsigned version is refused as such, not as a rollback', async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const stateDir = join(repos.dir, 'state');
    const key = join(repos.dir, 'alice');
    copyFileSync(join(FIXTURES, 'keys/alice_ed25519'), key);
    chmodSync(key, 0o600);
    const csv = join(repos.dir, 'rows.csv');
    writeFileSync(csv, 'id,name\n1,a\n');
    const args = ['--repo', `b=${root}`, '--allowed-signers', `b=${SIGNERS}`, '--cache-dir', join(repos.dir, 'cache')];
    const gw = await startGateway([...args, '--state-dir', stateDir, '--ref-ttl', '0']);
    try {
      assert.equal(await version(gw, 'b@main'), MAIN);
      // A publisher without a key, then one with: main moves forward, but through an unsigned version.
      const unsigned = await runFdl(['import', root, '--table', `sales.u1=${csv}`]);
      assert.equal(unsigned.code, 0, unsigned.stderr);
      const signed = await runFdl(['import', root, '--table', `sales.u2=${csv}`, '--sign-key', key]);
      assert.equal(signed.code, 0, signed.stderr);
      const before = stateOf(stateDir);
      const text = await refused(
        gw,
        'b@main',
        'XX001',
        new RegExp(`moved on through an unsigned version: its history reaches version ${MAIN},`),
      );
      assert.ok(!/moved back|rollback/.test(text), text);
      // no version but the one recorded for main: what main names now and the unsigned link may be any version
      const named = text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];
      assert.deepEqual([...new Set(named)], [MAIN], text);
      assert.equal(stateOf(stateDir), before, 'a refusal records nothing');
    } finally {
      await gw.stop();
      repos.cleanup();
    }
  });
  test("fdl.json's id is the one the repository was first served with: another id after a restart is refused, naming neither", async () => {
    const repos = copyFixtures('repos/basic');
    const root = repos.path('repos/basic');
    const stateDir = join(repos.dir, 'state');
    const args = ['--repo', `b=${root}`, '--allowed-signers', `b=${SIGNERS}`, '--state-dir', stateDir];
    const fdlJson = join(root, 'fdl.json');
    const original = readFileSync(fdlJson, 'utf8');
    const ID = (JSON.parse(original) as { id: string }).id;
    const OTHER = '1cfe85b0-0000-4000-8000-000000000000';
    try {
      let gw = await startGateway(args);
      try {
        assert.equal(await version(gw, 'b@v1'), V1);
      } finally {
        await gw.stop();
      }
      // another repository's id (its signed versions, copied in, name it), written while the gateway was down
      writeFileSync(fdlJson, original.replace(ID, OTHER));
      const before = stateOf(stateDir);
      // the repository does not open: a gateway serving only it does not start, and says why
      const failed = await startGateway(args).then(
        async (g) => {
          await g.stop();
          return assert.fail('served with another id');
        },
        (e: Error) => e.message,
      );
      assert.match(failed, /the id in fdl\.json of repository b is not the one it was first served with/);
      assert.ok(!failed.includes(ID) && !failed.includes(OTHER), 'no store content in the error');
      assert.equal(stateOf(stateDir), before, 'a refusal records nothing');
      writeFileSync(fdlJson, original);
      gw = await startGateway(args);
      try {
        assert.equal(await version(gw, 'b@v1'), V1, 'its own id again: served');
      } finally {
        await gw.stop();
      }
    } finally {
      repos.cleanup();
    }
  });
});
