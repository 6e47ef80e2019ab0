/** Unit tests of the version service's grants: an allowlist of ref patterns per user and repository. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { Grants, refPatternMatches } from '../src/versions/grants.js';

test('ref patterns: * stays within one path component; a lone * matches everything', () => {
  assert.ok(refPatternMatches('tags/*', 'tags/v1'));
  assert.ok(!refPatternMatches('tags/*', 'tags/a/b'));
  assert.ok(!refPatternMatches('tags/*', 'heads/main'));
  assert.ok(refPatternMatches('heads/main', 'heads/main'));
  assert.ok(!refPatternMatches('heads/main', 'heads/main2'));
  assert.ok(!refPatternMatches('heads/ma.n', 'heads/main'), 'regex metacharacters are literal');
  assert.ok(refPatternMatches('*', 'versions/01234567-89ab-7def-8123-456789abcdef'));
  assert.ok(refPatternMatches('versions/*', 'versions/01234567-89ab-7def-8123-456789abcdef'));
});

test('grants: under password authentication a user missing from the table reads nothing (a reload removed them)', () => {
  const g = new Grants({ bob: {} }, () => true);
  assert.ok(g.allows('bob', 'shop', 'refs/heads/main'));
  assert.ok(!g.allows('alice', 'shop', 'refs/heads/main'));
  assert.ok(g.restricts('alice'), 'views list nothing for them');
  assert.throws(() => g.authorize('alice', 'shop', 'refs/tags/v1'), { sqlstate: '42501' });
  assert.ok(g.allows('\u0000status', 'shop', 'refs/heads/main'), 'the status page reads as an internal user');
});

test('grants: users without grants read everything; others only what a pattern of their repository (or *) covers', () => {
  const g = new Grants({
    open: {},
    analyst: { grants: { shop: ['tags/*'], '*': ['heads/main'] } },
    none: { grants: {} },
  });
  g.authorize('open', 'shop', 'refs/heads/dev');
  g.authorize('unknown-user', 'shop', 'refs/heads/dev'); // not configured: authentication decides, grants do not apply
  g.authorize('analyst', 'shop', 'refs/tags/v1');
  assert.ok(!g.allows('analyst', 'shop', 'refs/heads/main'), 'the repository entry wins over *');
  assert.ok(g.allows('analyst', 'other', 'refs/heads/main'));
  assert.ok(!g.allows('analyst', 'other', 'refs/heads/dev'));
  assert.ok(!g.allows('none', 'shop', 'refs/tags/v1'));
  assert.ok(!g.allows('analyst', 'constructor', 'refs/heads/x'), 'prototype names are not repositories');
  assert.throws(
    () => g.authorize('analyst', 'shop', 'versions/01234567-89ab-7def-8123-456789abcdef'),
    (e: { sqlstate?: string; message?: string }) => {
      assert.equal(e.sqlstate, '42501');
      assert.match(e.message!, /user "analyst" may not read shop@versions\//);
      return true;
    },
  );
});

describe('system views show a user limited by grants only what they may read', () => {
  const refs = (
    JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
      repos: { basic: { refs: Record<string, string> } };
    }
  ).repos.basic.refs;
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    writeFileSync(
      join(repos.dir, 'config.json'),
      JSON.stringify({ auth: 'trust', users: { onetag: { grants: { basic: ['tags/v2'] } } } }),
    );
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--config',
      join(repos.dir, 'config.json'),
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('a user granted one tag sees that tag in fdl.refs and its version, not its parent, in fdl.versions', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'onetag', database: 'basic@v2' });
    await c.connect();
    try {
      const names = (await c.query('select name, version from fdl.refs order by name')).rows;
      assert.deepEqual(names, [{ name: 'tags/v2', version: refs['refs/tags/v2'] }]);
      const ids = (await c.query('select id from fdl.versions')).rows.map((r: { id: string }) => r.id);
      assert.deepEqual(ids, [refs['refs/tags/v2']], 'v1 (the parent of v2) is not granted and not listed');
    } finally {
      await c.end();
    }
    // An unrestricted user sees the whole history from the same version.
    const all = new pg.Client({ host: gw.host, port: gw.port, user: 'someone', database: 'basic@v2' });
    await all.connect();
    try {
      const ids = (await all.query('select id from fdl.versions')).rows.map((r: { id: string }) => r.id);
      assert.deepEqual(ids, [refs['refs/tags/v2'], refs['refs/tags/v1']]);
      assert.equal((await all.query('select count(*)::int as n from fdl.refs')).rows[0].n, 5);
    } finally {
      await all.end();
    }
  });

  test('pg_database (\\l) names only the databases a user limited by grants may connect to: not a repository whose HEAD is not theirs', async () => {
    const datnames = async (user: string, database: string) => {
      const c = new pg.Client({ host: gw.host, port: gw.port, user, database });
      await c.connect();
      try {
        return (await c.query('select datname from pg_catalog.pg_database order by datname')).rows.map(
          (r: { datname: string }) => r.datname,
        );
      } finally {
        await c.end();
      }
    };
    // Granted tags/v2 only: `basic` names HEAD, which they may not read (42501), so it is not listed.
    assert.deepEqual(await datnames('onetag', 'basic@v2'), ['basic@v2']);
    assert.deepEqual(await datnames('onetag', 'postgres'), ['postgres']);
    const refused = new pg.Client({ host: gw.host, port: gw.port, user: 'onetag', database: 'basic' });
    await assert.rejects(refused.connect(), { code: '42501' });
    // An unrestricted user sees the repository too.
    assert.deepEqual(await datnames('someone', 'basic@v2'), ['basic', 'basic@v2']);
  });
});

describe("fdl.cache tells a user limited by grants nothing of other users' activity", () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/odd_names');

  before(async () => {
    writeFileSync(
      join(repos.dir, 'config.json'),
      JSON.stringify({ auth: 'trust', users: { onetag: { grants: { basic: ['tags/v2'] } } } }),
    );
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `odd=${repos.path('repos/odd_names')}`,
      '--config',
      join(repos.dir, 'config.json'),
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('another user opening versions of another repository changes nothing the restricted user reads; an unrestricted user sees the counts', async () => {
    const restricted = new pg.Client({ host: gw.host, port: gw.port, user: 'onetag', database: 'basic@v2' });
    await restricted.connect();
    const read = async (c: pg.Client) =>
      (await c.query('select * from fdl.cache order by cache')).rows as Record<string, unknown>[];
    try {
      const before = await read(restricted);
      assert.deepEqual(
        before.map((r) => r.cache),
        ['files', 'refs', 'results', 'verified', 'versions'],
      );
      for (const r of before)
        for (const [k, v] of Object.entries(r)) if (k !== 'cache') assert.equal(v, null, `${r.cache}.${k}`);
      // Someone else reads versions of both repositories (attaches, hashes files, misses and hits).
      const other = new pg.Client({ host: gw.host, port: gw.port, user: 'someone', database: 'odd@main' });
      await other.connect();
      const open = async (db: string) => {
        const c = new pg.Client({ host: gw.host, port: gw.port, user: 'someone', database: db });
        await c.connect();
        await c.query('select 1');
        await c.end();
      };
      await open('basic@v1');
      await open('odd@main');
      const seen = await read(other);
      const versions = seen.find((r) => r.cache === 'versions')!;
      assert.ok(Number(versions.entries) >= 2 && Number(versions.misses) >= 2, JSON.stringify(versions));
      await other.end();
      assert.deepEqual(await read(restricted), before, 'the restricted user reads the same rows as before');
    } finally {
      await restricted.end();
    }
  });
});
