/**
 * DuckDB's own open of a data file that a store writer swaps for a named pipe (by rename, between the
 * gateway's per-statement re-check and DuckDB's open) waited for a writer for ever: the statement was
 * never answered, not even 57014 at its timeout, and the thread was lost (attacker review, session 51).
 * Now the wait is released (engine/fifo-opens.ts): every statement answers within its timeout and a
 * bound, the process serves other users after, and no thread of it stays in a FIFO's open.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';

const TIMEOUT_MS = 2000;
/** An answer may come this long after the statement's timeout (a loaded machine's analysis, the release's tick). */
const BOUND_MS = 4000;

/** Threads of `pid` waiting in an open for a FIFO's writer. */
function fifoWaits(pid: number): string[] {
  const waits: string[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner') waits.push(tid);
    } catch {
      // the thread ended meanwhile
    }
  }
  return waits;
}

let gw: ContainmentGateway;
before(async () => {
  // orders read by path at every statement, as a table over 16 MiB is: no native copy (nativeTableBytes 0)
  gw = await containmentGateway({ statementTimeoutMs: TIMEOUT_MS, config: { nativeTableBytes: 0 } });
});
after(() => gw?.stop());

test('a data file swapped for a named pipe while statements run: each answered within the timeout + a bound, no thread left in the open, other users served', async () => {
  const dir = join(gw.repoPath, 'data/sales/orders');
  const target = join(dir, readdirSync(dir).filter((f) => !f.includes('delete'))[0]!);
  const original = `${target}.orig`;
  const fifo = `${target}.fifo`;
  linkSync(target, original);
  execFileSync('mkfifo', [fifo]);
  const swapIn = (from: string) => (linkSync(from, `${target}.next`), renameSync(`${target}.next`, target));
  const pid = gw.s.proc.pid!;
  const alice = await gw.login('alice');
  const answers = new Map<string, number>();
  let slowest = 0;
  let stop = false;
  const released = () => (gw.s.stderr().match(/"event":"fifo_open_released"/g) ?? []).length;
  const reader = (async () => {
    for (let i = 0; !stop; i++) {
      const t0 = Date.now();
      // a new text each time: none is answered from the result cache
      const answer = await Promise.race([
        alice.query(`select sum(qty + ${i})::int as s from sales.orders`).then(
          () => 'rows',
          (e: { code?: string }) => e.code ?? 'gone',
        ),
        new Promise<string>((r) => setTimeout(() => r('no answer'), TIMEOUT_MS + BOUND_MS)),
      ]);
      slowest = Math.max(slowest, Date.now() - t0);
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
      if (answer === 'no answer') return;
    }
  })();
  // The store writer toggles the pipe and the real file in until DuckDB was seen waiting in the pipe's open three times.
  const deadline = Date.now() + 60_000;
  while (released() < 3 && !answers.has('no answer') && Date.now() < deadline) {
    swapIn(fifo);
    await new Promise((r) => setTimeout(r, Math.random() * 3));
    swapIn(original);
    await new Promise((r) => setTimeout(r, Math.random() * 3));
  }
  stop = true;
  await reader;
  const seen = JSON.stringify([...answers]);
  assert.ok(!answers.has('no answer'), `a statement was not answered in ${TIMEOUT_MS + BOUND_MS} ms: ${seen}`);
  assert.ok(released() >= 3, `DuckDB never opened the pipe: ${seen}`);
  assert.ok(slowest <= TIMEOUT_MS + BOUND_MS, `slowest answer ${slowest} ms`);
  for (const code of answers.keys()) assert.ok(['rows', 'XX001', '57014'].includes(code), seen);
  assert.deepEqual(fifoWaits(pid), [], 'a thread still waits in the open of a pipe');

  // The pipe left in place: the file is refused as tampered, at once.
  swapIn(fifo);
  await assert.rejects(alice.query('select sum(qty)::int as s from sales.orders where qty > 0'), { code: 'XX001' });
  assert.deepEqual(fifoWaits(pid), []);
  // The real file back: other users are served from it.
  swapIn(original);
  const bob = await gw.login('bob');
  assert.deepEqual((await bob.query('select count(*)::int as n from sales.orders')).rows, [{ n: 69 }]);
  rmSync(fifo);
});
