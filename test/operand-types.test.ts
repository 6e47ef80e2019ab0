/**
 * Float checks left out where the operands are known not to be floats (pg/operand-types.ts, issue 26): DuckDB
 * itself says which types' `+ - *` never make a float; the rewrite, given a version's column types, resolves a
 * column's name as DuckDB's binder does and keeps the check wherever it cannot be sure; and a rewrite made with
 * one version's types is never served for another's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { rewriteForDuckDBDetailed } from '../src/pg/rewrite.js';
import { FLOAT_CHECK_CALL } from '../src/pg/float-range.js';
import { EXACT_NUMBER, NOT_FLOAT, type RelationTypes } from '../src/pg/operand-types.js';
import { relationTypes } from './support/relation-types.js';
import { allVersions, openVersion } from './support/lake-fixtures.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;
before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
after(() => {
  conn.disconnectSync();
  instance.closeSync();
});

const EXACT = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'];
const DECIMALS = ['DECIMAL(4,1)', 'DECIMAL(9,2)', 'DECIMAL(18,3)', 'DECIMAL(38,10)'];
const DATETIME = ['DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'INTERVAL'];

/** DuckDB's type of `a op b` over columns of those types (constants would be folded), or null where it refuses. */
async function resultTypes(types: readonly string[]): Promise<{ a: string; op: string; b: string; type: string }[]> {
  await conn.run(`CREATE OR REPLACE TABLE t (${types.map((t, i) => `c${i} ${t}`).join(', ')})`);
  await conn.run('INSERT INTO t DEFAULT VALUES');
  const out: { a: string; op: string; b: string; type: string }[] = [];
  for (const [i, a] of types.entries())
    for (const [j, b] of types.entries())
      for (const op of ['+', '-', '*']) {
        try {
          const r = await conn.runAndReadAll(`SELECT typeof(c${i} ${op} c${j}) FROM t`);
          out.push({ a, op, b, type: String(r.getRows()[0]![0]) });
        } catch {
          // no such operator for the pair (DuckDB's binder error): nothing computed
        }
      }
  return out;
}

test("DuckDB's + - * of the types taken as not floats are never DOUBLE or FLOAT, and of exact numbers exact numbers", async () => {
  for (const t of [...EXACT, ...DECIMALS]) assert.match(t, EXACT_NUMBER);
  for (const t of [...EXACT, ...DECIMALS, ...DATETIME]) assert.match(t, NOT_FLOAT);
  for (const t of ['DOUBLE', 'FLOAT', 'UHUGEINT', 'VARCHAR', 'INTEGER[]', 'TIMESTAMP_NS', 'STRUCT(a INTEGER)'])
    assert.doesNotMatch(t, NOT_FLOAT, t);
  const notFloat = await resultTypes([...EXACT, ...DECIMALS, ...DATETIME]);
  assert.ok(notFloat.length > 400, `${notFloat.length} pairs computed`);
  for (const r of notFloat) assert.match(r.type, NOT_FLOAT, `${r.a} ${r.op} ${r.b} is ${r.type}`);
  for (const r of await resultTypes([...EXACT, ...DECIMALS]))
    assert.match(r.type, EXACT_NUMBER, `${r.a} ${r.op} ${r.b} is ${r.type}`);
  // why UHUGEINT is not one of them
  assert.ok((await resultTypes(['UHUGEINT', 'INTEGER'])).some((r) => r.type === 'DOUBLE'));
});

const ORDERS = {
  order_id: 'BIGINT',
  customer_id: 'INTEGER',
  amount: 'DECIMAL(12,2)',
  qty: 'SMALLINT',
  status: 'VARCHAR',
};
const TABLES = {
  'sales.orders': ORDERS,
  'sales.customers': { customer_id: 'INTEGER', name: 'VARCHAR', score: 'DOUBLE' },
  'main.floats': { v: 'DOUBLE', order_id: 'DOUBLE', n: 'INTEGER' },
  'main.ints': { v: 'INTEGER', n: 'INTEGER' },
  'main.huge': { u: 'UHUGEINT', n: 'INTEGER' },
};
const TYPES = relationTypes(TABLES, ['main', 'sales']);

const checks = (sql: string, types: RelationTypes | undefined = TYPES) =>
  [...rewriteForDuckDBDetailed(sql, types).sql.matchAll(FLOAT_CHECK_CALL)].length;
/** Without types: a text of the text thread, a session without a version. */
const untyped = (sql: string) => [...rewriteForDuckDBDetailed(sql).sql.matchAll(FLOAT_CHECK_CALL)].length;

test("a float check is left out only where DuckDB's binder finds columns that are not floats", () => {
  const cases: [string, number][] = [
    // the point query of issue 26: the client's own text goes to DuckDB
    ['select $1::int + order_id from sales.orders where order_id = $2', 0],
    ['select order_id * 2, qty * amount, (order_id - customer_id) * qty from orders', 0],
    ['select v * 2 from floats', 1],
    ['select v * n from floats', 1],
    ['select n * 2, order_id * 2 from floats', 1],
    ['select u * n from huge', 1],
    ['select $1::float8 * order_id from orders', 1],
    // qualified, joined, USING, correlated
    ['select o.qty * c.customer_id from orders o join customers c using (customer_id)', 0],
    ['select o.qty * c.score from orders o join customers c using (customer_id)', 1],
    ['select (select qty * 2 from customers) from orders', 0],
    ['select (select order_id * 2 from floats) from orders', 1],
    ['select (select v * 2 from ints) from floats', 0],
    // a name two FROM items have in different types, or one DuckDB may bind elsewhere: kept
    ['select v * 2 from floats, ints', 1],
    ['select order_id * 2 from floats, orders', 1],
    ['select v * 2 from ints, (select 1.5::float8 as w) s', 1],
    ['with ints as (select 1.5::float8 as v) select v * 2 from ints', 1],
    ['select v * 2 from (select v from ints) s', 1],
    ['select v * 2 from ints j(v)', 1],
    ['select v * 2 from generate_series(1, 3) v', 1],
    ['select v * 1.5::float8 as n, n * 2 from ints', 2],
    ['select ints * 2 from ints', 1],
    ['select v * 2 from unknown_table, ints', 1],
    ['select v * 2 from pg_class, ints', 1],
    ['select list_transform(array[1.5, 2.5]::float8[], v -> v * 2) from ints where v * 2 > 0', 2],
    // a whole tree: left out only where every leaf is known
    ['select n * v * 2 from ints', 0],
    ['select i.n * f.v * 2 from ints i, floats f', 1],
  ];
  for (const [sql, want] of cases) assert.equal(checks(sql), want, sql);
  // without types (a text of the text thread, another version's relation): every check stays
  assert.equal(untyped('select order_id * 2 from orders'), 1);
  assert.equal(checks('select o.qty * 2 from "basic@v1".sales.orders o'), 1);
});

test("a rewrite made with one version's column types is never another's, by text or by shape", () => {
  const asFloat = relationTypes({ ...TABLES, 'sales.orders': { ...ORDERS, order_id: 'DOUBLE' } }, ['main', 'sales']);
  for (const sql of [
    'select order_id * 5 as n from sales.orders where qty = 3',
    'select order_id * 6 as n from sales.orders where qty = 3',
    'select order_id * 5 as n from sales.orders where qty = 3',
  ]) {
    assert.equal(checks(sql, asFloat), 1, sql);
    assert.equal(checks(sql, TYPES), 0, sql);
    assert.equal(untyped(sql), 1, sql);
    assert.equal(rewriteForDuckDBDetailed(sql, TYPES).operandTypes, true);
  }
  // a text whose rewrite reads no column's type is one answer for every version (one made without any types is kept
  // apart: it never read them, so it is no answer for a version)
  const plain = rewriteForDuckDBDetailed('select 1.5::float8 * 2 as n', TYPES);
  assert.equal(plain.operandTypes, undefined);
  assert.equal(rewriteForDuckDBDetailed('select 1.5::float8 * 2 as n', asFloat), plain);
});

test("a table's column types as the version's catalog gives them (the lease's relationColumns) are those DuckDB binds in its view, for every fixture version", async () => {
  let compared = 0;
  for (const v of allVersions()) {
    const o = await openVersion(v);
    try {
      for (const t of o.catalog.tables) {
        const described = await o.conn.runAndReadAll(
          `SELECT column_name, column_type FROM (DESCRIBE "${t.schema.replaceAll('"', '""')}"."${t.name.replaceAll('"', '""')}")`,
        );
        assert.deepEqual(
          t.columns.map((c) => [c.name, c.type]),
          described.getRows(),
          `${v.repo} ${v.id} ${t.schema}.${t.name}`,
        );
        compared++;
      }
    } finally {
      o.close();
    }
  }
  assert.ok(compared > 20, `${compared} tables compared`);
});
