/**
 * sqlsmith's long run (issue 24): a seeded sqlsmith sends N generated statements (default 2,000) built
 * from the catalog emulation (pg_proc, pg_operator, pg_aggregate …) to a gateway over the basic
 * fixture. Reports the wall time, sqlsmith's error rate, the commonest errors, and the gateway's
 * resident memory sampled every second (start, peak, end, and per quarter of the run, to see whether
 * it levels off); fails when sqlsmith does not finish, the gateway dies or stops answering.
 * test/sqlsmith.test.ts runs a short version (300 statements) in the suite.
 *
 *   npx tsc -p . && node dist/bench/sqlsmith.js [--queries 2000] [--seed 42]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixtures, startGateway } from '../test/support/gateway.js';
import { RawPg } from '../test/support/raw-pg.js';
import { runProbe } from '../test/support/probe.js';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const QUERIES = arg('--queries', 2000);
const SEED = arg('--seed', 42);

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const gw = await startGateway([
    '--repo',
    `basic=${repos.path('repos/basic')}`,
    '--cache-dir',
    join(repos.dir, 'cache'),
  ]);
  const rss = (): number =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gw.proc.pid}/status`, 'utf8'))![1]) / 1024;
  const samples: number[] = [rss()];
  const timer = setInterval(() => {
    try {
      samples.push(rss());
    } catch {
      /* gateway gone: reported below */
    }
  }, 1000);
  try {
    const t0 = performance.now();
    const r = await runProbe(
      'sqlsmith',
      [
        `--target=host=${gw.host} port=${gw.port} dbname=basic@v2 user=me`,
        `--seed=${SEED}`,
        `--max-queries=${QUERIES}`,
        '--verbose',
      ],
      { timeoutMs: 3_600_000 },
    );
    const wall = (performance.now() - t0) / 1000;
    clearInterval(timer);
    const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
    const one = await c.simple('select 1');
    await c.close();
    const errors = new Map<string, number>();
    for (const m of r.stderr.matchAll(/ERROR:\s+(.{0,80})/g)) {
      const k = m[1]!.replace(/\d+/g, 'N');
      errors.set(k, (errors.get(k) ?? 0) + 1);
    }
    const q = (i: number) => samples[Math.min(samples.length - 1, Math.floor((i * samples.length) / 4))]!.toFixed(0);
    // sqlsmith --verbose reports along the way (every ~800 statements here): its last report is the run's.
    const last = (re: RegExp) => [...r.stderr.matchAll(re)].at(-1)?.[1];
    const sent = Number(last(/queries: (\d+)/g) ?? 0);
    const rate = Number(last(/error rate: ([\d.]+)/g) ?? NaN);
    console.log(
      `sqlsmith seed ${SEED}: ${sent} statements in ${wall.toFixed(1)} s; error rate ${rate}, so ${Math.round(sent * (1 - rate))} accepted; exit ${r.code}${r.timedOut ? ' (TIMED OUT)' : ''}`,
    );
    console.log(
      `gateway RSS MiB: start ${samples[0]!.toFixed(0)}, quarters ${q(1)} / ${q(2)} / ${q(3)}, end ${samples[samples.length - 1]!.toFixed(0)}, peak ${Math.max(...samples).toFixed(0)}`,
    );
    console.log(
      `gateway answers after the run: ${one.error ? `NO (${one.error.message})` : 'yes'}; crash signs in sqlsmith's log: ${/server closed the connection|terminating connection|internal error/i.test(r.stderr) ? 'YES' : 'none'}`,
    );
    console.log('commonest errors:');
    for (const [k, n] of [...errors].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(`  ${String(n).padStart(5)}  ${k}`);
    if (sent < QUERIES)
      console.log(
        `sqlsmith stopped early; its last output:\n${r.stderr.split('\n').slice(-25).join('\n')}\n${r.stdout.split('\n').slice(-10).join('\n')}`,
      );
    if (r.timedOut || r.code !== 0 || one.error || sent < QUERIES) process.exitCode = 1;
  } finally {
    clearInterval(timer);
    await gw.stop();
    repos.cleanup();
  }
}

await main();
