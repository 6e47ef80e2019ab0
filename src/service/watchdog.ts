/**
 * The last line of defence for shutdown: a timer on a separate thread. A timer on the main thread
 * cannot fire while the main thread is blocked (a native call that waits for ever); this one can.
 * When it fires the process is killed outright — the drain has already had its time.
 */
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { workerData } = require('node:worker_threads');
setTimeout(() => {
  try { require('node:fs').writeSync(2, JSON.stringify({ level: 50, time: Date.now(), svc: 'fdl-gateway', event: 'watchdog', msg: 'shutdown did not finish in time: killing the process' }) + '\\n'); } catch {}
  process.kill(process.pid, 'SIGKILL');
}, workerData.ms);
`;

/** Start the watchdog; it ends the process `ms` from now unless the process exits first. */
export function armWatchdog(ms: number): void {
  const w = new Worker(SOURCE, { eval: true, workerData: { ms } });
  // Never keeps the process alive by itself.
  w.unref();
}
