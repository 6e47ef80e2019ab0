/**
 * The engine line's verdict shared across versions of one namespace (analysis/side-effects.ts `shared`,
 * versions/version-namespace.ts), on an in-process DuckDB: a plan that read only the catalog emulation's
 * tables is not bound again in another version's scope of the same namespace, its row bound read anew; a
 * plan that read anything of its version — the same text over another version's files — is bound again and
 * refused there; another namespace or repository (another shared scope) never takes it. And the namespace:
 * alike for versions whose names reach the same entries, different where a table's columns, its having data,
 * a view's or macro's definition, or a schema differ.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import { refuseSideEffects } from '../src/analysis/side-effects.js';
import { SqlError } from '../src/errors.js';
import { workCount } from '../src/stages.js';
import { versionNamespace } from '../src/versions/version-namespace.js';
import type { LakeCatalog, LakeTable } from '../src/lake/model.js';

describe('the engine line shares a verdict across versions only for plans that read nothing of the version', () => {
  let dir: string;
  let inside: string;
  let outside: string;
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let scopes = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fdl-verdicts-shared-'));
    inside = join(dir, 'inside', 'a.parquet');
    outside = join(dir, 'outside', 'b.parquet');
    mkdirSync(join(dir, 'inside'));
    mkdirSync(join(dir, 'outside'));
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    for (const f of [inside, outside]) await conn.run(`COPY (SELECT 1 AS x) TO '${f}'`);
    // the emulation's two databases (pg/catalog/names.ts), and two "versions" whose table t reads other files
    await conn.run("ATTACH ':memory:' AS fdl_pg; CREATE SCHEMA fdl_pg.pgcat");
    await conn.run("ATTACH ':memory:' AS fdl_pg_versions; CREATE SCHEMA fdl_pg_versions.pgcat");
    await conn.run('CREATE TABLE fdl_pg.pgcat.rel AS SELECT range AS x FROM range(3)');
    await conn.run('CREATE TABLE fdl_pg_versions.pgcat.rel_by_db AS SELECT range AS x FROM range(3)');
    await conn.run("ATTACH ':memory:' AS va; ATTACH ':memory:' AS vb");
    await conn.run(`CREATE VIEW va.main.t AS SELECT * FROM read_parquet('${inside}')`);
    await conn.run(`CREATE VIEW vb.main.t AS SELECT * FROM read_parquet('${outside}')`);
    // set unenforced here, so DuckDB binds a file outside and only the check can refuse it
    await conn.run(`SET allowed_directories = ['${join(dir, 'inside')}/']`);
  });
  after(() => {
    conn?.disconnectSync();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `sql` judged on version database `db` in a version scope of its own, under the shared scope `shared`. */
  const verdict = async (sql: string, db: string, shared: string) => {
    await conn.run(`SET search_path = '${db}.main'`);
    try {
      const a = await analyze(conn, sql);
      return { rows: await refuseSideEffects(conn, a.sql, a, `${db}-${scopes++}`, shared) };
    } catch (e) {
      assert.ok(e instanceof SqlError, String(e));
      return { sqlstate: e.sqlstate };
    }
  };
  const counting = async (work: () => Promise<unknown[]>) => {
    const binds = workCount('bind_check');
    const reuses = workCount('verdict_reuse');
    const got = await work();
    return { got, binds: workCount('bind_check') - binds, reuses: workCount('verdict_reuse') - reuses };
  };

  test("a catalog text judged on one version is not bound again on the next of the same namespace, nor its new literal's; its rows read anew", async () => {
    const shared = `namespace-${scopes++}`;
    const r = await counting(async () => {
      const first = await verdict(
        'SELECT e.x FROM fdl_pg.pgcat.rel e JOIN fdl_pg_versions.pgcat.rel_by_db v ON v.x = e.x WHERE e.x = 1',
        'va',
        shared,
      );
      // the per-version table grows as versions attach
      await conn.run('INSERT INTO fdl_pg_versions.pgcat.rel_by_db SELECT range FROM range(3, 10)');
      const next = await verdict(
        'SELECT e.x FROM fdl_pg.pgcat.rel e JOIN fdl_pg_versions.pgcat.rel_by_db v ON v.x = e.x WHERE e.x = 2',
        'vb',
        shared,
      );
      return [first, next];
    });
    // a join gives at most (left + 1) × (right + 1): 4 × 4, then 4 × 11
    assert.deepEqual(r, { got: [{ rows: 16 }, { rows: 44 }], binds: 1, reuses: 1 });
  });

  test("a text that read its version's files is bound again on the next version, and refused there", async () => {
    const shared = `namespace-${scopes++}`;
    const r = await counting(async () => [
      await verdict('SELECT x FROM t WHERE x = 1', 'va', shared),
      await verdict('SELECT x FROM t WHERE x = 2', 'vb', shared),
    ]);
    assert.deepEqual(r, { got: [{ rows: undefined }, { sqlstate: '42501' }], binds: 2, reuses: 0 });
  });

  test('a text that read the emulation and its version is bound again on the next version, and refused there', async () => {
    const shared = `namespace-${scopes++}`;
    const text = 'SELECT e.x FROM fdl_pg.pgcat.rel e, t WHERE e.x = t.x';
    const r = await counting(async () => [await verdict(text, 'va', shared), await verdict(text, 'vb', shared)]);
    assert.deepEqual(r, { got: [{ rows: undefined }, { sqlstate: '42501' }], binds: 2, reuses: 0 });
  });

  test('another namespace, or another repository (another shared scope), binds again', async () => {
    const text = 'SELECT x FROM fdl_pg.pgcat.rel WHERE x = 1';
    const r = await counting(async () => [
      await verdict(text, 'va', `repo-a-namespace-${scopes}`),
      await verdict(text, 'vb', `repo-b-namespace-${scopes}`),
      await verdict(text, 'vb', `repo-a-other-namespace-${scopes++}`),
    ]);
    assert.deepEqual(r, { got: [{ rows: 3 }, { rows: 3 }, { rows: 3 }], binds: 3, reuses: 0 });
  });

  const table = (name: string, columns: [string, string][], files: number): LakeTable =>
    ({
      schema: 'main',
      name,
      comment: null,
      columns: columns.map(([n, type]) => ({ name: n, type, comment: null })),
      files: [],
      dataFiles: Array.from({ length: files }, (_, i) => ({ id: i })),
      inlined: [],
    }) as unknown as LakeTable;
  const catalog = (over: Partial<LakeCatalog> = {}): LakeCatalog =>
    ({
      schemas: [{ name: 'main', comment: null }],
      tables: [table('t', [['x', 'INTEGER']], 1), table('e', [['y', 'VARCHAR']], 0)],
      views: [{ schema: 'main', name: 'v', sql: 'SELECT 1', aliases: [], comment: null }],
      macros: [],
      ...over,
    }) as unknown as LakeCatalog;

  test("the namespace: alike over other files and comments, not where a name's entry could bind otherwise", () => {
    const base = versionNamespace(catalog());
    // more files of a table with data, other comments: the same names reach the same entries
    assert.equal(
      versionNamespace(
        catalog({
          tables: [table('t', [['x', 'INTEGER']], 4), table('e', [['y', 'VARCHAR']], 0)],
          schemas: [{ name: 'main', comment: 'now with a comment' }],
        }),
      ),
      base,
    );
    const others: Partial<LakeCatalog>[] = [
      // a table without data (its view scans nothing) that now has data
      { tables: [table('t', [['x', 'INTEGER']], 1), table('e', [['y', 'VARCHAR']], 1)] },
      { tables: [table('t', [['x', 'BIGINT']], 1), table('e', [['y', 'VARCHAR']], 0)] },
      { tables: [table('t', [['x', 'INTEGER']], 1)] },
      { views: [{ schema: 'main', name: 'v', sql: 'SELECT 2', aliases: [], comment: null }] },
      { macros: [{ schema: 'main', name: 'lower', definition: '(x) AS (x)', bodies: ['SELECT x'] }] },
      {
        schemas: [
          { name: 'main', comment: null },
          { name: 'sales', comment: null },
        ],
      },
    ];
    for (const o of others) assert.notEqual(versionNamespace(catalog(o)), base, JSON.stringify(o));
  });
});
