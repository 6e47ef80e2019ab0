/**
 * What an uncached statement costs the gateway (issue 26), side by side in one run:
 *  (a) in-process DuckDB (@duckdb/node-api), each statement prepared once, over the same version's views
 *      (lake/attachCatalog over the same Parquet files);
 *  (b) the gateway (`fdl serve`, result cache off), node-postgres and pgbench;
 *  (c) PostgreSQL 15 (a throw-away cluster) holding the same rows.
 * Latency (p50/p99) of a point query with new parameters (unnamed and named extended protocol) and
 * of a new text each time (a new comment, which the gateway reads as the same statement, and a new
 * constant, a statement it has not planned); tps of a five-query dashboard script with random parameters under pgbench
 * -M simple/extended/prepared, -c 1 and -c 8, and of `SELECT 1` -M extended; the gateway's time per
 * statement by stage and its work per statement (fdl_statement_stage_seconds, fdl_statement_work_total).
 *
 *   npx tsc -p . && node dist/bench/statement-cost.js [--n 300] [--seconds 5] [--warmup 500] [--json out.json] [--before <cli>] [--compare]
 *
 * --warmup: statements each gateway series runs before it is measured (default 500). With 30, the first series a
 * gateway ran (unnamed) was measured while V8 still compiled the statement path: 3.0 ms against the named series'
 * 1.7 ms at session 58's start, where interleaved blocks of the two on warm gateways differ by 0.04 ms.
 *
 * (a) is measured twice: over the version's views (read_parquet), and over the same rows as native DuckDB tables,
 * as the gateway builds a small verified local table (versions/native-tables.ts).
 *
 * --before: another build's dist/src/cli/main.js (e.g. main's, built elsewhere), measured in the same
 * run, series by series next to this one: the point query's series, the dashboard at -c 1, and the
 * work each statement cost. --compare: only (a) and that comparison (no PostgreSQL, no -c 8, no SELECT 1).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import pg from 'pg';
import { serveForBench, type Served } from './bench-gateway.js';
import { CLI, copyFixtures } from '../test/support/gateway.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { RawPg } from '../test/support/raw-pg.js';
import { copySalesSchema } from '../test/support/sales-mirror.js';
import { repoVersions } from '../test/support/lake-fixtures.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { nativeTables } from '../src/versions/native-tables.js';
import { STAGES, WORKS } from '../src/stages.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) =>
  args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : dflt;
const N = opt('n', 300);
const SECONDS = opt('seconds', 5);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const beforeCli = args.includes('--before') ? args[args.indexOf('--before') + 1] : undefined;
const compareOnly = args.includes('--compare');
const WARMUP = opt('warmup', 500);
const log = (s: string) => process.stdout.write(s + '\n');
const ms = (x: number) => x.toFixed(3).padStart(8);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** p50/p99 ms of `fn`, and (with `cpu`, seconds so far of the process doing the work) its CPU µs per call. */
async function timed(
  n: number,
  fn: (i: number) => Promise<unknown>,
  cpu?: () => number,
  warmup = 30,
): Promise<{ p50: number; p99: number; cpuUs?: number }> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i); // warm up
  const cpu0 = cpu?.();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return { p50: pct(out, 50), p99: pct(out, 99), ...(cpu ? { cpuUs: ((cpu() - cpu0!) * 1e6) / n } : {}) };
}

/** The point query of the issue: a repeated text with new parameters. */
const POINT = 'select $1::int + order_id from sales.orders where order_id = $2';
const ORDERS = 50; // rows of sales.orders in the fixture's HEAD version

/** The dashboard: five small analytic queries with random parameters (pgbench's :name variables). */
const DASHBOARD = [
  'SELECT count(*), sum(amount) FROM sales.orders WHERE customer_id = :c',
  'SELECT status, count(*) FROM sales.orders WHERE qty >= :q GROUP BY status ORDER BY status',
  'SELECT c.name, sum(o.amount) AS total FROM sales.orders o JOIN sales.customers c ON c.customer_id = o.customer_id WHERE o.amount > :lo GROUP BY c.name ORDER BY total DESC, c.name LIMIT 5',
  'SELECT order_id, amount, status FROM sales.orders WHERE order_id = :o',
  "SELECT date_trunc('day', ordered_at) AS d, count(*) FROM sales.orders WHERE amount BETWEEN :lo AND :lo + 20 GROUP BY 1 ORDER BY 1",
];
const SETS = [
  '\\set c random(1, 20)',
  '\\set q random(1, 6)',
  '\\set lo random(0, 60)',
  `\\set o random(1, ${ORDERS})`,
];
const randomParams = () => ({
  c: 1 + Math.floor(Math.random() * 20),
  q: 1 + Math.floor(Math.random() * 6),
  lo: Math.floor(Math.random() * 60),
  o: 1 + Math.floor(Math.random() * ORDERS),
});
/** A dashboard query with DuckDB's $n for :name, and the names in order. */
const positional = (q: string) => {
  const names: string[] = [];
  const sql = q.replace(/:(\w+)/g, (_, n: string) => {
    if (!names.includes(n)) names.push(n);
    return `$${names.indexOf(n) + 1}`;
  });
  return { sql, names: names as (keyof ReturnType<typeof randomParams>)[] };
};

function serve(repo: string, cacheDir: string, resultCache = false, cli = CLI): Promise<Served> {
  const args = [...(resultCache ? [] : ['--result-cache-bytes', '0']), '--max-connections', '64'];
  return serveForBench({ cli, repo, cacheDir, args });
}

/** The gateway's stage seconds and work counts so far (/metrics). */
async function scrape(
  s: Served,
): Promise<{ stages: Map<string, number>; statements: number; work: Map<string, number> }> {
  // a kept-alive socket the server closed while idle fails once: ask again on a new one
  const get = () => fetch(`http://${s.http}/metrics`).then((r) => r.text());
  const text = await get().catch(get);
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  const stages = new Map(
    STAGES.map((st) => [st, num(new RegExp(`^fdl_statement_stage_seconds_sum\\{stage="${st}"\\} (\\S+)$`, 'm'))]),
  );
  const work = new Map(
    WORKS.map((w) => [w, num(new RegExp(`^fdl_statement_work_total\\{work="${w}"\\} (\\S+)$`, 'm'))]),
  );
  return { stages, statements: num(/^fdl_statement_stage_seconds_count\{stage="decode"\} (\S+)$/m), work };
}

type Split = { statements: number; us: Record<string, number>; work: Record<string, number> };
async function split(s: Served, run: () => Promise<unknown>): Promise<Split> {
  const a = await scrape(s);
  await run();
  const b = await scrape(s);
  const n = b.statements - a.statements;
  const us: Record<string, number> = {};
  for (const st of STAGES) us[st] = ((b.stages.get(st)! - a.stages.get(st)!) * 1e6) / n;
  const work: Record<string, number> = {};
  for (const w of WORKS) work[w] = (b.work.get(w)! - a.work.get(w)!) / n;
  return { statements: n, us, work };
}

/** CPU seconds of a process (with `children`: also of the children it reaped — PostgreSQL's backends). */
function cpuSeconds(pid: number, children: boolean): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  return (f[11]! + f[12]! + (children ? f[13]! + f[14]! : 0)) / CLK_TCK;
}
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** Wait for PostgreSQL's postmaster to reap the backends pgbench used (their CPU counts then). */
const settle = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);

/** This process's CPU seconds (in-process DuckDB's threads included). */
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const PGBENCH = join(process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pgbench');
type Target = { name: string; port: number; user: string; database: string };

/** pgbench's tps, and the server's CPU per transaction (µs; what the machine's load does not change much). */
function pgbench(
  t: Target,
  script: string,
  mode: string,
  clients: number,
  cpu: () => number,
): { tps: number; cpuUs: number } {
  const before = cpu();
  const r = spawnSync(
    PGBENCH,
    [
      '-n',
      '-f',
      script,
      '-M',
      mode,
      '-c',
      String(clients),
      '-j',
      String(Math.min(clients, 2)),
      '-T',
      String(SECONDS),
      '-h',
      '127.0.0.1',
      '-p',
      String(t.port),
      '-U',
      t.user,
      t.database,
    ],
    { encoding: 'utf8' },
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(r.stdout);
  const n = /number of transactions actually processed: (\d+)/.exec(r.stdout);
  if (r.status !== 0 || !tps || !n)
    throw new Error(`pgbench -M ${mode} -c ${clients} against ${t.name} failed: ${r.stderr || r.stdout}`);
  settle();
  return { tps: Number(tps[1]), cpuUs: ((cpu() - before) * 1e6) / Number(n[1]) };
}

/** In-process DuckDB running the dashboard (each query prepared once per connection) for SECONDS with `clients` connections. */
async function duckDashboard(conns: DuckDBConnection[]): Promise<{ tps: number; cpuUs: number }> {
  const cpu0 = process.cpuUsage();
  const deadline = performance.now() + SECONDS * 1000;
  let scripts = 0;
  await Promise.all(
    conns.map(async (conn) => {
      const qs: { p: DuckDBPreparedStatement; names: ReturnType<typeof positional>['names'] }[] = [];
      for (const q of DASHBOARD) {
        const { sql, names } = positional(q);
        qs.push({ p: await conn.prepare(sql), names });
      }
      while (performance.now() < deadline) {
        const v = randomParams();
        for (const { p, names } of qs) {
          names.forEach((n, i) => p.bindInteger(i + 1, v[n]));
          await p.runAndReadAll();
        }
        scripts++;
      }
      for (const { p } of qs) p.destroySync();
    }),
  );
  const used = process.cpuUsage(cpu0);
  return { tps: scripts / SECONDS, cpuUs: (used.user + used.system) / scripts };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-bench-cost-'));
  chmodSync(dir, 0o755);
  const repos = copyFixtures('repos/basic');
  const repo = repos.path('repos/basic');
  const head = repoVersions(repo, 'basic', null).find((v) => v.id === '01a23632-a230-7000-a827-2230f6ffa9fe')!;
  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    loadavg: loadavg(),
    n: N,
    seconds: SECONDS,
  };
  log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()} cores)`,
  );
  // (a): the version's views built by the gateway's own lake reader, over the same Parquet files
  // The gateway's own engine setting (engine/engine.ts): Parquet footers stay cached between queries.
  const instance = await DuckDBInstance.create(':memory:', { enable_object_cache: 'true' });
  const duckConn = async () => {
    const c = await instance.connect();
    await c.run("SET TimeZone = 'UTC'");
    return c;
  };
  const setup = await duckConn();
  const catalog = await openCatalog(setup, head.catalogFile, 'meta');
  const locate = (rel: string) => join(head.root, head.dataDir, rel);
  await attachCatalog(setup, catalog, 'lake', locate);
  // the same tables as the gateway builds them from a verified local version: native DuckDB tables where they fit
  const native = nativeTables(catalog, () => true);
  await attachCatalog(setup, catalog, 'lake_native', locate, { native });
  log(`in-process: views in lake, and ${native.size} of ${catalog.tables.length} tables native in lake_native`);
  await setup.run('USE lake');
  const duck = { conn: setup };
  const nativeConn = await duckConn();
  await nativeConn.run('USE lake_native');
  const gw = await serve(repo, join(repos.dir, 'cache'));
  const pgc = await startPgCluster({ settings: { TimeZone: 'UTC', max_connections: '50' } });
  const clients: pg.Client[] = [];
  const duckConns: DuckDBConnection[] = [duck.conn];
  const extraConns: DuckDBConnection[] = [];
  const connect = async (port: number, database: string, user: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port, user, database });
    await c.connect();
    clients.push(c);
    return c;
  };
  try {
    const raw = await RawPg.connect({ port: gw.port, user: 'bench', database: 'basic' });
    await copySalesSchema(pgc, raw);
    await raw.close();
    const g = await connect(gw.port, 'basic', 'bench');
    const p = await connect(pgc.port, 'postgres', 'postgres');

    // --- latency: the point query
    const vals = (i: number) => [1000 + (i & 0xff), 1 + (Math.abs(i) % ORDERS)];
    // a constant of its own in every text (comments alone no longer make a new text to the gateway)
    const constText = (i: number) => `${POINT} and ${i + 1} > 0`;
    /** (a) on `conn`: the point query prepared once, a new comment, a new constant each time. */
    const inProcess = async (conn: DuckDBConnection, base: number) => {
      const prepared = await conn.prepare(POINT);
      const point = await timed(
        N,
        async (i) => {
          const [a, b] = vals(i);
          prepared.bindInteger(1, a!);
          prepared.bindBigInt(2, BigInt(b!));
          await prepared.runAndReadAll();
        },
        selfCpu,
      );
      prepared.destroySync();
      const once = (text: (i: number) => string) =>
        timed(
          N,
          async (i) => {
            if (i < 0) i -= 1000; // warm-up texts are never measured texts
            const s = await conn.prepare(text(i));
            const [a, b] = vals(i);
            s.bindInteger(1, a!);
            s.bindBigInt(2, BigInt(b!));
            await s.runAndReadAll();
            s.destroySync();
          },
          selfCpu,
        );
      const newText = await once((i) => `${POINT} /* ${base + i} */`);
      const newConst = await once((i) => constText(i + base + 5000));
      return { point, newText, newConst };
    };
    const { point: duckPoint, newText: duckNewText, newConst: duckNewConst } = await inProcess(duck.conn, 0);
    const nativeIn = await inProcess(nativeConn, 100_000);
    log('\nin-process DuckDB, the point query: p50 / p99 ms (CPU µs) over the views → over native tables');
    for (const [label, v, n] of [
      ['new parameters (prepared once)', duckPoint, nativeIn.point],
      ['a new comment each time', duckNewText, nativeIn.newText],
      ['a new constant each time', duckNewConst, nativeIn.newConst],
    ] as const)
      log(
        `  ${label.padEnd(31)}${ms(v.p50)} /${ms(v.p99)} (${v.cpuUs!.toFixed(0).padStart(6)})  →  ${ms(n.p50)} /${ms(n.p99)} (${n.cpuUs!.toFixed(0).padStart(6)})`,
      );
    result.inProcessNative = nativeIn;
    const lat: Record<string, { p50: number; p99: number; cpuUs?: number }> = {};
    const gwSplit: Record<string, Split> = {};
    const series = (c: pg.Client, tag: string) => ({
      unnamed: (i: number) => c.query({ text: POINT, values: vals(i) }),
      named: (i: number) => c.query({ name: `point_${tag}`, text: POINT, values: vals(i) }),
      newText: (i: number) => c.query({ text: `${POINT} /* ${tag} ${i} */`, values: vals(i) }),
      newConst: (i: number) => c.query({ text: constText(i + (tag === 'gateway' ? 10_000 : 20_000)), values: vals(i) }),
    });
    for (const [target, c] of compareOnly
      ? []
      : ([
          ['gateway', g],
          ['postgres', p],
        ] as const)) {
      for (const [kind, fn] of Object.entries(series(c, target))) {
        if (target === 'gateway')
          gwSplit[kind] = await split(
            gw,
            async () => (lat[`${target} ${kind}`] = await timed(N, fn, () => cpuSeconds(gw.proc.pid!, false), WARMUP)),
          );
        else lat[`${target} ${kind}`] = await timed(N, fn);
      }
    }
    const script = join(dir, 'dashboard.sql');
    writeFileSync(script, [...SETS, ...DASHBOARD.map((q) => `${q};`)].join('\n') + '\n');
    if (compareOnly) {
      const d = await duckDashboard([duck.conn]);
      const n = await duckDashboard([nativeConn]);
      log(
        `\nin-process DuckDB, the dashboard script at -c 1: ${d.tps.toFixed(1)} scripts/s (${(d.cpuUs / 1000).toFixed(1)} CPU ms) over the views → ${n.tps.toFixed(1)} (${(n.cpuUs / 1000).toFixed(1)}) over native tables`,
      );
      result.tps = { 'duckdb c1': d, 'duckdb native c1': n };
      if (beforeCli)
        result.beforeAfter = await beforeAfter(
          beforeCli,
          repo,
          join(repos.dir, 'cache-before'),
          gw,
          g,
          script,
          gwCpu0(gw),
        );
      if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
      return;
    }
    log('\npoint query `' + POINT + '`, one client, p50 / p99 ms (gateway: result cache off)');
    log(
      '                                 in-process DuckDB      gateway          PostgreSQL 15    gateway − DuckDB p50   CPU µs: DuckDB gateway',
    );
    const row = (label: string, d: { p50: number; p99: number; cpuUs?: number }, kind: string) => {
      const gl = lat[`gateway ${kind}`]!;
      const pl = lat[`postgres ${kind}`]!;
      log(
        `  ${label.padEnd(31)}${ms(d.p50)} /${ms(d.p99)}  ${ms(gl.p50)} /${ms(gl.p99)}  ${ms(pl.p50)} /${ms(pl.p99)}  ${ms(gl.p50 - d.p50)}   ${d.cpuUs!.toFixed(0).padStart(6)} ${gl.cpuUs!.toFixed(0).padStart(6)}`,
      );
    };
    row('new parameters, unnamed', duckPoint, 'unnamed');
    row('new parameters, named', duckPoint, 'named');
    row('a new comment each time', duckNewText, 'newText');
    row('a new constant each time', duckNewConst, 'newConst');
    result.latency = { duckPoint, duckNewText, duckNewConst, ...lat };

    // --- throughput: the dashboard script, and SELECT 1
    const select1 = join(dir, 'select1.sql');
    writeFileSync(select1, 'SELECT 1;\n');
    const gwT: Target = { name: 'gateway', port: gw.port, user: 'bench', database: 'basic' };
    const pgT: Target = { name: 'PostgreSQL', port: pgc.port, user: 'postgres', database: 'postgres' };
    const tps: Record<string, { tps: number; cpuUs: number }> = {};
    const gwCpu = gwCpu0(gw);
    const postmaster = Number(readFileSync(join(pgc.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const pgCpu = () => cpuSeconds(postmaster, true);
    for (let i = 1; i < 8; i++) {
      const c = await duckConn();
      await c.run('USE lake');
      duckConns.push(c);
    }
    const nativeConns = [nativeConn];
    for (let i = 1; i < 8; i++) {
      const c = await duckConn();
      await c.run('USE lake_native');
      nativeConns.push(c);
      extraConns.push(c);
    }
    const f = (r: { tps: number; cpuUs: number }) =>
      `${r.tps.toFixed(1).padStart(8)} (${(r.cpuUs / 1000).toFixed(1).padStart(6)})`;
    log(
      `\ndashboard script (${DASHBOARD.length} queries, random parameters): scripts per second over ${SECONDS} s (CPU ms per script); gateway result cache off`,
    );
    log(
      '                       in-process DuckDB          gateway    PostgreSQL 15   gateway ÷ DuckDB tps (CPU)   gateway ÷ PostgreSQL tps',
    );
    for (const c of [1, 8]) {
      const d = (tps[`duckdb c${c}`] = await duckDashboard(duckConns.slice(0, c)));
      const n = (tps[`duckdb native c${c}`] = await duckDashboard(nativeConns.slice(0, c)));
      log(`  in-process DuckDB over native tables -c ${c}: ${f(n)}`);
      for (const mode of ['simple', 'extended', 'prepared']) {
        const key = `${mode} c${c}`;
        gwSplit[`dashboard ${key}`] = await split(
          gw,
          async () => (tps[`gateway ${key}`] = pgbench(gwT, script, mode, c, gwCpu)),
        );
        const g = tps[`gateway ${key}`]!;
        const q = (tps[`postgres ${key}`] = pgbench(pgT, script, mode, c, pgCpu));
        log(
          `  -M ${mode.padEnd(8)} -c ${c}  ${f(d)}  ${f(g)}  ${f(q)}   ${(g.tps / d.tps).toFixed(2).padStart(8)}× (${(d.cpuUs / g.cpuUs).toFixed(2)}×)   ${(g.tps / q.tps).toFixed(2).padStart(8)}×`,
        );
      }
    }
    // SELECT 1 as deployed (the result cache on: a gateway of its own) and with it off
    const cached = await serve(repo, join(repos.dir, 'cache-on'), true);
    try {
      const cachedT: Target = { ...gwT, port: cached.port };
      const cachedCpu = () => cpuSeconds(cached.proc.pid!, false);
      log('\n`SELECT 1` -M extended, transactions per second (server CPU µs per statement)');
      for (const c of [1, 8]) {
        const on = (tps[`gateway cache on select1 c${c}`] = pgbench(cachedT, select1, 'extended', c, cachedCpu));
        const off = (tps[`gateway select1 c${c}`] = pgbench(gwT, select1, 'extended', c, gwCpu));
        const pt = (tps[`postgres select1 c${c}`] = pgbench(pgT, select1, 'extended', c, pgCpu));
        log(
          `  -c ${c}   gateway (result cache on) ${on.tps.toFixed(0).padStart(6)} (${on.cpuUs.toFixed(0)})   off ${off.tps.toFixed(0).padStart(6)} (${off.cpuUs.toFixed(0)})   PostgreSQL 15 ${pt.tps.toFixed(0).padStart(6)} (${pt.cpuUs.toFixed(0)})   ratio on ${(on.tps / pt.tps).toFixed(2)}×, off ${(off.tps / pt.tps).toFixed(2)}×`,
        );
      }
    } finally {
      cached.proc.kill('SIGTERM');
    }
    result.tps = tps;

    log("\nthe gateway's time per statement by stage (µs, mean), and work per statement");
    log(`  ${'series'.padEnd(26)}${STAGES.map((s) => s.slice(0, 10).padStart(11)).join('')}`);
    for (const [name, s] of Object.entries(gwSplit)) {
      log(`  ${name.padEnd(26)}${STAGES.map((st) => s.us[st]!.toFixed(0).padStart(11)).join('')}`);
    }
    log(`  ${'series'.padEnd(26)}${WORKS.map((w) => w.slice(0, 13).padStart(14)).join('')}`);
    for (const [name, s] of Object.entries(gwSplit)) {
      log(`  ${name.padEnd(26)}${WORKS.map((w) => s.work[w]!.toFixed(2).padStart(14)).join('')}`);
    }
    result.stages = gwSplit;
    if (beforeCli)
      result.beforeAfter = await beforeAfter(beforeCli, repo, join(repos.dir, 'cache-before'), gw, g, script, gwCpu);
    log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    result.loadavgEnd = loadavg();
    if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    gw.proc.kill('SIGTERM');
    await pgc.stop();
    for (const c of duckConns) c.closeSync();
    for (const c of [nativeConn, ...extraConns]) c.closeSync();
    instance.closeSync();
    repos.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The gateway's own CPU seconds so far. */
const gwCpu0 = (gw: Served) => () => cpuSeconds(gw.proc.pid!, false);

/**
 * Another build (`cli`) next to this run's gateway, series by series, interleaved so the machine's
 * load falls on both alike: p50/p99 ms, the gateway's CPU µs per statement, and its work per statement.
 */
async function beforeAfter(
  cli: string,
  repo: string,
  cacheDir: string,
  gw: Served,
  g: pg.Client,
  script: string,
  gwCpu: () => number,
) {
  const old = await serve(repo, cacheDir, false, cli);
  const c = new pg.Client({ host: '127.0.0.1', port: old.port, user: 'bench', database: 'basic' });
  await c.connect();
  const out: Record<string, { before: unknown; after: unknown }> = {};
  try {
    const vals = (i: number) => [1000 + (i & 0xff), 1 + (Math.abs(i) % ORDERS)];
    const kinds = {
      unnamed: (k: pg.Client) => (i: number) => k.query({ text: POINT, values: vals(i) }),
      named: (k: pg.Client) => (i: number) => k.query({ name: 'point_ba', text: POINT, values: vals(i) }),
      newText: (k: pg.Client) => (i: number) => k.query({ text: `${POINT} /* ba ${i} */`, values: vals(i) }),
      newConst: (k: pg.Client) => (i: number) =>
        k.query({ text: `${POINT} and ${i + (k === c ? 30_000 : 40_000)} > 0`, values: vals(i) }),
    };
    const workLine = (w: Record<string, number>) =>
      WORKS.filter((x) => w[x]! > 0)
        .map((x) => `${x} ${w[x]!.toFixed(2)}`)
        .join(', ');
    log(
      '\nbefore (' +
        cli +
        ') → after (this build), same run: p50 / p99 ms, gateway CPU µs per statement; work per statement',
    );
    for (const [kind, make] of Object.entries(kinds)) {
      let b: Awaited<ReturnType<typeof timed>> | undefined;
      let a: Awaited<ReturnType<typeof timed>> | undefined;
      const bs = await split(
        old,
        async () => (b = await timed(N, make(c), () => cpuSeconds(old.proc.pid!, false), WARMUP)),
      );
      const as = await split(
        gw,
        async () => (a = await timed(N, make(g), () => cpuSeconds(gw.proc.pid!, false), WARMUP)),
      );
      out[kind] = { before: { ...b, work: bs.work, us: bs.us }, after: { ...a, work: as.work, us: as.us } };
      log(
        `  ${kind.padEnd(10)} ${ms(b!.p50)} /${ms(b!.p99)} (${b!.cpuUs!.toFixed(0).padStart(6)})  →  ${ms(a!.p50)} /${ms(a!.p99)} (${a!.cpuUs!.toFixed(0).padStart(6)})`,
      );
      log(`             before: ${workLine(bs.work)}`);
      log(`             after:  ${workLine(as.work)}`);
    }
    const oldT: Target = { name: 'before', port: old.port, user: 'bench', database: 'basic' };
    const newT: Target = { name: 'after', port: gw.port, user: 'bench', database: 'basic' };
    for (const mode of ['simple', 'extended', 'prepared']) {
      const bs = await split(
        old,
        async () =>
          (out[`dashboard ${mode}`] = {
            before: pgbench(oldT, script, mode, 1, () => cpuSeconds(old.proc.pid!, false)),
            after: undefined,
          }),
      );
      const as = await split(gw, async () => (out[`dashboard ${mode}`]!.after = pgbench(newT, script, mode, 1, gwCpu)));
      const [x, y] = [
        out[`dashboard ${mode}`]!.before as { tps: number; cpuUs: number },
        out[`dashboard ${mode}`]!.after as { tps: number; cpuUs: number },
      ];
      log(
        `  dashboard -M ${mode.padEnd(8)} -c 1: ${x.tps.toFixed(1)} scripts/s (${(x.cpuUs / 1000).toFixed(1)} CPU ms)  →  ${y.tps.toFixed(1)} (${(y.cpuUs / 1000).toFixed(1)})`,
      );
      log(`             before: ${workLine(bs.work)}`);
      log(`             after:  ${workLine(as.work)}`);
    }
  } finally {
    await c.end().catch(() => undefined);
    old.proc.kill('SIGTERM');
  }
  return out;
}

await main();
