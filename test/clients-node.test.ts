/**
 * Node clients and pgbench against `fdl serve`, adding to test/protocol.test.ts (which already
 * covers postgres.js typed parameters, cursors and cancel, and node-postgres transactions and
 * 100,000 rows): node-postgres parameters, named prepared reuse, cancel and recovery; postgres.js
 * 100,000 rows streamed and transactions; pgbench in simple, extended and prepared modes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import postgres from 'postgres';
import { copyFixtures, startGateway, type RunningGateway, whenBusy } from './support/gateway.js';
import { describeProbe, runProbe } from './support/probe.js';

const LONG_QUERY = 'select count(*) from range(100000000000) t(i) where i % 7 = 3';
const PGBENCH = '/usr/lib/postgresql/15/bin/pgbench';

describe('Node clients and pgbench', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const url = () => `postgres://tester@${gw.host}:${gw.port}/basic`;

  before(async () => {
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test(
    'node-postgres: int/text/numeric/timestamp parameters, named prepared reuse, cancel (57014), error and recovery',
    { timeout: 60_000 },
    async () => {
      // no query_timeout: pg wraps the callback of a Query object and would swallow its 'error' event
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      try {
        // untyped text parameters (Parse with no OIDs, Describe P)
        const r = await c.query({
          text: "select $1::integer + 1 as a, $2 || 'x' as b, $3::numeric(10,2) * 2 as n, $4::timestamp + interval '1 day' as t, $5::timestamptz as tz",
          values: [41, 'ab', '12.50', '2024-01-02 03:04:05.123456', new Date('2024-01-02T03:04:05.123Z')],
        });
        assert.deepEqual(
          { ...r.rows[0], t: undefined, tz: undefined },
          { a: 42, b: 'abx', n: '25.00', t: undefined, tz: undefined },
        );
        assert.equal((r.rows[0].t as Date).getTime(), new Date(2024, 0, 3, 3, 4, 5, 123).getTime());
        assert.equal((r.rows[0].tz as Date).toISOString(), '2024-01-02T03:04:05.123Z');
        assert.deepEqual(
          r.fields.map((f) => f.dataTypeID),
          [23, 25, 1700, 1114, 1184],
        );
        // named statement: Parse once per connection, then Bind/Describe P/Execute only
        for (let i = 1; i <= 6; i++) {
          const q = await c.query({
            name: 'orders_of',
            text: 'select count(*)::int as n from sales.orders where customer_id = $1',
            values: [i],
          });
          assert.equal(typeof q.rows[0].n, 'number');
        }
        assert.equal(
          (
            await c.query({
              name: 'orders_of',
              text: 'select count(*)::int as n from sales.orders where customer_id = $1',
              values: [1],
            })
          ).rows[0].n,
          3,
        );
        // cancel: node-postgres sends CancelRequest over a fresh connection
        const longQuery = new pg.Query(LONG_QUERY);
        const long = new Promise((resolve, reject) => {
          longQuery.on('end', resolve);
          longQuery.on('error', reject);
        });
        c.query(longQuery);
        const canceller = new pg.Client({ connectionString: url() }) as unknown as {
          cancel(client: pg.Client, query: pg.Query): void;
        };
        await whenBusy(gw, long);
        const t0 = Date.now();
        canceller.cancel(c, longQuery);
        await assert.rejects(long, (e: { code?: string }) => e.code === '57014');
        assert.ok(Date.now() - t0 < 10_000);
        assert.equal((await c.query('select 1 as x')).rows[0].x, 1);
        // error in the extended protocol, then the same named statement again
        await assert.rejects(
          c.query({ text: 'select * from sales.nope where x = $1', values: [1] }),
          (e: { code?: string }) => e.code === '42P01',
        );
        await assert.rejects(
          c.query({ text: 'select $1::integer', values: ['not a number'] }),
          (e: { code?: string }) => e.code === '22P02',
        );
        assert.equal(
          (
            await c.query({
              name: 'orders_of',
              text: 'select count(*)::int as n from sales.orders where customer_id = $1',
              values: [2],
            })
          ).rows[0].n,
          2,
        );
      } finally {
        await c.end();
      }
    },
  );

  test(
    'postgres.js: 100,000 rows streamed with forEach, transactions with sql.begin, rollback on error',
    { timeout: 60_000 },
    async () => {
      const sql = postgres(url(), { max: 1, onnotice: () => undefined, idle_timeout: 5, connect_timeout: 10 });
      try {
        let n = 0;
        let last = -1;
        await sql`select i, i::varchar as s from range(100000) t(i)`.forEach((row) => {
          n++;
          last = Number(row.i);
        });
        assert.equal(n, 100000);
        assert.equal(last, 99999);
        const [a, b] = await sql.begin(async (tx) => [
          (await tx`select count(*)::int as n from sales.orders`)[0]!.n,
          (await tx`select ${'12.5'}::numeric(10,2) as v`)[0]!.v,
        ]);
        assert.equal(a, 69);
        assert.equal(b, '12.50');
        await assert.rejects(
          sql.begin(async (tx) => {
            await tx`select 1`;
            await tx`select * from sales.nope`;
          }),
          (e: { code?: string }) => e.code === '42P01',
        );
        assert.equal((await sql`select max(order_id)::int as m from sales.orders`)[0]!.m, 80);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  );

  for (const mode of ['simple', 'extended', 'prepared'] as const) {
    test(
      `pgbench -M ${mode}: read-only custom script, 2 clients, zero failed transactions`,
      { timeout: 90_000 },
      async () => {
        const script = join(repos.dir, `bench-${mode}.sql`);
        writeFileSync(
          script,
          [
            '\\set cid random(1, 10)',
            'select count(*), sum(amount) from sales.orders where customer_id = :cid;',
            'select name, vip from sales.customers where customer_id = :cid;',
            'select order_id, ordered_at from sales.orders where customer_id = :cid order by order_id limit 3;',
            '',
          ].join('\n'),
        );
        const r = await runProbe(
          PGBENCH,
          [
            '-h',
            gw.host,
            '-p',
            String(gw.port),
            '-U',
            'bench',
            '-n',
            '-f',
            script,
            '-M',
            mode,
            '-T',
            '2',
            '-c',
            '2',
            '-j',
            '2',
            'basic',
          ],
          { timeoutMs: 60_000 },
        );
        assert.equal(r.code, 0, describeProbe(r));
        assert.match(r.stdout, new RegExp(`query mode: ${mode}`));
        assert.match(r.stdout, /number of failed transactions: 0 \(0\.000%\)/, describeProbe(r));
        const done = Number(/number of transactions actually processed: (\d+)/.exec(r.stdout)?.[1] ?? 0);
        assert.ok(done > 0, describeProbe(r));
      },
    );
  }
});
