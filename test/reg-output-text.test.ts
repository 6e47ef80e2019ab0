/**
 * format, concat and concat_ws read a reg* value as its output function writes it, the name (issue 24): sqlsmith's
 * type list writes `format('%I.%I', typnamespace::regnamespace, typname)`, which wrote the OID's digits. Compared
 * with PostgreSQL 15 over the types and functions the emulation holds without a version (its static tables).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { installCompat } from '../src/pg/catalog/install.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';

let cluster: PgCluster;
let client: pg.Client;
let instance: DuckDBInstance;
let conn: DuckDBConnection;

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

test('format, concat and concat_ws of reg* values: their names, as PostgreSQL 15', async () => {
  const texts = [
    "select format('%s|%I|%L', 'int4'::regtype, 'character varying'::regtype, 23::regtype)",
    "select format('%2$s.%1$I', 'array_in'::regproc, 1043::regtype)",
    "select concat('x', 'int8'::regtype, 1), concat_ws('-', 'array_in'::regproc, 'int4'::regtype, 0::regtype)",
    "select format('%s', t), concat(t::regtype, '!') from (values (16::oid), (1009::oid)) v(t)",
    "select format('%s', t::regtype) from (values (16::oid), (1009::oid)) v(t)",
  ];
  for (const sql of texts) {
    const ours = (await conn.runAndReadAll(rewriteForDuckDB(sql))).getRows().map((r) => r.map(String));
    const theirs = (await client.query({ text: sql, rowMode: 'array' })).rows.map((r: unknown[]) => r.map(String));
    assert.deepEqual(ours, theirs, sql);
  }
});
