/**
 * Parameters a StartupMessage sets (its own, and `options=-c name=value` as PGOPTIONS sends it), against
 * a real PostgreSQL 15: a name PostgreSQL does not know refuses the login (FATAL 42704 `unrecognized
 * configuration parameter`, the name as written) — `-c memory_limit=10GB` was silently ignored — while
 * every name PostgreSQL 15 knows (pg-parameter-names.ts, generated from its own server) and any dotted
 * (custom) name is accepted. psql/libpq and node-postgres.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { PG_PARAMETER_NAMES } from '../src/pg/catalog/pg-parameter-names.js';

describe('startup parameters PostgreSQL 15 does not know', () => {
  let gw: ContainmentGateway;
  let server: PgCluster;
  before(async () => {
    [gw, server] = await Promise.all([containmentGateway({ statementTimeoutMs: 30_000 }), startPgCluster()]);
  });
  after(async () => {
    await gw?.stop();
    await server?.stop();
  });

  /** psql's answer with PGOPTIONS set: its exit status, what it printed, and the FATAL line without the connection's words. */
  function psql(port: number, user: string, database: string, options: string, sql: string) {
    const r = spawnSync(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-c', sql],
      {
        env: { ...process.env, PGOPTIONS: options, PGCONNECT_TIMEOUT: '10' },
        encoding: 'utf8',
      },
    );
    const fatal = /FATAL:\s+(.*)/.exec(r.stderr)?.[1] ?? '';
    return { status: r.status, out: r.stdout.trim(), fatal };
  }
  const onGateway = (options: string, sql: string) => psql(gw.s.port, 'alice', 'basic', options, sql);
  const onPostgres = (options: string, sql: string) => psql(server.port, 'postgres', 'postgres', options, sql);

  test('psql PGOPTIONS: unknown names refused as PostgreSQL 15 refuses them; its own and dotted names accepted', () => {
    const refused = [
      '-c memory_limit=10GB',
      '-c Memory_Limit=1',
      '--memory-limit=1',
      '-c threads=64',
      '-c work_mem=1MB -c enable_external_access=true',
    ];
    for (const options of refused) {
      const p = onPostgres(options, 'select 1');
      const g = onGateway(options, 'select 1');
      assert.equal(p.status, 2, `${options} on PostgreSQL`);
      assert.deepEqual(g, p, options);
      assert.match(g.fatal, /^unrecognized configuration parameter "/);
    }
    // Accepted by both: PostgreSQL's own names (set or not, they log in) and custom dotted ones.
    for (const options of [
      '-c work_mem=64MB',
      '-c seed=0.5',
      '-c statement_timeout=5s',
      '-c foo.bar=1',
      '-c search_path=public',
    ]) {
      const p = onPostgres(options, 'select 1');
      const g = onGateway(options, 'select 1');
      assert.deepEqual([p.status, p.out], [0, '1'], `${options} on PostgreSQL`);
      assert.deepEqual([g.status, g.out], [0, '1'], `${options} on the gateway`);
    }
    // The refused login changed nothing: the next one is served, and memory_limit is still no parameter of a session.
    assert.deepEqual(onGateway('', 'show memory_limit').status, 1);
    assert.equal(onGateway('-c foo.bar=x', 'show foo.bar').out, 'x');
  });

  test('node-postgres: options and startup parameters', async () => {
    const connectError = async (config: pg.ClientConfig) => {
      const c = new pg.Client(config);
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.end();
        return null;
      } catch (e) {
        const err = e as { code?: string; message: string; severity?: string };
        return { code: err.code, message: err.message, severity: err.severity };
      }
    };
    const gateway = { host: '127.0.0.1', port: gw.s.port, user: 'alice', database: 'basic' };
    const postgres = { host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres' };
    for (const options of ['-c memory_limit=10GB', '-c max_memory=1']) {
      const p = await connectError({ ...postgres, options });
      assert.deepEqual(await connectError({ ...gateway, options }), p, options);
      assert.equal(p?.code, '42704');
      assert.equal(p?.severity, 'FATAL');
    }
    assert.equal(await connectError({ ...gateway, options: '-c work_mem=64MB -c fdl.ref=main' }), null);
    assert.equal(await connectError({ ...gateway, application_name: 'x', statement_timeout: 1000 }), null);
  });

  test('the generated list holds every parameter PostgreSQL 15 lists in pg_settings, and the ones it hides there', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: server.port, user: 'postgres', database: 'postgres' });
    await c.connect();
    try {
      const listed = (await c.query('select lower(name) as n from pg_settings')).rows.map((r: { n: string }) => r.n);
      for (const n of listed) assert.ok(PG_PARAMETER_NAMES.has(n), n);
      for (const n of PG_PARAMETER_NAMES)
        assert.notEqual((await c.query('select current_setting($1, true) as v', [n])).rows[0].v, null, n);
    } finally {
      await c.end();
    }
  });
});
