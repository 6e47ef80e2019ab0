/**
 * The statement clock end to end (session/statement-clock.ts, owned by wire/session.ts): statement_timeout
 * and the cancel state live exactly as long as a statement, as in PostgreSQL. A cursor or a described
 * portal left open between statements is never timed nor cancelled while the session is idle, and a
 * stream stopped mid-way is an error (57014), never a short result. Real gateway, raw sockets.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { serialize } from 'pg-protocol';
import { cancelFrom, serveBasic, type RunningGateway } from './support/gateway.js';
import { buildBind, RawPg, type QueryResult } from './support/raw-pg.js';

/** Its first rows come at once (DuckDB buffers them in DECLARE); past them DuckDB finds no row for minutes. */
const STALLING_QUERY = 'SELECT i FROM range(100000000000) t(i) WHERE i < 200000 OR i % 100000000007 = 0';

/** The first text column of each DataRow. */
function texts(r: QueryResult): string[] {
  return r.dataRows.map((raw) => raw.subarray(11).toString());
}

function ok(r: QueryResult, tag: string): void {
  assert.equal(r.error, undefined, `no error for ${tag}: ${JSON.stringify(r.error)}`);
  assert.equal(r.commandTag, tag);
}

describe('statement clock: armed while a statement runs, never between statements', () => {
  let gw: RunningGateway;
  const connect = () => RawPg.connect({ port: gw.port, host: gw.host, user: 'tester', database: 'basic@v1' });

  before(async () => {
    gw = await serveBasic();
  });
  after(async () => {
    await gw?.stop();
  });

  test('a cursor left open longer than statement_timeout is not timed while idle: FETCH returns its rows, the next statement runs', async () => {
    const c = await connect();
    try {
      // The version opened and the text planned first, untimed: only the idle wait below outlasts the timeout.
      ok(await c.simple('SELECT i FROM range(10) t(i)'), 'SELECT 10');
      ok(await c.simple('SET statement_timeout = 1000'), 'SET'); // the statements below take ms: far from it even on a loaded machine
      ok(await c.simple('BEGIN'), 'BEGIN');
      ok(await c.simple('DECLARE c CURSOR FOR SELECT i FROM range(10) t(i)'), 'DECLARE CURSOR');
      await sleep(2500); // idle, well past the timeout
      const two = await c.simple('FETCH 2 FROM c');
      ok(two, 'FETCH 2');
      assert.deepEqual(texts(two), ['0', '1']);
      const rest = await c.simple('FETCH ALL FROM c');
      ok(rest, 'FETCH 8');
      assert.deepEqual(texts(rest), ['2', '3', '4', '5', '6', '7', '8', '9']);
      ok(await c.simple('COMMIT'), 'COMMIT');
      const one = await c.simple('SELECT 1');
      ok(one, 'SELECT 1');
      assert.deepEqual(texts(one), ['1']);
    } finally {
      await c.close();
    }
  });

  test('a CancelRequest while the session is idle is ignored (as PostgreSQL): the open cursor and the next statement are untouched', async () => {
    const c = await connect();
    try {
      ok(await c.simple('BEGIN'), 'BEGIN');
      ok(await c.simple('DECLARE c CURSOR FOR SELECT i FROM range(10) t(i)'), 'DECLARE CURSOR');
      await cancelFrom(gw, c);
      const two = await c.simple('FETCH 2 FROM c');
      ok(two, 'FETCH 2');
      assert.deepEqual(texts(two), ['0', '1']);
      const rest = await c.simple('FETCH ALL FROM c');
      ok(rest, 'FETCH 8');
      assert.equal(rest.dataRows.length, 8);
      ok(await c.simple('COMMIT'), 'COMMIT');
      await cancelFrom(gw, c); // idle outside a transaction too
      const one = await c.simple('SELECT 1');
      ok(one, 'SELECT 1');
      assert.deepEqual(texts(one), ['1']);
    } finally {
      await c.close();
    }
  });

  test('Describe of a portal run at Describe (columns typed by its values), then Sync without Execute: the clock stops at Sync', async () => {
    const c = await connect();
    try {
      ok(await c.simple('SET statement_timeout = 1000'), 'SET'); // the statements below take ms: far from it even on a loaded machine
      // numeric takes its type from the bound value: the portal runs at Describe to describe its column
      c.send(
        Buffer.concat([
          serialize.parse({ text: 'select $1::numeric as n', types: [1700] }),
          buildBind({ params: ['1.25'] }),
          serialize.describe({ type: 'P' }),
          serialize.sync(),
        ]),
      );
      const described = await c.untilReady();
      assert.equal(described.error, undefined);
      assert.equal(described.rowDescription?.fields[0]?.name, 'n');
      await sleep(2500); // idle, well past the timeout
      const one = await c.simple('SELECT 1');
      ok(one, 'SELECT 1');
      assert.deepEqual(texts(one), ['1']);
      const two = await c.query('select 2');
      ok(two, 'SELECT 1');
      assert.deepEqual(texts(two), ['2']);
    } finally {
      await c.close();
    }
  });

  test('a SET while a cursor streams (SET runs on the same DuckDB connection): a cursor over the read-ahead cap ends and the next FETCH fails with 55000, never a short result; a smaller one reads on', async () => {
    const c = await connect();
    try {
      const outside = texts(await c.simple('SHOW application_name'));
      ok(await c.simple('BEGIN'), 'BEGIN');
      // the rest of a declared cursor is read ahead before another statement runs, up to SCROLL_KEPT_ROWS (100,000)
      ok(await c.simple('DECLARE small CURSOR FOR SELECT i FROM range(1000) t(i)'), 'DECLARE CURSOR');
      ok(await c.simple('FETCH 2 FROM small'), 'FETCH 2');
      ok(await c.simple("SET application_name = 'between small fetches'"), 'SET');
      const all = await c.simple('FETCH ALL FROM small');
      ok(all, 'FETCH 998');
      assert.deepEqual(texts(all).slice(0, 2), ['2', '3']);
      assert.equal(all.dataRows.length, 998);
      ok(await c.simple('CLOSE small'), 'CLOSE CURSOR');
      ok(await c.simple('DECLARE c CURSOR FOR SELECT i FROM range(250000) t(i)'), 'DECLARE CURSOR');
      ok(await c.simple('FETCH 2 FROM c'), 'FETCH 2');
      ok(await c.simple("SET application_name = 'between fetches'"), 'SET');
      const rest = await c.simple('FETCH ALL FROM c');
      assert.equal(
        rest.error?.code,
        '55000',
        `an ended cursor is an error: ${rest.commandTag} after ${rest.dataRows.length} rows`,
      );
      assert.equal(rest.dataRows.length, 0);
      ok(await c.simple('ROLLBACK'), 'ROLLBACK');
      // the SETs ended with the block (ROLLBACK undoes them, as in PostgreSQL), and the session goes on
      const name = await c.simple('SHOW application_name');
      assert.deepEqual(texts(name), outside);
      ok(await c.simple('SELECT 1'), 'SELECT 1');
    } finally {
      await c.close();
    }
  });

  test('FETCH on a cursor whose query stalls past statement_timeout fails with 57014, never a short result; resuming it later fails too', async () => {
    const c = await connect();
    try {
      // DECLARE takes tens of ms (its first rows are buffered at once): far below the timeout even on a loaded machine
      ok(await c.simple('SET statement_timeout = 1500'), 'SET');
      ok(await c.simple('BEGIN'), 'BEGIN');
      ok(await c.simple(`DECLARE c CURSOR FOR ${STALLING_QUERY}`), 'DECLARE CURSOR');
      ok(await c.simple('SAVEPOINT s'), 'SAVEPOINT');
      const t0 = Date.now();
      const r = await c.simple('FETCH ALL FROM c');
      assert.equal(
        r.error?.code,
        '57014',
        `FETCH stopped by the timeout, not ended: ${r.commandTag} ${JSON.stringify(r.error)}`,
      );
      assert.match(r.error!.message, /statement timeout/);
      assert.equal(r.commandTag, undefined);
      assert.ok(r.dataRows.length < 200000, 'the stream stalled before its end');
      assert.ok(Date.now() - t0 < 15_000);
      ok(await c.simple('ROLLBACK TO s'), 'ROLLBACK');
      // the cursor's DuckDB stream was stopped: it can never look finished
      const again = await c.simple('FETCH ALL FROM c');
      assert.equal(again.error?.code, '57014', `a stopped cursor is an error, not 0 rows: ${again.commandTag}`);
      assert.equal(again.dataRows.length, 0);
      ok(await c.simple('ROLLBACK'), 'ROLLBACK');
      const one = await c.simple('SELECT 1');
      ok(one, 'SELECT 1');
      assert.deepEqual(texts(one), ['1']);
    } finally {
      await c.close();
    }
  });
});
