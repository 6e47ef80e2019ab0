/**
 * A three-part name whose first part is not the session's database: PostgreSQL 15 answers 0A000
 * "cross-database references are not implemented: "db.schema.rel"", and so must the gateway — before,
 * `"other@ref".information_schema.tables` answered the session's own catalog for any name, and
 * `"A~v1".sales.orders` was refused 42501 as if it were a path. Compared with a real PostgreSQL 15.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';

let twins: PgTwins;
before(async () => {
  twins = await startPgTwins();
});
after(async () => {
  await twins?.stop();
});

const rows = (r: { dataRows: Buffer[] }) => r.dataRows.map((d) => d.toString('latin1'));

test('a three-part name of another database is 0A000 with PostgreSQL 15 words; the session goes on', async () => {
  const { pg, gw } = twins.conns;
  const before = rows(await gw.query('select count(*) from sales.orders'));
  for (const sql of [
    'select count(*) from "other@ref".information_schema.tables',
    'select count(*) from nosuch.information_schema.tables',
    'select relname from other.pg_catalog.pg_class',
    'select count(*) from "A~v1".sales.orders',
    'select * from "Other DB".sales.orders o join sales.customers c on true',
    'select count(*) from postgres_x.information_schema.columns',
  ]) {
    const [p, g] = [await pg.query(sql), await gw.query(sql)];
    assert.equal(p.error?.code, '0A000', `PostgreSQL: ${sql}`);
    assert.deepEqual(
      { code: g.error?.code, message: g.error?.message },
      { code: p.error?.code, message: p.error?.message },
      sql,
    );
  }
  assert.deepEqual(rows(await gw.query('select count(*) from sales.orders')), before, 'the session answers as before');
});

test("the session's own database in front of a catalog relation is served as PostgreSQL serves it", async () => {
  const { pg, gw } = twins.conns;
  // The gateway's session is on basic@v2, PostgreSQL's on postgres.
  const g = await gw.query(
    `select table_name from "basic@v2".information_schema.tables where table_schema = 'sales' order by 1`,
  );
  const p = await pg.query(
    `select table_name from postgres.information_schema.tables where table_schema = 'sales' order by 1`,
  );
  assert.equal(g.error, undefined);
  assert.deepEqual(rows(g), rows(p));
  assert.ok(rows(g).length >= 2);
});

test('"NAME~REF" (the URL spelling of @) reads that version as "NAME@REF" does', async () => {
  const { gw } = twins.conns;
  const at = await gw.query('select count(*), sum(qty) from "basic@v1".sales.orders');
  const tilde = await gw.query('select count(*), sum(qty) from "basic~v1".sales.orders');
  assert.equal(at.error, undefined);
  assert.deepEqual({ error: tilde.error, rows: rows(tilde) }, { error: undefined, rows: rows(at) });
});

test("the gateway's views after a database name: 0A000 naming the working form; the session goes on", async () => {
  const { gw } = twins.conns;
  const before = rows(await gw.query('select count(*) from fdl.refs'));
  for (const sql of [
    'select count(*) from "basic@v1".fdl.refs',
    'select * from "basic~v1".fdl.session',
    'select count(*) from basic.fdl.versions v where v.expired',
  ]) {
    const g = await gw.query(sql);
    assert.equal(g.error?.code, '0A000', sql);
    assert.match(g.error?.hint ?? '', /^Write fdl\.(refs|session|versions):/, sql);
  }
  assert.deepEqual(rows(await gw.query('select count(*) from fdl.refs')), before, 'the session answers as before');
});
