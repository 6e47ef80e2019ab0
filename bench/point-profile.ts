/**
 * The point query's repeated path under a CPU profile (issue 26): a gateway started with
 * `node --cpu-prof` (result cache off), one client sending the point query with new parameters,
 * unnamed or named extended protocol, N times; the profile is written when the gateway drains on SIGTERM.
 *
 *   npx tsc -p . && node dist/bench/point-profile.js [--n 5000] [--kind unnamed|named|newConst] [--out dir] [--cli <main.js>]
 *     [--syscalls]   instead of the profile: `strace -c -f` on the gateway over the N statements (syscalls per statement)
 *     [--cpu]        no profile: the gateway's CPU per statement, its JavaScript thread's and the whole process'
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { serveForBench } from './bench-gateway.js';
import { CLI, copyFixtures } from '../test/support/gateway.js';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);
const N = Number(arg('n', '5000'));
const kind = arg('kind', 'unnamed');
const out = arg('out', mkdtempSync(join(tmpdir(), 'fdl-point-profile-')));
mkdirSync(out, { recursive: true });
const cli = arg('cli', CLI);
const syscalls = args.includes('--syscalls');
const cpuOnly = args.includes('--cpu');
/** CPU seconds of a thread (`task`) or of the whole process, from /proc. */
const cpuOf = (pid: number, task?: number): number => {
  const f = readFileSync(`/proc/${pid}/${task ? `task/${task}/` : ''}stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const POINT = 'select $1::int + order_id from sales.orders where order_id = $2';

const repos = copyFixtures('repos/basic');
const gw = await serveForBench({
  cli,
  repo: repos.path('repos/basic'),
  cacheDir: join(repos.dir, 'cache'),
  args: ['--result-cache-bytes', '0'],
  nodeArgs: syscalls || cpuOnly ? (process.env.GW_NODE_ARGS?.split(' ') ?? []) : ['--cpu-prof', '--cpu-prof-dir', out],
});
const c = new pg.Client({ host: '127.0.0.1', port: gw.port, user: 'bench', database: 'basic' });
await c.connect();
const query = (i: number) => {
  const values = [1000 + (i & 0xff), 1 + (i % 50)];
  if (kind === 'named') return c.query({ name: 'point', text: POINT, values });
  if (kind === 'newConst') return c.query({ text: `${POINT} and ${i + 1} > 0`, values });
  return c.query({ text: POINT, values });
};
for (let i = 0; i < 200; i++) await query(i + 1_000_000);
const trace = syscalls
  ? spawn('strace', ['-c', '-f', '-o', join(out, 'syscalls.txt'), '-p', String(gw.proc.pid)], { stdio: 'ignore' })
  : null;
if (trace) await new Promise((r) => setTimeout(r, 1000)); // attached to every thread
const pid = gw.proc.pid!;
const [js0, all0] = [cpuOf(pid, pid), cpuOf(pid)];
const t0 = performance.now();
for (let i = 0; i < N; i++) await query(i);
const us = (s: number) => ((s * 1e6) / N).toFixed(0);
process.stdout.write(
  `${kind}: ${((performance.now() - t0) / N).toFixed(3)} ms per statement (mean); gateway CPU µs per statement: JavaScript thread ${us(cpuOf(pid, pid) - js0)}, process ${us(cpuOf(pid) - all0)}\n`,
);
if (trace) {
  const ended = new Promise((r) => trace.once('exit', r));
  trace.kill('SIGINT');
  await ended;
  process.stdout.write(readFileSync(join(out, 'syscalls.txt'), 'utf8'));
}
await c.end();
const exited = new Promise((r) => gw.proc.once('exit', r));
gw.proc.kill('SIGTERM');
await exited;
repos.cleanup();
process.stdout.write(`profile in ${out}\n`);
