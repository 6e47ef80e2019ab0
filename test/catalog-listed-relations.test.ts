/**
 * pg_class lists only catalog relations that answer (issue 24): psql's `\dS`, sqlsmith and ORMs read
 * what pg_class lists, and ~56 of PostgreSQL 15's relations (`pg_stat_database`, `pg_statistic`,
 * `pg_shadow`, …) were listed without being served, so reading one was 42P01.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { quoteIdent } from '../src/quote.js';

describe('catalog relations pg_class lists', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  let c: pg.Client;

  before(async () => {
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
    c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
    await c.connect();
  });
  after(async () => {
    await c?.end();
    await gw?.stop();
    repos.cleanup();
  });

  test('every relation listed in pg_catalog and information_schema can be read', async () => {
    const listed = await c.query<{ nspname: string; relname: string }>(
      `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    assert.ok(listed.rows.length > 80, `only ${listed.rows.length} catalog relations listed`);
    const failed: string[] = [];
    for (const { nspname, relname } of listed.rows) {
      const name = `${quoteIdent(nspname)}.${quoteIdent(relname)}`;
      await c.query(`SELECT * FROM ${name} LIMIT 1`).catch((e: { code?: string }) => failed.push(`${name}: ${e.code}`));
    }
    assert.deepEqual(failed, []);
  });

  test('a relation the emulation does not serve is not listed, and reading it is 42P01', async () => {
    const r = await c.query(
      `SELECT relname FROM pg_catalog.pg_class WHERE relname IN ('pg_stat_database', 'pg_statistic', 'pg_shadow')`,
    );
    assert.deepEqual(r.rows, []);
    await assert.rejects(c.query('SELECT * FROM pg_catalog.pg_stat_database'), { code: '42P01' });
    const still = await c.query(`SELECT count(*)::int AS n FROM pg_catalog.pg_class WHERE relname = 'pg_class'`);
    assert.equal(still.rows[0].n, 1);
  });
});
