/**
 * Ceilings an ordinary account or an anonymous peer could otherwise push through, against a real
 * `fdl serve`: a user removed by a reload keeps no session, pre-auth slots are shared fairly per
 * source address, one user cannot take every session slot, and per-session object caps.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { CLI, copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { startupPacket } from './support/fuzz.js';

const hashPassword = (p: string) => execFileSync(process.execPath, [CLI, 'hash-password'], { input: p }).toString().trim();

async function login(gw: RunningGateway, user: string, database: string, password = 's3cret'): Promise<pg.Client> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user, password, database });
  c.on('error', () => undefined); // a session the gateway ends: the test looks at what it said
  await c.connect();
  return c;
}

/** The SQLSTATE a login fails with (assert.fail if it succeeds). */
async function loginError(gw: RunningGateway, user: string, database: string, password = 's3cret'): Promise<string | undefined> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user, password, database });
  c.on('error', () => undefined);
  try {
    await c.connect();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  await c.end();
  return assert.fail('the login succeeded');
}

async function waitFor(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ceilings: a user removed by a reload', () => {
  const repos = copyFixtures('repos/basic', 'repos/views');
  const configFile = join(repos.dir, 'gateway.json');
  const password = hashPassword('s3cret');
  let gw: RunningGateway;
  const config = (users: object) =>
    writeFileSync(configFile, JSON.stringify({ auth: 'scram-sha-256', repos: { basic: repos.path('repos/basic'), views: repos.path('repos/views') }, users }));
  const reloads = () => (gw.stderr().match(/"event":"reload"/g) ?? []).length;

  before(async () => {
    config({ alice: { password, grants: { basic: ['tags/*'] } }, bob: { password } });
    gw = await startGateway(['--config', configFile, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('their open session is ended (28000) at the reload and reads nothing more; other users go on', async () => {
    const alice = await login(gw, 'alice', 'basic@v1');
    const bob = await login(gw, 'bob', 'views');
    const counted = (await alice.query('select count(*)::int as n from sales.orders')).rows[0].n;
    assert.ok(counted > 0);
    // Granted basic only: the views repository is refused before the reload.
    assert.equal(await loginError(gw, 'alice', 'views'), '42501');
    const ended = new Promise<{ code?: string; message: string }>((r) => alice.once('error', (e) => r(e as { code?: string; message: string })));
    const n = reloads();
    config({ bob: { password } });
    gw.proc.kill('SIGHUP');
    await waitFor('the reload', () => reloads() > n);
    const err = await Promise.race([ended, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    assert.ok(err, 'the removed user\'s session was not ended');
    assert.equal(err.code, '28000');
    assert.match(err.message, /user "alice" is no longer in the gateway's configuration/);
    await assert.rejects(alice.query('select count(*) from sales.orders'));
    await assert.rejects(alice.query("set fdl.ref = 'main'"));
    // Nothing changed for anyone else, and alice cannot come back.
    assert.equal(await loginError(gw, 'alice', 'basic@v1'), '28P01');
    assert.ok((await bob.query('select 1 as one')).rows[0].one === 1);
    const bob2 = await login(gw, 'bob', 'basic@v1');
    assert.equal((await bob2.query('select count(*)::int as n from sales.orders')).rows[0].n, counted);
    await bob2.end();
    await bob.end();
  });
});

describe('ceilings: pre-auth fairness and sessions per user', () => {
  const repos = copyFixtures('repos/basic');
  const configFile = join(repos.dir, 'gateway.json');
  let gw: RunningGateway;

  before(async () => {
    const password = hashPassword('s3cret');
    // Four sessions; by default one user may hold half of them.
    writeFileSync(configFile, JSON.stringify({ repos: { basic: repos.path('repos/basic') }, users: { alice: { password }, bob: { password } }, maxConnections: 4, maxAuthenticating: 32 }));
    gw = await startGateway(['--config', configFile, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('one user cannot take every session slot: past maxConnectionsPerUser 53300 names the per-user limit; others still log in', async () => {
    const mine = [await login(gw, 'alice', 'basic'), await login(gw, 'alice', 'basic')];
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'alice', password: 's3cret', database: 'basic' });
    c.on('error', () => undefined);
    await assert.rejects(c.connect(), (e: { code?: string; message: string }) => {
      assert.equal(e.code, '53300');
      assert.match(e.message, /too many connections for user "alice": the per-user limit \(maxConnectionsPerUser\) is 2/);
      return true;
    });
    const bob = await login(gw, 'bob', 'basic');
    assert.equal((await bob.query('select 1 as one')).rows[0].one, 1);
    // The slot is the user's again once one of their sessions ends.
    await mine.pop()!.end();
    let again: pg.Client | null = null;
    for (let i = 0; i < 50 && !again; i++) {
      again = await login(gw, 'alice', 'basic').catch(() => null);
      if (!again) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(again, 'alice could not log in again after ending a session');
    assert.equal((await again.query('select 2 as two')).rows[0].two, 2);
    for (const s of [...mine, again, bob]) await s.end();
  });

  test('a connection flood from one address evicts only its own sockets: SCRAM logins from another address all succeed', async () => {
    let stop = false;
    let opened = 0;
    let open = 0;
    const sockets = new Set<Socket>();
    // Up to 64 sockets at once from 127.0.0.2, each replaced as soon as the gateway closes it.
    const flood = async () => {
      while (!stop) {
        if (open >= 64) {
          await new Promise((r) => setImmediate(r));
          continue;
        }
        open++;
        opened++;
        const s = connect({ host: gw.host, port: gw.port, localAddress: '127.0.0.2' });
        sockets.add(s);
        s.on('error', () => undefined);
        s.resume(); // read (and drop) what the gateway says, so its close is seen
        s.once('connect', () => s.write(startupPacket({ user: 'alice', database: 'basic' })));
        s.once('close', () => {
          open--;
          sockets.delete(s);
        });
        if (opened % 16 === 0) await new Promise((r) => setImmediate(r));
      }
    };
    const flooding = flood();
    try {
      // Let the flood fill the pre-auth pool first.
      await waitFor('the flood under way', () => opened > 200);
      for (let i = 0; i < 20; i++) {
        const c = await login(gw, 'bob', 'basic');
        assert.equal((await c.query('select 1 as one')).rows[0].one, 1);
        await c.end();
      }
    } finally {
      stop = true;
      await flooding;
      for (const s of sockets) s.destroy();
    }
    assert.ok(opened > 500, `the flood opened only ${opened} sockets`);
  });
});
