/**
 * The last line of defence for shutdown: a timer on a separate thread. A timer on the main thread
 * cannot fire while the main thread is blocked (a native call that waits for ever); this one can.
 * The thread is started early and parked; arming it is one atomic store, which needs nothing from
 * the main thread's event loop. When it fires the process is killed outright — the drain has
 * already had its time.
 */
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { workerData } = require('node:worker_threads');
const cell = new Int32Array(workerData.shared);
// Parked until the main thread stores a deadline (ms) and notifies.
while (Atomics.load(cell, 0) === 0) Atomics.wait(cell, 0, 0);
setTimeout(() => {
  try { require('node:fs').writeSync(2, JSON.stringify({ level: 50, time: Date.now(), svc: 'fdl-gateway', event: 'watchdog', msg: 'shutdown did not finish in time: killing the process' }) + '\\n'); } catch {}
  process.kill(process.pid, 'SIGKILL');
}, Atomics.load(cell, 0));
`;

export interface Watchdog {
  /** The process ends `ms` from now unless it exits first. */
  arm(ms: number): void;
}

/** Start the (parked) watchdog thread; it never keeps the process alive by itself. */
export function startWatchdog(): Watchdog {
  const shared = new SharedArrayBuffer(4);
  const cell = new Int32Array(shared);
  const w = new Worker(SOURCE, { eval: true, workerData: { shared } });
  w.unref();
  return {
    arm(ms) {
      Atomics.store(cell, 0, Math.max(1, Math.round(ms)));
      Atomics.notify(cell, 0);
    },
  };
}
