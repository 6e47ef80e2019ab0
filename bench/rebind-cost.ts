/**
 * Issue 26: does DuckDB bind a statement over a version's views twice (prepare, then again at execution)?
 * In-process, over the views the gateway's lake reader builds (read_parquet of explicit file lists) and,
 * for contrast, over native tables holding the same rows. CPU per statement (this process, all threads).
 *
 *   npx tsc -p . && node dist/bench/rebind-cost.js [--n 300] [--rounds 3] [--lake <another build's dist/src/lake/index.js>]
 *
 * Series: a new parameterless text prepared then streamed (the gateway's path); the same text run once
 * (`duckdb_query`: one parse, bind, plan); a prepared parameterless statement executed again (what its
 * execution alone costs: a rebind when DuckDB requires one); the prepare alone.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { copyFixtures } from '../test/support/gateway.js';
import { repoVersions } from '../test/support/lake-fixtures.js';
import * as ownLake from '../src/lake/index.js';

const args = process.argv.slice(2);
const N = args.includes('--n') ? Number(args[args.indexOf('--n') + 1]) : 300;
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
// the views as another build's lake reader writes them, attached beside as `before` (how views are built)
const other = args.includes('--lake')
  ? ((await import(args[args.indexOf('--lake') + 1]!)) as typeof ownLake)
  : undefined;

const repos = copyFixtures('repos/basic');
const repo = repos.path('repos/basic');
const head = repoVersions(repo, 'basic', null).find((v) => v.id === '01a23632-a230-7000-a827-2230f6ffa9fe')!;
const instance = await DuckDBInstance.create(':memory:', { enable_object_cache: 'true', threads: '1' });
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");
const locate = (rel: string) => join(head.root, head.dataDir, rel);
await ownLake.attachCatalog(conn, await ownLake.openCatalog(conn, head.catalogFile, 'meta'), 'lake', locate);
if (other) await other.attachCatalog(conn, await other.openCatalog(conn, head.catalogFile, 'meta_b'), 'before', locate);
// the same rows as native tables, for contrast (their scans' bind data supports DuckDB's statement cache)
await conn.run('CREATE SCHEMA memory.sales');
await conn.run('CREATE TABLE memory.sales.orders AS SELECT * FROM lake.sales.orders');

let seq = 0;
const text = (db: string) => `select ${++seq} + order_id from ${db}.sales.orders where order_id = ${1 + (seq % 50)}`;

async function drain(c: DuckDBConnection, p: Awaited<ReturnType<DuckDBConnection['prepare']>>): Promise<void> {
  void c;
  const r = await p.stream();
  while (((await r.fetchChunk())?.rowCount ?? 0) > 0);
}

async function per(label: string, run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 20; i++) await run();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await run();
  const cpu = process.cpuUsage(cpu0);
  const us = (cpu.user + cpu.system) / N;
  process.stdout.write(
    `${label.padEnd(58)} ${us.toFixed(0).padStart(6)} µs CPU  ${((performance.now() - t0) / N).toFixed(3)} ms wall\n`,
  );
  return us;
}

const dbs = [...(other ? ['before'] : []), 'lake', 'memory'];
// each series over each database in turn (a before/after pair measured back to back)
const series: [string, (db: string) => Promise<void>][] = [
  [
    'new text, prepare + stream',
    async (db) => {
      const p = await conn.prepare(text(db));
      await drain(conn, p);
      p.destroySync();
    },
  ],
  [
    'new text, prepare only',
    async (db) => {
      const p = await conn.prepare(text(db));
      p.destroySync();
    },
  ],
  [
    'new text, run once (duckdb_query)',
    async (db) => {
      await conn.run(text(db));
    },
  ],
];
for (let round = 0; round < ROUNDS; round++) {
  process.stdout.write(`round ${round + 1}, load ${loadavg()[0]!.toFixed(2)}\n`);
  for (const [label, run] of series) for (const db of dbs) await per(`${db}: ${label}`, () => run(db));
  for (const db of dbs) {
    const kept = await conn.prepare(text(db));
    await per(`${db}: one prepared text, executed again (stream)`, async () => drain(conn, kept));
    kept.destroySync();
  }
  for (const db of dbs) {
    const withParam = await conn.prepare(`select $1::int + order_id from ${db}.sales.orders where order_id = $2`);
    await per(`${db}: prepared with parameters, new values (stream)`, async () => {
      withParam.bindInteger(1, ++seq);
      withParam.bindBigInt(2, BigInt(1 + (seq % 50)));
      await drain(conn, withParam);
    });
    withParam.destroySync();
  }
}
conn.closeSync();
instance.closeSync();
repos.cleanup();
