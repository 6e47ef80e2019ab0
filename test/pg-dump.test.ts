/**
 * pg_dump 15 and COPY against the gateway, with a throw-away PostgreSQL 15 beside it:
 * - `pg_dump --schema-only`, `--data-only -t`, `-Fc` + `pg_restore` into fresh PostgreSQL databases
 *   reproduce every served table: each restored table's rows (psql's text output, sorted) are the
 *   gateway's own answer to `SELECT *`.
 * - LOCK TABLE answers as PostgreSQL 15 does (only in a block; missing relations 42P01), except the
 *   modes that would block other readers: 25006, the transaction failed, the session still reads.
 * - `pg_dump -Fd -j 2` (its workers import the leader's `pg_export_snapshot()`) + `pg_restore -j 2`
 *   likewise; SET TRANSACTION SNAPSHOT reads exactly the exported version, refused as PostgreSQL 15
 *   refuses it, and refused for a version the user's grants or repository do not hold.
 * - COPY … TO STDOUT in text, CSV (FORCE_QUOTE, NULL, HEADER) and binary: the bytes psql's \copy,
 *   psycopg 3's cursor.copy() and the raw protocol receive are PostgreSQL's for the same rows (the
 *   fixture's sales schema copied into PostgreSQL).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import { copySalesSchema } from './support/sales-mirror.js';
import { describeProbe, runProbe } from './support/probe.js';
import { venvPython } from './support/python-venv.js';

const TABLES = ['main.all_types', 'main.all_types_inlined', 'sales.customers', 'sales.orders'];
const ENV = { PGTZ: 'UTC', TZ: 'UTC', PGOPTIONS: '-c extra_float_digits=1' };

describe('pg_dump, LOCK and COPY against PostgreSQL 15', { concurrency: 3 }, () => {
  let gw: RunningGateway;
  let pg: PgCluster;
  const repos = copyFixtures('repos/basic', 'repos/views');
  const work = mkdtempSync(join(tmpdir(), 'fdl-pgdump-'));
  const gwConn = () => `host=${gw.host} port=${gw.port} dbname=basic user=me`;
  const pgConn = (db: string) => `host=${pg.host} port=${pg.port} dbname=${db} user=postgres`;

  before(
    async () => {
      [gw, pg] = await Promise.all([
        startGateway(
          [
            ...['--repo', `basic=${repos.path('repos/basic')}`, '--repo', `views=${repos.path('repos/views')}`],
            ...['--cache-dir', join(repos.dir, 'cache'), '--config', config()],
          ],
          { timeoutMs: 120_000 }, // a loaded machine starts slowly
        ),
        startPgCluster({ settings: { TimeZone: 'UTC' } }),
      ]);
      // The dump names the gateway's user as every object's owner.
      pg.psql(
        'CREATE ROLE me; CREATE DATABASE schema_only; CREATE DATABASE custom_format; CREATE DATABASE directory_format;',
      );
      const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic' });
      try {
        await copySalesSchema(pg, c);
      } finally {
        await c.close();
      }
    },
    { timeout: 180_000 },
  );
  after(
    async () => {
      await Promise.all([gw?.stop(), pg?.stop()]);
      repos.cleanup();
      rmSync(work, { recursive: true, force: true });
    },
    { timeout: 30_000 },
  );

  /** Trust for everyone; `onetag` may read only basic's tag v2. */
  function config(): string {
    const file = join(repos.dir, 'config.json');
    writeFileSync(file, JSON.stringify({ auth: 'trust', users: { onetag: { grants: { basic: ['tags/v2'] } } } }));
    return file;
  }

  async function run(cmd: string, args: string[]): Promise<string> {
    const r = await runProbe(cmd, args, { env: ENV, timeoutMs: 120_000 });
    assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: ${describeProbe(r)}\n--- gateway\n${gw.stderr().slice(-2000)}`);
    return r.stdout;
  }
  /** A table's rows as psql prints them unaligned, sorted (row order is not part of a dump). */
  async function rows(conninfo: string, table: string): Promise<string[]> {
    const out = await run('psql', [
      conninfo,
      '-X',
      '-A',
      '-t',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `SELECT * FROM ${table}`,
    ]);
    return out
      .split('\n')
      .filter((l) => l !== '')
      .sort();
  }
  /** A plain-format dump loaded into the schema_only database, stopping at its first error. */
  async function restore(script: string): Promise<void> {
    const file = join(work, `plain-${Math.random().toString(36).slice(2)}.sql`);
    writeFileSync(file, script);
    await run('psql', [pgConn('schema_only'), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', file]);
  }
  async function sameRows(db: string, tables: string[]): Promise<void> {
    for (const t of tables) {
      const [ours, restored] = await Promise.all([rows(gwConn(), t), rows(pgConn(db), t)]);
      assert.ok(ours.length > 0, `${t}: the gateway serves rows`);
      assert.deepEqual(restored, ours, `${t}: restored rows differ from the gateway's`);
    }
  }

  test('pg_dump --schema-only, then --data-only -t, restore into PostgreSQL 15 and hold the served rows', async () => {
    const schema = await run('pg_dump', ['--schema-only', gwConn()]);
    for (const t of TABLES) assert.match(schema, new RegExp(`CREATE TABLE ${t.replace('.', '\\.')} \\(`));
    assert.match(schema, /COMMENT ON COLUMN sales\.orders\.amount IS/);
    await restore(schema);
    // The restored columns have the types the gateway's catalog describes.
    const columns = (conninfo: string) =>
      run('psql', [
        conninfo,
        '-X',
        '-A',
        '-t',
        '-c',
        `SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('main', 'sales') AND c.relkind = 'r' AND a.attnum > 0 ORDER BY 1`,
      ]);
    assert.equal(await columns(pgConn('schema_only')), await columns(gwConn()));
    for (const t of ['sales.orders', 'main.all_types']) {
      const data = await run('pg_dump', ['--data-only', '-t', t, gwConn()]);
      assert.match(data, new RegExp(`COPY ${t.replace('.', '\\.')} \\(`));
      await restore(data);
    }
    await sameRows('schema_only', ['sales.orders', 'main.all_types']);
    assert.deepEqual(
      await rows(pgConn('schema_only'), 'sales.customers'),
      [],
      'only the tables named with -t were dumped',
    );
  });

  test('pg_dumpall --schema-only dumps every database, the listing database `postgres` included, which reads as an empty PostgreSQL database', async () => {
    // A new-user review: pg_dumpall stopped at `postgres`, whose pg_class was empty ('pg_class'::regclass: 42P01).
    const all = await run('pg_dumpall', ['--schema-only', '-h', gw.host, '-p', String(gw.port), '-U', 'me']);
    for (const t of TABLES) assert.match(all, new RegExp(`CREATE TABLE ${t.replace('.', '\\.')} \\(`));
    assert.match(all, /\\connect postgres/);
    const ask = (conninfo: string) =>
      run('psql', [
        conninfo,
        '-X',
        '-A',
        '-t',
        ...['-c', "select 'pg_class'::regclass::oid, 'pg_catalog.pg_tables'::regclass::oid"],
        ...['-c', "select count(*) from pg_proc where proname = 'abs'"],
        ...['-c', '\\dt'],
      ]);
    const listing = `host=${gw.host} port=${gw.port} dbname=postgres user=me`;
    // (this cluster's `postgres` holds the sales mirror: its empty database is template1)
    assert.equal(await ask(listing), await ask(pgConn('template1')));
  });

  test('pg_dump -Fc and pg_restore reproduce every served table', async () => {
    const file = join(work, 'basic.dump');
    await run('pg_dump', ['-Fc', '-f', file, gwConn()]);
    await run('pg_restore', ['--exit-on-error', '-d', pgConn('custom_format'), file]);
    await sameRows('custom_format', TABLES);
  });

  test('pg_dump -Fd -j 2 (workers import the leader snapshot) and pg_restore -j 2 reproduce every served table', async () => {
    const dir = join(work, 'basic.dir');
    await run('pg_dump', ['-Fd', '-j', '2', '-f', dir, gwConn()]);
    await run('pg_restore', ['--exit-on-error', '-j', '2', '-d', pgConn('directory_format'), dir]);
    await sameRows('directory_format', TABLES);
  });

  test('SET TRANSACTION SNAPSHOT reads exactly the exported version; refused as PostgreSQL 15, and beyond grants or repository', async () => {
    const versions = (
      JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
        repos: { basic: { refs: Record<string, string> } };
      }
    ).repos.basic.refs;
    const connect = (user: string, database: string) => RawPg.connect({ port: gw.port, user, database });
    const [leader, worker, exporter, theirs, onetag, other] = await Promise.all([
      connect('me', 'basic~v1'),
      connect('me', 'basic'),
      RawPg.connect({ port: pg.port, user: 'postgres', database: 'postgres' }),
      RawPg.connect({ port: pg.port, user: 'postgres', database: 'postgres' }),
      connect('onetag', 'basic~v2'),
      connect('me', 'views'),
    ]);
    const value = async (c: RawPg, sql: string) => {
      const r = await c.simple(sql);
      assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
      return splitDataRow(r.dataRows[0]!)[0]!.toString();
    };
    const count = (c: RawPg) => value(c, 'SELECT count(*) FROM sales.orders');
    try {
      const snapshot = await value(leader, 'SELECT pg_catalog.pg_export_snapshot()');
      assert.equal(snapshot, versions['refs/tags/v1'], "the leader's version ID");
      const [v1Rows, headRows] = [await count(leader), await count(worker)];
      assert.notEqual(v1Rows, headRows, 'the fixture: v1 and HEAD hold different rows');
      await worker.simple('BEGIN');
      assert.equal(
        (await worker.simple('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY')).error,
        undefined,
      );
      assert.equal((await worker.simple(`SET TRANSACTION SNAPSHOT '${snapshot}'`)).commandTag, 'SET');
      assert.equal(await count(worker), v1Rows, 'the worker reads the leader version');
      assert.equal(await value(worker, 'SHOW fdl.version'), snapshot);
      await worker.simple('COMMIT');
      assert.equal(await count(worker), headRows, 'after the block, its own ref again');
      assert.equal(await value(worker, 'SHOW fdl.version'), versions['refs/heads/main']);

      // The refusals PostgreSQL 15 gives, code, message and warnings alike (each side with a snapshot of its own).
      await exporter.simple('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const pgSnapshot = await value(exporter, 'SELECT pg_export_snapshot()');
      const import_ = (id: string) => `SET TRANSACTION SNAPSHOT '${id}'`;
      for (const steps of [
        [import_('@')],
        ['BEGIN', import_('@'), 'ROLLBACK'],
        ['BEGIN ISOLATION LEVEL REPEATABLE READ', 'SELECT 1', import_('@'), 'ROLLBACK'],
        [
          'BEGIN',
          'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
          'SHOW transaction_isolation',
          import_('@'),
          'COMMIT',
        ],
        ['BEGIN', 'SELECT 1', 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ', 'ROLLBACK'],
        ['BEGIN ISOLATION LEVEL REPEATABLE READ', import_('zz'), 'ROLLBACK'],
        ['BEGIN ISOLATION LEVEL REPEATABLE READ', import_('00000003-0000001B-1'), 'ROLLBACK'],
        ['SET TRANSACTION READ ONLY', 'SHOW transaction_isolation'],
        // pgjdbc's setTransactionIsolation (a new-user review: SET, then still read committed)
        [
          'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE',
          'SHOW default_transaction_isolation',
          'SHOW transaction_isolation',
          'BEGIN',
          'SHOW transaction_isolation',
          'COMMIT',
          'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ',
          'SHOW transaction isolation level',
          'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED',
          'SHOW transaction_isolation',
        ],
      ]) {
        for (const step of steps) {
          const [a, b] = await Promise.all([
            worker.simple(step.replace('@', snapshot)),
            theirs.simple(step.replace('@', pgSnapshot)),
          ]);
          const seen = (r: typeof a) => ({
            tag: r.commandTag,
            error: r.error && [r.error.code, r.error.message],
            rows: r.dataRows.map((d) => splitDataRow(d).map(String)),
            notices: r.messages.filter((m) => m.code === 'N').map((m) => (m.parsed as { code?: string }).code),
          });
          assert.deepEqual(seen(a), seen(b), `${steps.join('; ')}: ${step}`);
        }
      }
      assert.equal(await count(worker), headRows, 'nothing imported');

      // A version the user's grants do not cover (onetag reads tag v2 only), and another repository's version.
      for (const [c, expected] of [
        [onetag, '42501'],
        [other, '22023'],
      ] as const) {
        const before = await value(c, 'SHOW fdl.version');
        await c.simple('BEGIN ISOLATION LEVEL REPEATABLE READ');
        const refused = await c.simple(import_(snapshot));
        assert.equal(refused.error?.code, expected, refused.error?.message);
        await c.simple('ROLLBACK');
        assert.equal(await value(c, 'SHOW fdl.version'), before, 'the session reads its own version still');
      }
      // Its own version is a snapshot onetag may import.
      const own = await value(onetag, 'SELECT pg_export_snapshot()');
      await onetag.simple('BEGIN ISOLATION LEVEL REPEATABLE READ');
      assert.equal((await onetag.simple(import_(own))).commandTag, 'SET');
      await onetag.simple('COMMIT');
      // pg_dump --snapshot: a dump of HEAD's connection reads the version named.
      const dumped = await run('pg_dump', ['--data-only', '-t', 'sales.orders', `--snapshot=${snapshot}`, gwConn()]);
      const copied = /COPY sales\.orders [^\n]*\n([\s\S]*?)\n\\\.\n/.exec(dumped)?.[1]?.split('\n');
      assert.equal(String(copied?.length), v1Rows, 'the rows of the version the snapshot names');
    } finally {
      await Promise.all([leader, worker, exporter, theirs, onetag, other].map((c) => c.close()));
    }
  });

  test('LOCK TABLE: as PostgreSQL 15 in a block and outside one; modes that block readers refused', async () => {
    const [ours, theirs] = await Promise.all([
      RawPg.connect({ port: gw.port, user: 'me', database: 'basic' }),
      RawPg.connect({ port: pg.port, user: 'postgres', database: 'postgres' }),
    ]);
    try {
      const both = async (sql: string) => {
        const [a, b] = await Promise.all([ours.simple(sql), theirs.simple(sql)]);
        assert.deepEqual(
          { tag: a.commandTag, error: a.error?.code, message: a.error?.message },
          { tag: b.commandTag, error: b.error?.code, message: b.error?.message },
          sql,
        );
        return a;
      };
      assert.equal((await both('LOCK TABLE sales.orders IN ACCESS SHARE MODE')).error?.code, '25P01');
      await both('BEGIN READ ONLY');
      assert.equal(
        (await both('LOCK TABLE sales.orders, ONLY sales.customers IN ACCESS SHARE MODE')).commandTag,
        'LOCK TABLE',
      );
      await both('LOCK sales.orders IN ROW SHARE MODE NOWAIT');
      assert.equal((await both('SELECT count(*) FROM sales.orders')).commandTag, 'SELECT 1');
      await both('COMMIT');
      await both('BEGIN');
      assert.equal((await both('LOCK TABLE sales.nope IN ACCESS SHARE MODE')).error?.code, '42P01');
      await both('ROLLBACK');
      // PostgreSQL takes ACCESS EXCLUSIVE even read-only; here it would have to stop other sessions reading.
      await ours.simple('BEGIN');
      const refused = await ours.simple('LOCK TABLE sales.orders');
      assert.equal(refused.error?.code, '25006');
      assert.match(refused.error!.message, /ACCESS EXCLUSIVE mode/);
      assert.equal((await ours.simple('SELECT 1')).error?.code, '25P02', 'the block failed');
      await ours.simple('ROLLBACK');
      const after = await ours.simple('SELECT count(*) FROM sales.orders');
      assert.equal(after.error, undefined);
      assert.equal(after.dataRows.length, 1);
    } finally {
      await Promise.all([ours.close(), theirs.close()]);
    }
  });

  const COPIES = [
    'COPY (SELECT * FROM sales.orders ORDER BY order_id) TO STDOUT (FORMAT binary)',
    'COPY (SELECT * FROM sales.customers ORDER BY customer_id) TO STDOUT WITH BINARY',
    'COPY (SELECT * FROM sales.customers ORDER BY customer_id) TO STDOUT (FORMAT csv, FORCE_QUOTE *, HEADER)',
    'COPY (SELECT customer_id, name, email, vip FROM sales.customers ORDER BY customer_id) TO STDOUT WITH CSV HEADER FORCE QUOTE name, vip',
    `COPY (SELECT * FROM sales.orders ORDER BY order_id) TO STDOUT (FORMAT csv, NULL 'none', DELIMITER ';', QUOTE '''', FORCE_QUOTE (status))`,
    `COPY (SELECT E'tab\\there', E'back\\\\slash', E'bell\\bform\\fvt\\x0b', NULL::text, '', '\\.' ) TO STDOUT (HEADER)`,
    `COPY (SELECT '\\.' AS x) TO STDOUT (FORMAT csv)`,
    `COPY (SELECT E'a\\nb' AS "odd ""name""", 'x,y', '"q"', NULL) TO STDOUT (FORMAT csv, HEADER)`,
    'COPY sales.orders (order_id, status) TO STDOUT',
  ];

  test("COPY … TO STDOUT: the protocol bytes are PostgreSQL's (binary, CSV with FORCE_QUOTE, text escapes)", async () => {
    const [ours, theirs] = await Promise.all([
      RawPg.connect({ port: gw.port, user: 'me', database: 'basic' }),
      RawPg.connect({ port: pg.port, user: 'postgres', database: 'postgres' }),
    ]);
    try {
      // Copy-out messages as sent: H (formats), every d, c, and the command tag.
      const copyBytes = async (c: RawPg, sql: string) => {
        const r = await c.simple(sql);
        assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
        return (
          Buffer.concat(r.messages.filter((m) => 'Hdc'.includes(m.code)).map((m) => m.raw)).toString('hex') +
          ` ${r.commandTag}`
        );
      };
      for (const sql of COPIES) assert.equal(await copyBytes(ours, sql), await copyBytes(theirs, sql), sql);
      // Refused as PostgreSQL refuses them, same SQLSTATE and message.
      for (const sql of [
        'COPY (SELECT 1) TO STDOUT (FORMAT binary, HEADER)',
        'COPY (SELECT 1) TO STDOUT (FORCE_QUOTE *)',
        "COPY (SELECT 1) TO STDOUT (FORMAT csv, DELIMITER ',', QUOTE ',')",
        'COPY (SELECT 1 AS a) TO STDOUT (FORMAT csv, FORCE_QUOTE (b))',
        'COPY (SELECT 1) TO STDOUT (FORMAT csv, FORMAT text)',
        'COPY (SELECT 1) TO STDOUT (FORMAT xml)',
        "COPY (SELECT 1) TO STDOUT (HEADER 'maybe')",
        "COPY (SELECT 1) TO STDOUT (DELIMITER 'a')",
        'COPY (SELECT 1) TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))',
        "COPY (SELECT 1) TO STDOUT (FORMAT csv, NULL 'a\"b')",
      ]) {
        const [a, b] = await Promise.all([ours.simple(sql), theirs.simple(sql)]);
        assert.ok(b.error, `PostgreSQL refuses ${sql}`);
        assert.deepEqual([a.error?.code, a.error?.message], [b.error.code, b.error.message], sql);
        assert.equal((await ours.simple('SELECT 1')).error, undefined, 'the session goes on');
      }
    } finally {
      await Promise.all([ours.close(), theirs.close()]);
    }
  });

  test("psql \\copy … to stdout and psycopg 3 cursor.copy() receive PostgreSQL's bytes", async () => {
    const psqlCopy = (conninfo: string) =>
      run('psql', [
        conninfo,
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        '\\copy (SELECT * FROM sales.customers ORDER BY customer_id) to stdout with (format csv, force_quote *, header)',
        '-c',
        '\\copy (SELECT * FROM sales.orders ORDER BY order_id) to stdout with csv force quote status',
        '-c',
        '\\copy sales.orders to stdout',
      ]);
    const [a, b] = await Promise.all([psqlCopy(gwConn()), psqlCopy(pgConn('postgres'))]);
    assert.match(b, /^customer_id,name,.*\n"1","Customer 1",/);
    assert.equal(a, b);
    const script = [
      'import psycopg, sys',
      'with psycopg.connect(sys.argv[1], autocommit=True) as conn:',
      '    with conn.cursor() as cur:',
      '        for q in sys.argv[2:]:',
      '            with cur.copy(q) as copy:',
      '                data = b"".join(bytes(b) for b in copy)',
      '            print(q[:40], len(data), data.hex())',
      '        with cur.copy("COPY (SELECT * FROM sales.orders ORDER BY order_id) TO STDOUT (FORMAT binary)") as copy:',
      '            copy.set_types(["int8", "int4", "numeric", "int2", "timestamp", "text"])',
      '            print([r for r in copy.rows()][:3])',
    ].join('\n');
    const queries = COPIES.slice(0, 5);
    const [ours, theirs] = await Promise.all(
      [gwConn(), pgConn('postgres')].map((conninfo) => run(venvPython(), ['-c', script, conninfo, ...queries])),
    );
    assert.match(theirs!, /Decimal\('/);
    assert.equal(ours, theirs);
  });
});
