/**
 * The gateway's own records of one user's named prepared statements are bounded across their
 * sessions (session/named-limits.ts, maxPreparedStatementsPerUser): an attacker review held 14
 * sessions × 1,000 named 3-table joins, ≈ 300 MB of the gateway's records (analysis, description,
 * text; ≈ 21 KB each) with every DuckDB statement given back (session/handle-budget.ts). Past the
 * per-user cap the next named Parse or PREPARE is refused 53400, the session goes on, the statements
 * already held still answer, and another user prepares as before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'pg-protocol';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { buildBind, RawPg, splitDataRow } from './support/raw-pg.js';

/** Small, so the test passes it quickly. */
const PER_USER = 40;

const joinText = (i: number) =>
  `select count(*) + ${i} as n from sales.orders o join sales.customers c using (customer_id) ` +
  `join sales.orders o2 on o2.customer_id = c.customer_id where o.order_id > 0`;

describe("named prepared statements: a cap per user across the user's sessions", () => {
  let gw: ContainmentGateway;
  const sessions: RawPg[] = [];
  const connect = async (user: string) => {
    const c = await RawPg.connect({ port: gw.s.port, user, database: 'basic@v1' });
    sessions.push(c);
    return c;
  };

  before(async () => {
    gw = await containmentGateway({
      statementTimeoutMs: 60_000,
      config: {
        auth: 'trust',
        maxPreparedStatementsPerUser: PER_USER,
        users: { eve: { grants: { basic: ['tags/v1'] } }, bob: { grants: { basic: ['tags/v1'] } } },
      },
    });
  });
  after(async () => {
    for (const c of sessions) await c.close().catch(() => undefined);
    await gw?.stop();
  });

  /** Parse+Describe of `names` on `c` to one Sync: the error, if any. */
  async function parseAll(c: RawPg, names: string[], first: number) {
    const batch = names.flatMap((name, k) => [
      serialize.parse({ name, text: joinText(first + k), types: [] }),
      serialize.describe({ type: 'S', name }),
    ]);
    c.send(Buffer.concat([...batch, serialize.sync()]));
    return (await c.untilReady()).error;
  }

  /** Bind+Execute of the named statement `name`: its one value. */
  async function run(c: RawPg, name: string): Promise<string> {
    c.send(buildBind({ portal: '', statement: name, params: [] }));
    c.send(serialize.execute({ portal: '', rows: 0 }));
    c.send(serialize.sync());
    const r = await c.untilReady();
    assert.equal(r.error, undefined, r.error?.message);
    return splitDataRow(r.dataRows[0]!)[0]!.toString();
  }

  test('the Parse past the cap is refused 53400 in any of the user’s sessions; held statements answer, another user prepares', async () => {
    const [a, b] = [await connect('eve'), await connect('eve')];
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `s${from + i}`);
    assert.equal(await parseAll(a!, names(0, PER_USER / 2), 0), undefined);
    assert.equal(await parseAll(b!, names(0, PER_USER / 2), 1000), undefined);
    // The next named statement, in either session, and an SQL PREPARE: 53400, naming the per-user limit.
    for (const [c, refused] of [
      [a!, await parseAll(a!, ['extra'], 0)],
      [b!, await parseAll(b!, ['extra'], 0)],
      [b!, (await b!.simple(`prepare p as ${joinText(7)}`)).error],
    ] as const) {
      assert.deepEqual(
        [refused?.code, refused?.message],
        [
          '53400',
          `too many prepared statements in this user's sessions: the limit (maxPreparedStatementsPerUser) is ${PER_USER}`,
        ],
      );
      // The session goes on.
      assert.equal((await c.simple('select 1')).dataRows.length, 1);
    }
    // Nothing changed: the statements held answer as before; the unnamed statement needs no room.
    const base = Number(await run(a!, 's0'));
    assert.equal(Number(await run(b!, 's3')), base + 1003);
    assert.equal(await parseAll(a!, [''], 9), undefined);
    assert.equal(Number(await run(a!, '')), base + 9);
    // Another user prepares as before.
    const bob = await connect('bob');
    assert.equal(await parseAll(bob, names(0, 5), 0), undefined);
    assert.equal(Number(await run(bob, 's4')), base + 4);
    // A statement closed makes room for one more.
    a!.send(serialize.close({ type: 'S', name: 's0' }));
    a!.send(serialize.sync());
    assert.equal((await a!.untilReady()).error, undefined);
    assert.equal(await parseAll(b!, ['extra'], 11), undefined);
    assert.equal(Number(await run(b!, 'extra')), base + 11);
    assert.equal((await parseAll(a!, ['s0'], 0))?.code, '53400');
  });
});
