/**
 * The engine's own line of containment, with admission switched off (the test-only
 * FDL_TEST_ADMISSION=off): escape payloads that admission refuses must still write nothing and read
 * nothing of another repository, because each repository has its own sealed DuckDB instance
 * (engine/engines.ts), only SELECT/EXPLAIN statements by DuckDB's own statement type are run, EXPLAIN's
 * head is the gateway's, and the configuration is locked. What only admission holds (refs within a
 * repository, DuckDB's side-effecting table functions) is listed in docs/security.md.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';
import { fileListing as listing } from './support/files.js';

describe('the engine line holds without admission', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/odd_names');
  const granted = () => repos.path('repos/basic');
  const secret = () => repos.path('repos/odd_names');
  let c: RawPg;

  before(async () => {
    gw = await startGateway(
      ['--repo', `granted=${granted()}`, '--repo', `secret=${secret()}`, '--cache-dir', join(repos.dir, 'cache')],
      {
        env: { FDL_TEST_ADMISSION: 'off', FDL_TEST_ADMISSION_I_AM_A_TEST: 'yes' },
      },
    );
    c = await RawPg.connect({ port: gw.port, host: gw.host, user: 'mallory', database: 'granted@v1' });
  });
  after(async () => {
    await c?.close();
    await gw?.stop();
    repos.cleanup();
  });

  test('admission is really off: what it alone refuses runs', async () => {
    assert.match(gw.stderr(), /admission is OFF/);
    // Admission allows no catalog listing; the engine line lets the instance's own be read.
    const r = await c.simple('SELECT count(*) FROM duckdb_tables()');
    assert.equal(r.error, undefined, r.error?.message);
  });

  test('another repository is out of reach, nothing is written, no view replaced', async () => {
    const before = listing(repos.dir);
    const reference = (await c.simple('SELECT count(*), sum(amount)::VARCHAR FROM sales.orders')).dataRows.map((d) =>
      d.toString('hex'),
    );
    const payloads: [string, string][] = [
      [`SELECT * FROM read_parquet('${secret()}/data/**/*.parquet')`, '42501'],
      [`SELECT * FROM '${secret()}/data/**/*.parquet'`, '42501'],
      [`SELECT count(*) FROM glob('${secret()}/**')`, '42501'],
      [`SELECT * FROM read_blob('${secret()}/versions/*/version.json')`, '42501'],
      [`SELECT * FROM read_text('${join(repos.dir, 'cache.state')}/*')`, '42501'],
      ['SELECT * FROM "secret@v1".main."UPPER case"', '0A000'],
      [
        `WITH a AS (SELECT * FROM '${secret()}/data/**/*.parquet'), "${secret()}/data/**/*.parquet" AS (SELECT 1) SELECT * FROM a`,
        '42501',
      ],
      [`EXPLAIN(ANALYZE ') SELECT ') COPY (SELECT 1) TO '${granted()}/data/evil.parquet' --' AS a`, '42601'],
      [`EXPLAIN ANALYZE CREATE OR REPLACE VIEW sales.orders AS SELECT 1 AS forged`, '25006'],
      [`COPY (SELECT 1) TO '${granted()}/data/evil.parquet'`, '42501'],
      ['SET GLOBAL threads = 1', '42501'],
      ['CHECKPOINT', '42501'],
      [`ATTACH '${secret()}/versions/x.duckdb' AS z`, '42501'],
    ];
    const got: string[] = [];
    for (const [sql, want] of payloads) {
      const r = await c.simple(sql);
      const outcome = r.error ? r.error.code : `ok:${r.dataRows.length ? r.dataRows[0]!.toString() : ''}`;
      if (outcome !== want && !(want.startsWith('ok:') && outcome.startsWith('ok:') && outcome.endsWith(want.slice(3))))
        got.push(`${sql}: expected ${want}, got ${outcome} ${r.error?.message ?? ''}`);
      for (const d of r.dataRows)
        assert.ok(!d.toString().includes(secret()), `${sql} answered a path of the other repository`);
    }
    assert.deepEqual(got, []);
    // The listing of the instance's databases names absolute paths: the engine line refuses it too.
    const dbs = await c.simple("SELECT string_agg(path, ',') FROM duckdb_databases()");
    assert.equal(dbs.error?.code, '42501', dbs.error?.message);
    assert.deepEqual(
      listing(repos.dir).filter((l) => !l.includes('/cache')),
      before.filter((l) => !l.includes('/cache')),
      'no file of either repository changed',
    );
    const again = (await c.simple('SELECT count(*), sum(amount)::VARCHAR FROM sales.orders')).dataRows.map((d) =>
      d.toString('hex'),
    );
    assert.deepEqual(again, reference, 'the shared version views answer as before');
  });
});
