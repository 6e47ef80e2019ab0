/**
 * Service under load (issue 16): 200 node-postgres clients run a query mix against `fdl serve`
 * while the gateway is reloaded with SIGHUP every second (grants, limits and a repository added and
 * removed), then drained with SIGTERM in the middle of the load.
 *
 * Reports, side by side: queries/s before and during reloads, unexpected errors (target 0), and for
 * the drain: statements the gateway logged as completed vs statements the clients received
 * (target: equal — no completed statement lost), how sessions ended, time to exit and exit code.
 *
 *   npx tsc -p . && node dist/bench/service.js [--clients 200] [--seconds 10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CLI, FIXTURES } from '../test/support/gateway.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CLIENTS = opt('clients', 200);
const SECONDS = opt('seconds', 10);

const dir = mkdtempSync(join(tmpdir(), 'fdl-bench-service-'));
const configFile = join(dir, 'gateway.json');
const basic = join(FIXTURES, 'repos', 'basic');
const views = join(FIXTURES, 'repos', 'views');
const config = (n: number) => ({
  auth: 'trust',
  // Both folders are served at start so that removing and adding `views` back needs no restart.
  repos: n % 2 ? { basic } : { basic, views },
  users: { bench: { grants: { basic: n % 2 ? ['*'] : ['heads/*', 'tags/*'], views: ['*'] } } },
  maxConnections: CLIENTS + 50,
  statementTimeoutMs: 60_000 + n,
});
writeFileSync(configFile, JSON.stringify(config(0)));

const proc = spawn(
  process.execPath,
  [
    CLI,
    'serve',
    '--listen',
    '127.0.0.1:0',
    '--config',
    configFile,
    '--cache-dir',
    join(dir, 'cache'),
    '--drain-timeout',
    '20000',
  ],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let stderr = '';
proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
const port = await new Promise<number>((resolve, reject) => {
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^listening on .*:(\d+)$/m.exec(out);
    if (m) resolve(Number(m[1]));
  });
  void exited.then((c) => reject(new Error(`gateway exited with ${c}: ${stderr}`)));
});

const MIX: ((c: pg.Client) => Promise<unknown>)[] = [
  (c) => c.query('select 1'),
  (c) => c.query('select * from sales.orders where order_id = $1', [1 + Math.floor(Math.random() * 60)]),
  (c) => c.query('select status, count(*), sum(amount) from sales.orders group by status order by 1'),
  (c) => c.query('select count(*) from range(200000) t(i) where random() < 2'),
];

let phase: 'warmup' | 'load' | 'reload' | 'drain' = 'warmup';
const counts = { warmup: 0, load: 0, reload: 0, drain: 0 };
const unexpected: string[] = [];
const endings = new Map<string, number>();
let received = 0;

let connected = 0;
async function worker(i: number): Promise<void> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'bench', database: 'basic' });
  c.on('error', () => undefined);
  await c.connect();
  connected++;
  for (;;) {
    try {
      await MIX[i % MIX.length]!(c);
      counts[phase]++;
      received++;
    } catch (e) {
      const code = (e as { code?: string }).code ?? (e as Error).message;
      if (phase === 'drain') {
        endings.set(code, (endings.get(code) ?? 0) + 1);
        return;
      }
      unexpected.push(`${phase}: ${code}`);
      return;
    }
  }
}

const t0 = performance.now();
const workers = Array.from({ length: CLIENTS }, (_, i) => worker(i));
// The clock starts once every client is connected.
while (connected < CLIENTS) await new Promise((r) => setTimeout(r, 20));
const connectMs = performance.now() - t0;
// Unmeasured: the first statements attach the version and fill the caches.
await new Promise((r) => setTimeout(r, 3000));
phase = 'load';
await new Promise((r) => setTimeout(r, SECONDS * 1000));
const t1 = performance.now();
phase = 'reload';
let reloads = 0;
while (performance.now() - t1 < SECONDS * 1000) {
  writeFileSync(configFile, JSON.stringify(config(++reloads)));
  proc.kill('SIGHUP');
  await new Promise((r) => setTimeout(r, 1000));
}
phase = 'drain';
const t2 = performance.now();
proc.kill('SIGTERM');
const code = await exited;
const drainMs = performance.now() - t2;
await Promise.all(workers);

const logged = (stderr.match(/"event":"statement"[^\n]*"sqlstate":"00000"/g) ?? []).length;
const applied = (stderr.match(/"event":"reload"/g) ?? []).length;
const rejected = (stderr.match(/"event":"reload_rejected"/g) ?? []).length;
const report = {
  clients: CLIENTS,
  'time to connect all clients (ms)': Math.round(connectMs),
  'queries/s before reloads': Math.round(counts.load / SECONDS),
  'queries/s during reloads': Math.round(counts.reload / SECONDS),
  'reloads sent / applied / rejected': `${reloads} / ${applied} / ${rejected}`,
  'unexpected errors': unexpected.length,
  'statements completed during drain': counts.drain,
  'completed statements: gateway log vs clients': `${logged} vs ${received}`,
  'client sessions ended by': Object.fromEntries(endings),
  'SIGTERM to exit (ms)': Math.round(drainMs),
  'exit code': code,
};
console.log(JSON.stringify(report, null, 2));
if (unexpected.length) console.log('unexpected:', [...new Set(unexpected)].slice(0, 10));
rmSync(dir, { recursive: true, force: true });
process.exitCode = unexpected.length === 0 && logged === received && code === 0 ? 0 : 1;
