/** Unit tests of the lake pieces with logic of their own (no fixtures needed except where noted). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { SqlError } from '../src/errors.js';
import { crc32, decodeDeletionVector } from '../src/lake/deletion-vector.js';
import { hivePartitions, partitionValueSql } from '../src/lake/hive.js';
import { convert, defaultExpr, sameShape, shapeType, type SrcNode } from '../src/lake/nested.js';
import { joinRelative, pathProblem } from '../src/lake/paths.js';
import { writtenByDuckLake } from '../src/lake/probe.js';
import { type ColNode, leafType, sqlType } from '../src/lake/types.js';
import { replaceCatalogPlaceholder } from '../src/lake/views.js';
import { countOnlyTable } from '../src/lake/count-only.js';
import type { LakeCatalog, LakeTable } from '../src/lake/model.js';

describe('lake paths', () => {
  it('accepts plain relative paths', () => {
    assert.equal(pathProblem('main/t/ducklake-1.parquet'), null);
    assert.equal(
      joinRelative(
        [
          { path: 'main/', relative: true },
          { path: 't/', relative: true },
          { path: 'f.parquet', relative: true },
        ],
        't',
        'data',
      ),
      'main/t/f.parquet',
    );
    assert.equal(
      joinRelative(
        [
          { path: null, relative: null },
          { path: 'f.parquet', relative: true },
        ],
        't',
        'data',
      ),
      'f.parquet',
    );
  });
  it('refuses escapes, absolute paths, schemes and globs', () => {
    for (const bad of [
      '../x.parquet',
      'main/../../x',
      '/etc/passwd',
      's3://b/k',
      'C:/x',
      'a\\b',
      'f[1].parquet',
      'f*.parquet',
      'f?.parquet',
      'f{a,b}.parquet',
      '',
    ]) {
      assert.notEqual(pathProblem(bad), null, bad);
    }
    assert.throws(
      () => joinRelative([{ path: '/etc/passwd', relative: false }], 't', 'data'),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '0A000' && /\/etc\/passwd/.test(e.message),
    );
  });
});

describe('lake types', () => {
  const leaf = (id: number, name: string, t: string, initialDefault: string | null = null): ColNode => ({
    id,
    name,
    kind: 'leaf',
    leafType: leafType(t, 'x'),
    initialDefault,
    children: [],
  });
  it('maps DuckLake type names to DESCRIBE spellings', () => {
    assert.equal(leafType('int32', 'x'), 'INTEGER');
    assert.equal(leafType('TimestampTZ', 'x'), 'TIMESTAMP WITH TIME ZONE');
    assert.equal(leafType('timetz', 'x'), 'TIME WITH TIME ZONE');
    assert.equal(leafType('decimal(38, 10)', 'x'), 'DECIMAL(38,10)');
    assert.equal(leafType('int128', 'x'), 'HUGEINT');
    assert.throws(
      () => leafType('mystery', 'table t'),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '0A000' && /table t/.test(e.message),
    );
  });
  it('prints nested types like DESCRIBE, quotes them for SQL', () => {
    const s: ColNode = {
      id: 1,
      name: 's',
      kind: 'struct',
      leafType: '',
      initialDefault: null,
      children: [leaf(2, 'a', 'int32'), leaf(3, 'B c', 'varchar')],
    };
    const l: ColNode = { id: 4, name: 'l', kind: 'list', leafType: '', initialDefault: null, children: [s] };
    assert.equal(sqlType(l, true), 'STRUCT(a INTEGER, "B c" VARCHAR)[]');
    assert.equal(sqlType(l), 'STRUCT("a" INTEGER, "B c" VARCHAR)[]');
  });
  it('uses initial_default for absent columns', () => {
    assert.equal(defaultExpr(leaf(5, 'x', 'int32', '42')), "CAST('42' AS INTEGER)");
    assert.equal(defaultExpr(leaf(5, 'x', 'varchar')), 'CAST(NULL AS VARCHAR)');
  });
});

describe('lake nested mapping by field id', () => {
  const cur: ColNode = {
    id: 2,
    name: 's',
    kind: 'struct',
    leafType: '',
    initialDefault: null,
    children: [
      { id: 3, name: 'a2', kind: 'leaf', leafType: 'INTEGER', initialDefault: null, children: [] },
      { id: 18, name: 'c', kind: 'leaf', leafType: 'DOUBLE', initialDefault: null, children: [] },
    ],
  };
  const src: SrcNode = {
    id: 2,
    name: 's',
    kind: 'struct',
    children: [
      { id: 3, name: 'a', kind: 'leaf', children: [] },
      { id: 9, name: 'c', kind: 'leaf', children: [] },
    ],
  };
  it('declares the source shape and rebuilds by id (re-added name gets NULL, not old data)', async () => {
    assert.equal(sameShape(cur, src), false);
    assert.equal(shapeType(cur, src), 'STRUCT("a" INTEGER)');
    const expr = convert('v', cur, src);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    const r = await conn.runAndReadAll(
      `SELECT CAST(${expr} AS VARCHAR) AS x FROM (VALUES ({'a': 1, 'c': 'old'}), (NULL)) t(v)`,
    );
    assert.deepEqual(r.getRowsJson(), [["{'a2': 1, 'c': NULL}"], [null]]);
    conn.closeSync();
    instance.closeSync();
  });
});

describe('lake hive partitions', () => {
  it('parses directory key=value segments, first wins, URL-decoded', () => {
    const p = hivePartitions('external/year=2024/region=a%2Fb/year=1999/data.parquet');
    assert.equal(p.get('year'), '2024');
    assert.equal(p.get('region'), 'a/b');
    assert.equal(hivePartitions('x=1.parquet').size, 0);
  });
  it('types values like DuckDB', () => {
    assert.equal(partitionValueSql('2024', 'INTEGER'), "CAST('2024' AS INTEGER)");
    assert.equal(partitionValueSql('NULL', 'VARCHAR'), 'CAST(NULL AS VARCHAR)');
    assert.equal(partitionValueSql('', 'INTEGER'), 'CAST(NULL AS INTEGER)');
    assert.equal(partitionValueSql('', 'VARCHAR'), "CAST('' AS VARCHAR)");
  });
});

/** Build a bare deletion-vector blob from a portable (no-run) Roaring bitmap. */
function dvBlob(values: number[]): Buffer {
  const keys = [...new Set(values.map((v) => Math.floor(v / 65536)))].sort((a, b) => a - b);
  const head = Buffer.alloc(8 + keys.length * 8);
  head.writeUInt32LE(12346, 0);
  head.writeUInt32LE(keys.length, 4);
  const bodies: Buffer[] = [];
  let offset = head.length;
  keys.forEach((k, i) => {
    const lows = values.filter((v) => Math.floor(v / 65536) === k).map((v) => v % 65536);
    head.writeUInt16LE(k, 8 + i * 4);
    head.writeUInt16LE(lows.length - 1, 10 + i * 4);
    head.writeUInt32LE(offset, 8 + keys.length * 4 + i * 4);
    const b = Buffer.alloc(lows.length * 2);
    lows.forEach((l, j) => b.writeUInt16LE(l, j * 2));
    bodies.push(b);
    offset += b.length;
  });
  const vector = Buffer.concat([
    Buffer.from([0xd1, 0xd3, 0x39, 0x64]),
    Buffer.alloc(8),
    Buffer.alloc(4),
    head,
    ...bodies,
  ]);
  vector.writeBigInt64LE(1n, 4);
  const out = Buffer.alloc(vector.length + 8);
  out.writeUInt32BE(vector.length, 0);
  vector.copy(out, 4);
  out.writeUInt32BE(crc32(vector), 4 + vector.length);
  return out;
}

describe('lake deletion vectors', () => {
  it('decodes array containers across keys', () => {
    assert.deepEqual(decodeDeletionVector(dvBlob([0, 3, 70000, 131072]), 't'), [0, 3, 70000, 131072]);
  });
  it('refuses bad CRCs and Puffin containers', () => {
    const b = dvBlob([1, 2]);
    b[b.length - 1] ^= 0xff;
    assert.throws(() => decodeDeletionVector(b, 't'), /CRC/);
    assert.throws(
      () => decodeDeletionVector(Buffer.from('PFA1xxxxxxxxxxxx'), 't'),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '0A000',
    );
  });
});

describe('lake views and probing helpers', () => {
  it('replaces the catalog placeholder outside literals and quoted identifiers', () => {
    assert.equal(
      replaceCatalogPlaceholder(
        `SELECT '{DUCKLAKE_CATALOG}.x', "{DUCKLAKE_CATALOG}" FROM {DUCKLAKE_CATALOG}.main.t`,
        'lake',
      ),
      `SELECT '{DUCKLAKE_CATALOG}.x', "{DUCKLAKE_CATALOG}" FROM "lake".main.t`,
    );
  });
  it('recognises DuckLake-written files (they always carry field ids)', () => {
    assert.equal(writtenByDuckLake('main/t/ducklake-0190.parquet'), true);
    assert.equal(writtenByDuckLake('main/t/year=2024/ducklake-0190.parquet'), true);
    assert.equal(writtenByDuckLake('main/t/external/part-1.parquet'), false);
  });
});

describe('lake catalog versions', () => {
  it('refuses an unknown catalog version naming it', async () => {
    const { allVersions } = await import('./support/lake-fixtures.js');
    const { openCatalog } = await import('../src/lake/index.js');
    const { copyFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'lake-version-'));
    const file = path.join(dir, 'c.duckdb');
    copyFileSync(allVersions()[0]!.catalogFile, file);
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(`ATTACH '${file}' AS w`);
      await conn.run(`UPDATE w.ducklake_metadata SET value = '1.1-dev1' WHERE key = 'version'`);
      await conn.run('DETACH w');
      await assert.rejects(
        openCatalog(conn, file, 'meta'),
        (e: unknown) => e instanceof SqlError && e.sqlstate === '0A000' && /1\.1-dev1/.test(e.message),
      );
      // the failed open leaves nothing attached
      const r = await conn.runAndReadAll("SELECT count(*) FROM duckdb_databases() WHERE database_name = 'meta'");
      assert.equal(Number(r.getRowsJson()[0]![0]), 0);
    } finally {
      conn.closeSync();
      instance.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('statements the catalog answers (count-only)', () => {
  it('finds the table of a plain count(*) and refuses anything that reads values, filters, groups or limits', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const table = (schema: string, name: string) => ({ schema, name }) as unknown as LakeTable;
    const ev = table('main', 'ev');
    const other = table('s2', 'ev');
    const catalog = { tables: [ev, other], views: [{ schema: 'main', name: 'v' }] } as unknown as LakeCatalog;
    const judge = (sql: string, path = ['main']) => countOnlyTable(conn, sql, catalog, path, 'r@1');
    try {
      assert.equal(await judge('select count(*) from ev'), ev);
      assert.equal(await judge('SELECT COUNT(*)::int AS n, count(*) FROM main.EV'), ev);
      assert.equal(await judge('select count(*) from "r@1".main.ev'), ev);
      assert.equal(await judge('select count(*) from ev', ['s2', 'main']), other);
      for (const sql of [
        'select count(*) from ev where id > 1',
        'select count(id) from ev',
        'select count(*) from ev group by id',
        'select count(*) from ev limit 0',
        'select count(*), sum(id) from ev',
        'select count(distinct id) from ev',
        'select count(*) filter (where id > 1) from ev',
        'select count(*) from v',
        'select count(*) from ev, ev e2',
        'with x as (select 1) select count(*) from ev',
        'select count(*) from "r@2".main.ev',
        'select count(*) from nope',
        'select count(*) from ev using sample 10%',
        'select count(*) from ev; select 1',
        'select count(*) from ev order by 1',
        'select count(*) from ev having count(*) > 1',
        'not sql at all',
      ]) {
        assert.equal(await judge(sql), null, sql);
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});
