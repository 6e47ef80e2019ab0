/**
 * Catalog speed (issue 24), side by side in one run: the catalog statements that real clients send —
 * psql's \d family, pgjdbc getTables/getColumns, SQLAlchemy 1.4 reflection and sqlsmith's start-up —
 * timed per statement by the same proxy (./statement-timer-proxy.ts) in front of the gateway (result
 * cache off, so every statement does its work) and in front of PostgreSQL 15 holding the same tables.
 * Targets: p50 ≤ 2 ms per catalog statement, sqlsmith start-up ≤ 2 s.
 *
 *   npx tsc -p . && node dist/bench/catalog-speed.js [--rounds 3] [--only psql,jdbc,sqlalchemy,sqlsmith]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, startGateway } from '../test/support/gateway.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { RawPg } from '../test/support/raw-pg.js';
import { copySalesSchema } from '../test/support/sales-mirror.js';
import { startTimerProxy, type TimedStatement, type TimerProxy } from './statement-timer-proxy.js';

const args = process.argv.slice(2);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
const ONLY = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1]!.split(',')) : null;
const log = (s: string) => process.stdout.write(s + '\n');
const JAR = '/usr/share/java/postgresql.jar';

interface Target {
  name: 'gateway' | 'pg15';
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
  const gw = await startGateway([
    '--repo',
    `basic=${repos.path('repos/basic')}`,
    '--cache-dir',
    join(repos.dir, 'cache'),
    '--result-cache-bytes',
    '0',
  ]);
  const pg = await startPgCluster({ settings: { TimeZone: 'UTC' } });
  try {
    const raw = await RawPg.connect({ host: gw.host, port: gw.port, user: 'bench', database: 'basic' });
    await copySalesSchema(pg, raw);
    await raw.close();
    writeFileSync(join(javaDir, 'CatalogBench.java'), JAVA);
    const javac = await run('javac', ['-cp', JAR, '-d', javaDir, join(javaDir, 'CatalogBench.java')], 120_000);
    if (javac.code !== 0) throw new Error(`javac: ${javac.out}`);
    const targets: Target[] = [
      { name: 'gateway', proxy: await startTimerProxy(gw), db: 'basic', user: 'bench' },
      { name: 'pg15', proxy: await startTimerProxy(pg), db: 'postgres', user: 'postgres' },
    ];
    log(
      `machine: ${process.env.BENCH_NOTE ?? 'shared, loaded (figures are noisy; compare within the run)'}; rounds ${ROUNDS} (sqlsmith 1)`,
    );
    log('client       server   runs  stmts/run   p50 ms    p99 ms   max ms   client wall ms   ok');
    for (const kind of ['psql', 'jdbc', 'sqlalchemy', 'sqlsmith']) {
      if (ONLY && !ONLY.has(kind)) continue;
      const rounds = kind === 'sqlsmith' ? 1 : ROUNDS;
      const slowest = new Map<string, TimedStatement[]>();
      for (const t of targets) {
        const times: TimedStatement[] = [];
        const walls: number[] = [];
        let ok = true;
        let note = '';
        for (let i = 0; i < rounds; i++) {
          t.proxy.take();
          const r = await client(kind, t, javaDir);
          ok &&= r.ok;
          note ||= r.note;
          walls.push(r.ms);
          times.push(...t.proxy.take());
        }
        const xs = times.map((s) => s.ms);
        log(
          `${kind.padEnd(12)} ${t.name.padEnd(8)} ${String(rounds).padStart(4)}  ${String(Math.round(times.length / rounds)).padStart(9)}  ${ms(pct(xs, 50)).padStart(7)}  ${ms(pct(xs, 99)).padStart(8)}  ${ms(Math.max(...xs)).padStart(7)}  ${ms(pct(walls, 50)).padStart(15)}   ${ok ? 'yes' : `NO ${note}`}`,
        );
        slowest.set(t.name, times);
      }
      const gwTimes = slowest.get('gateway') ?? [];
      const top = [...gwTimes].sort((a, b) => b.ms - a.ms).slice(0, 3);
      for (const s of top)
        log(`    slowest on gateway ${ms(s.ms).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
    }
    for (const t of targets) await t.proxy.close();
  } finally {
    await gw.stop();
    await pg.stop();
    repos.cleanup();
    rmSync(javaDir, { recursive: true, force: true });
  }
}

await main();
