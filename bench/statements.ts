/**
 * The statement pipeline's cost (issue 12), side by side in one run:
 *  - extended protocol through node-postgres against a real `fdl serve`: a parameterized query sent
 *    as an unnamed statement (Parse+Bind+Execute every time, what most drivers do), as a named one
 *    (Parse once, then Bind+Execute), and as a new text every time (nothing cached); p50/p99 and the
 *    unnamed ÷ named ratio (target ≤ 1.5×);
 *  - admission in-process: one analysis (DuckDB parse + walk, result names and column sources
 *    included) of a new text vs a memoized one, and the allowlist check itself; beside it the cost
 *    before names and sources came from the analysis: the same analysis plus the PostgreSQL-grammar
 *    parse (pgsql-parser, memoized by text) they used to need for every statement.
 *
 *   npx tsc -p . && node dist/bench/statements.js [--n 2000] [--admission-only]
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { analyze } from '../src/analysis/analysis.js';
import { parsePg } from '../src/pg/pg-parse.js';
import { admit, allowedFunctions, type AdmissionContext } from '../src/analysis/containment.js';
import { copyFixtures, startGateway } from '../test/support/gateway.js';

const args = process.argv.slice(2);
const N = args.includes('--n') ? Number(args[args.indexOf('--n') + 1]) : 2000;
const log = (s: string) => process.stdout.write(s + '\n');
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(50, n); i++) await fn(-1 - i); // warm up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const SQL = 'SELECT count(*), sum(qty) FROM sales.orders WHERE qty > $1';

/**
 * One client per result-cache setting. Each series binds values of its own (never another series'),
 * so with the cache on a series is answered from what it recorded itself — not from what the
 * series before it recorded (which made named look 15× faster than unnamed in bench/wire).
 */
async function wire(resultCache: 'off' | 'on'): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const cacheArgs = resultCache === 'off' ? ['--result-cache-bytes', '0'] : [];
  const gw = await startGateway([
    '--repo',
    `basic=${repos.path('repos/basic')}`,
    '--cache-dir',
    join(repos.dir, 'cache'),
    ...cacheArgs,
  ]);
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'bench', database: 'basic@v1' });
  await c.connect();
  try {
    // Seven values per series, repeated: with the cache on, all but the first seven are hits.
    const unnamed = await timed(N, (i) => c.query({ text: SQL, values: [(i & 0xffff) % 7] }));
    const named = await timed(N, (i) => c.query({ name: 'q', text: SQL, values: [100 + ((i & 0xffff) % 7)] }));
    // Every value new: misses on both paths, with the cache on too (recording included).
    const unnamedNew = await timed(Math.min(N, 500), (i) => c.query({ text: SQL, values: [10_000 + i] }));
    const namedNew = await timed(Math.min(N, 500), (i) => c.query({ name: 'q', text: SQL, values: [20_000 + i] }));
    const fresh = await timed(Math.min(N, 500), (i) => c.query({ text: `${SQL} /* ${i} */`, values: [i % 7] }));
    log(`extended protocol, node-postgres, one client, result cache ${resultCache.padEnd(3)}      p50        p99`);
    log(
      `  named (Parse once, Bind+Execute), repeated values  ${us(pct(named, 50)).padStart(9)}  ${us(pct(named, 99)).padStart(9)}`,
    );
    log(
      `  unnamed (Parse+Bind+Execute), repeated values      ${us(pct(unnamed, 50)).padStart(9)}  ${us(pct(unnamed, 99)).padStart(9)}`,
    );
    log(
      `  named, a new value every time                      ${us(pct(namedNew, 50)).padStart(9)}  ${us(pct(namedNew, 99)).padStart(9)}`,
    );
    log(
      `  unnamed, a new value every time                    ${us(pct(unnamedNew, 50)).padStart(9)}  ${us(pct(unnamedNew, 99)).padStart(9)}`,
    );
    log(
      `  unnamed, new text every time (nothing cached)      ${us(pct(fresh, 50)).padStart(9)}  ${us(pct(fresh, 99)).padStart(9)}`,
    );
    log(
      `  unnamed ÷ named p50: repeated values ${(pct(unnamed, 50) / pct(named, 50)).toFixed(2)}×, new values ${(pct(unnamedNew, 50) / pct(namedNew, 50)).toFixed(2)}×   (target ≤ 1.5×)`,
    );
  } finally {
    await c.end();
    await gw.stop();
    repos.cleanup();
  }
}

async function admission(): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const ctx: AdmissionContext = {
    functions: await allowedFunctions(conn),
    versionDb: 'v@1',
    pinnedDbs: [],
    compatDb: 'fdl_pg',
    hasRelation: (_db, s, t) => s === 'sales' && t === 'orders',
    definesFunction: () => false,
  };
  const text = (i: number) =>
    `SELECT status, count(*), sum(qty) OVER (PARTITION BY status) FROM sales.orders WHERE qty > ${i} GROUP BY ALL ORDER BY 1 LIMIT 10`;
  // Series interleaved per iteration, so machine load falls on both alike; every new text is new to both caches.
  const cold: number[] = [];
  const coldBefore: number[] = [];
  const warm: number[] = [];
  const warmBefore: number[] = [];
  await analyze(conn, text(1));
  parsePg(text(1));
  for (let i = -50; i < N; i++) {
    let t0 = performance.now();
    await analyze(conn, text(1_000_000 + 2 * i));
    const c = performance.now() - t0;
    t0 = performance.now();
    await analyze(conn, text(1_000_001 + 2 * i));
    parsePg(text(1_000_001 + 2 * i));
    const cb = performance.now() - t0;
    t0 = performance.now();
    await analyze(conn, text(1));
    const w = performance.now() - t0;
    t0 = performance.now();
    await analyze(conn, text(1));
    parsePg(text(1));
    const wb = performance.now() - t0;
    if (i >= 0) {
      cold.push(c);
      coldBefore.push(cb);
      warm.push(w);
      warmBefore.push(wb);
    }
  }
  const a = await analyze(conn, text(1));
  const check = await timed(N, async () => admit(a, ctx));
  log('admission per statement (in-process)                                       p50       p99');
  log(
    `  new text: analysis with names and sources (now)                     ${us(pct(cold, 50)).padStart(9)} ${us(pct(cold, 99)).padStart(9)}`,
  );
  log(
    `  new text: analysis + PostgreSQL-grammar parse for names/sources (before) ${us(pct(coldBefore, 50)).padStart(6)} ${us(pct(coldBefore, 99)).padStart(9)}`,
  );
  log(
    `  repeated text: memoized analysis (now)                              ${us(pct(warm, 50)).padStart(9)} ${us(pct(warm, 99)).padStart(9)}`,
  );
  log(
    `  repeated text: memoized analysis + memoized PostgreSQL parse (before) ${us(pct(warmBefore, 50)).padStart(7)} ${us(pct(warmBefore, 99)).padStart(9)}`,
  );
  log(`  allowlist check of an analysis                                      ${us(pct(check, 50)).padStart(9)}`);
  log(`  new text, before ÷ now p50: ${(pct(coldBefore, 50) / pct(cold, 50)).toFixed(2)}×`);
  conn.disconnectSync();
  instance.closeSync();
}

if (!args.includes('--admission-only')) {
  await wire('off');
  await wire('on');
}
await admission();
