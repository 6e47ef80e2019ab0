/**
 * Zones of a fixed offset (src/pg/fixed-zones.ts) in every form PostgreSQL 15 reads: POSIX
 * specifications (`GMT-05:30`, `UTC+3`, `<+0530>-05:30`, a bare `+05:30`: west of Greenwich), numbers
 * of hours and intervals (east), in SET TIME ZONE, SET TimeZone, set_config and the startup packet.
 * SHOW TimeZone and timestamptz (text and binary, sent and computed inside a statement) are compared
 * with PostgreSQL 15; an offset no zone of DuckDB's can stand for is refused and changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { answer } from './support/pg-corpus.js';
import { RawPg } from './support/raw-pg.js';

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

/** What depends on the session's zone: sent values, literals without an offset, casts, date_trunc, a table's column. */
const IN_ZONE = [
  'show timezone',
  `select timestamptz '2024-07-01 12:00+00' a, timestamptz '1900-01-01 00:00+00' b, timestamptz '2024-01-01 12:00' c,
     (timestamptz '2024-07-01 22:00+00')::date d, (timestamptz '2024-07-01 22:00+00')::timestamp e,
     date_trunc('day', timestamptz '2024-07-01 22:00+00') f, (timestamptz '2024-07-01 12:00+00')::text g,
     extract(timezone from timestamptz '2024-07-01 12:00+00') h`,
  'select ordered_at, ordered_at::date, ordered_at::timestamp from sales.orders order by order_id limit 5',
];

async function inZone(c: RawPg): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const sql of IN_ZONE) out.push(await answer(c, sql));
  return out;
}

/** Each form as the text after SET TIME ZONE. */
const FORMS = [
  `'GMT-05:30'`,
  `'GMT+09:30'`,
  `'UTC+3'`,
  `'UTC-3'`,
  `'utc+3'`,
  `'EST5'`,
  `'UTC-14'`,
  `'UTC+12'`,
  `'<+0530>-05:30'`,
  `'<-0930>+09:30'`,
  `'+09:30'`,
  `'-05:30'`,
  `'09:30'`,
  `'+3'`,
  `'-3'`,
  `'5.5'`,
  `'-9.5'`,
  `3`,
  `-9.5`,
  `9.5`,
  `INTERVAL '+05:30' HOUR TO MINUTE`,
  `INTERVAL '-09:30' HOUR TO MINUTE`,
  `INTERVAL '5' HOUR`,
  `INTERVAL '5 hours 30 minutes'`,
];

test('SET TIME ZONE to a fixed offset in each form PostgreSQL 15 reads: SHOW and timestamptz as PostgreSQL', async () => {
  for (const form of FORMS) {
    for (const c of [pg, gw]) {
      const r = await c.simple(`SET TIME ZONE ${form}`);
      assert.equal(
        r.error,
        undefined,
        `${c === pg ? 'PostgreSQL' : 'gateway'}: SET TIME ZONE ${form}: ${r.error?.message}`,
      );
    }
    assert.deepEqual(await inZone(gw), await inZone(pg), `SET TIME ZONE ${form}`);
  }
  for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE 'UTC'`)).error, undefined);
});

test('SET TimeZone = and set_config with a POSIX offset: as PostgreSQL', async () => {
  for (const zone of ['GMT-05:30', 'UTC+3', '<+0530>-05:30', '+09:30', '5.5']) {
    for (const sql of [`SET TimeZone = '${zone}'`, `select set_config('TimeZone', '${zone}', false)`]) {
      assert.deepEqual(await answer(gw, sql), await answer(pg, sql), sql);
      assert.deepEqual(await inZone(gw), await inZone(pg), sql);
    }
  }
  for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE 'UTC'`)).error, undefined);
});

test('the startup parameter TimeZone=GMT-05:30 (pgjdbc in GMT+05:30) and other fixed offsets: as PostgreSQL', async () => {
  for (const zone of ['GMT-05:30', 'GMT+09:30', 'UTC-3', '<+0930>-09:30', '-05:30', '5.5']) {
    const conns = await Promise.all([
      RawPg.connect({ port: twins!.pg.port, params: { TimeZone: zone } }),
      RawPg.connect({ port: twins!.gw.port, user: 'me', database: 'basic@v2', params: { TimeZone: zone } }),
    ]);
    try {
      assert.deepEqual(await inZone(conns[1]), await inZone(conns[0]), `TimeZone=${zone}`);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  }
});

test('offsets PostgreSQL refuses are refused with its SQLSTATE; one DuckDB has no zone for: 0A000, and the zone stays', async () => {
  for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE 'Europe/Berlin'`)).error, undefined);
  const before = await inZone(gw);
  assert.deepEqual(before, await inZone(pg));
  for (const form of [`INTERVAL '1 day'`, `200`, `'+0530'`]) {
    const [p, g] = [await pg.simple(`SET TIME ZONE ${form}`), await gw.simple(`SET TIME ZONE ${form}`)];
    assert.equal(p.error?.code, '22023', `PostgreSQL: ${form}`);
    assert.equal(g.error?.code, '22023', `gateway: ${form}: ${JSON.stringify(g.error)}`);
  }
  // -05:30, +05:45 (Nepal's since 1986), +00:30: no zone of the tz database has kept them since 1970.
  for (const form of [`'GMT+05:30'`, `'+05:30'`, `-5.5`, `'UTC-5:45'`, `5.75`, `INTERVAL '30' MINUTE`]) {
    assert.equal((await pg.simple(`SET TIME ZONE ${form}`)).error, undefined, `PostgreSQL: ${form}`);
    assert.equal((await pg.simple(`SET TIME ZONE 'Europe/Berlin'`)).error, undefined);
    const g = await gw.simple(`SET TIME ZONE ${form}`);
    assert.equal(g.error?.code, '0A000', `gateway: ${form}: ${JSON.stringify(g.error)}`);
    assert.ok(g.error?.hint, form);
  }
  assert.deepEqual(await inZone(gw), before, 'the session zone changed');
  for (const c of [pg, gw]) assert.equal((await c.simple(`SET TIME ZONE 'UTC'`)).error, undefined);
});
