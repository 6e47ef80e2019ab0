/**
 * A statement kept by text must answer as if it were read anew after a SET: DuckDB folds the session's
 * TimeZone and the mirrored settings into a statement when it prepares it, so a text prepared before
 * `SET TimeZone` answered with the old zone, and that answer reached the result cache under the new
 * one (new-user review: `'2024-05-12 10:00'::timestamptz` read in Tokyo, then shown `01:00+00` in UTC
 * to every later session). Each answer is compared with PostgreSQL 15's for the same session steps.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';

const STEPS = [
  "SET TimeZone = 'Asia/Tokyo'",
  "select '2024-05-12 10:00'::timestamptz::text as t",
  "select extract(hour from '2024-05-12 10:00'::timestamptz)::int as h",
  "SET TimeZone = 'UTC'",
  "select '2024-05-12 10:00'::timestamptz::text as t",
  "select extract(hour from '2024-05-12 10:00'::timestamptz)::int as h",
  "SET application_name = 'first'",
  "select current_setting('application_name') as a",
  "SET application_name = 'second'",
  "select current_setting('application_name') as a",
] as const;

describe('a SET reaches statements kept by text', () => {
  let cluster: PgCluster;
  let gw: RunningGateway;
  before(
    async () => {
      [cluster, gw] = await Promise.all([startPgCluster({ settings: { TimeZone: 'UTC' } }), serveBasic()]);
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await gw?.stop();
    await cluster?.stop();
  });

  async function run(config: pg.ClientConfig, steps: readonly string[], extended: boolean): Promise<unknown[]> {
    const c = new pg.Client(config);
    await c.connect();
    try {
      const out: unknown[] = [];
      for (const sql of steps) {
        const r = extended && !sql.startsWith('SET') ? await c.query({ text: sql, values: [] }) : await c.query(sql);
        out.push(r.rows);
      }
      return out;
    } finally {
      await c.end();
    }
  }

  for (const extended of [false, true]) {
    test(`${extended ? 'extended' : 'simple'} protocol: the same text after SET TimeZone/application_name answers as PostgreSQL 15, in that session and the next`, async () => {
      const gwConfig = { host: gw.host, port: gw.port, user: 'me', database: 'basic@v2' };
      const pgConfig = { host: cluster.host, port: cluster.port, user: 'postgres', database: 'postgres' };
      const [mine, theirs] = [await run(gwConfig, STEPS, extended), await run(pgConfig, STEPS, extended)];
      assert.deepEqual(mine, theirs);
      // a new session in UTC reads the texts the first session ran last (a poisoned result cache would answer Tokyo's)
      const again = STEPS.slice(4, 6);
      assert.deepEqual(await run(gwConfig, again, extended), await run(pgConfig, again, extended));
    });
  }
});
