/**
 * Read-only, contained, authorized: attacks through a real client (node-postgres) against a real
 * `fdl serve`, each refused with the right SQLSTATE, and normal queries still served afterwards.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { copyFixtures, FIXTURES, startGateway, type RunningGateway, waitFor } from './support/gateway.js';
import { connectSession, createEngine, engineReadDirs, sealEngine } from '../src/engine/engine.js';

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
const basicRefs = manifest.repos.basic.refs as Record<string, string>;

async function client(gw: RunningGateway, user: string, database: string): Promise<pg.Client> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user, database });
  await c.connect();
  return c;
}

async function refused(c: pg.Client, sql: string, codes: string[]): Promise<string> {
  try {
    await c.query(sql);
  } catch (e) {
    const err = e as { code?: string; message: string };
    assert.ok(codes.includes(err.code ?? ''), `${sql}: expected ${codes.join('/')}, got ${err.code} ${err.message}`);
    return err.message;
  }
  assert.fail(`${sql} should be refused`);
}

describe('security: containment of DuckDB', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const dataFile = () => join(repos.path('repos/basic'), 'data');

  before(async () => {
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('file reads, writes, ATTACH, extensions, secrets, settings and engine introspection are refused', async () => {
    const c = await client(gw, 'x', 'basic@v1');
    try {
      const attacks: [string, string[]][] = [
        ["select * from read_csv('/etc/passwd')", ['42501']],
        ["select * from read_text('/etc/hostname')", ['42501']],
        ["select * from '/etc/passwd'", ['42501']],
        [`select count(*) from read_parquet('${dataFile()}/**/*.parquet')`, ['42501']],
        [`select * from glob('${dataFile()}/*')`, ['42501']],
        ["select * from query('select 1')", ['42501']],
        ["copy (select 1) to '/tmp/fdl-should-not-exist.csv'", ['42501']],
        ["copy sales.orders to '/tmp/fdl-should-not-exist.csv'", ['42501']],
        ["export database '/tmp/fdl-export'", ['42501']],
        ["attach '/tmp/fdl-x.db' as x", ['42501']],
        ['detach "basic@v1"', ['42501']],
        ['install httpfs', ['42501']],
        ['load httpfs', ['42501']],
        ["create secret s (type s3, key_id 'a', secret 'b')", ['25006', '42501']],
        ['set enable_external_access = true', ['42501']],
        ["set memory_limit = '100GB'", ['42501']],
        ['set threads = 64', ['42501']],
        ['pragma threads = 1', ['42501']],
        ['checkpoint', ['42501']],
        ['use memory', ['42501']],
        ['select * from duckdb_databases()', ['42501']],
        ['select * from duckdb_settings()', ['42501']],
        ["select getenv('HOME')", ['42883', '42501']],
        ['create table t as select 1', ['25006']],
        ['insert into sales.orders select * from sales.orders', ['25006']],
        ['update sales.orders set qty = 0', ['25006']],
        ['delete from sales.orders', ['25006']],
        ['drop view sales.orders', ['25006']],
        ['with x as (select 1) insert into sales.orders select * from sales.orders', ['25006']],
        ['select * from __fdl_meta_1.main.ducklake_data_file', ['0A000']], // another catalog: cross-database, as PostgreSQL
      ];
      for (const [sql, codes] of attacks) {
        const message = await refused(c, sql, codes);
        assert.ok(message.length > 10, `a clear message for ${sql}`);
      }
      // Nothing was written and the session still serves its version.
      const r = await c.query('select count(*)::int as n from sales.orders');
      assert.ok(r.rows[0].n > 0);
      assert.equal(
        (await c.query("select 'read_parquet(' as s")).rows[0].s,
        'read_parquet(',
        'a function name inside a string is not an attack',
      );
    } finally {
      await c.end();
    }
  });

  test('two versions in one statement through "NAME@REF" catalogs', async () => {
    const c = await client(gw, 'x', 'basic@v1');
    try {
      const v1 = (await c.query('select count(*)::int as n from sales.orders')).rows[0].n;
      const v2 = (await c.query('select count(*)::int as n from "basic@v2".sales.orders')).rows[0].n;
      assert.ok(v2 > v1, 'the February append is visible in v2 only');
      const diff = await c.query(
        'select count(*)::int as n from (select * from "basic@v2".sales.orders except select * from sales.orders)',
      );
      assert.equal(diff.rows[0].n, v2 - v1);
      await refused(c, 'select * from "basic@nope".sales.orders', ['3D000']);
      await refused(c, 'select * from "elsewhere@v1".sales.orders', ['0A000']); // another repository: cross-database, as PostgreSQL
    } finally {
      await c.end();
    }
  });
});

/**
 * Defence in depth below admission: statements run on a raw engine connection, as if admission had
 * been bypassed. The sealed engine keeps its configuration and reads only what versions read.
 */
describe('security: the sealed engine (admission bypassed)', () => {
  const repos = copyFixtures('repos/basic');
  const root = () => repos.path('repos/basic');
  const cacheDir = () => join(repos.dir, 'cache');
  const stateDir = () => `${cacheDir()}.state`;
  let engine: DuckDBInstance;
  let conn: DuckDBConnection;
  const LOCKED = [
    'threads',
    'memory_limit',
    'allowed_directories',
    'allowed_paths',
    'enable_external_access',
    'lock_configuration',
    'allowed_configs',
    'temp_directory',
    'max_temp_directory_size',
    'integer_division',
    'enable_object_cache',
  ];
  const settings = async () =>
    (
      await conn.runAndReadAll(
        `SELECT name, value FROM duckdb_settings() WHERE name IN (${LOCKED.map((n) => `'${n}'`).join(', ')}, 'TimeZone') ORDER BY name`,
      )
    )
      .getRows()
      .map((r) => `${r[0]}=${r[1]}`);
  const failure = async (sql: string): Promise<string> => {
    try {
      await conn.run(sql);
    } catch (e) {
      return (e as Error).message;
    }
    return assert.fail(`${sql} should fail on the sealed engine`);
  };

  before(async () => {
    for (const d of [join(cacheDir(), 'files'), stateDir(), join(root(), 'sources')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(stateDir(), 'verified.json'), '{"secret": "ledger"}');
    writeFileSync(join(cacheDir(), 'notes.json'), '{"secret": "cache metadata"}');
    writeFileSync(join(root(), 'sources', 'original.csv'), 'private,source\n');
    engine = await createEngine({
      memoryLimit: '512MB',
      threads: 2,
      tempDirectory: join(cacheDir(), 'duckdb-tmp'),
      maxTempDirectorySize: '100MB',
    });
    await sealEngine(engine, engineReadDirs({ local: { root: root(), dataDir: 'data/' } }));
    conn = await connectSession(engine);
  });
  after(() => {
    conn?.disconnectSync();
    engine?.closeSync();
    repos.cleanup();
  });

  test('no statement changes threads, memory_limit, the file allowlist, external access or the temp ceiling', async () => {
    const before = await settings();
    const attempts = [
      'SET threads = 1',
      'SET GLOBAL threads = 64',
      'RESET threads',
      'PRAGMA threads = 1',
      "SET memory_limit = '100GB'",
      "SET GLOBAL memory_limit = '100GB'",
      "PRAGMA memory_limit = '100GB'",
      'RESET memory_limit',
      "SET allowed_directories = ['/']",
      "SET allowed_paths = ['/etc/passwd']",
      'RESET allowed_directories',
      'SET enable_external_access = true',
      'RESET enable_external_access',
      'SET lock_configuration = false',
      "SET allowed_configs = ['threads']",
      "SET temp_directory = '/tmp'",
      "SET max_temp_directory_size = '1TB'",
      'SET SESSION integer_division = false',
      'SET enable_object_cache = false',
    ];
    for (const sql of attempts) assert.match(await failure(sql), /the configuration has been locked/, sql);
    assert.deepEqual(await settings(), before, 'every setting as it was');
    assert.ok(
      before.includes('threads=2') &&
        before.includes('enable_external_access=false') &&
        before.includes('lock_configuration=true'),
      before.join(' '),
    );
  });

  test("a session's TimeZone and search_path still work; a global TimeZone never reaches a session", async () => {
    await conn.run("SET TimeZone = 'Asia/Tokyo'");
    assert.equal((await conn.runAndReadAll("SELECT current_setting('TimeZone')")).getRows()[0]![0], 'Asia/Tokyo');
    await conn.run("SET search_path = 'memory.main'");
    await conn.run("SET GLOBAL TimeZone = 'America/New_York'");
    const other = await connectSession(engine);
    try {
      assert.equal((await other.runAndReadAll("SELECT current_setting('TimeZone')")).getRows()[0]![0], 'UTC');
    } finally {
      other.disconnectSync();
      await conn.run("SET GLOBAL TimeZone = 'UTC'");
      await conn.run("SET TimeZone = 'UTC'");
    }
  });

  test('DuckDB reads data files and catalogs, never ledgers, refs, settings, sources or the rest of the cache', async () => {
    const secrets = [
      join(stateDir(), 'verified.json'),
      join(cacheDir(), 'notes.json'),
      join(root(), 'refs.json'),
      join(root(), 'fdl.json'),
      join(root(), 'HEAD'),
      join(root(), 'refs', 'tags', 'v1'),
      join(root(), 'sources', 'original.csv'),
      join(root(), 'data', '..', 'refs.json'),
      join(cacheDir(), '*'),
      join(root(), '*'),
    ];
    const seen: string[] = [];
    for (const f of secrets) {
      for (const sql of [`SELECT content FROM read_text('${f}')`, `SELECT * FROM read_csv('${f}')`]) {
        const msg = await failure(sql);
        if (!/(Permission Error|disabled by configuration)/.test(msg) || /ledger|metadata|private/.test(msg))
          seen.push(`${sql}: ${msg}`);
      }
    }
    assert.deepEqual(seen, [], 'each refused by the file allowlist, nothing of the contents in the message');
    const orders = join(root(), 'data', 'sales', 'orders');
    const file = readdirSync(orders).find((f) => !f.includes('delete'))!;
    const n = (await conn.runAndReadAll(`SELECT count(*) FROM read_parquet('${join(orders, file)}')`)).getRows()[0]![0];
    assert.ok(Number(n) > 0, 'a data file is readable');
    const version = readdirSync(join(root(), 'versions'))[0]!;
    await conn.run(`ATTACH '${join(root(), 'versions', version, 'ducklake.duckdb')}' AS cat (READ_ONLY)`);
    await conn.run('DETACH cat');
  });
});

describe('security: authorization by ref patterns', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    writeFileSync(
      join(repos.dir, 'config.json'),
      JSON.stringify({
        auth: 'trust',
        users: {
          analyst: { grants: { basic: ['tags/*', 'heads/main'] } },
          reviewer: { grants: { basic: ['requests/*'] } },
        },
      }),
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

  test('analysts read tags and main; requests, other branches and version IDs are 42501', async () => {
    for (const db of ['basic', 'basic@v1', 'basic@tags/v2', 'basic@main']) (await client(gw, 'analyst', db)).end();
    for (const db of ['basic@requests/1', 'basic@dev', `basic@${basicRefs['refs/tags/v1']}`]) {
      const c = new pg.Client({ host: gw.host, port: gw.port, user: 'analyst', database: db });
      await assert.rejects(c.connect(), (e: { code?: string }) => e.code === '42501', db);
    }
    const c = await client(gw, 'analyst', 'basic@v1');
    try {
      await refused(c, "SET fdl.ref = 'requests/1'", ['42501']);
      // set_config is SET: the same grant check, never a way around it
      await refused(c, "select set_config('fdl.ref', 'requests/1', false)", ['42501']);
      await refused(c, "SELECT pg_catalog.set_config('fdl.ref', 'dev', false)", ['42501']);
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basicRefs['refs/tags/v1']);
      await refused(c, 'select * from "basic@dev".sales.orders', ['42501']);
      await c.query("SET fdl.ref = 'tags/v2'");
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basicRefs['refs/tags/v2']);
      assert.deepEqual((await c.query("select set_config('fdl.ref', 'heads/main', false) as ref")).rows, [
        { ref: 'heads/main' },
      ]);
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basicRefs['refs/heads/main']);
    } finally {
      await c.end();
    }
  });

  test('reviewers read requests only', async () => {
    (await client(gw, 'reviewer', 'basic@requests/1')).end();
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'reviewer', database: 'basic' });
    await assert.rejects(c.connect(), (e: { code?: string }) => e.code === '42501');
  });
});

describe('security: malicious repositories (negative fixtures) through a real client', () => {
  const cases = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')).negative as Record<string, unknown>;
  const names = Object.keys(cases);
  let gw: RunningGateway;
  const repos = copyFixtures(...names.map((n) => `negative/${n}/repo`));
  const served = names.filter((n) => n !== 'no_fdl_json' && n !== 'fdl_major_unknown');

  before(async () => {
    const args = served.flatMap((n) => ['--repo', `${n}=${repos.path(`negative/${n}/repo`)}`]);
    args.push(
      '--allowed-signers',
      `untrusted_signer=${join(FIXTURES, 'keys', 'allowed_signers')}`,
      '--signatures',
      'untrusted_signer=require',
    );
    for (const n of ['wrong_namespace', 'signature_other_content']) {
      args.push(
        '--allowed-signers',
        `${n}=${join(FIXTURES, 'keys', 'allowed_signers')}`,
        '--signatures',
        `${n}=require`,
      );
    }
    gw = await startGateway([...args, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('every negative fixture gets the behaviour its README names', async () => {
    for (const name of served) {
      const expect = JSON.parse(readFileSync(join(FIXTURES, 'negative', name, 'expect.json'), 'utf8')) as {
        checks: { resolve: string; outcome: string; error?: string; policy?: string; version?: string }[];
      };
      for (const check of expect.checks) {
        if (
          check.policy &&
          check.policy !== 'require' &&
          ['untrusted_signer', 'wrong_namespace', 'signature_other_content'].includes(name)
        )
          continue;
        const database = check.resolve === '' ? name : `${name}@${check.resolve}`;
        const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
        let error: { code?: string; message: string } | null = null;
        try {
          await c.connect();
          const n = await c.query('select count(*)::int as n from main.t');
          assert.ok(n.rows[0].n >= 0);
          if (check.version)
            assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], check.version, database);
        } catch (e) {
          error = e as { code?: string; message: string };
        } finally {
          await c.end().catch(() => undefined);
        }
        const label = `${name}: ${check.resolve || 'HEAD'} → ${check.outcome}`;
        if (check.outcome === 'serve') assert.equal(error, null, `${label}: ${error?.message}`);
        else if (check.outcome === 'refuse') assert.ok(error, `${label} must be refused`);
        else if (check.outcome === 'serve-or-refuse-0A000')
          assert.ok(!error || error.code === '0A000', `${label}: ${error?.code} ${error?.message}`);
      }
    }
  });
});

const cells = (row: Buffer) => splitDataRow(row).map((b) => b?.toString());

describe('security: limits and audit', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    writeFileSync(
      join(repos.dir, 'config.json'),
      JSON.stringify({
        maxConnections: 3,
        startupTimeoutMs: 500,
        idleInTransactionTimeoutMs: 400,
        maxResultRows: 1000,
        statementTimeoutMs: 20_000,
      }),
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

  test('connections beyond the limit get 53300; the limit frees up again', async () => {
    const open = [await client(gw, 'a', 'basic'), await client(gw, 'b', 'basic'), await client(gw, 'c', 'basic')];
    const extra = new pg.Client({ host: gw.host, port: gw.port, user: 'd', database: 'basic' });
    await assert.rejects(extra.connect(), (e: { code?: string }) => e.code === '53300');
    await open.pop()!.end();
    await new Promise((r) => setTimeout(r, 100));
    const again = await client(gw, 'e', 'basic');
    await again.end();
    for (const c of open) await c.end();
  });

  test('idle in transaction ends the session with 25P03; the default statement_timeout is the configured one', async () => {
    const c = await client(gw, 'x', 'basic');
    assert.equal((await c.query('SHOW statement_timeout')).rows[0].statement_timeout, '20s');
    const errors: string[] = [];
    c.on('error', (e: Error & { code?: string }) => errors.push(e.code ?? e.message));
    await c.query('BEGIN');
    await waitFor(() => errors.length > 0, 'the session ended by idle_in_transaction_session_timeout (400 ms)');
    await assert.rejects(c.query('select 1'));
    assert.ok(errors.includes('25P03'), `got ${errors}`);
  });

  test('a result over the row cap is refused with 54000 and the session goes on', async () => {
    const c = await client(gw, 'x', 'basic');
    try {
      await assert.rejects(c.query('select * from range(5000)'), (e: { code?: string }) => e.code === '54000');
      assert.equal((await c.query('select count(*)::int as n from range(5000)')).rows[0].n, 5000);
    } finally {
      await c.end();
    }
  });

  test('rows read ahead for a cursor or a suspended portal are held to the same row cap (54000, nothing past it)', async () => {
    const raw = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    try {
      await raw.simple('BEGIN');
      await raw.simple('declare c cursor for select i from range(5000) t(i)');
      assert.equal((await raw.simple('fetch 5 from c')).dataRows.length, 5);
      raw.send(serialize.parse({ name: 'big', text: 'select i from range(5000) t(i)' }));
      raw.send(serialize.bind({ portal: 'p', statement: 'big' }));
      raw.send(serialize.execute({ portal: 'p', rows: 10 }));
      raw.send(serialize.sync());
      assert.equal((await raw.untilReady()).dataRows.length, 10);
      // another statement: both read their rest ahead (within the read-ahead cap) before it runs
      assert.deepEqual(cells((await raw.simple('select 42')).dataRows[0]!), ['42']);
      const fetched = await raw.simple('fetch all from c');
      assert.equal(fetched.error?.code, '54000', 'the cursor past the row cap');
      assert.equal(fetched.dataRows.length, 0, 'no row past the cap is sent');
      await raw.simple('ROLLBACK');
      await raw.simple('BEGIN');
      raw.send(serialize.bind({ portal: 'p', statement: 'big' }));
      raw.send(serialize.execute({ portal: 'p', rows: 10 }));
      raw.send(serialize.sync());
      await raw.untilReady();
      await raw.simple('select 42');
      raw.send(serialize.execute({ portal: 'p', rows: 0 }));
      raw.send(serialize.sync());
      const resumed = await raw.untilReady();
      assert.equal(resumed.error?.code, '54000', 'the portal past the row cap');
      assert.equal(resumed.dataRows.length, 0);
      await raw.simple('ROLLBACK');
      assert.deepEqual(cells((await raw.simple('select count(*) from range(5000)')).dataRows[0]!), ['5000']);
    } finally {
      await raw.close();
    }
  });

  test('one structured audit line per connection and per statement, without statement text', async () => {
    const c = await client(gw, 'auditor', 'basic@v1');
    await c.query("select 'hunter2-secret' as s");
    await c.query('select * from nope').catch(() => undefined);
    await c.end();
    const logged = () =>
      gw
        .stderr()
        .split('\n')
        .slice(0, -1) // complete lines only
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    // the log is written asynchronously: the failed statement's line is the last of the three
    const lines = await waitFor(() => {
      const all = logged();
      return all.some((l) => l.event === 'statement' && l.user === 'auditor' && l.sqlstate === '42P01') && all;
    }, "the auditor's statement lines");
    assert.ok(
      lines.some((l) => l.event === 'connect' && l.user === 'auditor' && l.version === basicRefs['refs/tags/v1']),
    );
    const statements = lines.filter((l) => l.event === 'statement' && l.user === 'auditor');
    assert.ok(statements.some((l) => l.sqlstate === '00000' && l.rows === 1 && typeof l.ms === 'number'));
    assert.ok(statements.some((l) => l.sqlstate === '42P01'));
    assert.doesNotMatch(gw.stderr(), /hunter2/);
  });
});

describe('security: startup timeout', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify({ startupTimeoutMs: 500 }));
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

  test('a silent client is dropped after the startup timeout', async () => {
    const sock = connect(gw.port, gw.host);
    sock.on('error', () => undefined);
    const received: Buffer[] = [];
    sock.on('data', (d: Buffer) => received.push(d)); // a flowing socket sees the server's end
    const t0 = Date.now();
    const closed = await new Promise<boolean>((r) => {
      const t = setTimeout(() => r(false), 5000);
      sock.once('close', () => {
        clearTimeout(t);
        r(true);
      });
    });
    sock.destroy();
    assert.ok(closed, `the gateway closed the silent connection (port ${gw.port}); gateway log:\n${gw.stderr()}`);
    assert.ok(Date.now() - t0 >= 400, 'not before the timeout');
    assert.match(Buffer.concat(received).toString('latin1'), /08P01.*startup timeout/);
  });
});
