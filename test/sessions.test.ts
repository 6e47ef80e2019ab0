/**
 * Sessions that follow refs, repositories on S3 and HTTP served by `fdl serve`, the gateway's
 * system views — through node-postgres over real sockets.
 */
import { asPostgresFloatText, asPostgresText } from './support/lake-fixtures.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { startS3, type S3Server, s3Flags, S3_ENV } from './support/s3-server.js';
import { serveFolder, type HttpFolderServer } from './support/http-server.js';

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
const basic = manifest.repos.basic as { refs: Record<string, string>; versions: { id: string }[] };

function expectedQueries(id: string) {
  return (
    JSON.parse(readFileSync(join(FIXTURES, 'expected', 'basic', `${id}.json`), 'utf8')) as {
      queries: { sql: string; columns?: string[]; rows?: unknown[][]; error?: string }[];
    }
  ).queries;
}

const multiset = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

async function checkAllVersions(gw: RunningGateway, repo: string): Promise<void> {
  for (const v of basic.versions) {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: `${repo}@${v.id}` });
    await c.connect();
    try {
      for (const q of expectedQueries(v.id)) {
        if (q.error) continue;
        const r = await c.query({ text: q.sql, rowMode: 'array' });
        assert.deepEqual(
          multiset(r.rows),
          multiset(asPostgresText(asPostgresFloatText(q.rows!), q.columns!, ['bl'], ['iv'])),
          `${repo}@${v.id}: ${q.sql.slice(0, 80)}`,
        );
      }
    } finally {
      await c.end();
    }
  }
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('sessions: refs move, SET fdl.ref, system views', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const root = () => repos.path('repos/basic');

  before(async () => {
    gw = await startGateway(['--repo', `basic=${root()}`, '--ref-ttl', '0', '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('SET bytea_output: hex is kept, escape refused 0A000 (values are always written in hex), another value 22023 as PostgreSQL; nothing changes', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic' });
    await c.connect();
    try {
      const shown = async () => (await c.query('SHOW bytea_output')).rows[0].bytea_output;
      const raw = { getTypeParser: () => (v: string) => v };
      const value = async () => (await c.query({ text: "select '\\x41ff'::bytea as b", types: raw })).rows[0].b;
      const before = await value();
      assert.match(before, /^\\x[0-9a-f]+$/);
      await c.query("SET bytea_output = 'HEX'");
      assert.equal(await shown(), 'hex');
      await assert.rejects(
        c.query("SET bytea_output = 'escape'"),
        (e: { code?: string; message?: string; hint?: string }) =>
          e.code === '0A000' && /output is always hex/.test(e.message ?? '') && /sent in hex/.test(e.hint ?? ''),
      );
      // PostgreSQL 15: ERROR 22023 invalid value for parameter "bytea_output": "octal", HINT Available values: escape, hex.
      await assert.rejects(
        c.query("SET bytea_output = 'octal'"),
        (e: { code?: string; message?: string; hint?: string }) =>
          e.code === '22023' &&
          e.message === 'invalid value for parameter "bytea_output": "octal"' &&
          e.hint === 'Available values: escape, hex.',
      );
      assert.equal(await shown(), 'hex');
      assert.equal(await value(), before);
    } finally {
      await c.end();
    }
  });

  test('a branch is re-resolved per transaction, pinned inside BEGIN, and a move is announced with a notice', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic@main' });
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(n.message ?? ''));
    await c.connect();
    const branch = join(root(), 'refs', 'heads', 'main');
    const original = readFileSync(branch, 'utf8');
    try {
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/heads/main']);
      const count = 'select count(*)::int as n from sales.orders';
      const before = (await c.query(count)).rows[0].n;
      await c.query('BEGIN');
      writeFileSync(branch, `${basic.refs['refs/tags/v1']}\n`);
      assert.equal(
        (await c.query('SHOW fdl.version')).rows[0]['fdl.version'],
        basic.refs['refs/heads/main'],
        'pinned in the transaction',
      );
      await c.query('select count(*) from sales.orders');
      await c.query('COMMIT');
      await c.query('select 1');
      assert.equal(
        (await c.query('SHOW fdl.version')).rows[0]['fdl.version'],
        basic.refs['refs/tags/v1'],
        'moved after the transaction',
      );
      // The same statement text, prepared before the move, now reads the new version.
      const expectedV1 = expectedQueries(basic.refs['refs/tags/v1']!).find((q) =>
        /count\(\*\) FROM "sales"\."orders"/i.test(q.sql),
      )!;
      assert.equal(String((await c.query(count)).rows[0].n), expectedV1.rows![0]![0]);
      assert.notEqual(before, (await c.query(count)).rows[0].n);
      assert.ok(
        notices.some((n) => n.includes(basic.refs['refs/heads/main']!) && n.includes(basic.refs['refs/tags/v1']!)),
        `notice names both versions: ${notices}`,
      );
    } finally {
      writeFileSync(branch, original);
      await c.end();
    }
  });

  test('SET fdl.ref / SHOW / RESET, and fdl.ref in the startup options', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic' });
    await c.connect();
    try {
      await c.query("SET fdl.ref = 'tags/v2'");
      assert.equal((await c.query('SHOW fdl.ref')).rows[0]['fdl.ref'], 'tags/v2');
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/tags/v2']);
      await assert.rejects(c.query("SET fdl.ref = 'nope'"), (e: { code?: string }) => e.code === '3D000');
      assert.equal(
        (await c.query('SHOW fdl.version')).rows[0]['fdl.version'],
        basic.refs['refs/tags/v2'],
        'a failed SET keeps the version',
      );
      await c.query('RESET fdl.ref');
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/heads/main']);
    } finally {
      await c.end();
    }
    const o = new pg.Client({
      host: gw.host,
      port: gw.port,
      user: 'x',
      database: 'basic',
      options: '-c fdl.ref=tags/v1',
    });
    await o.connect();
    assert.equal((await o.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/tags/v1']);
    await o.end();
  });

  test('fdl.refs, fdl.versions, fdl.session, fdl.dataset and fdl.cache', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic@dev' });
    await c.connect();
    try {
      const refs = await c.query('select name, kind, version from fdl.refs order by name');
      assert.deepEqual(
        refs.rows.map((r) => [r.name, r.kind, r.version]),
        Object.entries(basic.refs)
          .map(([n, v]) => [
            n.replace(/^refs\//, ''),
            n.split('/')[1] === 'heads' ? 'branch' : n.split('/')[1] === 'tags' ? 'tag' : 'request',
            v,
          ])
          .sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );
      const history = await c.query('select id, message from fdl.versions');
      assert.deepEqual(
        history.rows.map((r) => r.id),
        [basic.refs['refs/heads/dev'], basic.refs['refs/tags/v2'], basic.refs['refs/tags/v1']],
      );
      const session = await c.query('select requested_ref, resolved_ref, version, pinned from fdl.session');
      assert.deepEqual(session.rows[0], {
        requested_ref: 'dev',
        resolved_ref: 'refs/heads/dev',
        version: basic.refs['refs/heads/dev'],
        pinned: false,
      });
      const dataset = await c.query('select title from fdl.dataset');
      const json = JSON.parse(
        readFileSync(join(root(), 'versions', basic.refs['refs/heads/dev']!, 'dataset.json'), 'utf8'),
      );
      assert.equal(dataset.rows[0].title, json.title ?? null);
      const cache = await c.query('select cache, entries from fdl.cache order by cache');
      assert.deepEqual(
        cache.rows.map((r) => r.cache),
        ['files', 'refs', 'results', 'verified', 'versions'],
      );
    } finally {
      await c.end();
    }
  });
});

describe('sessions: a repository on S3 (s3rver) and one over HTTP', () => {
  let s3: S3Server;
  let http: HttpFolderServer;
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const cacheDir = () => join(repos.dir, 'cache');

  before(async () => {
    s3 = await startS3('lake');
    await s3.upload(repos.path('repos/basic'), 'basic/');
    http = await serveFolder(repos.path('repos/basic'));
    gw = await startGateway(
      [
        '--repo',
        `s3repo=s3://lake/basic/`,
        '--repo',
        `web=${http.url}`,
        ...s3Flags(s3.endpoint),
        '--cache-dir',
        cacheDir(),
      ],
      { env: S3_ENV },
    );
  });
  after(async () => {
    await gw?.stop();
    await s3?.close();
    await http?.close();
    repos.cleanup();
  });

  test("a query touching one table downloads only that table's files", async () => {
    const v1 = basic.refs['refs/tags/v1']!;
    const filesJson = JSON.parse(
      readFileSync(join(repos.path('repos/basic'), 'versions', v1, 'files.json'), 'utf8'),
    ) as {
      tables: Record<string, { files: { path: string; delete_file?: string }[] }>;
    };
    const count = (t: string) => filesJson.tables[t]!.files.reduce((n, f) => n + 1 + (f.delete_file ? 1 : 0), 0);
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 's3repo@v1' });
    await c.connect();
    try {
      const downloads = async () =>
        Number((await c.query("select downloads from fdl.cache where cache = 'files'")).rows[0].downloads);
      const d0 = await downloads();
      // rows read for their values (a bare count(*) is answered from the catalog's record counts)
      const customers = await c.query('select count(*)::int as n, max(t.name) as m from sales.customers t');
      assert.ok(customers.rows[0].n > 0);
      const d1 = await downloads();
      assert.equal(d1 - d0, count('sales.customers'), 'only the files of sales.customers');
      await c.query('select count(*), max(t.name) from sales.customers t');
      assert.equal(await downloads(), d1, 'a second query downloads nothing');
      await c.query('select count(*), max(t.status) from sales.orders t');
      assert.equal((await downloads()) - d1, count('sales.orders'));
    } finally {
      await c.end();
    }
  });

  test('every version read from S3 returns the expected rows; files land in the cache, fully', async () => {
    await checkAllVersions(gw, 's3repo');
    const cached = filesUnder(join(cacheDir(), 'files')).filter((f) => !f.includes('.part-'));
    assert.ok(cached.length > 0, 'remote files are cached on disk');
    for (const f of cached) assert.ok(statSync(f).size > 0);
  });

  test('every version read over HTTP (refs.json, no listing) returns the expected rows', async () => {
    await checkAllVersions(gw, 'web');
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'web@v1' });
    await c.connect();
    assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/tags/v1']);
    const refs = await c.query('select count(*)::int as n from fdl.refs');
    assert.equal(refs.rows[0].n, Object.keys(basic.refs).length);
    await c.end();
  });
});
