/**
 * fdl publish's test fixtures: a fixture repository's newest catalog as a working catalog, a fresh
 * repository to publish it into, and the fixture's recorded answers asked of the published version.
 */
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { initRepository } from '../../src/host/repo.js';
import { FIXTURES, openVersion, repoVersions, rowsSha256, sortRows, type Opened } from './lake-fixtures.js';

export interface Query {
  object: string;
  kind: string;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
  row_count?: number;
  rows_sha256?: string;
  error?: string;
}
export interface Column {
  name: string;
  type: string;
}
export interface Expected {
  tables: Record<string, Column[]>;
  queries: Query[];
}

/** Each prepared case gets its own folder under the test's work folder. */
let n = 0;

export interface FixtureRepo {
  name: string;
  root: string;
  dataDir: string;
  newest: string;
  catalog: string;
}

export function fixtureRepo(name: string, dir = path.join(FIXTURES, 'repos', name)): FixtureRepo {
  const versions = repoVersions(dir, name, null);
  const main = readFileSync(path.join(dir, 'refs/heads/main'), 'utf8').trim();
  const newest = versions.at(-1)!;
  assert.equal(newest.id, main, `${name}: main is the newest version`);
  return { name, root: dir, dataDir: newest.dataDir, newest: newest.id, catalog: newest.catalogFile };
}

/** A fresh repository with the fixture's data_dir (data copied unless told not to) and a working copy of its catalog outside it. */
export async function prepare(
  work: string,
  fx: FixtureRepo,
  copyData = true,
): Promise<{ root: string; working: string }> {
  const base = path.join(work, `${fx.name}-${n++}`);
  const root = path.join(base, 'repo');
  // In process: `fdl init` itself is tested in host.test.ts; here it is only the set-up of each case.
  await initRepository(root, { dataDir: fx.dataDir });
  if (copyData) cpSync(path.join(fx.root, fx.dataDir), path.join(root, fx.dataDir), { recursive: true });
  const working = path.join(base, 'working.ducklake');
  copyFileSync(fx.catalog, working);
  return { root, working };
}

export function headOf(root: string, branch = 'main'): string | null {
  const p = path.join(root, 'refs/heads', branch);
  return existsSync(p) ? readFileSync(p, 'utf8').trim() : null;
}

export function completeVersions(root: string): string[] {
  const d = path.join(root, 'versions');
  return existsSync(d) ? readdirSync(d).filter((v) => existsSync(path.join(d, v, 'version.json'))) : [];
}

export async function checkQuery(o: Opened, query: Query): Promise<void> {
  const exec = async () => {
    const r = await o.conn.runAndReadAll(query.sql);
    return { columns: r.columnNames(), rows: r.getRowsJson() as unknown[][] };
  };
  if (query.error !== undefined) {
    await assert.rejects(exec(), `expected failure: ${query.sql}`);
    return;
  }
  const got = await exec();
  assert.deepEqual(got.columns, query.columns, `columns of ${query.sql}`);
  if (query.rows_sha256 !== undefined) {
    assert.equal(got.rows.length, query.row_count, `row count of ${query.sql}`);
    assert.equal(rowsSha256(got.rows), query.rows_sha256, `rows_sha256 of ${query.sql}`);
  } else {
    assert.deepEqual(
      sortRows(got.rows),
      sortRows(query.rows ?? []),
      `rows of ${query.object} (${query.kind}): ${query.sql}`,
    );
  }
}

/** Every recorded answer of the fixture version, asked of the published version. */
export async function checkExpected(
  root: string,
  dataDir: string,
  version: string,
  expectedFile: string,
): Promise<number> {
  return checkOpened(
    await openVersion({ root, dataDir, catalogFile: path.join(root, 'versions', version, 'ducklake.duckdb') }),
    expectedFile,
  );
}

export async function checkOpened(o: Opened, expectedFile: string): Promise<number> {
  const exp = JSON.parse(readFileSync(expectedFile, 'utf8')) as Expected;
  try {
    const q = (s: string) => '"' + s.replaceAll('"', '""') + '"';
    for (const [name, cols] of Object.entries(exp.tables)) {
      const [schema, table] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
      const d = (
        await o.conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE ${q(schema)}.${q(table)})`)
      ).getRowsJson();
      assert.deepEqual(
        d,
        cols.map((c) => [c.name, c.type]),
        `DESCRIBE ${name}`,
      );
    }
    for (const query of exp.queries) await checkQuery(o, query);
    return exp.queries.length;
  } finally {
    o.close();
  }
}

/** Table name → row count of every table in a DuckDB file (opened read-only). */
export async function tableCounts(file: string): Promise<Record<string, number>> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    await conn.run(`ATTACH '${file.replaceAll("'", "''")}' AS c (READ_ONLY)`);
    const names = (
      await conn.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE database_name = 'c' ORDER BY 1")
    )
      .getRowsJson()
      .map((r) => String(r[0]));
    const out: Record<string, number> = {};
    for (const t of names)
      out[t] = Number((await conn.runAndReadAll(`SELECT count(*) FROM c.main."${t}"`)).getRowsJson()[0]![0]);
    return out;
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** The fixtures' files.json predate the data-integrity fields: compare without them. */
export const stripSha = (j: unknown): unknown =>
  JSON.parse(JSON.stringify(j), (k, v: unknown) =>
    k === 'sha256' || k === 'delete_file_size' || k === 'delete_file_sha256' ? undefined : v,
  );
