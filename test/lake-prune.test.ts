/**
 * Pruning never changes a result: for every fixture version, statements with filters on every
 * column are answered twice — over the full table views and over views of only the files the
 * PruneIndex keeps — and must give the same multiset of rows. Generated lakes add deletes, inlined
 * rows and schema evolution, and check that pruning actually drops files.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { PruneIndex, tableContext, tableSql, type LakeTable } from '../src/lake/index.js';
import { qi } from '../src/lake/sql.js';
import { allVersions, openVersion, sortRows, type Opened } from './support/lake-fixtures.js';
import { makeSyntheticLake } from './support/synthetic-lake.js';
import { degradedCounts } from '../src/degraded.js';

const lit = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** Filters built from the table's own statistics: values inside, at and outside file bounds. */
function filtersFor(t: LakeTable): string[] {
  const out: string[] = ['true'];
  for (const c of t.tree) {
    if (c.kind !== 'leaf') continue;
    const col = qi(c.name);
    out.push(`${col} IS NULL`, `${col} IS NOT NULL`);
    const values = t.dataFiles
      .flatMap((f) => [f.stats.get(c.id)?.min, f.stats.get(c.id)?.max])
      .filter((v): v is string => typeof v === 'string');
    const pick = [...new Set(values)].slice(0, 2);
    const [a, b] = [pick[0], pick[1] ?? pick[0]].map((v) =>
      v === undefined ? null : `TRY_CAST(${lit(v)} AS ${c.leafType})`,
    );
    if (a && b) {
      out.push(
        `${col} = ${a}`,
        `${col} > ${a}`,
        `${col} <= ${b}`,
        `${col} BETWEEN ${a} AND ${b}`,
        `${col} IN (${a}, ${b})`,
        `(${col} = ${b} OR ${col} IS NULL)`,
      );
    }
  }
  // at most 24 statements per table, spread over its columns (the suite must stay fast)
  const step = Math.max(1, Math.ceil(out.length / 24));
  return out.filter((_, i) => i % step === 0);
}

async function rowsOf(o: Opened, sql: string): Promise<unknown[][]> {
  return sortRows((await o.conn.runAndReadAll(sql)).getRowsJson() as unknown[][]);
}

/** Compare each filtered statement over full views and over pruned views; returns files kept / total. */
async function comparePruned(
  o: Opened,
  locate: (rel: string) => string,
  statements?: (t: LakeTable) => string[],
): Promise<{ kept: number; total: number; statements: number }> {
  const index = await PruneIndex.build(o.conn, o.catalog, 'prune');
  const judge = o.conn;
  await o.conn.run('USE lake');
  const ctx = await tableContext(o.conn, o.catalog, o.catalog.tables, locate);
  await o.conn.run(`ATTACH ':memory:' AS pruned`);
  let kept = 0,
    total = 0,
    n = 0;
  for (const t of o.catalog.tables) {
    if (t.columns.some((c) => /GEOMETRY|VARIANT/.test(c.type))) continue;
    const full = `lake.${qi(t.schema)}.${qi(t.name)}`;
    // a multiset fingerprint of the rows: count and the sum of row hashes (order-free, compact)
    const fingerprint = (f: string) =>
      `SELECT count(*) AS n, sum(hash(x))::VARCHAR AS h FROM (SELECT * FROM ${full} WHERE ${f}) x`;
    for (const where of statements ? statements(t) : filtersFor(t).map(fingerprint)) {
      const sql = where;
      const s = await index.survivors(judge, sql.replaceAll(full, `${qi(t.schema)}.${qi(t.name)}`), [t.schema]);
      await o.conn.run('USE lake');
      assert.ok(s, `prune index could not plan: ${sql}`);
      const only = s.get(t.tableId) ?? new Set<number>();
      kept += only.size;
      total += t.dataFiles.length;
      n++;
      await o.conn.run(`CREATE SCHEMA IF NOT EXISTS pruned.${qi(t.schema)}`);
      await o.conn.run(`CREATE OR REPLACE VIEW pruned.${qi(t.schema)}.${qi(t.name)} AS ${tableSql(t, ctx, only)}`);
      const prunedSql = sql.replaceAll(full, `pruned.${qi(t.schema)}.${qi(t.name)}`);
      const [a, b] = [await rowsOf(o, sql), await rowsOf(o, prunedSql)];
      assert.deepEqual(b, a, `pruned result differs: ${sql} (kept ${[...only].join(',')})`);
    }
  }
  await index.dispose(o.conn);
  return { kept, total, statements: n };
}

describe('pruning never changes a result: every fixture version', () => {
  const sum = { kept: 0, total: 0, statements: 0, versions: 0 };
  const versions = allVersions();
  for (const v of versions) {
    it(`${v.repo} ${v.id}`, async () => {
      // every corpus version opens (lake.test checks each one's contents): a failure to open fails here too
      const o = await openVersion(v);
      try {
        const r = await comparePruned(o, (rel) => path.join(v.root, v.dataDir, rel));
        sum.kept += r.kept;
        sum.total += r.total;
        sum.statements += r.statements;
        sum.versions++;
      } finally {
        o.close();
      }
    });
  }
  // Runs after the versions above (a describe's tests run in order); a name filter that leaves it out
  // reports it as skipped, never as passed.
  it('over the whole corpus: every version checked and some statements drop files', () => {
    console.log(`# pruning: ${sum.statements} statements, files kept ${sum.kept} of ${sum.total}`);
    assert.equal(sum.versions, versions.length, 'versions compared');
    // the corpus has multi-file tables with disjoint statistics: some statements must drop files
    assert.ok(sum.statements > 300, `statements checked: ${sum.statements}`);
    assert.ok(sum.kept < sum.total * 0.9, `files kept ${sum.kept} of ${sum.total}`);
  });
});

describe('pruning on a generated lake (tight statistics, delete files)', () => {
  it('keeps only the files a filter can reach, with the same answers', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fdl-lake-prune-'));
    const instance = await DuckDBInstance.create(':memory:');
    const gen = await instance.connect();
    try {
      const lake = await makeSyntheticLake(gen, dir, { files: 12, rowsPerFile: 1000, deleteFiles: 3, deleteEvery: 7 });
      gen.closeSync();
      const o = await openVersion({ root: dir, dataDir: 'data/', catalogFile: lake.catalogFile });
      try {
        const full = 'lake."main"."events"';
        const statements = [
          "ts >= '2024-01-05' AND ts < '2024-01-06'", // one file
          "ts BETWEEN '2024-01-02 12:00' AND '2024-01-03 01:00'", // two files, one with deletes
          'id IN (5, 11999)',
          "k = 'k3' AND id < 2000",
          'id IS NULL',
          'v > 999.99',
          "ts::DATE = '2024-01-12'",
          'true',
        ].map((w) => `SELECT count(*) AS n, sum(hash(x))::VARCHAR AS h FROM (SELECT * FROM ${full} WHERE ${w}) x`);
        const r = await comparePruned(
          o,
          (rel) => path.join(dir, 'data', rel),
          () => statements,
        );
        // one day: 1 file; two days: 2; IN: 2; k/id: 2; IS NULL: 0; v > 999.99: 0 (max 999.99); date: 1; true: 12
        assert.equal(r.kept, 1 + 2 + 2 + 2 + 0 + 0 + 1 + 12, `files kept: ${r.kept}`);
      } finally {
        o.close();
      }
    } finally {
      instance.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('a statement the pruning database cannot plan reads every file, logged and counted (prune_plan); dispose detaches', async () => {
  const o = await openVersion(allVersions()[0]!);
  try {
    const index = await PruneIndex.build(o.conn, o.catalog, 'prune');
    const before = degradedCounts().get('prune_plan') ?? 0;
    assert.equal(await index.survivors(o.conn, 'SELECT * FROM no_such_table_anywhere'), null, 'every file');
    assert.equal(degradedCounts().get('prune_plan'), before + 1);
    // survivors left the connection on the pruning database: dispose must still detach it (it once failed there)
    await index.dispose(o.conn);
    const left = await o.conn.runAndReadAll(`SELECT 1 FROM duckdb_databases() WHERE database_name = 'prune'`);
    assert.equal(left.getRows().length, 0, 'the pruning database is detached');
  } finally {
    o.close();
  }
});
