/**
 * Catalog statements in-process (issue 24): psql 15's \d family and the client fixtures' catalog texts,
 * rewritten as the gateway does, on a version-like database, timed per statement in DuckDB only —
 * prepare (bind, optimize, physical plan) and run apart, CPU of this process — so the emulation's own
 * cost is seen without the wire, the gateway's analysis or the machine's other load moving it much.
 *
 *   npx tsc -p . && node dist/bench/catalog-plan.js [--runs 5] [--top 12] [--clients] [--explain <substring> [--operators]]
 *     [--sql <text> …] [--sql-file <JSON array of texts>]   (only these texts; --raw: as DuckDB SQL, not rewritten) [--guards]   (the session guards installed, as on a session connection;
 *     --without <name,…> drops those guards again, to see what each costs)
 *     [--files]   (the emulation in files attached READ_ONLY, as the gateway
 *     holds it: pg/catalog/install.ts; the version's rows written into its per-version file, then attached READ_ONLY)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { guardStatements } from '../src/engine/session-connections.js';
import { installCompat } from '../src/pg/catalog/install.js';
import { relationInfoStatement } from '../src/pg/catalog/session.js';
import { snapshotVersionCatalog } from '../src/pg/catalog/version-snapshot.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : dflt);
const RUNS = Number(opt('--runs', '5'));
const TOP = Number(opt('--top', '12'));
const EXPLAIN = opt('--explain', '');
const fixture = (name: string) => new URL(`../../test/fixtures-clients/${name}`, import.meta.url);

export async function versionLike(conn: DuckDBConnection): Promise<Map<string, number>> {
  const files = args.includes('--files') ? mkdtempSync(join(tmpdir(), 'fdl-catalog-plan-')) : undefined;
  await installCompat(conn, { catalogDir: files });
  if (files) {
    process.on('exit', () => rmSync(files, { recursive: true, force: true }));
    // as the views builder writes a version's rows: into the per-version file, attached writable for that
    await conn.run(`DETACH fdl_pg_versions`);
    await conn.run(`ATTACH '${join(files, 'fdl_pg_versions-0.duckdb')}' AS fdl_pg_versions`);
  }
  for (const sql of [
    `ATTACH ':memory:' AS v_test`,
    `USE v_test`,
    `CREATE VIEW main.users AS SELECT * FROM (VALUES (1, 'ann', 1.5::DECIMAL(10,2))) t(id, name, score)`,
    `COMMENT ON VIEW main.users IS 'People who buy things'`,
    `CREATE SCHEMA sales`,
    `CREATE VIEW sales.orders AS SELECT * FROM (VALUES (10::BIGINT, 1, 120.5::DOUBLE, ['a']::VARCHAR[], '2024-01-02'::DATE)) t(id, user_id, amount, tags, day)`,
    `CREATE VIEW sales.customers AS SELECT * FROM (VALUES (1, 'x')) t(id, name)`,
    `CREATE VIEW sales.big_orders AS SELECT * FROM sales.orders WHERE amount > 100`,
    `SET VARIABLE pg_user = 'alice'`,
    `SET VARIABLE pg_database = 'basic'`,
    `SET VARIABLE pg_repositories = ['basic']`,
    `SET VARIABLE pg_search_path = '"$user", public'`,
    `SET VARIABLE pg_search_schemas = ['main']`,
    `SET VARIABLE pg_server_version = '15.0'`,
    relationInfoStatement([
      { schema: 'main', name: 'users', kind: 'table', rowCount: 1 },
      { schema: 'sales', name: 'orders', kind: 'table', rowCount: 1 },
      { schema: 'sales', name: 'customers', kind: 'table', rowCount: 1 },
      { schema: 'sales', name: 'big_orders', kind: 'view' },
    ]),
  ])
    await conn.run(sql);
  const t0 = performance.now();
  await snapshotVersionCatalog(conn, 'v_test');
  if (files) {
    await conn.run('CHECKPOINT fdl_pg_versions');
    await conn.run('DETACH fdl_pg_versions');
    await conn.run(`ATTACH '${join(files, 'fdl_pg_versions-0.duckdb')}' AS fdl_pg_versions (READ_ONLY)`);
  }
  console.log(`the version's catalog snapshot took ${(performance.now() - t0).toFixed(1)} ms`);
  const oids = new Map<string, number>();
  for (const r of (
    await conn.runAndReadAll(`SELECT view_name, view_oid FROM duckdb_views() WHERE database_name = 'v_test'`)
  ).getRowObjectsJS())
    oids.set(String(r.view_name), Number(r.view_oid));
  return oids;
}

function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const t0 = process.cpuUsage();
  return work().then(() => {
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The lower quartile of a statement's runs: CPU time on a loaded machine only grows (cache misses, migrations). */
const low = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 4)]!;

async function main(): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:', { threads: opt('--threads', '1') });
  const conn = await instance.connect();
  // The session guards shadow built-ins with temporary macros (engine/*-guards.ts), as on every session
  // connection: a catalog macro that calls a guarded name unqualified gets the guard pasted into its plan.
  const oids = await versionLike(conn);
  if (args.includes('--guards')) await conn.run(await guardStatements(instance));
  // Which guard a statement pays for: the named guards dropped again (`--without '||,replace'`).
  for (const name of opt('--without', '').split(',').filter(Boolean))
    await conn.run(`DROP MACRO IF EXISTS temp.main."${name.replace(/"/g, '""')}"`);
  const psql = JSON.parse(readFileSync(fixture('psql15-backslash.json'), 'utf8')) as {
    statements: Array<{ command: string; sql: string }>;
  };
  const clients = JSON.parse(readFileSync(fixture('client-queries.json'), 'utf8')) as Array<{
    source: string;
    sql: string;
  }>;
  const texts = psql.statements.map((s) => ({
    name: s.command,
    sql: s.sql
      .replace(/\{\{users_oid\}\}/g, String(oids.get('users')))
      .replace(/\{\{big_orders_oid\}\}/g, String(oids.get('big_orders'))),
  }));
  // The other clients' catalog texts (pgjdbc, SQLAlchemy, drivers), those without parameters.
  if (args.includes('--clients'))
    texts.push(
      ...clients
        .filter(
          (q) =>
            !/\$1\b/.test(q.sql) &&
            !/^\s*(BEGIN|COMMIT|ROLLBACK|SET|SHOW)\b/i.test(q.sql) &&
            !q.source.startsWith('psql'),
        )
        .map((q) => ({ name: q.source.split(' ')[0]!, sql: q.sql.replace(/\b16384\b/g, String(oids.get('users'))) })),
    );
  const extra = args.flatMap((a, i) => (a === '--sql' ? [{ name: 'sql', sql: args[i + 1]! }] : []));
  // Texts from a file: a JSON array of strings (e.g. a client's statements, parameters written in).
  for (const [i, sql] of (
    JSON.parse(args.includes('--sql-file') ? readFileSync(opt('--sql-file', ''), 'utf8') : '[]') as string[]
  ).entries())
    extra.push({ name: `file#${i}`, sql });
  const statements: { name: string; sql: string }[] = [];
  for (const t of extra.length ? extra : texts) {
    try {
      const rewritten = args.includes('--raw') ? t.sql : rewriteForDuckDB(t.sql);
      await conn.runAndReadAll(rewritten);
      statements.push({ name: t.name, sql: rewritten });
      if (EXPLAIN && t.sql.includes(EXPLAIN)) {
        console.log(rewritten);
        if (args.includes('--operators')) {
          // the operators that took the most time, flattened from DuckDB's JSON profile (the tree is too wide to read)
          const r = await conn.runAndReadAll(`EXPLAIN (ANALYZE, FORMAT JSON) ${rewritten}`);
          const ops: { name: string; time: number; rows: number; extra: string }[] = [];
          const walk = (n: Record<string, unknown>, depth: number) => {
            ops.push({
              name: `${' '.repeat(depth)}${String(n.operator_name ?? n.operator_type ?? '?')}`,
              time: Number(n.operator_timing ?? 0) * 1000,
              rows: Number(n.operator_cardinality ?? 0),
              extra: JSON.stringify(n.extra_info ?? {}).slice(0, 140),
            });
            for (const c of (n.children as Record<string, unknown>[]) ?? []) walk(c, depth + 1);
          };
          const profile = JSON.parse(String(r.getRows()[0]?.[1])) as Record<string, unknown>;
          walk(profile, 0);
          console.log(`latency ${(Number(profile.latency ?? 0) * 1000).toFixed(2)} ms, ${ops.length} operators`);
          for (const o of ops)
            if (o.time >= 0.05)
              console.log(`${o.time.toFixed(2).padStart(8)} ms ${String(o.rows).padStart(6)}  ${o.name}  ${o.extra}`);
        } else console.log(String((await conn.runAndReadAll(`EXPLAIN ANALYZE ${rewritten}`)).getRows()[0]?.[1]));
      }
    } catch (e) {
      console.log(`skip ${t.name}: ${(e as Error).message.slice(0, 100)}`);
    }
  }
  // Rounds over every statement in turn, so a burst of the machine's load spreads over all of them.
  const prepare = statements.map(() => [] as number[]);
  const run = statements.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++)
    for (const [k, t] of statements.entries()) {
      let stmt: Awaited<ReturnType<DuckDBConnection['prepare']>> | undefined;
      prepare[k]!.push(await cpuMs(async () => (stmt = await conn.prepare(t.sql))));
      run[k]!.push(await cpuMs(async () => (await stmt!.runAndReadAll()).getRows()));
    }
  const rows = statements.map((t, k) => ({ ...t, prepare: low(prepare[k]!), run: low(run[k]!) }));
  const total = rows.map((r) => r.prepare + r.run);
  console.log(
    `${rows.length} statements, CPU ms per statement (lower quartile of ${RUNS} runs): p50 ${median(total).toFixed(2)}, max ${Math.max(...total).toFixed(2)}, sum ${total.reduce((a, b) => a + b, 0).toFixed(1)}`,
  );
  for (const r of [...rows].sort((a, b) => b.prepare + b.run - (a.prepare + a.run)).slice(0, TOP))
    console.log(
      `${(r.prepare + r.run).toFixed(2).padStart(7)} (prepare ${r.prepare.toFixed(2)}, run ${r.run.toFixed(2)})  ${r.name.padEnd(8)} ${r.sql.replace(/\s+/g, ' ').slice(0, 90)}`,
    );
  conn.closeSync();
  instance.closeSync();
}

// imported by another bench (versionLike) only the setup runs
if (process.argv[1]?.endsWith('catalog-plan.js')) await main();
