/**
 * The last line of defence for shutdown: a timer outside the process. A timer on the main thread
 * cannot fire while the main thread is blocked (a native call that waits for ever), and worker
 * threads are torn down by process.exit before the libuv thread pool is joined — so the timer lives
 * in a tiny child process. It kills the gateway only if the gateway is still its parent (a pid is
 * never mistaken for a later process with the same number), and goes away as soon as the gateway
 * has exited by itself.
 */
import { spawn } from 'node:child_process';

const SOURCE = `
const parent = Number(process.argv[1]);
const deadline = Date.now() + Number(process.argv[2]);
const tick = setInterval(() => {
  if (process.ppid !== parent) process.exit(0); // the gateway is gone: nothing to do
  if (Date.now() < deadline) return;
  clearInterval(tick);
  try {
    process.stderr.write(JSON.stringify({ level: 50, time: Date.now(), svc: 'fdl-gateway', event: 'watchdog', msg: 'shutdown did not finish in time: killing the process' }) + '\\n');
  } catch {}
  try { process.kill(parent, 'SIGKILL'); } catch {}
  process.exit(0);
}, 100);
`;

/** The process is killed `ms` from now unless it exits first. Spawned synchronously: it works even if the main thread blocks right after. */
export function armWatchdog(ms: number): void {
  const child = spawn(process.execPath, ['-e', SOURCE, String(process.pid), String(Math.max(1, Math.round(ms)))], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('error', () => undefined);
  child.unref();
}
