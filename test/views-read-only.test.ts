/**
 * A local version's views database is attached READ_ONLY once built (versions/attach.ts), so the
 * engine itself refuses to change it: on a raw connection of a sealed instance — every gateway
 * layer bypassed — CREATE OR REPLACE VIEW, DROP, CREATE TABLE and COMMENT ON in it fail with
 * DuckDB's read-only error, and the view still answers as before. The file lives in the
 * instance's own temp directory and is removed when the version is detached.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { connectSession, createEngine, engineReadDirs, sealEngine } from '../src/engine/engine.js';
import { attachVersion, type AttachedVersion } from '../src/versions/attach.js';
import { openRepository } from '../src/resolver/repository.js';
import { FsStore } from '../src/store/fs-store.js';
import { copyFixtures } from './support/gateway.js';

const repos = copyFixtures('repos/basic');
const root = () => repos.path('repos/basic');
const temp = () => join(repos.dir, 'cache', 'duckdb-tmp', 'e1');
let engine: DuckDBInstance;
let conn: DuckDBConnection;
let attached: AttachedVersion;

before(async () => {
  engine = await createEngine({ memoryLimit: '256MB', threads: 1, tempDirectory: temp() });
  await sealEngine(engine, engineReadDirs({ local: { root: root(), dataDir: 'data/' } }));
  const repo = await openRepository('basic', new FsStore(root()), { signatures: 'off', refTtlMs: 0 });
  const { versionId } = await repo.resolve('tags/v1');
  attached = await attachVersion(engine, repo, versionId, `basic@${versionId}`, `__fdl_meta_t1`, 60_000);
  conn = await connectSession(engine);
});
after(async () => {
  conn?.disconnectSync();
  engine?.closeSync();
  repos.cleanup();
});

test("a local version's views database is READ_ONLY: the engine refuses any change to it on a raw connection", async () => {
  const db = `"${attached.dbName}"`;
  const count = async () =>
    String((await conn.runAndReadAll(`SELECT count(*) FROM ${db}.sales.orders`)).getRows()[0]![0]);
  const ro = (
    await conn.runAndReadAll(`SELECT readonly FROM duckdb_databases() WHERE database_name = '${attached.dbName}'`)
  ).getRows();
  assert.deepEqual(ro, [[true]]);
  const before = await count();
  for (const sql of [
    `CREATE OR REPLACE VIEW ${db}.sales.orders AS SELECT 1 AS forged`,
    `DROP VIEW ${db}.sales.orders`,
    `CREATE TABLE ${db}.main.t AS SELECT 1`,
    `CREATE SCHEMA ${db}.evil`,
    `COMMENT ON VIEW ${db}.sales.orders IS 'forged'`,
    `CREATE MACRO ${db}.main.m() AS 1`,
  ]) {
    await assert.rejects(conn.run(sql), /read-only|read only/i, sql);
  }
  assert.equal(await count(), before, 'the view answers as before');
  const files = readdirSync(join(temp(), 'views'));
  assert.equal(files.length, 1, files.join(' '));
  await attached.dispose();
  assert.ok(!existsSync(join(temp(), 'views', files[0]!)), 'the file is removed with the version');
});
