/**
 * Drivers in languages the rest of the client suite does not cover, each exercising what it does
 * in production: ruby-pg (type registry query, typed and array parameters, binary results,
 * prepare/describe_prepared/exec_prepared, ftable/ftablecol metadata, cancel) and Perl DBD::Pg
 * (placeholders, prepare_cached with server-side statements, type mapping, table_info/column_info,
 * array and binary bytea parameters, async cancel). Each probe (test/clients/) runs first against a
 * private PostgreSQL 15 holding the fixture's sales schema, then against the gateway.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, serveBasic, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { RawPg } from './support/raw-pg.js';
import { copySalesSchema } from './support/sales-mirror.js';
import { describeProbe, passedChecks, runProbe } from './support/probe.js';

const PROBES = join(ROOT, 'test', 'clients');

describe('ruby-pg and Perl DBD::Pg, against PostgreSQL 15 and the gateway', () => {
  let pg: PgCluster;
  let gw: RunningGateway;

  before(
    async () => {
      [pg, gw] = await Promise.all([startPgCluster(), serveBasic()]);
      const c = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
      try {
        await copySalesSchema(pg, c);
      } finally {
        await c.close();
      }
    },
    { timeout: 120_000 },
  );
  after(
    async () => {
      await gw?.stop();
      await pg?.stop();
    },
    { timeout: 30_000 },
  );

  const targets = () => [
    {
      name: 'PostgreSQL 15',
      env: {
        FDL_HOST: '127.0.0.1',
        FDL_PORT: String(pg.port),
        FDL_DB: 'postgres',
        FDL_USER: 'postgres',
        LONG_QUERY: 'select pg_sleep(30)',
      },
    },
    {
      name: 'gateway',
      env: {
        FDL_HOST: gw.host,
        FDL_PORT: String(gw.port),
        FDL_DB: 'basic@v2',
        FDL_USER: 'me',
        LONG_QUERY: 'select count(*) from range(100000000000) t(i) where i % 7 = 3',
      },
    },
  ];

  async function probe(cmd: string, file: string, checks: string[]): Promise<void> {
    for (const t of targets()) {
      const r = await runProbe(cmd, [join(PROBES, file)], {
        cwd: PROBES,
        env: { ...t.env, PGSSLMODE: 'prefer' },
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 0, `${t.name}: ${describeProbe(r)}`);
      const passed = passedChecks(r.stdout);
      for (const c of [...checks, 'done'])
        assert.ok(passed.includes(c), `${t.name}: check "${c}" did not pass\n${describeProbe(r)}`);
    }
  }

  test('ruby-pg: type registry, typed/array parameters, binary results, prepared statements, ftable/ftablecol, cancel', async () => {
    await probe('ruby', 'ruby_pg_probe.rb', [
      'connect',
      'type registry query and decoded results',
      'typed parameters, arrays included',
      'binary results',
      'prepared statements: describe_prepared and exec_prepared',
      'result metadata: ftable, ftablecol, ftype, fmod',
      'cancel long query 57014',
      'error then recovery',
    ]);
  });

  test('Perl DBD::Pg: prepare_cached, type mapping, table_info/column_info, array and bytea parameters, async cancel', async () => {
    await probe('perl', 'perl_dbd_pg_probe.pl', [
      'connect',
      'placeholders and prepare_cached (server-side prepared statement reused)',
      'type mapping: TYPE and pg_type of result columns',
      'metadata API: table_info and column_info',
      'array parameters and bytea bound in binary',
      'cancel long query 57014',
      'error then recovery',
    ]);
  });
});
