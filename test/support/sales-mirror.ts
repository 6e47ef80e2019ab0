/**
 * A PostgreSQL 15 twin of the basic fixture's `sales` schema (same column types, same rows copied
 * through the gateway), so differential tests and client probes run the same statements on both.
 * The role's search_path lists `sales` as the gateway's default search_path does.
 */
import assert from 'node:assert/strict';
import type { PgCluster } from './pg-cluster.js';
import { splitDataRow, type RawPg } from './raw-pg.js';

export async function copySalesSchema(pg: PgCluster, gateway: RawPg): Promise<void> {
  pg.psql(`CREATE SCHEMA sales;
    CREATE TABLE sales.customers (customer_id integer, name text, email text, country text, signup date, vip boolean);
    CREATE TABLE sales.orders (order_id bigint, customer_id integer, amount numeric(12,2), qty smallint, ordered_at timestamp, status text);
    ALTER ROLE postgres SET search_path = "$user", public, sales;`);
  for (const table of ['customers', 'orders']) {
    const r = await gateway.simple(`SELECT * FROM sales.${table}`);
    assert.equal(r.error, undefined, r.error?.message);
    const values = r.dataRows.map(
      (d) =>
        `(${splitDataRow(d)
          .map((v) => (v === null ? 'NULL' : `'${v.toString().replace(/'/g, "''")}'`))
          .join(', ')})`,
    );
    pg.psql(`INSERT INTO sales.${table} VALUES ${values.join(', ')}`);
  }
}
