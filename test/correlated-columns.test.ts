/**
 * A bare column of an outer query read inside a subquery with its own FROM (a correlated subquery as analysts
 * write it: `(select round(amount) from sales.customers c where c.customer_id = o.customer_id)`), compared with
 * PostgreSQL 15 beside the gateway in text and binary. DuckDB binds the rewrite's typed macros without the outer
 * scopes and reads a bare name there as the subquery's select-list alias: these were `42725` naming an internal
 * macro (`round()`, `ffin()`, `rdiv()`) or DuckDB's "referenced before it is defined" (`ordered_at::time`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pgTwinsInUtc } from './support/pg-twins.js';
import { splitDataRow, type QueryResult } from './support/raw-pg.js';

const twins = pgTwinsInUtc();

const answer = (r: QueryResult, binary = false) =>
  r.error
    ? { error: r.error.code, message: r.error.message }
    : {
        columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]),
        rows: r.dataRows.map((d) =>
          splitDataRow(d).map((v) => (v === null ? null : binary ? v.toString('hex') : v.toString('utf8'))),
        ),
      };

async function sameAsPostgres(sqls: readonly string[]): Promise<void> {
  for (const sql of sqls)
    for (const binary of [false, true]) {
      const opts = binary ? { resultFormats: [1] } : {};
      const pg = answer(await twins.conns().pg.query(sql, opts), binary);
      assert.ok(!('error' in pg), `PostgreSQL answers ${sql}: ${JSON.stringify(pg)}`);
      assert.deepEqual(
        answer(await twins.conns().gw.query(sql, opts), binary),
        pg,
        `${sql}${binary ? ' (binary)' : ''}`,
      );
    }
}

/** `e` computed in a subquery over customers, from the outer row of orders. */
const inCustomers = (e: string, alias = 'o') =>
  `select order_id, (select ${e} from sales.customers c where c.customer_id = ${alias}.customer_id) as v from sales.orders ${alias} order by order_id limit 4`;

describe('a bare outer column inside a subquery with its own FROM: PostgreSQL 15 answers', () => {
  test('in functions, casts and operators the rewrite types (it was 42725 naming an internal macro)', async () => {
    await sameAsPostgres(
      [
        'round(amount)',
        'round(amount, 1)',
        'amount * 2',
        'order_id / 2',
        'order_id % 3',
        'amount::numeric',
        'ordered_at::time',
        'length(status)',
        'to_hex(order_id)',
        'extract(year from ordered_at)',
        "date_trunc('month', ordered_at)",
        "name || ' ' || status",
      ].map((e) => inCustomers(e)),
    );
  });

  test('nested two levels, in WHERE and in an aggregate, and over an unaliased table', async () => {
    await sameAsPostgres([
      'select order_id, (select (select round(amount) from sales.customers c2 where c2.customer_id = c.customer_id) from sales.customers c where c.customer_id = o.customer_id) v from sales.orders o order by order_id limit 4',
      'select order_id, (select count(*) from sales.orders o2 where o2.qty > qty / 2) from sales.orders o order by order_id limit 4',
      'select customer_id, (select max(o2.amount) - length(name) from sales.orders o2 where o2.customer_id = c.customer_id) from sales.customers c order by customer_id limit 4',
      'select order_id, (select round(amount) from sales.customers c where c.customer_id = orders.customer_id) from sales.orders order by order_id limit 4',
    ]);
  });

  test("a name the subquery itself has stays the subquery's (inner columns win, as in PostgreSQL)", async () => {
    await sameAsPostgres([
      inCustomers('length(name)'),
      'select order_id, (select round(o2.amount) from sales.orders o2 where o2.order_id = o.order_id + 1) from sales.orders o order by order_id limit 4',
      'select order_id, (select round(amount) from sales.orders o2 where o2.order_id = o.order_id + 1) from sales.orders o order by order_id limit 4',
    ]);
  });
});
