/**
 * What DuckDB's passes over a new text cost the gateway, in-process over the version's views of the
 * `basic` fixture (built by the gateway's own lake reader, the instance sealed as the gateway seals
 * it): the analysis' parse and the engine line's bind check (analysis/side-effects.ts) as the gateway
 * runs them (statements prepared once per connection, engine/reused-statement.ts; the plan's JSON
 * without null and empty fields), next to how they ran before (a statement per call: the parse's
 * wrapper prepared each time, the check's text quoted inline with the whole plan as JSON), and the
 * prepare of the same text. Alternating rounds, CPU time of this process (DuckDB's threads
 * included) per text.
 *
 *   npx tsc -p . && node dist/bench/engine-line-check.js [--n 200] [--rounds 5]
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { copyFixtures } from '../test/support/gateway.js';
import { repoVersions } from '../test/support/lake-fixtures.js';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { analyze, serializeOn } from '../src/analysis/analysis.js';
import { refuseSideEffects } from '../src/analysis/side-effects.js';
import { quoteLiteral } from '../src/quote.js';
import { sealEngine } from '../src/engine/engine.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) =>
  args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : dflt;
const N = opt('n', 200);
const ROUNDS = opt('rounds', 5);
const TEXTS = {
  point: 'select $1::int + order_id from sales.orders where order_id = $2',
  join: 'SELECT c.name, sum(o.amount) AS total FROM sales.orders o JOIN sales.customers c ON c.customer_id = o.customer_id WHERE o.amount > 5 GROUP BY c.name ORDER BY total DESC, c.name LIMIT 5',
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The check as it ran before: the text quoted into a statement of its own, the whole plan as JSON. */
async function inlineCheck(conn: DuckDBConnection, sql: string): Promise<void> {
  const reader = await conn.runAndReadAll(`SELECT json_serialize_plan(${quoteLiteral(sql)}, optimize := false)`);
  JSON.parse(String(reader.getRows()[0]?.[0]));
}

/** The parse as it ran before: a statement with the text as its value, prepared at every call. */
async function parsePerCall(conn: DuckDBConnection, sql: string): Promise<void> {
  const reader = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
  JSON.parse(String(reader.getRows()[0]?.[0]));
}

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const head = repoVersions(repos.path('repos/basic'), 'basic', null).find(
    (v) => v.id === '01a23632-a230-7000-a827-2230f6ffa9fe',
  )!;
  const instance = await DuckDBInstance.create(':memory:', { enable_object_cache: 'true' }); // as the gateway's
  const conn = await instance.connect();
  try {
    await attachCatalog(conn, await openCatalog(conn, head.catalogFile, 'meta'), 'lake', (rel) =>
      join(head.root, head.dataDir, rel),
    );
    await conn.run('USE lake');
    // sealed as the gateway seals a repository's instance: the check's Parquet scans are inside
    await sealEngine(instance, [join(head.root, head.dataDir)]);
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; ${N} new texts per series, ${ROUNDS} alternating rounds; CPU ms per text, median of rounds`,
    );
    let seq = 0;
    for (const [name, text] of Object.entries(TEXTS)) {
      const series = {
        'parse (as run)': async () => void JSON.parse(await serializeOn(conn, `${text} /* ${seq++} */`)),
        'parse, a statement per call (before)': async () => parsePerCall(conn, `${text} /* ${seq++} */`),
        // the analysis is memoized by text: analysed first, only the check is timed
        'check (as run)': async () => {
          const sql = `${text} /* ${seq++} */`;
          const a = await analyze(conn, sql);
          const c0 = cpuMs();
          await refuseSideEffects(conn, sql, a);
          return cpuMs() - c0;
        },
        'check inline, whole JSON (before)': async () => inlineCheck(conn, `${text} /* ${seq++} */`),
        prepare: async () => (await conn.prepare(`${text} /* ${seq++} */`)).destroySync(),
      };
      const per: Record<string, number[]> = {};
      for (let r = 0; r < ROUNDS; r++) {
        for (const [label, fn] of Object.entries(series)) {
          for (let i = 0; i < 10; i++) await fn();
          let total = 0;
          for (let i = 0; i < N; i++) {
            const c0 = cpuMs();
            const own = await fn();
            total += typeof own === 'number' ? own : cpuMs() - c0;
          }
          (per[label] ??= []).push(total / N);
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      console.log(
        `${name}: ${Object.entries(per)
          .map(([l, xs]) => `${l} ${median(xs).toFixed(3)}`)
          .join(' · ')}`,
      );
    }
    console.log(
      `load average at end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    conn.closeSync();
    instance.closeSync();
    repos.cleanup();
  }
}

await main();
