/**
 * The shape every cost-guard test asserts: a statement that would run long inside DuckDB is refused with
 * its SQLSTATE at once, and nothing of it runs on afterwards (the process stays under half a core).
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { cpuSeconds } from './gateway.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Refusal {
  code: string;
  /** Matched against the error's message (and `hint` against its hint) when given. */
  message?: RegExp;
  hint?: RegExp;
  /** The answer must come sooner than this. */
  withinMs: number;
  /** How long the process is watched after the answer (default 1 s); it may use half of it in CPU (in the first such window or the next). */
  quietMs?: number;
}

/** Sends `sql` on `c`, asserts the refusal and the idle process `pid` after it; returns the answer's time in ms. */
export async function refusedThenIdle(c: pg.Client, pid: number, sql: string, want: Refusal): Promise<number> {
  const label = sql.slice(0, 120);
  const t0 = Date.now();
  await assert.rejects(c.query(sql), (e: { code?: string; message?: string; hint?: string }) => {
    // what came instead is named, so a failure under load says which way it went
    const got = `${label}: got ${e.code} ${e.message ?? ''} (hint: ${e.hint ?? ''}) after ${Date.now() - t0} ms`;
    assert.equal(e.code, want.code, got);
    if (want.message) assert.match(e.message ?? '', want.message, got);
    if (want.hint) assert.match(e.hint ?? '', want.hint, got);
    return true;
  });
  const took = Date.now() - t0;
  assert.ok(took < want.withinMs, `${label}: answered after ${took} ms`);
  const quietMs = want.quietMs ?? 1000;
  // Two windows: the one right after the answer may hold the refusal's own tail (a collection, the allocator
  // giving memory back, a busy machine's late interrupt); work that runs on keeps the second busy too.
  let busy = Infinity;
  for (let window = 0; window < 2 && busy >= quietMs / 2000; window++) {
    const cpu0 = cpuSeconds(pid);
    await sleep(quietMs);
    busy = cpuSeconds(pid) - cpu0;
  }
  assert.ok(
    busy < quietMs / 2000,
    `${label}: the gateway used ${busy.toFixed(2)} s of CPU in the ${quietMs} ms after the answer`,
  );
  return took;
}
