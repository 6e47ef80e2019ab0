/**
 * POSIX time-zone specifications (src/pg/posix-zones.ts): PostgreSQL counts their offset west of
 * Greenwich, DuckDB east, so `UTC+3` answered +03 where PostgreSQL 15 answers -03. In AT TIME ZONE they
 * are refused, 22023 with a hint; in SET TimeZone those with summer time are (a fixed offset is read as
 * PostgreSQL reads it: fixed-zones.test.ts), and nothing changes; the tz database names that look alike
 * answer as PostgreSQL 15.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { answer } from './support/pg-corpus.js';
import type { RawPg } from './support/raw-pg.js';

let twins: PgTwins | undefined;
let pg: RawPg;
let gw: RawPg;

before(
  async () => {
    twins = await startPgTwins({ settings: { TimeZone: 'UTC' }, params: { TimeZone: 'UTC' } });
    ({ pg, gw } = twins.conns);
  },
  { timeout: 120_000 },
);

after(
  async () => {
    await twins?.stop();
  },
  { timeout: 30_000 },
);

const POSIX = ['UTC+3', 'UTC-5:30', 'GMT+3', 'EST5', 'FOO+3', '<+03>-3', 'UTC+3DST', '+3'];
/** With summer time: PostgreSQL applies its own default rules, which DuckDB has not. */
const WITH_SUMMER_TIME = ['UTC+3DST', 'FOO+3BAR', '<+03>-3<+04>,M3.5.0,M10.5.0'];
const INSTANT = `select timestamptz '2024-07-01 12:00+00', timestamptz '2024-01-01 12:00+00' at time zone 'Etc/GMT+3'`;

test('SET TIME ZONE to a POSIX specification with summer time: 22023 with a hint, and the zone stays as it was', async () => {
  assert.equal((await gw.simple(`SET TIME ZONE 'Europe/Berlin'`)).error, undefined);
  const before = await answer(gw, INSTANT);
  for (const zone of WITH_SUMMER_TIME) {
    for (const sql of [`SET TIME ZONE '${zone}'`, `SET TimeZone = '${zone}'`]) {
      const r = await gw.simple(sql);
      assert.equal(r.error?.code, '22023', `${sql}: ${JSON.stringify(r.error)}`);
      assert.match(r.error?.hint ?? '', /Etc\/GMT\+3/, sql);
    }
    const shown = await gw.simple('SHOW TimeZone');
    assert.equal(shown.dataRows.length, 1);
    assert.match(shown.dataRows[0]!.toString('latin1'), /Europe\/Berlin/, `${zone}: SHOW TimeZone`);
    assert.deepEqual(await answer(gw, INSTANT), before, `${zone}: the session's zone changed`);
  }
  assert.equal((await gw.simple(`SET TIME ZONE 'UTC'`)).error, undefined);
});

test("AT TIME ZONE and timezone() with a POSIX specification: 22023 with a hint (PostgreSQL's answer is the other sign)", async () => {
  for (const zone of POSIX) {
    for (const sql of [
      `select timestamptz '2024-01-01 12:00+00' at time zone '${zone}'`,
      `select ordered_at at time zone '${zone}' from sales.orders order by order_id limit 1`,
      `select timezone('${zone}', ordered_at) from sales.orders order by order_id limit 1`,
    ]) {
      const r = await answer(gw, sql);
      assert.equal(r.error?.code, '22023', `${sql}: ${JSON.stringify(r)}`);
      assert.ok(r.error?.hint, sql);
    }
  }
});

test('zones of the tz database that look like POSIX specifications answer as PostgreSQL 15', async () => {
  for (const zone of ['EST5EDT', 'PST8PDT', 'GMT0', 'GMT+0', 'Etc/GMT+3', 'Etc/GMT-14', 'America/Sao_Paulo']) {
    const sql = `select timestamptz '2024-07-01 12:00+00' at time zone '${zone}', timestamptz '2024-01-01 12:00+00' at time zone '${zone}'`;
    assert.deepEqual(await answer(gw, sql), await answer(pg, sql), sql);
    for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE '${zone}'`)).error, undefined, zone);
    const shown = `select timestamptz '2024-07-01 12:00+00', timestamptz '2024-01-01 12:00+00'`;
    assert.deepEqual(await answer(gw, shown), await answer(pg, shown), `${zone}: ${shown}`);
  }
  for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE 'UTC'`)).error, undefined);
});
