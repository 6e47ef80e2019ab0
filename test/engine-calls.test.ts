/**
 * One user's statements that DuckDB cannot interrupt never freeze the gateway for others (issue 23).
 * DuckDB checks for an interrupt only between vectors; a statement computing one huge vector holds a
 * thread of libuv's pool until it ends, whatever its client was told. Eight such statements whose
 * clients left took every thread: every user and every repository stopped answering. With the
 * engine's call slots (engine/engine-calls.ts) one user holds at most maxEngineCallsPerUser (USER_ENGINE_CALLS by default) of them.
 *
 * The stuck statement (support/stuck-statement.ts) is a GLOB whose backtracking over one vector no
 * interrupt reaches. Should a guard ever bound it, the premise check below fails first.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { stuckStatement } from './support/stuck-statement.js';

const STUCK = stuckStatement('sales.orders', 'order_id');
const ATTACKERS = 8;

describe('engine call slots: one user cannot take the thread pool', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/views');

  before(async () => {
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `views=${repos.path('repos/views')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--memory-limit',
      '1GB',
      '--statement-timeout',
      '10000',
    ]);
  });
  after(async () => {
    gw?.proc.kill('SIGKILL'); // statements DuckDB cannot interrupt keep a graceful stop waiting
    await gw?.stop();
    repos.cleanup();
  });

  test(`${ATTACKERS} uninterruptible statements whose clients left: another user's select 1 on another repository answers`, async () => {
    const answered: string[] = [];
    const attack = async () => {
      const c = new pg.Client({
        host: gw.host,
        port: gw.port,
        user: 'alice',
        database: 'basic@v1',
        connectionTimeoutMillis: 20_000,
      });
      c.on('error', () => undefined);
      await c.connect();
      c.query(STUCK).then(
        () => answered.push('rows'),
        (e: { code?: string }) => answered.push(e.code ?? 'gone'),
      );
      setTimeout(() => c.connection.stream.destroy(), 3000);
    };
    await Promise.all(Array.from({ length: ATTACKERS }, attack));
    await new Promise((r) => setTimeout(r, 4000));
    // The premise: no attacker was answered before its client left (the statement is still running).
    assert.deepEqual(
      answered.filter((a) => a !== 'gone'),
      [],
      'the stuck statement was answered: it is no longer uninterruptible',
    );
    for (let k = 0; k < 3; k++) {
      const started = Date.now();
      const c = new pg.Client({
        host: gw.host,
        port: gw.port,
        user: 'bob',
        database: 'views',
        connectionTimeoutMillis: 20_000,
      });
      c.on('error', () => undefined);
      const answer = (async () => {
        await c.connect();
        return (await c.query('select 1 as x')).rows[0].x as number;
      })();
      const x = await Promise.race([answer, new Promise((r) => setTimeout(() => r('no answer in 20 s'), 20_000))]);
      const ms = Date.now() - started;
      void c.end().catch(() => undefined);
      assert.equal(x, 1);
      // Under a loaded CI machine (2 cores shared) a login and select 1 take up to a few seconds.
      assert.ok(ms < 5000, `bob's login and select 1 took ${ms} ms`);
    }
  });
});
