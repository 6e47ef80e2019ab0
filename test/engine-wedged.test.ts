/**
 * What the gateway does about a DuckDB call no interrupt reaches (engine/engine-calls.ts): once a
 * call has run on `stuckCallGraceMs` after its statement was stopped, the process says it is wedged
 * (/readyz 503 with the reason, `fdl_engine_calls_stuck`, an `engine_call_stuck` log line) so a
 * balancer routes new sessions away and a supervisor restarts it after draining; and the per-user
 * share of the engine's call slots is the operator's `maxEngineCallsPerUser`, not a constant.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ConfigFile } from '../src/cli/config.js';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { waitFor } from './support/gateway.js';
import { get, sample, type Service } from './support/service.js';
import { stuckStatement } from './support/stuck-statement.js';

// Long enough that analysis and prepare of a new text end before it on a loaded machine: the stop must come while DuckDB runs.
const TIMEOUT_MS = 4000;
const GRACE_MS = 1500;

describe('a stuck engine call wedges the process; the per-user call share is configured', () => {
  let gw: ContainmentGateway;
  let s: Service;
  const login = (user: string) => gw.login(user);
  /** Sends the stuck statement on `c`; an answer (it never should come) fails the waits below. */
  const answered: string[] = [];
  const runStuck = (c: pg.Client) =>
    void c.query(stuckStatement()).then(
      () => answered.push('rows'),
      (e: { code?: string }) => answered.push(e.code ?? 'gone'),
    );
  const stuckNow = async () => sample((await get(s.http!, '/metrics')).body, 'fdl_engine_calls_stuck');

  before(async () => {
    const config = { auth: 'trust', maxEngineCallsPerUser: 3, stuckCallGraceMs: GRACE_MS };
    gw = await containmentGateway({ statementTimeoutMs: TIMEOUT_MS, http: true, config });
    s = gw.s;
  });
  after(() => gw?.stop()); // the stuck calls would hold a graceful stop

  test('the config file refuses a per-user share outside 1…6 and a grace that is not positive', () => {
    for (const bad of [{ maxEngineCallsPerUser: 0 }, { maxEngineCallsPerUser: 7 }, { stuckCallGraceMs: 0 }])
      assert.equal(ConfigFile.safeParse(bad).success, false, JSON.stringify(bad));
    assert.equal(ConfigFile.safeParse({ maxEngineCallsPerUser: 6, stuckCallGraceMs: 1 }).success, true);
  });

  test('a call running on past its statement_timeout + stuckCallGraceMs: /readyz 503 saying why, the stuck metrics, a log line; other users served', async () => {
    assert.deepEqual(await get(s.http!, '/readyz'), {
      status: 200,
      body: 'ready\n',
      type: 'text/plain; charset=utf-8',
    });
    assert.equal(await stuckNow(), 0);
    const alice = await login('alice');
    const t0 = Date.now();
    runStuck(alice);
    const r = await waitFor(
      async () => {
        assert.deepEqual(answered, [], 'the stuck statement was answered');
        const x = await get(s.http!, '/readyz');
        return x.status === 503 ? x : undefined;
      },
      '/readyz turning 503',
      60_000,
      100,
    );
    const took = Date.now() - t0;
    assert.equal(
      r.body,
      `wedged: 1 engine calls still running ${GRACE_MS} ms after their statements were stopped; drain and restart this process\n`,
    );
    // Never before the statement's stop plus the grace.
    assert.ok(took >= TIMEOUT_MS + GRACE_MS, `wedged after ${took} ms`);
    const metrics = (await get(s.http!, '/metrics')).body;
    assert.equal(sample(metrics, 'fdl_engine_calls_stuck'), 1);
    assert.equal(sample(metrics, 'fdl_engine_calls_stuck_total'), 1);
    // Log lines are batched: the line follows within moments.
    await waitFor(
      () => /"event":"engine_call_stuck","user":"alice","running_ms":\d+,"stuck":1/.test(s.stderr()),
      'the engine_call_stuck line',
    );
    // Nothing else changed: another user's statements run.
    const bob = await login('bob');
    assert.equal((await bob.query('select sum(i)::int as n from range(10) t(i)')).rows[0].n, 45);
  });

  test('maxEngineCallsPerUser 3: with two of her calls stuck a user still runs a statement; with three her next waits and ends 57014', async () => {
    const alice2 = await login('alice');
    runStuck(alice2);
    await waitFor(
      async () => (assert.deepEqual(answered, []), (await stuckNow()) === 2),
      'two stuck calls',
      30_000,
      100,
    );
    // The third of alice's slots (with the old constant 2 this waited for ever, then 57014).
    const alice3 = await login('alice');
    assert.equal((await alice3.query('select sum(i)::int as n from range(10) t(i)')).rows[0].n, 45);
    runStuck(alice3);
    await waitFor(
      async () => (assert.deepEqual(answered, []), (await stuckNow()) === 3),
      'three stuck calls',
      30_000,
      100,
    );
    const alice4 = await login('alice');
    // (a text another of her sessions ran is answered from the result cache without the engine: a new one)
    await assert.rejects(alice4.query('select sum(i)::int as n from range(11) t(i)'), { code: '57014' });
    const bob = await login('bob');
    assert.equal((await bob.query('select sum(i)::int as n from range(10) t(i)')).rows[0].n, 45);
  });
});
