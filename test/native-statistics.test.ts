/**
 * What DuckDB may answer from a table's statistics instead of its rows, over native copies
 * (versions/native-tables.ts): count(*), min and max of a whole table (a checkpointed table's row groups hold
 * them), and grouping sets that repeat the empty set, which two of DuckDB's shortcuts answer with one row
 * (pg/empty-grouping-sets.ts). In-process, a copy and its view answer the statistics' forms alike over every
 * table of every fixture; through the gateway with copies on, PostgreSQL 15's answer or, for repeated empty
 * grouping sets, 0A000 with a hint and the session unchanged.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { nativeTables } from '../src/versions/native-tables.js';
import { allVersions } from './support/lake-fixtures.js';
import { answer, compare } from './support/pg-corpus.js';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import type { RawPg } from './support/raw-pg.js';

const qi = (s: string) => '"' + s.replaceAll('"', '""') + '"';
const json = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe("the statistics' forms over a copy and over its view", () => {
  // the types DuckDB's statistics give min and max of (propagate_aggregate.cpp: VARCHAR, numeric, temporal)
  const withMinMax =
    /^(VARCHAR|BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|U\w*INT|FLOAT|DOUBLE|DECIMAL.*|DATE|TIME.*|TIMESTAMP.*|INTERVAL)$/;
  for (const v of allVersions()) {
    it(`${v.repo} ${v.id}`, async () => {
      const instance = await DuckDBInstance.create(':memory:');
      const conn = await instance.connect();
      try {
        await conn.run("SET TimeZone='UTC'");
        const catalog = await openCatalog(conn, v.catalogFile, 'meta');
        const locate = (rel: string) => path.join(v.root, v.dataDir, rel);
        const native = nativeTables(catalog, () => true, { table: Infinity, version: Infinity });
        await attachCatalog(conn, catalog, 'viewed', locate);
        await conn.run('SET threads = 1');
        await attachCatalog(conn, catalog, 'copied', locate, { native });
        await conn.run('SET threads = 4');
        for (const t of catalog.tables) {
          const name = `${qi(t.schema)}.${qi(t.name)}`;
          const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM viewed.${name}`)).getRows();
          const forms = [`SELECT count(*) FROM ${name}`];
          for (const [col, type] of cols)
            if (withMinMax.test(String(type)))
              forms.push(
                `SELECT min(${qi(String(col))}), max(${qi(String(col))}), count(*) FROM ${name}`,
                `SELECT count(*), max(${qi(String(col))}) FROM ${name} WHERE ${qi(String(col))} IS NOT NULL`,
              );
          for (const form of forms) {
            const run = async (db: string) =>
              json((await conn.runAndReadAll(form.replace(name, `${db}.${name}`))).getRows());
            assert.equal(await run('copied'), await run('viewed'), `${v.repo}: ${form}`);
          }
        }
      } finally {
        conn.closeSync();
        instance.closeSync();
      }
    });
  }
});

describe('through the gateway with native copies, against PostgreSQL 15', () => {
  let twins: PgTwins | undefined;
  let pg: RawPg;
  let gw: RawPg;
  before(
    async () => {
      twins = await startPgTwins({ config: { nativeTableBytes: 64 * 1024 * 1024 } });
      ({ pg, gw } = twins.conns);
    },
    { timeout: 120_000 },
  );
  after(() => twins?.stop(), { timeout: 30_000 });

  it("count(*), min and max of whole tables, and grouping sets with groups: PostgreSQL's answer", async () => {
    const same = [
      'select count(*) from sales.customers',
      'select count(*) from sales.orders',
      'select min(customer_id), max(customer_id), min(name), max(name), min(signup), max(signup), count(*) from sales.customers',
      'select min(order_id), max(order_id), min(amount), max(amount), min(qty), max(qty), min(ordered_at), max(ordered_at), min(status), max(status) from sales.orders',
      'select count(*), min(signup) from sales.customers where customer_id > 100000',
      'select count(*), max(email) from sales.customers where customer_id >= 0',
      'select count(*) from sales.customers group by ()',
      'select count(*) from sales.customers group by (), ()',
      'select 1 from sales.customers group by ()',
      'select country, count(*) from sales.customers group by grouping sets ((country), ()) order by 1, 2',
      'select country, count(*) from sales.customers group by grouping sets ((country), (country)) order by 1, 2',
      'select country, count(*), min(signup) from sales.customers group by rollup(country, country) order by 1, 2, 3',
      'select country, vip, count(*) from sales.customers group by cube(country, vip) order by 1, 2, 3',
      'select status, count(*) from sales.orders group by grouping sets ((), (status)) order by 1, 2',
    ];
    for (const sql of same) {
      const [p, g] = await Promise.all([answer(pg, sql), answer(gw, sql)]);
      assert.equal(p.error, undefined, `${sql}: ${JSON.stringify(p.error)}`);
      assert.equal(compare(p, g, sql), 'same', `${sql}\n  PostgreSQL: ${json(p)}\n  gateway:    ${json(g)}`);
    }
  });

  it('only empty grouping sets, more than one: 0A000 with a hint (PostgreSQL answers a row per set), the session unchanged', async () => {
    const refused = [
      'select count(*) from sales.customers group by grouping sets ((), ())',
      'select min(signup), max(name), count(*) from sales.customers group by grouping sets ((), (), ())',
      'select count(*) from sales.orders group by grouping sets ((), ())',
      'select 1 from sales.orders group by grouping sets ((), ())',
      'select count(*) from sales.customers group by grouping sets (grouping sets ((), ()))',
      'select count(*) from sales.customers group by (), grouping sets ((), ())',
      'select n from (select count(*) as n from sales.customers group by grouping sets ((), ())) t',
    ];
    for (const sql of refused) {
      const p = await pg.query(sql);
      assert.equal(p.error, undefined, sql);
      assert.ok(p.dataRows.length > 1, `${sql}: PostgreSQL answers ${p.dataRows.length} rows`);
      const before = await answer(gw, 'select count(*), min(signup), max(name) from sales.customers');
      await gw.simple('begin');
      const g = await gw.query(sql);
      assert.equal(g.error?.code, '0A000', `${sql}: ${JSON.stringify(g.error ?? g.dataRows.length)}`);
      assert.match(g.error?.hint ?? '', /UNION ALL/, sql);
      // the block is failed, as PostgreSQL's after any error; after it the same answers
      assert.equal((await gw.simple('select 1')).error?.code, '25P02');
      await gw.simple('rollback');
      assert.deepEqual(await answer(gw, 'select count(*), min(signup), max(name) from sales.customers'), before);
    }
  });
});
