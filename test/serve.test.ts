/**
 * The walking skeleton, end to end: `fdl serve` as a child process, real clients (node-postgres and
 * the psql binary) over real sockets, fixture repositories on disk.
 */
import { asPostgresFloatText, asPostgresText } from './support/lake-fixtures.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  copyFixtures,
  FIXTURES,
  runServeExpectingFailure,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';

const run = promisify(execFile);

interface Expected {
  version: string;
  ref: string | null;
  refs: string[];
  queries: {
    object: string;
    kind: string;
    sql: string;
    columns?: string[];
    rows?: (string | null)[][];
    error?: string;
  }[];
}

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
const basic = manifest.repos.basic as { refs: Record<string, string>; versions: { id: string }[] };

function expectedFor(repo: string, id: string): Expected {
  return JSON.parse(readFileSync(join(FIXTURES, 'expected', repo, `${id}.json`), 'utf8'));
}

function multiset(rows: unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

async function connect(gw: RunningGateway, database: string, options?: string): Promise<pg.Client> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'tester', database, options });
  await c.connect();
  return c;
}

async function connectError(gw: RunningGateway, database: string): Promise<{ code?: string; message: string }> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'tester', database });
  try {
    await c.connect();
    await c.end();
  } catch (e) {
    return e as { code?: string; message: string };
  }
  assert.fail(`connecting to ${database} should fail`);
}

describe('fdl serve: basic repository through node-postgres and psql', () => {
  let gw: RunningGateway;
  const repos = copyFixtures(
    'repos/basic',
    'negative/ambiguous_ref/repo',
    'negative/dangling_ref/repo',
    'negative/tampered_catalog/repo',
  );

  before(async () => {
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `ambiguous=${repos.path('negative/ambiguous_ref/repo')}`,
      '--repo',
      `dangling=file://${repos.path('negative/dangling_ref/repo')}`,
      '--repo',
      `tampered=${repos.path('negative/tampered_catalog/repo')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('every version of basic returns the rows the real DuckLake extension returns', async () => {
    for (const v of basic.versions) {
      const exp = expectedFor('basic', v.id);
      const c = await connect(gw, `basic@${v.id}`);
      try {
        for (const q of exp.queries) {
          if (q.error) {
            await assert.rejects(c.query(q.sql), `${q.object} at ${v.id} should fail`);
            continue;
          }
          const res = await c.query({ text: q.sql, rowMode: 'array' });
          // Unaliased expressions are named as PostgreSQL names them (count(*) → count), not as DuckDB does.
          const expectedNames = q.columns!.map((n) => (n === 'count_star()' ? 'count' : n));
          assert.deepEqual(
            res.fields.map((f) => f.name),
            expectedNames,
            `columns of ${q.kind} ${q.object} at ${v.id}`,
          );
          assert.deepEqual(
            multiset(res.rows),
            multiset(asPostgresText(asPostgresFloatText(q.rows!), q.columns!, ['bl'], ['iv'])),
            `rows of ${q.kind} ${q.object} at ${v.id}`,
          );
        }
      } finally {
        await c.end();
      }
    }
  });

  test('HEAD, branches, tags, requests and version IDs select the right version', async () => {
    const cases: [string, string][] = [
      ['basic', basic.refs['refs/heads/main']!],
      ['basic@main', basic.refs['refs/heads/main']!],
      ['basic@heads/dev', basic.refs['refs/heads/dev']!],
      ['basic@dev', basic.refs['refs/heads/dev']!],
      ['basic@v1', basic.refs['refs/tags/v1']!],
      ['basic@tags/v2', basic.refs['refs/tags/v2']!],
      ['basic@refs/tags/v2', basic.refs['refs/tags/v2']!],
      ['basic@requests/1', basic.refs['refs/requests/1']!],
      [`basic@${basic.versions[0]!.id}`, basic.versions[0]!.id],
    ];
    for (const [db, version] of cases) {
      const c = await connect(gw, db);
      try {
        const r = await c.query('SHOW fdl.version');
        assert.equal(r.rows[0]['fdl.version'], version, db);
      } finally {
        await c.end();
      }
    }
  });

  test('unknown database, unknown, ambiguous and dangling refs and a tampered catalog are refused', async () => {
    const unknownDb = await connectError(gw, 'nosuchrepo');
    assert.equal(unknownDb.code, '3D000');
    assert.match(unknownDb.message, /nosuchrepo/);

    const unknownRef = await connectError(gw, 'basic@nosuchref');
    assert.equal(unknownRef.code, '3D000');
    assert.match(unknownRef.message, /unknown ref/);

    const badName = await connectError(gw, 'basic@../../etc');
    assert.equal(badName.code, '3D000');

    const ambiguous = await connectError(gw, 'ambiguous@v1');
    assert.equal(ambiguous.code, '3D000');
    assert.match(ambiguous.message, /ambiguous/);
    assert.match(ambiguous.message, /refs\/heads\/v1/);
    assert.match(ambiguous.message, /refs\/tags\/v1/);
    const tagged = await connect(gw, 'ambiguous@tags/v1');
    await tagged.end();

    const dangling = await connectError(gw, 'dangling');
    assert.equal(dangling.code, '3D000');
    assert.match(dangling.message, /dangling/);

    const tampered = await connectError(gw, 'tampered');
    assert.match(tampered.message, /sha256/);
  });

  test('psql: query, several statements in one message, errors with SQLSTATE', async () => {
    const conn = `host=${gw.host} port=${gw.port} dbname=basic@v1 user=me`;
    const { stdout } = await run('psql', [conn, '-X', '-A', '-t', '-c', 'select count(*) from sales.orders']);
    const expected = expectedFor('basic', basic.refs['refs/tags/v1']!).queries.find(
      (q) => q.object === 'sales.orders' && q.kind === 'count',
    )!;
    assert.equal(stdout.trim(), expected.rows![0]![0]);

    const multi = await run('psql', [conn, '-X', '-A', '-t', '-c', 'select 1 as a; select 2 as b']);
    assert.equal(multi.stdout.trim(), '1\n2', 'psql 15 prints every result of a multi-statement query');

    const failed = await run('psql', [
      conn,
      '-X',
      '-v',
      'VERBOSITY=verbose',
      '-c',
      'select * from no_such_table',
    ]).catch((e) => e);
    assert.match(String(failed.stderr), /42P01/);
    const syntax = await run('psql', [conn, '-X', '-v', 'VERBOSITY=verbose', '-c', 'selec 1']).catch((e) => e);
    assert.match(String(syntax.stderr), /42601/);
  });

  test('node-postgres: text encodings of common types, empty query, errors and recovery', async () => {
    const c = await connect(gw, 'basic@v1');
    try {
      const r = await c.query({
        text: `select true as b, 42::integer as i, 9007199254740993::bigint as big, 1.5::double as d, 12.340::decimal(10,3) as n,
                'x''y' as t, date '2024-02-29' as dt, timestamp '2024-01-02 03:04:05.123456' as ts,
                '\\x00\\xFF'::blob as bytes, [1, 2, NULL] as arr, '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid as u`,
        rowMode: 'array',
        types: { getTypeParser: () => (v: string) => v },
      });
      assert.deepEqual(r.rows[0], [
        't',
        '42',
        '9007199254740993',
        '1.5',
        '12.340',
        "x'y",
        '2024-02-29',
        '2024-01-02 03:04:05.123456',
        '\\x00ff',
        '{1,2,NULL}',
        '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
      ]);
      assert.deepEqual(
        r.fields.map((f) => f.dataTypeID),
        [16, 23, 20, 701, 1700, 25, 1082, 1114, 17, 1007, 2950],
      );
      const empty = await c.query('');
      assert.equal(empty.rows.length, 0);
      await assert.rejects(c.query('select * from nope'), (e: { code?: string }) => e.code === '42P01');
      const again = await c.query('select 1 as one');
      assert.equal(again.rows[0].one, 1);
    } finally {
      await c.end();
    }
  });

  test('@REF alone selects the only served repository', async () => {
    const single = copyFixtures('repos/basic');
    const one = await startGateway([
      '--repo',
      `solo=${single.path('repos/basic')}`,
      '--cache-dir',
      join(single.dir, 'cache'),
    ]);
    try {
      const c = new pg.Client({ host: one.host, port: one.port, user: 'x', database: '@v1' });
      await c.connect();
      const r = await c.query('SHOW fdl.version');
      assert.equal(r.rows[0]['fdl.version'], basic.refs['refs/tags/v1']);
      await c.end();
    } finally {
      await one.stop();
      single.cleanup();
    }
  });
});

describe('fdl serve: start-up contract', () => {
  test('a folder without fdl.json stops start-up with exit code 1 and a clear message', async () => {
    const r = await runServeExpectingFailure(['--repo', `x=${join(FIXTURES, 'negative', 'no_fdl_json', 'repo')}`]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /fdl\.json/);
  });

  test('an unknown major fdl version stops start-up with exit code 1', async () => {
    const r = await runServeExpectingFailure([
      '--repo',
      `x=${join(FIXTURES, 'negative', 'fdl_major_unknown', 'repo')}`,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /9\.0|version/);
  });

  test('SIGTERM closes cleanly', async () => {
    const gw = await startGateway(['--repo', `basic=${join(FIXTURES, 'repos', 'basic')}`]);
    const code = await gw.stop();
    assert.equal(code, 0);
  });

  test('--help describes every serve option', async () => {
    const { stdout } = await run(process.execPath, [
      join(FIXTURES, '..', '..', 'dist', 'src', 'cli', 'main.js'),
      'serve',
      '--help',
    ]);
    for (const flag of ['--repo', '--listen', '--cache-dir', '--config', '--signatures', '--allowed-signers'])
      assert.match(stdout, new RegExp(flag));
  });
});
