/**
 * The gateway's CPU per new statement text (issue 26), by stage, and per catalog start-up statement
 * (issue 24): the point query with a new comment each time, a dashboard's query with new literals,
 * and sqlsmith's catalog start-up query (`select unnest(proargtypes) from pg_proc where oid = 'N'`,
 * one text per function), each through
 * the gateway with the result cache off. CPU of the gateway process (DuckDB's threads included), read
 * from /proc, so the machine's load moves it less than latency; the split by stage from its own
 * counters (/metrics), read as CPU time (the gateways run with FDL_STAGE_CLOCK=cpu, src/stages.ts; a build
 * older than that clock reports wall time there); "other" is the CPU outside every stage (the wire's
 * reads and writes, the event loop, GC). With --before, another build runs the same series interleaved,
 * in the same run.
 *
 *   npx tsc -p . && node dist/bench/new-text-cost.js [--n 300] [--rounds 3] [--warmup 100] [--before <cli>] [--prof <dir>] [--only <series>]
 *
 * --prof: the gateway runs under `node --cpu-prof` and writes its profile there at exit.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { serveForBench, type Served } from './bench-gateway.js';
import { CLI, copyFixtures } from '../test/support/gateway.js';
import { STAGES, WORKS } from '../src/stages.js';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const N = Number(flag('n') ?? 300);
const ROUNDS = Number(flag('rounds') ?? 3);
/** Statements of each series run by each build before its first measured round (V8's compiler, first plans). */
const WARMUP = Number(flag('warmup') ?? 100);
const beforeCli = flag('before');
const profDir = flag('prof');
const only = flag('only');
const log = (s: string) => process.stdout.write(s + '\n');
// the gateways' stage split as CPU time (inherited by the serving processes)
process.env.FDL_STAGE_CLOCK ??= 'cpu';
/** Catalog statements of the kind drivers and BI tools send at connect. */
const CONNECT_TEXTS = [
  'select n.nspname from pg_catalog.pg_namespace n order by 1',
  "select c.relname, c.relkind from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = 'sales' order by 1",
  "select a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) from pg_catalog.pg_attribute a where a.attrelid = 'sales.orders'::regclass and a.attnum > 0 order by a.attnum",
  "select t.oid, t.typname from pg_catalog.pg_type t where t.typname in ('int4', 'text', 'numeric') order by 1",
  "select current_schema(), current_setting('server_version_num')",
];

function serve(repo: string, cacheDir: string, cli: string, prof?: string): Promise<Served> {
  const nodeArgs = prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [];
  return serveForBench({ cli, repo, cacheDir, nodeArgs, args: ['--result-cache-bytes', '0'] });
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** CPU seconds of the process (all its threads), or with `mainThread` of its JavaScript thread alone. */
function cpuSeconds(pid: number, mainThread = false): number {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const f = stat
    .slice(stat.lastIndexOf(') ') + 2)
    .split(' ')
    .map(Number);
  return (f[11]! + f[12]!) / CLK_TCK;
}

async function scrape(s: Served): Promise<{ stages: number[]; statements: number; work: number[] }> {
  const get = () => fetch(`http://${s.http}/metrics`).then((r) => r.text());
  const text = await get().catch(get);
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    stages: STAGES.map((st) => num(new RegExp(`^fdl_statement_stage_seconds_sum\\{stage="${st}"\\} (\\S+)$`, 'm'))),
    work: WORKS.map((w) => num(new RegExp(`^fdl_statement_work_total\\{work="${w}"\\} (\\S+)$`, 'm'))),
    statements: num(/^fdl_statement_stage_seconds_count\{stage="decode"\} (\S+)$/m),
  };
}

/** A statement of a series: a text, or a query with parameters (named: Parse once per session). */
type Stmt = string | pg.QueryConfig;

type Measure = { cpuUs: number; mainUs: number; p50Ms: number; stages: number[]; work: number[] };

/** `n` statements `text(i)` on `c`; the gateway's CPU µs per statement, stage µs and work per statement. */
async function measure(
  s: Served,
  c: pg.Client,
  text: (i: number) => Stmt | Stmt[],
  n: number,
  freshSession = false,
): Promise<Measure> {
  const a = await scrape(s);
  const cpu0 = cpuSeconds(s.proc.pid!);
  const main0 = cpuSeconds(s.proc.pid!, true);
  const took: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    if (!freshSession) {
      for (const t of [text(i)].flat()) await c.query(t);
      took.push(performance.now() - t0);
      continue;
    }
    const own = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'bench', database: 'basic' });
    await own.connect();
    for (const t of [text(i)].flat()) await own.query(t);
    await own.end();
    took.push(performance.now() - t0);
  }
  took.sort((a, b) => a - b);
  const cpu = cpuSeconds(s.proc.pid!) - cpu0;
  const main = cpuSeconds(s.proc.pid!, true) - main0;
  const b = await scrape(s);
  const k = b.statements - a.statements;
  return {
    cpuUs: (cpu * 1e6) / n,
    mainUs: (main * 1e6) / n,
    p50Ms: took[Math.floor(took.length / 2)]!,
    stages: STAGES.map((_, i) => ((b.stages[i]! - a.stages[i]!) * 1e6) / k),
    work: WORKS.map((_, i) => (b.work[i]! - a.work[i]!) / k),
  };
}

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const repo = repos.path('repos/basic');
  const builds: { name: string; cli: string }[] = [{ name: 'after', cli: CLI }];
  if (beforeCli) builds.unshift({ name: 'before', cli: beforeCli });
  const servers: Served[] = [];
  const clients: pg.Client[] = [];
  log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ${N} new texts per series and round`,
  );
  try {
    for (const b of builds) {
      const s = await serve(repo, join(repos.dir, `cache-${b.name}`), b.cli, b.name === 'after' ? profDir : undefined);
      servers.push(s);
      const c = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'bench', database: 'basic' });
      await c.connect();
      clients.push(c);
    }
    // every build plans its first statement here, outside the series (its first admission reads
    // DuckDB's function catalog once, ~0.2 s: it used to fall in one build's first series only)
    const listed = await Promise.all(
      clients.map((c) => c.query<{ oid: number }>('select oid::int8 as oid from pg_proc order by 1')),
    );
    const oids = listed[0]!.rows.map((r) => Number(r.oid));
    let seq = 0;
    const psqlList =
      "SELECT n.nspname as \"Schema\", c.relname as \"Name\" FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p','v','m','S','f','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2";
    /** Series whose statements each run on a session of their own (connect, one statement, end). */
    const fresh = new Set([
      'psql \\d, a session each',
      'connect + SELECT 1, a session each',
      'catalog at connect, 5 texts a session',
    ]);
    const POINT = 'select $1::int + order_id from sales.orders where order_id = $2';
    const vals = (i: number) => [i, 1 + (i % 50)];
    const TOP5 =
      'SELECT c.name, sum(o.amount) AS total FROM sales.orders o JOIN sales.customers c ON c.customer_id = o.customer_id WHERE o.amount > $1 GROUP BY c.name ORDER BY total DESC, c.name LIMIT 5';
    const series: Record<string, (i: number) => Stmt | Stmt[]> = {
      'point query, new parameters (unnamed)': (i) => ({ text: POINT, values: vals(i) }),
      'point query, new parameters (named)': (i) => ({ name: 'point', text: POINT, values: vals(i) }),
      // a result its own LIMIT bounds to one chunk: run whole in one DuckDB call (wire/result-stream.ts)
      'point query LIMIT 1, new parameters': (i) => ({ text: `${POINT} limit 1`, values: vals(i) }),
      'top 5 join, new parameters': (i) => ({ text: TOP5, values: [i % 60] }),
      'point query, new text with parameters': (i) => ({ text: `${POINT} /* ${seq}.${i} */`, values: vals(i) }),
      'point query, new text': (i) =>
        `select ${i} + order_id from sales.orders where order_id = ${1 + (i % 50)} /* ${seq} */`,
      // a dashboard's statement with new literals each time: one shape, the engine line's verdict reused
      'dashboard, new literals': (i) =>
        `select count(*)::int as n, sum(amount) as total from sales.orders where customer_id = ${1 + (i % 20)} and qty >= ${i % 6} /* ${seq}.${i} */`,
      'sqlsmith pg_proc start-up': (i) =>
        // the rewrite drops comments: a new column alias per series keeps every rewritten text new
        `select unnest(proargtypes) as a${seq} from pg_proc where oid = '${oids[i % oids.length]}'`,
      'psql \\d (repeated text)': () => psqlList,
      'psql \\d, a session each': () => psqlList,
      'connect + SELECT 1, a session each': () => 'SELECT 1',
      // what a client sends at connect: the same catalog texts in every session
      'catalog at connect, 5 texts a session': () => CONNECT_TEXTS,
    };
    const results: Record<string, Record<string, Measure[]>> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, text] of Object.entries(series)) {
        if (only && !name.includes(only)) continue;
        // the builds take turns going first, so a load that rises or falls during a round favours neither
        for (let k = 0; k < builds.length; k++) {
          const b = (k + r) % builds.length;
          seq++;
          if (r === 0 && WARMUP > 0) {
            await measure(
              servers[b]!,
              clients[b]!,
              text,
              fresh.has(name) ? Math.ceil(WARMUP / 4) : WARMUP,
              fresh.has(name),
            );
            seq++;
          }
          const m = await measure(
            servers[b]!,
            clients[b]!,
            text,
            fresh.has(name) ? Math.ceil(N / 4) : N,
            fresh.has(name),
          );
          ((results[name] ??= {})[builds[b]!.name] ??= []).push(m);
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    log(
      `\np50 ms (a statement's round trip), CPU µs per statement, all threads and the JavaScript thread (medians of ${ROUNDS} rounds); stage CPU µs per statement (mean of rounds), and the CPU outside every stage; work per statement`,
    );
    log(
      `  ${'series'.padEnd(30)}${'build'.padEnd(8)}${'p50 ms'.padStart(8)}${'CPU'.padStart(8)}${'JS'.padStart(7)}${STAGES.map((s) => s.slice(0, 10).padStart(11)).join('')}${'other'.padStart(11)}`,
    );
    for (const [name, byBuild] of Object.entries(results)) {
      for (const [build, ms] of Object.entries(byBuild)) {
        const stage = (i: number) => ms.reduce((t, m) => t + m.stages[i]!, 0) / ms.length;
        log(
          `  ${name.padEnd(30)}${build.padEnd(8)}${median(ms.map((m) => m.p50Ms))
            .toFixed(2)
            .padStart(8)}${median(ms.map((m) => m.cpuUs))
            .toFixed(0)
            .padStart(8)}${median(ms.map((m) => m.mainUs))
            .toFixed(0)
            .padStart(7)}${STAGES.map((_, i) => stage(i).toFixed(0).padStart(11)).join('')}${(
            ms.reduce((t, m) => t + m.cpuUs, 0) / ms.length -
            STAGES.reduce((t, _, i) => t + stage(i), 0)
          )
            .toFixed(0)
            .padStart(11)}`,
        );
        const work = WORKS.map((w, i) => [w, ms.reduce((t, m) => t + m.work[i]!, 0) / ms.length] as const)
          .filter(([, v]) => v > 0)
          .map(([w, v]) => `${w} ${v.toFixed(2)}`)
          .join(', ');
        log(`  ${''.padEnd(38)}work: ${work}`);
      }
    }
    log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await Promise.all(servers.map((s) => new Promise((res) => (s.proc.once('exit', res), s.proc.kill('SIGTERM')))));
    repos.cleanup();
  }
}

await main();
