/**
 * Clients as their new users meet them, each run against PostgreSQL 15 (the fixture's sales schema
 * copied into it) and against the gateway, outputs compared line by line: Python probes print one
 * `<check>: <result>` line per call (test/clients/twins_*.py; psycopg 3 named cursors, SQLAlchemy 2
 * over psycopg 3, asyncpg), and a Java probe does the same with pgjdbc (test/clients/JdbcTwins.java).
 * An error prints as its SQLSTATE, so a refusal on one side only is a difference too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixtures, ROOT, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { RawPg } from './support/raw-pg.js';
import { copySalesSchema } from './support/sales-mirror.js';
import { describeProbe, runProbe, type ProbeResult } from './support/probe.js';
import { venvPython } from './support/python-venv.js';

const PROBES = join(ROOT, 'test', 'clients');
const JAR = '/usr/share/java/postgresql.jar';

describe('client twins: the same calls against PostgreSQL 15 and the gateway', () => {
  let pg: PgCluster;
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const classes = mkdtempSync(join(tmpdir(), 'fdl-twins-java-'));
  let compiled: Promise<ProbeResult>;

  before(async () => {
    // javac takes seconds: it compiles while the servers start.
    compiled = runProbe('javac', ['-cp', JAR, '-d', classes, join(PROBES, 'JdbcTwins.java')], { timeoutMs: 120_000 });
    [pg, gw] = await Promise.all([
      startPgCluster({ settings: { TimeZone: 'UTC' } }),
      startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]),
    ]);
    const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
    try {
      await copySalesSchema(pg, c);
    } finally {
      await c.close();
    }
  }, { timeout: 180_000 });
  after(async () => {
    await gw?.stop();
    await pg?.stop();
    repos.cleanup();
    rmSync(classes, { recursive: true, force: true });
  }, { timeout: 30_000 });

  const targets = () => [
    { name: 'PostgreSQL 15', host: '127.0.0.1', port: pg.port, db: 'postgres', user: 'postgres' },
    { name: 'gateway', host: gw.host, port: gw.port, db: 'basic@v2', user: 'me' },
  ];

  /** Run a probe against both, in parallel; the gateway's lines must be PostgreSQL's, every expected check among them. */
  async function twins(cmd: string, args: string[], checks: string[]): Promise<void> {
    const [expected, actual] = await Promise.all(targets().map(async (t) => {
      const env = { FDL_HOST: t.host, FDL_PORT: String(t.port), FDL_DB: t.db, FDL_USER: t.user, PGTZ: 'UTC', TZ: 'UTC' };
      const r = await runProbe(cmd, args, { cwd: PROBES, env, timeoutMs: 90_000 });
      assert.equal(r.code, 0, `${t.name}: ${describeProbe(r)}`);
      return r;
    }));
    const lines = (r: ProbeResult) => r.stdout.split('\n').filter((l) => l !== '');
    const pgLines = lines(expected!);
    for (const c of checks) assert.ok(pgLines.some((l) => l.startsWith(`${c}: `)), `PostgreSQL 15 printed no "${c}"\n${describeProbe(expected!)}`);
    const gwLines = lines(actual!);
    for (let i = 0; i < Math.max(pgLines.length, gwLines.length); i++) {
      assert.equal(gwLines[i], pgLines[i], `line ${i + 1} differs\n--- gateway stderr\n${actual!.stderr.slice(-3000)}`);
    }
  }

  test('psycopg 3 named cursors (itersize, scroll, NO SCROLL, WITH HOLD, binary, parameters) and SQLAlchemy 2 stream_results', async () => {
    await twins(venvPython(), ['twins_cursors.py'], [
      'named cursor, itersize 7, parameter', 'named cursor, fetchone/fetchmany/fetchall, two parameters',
      'scrollable cursor: relative and absolute, back and forth', 'NO SCROLL cursor scrolled back', 'NO SCROLL cursor scrolled forward',
      'binary named cursor', 'WITH HOLD cursor read after COMMIT', 'two named cursors read in turn', 'named cursor over a failing query',
      'SQLAlchemy 2 stream_results over psycopg 3', 'SQLAlchemy 2 yield_per partitions',
    ]);
  });
});
