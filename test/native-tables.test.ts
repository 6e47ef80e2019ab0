/**
 * A small verified local table is a native DuckDB table in its version's views database (versions/native-tables.ts),
 * built from the very SQL its view would hold. Over every table of every version of every fixture, the native table
 * and the view answer the same: columns and types (DESCRIBE), the rows as a multiset (EXCEPT ALL both ways, in DuckDB:
 * types, NULLs, NaN, nested values compared by the engine), their order without ORDER BY, and the comments.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachCatalog, openCatalog, type LakeCatalog, type LakeTable } from '../src/lake/index.js';
import {
  changedSince,
  fileIdentities,
  NATIVE_TABLE_MAX_BYTES,
  NATIVE_VERSION_MAX_BYTES,
  nativeTables,
} from '../src/versions/native-tables.js';
import { allVersions } from './support/lake-fixtures.js';

const qi = (s: string) => '"' + s.replaceAll('"', '""') + '"';
const json = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe('native tables answer as their views', () => {
  for (const v of allVersions()) {
    it(`${v.repo} ${v.id}`, async () => {
      const instance = await DuckDBInstance.create(':memory:');
      const conn = await instance.connect();
      try {
        await conn.run("SET TimeZone='UTC'");
        const catalog = await openCatalog(conn, v.catalogFile, 'meta');
        const locate = (rel: string) => path.join(v.root, v.dataDir, rel);
        // every table native, whatever its size: the copy is what is compared, not the choice
        const native = nativeTables(catalog, () => true, { table: Infinity, version: Infinity });
        assert.equal(native.size, catalog.tables.length);
        await attachCatalog(conn, catalog, 'viewed', locate);
        // built on one thread, as the views builder builds (engine/engines.ts); read on four, as sessions may
        await conn.run('SET threads = 1');
        await attachCatalog(conn, catalog, 'copied', locate, { native });
        await conn.run('SET threads = 4');
        const kinds = await conn.runAndReadAll(
          `SELECT database_name, count(*) FROM duckdb_tables() WHERE database_name IN ('viewed', 'copied') GROUP BY 1`,
        );
        assert.deepEqual(
          kinds.getRows().map((r) => [r[0], Number(r[1])]),
          catalog.tables.length ? [['copied', catalog.tables.length]] : [],
        );
        for (const t of catalog.tables) {
          const name = `${qi(t.schema)}.${qi(t.name)}`;
          const what = `${v.repo} ${t.schema}.${t.name}`;
          const describe = async (db: string) =>
            json((await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${db}.${name}`)).getRows());
          assert.equal(await describe('copied'), await describe('viewed'), `${what}: columns and types`);
          for (const [a, b] of [
            ['viewed', 'copied'],
            ['copied', 'viewed'],
          ]) {
            const r = await conn.runAndReadAll(
              `SELECT count(*) FROM (SELECT * FROM ${a}.${name} EXCEPT ALL SELECT * FROM ${b}.${name})`,
            );
            assert.equal(Number(r.getRows()[0]![0]), 0, `${what}: rows of ${a} not in ${b}`);
          }
          // the order without ORDER BY: the view's on one thread (on several a view whose plan has a join or a
          // union has no fixed order of its own: two reads of it differed under load); the copy keeps it on any
          const rows = async (db: string) => json((await conn.runAndReadAll(`SELECT * FROM ${db}.${name}`)).getRows());
          await conn.run('SET threads = 1');
          const viewOrder = await rows('viewed');
          await conn.run('SET threads = 4');
          assert.equal(await rows('copied'), viewOrder, `${what}: rows in the same order`);
          const comments = async (db: string, fn: string, col: string) =>
            json(
              (
                await conn.runAndReadAll(
                  `SELECT ${col}, comment FROM ${fn}() WHERE database_name = '${db}' AND schema_name = $1 AND ${fn === 'duckdb_columns' ? 'table_name' : fn === 'duckdb_tables' ? 'table_name' : 'view_name'} = $2 ORDER BY 1`,
                  [t.schema, t.name],
                )
              ).getRows(),
            );
          assert.equal(
            await comments('copied', 'duckdb_tables', 'table_name'),
            await comments('viewed', 'duckdb_views', 'view_name'),
            `${what}: comment`,
          );
          assert.equal(
            await comments('copied', 'duckdb_columns', 'column_index'),
            await comments('viewed', 'duckdb_columns', 'column_index'),
            `${what}: column comments`,
          );
        }
      } finally {
        conn.closeSync();
        instance.closeSync();
      }
    });
  }
});

describe('which tables are built native', () => {
  const MiB = 1024 * 1024;
  const table = (name: string, ...sizes: number[]) =>
    ({ schema: 's', name, files: sizes.map((size, i) => ({ path: `${name}/${i}`, size, kind: 'data' })) }) as LakeTable;
  const names = (set: ReadonlySet<LakeTable>) => [...set].map((t) => t.name).sort();

  it('verified tables within the per-table ceiling, smallest first while the version stays within its own', () => {
    const tables = [
      table('big', 10 * MiB, 7 * MiB), // 17 MiB: over the table ceiling
      table('d', 15 * MiB),
      table('c', 12 * MiB),
      table('b', 10 * MiB, 6 * MiB),
      table('a', 1 * MiB),
      table('empty'),
      table('unknown', 1, NaN), // a size not known: never copied
      table('damaged', 1),
    ];
    const catalog = { tables } as LakeCatalog;
    const verified = (t: LakeTable) => t.name !== 'damaged';
    assert.equal(NATIVE_TABLE_MAX_BYTES, 16 * MiB);
    assert.equal(NATIVE_VERSION_MAX_BYTES, 64 * MiB);
    // a 1, empty 0, c 12, d 15, b 16: 44 MiB, all within 64
    assert.deepEqual(names(nativeTables(catalog, verified)), ['a', 'b', 'c', 'd', 'empty']);
    // a version ceiling of 30 MiB: a, empty, c (13) then d (28), b would make 44
    assert.deepEqual(names(nativeTables(catalog, verified, { table: 16 * MiB, version: 30 * MiB })), [
      'a',
      'c',
      'd',
      'empty',
    ]);
    assert.deepEqual(names(nativeTables(catalog, () => false)), []);
  });
});

/** The big fixture's catalog opened on a one-thread instance, every table a native candidate. */
async function withBigFixture(
  work: (f: {
    conn: DuckDBConnection;
    catalog: LakeCatalog;
    locate: (rel: string) => string;
    all: Set<LakeTable>;
  }) => Promise<void>,
): Promise<void> {
  const v = allVersions().find((x) => x.repo === 'big')!;
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  try {
    const catalog = await openCatalog(conn, v.catalogFile, 'meta');
    const locate = (rel: string) => path.join(v.root, v.dataDir, rel);
    const all = nativeTables(catalog, () => true);
    assert.ok(all.size > 0);
    await work({ conn, catalog, locate, all });
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe("a version's time for copies", () => {
  it('a copy still running then is interrupted and its table is a view with the same rows; past it, no copy starts', async () => {
    await withBigFixture(async ({ conn, catalog, locate, all }) => {
      const kinds = async (db: string) =>
        (
          await conn.runAndReadAll(
            `SELECT (SELECT count(*) FROM duckdb_tables() WHERE database_name = $1), (SELECT count(*) FROM duckdb_views() WHERE database_name = $1 AND NOT internal)`,
            [db],
          )
        )
          .getRows()[0]!
          .map(Number);
      const count = async (db: string) =>
        String((await conn.runAndReadAll(`SELECT count(*) FROM ${db}.${qi(t.schema)}.${qi(t.name)}`)).getRows()[0]![0]);
      const t = [...all][0]!;
      const whole = await attachCatalog(conn, catalog, 'whole', locate, { native: all, nativeBudgetMs: 60_000 });
      assert.equal(whole.native.size, all.size, 'within its time every copy is made');
      assert.deepEqual(await kinds('whole'), [all.size, 0]);
      // 200k rows do not copy in 5 ms: interrupted, rolled back, a view instead
      const cut = await attachCatalog(conn, catalog, 'cut', locate, { native: all, nativeBudgetMs: 5 });
      assert.equal(cut.native.size, 0);
      assert.deepEqual(await kinds('cut'), [0, catalog.tables.length]);
      assert.equal(await count('cut'), await count('whole'));
      const none = await attachCatalog(conn, catalog, 'none', locate, { native: all, nativeBudgetMs: 0 });
      assert.equal(none.native.size, 0);
      assert.deepEqual(await kinds('none'), [0, catalog.tables.length]);
      assert.equal(await count('none'), await count('whole'));
    });
  });
});

describe('a copy that fails', () => {
  it("leaves its table a view and the version built (the builder's memory: a few KiB of Parquet can hold hundreds of MiB)", async () => {
    await withBigFixture(async ({ conn, catalog, locate, all }) => {
      // the 200k rows do not fit 1 MB of DuckDB memory: before, the version's build failed and it could not be opened
      await conn.run("SET memory_limit = '1MB'");
      const built = await attachCatalog(conn, catalog, 'small', locate, { native: all, nativeBudgetMs: 60_000 });
      assert.equal(built.native.size, 0);
      await conn.run("SET memory_limit = '1GB'");
      const t = [...all][0]!;
      const n = (await conn.runAndReadAll(`SELECT count(*) FROM small.${qi(t.schema)}.${qi(t.name)}`)).getRows()[0]![0];
      assert.ok(Number(n) > 0, 'its view reads the rows');
      const views = (
        await conn.runAndReadAll("SELECT count(*) FROM duckdb_views() WHERE database_name = 'small' AND NOT internal")
      ).getRows()[0]![0];
      assert.equal(Number(views), catalog.tables.length);
    });
  });
});

describe("a copy's files, as they were before their hashes", () => {
  it('a file swapped and swapped back, or its folder renamed away and back (a store writer between the hash and the copy), is seen changed; untouched files are not', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, renameSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'fdl-native-ids-'));
    try {
      // a repository's root and its data folder: the folders a file's identity takes in
      const data = path.join(dir, 'data');
      mkdirSync(path.join(data, 'main'), { recursive: true });
      writeFileSync(path.join(data, 'main', 'a.parquet'), 'hashed bytes');
      writeFileSync(path.join(data, 'main', 'b.parquet'), 'other bytes');
      const table = { files: [{ path: 'main/a.parquet' }, { path: 'main/b.parquet' }] } as unknown as LakeTable;
      const locate = (rel: string) => path.join(data, rel);
      const before = fileIdentities([table], locate);
      assert.equal(changedSince(before, [table], locate), undefined, 'nothing changed: nothing seen');
      // the writer's swap: the hashed file aside, other bytes read in its place, the hashed file back
      renameSync(path.join(data, 'main', 'a.parquet'), path.join(dir, 'a.keep'));
      writeFileSync(path.join(data, 'main', 'a.parquet'), 'forged bytes');
      renameSync(path.join(dir, 'a.keep'), path.join(data, 'main', 'a.parquet'));
      assert.equal(changedSince(before, [table], locate), 'main/a.parquet');
      // the folder renamed away and back: each file's own identity is untouched, the folder's ctime is not
      const settled = fileIdentities([table], locate);
      renameSync(path.join(data, 'main'), path.join(dir, 'main.keep'));
      renameSync(path.join(dir, 'main.keep'), path.join(data, 'main'));
      assert.equal(changedSince(settled, [table], locate), 'main/a.parquet');
      const now = fileIdentities([table], locate);
      assert.equal(changedSince(now, [table], locate), undefined);
      rmSync(path.join(data, 'main', 'b.parquet'));
      assert.notEqual(changedSince(now, [table], locate), undefined, 'a file gone from the folder');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a copy's DuckDB blocks", () => {
  it("a copy whose blocks pass the table's or the version's ceiling is dropped and its table is a view with the same rows", async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'fdl-native-blocks-'));
    try {
      await withBigFixture(async ({ conn, catalog, locate, all }) => {
        const t = [...all][0]!;
        const build = async (db: string, limits: { table: number; version: number }) => {
          const built = await attachCatalog(conn, catalog, db, locate, {
            native: all,
            nativeBlockBytes: limits,
            file: path.join(dir, `${db}.duckdb`),
          });
          const [tables, views] = (
            await conn.runAndReadAll(
              `SELECT (SELECT count(*) FROM duckdb_tables() WHERE database_name = $1), (SELECT count(*) FROM duckdb_views() WHERE database_name = $1 AND NOT internal)`,
              [db],
            )
          )
            .getRows()[0]!
            .map(Number);
          const count = (
            await conn.runAndReadAll(`SELECT count(*) FROM ${db}.${qi(t.schema)}.${qi(t.name)}`)
          ).getRows()[0]![0];
          return { native: built.native.size, tables, views, count: String(count) };
        };
        const roomy = await build('roomy', { table: 1 << 30, version: 1 << 30 });
        assert.deepEqual([roomy.native, roomy.tables, roomy.views], [all.size, all.size, 0]);
        // the copy's blocks, as DuckDB stores them (256 KiB blocks)
        const [blocks] = (
          await conn.runAndReadAll(
            `SELECT count(DISTINCT b) * 262144 FROM (SELECT unnest(list_prepend(block_id, additional_block_ids)) AS b FROM pragma_storage_info('roomy.${t.schema}.${t.name}')) WHERE b >= 0`,
          )
        ).getRows()[0]!;
        assert.ok(Number(blocks) > 0, `blocks ${blocks}`);
        // (under one block: another build of the same rows may store them in a block more or less — the CI run of
        // session 53 saw a copy fit `blocks - 1` that was measured at `blocks` here)
        for (const limits of [
          { table: 1, version: 1 << 30 },
          { table: 1 << 30, version: 1 },
        ]) {
          const tight = await build(`tight${limits.table}`, limits);
          assert.deepEqual(
            [tight.native, tight.tables, tight.views],
            [0, 0, catalog.tables.length],
            JSON.stringify(limits),
          );
          assert.equal(tight.count, roomy.count);
        }
        const fits = await build('fits', { table: 2 * Number(blocks), version: 2 * Number(blocks) });
        assert.equal(fits.native, all.size);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
