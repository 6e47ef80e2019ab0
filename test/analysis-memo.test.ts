/**
 * The analysis memo (analysis/analysis.ts) keeps a text's own judgement, never a session's stop. An
 * attacker review: eve filled her engine-call share, so a third session's `SELECT 1` waited for a slot
 * during its analysis and its statement_timeout answered 57014; the memo kept that 57014 as the text's
 * result, and every later session of every user — bob, on another repository — got 57014 for
 * `SELECT 1` (a pool's health check) at once, until the entry was evicted. Real DuckDB, session
 * connections as the gateway makes them; eve's statement is stopped while its parse waits.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connectSession, createEngine } from '../src/engine/engine.js';
import { ownEngineCalls } from '../src/engine/engine-calls.js';
import { analyze } from '../src/analysis/analysis.js';
import { SqlError, SQLSTATE } from '../src/errors.js';

let engine: DuckDBInstance;
const conns: DuckDBConnection[] = [];
before(async () => {
  engine = await createEngine({ compat: false });
});
after(() => {
  for (const c of conns) c.disconnectSync();
});

test("a statement stopped while its analysis waits is not the text's answer for the next session", async () => {
  const eve = await connectSession(engine);
  const bob = await connectSession(engine);
  conns.push(eve, bob);
  const stop = new SqlError(SQLSTATE.queryCanceled, 'canceling statement due to statement timeout');
  ownEngineCalls(eve, 'eve', () => Promise.reject(stop)); // her statement's stop came while it waited
  ownEngineCalls(bob, 'bob', (w) => w);
  const text = 'SELECT 1 AS memo_probe';
  await assert.rejects(analyze(eve, text), { sqlstate: '57014' });
  const bobs = await analyze(bob, text);
  assert.equal(bobs.kind, 'query');
  // a judgement of the text itself is kept: the same error for every session, parsed once
  await assert.rejects(analyze(bob, 'SELEC 1 AS memo_probe'), { sqlstate: '42601' });
  await assert.rejects(analyze(eve, 'SELEC 1 AS memo_probe'), { sqlstate: '42601' });
});
