/**
 * Runs the benchmarks one after another, each in its own process (so one's memory and threads do
 * not disturb the next), with a time limit each; prints their output and a summary line per bench.
 *
 *   npm run bench                          # all of them (about 10 minutes on 2 cores)
 *   node dist/bench/run.js --only wire,load # a subset; names below
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const BENCHES: { name: string; file: string; args?: string[]; limitS: number; what: string }[] = [
  { name: 'encode', file: 'encode.js', limitS: 300, what: 'DataRow encoder micro-bench' },
  { name: 'import', file: 'import.js', limitS: 600, what: 'fdl import vs plain DuckDB COPY' },
  { name: 'lake-open', file: 'lake-open.js', limitS: 300, what: 'native DuckLake reader open+attach' },
  {
    name: 'resolve',
    file: 'resolve.js',
    limitS: 300,
    what: 'resolver cold open / warm switch (library level, s3rver)',
  },
  {
    name: 'wire',
    file: 'wire.js',
    limitS: 900,
    what: 'gateway vs PostgreSQL 15: streaming, SELECT 1 latency, profile',
  },
  {
    name: 'versions',
    file: 'versions.js',
    limitS: 600,
    what: 'gateway over s3rver: cold open, warm switch, bytes per table',
  },
  {
    name: 'verify',
    file: 'verify.js',
    limitS: 300,
    what: 'first open of ~1 GB local data (hash MB/s); download with vs without hashing',
  },
  {
    name: 'statements',
    file: 'statements.js',
    limitS: 300,
    what: 'unnamed vs named extended latency, admission cost per statement',
  },
  {
    name: 'statement-cost',
    file: 'statement-cost.js',
    limitS: 900,
    what: 'uncached statements: in-process DuckDB vs gateway (result cache off) vs PostgreSQL 15, stage split',
  },
  {
    name: 'new-text-cost',
    file: 'new-text-cost.js',
    limitS: 900,
    what: 'gateway CPU per new text and per session of catalog texts, by stage (--before <cli> for another build)',
  },
  {
    name: 'rebind-cost',
    file: 'rebind-cost.js',
    limitS: 300,
    what: "in-process DuckDB: a statement's binds over the version views vs native tables (--lake <build> for another build's views)",
  },
  {
    name: 'catalog',
    file: 'catalog-speed.js',
    limitS: 600,
    what: 'catalog statements of psql, pgjdbc, SQLAlchemy 1.4 and 2, sqlsmith: gateway (result cache on, off) vs PostgreSQL 15 (--before <cli>)',
  },
  {
    name: 'sqlsmith',
    file: 'sqlsmith.js',
    limitS: 1800,
    what: 'sqlsmith seed 42, 2,000 generated statements: no crash, no hang, RSS over the run',
  },
  { name: 'load', file: 'load.js', limitS: 300, what: '200 clients × 60 s mix, peak RSS' },
  {
    name: 'service',
    file: 'service.js',
    limitS: 300,
    what: '200 clients: SIGHUP reloads under load, then SIGTERM drain',
  },
  { name: 'fuzz', file: 'fuzz.js', limitS: 900, what: '≥ 100,000 fuzzed frames' },
];

const args = process.argv.slice(2);
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1]!.split(',')) : null;
const summary: string[] = [];
for (const b of BENCHES) {
  if (only && !only.has(b.name)) continue;
  process.stdout.write(`\n=== ${b.name}: ${b.what}\n`);
  const t0 = performance.now();
  const code = await new Promise<number | string>((resolve) => {
    const p = spawn(process.execPath, [join(here, b.file), ...(b.args ?? [])], { stdio: 'inherit' });
    const timer = setTimeout(() => {
      p.kill('SIGTERM');
      setTimeout(() => p.kill('SIGKILL'), 10_000).unref();
      resolve(`killed after ${b.limitS} s`);
    }, b.limitS * 1000);
    p.on('exit', (c, s) => {
      clearTimeout(timer);
      resolve(c ?? String(s));
    });
  });
  summary.push(
    `${b.name.padEnd(10)} ${code === 0 ? 'ok    ' : `FAILED (${code})`} ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
process.stdout.write(`\n=== summary\n${summary.join('\n')}\n`);
process.exitCode = summary.some((s) => s.includes('FAILED')) ? 1 : 0;
