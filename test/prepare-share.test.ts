/**
 * A session's prepares are its user's engine calls (engine/engine-calls.ts › enginePrepare): in the
 * user's share of the slots, and counted stuck when they run on past their statement's stop. An
 * attacker review: five sessions of one user, each with a prepare DuckDB could not interrupt, took
 * every prepare slot (which had no per-user share), every other user's statements and logins waited
 * 14+ minutes, and /readyz stayed 200 (only engineCall was watched). Real DuckDB prepares, on session
 * connections as the gateway makes them; the slow one is a plan admission would now refuse
 * (cte-expansion.ts), prepared here directly, standing for any prepare that takes long.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connectSession, createEngine, PREPARE_SLOTS } from '../src/engine/engine.js';
import { configureEngineCalls, engineCallLoad, ownEngineCalls, USER_ENGINE_CALLS } from '../src/engine/engine-calls.js';
import { StatementClock } from '../src/session/statement-clock.js';
import { waitFor } from './support/gateway.js';

/**
 * 12 levels of NOT MATERIALIZED self-joins: seconds of DuckDB's binder, which nothing interrupts (11
 * levels bound within the stop + grace on a quiet machine, and nothing was ever stuck).
 */
function slowPrepare(): string {
  let sql = 'with c0 as (select range as x from range(10))';
  for (let i = 1; i <= 12; i++)
    sql += `, c${i} as not materialized (select a.x from c${i - 1} a, c${i - 1} b where a.x = b.x)`;
  return `${sql} select count(*) from c12`;
}

const STOP_MS = 500;
const GRACE_MS = 300;

describe("a user's prepares take their share of the slots and are watched for being stuck", () => {
  let engine: DuckDBInstance;
  const conns: DuckDBConnection[] = [];
  const reports: { user: string }[] = [];
  before(async () => {
    engine = await createEngine({ compat: false });
    configureEngineCalls({ perUser: USER_ENGINE_CALLS, stuckGraceMs: GRACE_MS, report: (r) => reports.push(r) });
  });
  after(() => {
    for (const c of conns) c.disconnectSync();
  });

  test("five slow prepares of one user: another user's statement answers meanwhile; hers past stop + grace count as stuck, as hers", async () => {
    assert.ok(PREPARE_SLOTS <= 5, 'five sessions of one user took every prepare slot');
    const eve = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => {
        const conn = await connectSession(engine);
        conns.push(conn);
        const clock = new StatementClock(
          () => undefined, // as no interrupt reaches DuckDB's binder: its prepares run on past the stop
          () => STOP_MS,
        );
        ownEngineCalls(conn, 'eve', (w) => clock.bound(w));
        return { conn, clock };
      }),
    );
    const bobConn = await connectSession(engine);
    conns.push(bobConn);
    ownEngineCalls(bobConn, 'bob', (w) => w);

    const sql = slowPrepare();
    const outcomes: string[] = [];
    // Each statement's clock starts as its prepare is sent, as a session's does: started at connect, the
    // stop had passed before any prepare began under load (a connection takes ~0.5 s at load 7), so all
    // five ended 57014 waiting and none ran to be counted stuck.
    const prepares = eve.map(({ conn, clock }) => {
      clock.start();
      return conn.prepare(sql).then(
        () => outcomes.push('prepared'),
        (e: { sqlstate?: string }) => outcomes.push(e.sqlstate ?? 'failed'),
      );
    });
    // bob's statement: prepared and run while eve's prepares run (on the old code it waited for one to end).
    const t0 = Date.now();
    const bobs = await bobConn.prepare('select 42::int');
    const answer = (await bobs.runAndReadAll()).getRows()[0]![0];
    assert.equal(answer, 42);
    assert.ok(
      // 57014: one of hers still waiting for her share, stopped with its statement, never started in DuckDB
      outcomes.filter((o) => o !== '57014').length === 0,
      `bob answered after ${Date.now() - t0} ms, only once one of eve's prepares ended: ${outcomes.join(', ')}`,
    );

    // Past her statements' stop + grace, her running prepares are stuck, and they are hers.
    await waitFor(() => engineCallLoad().stuck === USER_ENGINE_CALLS, 'her running prepares counted stuck', 60_000, 50);
    assert.ok(
      !outcomes.includes('prepared') && !outcomes.includes('failed'),
      'the slow prepare ended before the test could see it stuck',
    );
    assert.deepEqual(
      reports.map((r) => r.user),
      Array(USER_ENGINE_CALLS).fill('eve'),
    );
    // Those waiting for her share stopped with their statements (57014), never started in DuckDB.
    assert.deepEqual(outcomes, Array(5 - USER_ENGINE_CALLS).fill('57014'));
    await Promise.all(prepares);
    // Once DuckDB's prepares return (they ended failed or prepared), nothing is stuck.
    assert.equal(engineCallLoad().stuck, 0);
  });
});
