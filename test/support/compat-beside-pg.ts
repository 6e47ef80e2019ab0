/**
 * The catalog emulation installed in an in-process DuckDB beside a private PostgreSQL 15, for tests that compare what
 * a rewritten catalog expression answers with PostgreSQL's own answer. Registers the suite's before/after hooks.
 */
import { after, before } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { installCompat } from '../../src/pg/catalog/install.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';

export function compatBesidePostgres(): { readonly client: pg.Client; readonly conn: DuckDBConnection } {
  let cluster: PgCluster | undefined;
  let client: pg.Client | undefined;
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  before(async () => {
    cluster = await startPgCluster();
    client = new pg.Client({ host: cluster.host, port: cluster.port, user: cluster.user, database: cluster.database });
    await client.connect();
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await installCompat(conn);
  });
  after(async () => {
    conn?.closeSync();
    instance?.closeSync();
    await client?.end();
    await cluster?.stop();
  });
  return {
    get client() {
      return client!;
    },
    get conn() {
      return conn!;
    },
  };
}
