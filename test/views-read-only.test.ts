/**
 * A local version's views database is attached READ_ONLY once built (versions/attach.ts), so the
 * engine itself refuses to change it: on a raw connection of a sealed instance — every gateway
 * layer bypassed — CREATE OR REPLACE VIEW, DROP, CREATE TABLE and COMMENT ON in it fail with
 * DuckDB's read-only error, and the view still answers as before. The file lives in the
 * instance's own temp directory and is removed when the version is detached.
 */
import { NATIVE_VERSION_MAX_BYTES } from '../src/versions/native-tables.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { connectSession, engineReadDirs } from '../src/engine/engine.js';
import { createRepositoryEngine, type RepositoryEngine } from '../src/engine/engines.js';
import { attachVersion, type AttachedVersion } from '../src/versions/attach.js';
import { openRepository } from '../src/resolver/repository.js';
import { FsStore } from '../src/store/fs-store.js';
import { HttpStore } from '../src/store/http-store.js';
import { copyFixtures } from './support/gateway.js';
import { serveFolder } from './support/http-server.js';

const repos = copyFixtures('repos/basic');
const root = () => repos.path('repos/basic');
const temp = () => join(repos.dir, 'cache', 'duckdb-tmp', 'e1');
let engine: RepositoryEngine;
let conn: DuckDBConnection;
let attached: AttachedVersion;

before(async () => {
  engine = await createRepositoryEngine(engineReadDirs({ local: { root: root(), dataDir: 'data/' } }), {
    memoryLimit: '256MB',
    threads: 1,
    tempDirectory: temp(),
  });
  const repo = await openRepository('basic', new FsStore(root()), { signatures: 'off', refTtlMs: 0 });
  const { versionId } = await repo.resolve('tags/v1');
  // its small tables as native tables (nativeTableBytes: attachVersion's own default copies none)
  attached = await attachVersion(
    engine,
    repo,
    versionId,
    `basic@${versionId}`,
    `__fdl_meta_t1`,
    60_000,
    NATIVE_VERSION_MAX_BYTES,
  );
  conn = await connectSession(engine.sessions);
});
after(async () => {
  conn?.disconnectSync();
  closeBoth(engine);
  repos.cleanup();
});

/** What another session reads of the catalog emulation over the version: its relations, a macro's answers. */
async function catalogAnswers(c: DuckDBConnection): Promise<string> {
  const read = async (sql: string) =>
    JSON.stringify((await c.runAndReadAll(sql)).getRows(), (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x));
  return [
    await read(
      `SELECT c.oid, c.relname, n.nspname, c.relkind FROM fdl_pg.pgcat.pg_class c JOIN fdl_pg.pgcat.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 2`,
    ),
    await read(`SELECT count(*) FROM fdl_pg.pgcat.pg_attribute WHERE attrelid >= 16384`),
    await read(
      `SELECT fdl_pg.pgcat.format_type(23, -1), fdl_pg.pgcat.quote_ident('select'), fdl_pg.pgcat._pgsem_likeof(DATE '2024-01-01', '2024-01-02')`,
    ),
  ].join('\n');
}

test('the catalog emulation is READ_ONLY: on a raw connection the engine refuses any change to its macros, views, tables and version rows', async () => {
  const other = await connectSession(engine.sessions);
  try {
    await conn.run(`USE "${attached.dbName}"`);
    await other.run(`USE "${attached.dbName}"`);
    const before = await catalogAnswers(other);
    assert.match(before, /orders/, before);
    const d = `'${attached.dbName}'`;
    for (const sql of [
      `CREATE TABLE fdl_pg.pgcat.forged AS SELECT 1 AS x`,
      `CREATE TABLE fdl_pg_versions.pgcat.forged AS SELECT 1 AS x`,
      `INSERT INTO fdl_pg_versions.pgcat._rel_by_db (db, oid, relname, nspname, relkind) VALUES (${d}, 424242, 'forged', 'main', 'r')`,
      `UPDATE fdl_pg_versions.pgcat._rel_by_db SET relname = 'forged'`,
      `DELETE FROM fdl_pg_versions.pgcat._cols_by_db`,
      // the catalog views materialised per version (pg/catalog/version-snapshot.ts)
      `INSERT INTO fdl_pg_versions.pgcat._pg_class_by_db (db, oid, relname) VALUES (${d}, 424242, 'forged')`,
      `DELETE FROM fdl_pg_versions.pgcat._pg_proc_by_db`,
      `UPDATE fdl_pg.pgcat._types SET fmt = 'forged'`,
      `CREATE OR REPLACE VIEW fdl_pg.pgcat.pg_class AS SELECT 1 AS forged`,
      `CREATE OR REPLACE VIEW fdl_pg.pgcat._rel AS SELECT 1 AS forged`,
      `CREATE OR REPLACE MACRO fdl_pg.pgcat.format_type(oid, typmod) AS 'forged'`,
      `CREATE OR REPLACE MACRO fdl_pg.pgcat._pgsem_likeof(a, b) AS 'forged'`,
      `DROP VIEW fdl_pg.pgcat.pg_namespace`,
      `DROP TABLE fdl_pg_versions.pgcat._nsp_by_db`,
      `COMMENT ON VIEW fdl_pg.pgcat.pg_class IS 'forged'`,
      `CREATE SCHEMA fdl_pg.evil`,
      `ALTER VIEW fdl_pg.pgcat.pg_class RENAME TO forged`,
    ]) {
      await assert.rejects(conn.run(sql), /read-only|read only/i, sql);
    }
    const ro = (
      await conn.runAndReadAll(
        "SELECT database_name, readonly FROM duckdb_databases() WHERE database_name LIKE 'fdl_pg%' ORDER BY 1",
      )
    ).getRows();
    assert.deepEqual(ro, [
      ['fdl_pg', true],
      ['fdl_pg_versions', true],
    ]);
    assert.equal(await catalogAnswers(other), before, "another session's catalog answers as before");
  } finally {
    await conn.run('USE memory').catch(() => undefined);
    other.disconnectSync();
  }
});

test("a local version's small tables are native DuckDB tables in its READ_ONLY views database: no write reaches their rows", async () => {
  const db = `"${attached.dbName}"`;
  const tables = (
    await conn.runAndReadAll(
      `SELECT schema_name || '.' || table_name FROM duckdb_tables() WHERE database_name = $1 ORDER BY 1`,
      [attached.dbName],
    )
  ).getRows();
  const views = (
    await conn.runAndReadAll(
      `SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE database_name = $1 AND NOT internal`,
      [attached.dbName],
    )
  ).getRows();
  // every table of the basic fixture fits versions/native-tables.ts's ceilings: none is a view any more
  assert.ok(tables.some((r) => r[0] === 'sales.orders') && tables.length >= 3, JSON.stringify(tables));
  assert.ok(!views.some((v) => tables.some((t) => t[0] === v[0])), JSON.stringify(views));
  const read = async () =>
    JSON.stringify((await conn.runAndReadAll(`SELECT * FROM ${db}.sales.orders ORDER BY ALL`)).getRowsJson());
  const before = await read();
  for (const sql of [
    `INSERT INTO ${db}.sales.orders SELECT * FROM ${db}.sales.orders`,
    `UPDATE ${db}.sales.orders SET order_id = 0`,
    `DELETE FROM ${db}.sales.orders`,
    `TRUNCATE ${db}.sales.orders`,
    `DROP TABLE ${db}.sales.orders`,
    `ALTER TABLE ${db}.sales.orders RENAME TO forged`,
    `ALTER TABLE ${db}.sales.orders ADD COLUMN forged INTEGER`,
    `COMMENT ON TABLE ${db}.sales.orders IS 'forged'`,
    `CREATE OR REPLACE TABLE ${db}.sales.orders AS SELECT 1 AS forged`,
  ]) {
    await assert.rejects(conn.run(sql), /read-only|read only/i, sql);
  }
  assert.equal(await read(), before, 'the table answers as before');
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

function closeBoth(e: RepositoryEngine | undefined): void {
  e?.sessions.closeSync();
  e?.builder.closeSync();
}

const writes = (db: string) => [
  `CREATE OR REPLACE VIEW ${db}.sales.orders AS SELECT 1 AS forged`,
  `DROP VIEW ${db}.sales.orders`,
  `CREATE TABLE ${db}.main.t AS SELECT 1`,
  `CREATE SCHEMA ${db}.evil`,
  `COMMENT ON VIEW ${db}.sales.orders IS 'forged'`,
  `CREATE MACRO ${db}.main.m() AS 1`,
];

/** The engine's own flag for `name`, and every write above refused on a raw connection. */
async function assertReadOnly(c: DuckDBConnection, name: string): Promise<void> {
  const ro = (
    await c.runAndReadAll(`SELECT readonly FROM duckdb_databases() WHERE database_name = '${name}'`)
  ).getRows();
  assert.deepEqual(ro, [[true]], `${name} readonly`);
  for (const sql of writes(`"${name}"`)) await assert.rejects(c.run(sql), /read-only|read only/i, sql);
}

test("a remote version's views database is READ_ONLY too, also after a statement rebuilt a view over the files it needs", async () => {
  const http = await serveFolder(root());
  const cacheDir = join(repos.dir, 'remote-cache');
  const tempDir = join(cacheDir, 'duckdb-tmp', 'e2');
  const e = await createRepositoryEngine([cacheDir], { memoryLimit: '256MB', threads: 1, tempDirectory: tempDir });
  let c: DuckDBConnection | undefined;
  let v: AttachedVersion | undefined;
  try {
    const repo = await openRepository('remote', new HttpStore(http.url), { signatures: 'off', refTtlMs: 0, cacheDir });
    const { versionId } = await repo.resolve('tags/v1');
    v = await attachVersion(e, repo, versionId, `remote@${versionId}`, '__fdl_meta_r1', 60_000);
    c = await connectSession(e.sessions);
    const db = `"${v.dbName}"`;
    await assertReadOnly(c, v.dbName);
    // the statement's files fetched and its view rebuilt over them, as the planner does before a prepare
    const count = async (sql: string) => {
      const hold = await v!.ensureTables([{ schema: 'sales', name: 'orders' }], { sql, searchSchemas: ['main'] });
      try {
        return String((await c!.runAndReadAll(sql)).getRows()[0]![0]);
      } finally {
        hold.release();
      }
    };
    const all = await count(`SELECT count(*) FROM ${db}.sales.orders`);
    assert.ok(Number(all) > 0, all);
    await assertReadOnly(c, v.dbName);
    assert.equal(await count(`SELECT count(*) FROM ${db}.sales.orders`), all, 'the view answers as before');
  } finally {
    c?.disconnectSync();
    await v?.dispose();
    closeBoth(e);
    await http.close();
  }
  assert.deepEqual(readdirSync(join(tempDir, 'views')), [], 'every views file removed with the version');
});

test("a damaged local version's views database is READ_ONLY while a table waits for its files and after its view is built", async () => {
  const copy = copyFixtures('repos/basic');
  const tempDir = join(copy.dir, 'cache', 'duckdb-tmp', 'e3');
  const base = copy.path('repos/basic');
  const dir = join(base, 'data', 'sales', 'customers');
  const file = join(dir, readdirSync(dir)[0]!);
  const saved = join(copy.dir, 'saved.parquet');
  renameSync(file, saved);
  const e = await createRepositoryEngine(engineReadDirs({ local: { root: base, dataDir: 'data/' } }), {
    memoryLimit: '256MB',
    threads: 1,
    tempDirectory: tempDir,
  });
  let c: DuckDBConnection | undefined;
  let v: AttachedVersion | undefined;
  try {
    const repo = await openRepository('damaged', new FsStore(base), { signatures: 'off', refTtlMs: 0 });
    const { versionId } = await repo.resolve('tags/v1');
    v = await attachVersion(e, repo, versionId, `damaged@${versionId}`, '__fdl_meta_d1', 60_000);
    c = await connectSession(e.sessions);
    await assertReadOnly(c, v.dbName);
    const customers = [{ schema: 'sales', name: 'customers' }];
    await assert.rejects(v.ensureTables(customers), (err: { sqlstate?: string }) => err.sqlstate === 'XX001');
    renameSync(saved, file);
    (await v.ensureTables(customers)).release();
    const n = (await c.runAndReadAll(`SELECT count(*) FROM "${v.dbName}".sales.customers`)).getRows()[0]![0];
    assert.ok(Number(n) > 0, String(n));
    await assertReadOnly(c, v.dbName);
  } finally {
    c?.disconnectSync();
    await v?.dispose();
    closeBoth(e);
  }
  const left = readdirSync(join(tempDir, 'views'));
  copy.cleanup();
  assert.deepEqual(left, [], 'every views file removed with the version');
});
