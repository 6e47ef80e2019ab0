/**
 * Session planning without sockets: the transaction interpreter (session/transaction.ts), the
 * statement ceilings, SQL-level PREPARE/EXECUTE classification and SET/SHOW/RESET — values in, values out.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Transaction } from '../src/session/transaction.js';
import { RefFollower } from '../src/session/ref-follower.js';
import { onOff, SetShow } from '../src/session/set-show.js';
import { SessionSettings } from '../src/session/settings.js';
import { classify } from '../src/sql/classify.js';
import { MAX_NESTING, MAX_STATEMENT_CHARS, splitTopLevel, statementCeilingExceeded } from '../src/sql/split.js';

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
    assert.deepEqual(tx.commit(), { tag: 'COMMIT', warning: { code: '25P01', message: 'there is no transaction in progress' }, ended: true });
    assert.deepEqual(tx.begin(), { tag: 'BEGIN', begins: true });
    assert.equal(tx.status, 'I'); // open once the caller has re-resolved the version
    tx.begun();
    assert.equal(tx.status, 'T');
    assert.equal(tx.begin().warning?.code, '25001');
    assert.deepEqual(tx.savepoint('a'), { tag: 'SAVEPOINT' });
    assert.deepEqual(tx.savepoint('b'), { tag: 'SAVEPOINT' });
    tx.fail();
    assert.equal(tx.status, 'E');
    assert.equal(code(() => tx.admits(false)), '25P02');
    assert.equal(code(() => tx.admits(true)), 'ok');
    assert.equal(code(() => tx.rollbackTo('nope')), '3B001');
    assert.deepEqual(tx.rollbackTo('a'), { tag: 'ROLLBACK' });
    assert.equal(tx.status, 'T');
    assert.equal(code(() => tx.release('b')), '3B001'); // b went with the rollback to a
    assert.deepEqual(tx.release('a'), { tag: 'RELEASE' });
    tx.fail();
    assert.deepEqual(tx.commit(), { tag: 'ROLLBACK', warning: undefined, ended: true }); // COMMIT of a failed block
    assert.equal(tx.status, 'I');
    assert.equal(code(() => tx.savepoint('x')), '25P01');
    tx.fail(); // outside a block nothing fails
    assert.equal(tx.status, 'I');
  });
});

describe('session units: statement ceilings and SQL-level PREPARE/EXECUTE', () => {
  test('size and nesting ceilings, counted outside strings and comments', () => {
    assert.equal(statementCeilingExceeded('SELECT 1'), null);
    assert.equal(statementCeilingExceeded('x'.repeat(MAX_STATEMENT_CHARS + 1))?.sqlstate, '54000');
    assert.equal(statementCeilingExceeded(`SELECT ${'('.repeat(MAX_NESTING + 1)}1${')'.repeat(MAX_NESTING + 1)}`)?.sqlstate, '54001');
    assert.equal(statementCeilingExceeded(`SELECT '${'('.repeat(1000)}' -- ${'['.repeat(1000)}`), null);
    const t0 = performance.now();
    statementCeilingExceeded(`SELECT "${'q'.repeat(MAX_STATEMENT_CHARS - 20)}"`);
    assert.ok(performance.now() - t0 < 200);
  });

  test('PREPARE and EXECUTE are classified with their types and arguments', () => {
    assert.deepEqual(classify('PREPARE p (int, numeric(10,2)) AS SELECT $1 + $2'), { kind: 'prepareSql', name: 'p', types: ['int', 'numeric(10,2)'], query: 'SELECT $1 + $2' });
    assert.deepEqual(classify("EXECUTE p(1, 'a,b', f(1, 2))"), { kind: 'executeSql', name: 'p', args: ['1', "'a,b'", 'f(1, 2)'] });
    assert.deepEqual(classify('EXECUTE "P"'), { kind: 'executeSql', name: 'P', args: [] });
    assert.equal((classify("PREPARE p (int) from x; --) AS SELECT 1") as { sqlstate?: string }).sqlstate, '42601');
    assert.deepEqual(classify('SET GLOBAL threads = 1'), { kind: 'refused', sqlstate: '42501', message: 'permission denied: SET GLOBAL is not allowed by fdl-gateway' });
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
    settings = new SessionSettings(conn, 'alice', { statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 0 }, (n, v) => reported.push([n, v]));
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

  test('refusals carry PostgreSQL\'s SQLSTATE and change nothing', async () => {
    assert.equal(await sqlstate(() => setShow.set('fdl.ref', 'v2', true)), '25001');
    assert.equal(setShow.show('fdl.ref'), 'HEAD');
    assert.equal(await sqlstate(() => setShow.set('fdl.version', 'x', false)), '55P02');
    assert.equal(await sqlstate(() => setShow.set('fdl.result_cache', 'maybe', false)), '22023');
    assert.equal(setShow.show('fdl.result_cache'), 'on');
    assert.equal(await sqlstate(() => setShow.set('no_such_parameter', '1', false)), '42704');
    assert.equal(await sqlstate(() => setShow.set('server_version', '1', false)), '55P02');
    assert.equal(await sqlstate(() => setShow.applyStartup('fdl.result_cache', 'perhaps')), '22023');
  });

  test('outcomes as values: search_path and RESET ALL forget statements, other parameters do not', async () => {
    assert.deepEqual(await setShow.set('fdl.result_cache', 'off', false), { forgetStatements: false });
    assert.equal(setShow.show('fdl.result_cache'), 'off');
    assert.deepEqual(await setShow.set('fdl.result_cache', null, false), { forgetStatements: false });
    assert.equal(setShow.show('fdl.result_cache'), 'on');
    assert.deepEqual(await setShow.set('application_name', 'units', false), { forgetStatements: false });
    assert.ok(reported.some(([n, v]) => n === 'application_name' && v === 'units'), 'ParameterStatus asked for');
    assert.equal((await setShow.set('search_path', 'sales', false)).forgetStatements, true);
    assert.ok(setShow.showAll().some(([k, v, d]) => k === 'application_name' && v === 'units' && d === ''));
    assert.deepEqual(await setShow.resetAll(), { forgetStatements: true });
    assert.equal(setShow.show('application_name'), '');
    assert.equal(onOff('x', 'YES'), 'on');
    assert.equal(onOff('x', '0'), 'off');
  });
});
