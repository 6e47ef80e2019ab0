/**
 * The text worker's time limit (engine/text-pool.ts): a task that runs past it is answered 54001,
 * its thread is ended (synchronous work cannot be stopped otherwise), and the next task — another
 * user's — runs on a new thread at once. Before, nothing bounded a task: the one slot every long
 * statement of every user waits for was held until the task ended by itself.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  analyzeOffThread,
  rewriteOffThread,
  setTextTaskLimit,
  textTasksTimedOut,
  textThreadRunning,
  textThreadsStarted,
  KEEP_THREAD_MAX_CHARS,
} from '../src/engine/text-pool.js';
import { IDLE_MS, sessionEnded, sessionStarted } from '../src/idle-memory.js';

after(() => setTextTaskLimit());

/** A 240 KiB catalog text: its PostgreSQL-grammar rewrite takes seconds on this machine. */
const heavy = `select relname from pg_class where relname in (${Array.from({ length: 24_000 }, (_, i) => `'r${i}'`).join(', ')})`;
/** A text just over the worker's threshold, answered in milliseconds. */
const light = `select ${Array.from({ length: 1_200 }, (_, i) => `${i} as c${i}`).join(', ')}`;

test('a text task past the time limit is answered 54001 and its thread ended; the next user is served by a new thread', async () => {
  // The thread and its parse-only DuckDB started first, under the default limit.
  const warm = await analyzeOffThread(light, 'bob');
  assert.equal(warm.kind, 'query');
  const unlimited = Date.now();
  await rewriteOffThread(heavy, 'ann');
  const took = Date.now() - unlimited;
  assert.ok(took > 200, `the heavy rewrite took only ${took} ms: not heavy enough for this test`);

  // a quarter of what the same work took here (a quiet machine: ~500 ms; a loaded one: seconds)
  const limit = Math.floor(took / 4);
  setTextTaskLimit(limit);
  const started = textThreadsStarted;
  const timedOut = textTasksTimedOut;
  const t0 = Date.now();
  // A text not seen before (no memo on the thread would answer it at once).
  const refused = rewriteOffThread(`${heavy} or relname = 'another'`, 'ann');
  // The limit is read when a task is posted: the task queued next gets the default again.
  await new Promise((r) => setTimeout(r, 50));
  setTextTaskLimit();
  const waiting = analyzeOffThread(`${light}, 1 as waiting`, 'bob');
  await assert.rejects(refused, (e: { sqlstate?: string; message?: string }) => {
    assert.equal(e.sqlstate, '54001', e.message);
    assert.match(e.message!, /limit of [\d.]+ s/);
    return true;
  });
  const answeredIn = Date.now() - t0;
  assert.ok(answeredIn < limit + 1500, `refused after ${answeredIn} ms`);
  assert.equal(textTasksTimedOut, timedOut + 1);
  // The other user's task, queued behind it, runs on a new thread.
  assert.equal((await waiting).kind, 'query');
  assert.equal(textThreadsStarted, started + 1, 'a new thread was started for the next task');
});

test("a thread that took only catalog-sized texts outlives the gateway's idle moments; one that took a long text ends at idle", async () => {
  const idle = async () => {
    sessionStarted();
    sessionEnded();
    await new Promise((r) => setTimeout(r, IDLE_MS + 500));
  };
  // ~2.6 KB, as SQLAlchemy 2's get_columns: the PostgreSQL rewrite runs on the thread.
  const catalog = (n: number) =>
    `select a.attname, format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid where c.relname = 'orders' and a.attnum > ${n} /* ${'x'.repeat(2_400)} */`;
  assert.ok(catalog(0).length < KEEP_THREAD_MAX_CHARS);
  await idle(); // a thread the test above left (it took long texts) ends
  await rewriteOffThread(catalog(0), 'ann');
  const started = textThreadsStarted;
  await idle();
  assert.ok(textThreadRunning(), 'the thread ended when the gateway was idle');
  await rewriteOffThread(catalog(1), 'ann');
  assert.equal(textThreadsStarted, started, 'a new thread was started for the next client');
  // A long text grows the grammar's memory: that thread ends at idle, as before.
  await rewriteOffThread(`${catalog(2)} or a.attname in (${"'x', ".repeat(1_000)}'y')`, 'ann');
  await idle();
  assert.equal(textThreadRunning(), false, 'the thread that took a long text was kept');
});
