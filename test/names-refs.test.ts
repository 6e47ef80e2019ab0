/**
 * Names and refs as tools write them: the default search_path with DuckLake's `main` on it, `public.t`
 * and `<connected database>.schema.t` (respelled where DuckDB's parse put them, analysis/catalog-names.ts),
 * and a ref chosen in the database part of a URL (`basic~v1`, `basic%40v1`) by real libpq (psql),
 * SQLAlchemy 1.4 over psycopg2 and pgjdbc; SET fdl.ref inside a transaction refused with 25001 and a
 * hint that names what works, the session's version unchanged.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { runJavaProbe } from './support/jdbc.js';
import { describeProbe, runProbe } from './support/probe.js';
import { canonicalDatabase, startupTarget } from '../src/session/startup.js';

describe('names and refs as tools write them', () => {
  let gw: RunningGateway;

  before(async () => {
    gw = await serveBasic();
  });
  after(async () => {
    await gw?.stop();
  });

  /** psql -A -t over a libpq URL or conninfo; every command must succeed. Lines of output. */
  async function psql(target: string, ...commands: string[]): Promise<string[]> {
    const r = await runProbe(
      'psql',
      [target, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...commands.flatMap((c) => ['-c', c])],
      { timeoutMs: 30_000 },
    );
    assert.equal(r.code, 0, describeProbe(r));
    return r.stdout.trim().split('\n');
  }
  const conninfo = (db: string) => `host=${gw.host} port=${gw.port} dbname=${db} user=me`;
  const url = (db: string) => `postgresql://me@${gw.host}:${gw.port}/${db}`;

  test('search_path: "$user", public, main, …; unqualified, public.t and <database>.schema.t name the same tables; \\dt lists all', async () => {
    const lines = await psql(
      conninfo('basic'),
      'show search_path',
      'select current_schema()',
      'select count(*) from all_types',
      'select count(*) from public.all_types',
      'select count(*) from basic.main.all_types',
      'select count(*) from Basic . "main" . all_types t',
      'select count(*) from basic.public.all_types',
      'select count(*) from orders',
      'select count(*) from basic.sales.orders o join public.all_types a on true',
      '\\dt',
    );
    assert.equal(lines[0], '"$user", public, main, sales');
    assert.equal(lines[1], 'main');
    const n = lines[2]!;
    assert.match(n, /^[1-9]\d*$/);
    assert.deepEqual(lines.slice(3, 7), [n, n, n, n]);
    assert.match(lines[7]!, /^[1-9]\d*$/);
    assert.equal(Number(lines[8]), Number(lines[7]) * Number(n));
    const dt = lines.slice(9).map((l) => l.split('|').slice(0, 2).join('.'));
    assert.deepEqual(dt, ['main.all_types', 'main.all_types_inlined', 'sales.customers', 'sales.orders']);
  });

  test('a search_path the client sets is followed as PostgreSQL would: main alone hides sales; a name in no schema is 42P01', async () => {
    const r = await runProbe(
      'psql',
      [
        conninfo('basic'),
        '-X',
        '-A',
        '-t',
        '-c',
        'set search_path = main',
        '-c',
        'select count(*) > 0 from all_types',
        '-c',
        'select count(*) from orders',
        '-c',
        'set search_path = sales, main',
        '-c',
        'select count(*) > 0 from orders',
        '-c',
        'select count(*) from basic.nowhere.orders',
      ],
      { timeoutMs: 30_000 },
    );
    assert.match(r.stdout, /^SET\nt\nSET\nt\n$/, describeProbe(r));
    assert.match(r.stderr, /relation "orders" does not exist[\s\S]*nowhere\.orders" does not exist/, describeProbe(r));
  });

  test('refs in URLs: libpq (psql) with ~ and %40, SQLAlchemy/psycopg2 with ~ and %40, pgjdbc with ~ and %40', async () => {
    const [expected] = await psql(conninfo('basic@v1'), "select current_database() || ' ' || count(*) from all_types");
    const [head] = await psql(conninfo('basic'), 'select count(*) from all_types');
    assert.match(expected!, /^basic@v1 \d+$/);
    assert.notEqual(expected!.split(' ')[1], head, 'v1 and the head differ in all_types, so the ref is observable');
    const ask = "select current_database() || ' ' || count(*) from all_types";
    assert.deepEqual(await psql(url('basic~v1'), ask), [expected]);
    assert.deepEqual(await psql(url('basic%40v1'), ask), [expected]);
    assert.deepEqual(await psql(conninfo('basic~v1'), ask), [expected]);

    const py = [
      'import sys, sqlalchemy as sa',
      'for db in sys.argv[2:]:',
      '    e = sa.create_engine(f"postgresql+psycopg2://me@{sys.argv[1]}/{db}")',
      '    with e.connect() as c:',
      `        print(c.execute(sa.text("${ask}")).scalar_one())`,
      '    e.dispose()',
    ].join('\n');
    // SQLAlchemy passes the database part as written: `%2F` too (a new-user review: "invalid ref name tags%2Fv1")
    const dbs = ['basic~v1', 'basic%40v1', 'basic%40tags%2Fv1'];
    const sq = await runProbe('/usr/bin/python3', ['-c', py, `${gw.host}:${gw.port}`, ...dbs], {
      timeoutMs: 60_000,
      env: { PGSSLMODE: 'disable' },
    });
    assert.equal(sq.code, 0, describeProbe(sq));
    assert.deepEqual(sq.stdout.trim().split('\n'), [expected, expected, expected!.replace('@v1', '@tags/v1')]);

    for (const db of ['basic~v1', 'basic%40v1']) {
      const j = await runJavaProbe(
        'JdbcRefUrl',
        [`jdbc:postgresql://${gw.host}:${gw.port}/${db}?sslmode=disable`, 'all_types'],
        60_000,
      );
      assert.equal(j.code, 0, describeProbe(j));
      assert.equal(j.stdout.trim(), expected, db);
    }
  });

  test('SET fdl.ref inside a transaction: 25001 with a hint naming what works; the session still reads its version', async () => {
    const r = await runProbe(
      'psql',
      [
        conninfo('basic'),
        '-X',
        '-A',
        '-t',
        '-c',
        'show fdl.ref',
        '-c',
        'begin',
        '-c',
        "set fdl.ref = 'v1'",
        '-c',
        'rollback',
        '-c',
        'show fdl.ref',
        '-c',
        '\\set VERBOSITY verbose',
        '-c',
        'begin',
        '-c',
        "set fdl.ref = 'v1'",
      ],
      { timeoutMs: 30_000 },
    );
    const out = r.stdout.split('\n').filter((l) => l && !/^(BEGIN|ROLLBACK)$/.test(l));
    assert.equal(out[0], out[1], describeProbe(r));
    assert.match(r.stderr, /ERROR: {2}25001: SET fdl\.ref cannot run inside a transaction block/, describeProbe(r));
    assert.match(
      r.stderr,
      /HINT: {2}End the transaction \(COMMIT or ROLLBACK\) and run SET fdl\.ref in autocommit mode .* database "basic~v1" \(or "basic@v1"\), or options=-c fdl\.ref=v1\./,
      describeProbe(r),
    );
  });

  test('startup database names: NAME~REF and NAME%40REF read as NAME@REF', () => {
    assert.deepEqual(startupTarget('basic~v1', ['basic'], null), { repo: 'basic', ref: 'v1', engine: 'basic' });
    assert.deepEqual(startupTarget('basic%40main', ['basic'], null), { repo: 'basic', ref: 'main', engine: 'basic' });
    assert.deepEqual(startupTarget('~v1', ['basic'], 'basic'), { repo: 'basic', ref: 'v1', engine: 'basic' });
    assert.deepEqual(startupTarget('basic', ['basic'], null), { repo: 'basic', ref: '', engine: 'basic' });
    assert.throws(() => startupTarget('other~v1', ['basic'], null), /database "other" does not exist/);
    assert.equal(canonicalDatabase('basic~v1'), 'basic@v1');
    assert.equal(canonicalDatabase('basic%40v1'), 'basic@v1');
  });
});
