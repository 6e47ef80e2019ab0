/**
 * Catalog speed (issue 24), side by side in one run: the catalog statements that real clients send —
 * psql's \d family, pgjdbc getTables/getColumns/getPrimaryKeys/getFunctions, SQLAlchemy 1.4 reflection,
 * SQLAlchemy 2's Inspector (psycopg 3, the test venv's: test/support/python-venv.ts) and sqlsmith's start-up —
 * timed per statement by the same proxy (./statement-timer-proxy.ts) in front of the gateway and in
 * front of PostgreSQL 15 holding the same tables. The gateway runs twice: with its result cache as
 * served ("gw"), which answers a catalog statement it has answered before for the same version, user and
 * settings, and with it off ("gw-nocache"), so every statement does its work. The first round's p50
 * (nothing cached yet) is printed apart from the later rounds'. Every round runs each server in turn,
 * a different one first each round. Targets: p50 ≤ 2 ms per catalog statement, sqlsmith start-up ≤ 2 s.
 *
 *   npx tsc -p . && node dist/bench/catalog-speed.js [--rounds 3] [--only psql,jdbc,sqlalchemy,sqlalchemy2,sqlsmith]
 *     [--before <another build's dist/src/cli/main.js>]   (that build's gateway too, the same two ways)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, startGateway } from '../test/support/gateway.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { venvPython } from '../test/support/python-venv.js';
import { RawPg } from '../test/support/raw-pg.js';
import { copySalesSchema } from '../test/support/sales-mirror.js';
import { startTimerProxy, type TimedStatement, type TimerProxy } from './statement-timer-proxy.js';

const args = process.argv.slice(2);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
const ONLY = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1]!.split(',')) : null;
const BEFORE = args.includes('--before') ? args[args.indexOf('--before') + 1] : undefined;
const log = (s: string) => process.stdout.write(s + '\n');
const JAR = '/usr/share/java/postgresql.jar';

interface Target {
  name: string;
  proxy: TimerProxy;
  db: string;
  user: string;
}

function run(
  cmd: string,
  argv: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d));
    p.stderr.on('data', (d: Buffer) => (out += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: performance.now() - t0 });
    });
  });
}

const JAVA = `import java.sql.*;
public class CatalogBench {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + a[0] + "/" + a[1] + "?sslmode=disable&user=" + a[2])) {
      DatabaseMetaData md = c.getMetaData();
      drain(md.getSchemas());
      drain(md.getTables(null, "sales", "%", new String[] {"TABLE"}));
      drain(md.getTables(null, null, "%", null));
      drain(md.getColumns(null, "sales", "orders", "%"));
      drain(md.getColumns(null, "sales", "customers", "%"));
      drain(md.getColumns(null, null, "%", "%"));
      drain(md.getPrimaryKeys(null, "sales", "orders"));
      drain(md.getFunctions(null, "pg_catalog", "abs"));
    }
  }
  static void drain(ResultSet rs) throws SQLException { while (rs.next()) rs.getString(1); rs.close(); }
}`;

const PYTHON = `import sys, sqlalchemy as sa
e = sa.create_engine(sys.argv[1])
insp = sa.inspect(e)
insp.get_schema_names()
for t in insp.get_table_names(schema='sales'):
    insp.get_columns(t, schema='sales'); insp.get_pk_constraint(t, schema='sales'); insp.get_indexes(t, schema='sales')
sa.MetaData().reflect(bind=e, schema='sales', views=True)
`;

// SQLAlchemy 2's Inspector, every public per-table method, then reflection with views (psycopg 3's dialect).
const PYTHON2 = `import sys, sqlalchemy as sa
e = sa.create_engine(sys.argv[1])
insp = sa.inspect(e)
insp.get_schema_names()
insp.get_view_names(schema='sales')
for t in insp.get_table_names(schema='sales'):
    for m in ('get_columns', 'get_pk_constraint', 'get_indexes', 'get_foreign_keys', 'get_unique_constraints', 'get_check_constraints', 'get_table_comment'):
        getattr(insp, m)(t, schema='sales')
sa.MetaData().reflect(bind=e, schema='sales', views=True)
`;

const PSQL_COMMANDS = ['\\d', '\\dt', '\\dn', '\\dv', '\\d sales.orders', '\\d+ sales.customers', '\\l'];

async function client(kind: string, t: Target, javaDir: string): Promise<{ ok: boolean; ms: number; note: string }> {
  const port = String(t.proxy.port);
  let r: { code: number | null; out: string; ms: number };
  if (kind === 'psql') {
    r = await run(
      'psql',
      [
        `host=127.0.0.1 port=${port} dbname=${t.db} user=${t.user} sslmode=disable`,
        '-X',
        '-P',
        'pager=off',
        ...PSQL_COMMANDS.flatMap((c) => ['-c', c]),
      ],
      60_000,
    );
  } else if (kind === 'jdbc') {
    r = await run('java', ['-cp', `${javaDir}:${JAR}`, 'CatalogBench', port, t.db, t.user], 120_000);
  } else if (kind === 'sqlalchemy') {
    r = await run(
      '/usr/bin/python3',
      ['-c', PYTHON, `postgresql+psycopg2://${t.user}@127.0.0.1:${port}/${t.db}?sslmode=disable`],
      120_000,
    );
  } else if (kind === 'sqlalchemy2') {
    r = await run(
      venvPython(),
      ['-c', PYTHON2, `postgresql+psycopg://${t.user}@127.0.0.1:${port}/${t.db}?sslmode=disable`],
      120_000,
    );
  } else {
    r = await run(
      'sqlsmith',
      [
        `--target=host=127.0.0.1 port=${port} dbname=${t.db} user=${t.user} sslmode=disable`,
        '--dry-run',
        '--max-queries=1',
        '--seed=1',
      ],
      180_000,
    );
  }
  const bad = r.code !== 0 || /ERROR|Exception|Traceback/.test(r.out);
  return {
    ok: !bad,
    ms: r.ms,
    note: bad
      ? r.out
          .split('\n')
          .filter((l) => /ERROR|Exception|Error/.test(l))
          .slice(0, 2)
          .join(' | ')
          .slice(0, 200)
      : '',
  };
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (x: number) => (Number.isNaN(x) ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(1));

async function main(): Promise<void> {
  const repos = copyFixtures('repos/basic');
  const javaDir = mkdtempSync(join(tmpdir(), 'catalog-bench-'));
  const builds: { name: string; cli?: string }[] = [{ name: 'gw' }];
  if (BEFORE) builds.push({ name: 'before', cli: BEFORE });
  const gateways: { name: string; gw: Awaited<ReturnType<typeof startGateway>> }[] = [];
  for (const b of builds)
    for (const cache of ['', '-nocache']) {
      const gw = await startGateway(
        [
          '--repo',
          `basic=${repos.path('repos/basic')}`,
          '--cache-dir',
          join(repos.dir, `cache-${b.name}${cache}`),
          ...(cache ? ['--result-cache-bytes', '0'] : []),
        ],
        { cli: b.cli },
      );
      gateways.push({ name: `${b.name}${cache}`, gw });
    }
  const gw = gateways[0]!.gw;
  const pg = await startPgCluster({ settings: { TimeZone: 'UTC' } });
  try {
    const raw = await RawPg.connect({ host: gw.host, port: gw.port, user: 'bench', database: 'basic' });
    await copySalesSchema(pg, raw);
    await raw.close();
    writeFileSync(join(javaDir, 'CatalogBench.java'), JAVA);
    const javac = await run('javac', ['-cp', JAR, '-d', javaDir, join(javaDir, 'CatalogBench.java')], 120_000);
    if (javac.code !== 0) throw new Error(`javac: ${javac.out}`);
    const targets: Target[] = [];
    for (const g of gateways)
      targets.push({ name: g.name, proxy: await startTimerProxy(g.gw), db: 'basic', user: 'bench' });
    targets.push({ name: 'pg15', proxy: await startTimerProxy(pg), db: 'postgres', user: 'postgres' });
    log(
      `machine: ${process.env.BENCH_NOTE ?? 'shared, loaded (figures are noisy; compare within the run)'}; load ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}; rounds ${ROUNDS}`,
    );
    log(
      'client       server         runs  stmts/run   p50 ms    p99 ms   max ms  p50 1st  p50 later  client wall ms   ok',
    );
    for (const kind of ['psql', 'jdbc', 'sqlalchemy', 'sqlalchemy2', 'sqlsmith']) {
      if (ONLY && !ONLY.has(kind)) continue;
      const rounds = ROUNDS;
      const runs = new Map(
        targets.map((t) => [t.name, { times: [] as TimedStatement[][], walls: [] as number[], ok: true, note: '' }]),
      );
      for (let i = 0; i < rounds; i++) {
        // a different server first each round, so a load that rises or falls favours none
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(k + i) % targets.length]!;
          const acc = runs.get(t.name)!;
          t.proxy.take();
          const r = await client(kind, t, javaDir);
          acc.ok &&= r.ok;
          acc.note ||= r.note;
          acc.walls.push(r.ms);
          acc.times.push(t.proxy.take());
        }
      }
      for (const t of targets) {
        const { times, walls, ok, note } = runs.get(t.name)!;
        const all = times.flat().map((s) => s.ms);
        const first = (times[0] ?? []).map((s) => s.ms);
        const later = times.slice(1).flatMap((r) => r.map((s) => s.ms));
        log(
          `${kind.padEnd(12)} ${t.name.padEnd(14)} ${String(rounds).padStart(4)}  ${String(Math.round(all.length / rounds)).padStart(9)}  ${ms(pct(all, 50)).padStart(7)}  ${ms(pct(all, 99)).padStart(8)}  ${ms(Math.max(...all)).padStart(7)}  ${ms(pct(first, 50)).padStart(7)}  ${ms(pct(later, 50)).padStart(9)}  ${ms(pct(walls, 50)).padStart(15)}   ${ok ? 'yes' : `NO ${note}`}`,
        );
      }
      const gwTimes = runs.get('gw-nocache')?.times.flat() ?? [];
      const top = [...gwTimes].sort((a, b) => b.ms - a.ms).slice(0, 3);
      for (const s of top)
        log(`    slowest on gw-nocache ${ms(s.ms).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
    }
    for (const t of targets) await t.proxy.close();
  } finally {
    for (const g of gateways) await g.gw.stop();
    await pg.stop();
    repos.cleanup();
    rmSync(javaDir, { recursive: true, force: true });
  }
}

await main();
