/**
 * Conformance: every version of every fixture repository must give the real extension's answers
 * (columns, DESCRIBE types, comments, row multisets). New fixture folders are picked up from the manifest.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SqlError } from '../src/errors.js';
import {
  allVersions,
  FIXTURES,
  openVersion,
  repoVersions,
  rowsSha256,
  sortRows,
  type Opened,
} from './support/lake-fixtures.js';

interface Query {
  object: string;
  kind: string;
  sql: string;
  columns?: string[];
  rows?: unknown[][];
  row_count?: number;
  rows_sha256?: string;
  error?: string;
}
interface Column {
  name: string;
  type: string;
  comment?: string;
}
interface ObjectInfo {
  schema: string;
  name: string;
  kind: string;
  comment?: string;
  columns?: Column[];
  error?: string;
}
interface Expected {
  tables: Record<string, Column[]>;
  objects: ObjectInfo[];
  queries: Query[];
}

const q = (s: string) => '"' + s.replaceAll('"', '""') + '"';

async function run(o: Opened, sql: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const r = await o.conn.runAndReadAll(sql);
  return { columns: r.columnNames(), rows: r.getRowsJson() as unknown[][] };
}

async function checkQuery(o: Opened, query: Query): Promise<void> {
  if (query.error !== undefined) {
    await assert.rejects(run(o, query.sql), `expected failure: ${query.sql}`);
    return;
  }
  const got = await run(o, query.sql);
  assert.deepEqual(got.columns, query.columns, `columns of ${query.sql}`);
  if (query.rows_sha256 !== undefined) {
    assert.equal(got.rows.length, query.row_count, `row count of ${query.sql}`);
    assert.equal(rowsSha256(got.rows), query.rows_sha256, `rows_sha256 of ${query.sql}`);
  } else {
    assert.deepEqual(sortRows(got.rows), sortRows(query.rows ?? []), `rows of ${query.object} (${query.kind})`);
  }
}

async function checkObjects(o: Opened, exp: Expected): Promise<void> {
  for (const [name, cols] of Object.entries(exp.tables)) {
    const [schema, table] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
    const d = await run(o, `SELECT column_name, column_type FROM (DESCRIBE ${q(schema)}.${q(table)})`);
    assert.deepEqual(
      d.rows,
      cols.map((c) => [c.name, c.type]),
      `DESCRIBE ${name}`,
    );
  }
  const listed = await run(
    o,
    "SELECT schema_name, view_name, comment FROM duckdb_views() WHERE database_name = 'lake' AND NOT internal ORDER BY ALL",
  );
  assert.deepEqual(
    listed.rows.map((r) => `${r[0]}.${r[1]}`).sort(),
    exp.objects.map((x) => `${x.schema}.${x.name}`).sort(),
    'listed objects',
  );
  for (const obj of exp.objects) {
    const row = listed.rows.find((r) => r[0] === obj.schema && r[1] === obj.name)!;
    assert.equal(row[2] ?? null, obj.comment ?? null, `comment of ${obj.schema}.${obj.name}`);
    if (obj.error !== undefined) {
      await assert.rejects(
        run(o, `DESCRIBE ${q(obj.schema)}.${q(obj.name)}`),
        `DESCRIBE of dangling ${obj.name} must fail`,
      );
      continue;
    }
    const cols = await run(
      o,
      `SELECT column_name, data_type, comment FROM duckdb_columns() WHERE database_name = 'lake' AND schema_name = ${`'${obj.schema.replaceAll("'", "''")}'`} AND table_name = ${`'${obj.name.replaceAll("'", "''")}'`} ORDER BY column_index`,
    );
    assert.deepEqual(
      cols.rows,
      (obj.columns ?? []).map((c) => [c.name, c.type, c.comment ?? null]),
      `columns of ${obj.schema}.${obj.name}`,
    );
  }
}

describe('DuckLake fixtures: every repository, every version', () => {
  for (const v of allVersions()) {
    it(`${v.repo} ${v.id}`, async () => {
      assert.ok(v.expectedFile, `expected results for ${v.repo}/${v.id}`);
      const exp = JSON.parse(readFileSync(v.expectedFile, 'utf8')) as Expected;
      const o = await openVersion(v);
      try {
        await checkObjects(o, exp);
        for (const query of exp.queries) await checkQuery(o, query);
      } finally {
        o.close();
      }
    });
  }
});

describe('negative fixtures (lake)', () => {
  const negative = (name: string) =>
    repoVersions(
      path.join(FIXTURES, 'negative', name, 'repo'),
      name,
      path.join(FIXTURES, 'negative', name, 'expected'),
    );
  const refused = async (name: string, pattern: RegExp) => {
    const versions = negative(name);
    const main = versions.at(-1)!;
    await assert.rejects(
      openVersion(main),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '0A000' && pattern.test(e.message),
    );
  };

  it('path_escape_relative is refused', () => refused('path_escape_relative', /\.\./));
  it('path_absolute is refused without opening the file', () =>
    refused('path_absolute', /absolute data file path: \/etc\/passwd/));
  it('glob_in_path: refused with 0A000 or exactly the expected rows, never the decoy', async () => {
    for (const v of negative('glob_in_path')) {
      let o: Opened;
      try {
        o = await openVersion(v);
      } catch (e) {
        assert.ok(e instanceof SqlError && e.sqlstate === '0A000', String(e));
        continue;
      }
      try {
        const exp = JSON.parse(readFileSync(v.expectedFile!, 'utf8')) as Expected;
        for (const query of exp.queries) await checkQuery(o, query);
      } finally {
        o.close();
      }
    }
  });
});
