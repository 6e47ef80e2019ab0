/**
 * Issue 26: DuckDB binds a statement over a version's views again at every execution (read_parquet's
 * bind data opts out of its statement cache), so what the views spell as constants is bound per
 * statement. The views spell read_parquet's `schema` and a file's deleted positions each as one
 * constant cast, not as a call per column or per position — with the same values and answers.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { schemaMap, type SchemaEntry } from '../src/lake/tablesql.js';
import { SNAPSHOT_FIELD_ID } from '../src/lake/tablesql.js';
import { copyFixtures } from './support/gateway.js';
import { repoVersions } from './support/lake-fixtures.js';

describe('what a version view binds per statement', () => {
  const repos = copyFixtures('repos/basic');
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  before(async () => {
    const repo = repos.path('repos/basic');
    const head = repoVersions(repo, 'basic', null).find((v) => v.id === '01a23632-a230-7000-a827-2230f6ffa9fe')!;
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await attachCatalog(conn, await openCatalog(conn, head.catalogFile, 'meta'), 'lake', (rel) =>
      join(head.root, head.dataDir, rel),
    );
  });
  after(() => {
    conn?.closeSync();
    instance?.closeSync();
    repos.cleanup();
  });

  it('spells the schema option and deleted positions as one constant each', async () => {
    const views = (
      await conn.runAndReadAll("SELECT view_name, sql FROM duckdb_views() WHERE database_name = 'lake'")
    ).getRows() as [string, string][];
    const overFiles = views.filter(([, sql]) => sql.includes('read_parquet'));
    assert.ok(overFiles.length >= 3, `views over Parquet files: ${overFiles.map(([n]) => n).join(', ')}`);
    // sales.orders has deleted rows in both of its files: its anti-join reads their positions
    const orders = views.find(([n]) => n === 'orders')![1];
    assert.match(orders, /ANTI JOIN/);
    for (const [name, sql] of overFiles) {
      // as DuckDB stores the view: a call per column (`MAP {…}`) or per position (`[…]`) would show here
      assert.doesNotMatch(sql, /struct_pack/, `${name}: schema spelled as calls`);
      assert.doesNotMatch(sql, /unnest\((CAST\()?main\.list_value/, `${name}: positions spelled as a list of calls`);
    }
  });

  it('reads the same schema either way, and keeps the literal for text the cast would read otherwise', async () => {
    const plain: SchemaEntry[] = [
      { id: 1, name: 'c1', type: 'BIGINT', dflt: null },
      { id: 2, name: 'c2', type: 'DECIMAL(12,2)', dflt: null },
      { id: 3, name: 'c3', type: 'TIMESTAMP WITH TIME ZONE', dflt: null },
      { id: 4, name: 'c4', type: 'STRUCT(a INTEGER, b VARCHAR)', dflt: null },
      { id: 5, name: 'c5', type: 'INTEGER', dflt: '42' },
      { id: 6, name: 'c6', type: 'VARCHAR', dflt: 'a b, c' },
      { id: SNAPSHOT_FIELD_ID, name: '_snap', type: 'BIGINT', dflt: null },
    ];
    const literal = (es: SchemaEntry[]) =>
      `MAP {${es.map((e) => `${e.id}: {name: '${e.name}', type: '${e.type}', default_value: ${e.dflt === null ? 'NULL::VARCHAR' : `'${e.dflt.replace(/'/g, "''")}'`}}`).join(', ')}}`;
    const same = async (es: SchemaEntry[]) =>
      (await conn.runAndReadAll(`SELECT (${schemaMap(es)}) IS NOT DISTINCT FROM (${literal(es)})`)).getRows()[0]![0];
    assert.match(schemaMap(plain), /^CAST\('/);
    assert.equal(await same(plain), true);
    // a quote, a backslash, braces or a leading space in a value: the literal form
    for (const odd of ["it's", 'a\\b', '{x}', ' lead', '']) {
      const es: SchemaEntry[] = [...plain, { id: 7, name: 'c7', type: 'VARCHAR', dflt: odd }];
      assert.match(schemaMap(es), /^MAP \{/, `default ${JSON.stringify(odd)}`);
      assert.equal(await same(es), true);
    }
  });
});
