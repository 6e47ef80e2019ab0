/**
 * to_char of a number through the gateway (issue 25, session 54): what a statement with to_char(number,
 * picture) costs to prepare, what a row costs, what a statement of many calls costs, and the Parse of
 * `to_char(x, $1)` (planned with a stand-in format), each as the gateway process's CPU (all its threads, read
 * from /proc: the machine's load moves it less than latency) and wall time. With --before, another build's
 * gateway runs the same series, taking turns with this one, in the same run.
 *
 *   npx tsc -p . && node dist/bench/number-format-cost.js [--rounds 3] [--rows 1000000] [--before <cli>]
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { serveForBench, type Served } from './bench-gateway.js';
import { CLI, copyFixtures, cpuSeconds } from '../test/support/gateway.js';
import { RawPg } from '../test/support/raw-pg.js';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const ROUNDS = Number(flag('rounds') ?? 3);
const ROWS = Number(flag('rows') ?? 1_000_000);
const beforeCli = flag('before');
const log = (s: string) => process.stdout.write(s + '\n');

interface Build {
  name: string;
  served: Served;
  conn: RawPg;
}

/** Wall and gateway CPU ms of one exchange, and its outcome (a SQLSTATE or 'ok'). */
async function measure(b: Build, run: () => Promise<string>): Promise<{ wall: number; cpu: number; outcome: string }> {
  const cpu0 = cpuSeconds(b.served.proc.pid!);
  const t0 = performance.now();
  const outcome = await run();
  return { wall: performance.now() - t0, cpu: (cpuSeconds(b.served.proc.pid!) - cpu0) * 1000, outcome };
}

const query = (b: Build, sql: string) => async () => {
  const r = await b.conn.query(sql);
  return r.error ? r.error.code : 'ok';
};

/** Parse and Describe of a named statement, no Bind: what a driver's prepare costs. */
const parseOnly = (b: Build, sql: string) => async () => {
  b.conn.send(
    Buffer.concat([
      serialize.parse({ name: '', text: sql, types: [] }),
      serialize.describe({ type: 'S', name: '' }),
      serialize.sync(),
    ]),
  );
  const r = await b.conn.untilReady();
  return r.error ? r.error.code : 'ok';
};

let serial = 0;
/** A text the gateway has not seen: its rewrite, analysis and DuckDB prepare all run again. */
const fresh = (sql: string) => `${sql} /* ${++serial} */`.replace('$N', String(serial));

const PICTURES = ['999G999D99', 'FM9,999', '0000', 'S999.99', 'FM999,990.00PR'];
const calls = (n: number) =>
  Array.from({ length: n }, (_, i) => `to_char(amount + ${i}, '${PICTURES[i % PICTURES.length]}') as c${i}`).join(', ');

const SERIES: ReadonlyArray<{ name: string; run: (b: Build) => () => Promise<string> }> = [
  { name: 'new text, 1 call (numeric)', run: (b) => query(b, fresh(`select ${calls(1)} from sales.orders limit 3`)) },
  {
    name: 'new text, 1 call (double precision)',
    run: (b) => query(b, fresh("select to_char(amount::float8 * $N, '99999.9') from sales.orders limit 3")),
  },
  { name: 'new text, 8 calls', run: (b) => query(b, fresh(`select ${calls(8)} from sales.orders limit 3`)) },
  { name: 'new text, 100 calls', run: (b) => query(b, fresh(`select ${calls(100)} from sales.orders limit 3`)) },
  { name: 'new text, 1,000 calls', run: (b) => query(b, fresh(`select ${calls(1000)} from sales.orders limit 1`)) },
  {
    name: 'new text, 5,000 calls',
    run: (b) => query(b, fresh(`select ${calls(5000)} from sales.orders limit 1`)),
  },
  {
    name: 'Parse of to_char(ordered_at, $1)',
    run: (b) => parseOnly(b, fresh('select to_char(ordered_at, $1) from sales.orders')),
  },
  {
    name: 'Parse of to_char(amount, $1)',
    run: (b) => parseOnly(b, fresh('select to_char(amount, $1) from sales.orders')),
  },
  {
    name: `${ROWS.toLocaleString('en')} rows, to_char(numeric(10,2), '999G999D99')`,
    run: (b) =>
      query(
        b,
        fresh(
          `select sum(length(to_char(v, '999G999D99'))) from (select (i % 100000000)::numeric(10,2) / 100 as v from generate_series(1, ${ROWS}) i) s`,
        ),
      ),
  },
  {
    name: `${ROWS.toLocaleString('en')} rows, to_char(float8, 'FM999,990.00')`,
    run: (b) =>
      query(
        b,
        fresh(
          `select sum(length(to_char(v, 'FM999,990.00'))) from (select (i % 100000000) / 100.0::float8 as v from generate_series(1, ${ROWS}) i) s`,
        ),
      ),
  },
  {
    name: `${ROWS.toLocaleString('en')} rows, v::text (no to_char)`,
    run: (b) =>
      query(
        b,
        fresh(
          `select sum(length(v::text)) from (select (i % 100000000)::numeric(10,2) / 100 as v from generate_series(1, ${ROWS}) i) s`,
        ),
      ),
  },
];

async function start(name: string, cli: string): Promise<Build> {
  const repos = copyFixtures('repos/basic');
  const served = await serveForBench({
    cli,
    repo: repos.path('repos/basic'),
    cacheDir: join(repos.dir, 'cache'),
    args: ['--result-cache-bytes', '0', '--statement-timeout', '600000'],
  });
  const conn = await RawPg.connect({ port: served.port, user: 'fdl', database: 'basic' });
  conn.messageTimeoutMs = 900_000;
  await conn.simple('select 1');
  return { name, served, conn };
}

const builds = [await start('this', CLI)];
if (beforeCli) builds.push(await start('before', beforeCli));
log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; rounds ${ROUNDS}; gateway CPU ms (wall ms) per statement`,
);
const results = new Map<string, string[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const s of SERIES) {
    // a different build first each round
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const m = await measure(b, s.run(b));
      const key = `${s.name}\u0000${b.name}`;
      const list = results.get(key) ?? [];
      list.push(`${m.cpu.toFixed(0)} (${m.wall.toFixed(0)})${m.outcome === 'ok' ? '' : ` ${m.outcome}`}`);
      results.set(key, list);
    }
  }
}
log(`| series | ${builds.map((b) => b.name).join(' | ')} |`);
log(`|---|${builds.map(() => '---:').join('|')}|`);
for (const s of SERIES)
  log(`| ${s.name} | ${builds.map((b) => results.get(`${s.name}\u0000${b.name}`)!.join(' · ')).join(' | ')} |`);
log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const b of builds) {
  await b.conn.close();
  b.served.proc.kill('SIGKILL');
}
