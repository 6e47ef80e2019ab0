/**
 * PostgreSQL protocol behaviour through real clients over real sockets: TLS, authentication,
 * transactions, extended-protocol portals, cancel, COPY, timeouts and malformed input.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import postgres from 'postgres';
import { CLI, copyFixtures, startGateway, type RunningGateway, waitFor, whenBusy } from './support/gateway.js';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import { within } from './support/files.js';
import { serialize } from 'pg-protocol';

const run = promisify(execFile);

/** A query that runs for seconds in DuckDB (used for cancel and timeouts). */
const LONG_QUERY = 'select count(*) from range(100000000000) t(i) where i % 7 = 3';

async function hashPassword(password: string): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  return execFileSync(process.execPath, [CLI, 'hash-password'], { input: password }).toString().trim();
}

describe('protocol: trust sessions', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const url = () => `postgres://tester@${gw.host}:${gw.port}/basic@v1`;

  before(async () => {
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('transaction status I/T/E, 25P02 until ROLLBACK, warnings for nested BEGIN and idle ROLLBACK', async () => {
    const c = new pg.Client(url());
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(`${n.code}:${n.message}`));
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query('BEGIN');
      assert.ok(
        notices.some((n) => n.startsWith('25001')),
        `nested BEGIN warns: ${notices}`,
      );
      await assert.rejects(c.query('select * from nope'), (e: { code?: string }) => e.code === '42P01');
      await assert.rejects(c.query('select 1'), (e: { code?: string }) => e.code === '25P02');
      await c.query('ROLLBACK');
      assert.equal((await c.query('select 1 as x')).rows[0].x, 1);
      await c.query('ROLLBACK');
      assert.ok(
        notices.some((n) => n.startsWith('25P01')),
        'ROLLBACK when idle warns',
      );
    } finally {
      await c.end();
    }
  });

  test('SAVEPOINT / ROLLBACK TO clears the failed state (psqlODBC style), RELEASE works', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      await c.query('BEGIN; SAVEPOINT _EXEC_SVP_1');
      await assert.rejects(c.query('select * from nope'), { code: '42P01' });
      await c.query('ROLLBACK TO _EXEC_SVP_1');
      await c.query('RELEASE _EXEC_SVP_1; SAVEPOINT _EXEC_SVP_2');
      assert.equal((await c.query('select 2 as x')).rows[0].x, 2);
      await c.query('COMMIT');
    } finally {
      await c.end();
    }
  });

  test('several statements in one Query run as one implicit transaction: an error skips the rest', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      await assert.rejects(c.query('select 1; select * from nope; select 3'), { code: '42P01' });
      const r = await c.query('select 1 as a; select 2 as b');
      assert.equal((r as unknown as pg.QueryResult[]).length, 2);
    } finally {
      await c.end();
    }
  });

  test('postgres.js: named prepared statements with typed parameters, cursors (PortalSuspended), errors and recovery', async () => {
    const sql = postgres(url(), { max: 1, onnotice: () => undefined });
    try {
      const rows =
        await sql`select ${42}::integer + 1 as a, ${'x'} || 'y' as b, ${'12.50'}::decimal(10,2) as n, ${new Date('2024-01-02T03:04:05Z')}::timestamptz as t`;
      assert.equal(rows[0]!.a, 43);
      assert.equal(rows[0]!.b, 'xy');
      assert.equal(rows[0]!.n, '12.50');
      assert.equal((rows[0]!.t as Date).toISOString(), '2024-01-02T03:04:05.000Z');
      // prepared reuse
      for (let i = 0; i < 3; i++) assert.equal((await sql`select ${i}::int as v`)[0]!.v, i);
      let seen = 0;
      let batches = 0;
      for await (const batch of sql`select * from range(2500) t(i)`.cursor(1000)) {
        batches++;
        seen += batch.length;
      }
      assert.equal(seen, 2500);
      assert.equal(batches, 3);
      await assert.rejects(sql`select * from nope`, (e: { code?: string }) => e.code === '42P01');
      assert.equal((await sql`select 1 as one`)[0]!.one, 1);
    } finally {
      await sql.end();
    }
  });

  test('SQL cursors: DECLARE, FETCH n / ALL, MOVE, CLOSE; WITH HOLD survives COMMIT; NO SCROLL cursors never go back', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      await assert.rejects(c.query('DECLARE c CURSOR FOR select 1'), (e: { code?: string }) => e.code === '25P01');
      await c.query('BEGIN');
      await c.query('DECLARE c CURSOR FOR select i from range(10) t(i) order by i');
      assert.deepEqual(
        (await c.query('FETCH 3 FROM c')).rows.map((r) => Number(r.i)),
        [0, 1, 2],
      );
      const moved = await c.query('MOVE 2 IN c');
      assert.equal(moved.command, 'MOVE');
      assert.equal(moved.rowCount, 2);
      assert.deepEqual(
        (await c.query('FETCH NEXT FROM c')).rows.map((r) => Number(r.i)),
        [5],
      );
      const rest = await c.query('FETCH ALL FROM c');
      assert.deepEqual(
        rest.rows.map((r) => Number(r.i)),
        [6, 7, 8, 9],
      );
      assert.equal(rest.command, 'FETCH');
      assert.equal((await c.query('FETCH 5 FROM c')).rows.length, 0);
      // declared without SCROLL or NO SCROLL it goes back, as PostgreSQL over a sorted plan
      assert.deepEqual(
        (await c.query('FETCH PRIOR FROM c')).rows.map((r) => Number(r.i)),
        [9],
      );
      await c.query('DECLARE n NO SCROLL CURSOR FOR select i from range(10) t(i) order by i');
      await c.query('FETCH 2 FROM n');
      await assert.rejects(c.query('FETCH PRIOR FROM n'), (e: { code?: string }) => e.code === '55000');
      await c.query('ROLLBACK');
      await c.query('BEGIN');
      await c.query('DECLARE s SCROLL CURSOR FOR select i from range(10) t(i) order by i');
      assert.equal((await c.query('FETCH ALL FROM s')).rows.length, 10);
      assert.deepEqual(
        (await c.query('FETCH BACKWARD 3 FROM s')).rows.map((r) => Number(r.i)),
        [9, 8, 7],
      );
      assert.deepEqual(
        (await c.query('FETCH ABSOLUTE 2 FROM s')).rows.map((r) => Number(r.i)),
        [1],
      );
      assert.equal((await c.query('MOVE LAST IN s')).rowCount, 1);
      assert.deepEqual(
        (await c.query('FETCH RELATIVE -1 FROM s')).rows.map((r) => Number(r.i)),
        [8],
      );
      await c.query('ROLLBACK');
      // A SCROLL cursor keeps its last 100,000 rows: further back is refused (54000), never answered short.
      await c.query('BEGIN');
      await c.query('DECLARE big SCROLL CURSOR FOR select i from range(150000) t(i)');
      assert.equal((await c.query('MOVE FORWARD ALL IN big')).rowCount, 150000);
      assert.deepEqual(
        (await c.query('FETCH ABSOLUTE 50001 FROM big')).rows.map((r) => Number(r.i)),
        [50000],
      );
      await assert.rejects(c.query('FETCH ABSOLUTE 1 FROM big'), (e: { code?: string }) => e.code === '54000');
      await assert.rejects(c.query('FETCH 1 FROM big'), (e: { code?: string }) => e.code === '25P02');
      await c.query('ROLLBACK');
      await assert.rejects(c.query('FETCH 1 FROM big'), (e: { code?: string }) => e.code === '34000');
      await c.query('BEGIN');
      await c.query('DECLARE h CURSOR WITH HOLD FOR select i from range(4) t(i) order by i');
      await c.query('COMMIT');
      assert.equal((await c.query('FETCH ALL FROM h')).rows.length, 4);
      await c.query('CLOSE h');
      await assert.rejects(c.query('FETCH 1 FROM h'), (e: { code?: string }) => e.code === '34000');
    } finally {
      await c.end();
    }
  });

  test('a result column typed only by its parameters is described from the bound portal', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      const r = await c.query('select array_length($1::text[], 1) as n', [['a', 'b', 'c']]);
      assert.equal(r.fields[0]!.name, 'n');
      assert.equal(r.fields[0]!.dataTypeID, 23, 'int4, as PostgreSQL types array_length');
      assert.equal(String(r.rows[0].n), '3');
      const simple = await c.query("select array_length('{a,b}'::text[], 1) as m");
      assert.equal(String(simple.rows[0].m), '2');
    } finally {
      await c.end();
    }
  });

  test('an SQL EXECUTE sent over the extended protocol is described with the rows of the statement it runs', async () => {
    // PostgreSQL's UtilityTupleDescriptor: Describe of `EXECUTE z` (statement or portal) is z's RowDescription.
    const c = await RawPg.connect({ port: gw.port, database: 'basic@v1' });
    try {
      assert.equal((await c.simple('prepare z as select 41 + 1 as answer')).error, undefined);
      c.send(
        Buffer.concat([
          serialize.parse({ name: 'q', text: 'execute z' }),
          serialize.describe({ type: 'S', name: 'q' }),
          serialize.bind({ statement: 'q' }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
      );
      const r = await c.untilReady();
      assert.equal(r.error, undefined);
      assert.deepEqual(
        r.messages.map((m) => m.code),
        ['1', 't', 'T', '2', 'T', 'D', 'C', 'Z'],
      );
      assert.equal(r.dataRows.length, 1);
    } finally {
      await c.close();
    }
    // node-postgres names a statement and reads the portal's RowDescription before any DataRow.
    const n = new pg.Client(url());
    await n.connect();
    try {
      await n.query('prepare z as select 41 + 1 as answer');
      const r = await n.query({ name: 'via-execute', text: 'execute z' });
      assert.deepEqual(
        r.fields.map((f) => f.name),
        ['answer'],
      );
      assert.equal(String(r.rows[0].answer), '42');
    } finally {
      await n.end();
    }
  });

  test('result columns are named as PostgreSQL names them', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      const r = await c.query(
        "select count(*), sum(qty), order_id::text, 'a'::text, 1, qty + 1, max(qty) as top, coalesce(qty, 0), current_date from sales.orders group by order_id, qty limit 1",
      );
      assert.deepEqual(
        r.fields.map((f) => f.name),
        ['count', 'sum', 'order_id', 'text', '?column?', '?column?', 'top', 'coalesce', 'current_date'],
      );
      const duck = await c.query('select list_transform([1, 2], x -> x + 1) as l');
      assert.deepEqual(
        duck.fields.map((f) => f.name),
        ['l'],
        'DuckDB syntax keeps its names',
      );
    } finally {
      await c.end();
    }
  });

  test('a suspended portal reads on after another statement (pgjdbc fetch size, N+1 loops), as in PostgreSQL', async () => {
    const raw = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    const ints = (rows: Buffer[]) => rows.map((r) => Number(splitDataRow(r)[0]!.toString()));
    try {
      await raw.simple('BEGIN');
      raw.send(serialize.parse({ name: 'outer', text: 'select i from range(10000) t(i) order by i' }));
      raw.send(serialize.bind({ portal: 'rs', statement: 'outer' }));
      raw.send(serialize.execute({ portal: 'rs', rows: 3000 }));
      raw.send(serialize.sync());
      assert.deepEqual(ints((await raw.untilReady()).dataRows), [...Array(3000).keys()]);
      // the inner query of an N+1 loop, by both protocols
      assert.deepEqual(ints((await raw.simple('select 42')).dataRows), [42]);
      assert.deepEqual(ints((await raw.query('select $1::int + 1', { params: ['6'] })).dataRows), [7]);
      raw.send(serialize.execute({ portal: 'rs', rows: 4000 }));
      raw.send(serialize.sync());
      const middle = await raw.untilReady();
      assert.deepEqual(
        ints(middle.dataRows),
        [...Array(4000).keys()].map((i) => i + 3000),
      );
      assert.ok(
        middle.messages.some((m) => m.code === 's'),
        'PortalSuspended',
      );
      assert.equal(middle.error, undefined);
      raw.send(serialize.execute({ portal: 'rs', rows: 0 }));
      raw.send(serialize.sync());
      const rest = await raw.untilReady();
      assert.deepEqual(
        ints(rest.dataRows),
        [...Array(3000).keys()].map((i) => i + 7000),
      );
      assert.equal(rest.commandTag, 'SELECT 10000');
      await raw.simple('COMMIT');
    } finally {
      await raw.close();
    }
  });

  test('a portal read ahead never leaves part of its result in the result cache', async () => {
    const sql = 'select order_id from sales.orders order by order_id';
    const whole = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    const raw = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    try {
      await whole.simple('set fdl.result_cache = off');
      const all = (await whole.simple(sql)).dataRows.length;
      assert.ok(all > 4, `${all} rows`);
      await raw.simple('BEGIN');
      raw.send(serialize.parse({ name: 'p1', text: sql }));
      raw.send(serialize.bind({ portal: 'rs', statement: 'p1' }));
      raw.send(serialize.execute({ portal: 'rs', rows: 2 }));
      raw.send(serialize.sync());
      assert.equal((await raw.untilReady()).dataRows.length, 2);
      await raw.simple('select 42'); // the portal reads its rest ahead
      raw.send(serialize.execute({ portal: 'rs', rows: 0 }));
      raw.send(serialize.sync());
      assert.equal((await raw.untilReady()).dataRows.length, all - 2);
      raw.send(serialize.execute({ portal: 'rs', rows: 0 }));
      raw.send(serialize.sync());
      await raw.untilReady();
      await raw.simple('COMMIT');
      // the same text again, from the cache if anything was kept: every row
      assert.equal((await raw.simple(sql)).dataRows.length, all);
      assert.equal((await raw.query(sql)).dataRows.length, all);
    } finally {
      await Promise.all([raw.close(), whole.close()]);
    }
  });

  test('a suspended portal with more rows ahead than the read-ahead cap fails when resumed past them, never ends short', async () => {
    const raw = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    try {
      await raw.simple('BEGIN');
      const first = await raw.query('select i from range(10000) t(i)', { maxRows: 5 });
      assert.equal(first.dataRows.length, 5);
      assert.ok(
        first.messages.some((m) => m.code === 's'),
        'PortalSuspended',
      );
      // The unnamed portal is replaced by the next statement anyway; name one to resume it.
      raw.send(serialize.parse({ name: 'big', text: 'select i from range(300000) t(i)' }));
      raw.send(serialize.bind({ portal: 'cur', statement: 'big' }));
      raw.send(serialize.execute({ portal: 'cur', rows: 3000 }));
      raw.send(serialize.sync());
      assert.equal((await raw.untilReady()).dataRows.length, 3000);
      await raw.simple('select 42');
      raw.send(serialize.execute({ portal: 'cur', rows: 0 }));
      raw.send(serialize.sync());
      const resumed = await raw.untilReady();
      assert.equal(resumed.error?.code, '55000', 'an error, not a short result');
      assert.equal(resumed.dataRows.length, 0, 'the error, before any row');
    } finally {
      await raw.close();
    }
  });

  test('backpressure: a client that stops reading stops the gateway fetching (memory stays flat)', async () => {
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gw.proc.pid}/status`, 'utf8'))![1]) * 1024;
    const sock = netConnect(gw.port, gw.host);
    await new Promise((r) => sock.once('connect', r));
    const startup = Buffer.from('\0\0\0\0\0\x03\0\0user\0x\0database\0basic\0\0', 'latin1');
    startup.writeInt32BE(startup.length, 0);
    sock.write(startup);
    // ~400 MB of DataRows: far more than any socket buffer.
    const sql = "select i, repeat('x', 200) as pad from range(2000000) t(i)\0";
    const q = Buffer.alloc(5 + Buffer.byteLength(sql));
    q[0] = 0x51;
    q.writeInt32BE(4 + Buffer.byteLength(sql), 1);
    q.write(sql, 5);
    let received = 0;
    let ready = 0;
    const done = new Promise<void>((resolve) => {
      sock.on('data', (d: Buffer) => {
        received += d.length;
        if (d.length >= 6 && d[d.length - 6] === 0x5a) {
          ready++;
          if (ready === 1) sock.write(q);
          else resolve();
        }
      });
    });
    while (received < 1_000_000) await new Promise((r) => setTimeout(r, 20));
    sock.pause();
    await new Promise((r) => setTimeout(r, 500));
    const before = rss();
    await new Promise((r) => setTimeout(r, 2500));
    const paused = rss();
    assert.ok(
      paused - before < 100 * 1024 * 1024,
      `gateway memory grew ${((paused - before) / 1e6).toFixed(0)} MB while the client did not read`,
    );
    sock.resume();
    await done;
    assert.ok(received > 400_000_000, `all rows arrived (${received} bytes)`);
    sock.destroy();
  });

  test('100,000 rows stream to node-postgres', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      const r = await c.query('select i, i::varchar as s from range(100000) t(i)');
      assert.equal(r.rowCount, 100000);
      assert.equal(r.rows.length, 100000);
      assert.equal(r.rows[99999].s, '99999');
    } finally {
      await c.end();
    }
  });

  test('CancelRequest interrupts a running query with 57014; the connection keeps working', async () => {
    const sql = postgres(url(), { max: 1, onnotice: () => undefined });
    try {
      // the session and its version set up first: what burns the gateway's CPU next is the statement
      assert.equal((await sql`select 4 as v`)[0]!.v, 4);
      const q = sql.unsafe(LONG_QUERY);
      const ended = q.then(
        () => null,
        (e: { code?: string }) => e,
      );
      await whenBusy(gw, ended);
      const cancelled = Date.now();
      q.cancel();
      assert.equal((await within(ended, 30_000, 'the answer to the CancelRequest'))?.code, '57014');
      assert.ok(Date.now() - cancelled < 10_000, 'cancel took effect quickly');
      assert.equal((await sql`select 5 as v`)[0]!.v, 5);
    } finally {
      await sql.end({ timeout: 5 }); // a statement the cancel missed would run on for good
    }
  });

  test('statement_timeout stops the query with 57014', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      await c.query("SET statement_timeout = '200ms'");
      assert.equal((await c.query('SHOW statement_timeout')).rows[0].statement_timeout, '200ms');
      const t0 = Date.now();
      await assert.rejects(
        c.query(LONG_QUERY),
        (e: { code?: string; message: string }) => e.code === '57014' && /timeout/.test(e.message),
      );
      assert.ok(Date.now() - t0 < 10_000);
      await c.query('RESET statement_timeout');
      assert.equal((await c.query('select 1 as x')).rows[0].x, 1);
    } finally {
      await c.end();
    }
  });

  test('psql \\copy (query) to file writes text and CSV exactly', async () => {
    const out = join(repos.dir, 'out.txt');
    const csv = join(repos.dir, 'out.csv');
    const conn = `host=${gw.host} port=${gw.port} dbname=basic@v1 user=me`;
    await run('psql', [conn, '-X', '-c', `\\copy (select 1 as a, 'x\ty' as b, NULL as c) to '${out}'`]);
    assert.equal(readFileSync(out, 'utf8'), '1\tx\\ty\t\\N\n');
    await run('psql', [
      conn,
      '-X',
      '-c',
      `\\copy (select 1 as a, 'q"uote,d' as b, NULL as c, '' as d) to '${csv}' with (format csv, header)`,
    ]);
    assert.equal(readFileSync(csv, 'utf8'), 'a,b,c,d\n1,"q""uote,d",,""\n');
  });

  test('SET/SHOW/RESET of session parameters report ParameterStatus and refuse bad values', async () => {
    const c = new pg.Client(url());
    await c.connect();
    try {
      await c.query("SET application_name = 'probe'");
      assert.equal((await c.query('SHOW application_name')).rows[0].application_name, 'probe');
      await c.query("SET TimeZone = 'Asia/Kolkata'");
      const r = await c.query({
        text: "select timestamptz '2024-01-01 00:00:00+00' as t",
        types: { getTypeParser: () => (v: string) => v },
      });
      assert.equal(r.rows[0].t, '2024-01-01 05:30:00+05:30');
      await assert.rejects(c.query("SET TimeZone = 'Mars/Olympus'"), (e: { code?: string }) => e.code === '22023');
      await assert.rejects(c.query('SET no_such_setting = 1'), (e: { code?: string }) => e.code === '42704');
      await c.query('RESET ALL');
      assert.equal((await c.query('SHOW TimeZone')).rows[0].TimeZone, 'UTC');
      assert.equal((await c.query('SHOW transaction isolation level')).rows[0].transaction_isolation, 'read committed');
    } finally {
      await c.end();
    }
  });

  test('bytes after SSLRequest before the answer are refused (CVE-2021-23214 class)', async () => {
    const sock = netConnect(gw.port, gw.host);
    await new Promise((r) => sock.once('connect', r));
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    const startup = Buffer.from('\0\0\0\x08\0\x03\0\0', 'binary');
    const got: Buffer[] = [];
    sock.on('data', (d) => got.push(d));
    sock.write(Buffer.concat([ssl, startup]));
    await new Promise((r) => sock.once('close', r));
    const all = Buffer.concat(got);
    assert.notEqual(all[0], 'N'.charCodeAt(0), 'no answer to the SSLRequest');
    assert.equal(String.fromCharCode(all[0]!), 'E');
    assert.match(all.toString('latin1'), /08P01/);
  });

  test('protocol 3.2 is answered with NegotiateProtocolVersion; replication is refused', async () => {
    const raw = await RawPg.connect({
      port: gw.port,
      host: gw.host,
      user: 'x',
      database: 'basic',
      params: { _pq_: '' },
    }).catch((e) => e);
    void raw;
    const sock = netConnect(gw.port, gw.host);
    await new Promise((r) => sock.once('connect', r));
    const body = Buffer.concat([
      Buffer.from([0, 3, 0, 2]),
      Buffer.from('user\0x\0database\0basic\0_pq_.odd\0v\0\0', 'latin1'),
    ]);
    const len = Buffer.alloc(4);
    len.writeInt32BE(body.length + 4);
    const got: Buffer[] = [];
    sock.on('data', (d) => got.push(d));
    sock.write(Buffer.concat([len, body]));
    // the whole first message (type, length, body)
    const all = await waitFor(() => {
      const b = Buffer.concat(got);
      return b.length >= 5 && b.length >= 1 + b.readInt32BE(1) && b;
    }, 'the answer to a 3.2 StartupMessage');
    sock.destroy();
    assert.equal(String.fromCharCode(all[0]!), 'v');
    assert.equal(all.readInt32BE(5), 0, 'newest minor version supported');
    assert.match(all.toString('latin1'), /_pq_\.odd/);

    const rep = new pg.Client({
      host: gw.host,
      port: gw.port,
      user: 'x',
      database: 'basic',
      replication: 'database',
    } as pg.ClientConfig);
    await assert.rejects(rep.connect(), (e: { code?: string }) => e.code === '42501');
  });

  test('an oversized or malformed message ends the connection with 08P01; the server keeps serving', async () => {
    const raw = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    const huge = Buffer.alloc(5);
    huge[0] = 'Q'.charCodeAt(0);
    huge.writeInt32BE(0x7ffffff0, 1);
    raw.send(huge);
    const m = await raw.next();
    assert.equal(m.code, 'E');
    assert.match(m.raw.toString('latin1'), /08P01/);
    const bogus = await RawPg.connect({ port: gw.port, host: gw.host, user: 'x', database: 'basic' });
    bogus.send(Buffer.from([0x01, 0, 0, 0, 4]));
    const m2 = await bogus.next();
    assert.equal(m2.code, 'E');
    assert.match(m2.raw.toString('latin1'), /08P01/);
    const c = new pg.Client(url());
    await c.connect();
    assert.equal((await c.query('select 1 as x')).rows[0].x, 1);
    await c.end();
  });
});

describe('protocol: TLS and password authentication', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');

  before(async () => {
    const dir = repos.dir;
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
    ]);
    const md5 =
      'md5' +
      createHash('md5')
        .update('md5pass' + 'bob')
        .digest('hex');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        auth: 'md5',
        users: { alice: { password: await hashPassword('s3cret') }, bob: { password: md5 } },
        tls: { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), mode: 'optional' },
      }),
    );
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--config',
      join(dir, 'config.json'),
      '--cache-dir',
      join(dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('SCRAM-SHA-256 over TLS with psql; wrong password is 28P01', async () => {
    const conn = `host=${gw.host} port=${gw.port} dbname=basic user=alice sslmode=require`;
    const { stdout } = await run('psql', [conn, '-X', '-c', '\\conninfo'], {
      env: { ...process.env, PGPASSWORD: 's3cret' },
    });
    assert.match(stdout, /SSL connection \(protocol: TLS/);
    const bad = await run('psql', [conn, '-X', '-c', 'select 1'], {
      env: { ...process.env, PGPASSWORD: 'nope' },
    }).catch((e) => e);
    assert.match(String(bad.stderr), /password authentication failed for user "alice"/);
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'alice', password: 'wrong', database: 'basic' });
    await assert.rejects(c.connect(), (e: { code?: string }) => e.code === '28P01');
    const unknown = new pg.Client({ host: gw.host, port: gw.port, user: 'mallory', password: 'x', database: 'basic' });
    await assert.rejects(unknown.connect(), (e: { code?: string }) => e.code === '28P01');
  });

  test('auth md5: SCRAM users still get SCRAM, md5-hashed users get md5 (as in PostgreSQL)', async () => {
    const a = new pg.Client({ host: gw.host, port: gw.port, user: 'alice', password: 's3cret', database: 'basic' });
    await a.connect();
    assert.equal((await a.query('select 1 as x')).rows[0].x, 1);
    await a.end();
    const b = new pg.Client({ host: gw.host, port: gw.port, user: 'bob', password: 'md5pass', database: 'basic' });
    await b.connect();
    assert.equal((await b.query('select 2 as x')).rows[0].x, 2);
    await b.end();
  });

  test('the verifier file never holds the password', () => {
    const text = readFileSync(join(repos.dir, 'config.json'), 'utf8');
    assert.doesNotMatch(text, /s3cret/);
    assert.match(text, /SCRAM-SHA-256\$4096:/);
  });
});

describe('protocol: TLS required', () => {
  test('a plaintext session is refused when TLS is required', async () => {
    const repos = copyFixtures('repos/basic');
    const dir = repos.dir;
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
    ]);
    const gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'key.pem'),
      '--tls',
      'required',
      '--cache-dir',
      join(dir, 'cache'),
    ]);
    try {
      const plain = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic' });
      await assert.rejects(plain.connect(), /SSL is required/);
      const secure = new pg.Client({
        host: gw.host,
        port: gw.port,
        user: 'x',
        database: 'basic',
        ssl: { rejectUnauthorized: false },
      });
      await secure.connect();
      assert.equal((await secure.query('select 1 as x')).rows[0].x, 1);
      await secure.end();
    } finally {
      await gw.stop();
      repos.cleanup();
    }
  });
});
