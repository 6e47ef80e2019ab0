/**
 * Load (issue 7): 200 concurrent node-postgres connections run a mix of queries for 60 s against the
 * `basic` fixture repository; every error that is not an expected one counts as unexpected (target 0).
 * Reports queries/s, latency percentiles per query kind, and the gateway's peak RSS (VmHWM).
 *
 *   npx tsc -p . && node dist/bench/load.js [--clients 200] [--seconds 60] [--only 'select 1,join'] [--json FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { FIXTURES, startGateway } from '../test/support/gateway.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CLIENTS = opt('clients', 200);
const SECONDS = opt('seconds', 60);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;

const status = (pid: number, field: string) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** The mix: [name, weight, run]. `expect` lists SQLSTATEs that are the right answer for that query. */
type Q = { name: string; weight: number; run: (c: pg.Client) => Promise<unknown>; expect?: string[] };
const MIX: Q[] = [
  { name: 'select 1', weight: 30, run: (c) => c.query('select 1') },
  {
    name: 'point (param)',
    weight: 20,
    run: (c) => c.query('select * from sales.orders where order_id = $1', [1 + Math.floor(Math.random() * 60)]),
  },
  {
    name: 'aggregate',
    weight: 15,
    run: (c) => c.query('select status, count(*), sum(amount) from sales.orders group by status order by 1'),
  },
  {
    name: 'join',
    weight: 10,
    run: (c) =>
      c.query(
        'select c.country, count(*) from sales.orders o join sales.customers c using (customer_id) group by 1 order by 2 desc',
      ),
  },
  { name: 'all types', weight: 5, run: (c) => c.query('select * from main.all_types') },
  {
    name: 'catalog (psql \\dt)',
    weight: 5,
    run: (c) =>
      c.query(
        "select n.nspname, c.relname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where c.relkind in ('r','v') order by 1, 2",
      ),
  },
  {
    name: 'tag switch',
    weight: 5,
    run: async (c) => {
      await c.query("set fdl.ref = 'tags/v1'");
      await c.query('select count(*) from sales.orders');
      await c.query('reset fdl.ref');
    },
  },
  {
    name: 'transaction',
    weight: 5,
    run: async (c) => {
      await c.query('begin');
      await c.query('show fdl.version');
      await c.query('select count(*) from sales.customers');
      await c.query('commit');
    },
  },
  { name: 'expected error', weight: 3, run: (c) => c.query('select * from no_such_table'), expect: ['42P01'] },
  { name: 'generated 10k rows', weight: 2, run: (c) => c.query('select i, i::text from range(10000) t(i)') },
];
// --only NAME[,NAME]: restrict the mix (to isolate what limits throughput)
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : null;
if (only) MIX.splice(0, MIX.length, ...MIX.filter((q) => only.includes(q.name)));
const totalWeight = MIX.reduce((n, q) => n + q.weight, 0);
const pick = () => {
  let r = Math.random() * totalWeight;
  for (const q of MIX) {
    if ((r -= q.weight) < 0) return q;
  }
  return MIX[0]!;
};

const gw = await startGateway([
  '--repo',
  `basic=${join(FIXTURES, 'repos', 'basic')}`,
  '--log-level',
  'warn',
  '--max-connections',
  String(CLIENTS + 20),
]);
const pid = gw.proc.pid!;
const lat = new Map<string, number[]>(MIX.map((q) => [q.name, []]));
const unexpected = new Map<string, number>();
let expectedErrors = 0;
let queries = 0;
let rssSamples = 0,
  rssMax = 0;
const sampler = setInterval(() => {
  const r = status(pid, 'VmRSS');
  rssMax = Math.max(rssMax, r);
  rssSamples++;
}, 500);
try {
  const rss0 = status(pid, 'VmRSS');
  const tConnect = performance.now();
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new pg.Client({ host: gw.host, port: gw.port, user: 'load', database: 'basic', query_timeout: 30_000 });
      c.on('error', (e) =>
        unexpected.set(`client error: ${e.message}`, (unexpected.get(`client error: ${e.message}`) ?? 0) + 1),
      );
      await c.connect();
      return c;
    }),
  );
  console.log(
    `${CLIENTS} connections in ${(performance.now() - tConnect).toFixed(0)} ms; gateway RSS ${Math.round(rss0 / 1024)} MB before, ${Math.round(status(pid, 'VmRSS') / 1024)} MB connected`,
  );
  const end = performance.now() + SECONDS * 1000;
  let lastReport = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const q = pick();
        const t0 = performance.now();
        try {
          await q.run(c);
          if (q.expect) unexpected.set(`${q.name}: no error`, (unexpected.get(`${q.name}: no error`) ?? 0) + 1);
        } catch (e) {
          const code = (e as { code?: string }).code ?? '';
          if (q.expect?.includes(code)) expectedErrors++;
          else {
            const k = `${q.name}: ${code} ${(e as Error).message}`.slice(0, 160);
            unexpected.set(k, (unexpected.get(k) ?? 0) + 1);
            await c.query('rollback').catch(() => undefined);
          }
        }
        lat.get(q.name)!.push(performance.now() - t0);
        queries++;
        if (performance.now() - lastReport > 10_000) {
          lastReport = performance.now();
          console.log(
            `  … ${queries} queries, RSS ${Math.round(status(pid, 'VmRSS') / 1024)} MB, unexpected errors ${[...unexpected.values()].reduce((a, b) => a + b, 0)}`,
          );
        }
      }
    }),
  );
  const elapsed = SECONDS;
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  const p = (a: number[], x: number) => (a.length ? a[Math.min(a.length - 1, Math.floor((x / 100) * a.length))]! : NaN);
  const perKind: Record<string, { n: number; p50: number; p99: number }> = {};
  for (const [k, a] of lat) {
    a.sort((x, y) => x - y);
    perKind[k] = { n: a.length, p50: +p(a, 50).toFixed(2), p99: +p(a, 99).toFixed(2) };
  }
  const result = {
    clients: CLIENTS,
    seconds: elapsed,
    queries,
    qps: Math.round(queries / elapsed),
    expectedErrors,
    unexpectedErrors: [...unexpected.values()].reduce((a, b) => a + b, 0),
    unexpected: Object.fromEntries(unexpected),
    gatewayPeakRssMB: Math.round(status(pid, 'VmHWM') / 1024),
    gatewayRssEndMB: Math.round(status(pid, 'VmRSS') / 1024),
    gatewayAlive: gw.proc.exitCode === null && gw.proc.signalCode === null,
    perKind,
  };
  console.log(JSON.stringify(result, null, 2));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
  if (result.unexpectedErrors || !result.gatewayAlive) process.exitCode = 1;
} finally {
  clearInterval(sampler);
  void rssSamples;
  void rssMax;
  const r = await Promise.race([gw.stop(), new Promise((res) => setTimeout(() => res('timeout'), 15_000))]);
  if (r === 'timeout') {
    console.log('gateway did not exit within 15 s of SIGTERM: SIGKILL');
    gw.proc.kill('SIGKILL');
  }
}
