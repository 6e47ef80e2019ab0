/**
 * What ending a session costs the gateway (issue 26): its DuckDB connection reset and checked
 * against a fresh one's fingerprint before the next session takes it (engine/session-connections.ts).
 * In-process, an instance sealed as the gateway seals one, with the session's start as the gateway
 * does it (its identity and settings' mirror, USE of a version database, search_path); CPU time of
 * this process (DuckDB's threads included) per session end, alternating rounds. With --before,
 * another build's engine module (its dist/src/engine/engine.js) runs the same sessions in turn.
 *
 *   npx tsc -p . && node dist/bench/session-reset.js [--n 300] [--rounds 5] [--before <dist/src/engine/engine.js>]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import * as current from '../src/engine/engine.js';
import { baselineVariables } from '../src/session/settings.js';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const N = Number(flag('n') ?? 300);
const ROUNDS = Number(flag('rounds') ?? 5);
const before = flag('before');

type Engine = Pick<typeof current, 'createEngine' | 'sealEngine' | 'connectSession' | 'endSession'>;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** What a session's start sets on its connection (session/settings.ts describeSession, useVersion). */
async function startLikeASession(c: DuckDBConnection, i: number): Promise<void> {
  await c.run(
    [
      "SET VARIABLE pg_application_name = 'bench'",
      "SET VARIABLE pg_user = 'bench'",
      "SET VARIABLE pg_database = 'basic'",
      "SET VARIABLE pg_repositories = ['basic']::VARCHAR[]",
      `SET VARIABLE pg_backend_pid = ${1000 + i}`,
      `SET VARIABLE pg_client_addr = '127.0.0.1'`,
    ].join('; '),
  );
  await c.run(
    `USE "basic@v"; SET VARIABLE pg_search_path = '"$user", public, sales'; SET search_path = '"basic@v"."main","basic@v"."sales"'; SET VARIABLE pg_search_schemas = ['main', 'sales']::VARCHAR[]`,
  );
  await c.runAndReadAll('SELECT count(*) FROM sales.t');
}

async function main(): Promise<void> {
  const builds: { name: string; engine: Engine }[] = [{ name: 'after', engine: current }];
  if (before) builds.unshift({ name: 'before', engine: (await import(resolve(before))) as Engine });
  const dir = mkdtempSync(join(tmpdir(), 'fdl-bench-reset-'));
  const baseline = baselineVariables({ statementTimeoutMs: 0, idleInTransactionTimeoutMs: 0 });
  try {
    const instances: DuckDBInstance[] = [];
    for (const b of builds) {
      const inst = await b.engine.createEngine({ threads: 1, tempDirectory: join(dir, `tmp-${b.name}`) });
      const c = await inst.connect();
      await c.run(`ATTACH ':memory:' AS "basic@v"; CREATE SCHEMA "basic@v".sales;
        CREATE TABLE "basic@v".sales.t AS SELECT range AS x FROM range(50)`);
      c.disconnectSync();
      await b.engine.sealEngine(inst, [join(dir, 'data')]);
      instances.push(inst);
    }
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; ${N} sessions per build and round, ${ROUNDS} rounds; CPU ms per session end (median of rounds)`,
    );
    const per: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < builds.length; k++) {
        const b = (k + r) % builds.length;
        const { name, engine } = builds[b]!;
        let total = 0;
        for (let i = 0; i < N; i++) {
          const c = await engine.connectSession(instances[b]!, baseline);
          await startLikeASession(c, i);
          const t0 = cpuMs();
          await engine.endSession(c);
          total += cpuMs() - t0;
        }
        (per[name] ??= []).push(total / N);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (const [name, xs] of Object.entries(per))
      console.log(
        `  ${name.padEnd(8)} ${median(xs).toFixed(3)} ms  (rounds: ${xs.map((x) => x.toFixed(3)).join(' ')})`,
      );
    console.log(
      `load average at end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
