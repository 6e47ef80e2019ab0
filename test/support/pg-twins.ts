/**
 * PostgreSQL 15 and the gateway side by side, for differential checks: the gateway serves
 * repos/basic (a copy), PostgreSQL gets the fixture's sales schema (copied through the gateway)
 * and a fresh connection after the copy; one raw connection to each, as `conns.pg` and `conns.gw`.
 */
import { writeFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './gateway.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { RawPg } from './raw-pg.js';
import { copySalesSchema } from './sales-mirror.js';

export interface PgTwins {
  readonly pg: PgCluster;
  readonly gw: RunningGateway;
  readonly conns: { pg: RawPg; gw: RawPg };
  stop(): Promise<void>;
}

/**
 * `settings`: the PostgreSQL server's (e.g. TimeZone); `params`: the gateway connection's startup parameters;
 * `config`: the gateway's config file (e.g. nativeTableBytes).
 */
export async function startPgTwins(
  opts: { settings?: Record<string, string>; params?: Record<string, string>; config?: object } = {},
): Promise<PgTwins> {
  const repos = copyFixtures('repos/basic');
  const config: string[] = [];
  if (opts.config) {
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify(opts.config));
    config.push('--config', join(repos.dir, 'config.json'));
  }
  const [pg, gw] = await Promise.all([
    startPgCluster(opts.settings ? { settings: opts.settings } : undefined),
    startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache'), ...config]),
  ]);
  const gwConn = await RawPg.connect({
    port: gw.port,
    user: 'me',
    database: 'basic@v2',
    ...(opts.params ? { params: opts.params } : {}),
  });
  await copySalesSchema(pg, gwConn);
  const pgConn = await RawPg.connect({ port: pg.port });
  const conns = { pg: pgConn, gw: gwConn };
  return {
    pg,
    gw,
    conns,
    async stop() {
      await conns.gw.close().catch(() => undefined);
      await conns.pg.close().catch(() => undefined);
      await gw.stop();
      await pg.stop();
      repos.cleanup();
    },
  };
}

/**
 * Twins for a test file in UTC (the differential files' usual set-up): started before its tests, stopped after;
 * `conns()` reaches them from a test.
 */
export function pgTwinsInUtc(): { conns: () => PgTwins['conns'] } {
  let twins: PgTwins | undefined;
  before(
    async () => {
      twins = await startPgTwins({ settings: { TimeZone: 'UTC' }, params: { TimeZone: 'UTC' } });
    },
    { timeout: 120_000 },
  );
  after(
    async () => {
      await twins?.stop();
    },
    { timeout: 30_000 },
  );
  return { conns: () => twins!.conns };
}
