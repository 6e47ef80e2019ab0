/**
 * Wire throughput and latency, gateway vs PostgreSQL 15, in one run (issue 4):
 *  - the same N-row table (bigint, int, double, varchar, timestamp; default 5,000,000 rows), computed
 *    by the same formulas in DuckDB (written to Parquet, imported with `fdl import`) and in a private
 *    PostgreSQL 15 cluster (generate_series);
 *  - rows/s of `SELECT *` streamed to node-postgres (rows consumed one by one, not accumulated) and to
 *    `psql > /dev/null`, for both; ratio gateway ÷ PostgreSQL;
 *  - `SELECT 1` round trip p50/p99 with 1 and 32 concurrent clients, for both; ratio;
 *  - in-process DuckDB (@duckdb/node-api, same SELECT over the same Parquet) for reference;
 *  - protocol paths: a parameterised point query via node-postgres unnamed vs named (ratio), and
 *    pgbench -M simple/extended/prepared `SELECT 1` tps, gateway (result cache on and off) vs PostgreSQL;
 *  - a CPU profile (node --cpu-prof) of the gateway while streaming to node-postgres: top self-time.
 *
 *   npx tsc -p . && node dist/bench/wire.js [--rows 5000000] [--runs 2] [--no-profile] [--json FILE]
 *     [--only stream|latency|protocol] [--pgbench-seconds 5] [--pgbench-clients 4] [--pgbench-rounds 3]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { CLI, startGateway, type RunningGateway } from '../test/support/gateway.js';
import { startPgCluster } from '../test/support/pg-cluster.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROWS = opt('rows', 5_000_000);
const RUNS = opt('runs', 2);
const PROFILE = !args.includes('--no-profile');
/** `--only stream` or `--only latency` runs one half. */
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const PSQL = join(process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin', 'psql');

const fmt = (n: number) => Math.round(n).toLocaleString('en');
const log = (s: string) => process.stdout.write(s + '\n');

interface Target {
  name: string;
  host: string;
  port: number;
  user: string;
  database: string;
  table: string;
  options?: string;
}

/** SELECT * through node-postgres, rows handed out one at a time and dropped (no accumulation). */
async function streamPg(t: Target): Promise<number> {
  const c = new pg.Client({ host: t.host, port: t.port, user: t.user, database: t.database });
  await c.connect();
  try {
    const t0 = performance.now();
    let n = 0;
    await new Promise<void>((resolve, reject) => {
      const q = c.query(
        new pg.Query({ text: `SELECT * FROM ${t.table}`, rowMode: 'array' } as any),
      ) as unknown as pg.Query;
      q.on('row', () => {
        n++;
      });
      q.on('end', () => resolve());
      q.on('error', reject);
    });
    const s = (performance.now() - t0) / 1000;
    if (n !== ROWS) throw new Error(`${t.name}: node-postgres got ${n} rows, expected ${ROWS}`);
    return ROWS / s;
  } finally {
    await c.end();
  }
}

/** SELECT * through psql into /dev/null (unaligned, as fast as psql prints). */
async function streamPsql(t: Target): Promise<number> {
  const t0 = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(
      PSQL,
      [
        '-X',
        '-q',
        '-A',
        '-t',
        '-h',
        t.host,
        '-p',
        String(t.port),
        '-U',
        t.user,
        '-d',
        t.database,
        '-c',
        `SELECT * FROM ${t.table}`,
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
      },
    );
    p.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`${t.name}: psql exited with ${code}`);
  return ROWS / ((performance.now() - t0) / 1000);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** SELECT 1 round trips with `clients` connections, each running `perClient` queries back to back. */
async function select1(
  t: Target,
  clients: number,
  perClient: number,
  sql = 'SELECT 1',
  warmUp = 500,
): Promise<{ p50: number; p99: number; qps: number }> {
  const cs = await Promise.all(
    Array.from({ length: clients }, async () => {
      const c = new pg.Client({ host: t.host, port: t.port, user: t.user, database: t.database, options: t.options });
      await c.connect();
      for (let i = 0; i < warmUp; i++) await c.query(sql); // warm-up: steady state (JIT), for both servers
      return c;
    }),
  );
  const lat: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    cs.map(async (c) => {
      for (let i = 0; i < perClient; i++) {
        const s = performance.now();
        await c.query(sql);
        lat.push(performance.now() - s);
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  await Promise.all(cs.map((c) => c.end()));
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p99: pct(lat, 99), qps: lat.length / wall };
}

/**
 * Parameterised point query through node-postgres, unnamed (Parse/Bind/Execute every time) and named
 * (parsed once), interleaved on one client so both series see the same load and warmth. Each binds
 * values of its own: with the result cache on, neither is answered from what the other recorded.
 */
async function paramQuery(
  t: Target,
  n: number,
): Promise<{ unnamed: { p50: number; mean: number }; named: { p50: number; mean: number } }> {
  const c = new pg.Client({ host: t.host, port: t.port, user: t.user, database: t.database, options: t.options });
  await c.connect();
  try {
    const text = `SELECT id, s FROM ${t.table} WHERE id = $1`;
    // Both series read ids inside the table (even for unnamed, odd for named), so neither is answered
    // by Parquet min/max statistics alone, and neither replays the other's cached results.
    const run = (named: boolean, i: number) => {
      const id = 2 * i + (named ? 1 : 0);
      return c.query(named ? { name: 'point', text, values: [id] } : { text, values: [id] });
    };
    for (let i = 0; i < 200; i++) await run(i % 2 === 0, i); // warm-up
    const lat: [number[], number[]] = [[], []];
    for (let i = 0; i < 2 * n; i++) {
      const named = i % 2 === 1;
      const s = performance.now();
      await run(named, 1000 + (i >> 1));
      lat[named ? 1 : 0].push(performance.now() - s);
    }
    const stats = (xs: number[]) => ({
      p50: pct(
        [...xs].sort((a, b) => a - b),
        50,
      ),
      mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    });
    return { unnamed: stats(lat[0]), named: stats(lat[1]) };
  } finally {
    await c.end();
  }
}

const PGBENCH = join(process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pgbench');

/** CPU seconds a process has used (with `children`, also those of children it has waited for: PostgreSQL's backends). */
function cpuSeconds(pid: number, children: boolean): number {
  // /proc/PID/stat: fields after the ")" of the command name; utime, stime, cutime, cstime are 14–17
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  const ticks = f[11]! + f[12]! + (children ? f[13]! + f[14]! : 0);
  return ticks / CLK_TCK;
}
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * pgbench, and the server's CPU per statement in that run (µs; independent of how busy the machine
 * is, unlike tps): `cpu` reads the server's CPU seconds so far.
 */
function pgbenchCpu(
  t: Target,
  mode: 'simple' | 'extended' | 'prepared',
  clients: number,
  seconds: number,
  dir: string,
  cpu: () => number,
): { tps: number; cpuUs: number } {
  const before = cpu();
  const r = pgbenchRun(t, mode, clients, seconds, dir);
  // PostgreSQL's backends count once the postmaster has reaped them, just after pgbench disconnects
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  return { tps: r.tps, cpuUs: ((cpu() - before) * 1e6) / r.transactions };
}

/** `pgbench -M mode` running `SELECT 1;` for `seconds` with `clients` connections: tps and transactions. */
function pgbenchRun(
  t: Target,
  mode: 'simple' | 'extended' | 'prepared',
  clients: number,
  seconds: number,
  dir: string,
): { tps: number; transactions: number } {
  const script = join(dir, 'select1.sql');
  writeFileSync(script, 'SELECT 1;\n');
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
      String(seconds),
      '-h',
      t.host,
      '-p',
      String(t.port),
      '-U',
      t.user,
      t.database,
    ],
    { encoding: 'utf8', env: { ...process.env, PGOPTIONS: t.options ?? '' } },
  );
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(r.stdout);
  const n = /number of transactions actually processed: (\d+)/.exec(r.stdout);
  if (r.status !== 0 || !m || !n)
    throw new Error(`pgbench -M ${mode} against ${t.name} failed: ${r.stderr || r.stdout}`);
  return { tps: Number(m[1]), transactions: Number(n[1]) };
}

/** Self time per function from a .cpuprofile, top `n`. */
export function topSelf(profileFile: string, n = 15): { fn: string; pct: number }[] {
  const prof = JSON.parse(readFileSync(profileFile, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((nd) => [nd.id, nd]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const nd = byId.get(prof.samples[i]!)!;
    const dt = prof.timeDeltas[i] ?? 0;
    const cf = nd.callFrame;
    const url = cf.url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules)\//, '$1/');
    const key = `${cf.functionName || '(anonymous)'} ${url ? `${url}:${cf.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, us]) => ({ fn, pct: (100 * us) / total }));
}

/** `fdl serve` under `node --cpu-prof` (profile written when it exits on SIGTERM). */
async function spawnProfiled(repo: string, profDir: string): Promise<{ port: number; stop(): Promise<void> }> {
  const proc = spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${profDir}`,
      CLI,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--repo',
      `bench=${repo}`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /listening on .+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (c) => reject(new Error(`profiled gateway exited with ${c}`)));
  });
  return {
    port,
    stop: () =>
      new Promise<void>((r) => {
        const t = setTimeout(() => proc.kill('SIGKILL'), 20_000);
        proc.removeAllListeners('exit');
        proc.once('exit', () => {
          clearTimeout(t);
          r();
        });
        proc.kill('SIGTERM');
      }),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-bench-wire-'));
  chmodSync(dir, 0o755);
  const result: Record<string, unknown> = { rows: ROWS, runs: RUNS, date: new Date().toISOString() };
  const pgc = await startPgCluster({ settings: { max_connections: '100', shared_buffers: '512MB' } });
  let gw: RunningGateway | undefined;
  try {
    // --- data: same formulas in both engines
    let t = performance.now();
    const parquet = join(dir, 't.parquet');
    const inst = await DuckDBInstance.create(':memory:');
    const dconn = await inst.connect();
    await dconn.run(`COPY (SELECT i::BIGINT AS id, (i % 1000000)::INTEGER AS n, (i * 1.5)::DOUBLE AS x, 'name_' || i AS s,
        TIMESTAMP '2024-01-01' + to_seconds(i) AS ts FROM range(${ROWS}) r(i)) TO '${parquet}' (FORMAT parquet)`);
    log(`parquet: ${ROWS} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const repo = join(dir, 'repo');
    for (const a of [
      ['init', repo],
      ['import', repo, '--table', `main.t=${parquet}`, '--message', 'bench'],
    ]) {
      const r = spawnSync(process.execPath, [CLI, ...a], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`fdl ${a[0]} failed: ${r.stderr}`);
    }
    log(`fdl init+import: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    pgc.psql(`CREATE TABLE t AS SELECT i::bigint AS id, (i % 1000000)::int AS n, i * 1.5::float8 AS x, 'name_' || i AS s,
        timestamp '2024-01-01' + make_interval(secs => i) AS ts FROM generate_series(0, ${ROWS - 1}) i; VACUUM ANALYZE t;`);
    log(`postgres load: ${((performance.now() - t) / 1000).toFixed(1)} s`);

    gw = await startGateway(['--repo', `bench=${repo}`, '--log-level', 'warn']);
    const G: Target = {
      name: 'gateway',
      host: gw.host,
      port: gw.port,
      user: 'bench',
      database: 'bench',
      table: 'main.t',
    };
    const P: Target = {
      name: 'postgres',
      host: pgc.host,
      port: pgc.port,
      user: 'postgres',
      database: 'postgres',
      table: 't',
    };

    // sanity: the same first row on both sides (text)
    const first = async (x: Target) => {
      const c = new pg.Client({ host: x.host, port: x.port, user: x.user, database: x.database });
      await c.connect();
      const r = await c.query(`SELECT id::text, n::text, x::text, s, ts::text FROM ${x.table} WHERE id = 12345`);
      await c.end();
      return JSON.stringify(Object.values(r.rows[0]));
    };
    const [fg, fp] = [await first(G), await first(P)];
    log(`row 12345: gateway ${fg} / postgres ${fp}${fg === fp ? '' : '  (DIFFERENT)'}`);

    // --- streaming
    const best = async (f: () => Promise<number>) => {
      let b = 0;
      for (let i = 0; i < RUNS; i++) b = Math.max(b, await f());
      return b;
    };
    const stream: Record<string, Record<string, number>> = {};
    for (const [label, f] of ONLY === 'latency' || ONLY === 'protocol'
      ? []
      : ([
          ['node-postgres', streamPg],
          ['psql', streamPsql],
        ] as const)) {
      // Interleaved (gateway, postgres, gateway, ...) so a burst of load on the shared machine hits
      // both sides alike; best of each, and the median of the per-round ratios.
      // One unmeasured run each first: servers are measured warm (JIT-compiled encoders, caches),
      // as the SELECT 1 clients below are.
      await f(G);
      await f(P);
      let g = 0,
        p = 0;
      const rounds: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const gi = await f(G),
          pi = await f(P);
        g = Math.max(g, gi);
        p = Math.max(p, pi);
        rounds.push(gi / pi);
      }
      rounds.sort((a, b) => a - b);
      const median = rounds[Math.floor(rounds.length / 2)]!;
      stream[label] = { gateway: g, postgres: p, ratio: g / p, medianRoundRatio: median };
      log(
        `SELECT * → ${label.padEnd(13)} gateway ${fmt(g).padStart(11)} rows/s   postgres ${fmt(p).padStart(11)} rows/s   ratio ${(g / p).toFixed(2)}× (target ≥ 1.0×), per round ${rounds.map((r) => r.toFixed(2)).join(' ')}`,
      );
    }
    // in-process DuckDB over the same Parquet (fetch every chunk; values stay in DuckDB vectors)
    if (ONLY !== 'latency' && ONLY !== 'protocol') {
      const duck = await best(async () => {
        const t0 = performance.now();
        const r = await dconn.stream(`SELECT * FROM read_parquet('${parquet}')`);
        let n = 0;
        for (;;) {
          const c = await r.fetchChunk();
          if (!c || c.rowCount === 0) break;
          n += c.rowCount;
        }
        if (n !== ROWS) throw new Error(`duckdb got ${n}`);
        return ROWS / ((performance.now() - t0) / 1000);
      });
      const duckRows = await best(async () => {
        const t0 = performance.now();
        const r = await dconn.stream(`SELECT * FROM read_parquet('${parquet}')`);
        let n = 0;
        for (;;) {
          const c = await r.fetchChunk();
          if (!c || c.rowCount === 0) break;
          n += c.getRows().length;
        }
        return n / ((performance.now() - t0) / 1000);
      });
      stream.duckdbInProcess = {
        chunks: duck,
        jsRows: duckRows,
        gatewayNodePgRatio: stream['node-postgres']!.gateway! / duck,
      };
      log(
        `in-process DuckDB: ${fmt(duck)} rows/s (chunks only), ${fmt(duckRows)} rows/s (materialised as JS rows); gateway→node-postgres is ${((stream['node-postgres']!.gateway! / duck) * 100).toFixed(1)}% of the chunk rate`,
      );
      result.stream = stream;
    }

    // --- SELECT 1 latency: as clients see it (the result cache answers a repeated SELECT 1), and
    // with the cache off for the session (every statement runs through DuckDB).
    const lat: Record<string, unknown> = {};
    const uncached: Target = { ...G, name: 'gateway, result cache off', options: '-c fdl.result_cache=off' };
    for (const [clients, per] of ONLY === 'stream' || ONLY === 'protocol'
      ? []
      : ([
          [1, 3000],
          [32, 300],
        ] as const)) {
      const p = await select1(P, clients, per);
      for (const [label, target] of [
        ['gateway', G],
        ['gateway, cache off', uncached],
      ] as const) {
        const g = await select1(target, clients, per);
        lat[`c${clients}${target === G ? '' : '_uncached'}`] = {
          gateway: g,
          postgres: p,
          p50Ratio: g.p50 / p.p50,
          p99Ratio: g.p99 / p.p99,
        };
        log(
          `SELECT 1, ${String(clients).padStart(2)} client(s): ${label.padEnd(18)} p50 ${g.p50.toFixed(3)} ms p99 ${g.p99.toFixed(3)} ms (${fmt(g.qps)} q/s)   postgres p50 ${p.p50.toFixed(3)} ms p99 ${p.p99.toFixed(3)} ms (${fmt(p.qps)} q/s)   p50 ratio ${(g.p50 / p.p50).toFixed(2)}× (target ≤ 2×), p99 ratio ${(g.p99 / p.p99).toFixed(2)}×`,
        );
      }
    }
    result.select1 = lat;

    // --- protocol paths (issue 15): the unnamed extended path against the named one, and pgbench's
    // three query modes, gateway and PostgreSQL side by side.
    if (ONLY === undefined || ONLY === 'protocol') {
      const proto: Record<string, unknown> = {};
      const N = 2000;
      for (const x of [P, G, uncached]) {
        const { unnamed, named } = await paramQuery(x, N);
        proto[`params_${x.name}`] = { unnamed, named, ratio: unnamed.mean / named.mean };
        log(
          `WHERE id = $1 via node-postgres, ${x.name.padEnd(26)} unnamed p50 ${unnamed.p50.toFixed(3)} ms mean ${unnamed.mean.toFixed(3)} ms   named p50 ${named.p50.toFixed(3)} ms mean ${named.mean.toFixed(3)} ms   unnamed/named ${(unnamed.mean / named.mean).toFixed(2)}× (target ≤ 1.5×)`,
        );
      }
      const SECONDS = opt('pgbench-seconds', 5);
      const CLIENTS = opt('pgbench-clients', 4);
      const ROUNDS = opt('pgbench-rounds', 3);
      // server CPU per statement: the gateway process; PostgreSQL's postmaster with the backends it reaped
      const postmaster = Number(readFileSync(join(pgc.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const pgCpu = () => cpuSeconds(postmaster, true);
      const gwCpu = () => cpuSeconds(gw!.proc.pid!, false);
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      for (const mode of ['simple', 'extended', 'prepared'] as const) {
        // Warm (JIT-compiled hot paths, caches), then rounds that alternate the servers so a burst of
        // load on the shared machine hits both alike: the median of the per-round ratios.
        for (const t of [P, G]) pgbenchRun(t, mode, CLIENTS, 1, dir);
        const rounds: { p: { tps: number; cpuUs: number }; g: { tps: number; cpuUs: number } }[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const p = pgbenchCpu(P, mode, CLIENTS, SECONDS, dir, pgCpu);
          rounds.push({ p, g: pgbenchCpu(G, mode, CLIENTS, SECONDS, dir, gwCpu) });
        }
        const gu = pgbenchCpu(uncached, mode, CLIENTS, SECONDS, dir, gwCpu);
        const ratios = rounds.map((x) => x.g.tps / x.p.tps);
        const ratio = median(ratios);
        const p = { tps: median(rounds.map((x) => x.p.tps)), cpuUs: median(rounds.map((x) => x.p.cpuUs)) };
        const g = { tps: median(rounds.map((x) => x.g.tps)), cpuUs: median(rounds.map((x) => x.g.cpuUs)) };
        proto[`pgbench_${mode}`] = {
          postgres: p.tps,
          gateway: g.tps,
          gatewayCacheOff: gu.tps,
          ratio,
          ratios,
          ratioCacheOff: gu.tps / p.tps,
          cpuUsPerStatement: { postgres: p.cpuUs, gateway: g.cpuUs, gatewayCacheOff: gu.cpuUs },
        };
        log(
          `pgbench -M ${mode.padEnd(8)} SELECT 1, ${CLIENTS} clients ${SECONDS} s, median of ${ROUNDS}: postgres ${fmt(p.tps).padStart(7)} tps   gateway ${fmt(g.tps).padStart(7)} tps (${ratio.toFixed(2)}×; rounds ${ratios.map((x) => x.toFixed(2)).join(' ')})   gateway, cache off ${fmt(gu.tps).padStart(7)} tps (${(gu.tps / p.tps).toFixed(2)}×)${mode === 'extended' ? ' (target ≥ 0.5×)' : ''}`,
        );
        log(
          `  server CPU per statement: postgres ${p.cpuUs.toFixed(0)} µs   gateway ${g.cpuUs.toFixed(0)} µs   gateway, cache off ${gu.cpuUs.toFixed(0)} µs`,
        );
      }
      result.protocol = proto;
    }

    // --- a dashboard's repeated aggregate over the whole table (what the result cache is for)
    if (ONLY !== 'stream' && ONLY !== 'protocol') {
      const agg = (table: string) =>
        `SELECT n % 7 AS k, count(*), sum(x) FROM ${table} WHERE n < 500000 GROUP BY 1 ORDER BY 1`;
      const p = await select1(P, 1, 20, agg(P.table), 2);
      const dash: Record<string, unknown> = { postgres: p };
      for (const [label, target] of [
        ['gateway', G],
        ['gateway, cache off', uncached],
      ] as const) {
        const g = await select1(target, 1, 20, agg(G.table), 2);
        dash[label] = g;
        log(
          `repeated aggregate over ${fmt(ROWS)} rows: ${label.padEnd(18)} p50 ${g.p50.toFixed(3)} ms   postgres p50 ${p.p50.toFixed(3)} ms   PostgreSQL takes ${(p.p50 / g.p50).toFixed(1)}× as long`,
        );
      }
      result.repeatedAggregate = dash;
    }
    dconn.closeSync();
    inst.closeSync();
    await gw.stop();
    gw = undefined;

    // --- profile of the streaming path
    if (PROFILE) {
      const profDir = join(dir, 'prof');
      // --cpu-prof is refused in NODE_OPTIONS: spawn the gateway with the flag ourselves.
      for (const [what, run] of [
        [
          'streaming SELECT * to node-postgres',
          async (x: Target) => log(`profiled run (node-postgres): ${fmt(await streamPg(x))} rows/s`),
        ],
        [
          'SELECT 1 x 3000, 1 client',
          async (x: Target) => log(`profiled run (SELECT 1): p50 ${(await select1(x, 1, 3000)).p50.toFixed(3)} ms`),
        ],
      ] as const) {
        const d = join(profDir, String(what.length));
        const pgw = await spawnProfiled(repo, d);
        try {
          await run({ ...G, host: '127.0.0.1', port: pgw.port });
        } finally {
          await pgw.stop();
        }
        const files = readdirSync(d).filter((f) => f.endsWith('.cpuprofile'));
        if (!files.length) {
          log('no .cpuprofile written');
          continue;
        }
        const top = topSelf(join(d, files[0]!));
        result.profile ??= {} as Record<string, unknown>;
        (result.profile as Record<string, unknown>)[what] = top;
        log(`gateway CPU profile, ${what}, top self time:`);
        for (const x of top) log(`  ${x.pct.toFixed(1).padStart(5)}%  ${x.fn}`);
      }
    }
  } finally {
    await gw?.stop();
    await pgc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(result, null, 2));
}

await main();
