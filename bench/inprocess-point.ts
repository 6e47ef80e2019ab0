/**
 * In-process DuckDB running the point query of statement-cost.ts over the same version's views, N
 * times (for strace/perf comparisons with the gateway: run it with N=0 and N to subtract the set-up).
 *
 *   npx tsc -p . && node dist/bench/inprocess-point.js [--n 2000] [--streaming] [--sealed] [--rounds 1]
 *
 * --sealed: the instance sealed as the gateway seals its own (engine/engine.ts sealEngine: allowed_directories
 * over the version's folders, external access off), whose path checks resolve every file DuckDB opens
 * (realpath: a readlink per path component); the CPU per statement is printed beside the wall time.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFixtures } from '../test/support/gateway.js';
import { repoVersions } from '../test/support/lake-fixtures.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { sealEngine } from '../src/engine/engine.js';

const args = process.argv.slice(2);
const N = args.includes('--n') ? Number(args[args.indexOf('--n') + 1]) : 2000;
const streaming = args.includes('--streaming');
const sealed = args.includes('--sealed');
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 1;
const repos = copyFixtures('repos/basic');
const repo = repos.path('repos/basic');
const head = repoVersions(repo, 'basic', null).find((v) => v.id === '01a23632-a230-7000-a827-2230f6ffa9fe')!;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
await attachCatalog(conn, await openCatalog(conn, head.catalogFile, 'meta'), 'lake', (rel) =>
  join(head.root, head.dataDir, rel),
);
await conn.run('USE lake');
if (sealed) await sealEngine(instance, [join(head.root, 'versions'), join(head.root, head.dataDir)]);
const p = await conn.prepare('select $1::int + order_id from sales.orders where order_id = $2');
for (let round = 0; round < ROUNDS; round++) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    p.bindInteger(1, 1000 + (i & 0xff));
    p.bindBigInt(2, BigInt(1 + (i % 50)));
    if (streaming) {
      const r = await p.stream();
      while (((await r.fetchChunk())?.rowCount ?? 0) > 0);
    } else await p.runAndReadAll();
  }
  const cpu = process.cpuUsage(cpu0);
  const per = (x: number) => (x / Math.max(N, 1)).toFixed(3);
  process.stdout.write(
    `${sealed ? 'sealed ' : ''}${N}: ${per(performance.now() - t0)} ms per statement (mean), CPU ${per((cpu.user + cpu.system) / 1000)} ms\n`,
  );
}
conn.closeSync();
instance.closeSync();
repos.cleanup();
