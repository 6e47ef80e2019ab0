/**
 * Session planning without sockets: the transaction interpreter (session/transaction.ts), the
 * statement ceilings, SQL-level PREPARE/EXECUTE classification and SET/SHOW/RESET, the cursor and
 * PREPARE/EXECUTE/DEALLOCATE interpreters, the statement clock, the statement cache, the result-cache
 * policy, audit lines and startup parameters — values in, values out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Transaction } from '../src/session/transaction.js';
import { RefFollower } from '../src/session/ref-follower.js';
import { onOff, SetShow } from '../src/session/set-show.js';
import { SessionSettings } from '../src/session/settings.js';
import { classify, type Statement } from '../src/text/classify.js';
import { moveCursor, type CursorPlace } from '../src/session/cursor-moves.js';
import type { FetchDirection } from '../src/text/classify.js';
import {
  closingAtRollbackTo,
  closingAtTransactionEnd,
  fetchTag,
  interpretCursor,
  type CursorEntry,
  type CursorStatement,
} from '../src/session/cursors.js';
import {
  argumentsQuery,
  argumentValues,
  declaredTypeOids,
  evaluateArguments,
  interpretDeallocate,
  interpretDiscardAll,
  interpretExecute,
  interpretPrepare,
} from '../src/session/prepared-sql.js';
import { StatementClock } from '../src/session/statement-clock.js';
import { StatementAudit, fingerprint } from '../src/session/audit.js';
import { StatementCache, isKeepable } from '../src/session/statement-cache.js';
import { ResultCachePolicy } from '../src/session/result-cache-policy.js';
import { parseOptions, startupSettings, startupTarget } from '../src/session/startup.js';
import type { PreparedStmt } from '../src/session/plan.js';
import { analyze } from '../src/analysis/analysis.js';
import { consistentFunctions } from '../src/analysis/determinism.js';
import { ResultCache } from '../src/cache/result-cache.js';
import type { VersionLease } from '../src/versions/lease.js';
import { MAX_NESTING, MAX_STATEMENT_CHARS, splitTopLevel, statementCeilingExceeded } from '../src/text/split.js';

const code = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as { sqlstate?: string }).sqlstate;
  }
};

describe('session units: the transaction interpreter', () => {
  test('BEGIN, savepoints, a failure, ROLLBACK TO, COMMIT as PostgreSQL answers them', () => {
    const tx = new Transaction();
    assert.deepEqual(tx.commit(), {
      tag: 'COMMIT',
      warning: { code: '25P01', message: 'there is no transaction in progress' },
      ended: true,
    });
    assert.deepEqual(tx.begin('read committed'), { tag: 'BEGIN', begins: true });
    assert.equal(tx.status, 'I'); // open once the caller has re-resolved the version
    assert.deepEqual(tx.scopes, []);
    tx.begun();
    assert.equal(tx.status, 'T');
    assert.equal(tx.begin('read committed').warning?.code, '25001');
    assert.deepEqual(tx.savepoint('a'), { tag: 'SAVEPOINT', savepoints: { kind: 'savepoint', depth: 1 } });
    assert.deepEqual(tx.savepoint('b'), { tag: 'SAVEPOINT', savepoints: { kind: 'savepoint', depth: 2 } });
    // a cursor declared now belongs to the block and both savepoints' subtransactions
    assert.deepEqual(tx.scopes, [1, 2, 3]);
    tx.fail();
    assert.equal(tx.status, 'E');
    assert.equal(
      code(() => tx.admits(false)),
      '25P02',
    );
    assert.equal(
      code(() => tx.admits(true)),
      'ok',
    );
    assert.equal(
      code(() => tx.rollbackTo('nope')),
      '3B001',
    );
    // what was declared since `a` was set goes (scope 2); `a` is begun again as a new scope
    assert.deepEqual(tx.rollbackTo('a'), {
      tag: 'ROLLBACK',
      savepoints: { kind: 'rollbackTo', depth: 1 },
      aborted: 2,
    });
    assert.deepEqual(tx.scopes, [1, 4]);
    assert.equal(tx.status, 'T');
    assert.equal(
      code(() => tx.release('b')),
      '3B001',
    ); // b went with the rollback to a
    assert.deepEqual(tx.release('a'), { tag: 'RELEASE', savepoints: { kind: 'release', depth: 0 } });
    assert.deepEqual(tx.scopes, [1]);
    tx.fail();
    // COMMIT of a failed block; the block's cursors go, WITH HOLD ones too
    assert.deepEqual(tx.commit(), { tag: 'ROLLBACK', warning: undefined, ended: true, aborted: 1 });
    assert.equal(tx.status, 'I');
    assert.equal(
      code(() => tx.savepoint('x')),
      '25P01',
    );
    tx.fail(); // outside a block nothing fails
    assert.equal(tx.status, 'I');
  });
});

describe('session units: statement ceilings and SQL-level PREPARE/EXECUTE', () => {
  test('size and nesting ceilings, counted outside strings and comments', () => {
    assert.equal(statementCeilingExceeded('SELECT 1'), null);
    assert.equal(statementCeilingExceeded('x'.repeat(MAX_STATEMENT_CHARS + 1))?.sqlstate, '54000');
    assert.equal(
      statementCeilingExceeded(`SELECT ${'('.repeat(MAX_NESTING + 1)}1${')'.repeat(MAX_NESTING + 1)}`)?.sqlstate,
      '54001',
    );
    assert.equal(statementCeilingExceeded(`SELECT '${'('.repeat(1000)}' -- ${'['.repeat(1000)}`), null);
    const t0 = performance.now();
    statementCeilingExceeded(`SELECT "${'q'.repeat(MAX_STATEMENT_CHARS - 20)}"`);
    assert.ok(performance.now() - t0 < 200);
  });

  test('PREPARE and EXECUTE are classified with their types and arguments', () => {
    assert.deepEqual(classify('PREPARE p (int, numeric(10,2)) AS SELECT $1 + $2'), {
      kind: 'prepareSql',
      name: 'p',
      types: ['int', 'numeric(10,2)'],
      query: 'SELECT $1 + $2',
    });
    assert.deepEqual(classify("EXECUTE p(1, 'a,b', f(1, 2))"), {
      kind: 'executeSql',
      name: 'p',
      args: ['1', "'a,b'", 'f(1, 2)'],
    });
    assert.deepEqual(classify('EXECUTE "P"'), { kind: 'executeSql', name: 'P', args: [] });
    assert.equal((classify('PREPARE p (int) from x; --) AS SELECT 1') as { sqlstate?: string }).sqlstate, '42601');
    assert.deepEqual(classify('SET GLOBAL threads = 1'), {
      kind: 'refused',
      sqlstate: '42501',
      message: 'permission denied: SET GLOBAL is not allowed by fdl-gateway',
    });
    assert.deepEqual(splitTopLevel("1, [2, 3], '4,5' /* , */"), ['1', '[2, 3]', "'4,5' /* , */"]);
  });
});

describe('session units: SET / SHOW / RESET (session/set-show.ts)', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  const reported: [string, string][] = [];
  let settings: SessionSettings;
  let follower: RefFollower;
  let setShow: SetShow;
  const sqlstate = async (f: () => Promise<unknown>) => {
    try {
      await f();
      return 'ok';
    } catch (e) {
      return (e as { sqlstate?: string }).sqlstate;
    }
  };

  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    settings = new SessionSettings(
      conn,
      'alice',
      { statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 0 },
      (n, v) => reported.push([n, v]),
    );
    // Never opened: these cases resolve no version (the version service is exercised in sessions.test.ts).
    follower = new RefFollower(null as never, 'basic', 'alice', '', async () => undefined);
    setShow = new SetShow(settings, follower, 'basic');
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  test("the gateway's own parameters: fdl.ref as asked, fdl.repository, fdl.version before a version is open", async () => {
    assert.equal(setShow.show('fdl.ref'), 'HEAD');
    await setShow.applyStartup('fdl.ref', 'v1');
    assert.equal(setShow.show('fdl.ref'), 'v1');
    await setShow.applyStartup('fdl.ref', 'HEAD');
    assert.equal(setShow.show('fdl.ref'), 'HEAD');
    assert.equal(setShow.show('fdl.repository'), 'basic');
    assert.equal(setShow.show('fdl.version'), '');
  });

  test("refusals carry PostgreSQL's SQLSTATE and change nothing", async () => {
    assert.equal(await sqlstate(() => setShow.set('fdl.ref', 'v2', true)), '25001');
    assert.equal(setShow.show('fdl.ref'), 'HEAD');
    assert.equal(await sqlstate(() => setShow.set('fdl.version', 'x', false)), '55P02');
    assert.equal(await sqlstate(() => setShow.set('fdl.result_cache', 'maybe', false)), '22023');
    assert.equal(setShow.show('fdl.result_cache'), 'on');
    assert.equal(await sqlstate(() => setShow.set('no_such_parameter', '1', false)), '42704');
    assert.equal(await sqlstate(() => setShow.set('server_version', '1', false)), '55P02');
    assert.equal(await sqlstate(() => setShow.applyStartup('fdl.result_cache', 'perhaps')), '22023');
  });

  test('outcomes as values: every PostgreSQL parameter and RESET ALL forget statements, fdl.result_cache does not', async () => {
    assert.deepEqual(await setShow.set('fdl.result_cache', 'off', false), { forgetStatements: false });
    assert.equal(setShow.show('fdl.result_cache'), 'off');
    assert.deepEqual(await setShow.set('fdl.result_cache', null, false), { forgetStatements: false });
    assert.equal(setShow.show('fdl.result_cache'), 'on');
    assert.deepEqual(await setShow.set('application_name', 'units', false), { forgetStatements: true });
    assert.ok(
      reported.some(([n, v]) => n === 'application_name' && v === 'units'),
      'ParameterStatus asked for',
    );
    assert.equal((await setShow.set('search_path', 'sales', false)).forgetStatements, true);
    assert.ok(setShow.showAll().some(([k, v, d]) => k === 'application_name' && v === 'units' && d === ''));
    assert.deepEqual(await setShow.resetAll(), { forgetStatements: true });
    assert.equal(setShow.show('application_name'), '');
    assert.equal(onOff('x', 'YES'), 'on');
    assert.equal(onOff('x', '0'), 'off');
  });
});

/** A statement as classify reads it, narrowed to the kind the test names. */
function parsed<K extends Statement['kind']>(sql: string, kind: K): Extract<Statement, { kind: K }> {
  const stmt = classify(sql);
  assert.equal(stmt.kind, kind, sql);
  return stmt as Extract<Statement, { kind: K }>;
}

describe('session units: the cursor interpreter (session/cursors.ts)', () => {
  const cursor = (sql: string) => parsed(sql, classify(sql).kind as CursorStatement['kind']) as CursorStatement;
  const portals = () =>
    new Map<string, CursorEntry>([
      ['', {}],
      ['c', { cursor: { hold: false } }],
      ['h', { cursor: { hold: true } }],
    ]);

  test('DECLARE: only in a block unless WITH HOLD, a free name, and a query', () => {
    assert.equal(
      code(() => interpretCursor(cursor('DECLARE d CURSOR FOR SELECT 1'), portals(), false)),
      '25P01',
    );
    assert.deepEqual(interpretCursor(cursor('DECLARE d BINARY CURSOR WITH HOLD FOR SELECT 1'), portals(), false), {
      kind: 'declare',
      name: 'd',
      query: 'SELECT 1',
      stmt: { kind: 'query', sql: 'SELECT 1' },
      hold: true,
      scroll: true, // neither SCROLL nor NO SCROLL: goes back where PostgreSQL's plan can
      binary: true,
      tag: 'DECLARE CURSOR',
    });
    assert.equal(interpretCursor(cursor('DECLARE d CURSOR FOR SELECT 1'), portals(), true).kind, 'declare');
    assert.equal(
      code(() => interpretCursor(cursor('DECLARE c CURSOR FOR SELECT 1'), portals(), true)),
      '42P03',
    );
    assert.equal(
      code(() => interpretCursor(cursor('DECLARE d CURSOR FOR SHOW TimeZone'), portals(), true)),
      '42601',
    );
    assert.equal(
      code(() => interpretCursor(cursor('DECLARE d CURSOR FOR DELETE FROM t'), portals(), true)),
      '25006',
    );
    assert.equal(
      code(() => interpretCursor(cursor("DECLARE d CURSOR FOR ATTACH 'x.db'"), portals(), true)),
      '42501',
    );
  });

  test('FETCH and MOVE name a cursor, not a protocol portal; counts and tags as PostgreSQL', () => {
    const open = portals();
    const fetch = interpretCursor(cursor('FETCH 5 FROM c'), open, true);
    assert.deepEqual(fetch, {
      kind: 'fetch',
      name: 'c',
      cursor: open.get('c'),
      direction: { how: 'forward', count: 5 },
      move: false,
    });
    assert.deepEqual(interpretCursor(cursor('MOVE ALL IN h'), open, false), {
      kind: 'fetch',
      name: 'h',
      cursor: open.get('h'),
      direction: { how: 'forward', count: Infinity },
      move: true,
    });
    assert.deepEqual((interpretCursor(cursor('FETCH c'), open, true) as { direction: unknown }).direction, {
      how: 'forward',
      count: 1,
    });
    assert.equal(
      code(() => interpretCursor(cursor('FETCH 1 FROM nope'), open, true)),
      '34000',
    );
    assert.equal(
      code(() =>
        interpretCursor({ kind: 'fetch', name: '', direction: { how: 'forward', count: 1 }, move: false }, open, true),
      ),
      '34000',
    ); // the unnamed portal is no cursor
    assert.equal(fetchTag(false, 5), 'FETCH 5');
    assert.equal(fetchTag(true, 0), 'MOVE 0');
  });

  test('CLOSE one or ALL (never the portal running it); which portals a transaction end closes', () => {
    const open = portals();
    assert.deepEqual(interpretCursor(cursor('CLOSE c'), open, true), {
      kind: 'close',
      names: ['c'],
      tag: 'CLOSE CURSOR',
    });
    assert.equal(
      code(() => interpretCursor(cursor('CLOSE nope'), open, true)),
      '34000',
    );
    assert.deepEqual(interpretCursor(cursor('CLOSE ALL'), open, true, open.get('')), {
      kind: 'close',
      names: ['c', 'h'],
      tag: 'CLOSE CURSOR ALL',
    });
    assert.deepEqual(closingAtTransactionEnd(open), ['', 'c']); // WITH HOLD survives COMMIT
    // declared WITH HOLD in block 1 (and savepoint 2), and in an earlier, committed block 0
    const scoped = new Map<string, CursorEntry>([
      ['h1', { cursor: { hold: true, scopes: [1, 2] } }],
      ['h0', { cursor: { hold: true, scopes: [0] } }],
      ['c1', { cursor: { hold: false, scopes: [1] } }],
    ]);
    assert.deepEqual(closingAtTransactionEnd(scoped, 1), ['h1', 'c1'], 'ROLLBACK drops what the block declared');
    assert.deepEqual(closingAtRollbackTo(scoped, 2), ['h1'], 'ROLLBACK TO drops what was declared since');
    assert.deepEqual(open.size, 3, 'the interpreter changes nothing itself');
  });
});

describe('session units: where FETCH and MOVE leave a cursor (session/cursor-moves.ts)', () => {
  // Rows 1..5; `read` records which rows were asked for (a forward-only cursor never asks twice).
  const run = async (
    pos: number,
    how: FetchDirection['how'],
    count: number,
    scroll = true,
    end: number | null = null,
  ) => {
    const place: CursorPlace = { pos, end };
    const rows = await moveCursor(place, { how, count }, scroll, {
      rowAt: (i) => (i >= 1 && i <= 5 ? i : null),
      count: () => 5,
    });
    return { rows, pos: place.pos };
  };
  test('forward, backward, absolute and relative as PostgreSQL positions a portal', async () => {
    assert.deepEqual(await run(0, 'forward', 2), { rows: [1, 2], pos: 2 });
    assert.deepEqual(await run(4, 'forward', 5), { rows: [5], pos: 6 }); // fewer rows: after the last
    assert.deepEqual(await run(4, 'forward', 1), { rows: [5], pos: 5 }); // exactly: on the last
    assert.deepEqual(await run(3, 'backward', 5), { rows: [2, 1], pos: 0 });
    assert.deepEqual(await run(6, 'backward', 1, true, 5), { rows: [5], pos: 5 });
    assert.deepEqual(await run(2, 'absolute', -1), { rows: [5], pos: 5 });
    assert.deepEqual(await run(2, 'absolute', -9), { rows: [], pos: 0 });
    assert.deepEqual(await run(2, 'absolute', 9), { rows: [], pos: 6 });
    assert.deepEqual(await run(2, 'relative', 2), { rows: [4], pos: 4 });
    assert.deepEqual(await run(2, 'relative', -5), { rows: [], pos: 0 });
    assert.deepEqual(await run(3, 'relative', 0), { rows: [3], pos: 3 });
    assert.deepEqual(await run(0, 'relative', 0), { rows: [], pos: 0 });
  });
  test('a cursor without SCROLL goes forward only: 55000 before going back', async () => {
    assert.deepEqual(await run(1, 'relative', 3, false), { rows: [4], pos: 4 });
    assert.deepEqual(await run(1, 'absolute', 3, false), { rows: [3], pos: 3 });
    for (const [pos, how, count] of [
      [3, 'backward', 1],
      [3, 'absolute', 2],
      [3, 'relative', -1],
      [3, 'forward', 0],
      [3, 'absolute', -1],
    ] as const) {
      await assert.rejects(
        run(pos, how, count, false),
        (e: { sqlstate?: string }) => e.sqlstate === '55000',
        `${how} ${count}`,
      );
    }
  });
});

describe('session units: PREPARE / EXECUTE / DEALLOCATE / DISCARD ALL (session/prepared-sql.ts)', () => {
  const named = () =>
    new Map<string, { paramOids: number[] }>([
      ['p', { paramOids: [23, 25] }],
      ['q', { paramOids: [] }],
    ]);

  test('PREPARE names a free statement and a query; EXECUTE an existing one with as many arguments', () => {
    assert.deepEqual(interpretPrepare(parsed('PREPARE n (int) AS SELECT $1', 'prepareSql'), named()), {
      name: 'n',
      query: 'SELECT $1',
      stmt: { kind: 'query', sql: 'SELECT $1' },
      types: ['int'],
    });
    assert.equal(
      code(() => interpretPrepare(parsed('PREPARE p AS SELECT 1', 'prepareSql'), named())),
      '42P05',
    );
    assert.equal(
      code(() => interpretPrepare(parsed('PREPARE n AS SHOW x', 'prepareSql'), named())),
      '42601',
    );
    assert.equal(
      code(() => interpretPrepare(parsed('PREPARE n AS DROP TABLE t', 'prepareSql'), named())),
      '25006',
    );
    const all = named();
    assert.equal(interpretExecute(parsed("EXECUTE p(1, 'a')", 'executeSql'), all), all.get('p'));
    assert.equal(
      code(() => interpretExecute(parsed('EXECUTE p(1)', 'executeSql'), all)),
      '42601',
    );
    assert.equal(
      code(() => interpretExecute(parsed('EXECUTE nope', 'executeSql'), all)),
      '26000',
    );
  });

  test('DEALLOCATE one or ALL, DISCARD ALL only outside a block; the running statement stays', () => {
    const all = named();
    assert.deepEqual(interpretDeallocate(parsed('DEALLOCATE p', 'deallocate'), all), {
      names: ['p'],
      tag: 'DEALLOCATE',
    });
    assert.equal(
      code(() => interpretDeallocate(parsed('DEALLOCATE nope', 'deallocate'), all)),
      '26000',
    );
    assert.deepEqual(interpretDeallocate(parsed('DEALLOCATE ALL', 'deallocate'), all, all.get('q')), {
      names: ['p'],
      tag: 'DEALLOCATE ALL',
    });
    assert.deepEqual(interpretDiscardAll(all, false), ['p', 'q']);
    assert.equal(
      code(() => interpretDiscardAll(all, true)),
      '25001',
    );
    assert.equal(all.size, 2, 'the interpreter changes nothing itself');
  });

  test("EXECUTE's arguments as one query, PREPARE's type names as DuckDB reads them", async () => {
    assert.equal(argumentsQuery(['1', "'a'"]), "SELECT CAST((1) AS TEXT), CAST(('a') AS TEXT)");
    assert.deepEqual(argumentValues(['1', 'NULL'], ['1', null]), [Buffer.from('1'), null]);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      assert.deepEqual(await declaredTypeOids(conn, ['int', 'text', 'numeric(10,2)', 'int[]']), [23, 25, 1700, 1007]);
      assert.deepEqual(await declaredTypeOids(conn, []), []);
      assert.equal(await code2(() => declaredTypeOids(conn, ['no_such_type'])), '42704');
      const prepare = async (text: string): Promise<PreparedStmt> => ({
        refs: 1,
        sql: text,
        stmt: { kind: 'query', sql: text },
        declaredTypes: [],
        duck: await conn.prepare(text),
        paramOids: [],
        fields: [],
        columnTypes: [],
        columnOids: [],
        leases: [],
        untyped: new Set(),
        cacheableSql: null,
      });
      assert.deepEqual(await evaluateArguments(['1 + 1', 'NULL', "'x'"], prepare), [
        Buffer.from('2'),
        null,
        Buffer.from('x'),
      ]);
      assert.deepEqual(await evaluateArguments([], prepare), []);
    } finally {
      conn.disconnectSync();
      instance.closeSync();
    }
  });
});

async function code2(f: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await f();
    return 'ok';
  } catch (e) {
    return (e as { sqlstate?: string }).sqlstate;
  }
}

describe('session units: the statement clock (session/statement-clock.ts)', () => {
  const duckdbInterrupt = new Error('INTERRUPT Error: Interrupted!');

  test('a cancel with nothing running does nothing; while running it interrupts and reports 57014', () => {
    let interrupts = 0;
    const clock = new StatementClock(
      () => interrupts++,
      () => 0,
    );
    clock.cancel();
    assert.equal(interrupts, 0);
    assert.equal(clock.stopRequested, false);
    clock.start();
    clock.cancel();
    assert.equal(interrupts, 1);
    assert.equal(clock.stopRequested, true);
    const err = clock.failure(duckdbInterrupt); // a failed statement's error is taken before it stops
    clock.stop();
    assert.equal(err.sqlstate, '57014');
    assert.equal(err.message, 'canceling statement due to user request');
    assert.equal(clock.stopRequested, false, 'the next statement starts clean');
    assert.equal(
      clock.failure(duckdbInterrupt).message,
      'Interrupted!',
      'an interrupt nobody asked for is reported as DuckDB said',
    );
    assert.equal(clock.failure(new Error('Binder Error: Referenced column x not found')).sqlstate, '42703');
  });

  test('statement_timeout interrupts after its time; the temp ceiling reports 53100; a gone client 08006', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] }); // the clock's timer runs on a mocked clock
    let interrupts = 0;
    const clock = new StatementClock(
      () => interrupts++,
      () => 20,
    );
    clock.start();
    t.mock.timers.tick(19);
    assert.equal(interrupts, 0, 'not before its time');
    t.mock.timers.tick(1);
    assert.equal(interrupts, 1);
    assert.equal(clock.failure(duckdbInterrupt).message, 'canceling statement due to statement timeout');
    clock.stop();
    clock.start();
    clock.stop(); // stopped in time: the timer is gone
    t.mock.timers.tick(40);
    assert.equal(interrupts, 1);
    clock.start();
    clock.stopForTempCeiling('300MB');
    assert.equal(clock.failure(duckdbInterrupt).sqlstate, '53100');
    clock.stop();
    clock.stopForTempCeiling('300MB'); // nothing running: nothing to stop
    assert.equal(clock.stopRequested, false);
    clock.start();
    clock.abort();
    assert.equal(clock.failure(duckdbInterrupt).sqlstate, '08006');
    clock.stop();
    assert.equal(
      code(() => clock.start()),
      '08006',
      'nothing starts once the client is gone',
    );
  });

  test('one timer per statement: a second start is refused (the armed timer is never overwritten), stop disarms timer and cancel state', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let interrupts = 0;
    const clock = new StatementClock(
      () => interrupts++,
      () => 30,
    );
    clock.start();
    assert.equal(
      code(() => clock.start()),
      'XX000',
      'an armed clock refuses to start again',
    );
    clock.stop();
    t.mock.timers.tick(90);
    assert.equal(interrupts, 0, 'no timer survives stop (a second start once left one armed)');
    clock.start();
    clock.cancel();
    assert.equal(interrupts, 1);
    clock.stop();
    assert.equal(clock.stopRequested, false, 'a cancel ends with its statement');
    clock.cancel(); // idle: ignored, as in PostgreSQL
    assert.equal(interrupts, 1);
    clock.start();
    assert.equal(clock.stopRequested, false, 'the next statement starts clean');
    assert.equal(clock.failure(duckdbInterrupt).message, 'Interrupted!');
    clock.stop();
  });
});

describe('session units: statement cache, result-cache policy, audit, startup (session/)', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let settings: SessionSettings;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await conn.run('CREATE TABLE t AS SELECT range AS id FROM range(3)');
    settings = new SessionSettings(
      conn,
      'alice',
      { statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0 },
      () => undefined,
    );
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  /** A planned statement as the planner leaves it (a real DuckDB prepared statement). */
  async function planned(sql: string, extra: Partial<PreparedStmt> = {}): Promise<PreparedStmt> {
    return {
      refs: 1,
      sql,
      stmt: { kind: 'query', sql },
      declaredTypes: [],
      duck: await conn.prepare(sql),
      paramOids: [],
      fields: [],
      columnTypes: [],
      columnOids: [],
      leases: [],
      untyped: new Set(),
      cacheableSql: sql,
      analysis: await analyze(conn, sql),
      preparedFor: 'v1',
      ...extra,
    };
  }

  test('the statement cache keeps statements of the session version only, and releases what it drops', async () => {
    const cache = new StatementCache();
    const kept = await planned('SELECT id FROM t');
    cache.offer(kept);
    assert.equal(kept.refs, 2, 'the cache holds its own reference');
    assert.equal(cache.get('SELECT id FROM t', []), kept);
    assert.equal(cache.get('SELECT id FROM t', [23]), undefined, 'declared types are part of the key');
    // planning expanded fdl.session to its rows (planner.ts): the plan says so
    const system = await planned('SELECT 1 AS fdl_x', { sql: 'SELECT * FROM fdl.session', systemViews: true });
    assert.equal(isKeepable(system), false);
    assert.equal(isKeepable({ ...kept, leases: [{} as VersionLease] }), false);
    assert.equal(isKeepable({ ...kept, duck: null }), false);
    const other = await planned('SELECT id FROM t');
    cache.forget(other); // not the one kept: nothing happens
    assert.equal(cache.get('SELECT id FROM t', []), kept);
    other.duck?.destroySync();
    cache.forget(kept); // a failed run's statement is not reused
    assert.equal(cache.get('SELECT id FROM t', []), undefined);
    assert.equal(kept.refs, 1, 'the cache released its reference');
    cache.offer(kept);
    cache.clear();
    assert.equal(kept.refs, 1);
    assert.ok(kept.duck, 'still owned by the caller');
    kept.duck.destroySync();
    system.duck?.destroySync();
  });

  test('the result-cache policy: only repeatable statements of the version read now are answered or recorded', async () => {
    const lease = {
      versionId: 'v1',
      dbName: 'memory',
      hasTable: (_s: string, t: string) => t === 't',
      definesFunction: () => false,
    } as unknown as VersionLease;
    const cache = new ResultCache({ maxBytes: 1 << 20, maxEntryBytes: 1 << 16 });
    const policy = new ResultCachePolicy({ cache, consistentFunctions: await consistentFunctions(conn) }, 'x');
    const run = { resultFormats: [0], paramFormats: [], params: [] };
    const stmt = await planned('SELECT count(*) FROM t');
    assert.equal(policy.applies(stmt, settings, 0), true);
    assert.equal(policy.applies(stmt, settings, 5), false, 'a portal already partly sent');
    assert.equal(new ResultCachePolicy(null, 'x').applies(stmt, settings, 0), false);
    const first = policy.decide(stmt, lease, settings, run);
    assert.equal(first.kind, 'record');
    assert.ok(first.kind === 'record');
    first.recording.recorder.add(Buffer.from('row'));
    policy.keep(first.recording, 'v2', 1); // the session moved meanwhile: not kept
    assert.equal(policy.decide(stmt, lease, settings, run).kind, 'record');
    policy.keep(first.recording, 'v1', 1);
    const hit = policy.decide(stmt, lease, settings, run);
    assert.ok(hit.kind === 'hit');
    assert.equal(hit.result.rowCount, 1);
    assert.equal(
      policy.decide(stmt, lease, settings, { ...run, resultFormats: [1] }).kind,
      'record',
      'formats are part of the key',
    );
    assert.equal(
      policy.decide({ ...stmt, preparedFor: 'v0' }, lease, settings, run).kind,
      'bypass',
      'prepared before the branch moved',
    );
    const volatile = await planned('SELECT random() FROM t');
    assert.equal(policy.decide(volatile, lease, settings, run).kind, 'bypass');
    await settings.set('fdl.result_cache', 'off');
    assert.equal(policy.applies(stmt, settings, 0), false);
    await settings.set('fdl.result_cache', null);
    stmt.duck?.destroySync();
    volatile.duck?.destroySync();
  });

  test('audit lines: who, which version, a fingerprint of the text (never the text), outcome', () => {
    const lines: Record<string, unknown>[] = [];
    const audit = new StatementAudit(
      (l) => lines.push(l),
      () => ({ user: 'alice', database: 'basic', ref: 'HEAD', version: 'v1' }),
    );
    const stmt = { sql: "SELECT 'secret'", stmt: { kind: 'query' } };
    audit.succeeded(stmt, 1.5, 3, true);
    audit.failed(Object.assign(new Error('permission denied\nmore'), { sqlstate: '42501' }) as never);
    assert.deepEqual(lines[0], {
      event: 'statement',
      user: 'alice',
      database: 'basic',
      ref: 'HEAD',
      version: 'v1',
      kind: 'query',
      sql_sha256: fingerprint("SELECT 'secret'"),
      cached: true,
      ms: 1.5,
      rows: 3,
      sqlstate: '00000',
    });
    assert.deepEqual(lines[1], {
      event: 'statement',
      user: 'alice',
      database: 'basic',
      ref: 'HEAD',
      version: 'v1',
      sqlstate: '42501',
    });
    assert.ok(!JSON.stringify(lines).includes('secret'));
    assert.match(fingerprint('x'), /^[0-9a-f]{16}$/);
    // A failure names its statement by fingerprint and its SQLSTATE; its text (which may quote values, quoted or not) stays out.
    audit.failed(Object.assign(new Error(`missing ): pw-unquoted`), { sqlstate: '22P02' }) as never, stmt);
    assert.deepEqual(lines[2], {
      event: 'statement',
      user: 'alice',
      database: 'basic',
      ref: 'HEAD',
      version: 'v1',
      kind: 'query',
      sql_sha256: fingerprint("SELECT 'secret'"),
      sqlstate: '22P02',
    });
  });

  test('startup: the database names a repository and ref; parameters and options become settings', () => {
    assert.deepEqual(startupTarget('basic@v1', ['basic', 'other'], null), {
      repo: 'basic',
      ref: 'v1',
      engine: 'basic',
    });
    assert.deepEqual(startupTarget('@tags/v1', ['basic'], 'basic'), { repo: 'basic', ref: 'tags/v1', engine: 'basic' });
    // postgres/template1 list the repositories, on the first one's instance; only for a user who sees one.
    assert.deepEqual(startupTarget('postgres', ['views', 'basic'], null), {
      repo: 'postgres',
      ref: '',
      engine: 'views',
    });
    assert.deepEqual(startupTarget('postgres', ['postgres'], null), { repo: 'postgres', ref: '', engine: 'postgres' });
    assert.equal(
      code(() => startupTarget('template1', [], null)),
      '3D000',
    );
    assert.equal(
      code(() => startupTarget('@v1', ['a', 'b'], null)),
      '3D000',
    );
    assert.equal(
      code(() => startupTarget('nope', ['basic'], 'basic')),
      '3D000',
    );
    assert.deepEqual(parseOptions('-c search_path=a\\ b --statement-timeout=5s -cTimeZone=UTC junk'), [
      ['search_path', 'a b'],
      ['statement_timeout', '5s'],
      ['timezone', 'UTC'],
    ]);
    const params = new Map([
      ['user', 'alice'],
      ['database', 'basic'],
      ['Application_Name', "'psql'"],
      ['options', '-c datestyle=ISO'],
      ['replication', 'false'],
    ]);
    assert.deepEqual(startupSettings(params), [
      ['application_name', 'psql'],
      ['datestyle', 'ISO'],
    ]);
  });
});
