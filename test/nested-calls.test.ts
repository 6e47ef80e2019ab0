/**
 * Typed calls nested in arithmetic bind in time linear in their depth (pg-macros.ts, BIND_ONCE). DuckDB
 * binds a typed macro's arguments to choose its overload and again in its body, so each level of
 * `(((x / 1.1) / 1.1) / …)` or `round(round(x * 1.1, 2) * 1.1, 2)` doubled the bind: nine divisions
 * (40 characters) bound for 18 s, nine rounds for 17 s, twenty rounds spent 27 s in the rewrite before
 * their refusal — each uninterruptible, holding the user's engine slot past the statement timeout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { refusedThenIdle } from './support/refused-then-idle.js';

const TIMEOUT_MS = 20000;
const nest = (depth: number, wrap: (inner: string) => string, x = 'amount::numeric(10,2)'): string => {
  let e = x;
  for (let i = 0; i < depth; i++) e = wrap(e);
  return e;
};
/** PostgreSQL's round(v, 2) of a numeric held as hundredths: half away from zero. */
const round2 = (thousandths: bigint): bigint => (thousandths + (thousandths >= 0n ? 5n : -5n)) / 10n;

describe('typed calls nested in arithmetic: bound once a level', () => {
  let gw: ContainmentGateway;
  let c: pg.Client;
  before(async () => {
    gw = await containmentGateway({ statementTimeoutMs: TIMEOUT_MS });
    c = await gw.login('eve');
    await c.query('select 1'); // the version opened: the timings below are the statements' own
  });
  after(() => gw?.stop()); // on the old code DuckDB would bind on for minutes

  test('fourteen nested numeric divisions answer at once, at 15 significant digits', async () => {
    const t0 = Date.now();
    const { rows } = await c.query({
      text: `select amount, ${nest(14, (e) => `(${e} / 1.1)`)} as q from sales.orders order by order_id`,
      rowMode: 'array',
    });
    const ms = Date.now() - t0;
    assert.ok(ms < 5000, `answered after ${ms} ms`);
    assert.ok(rows.length > 0);
    for (const [amount, q] of rows) {
      const want = Math.round(Number(amount) * 100) / 100 / 1.1 ** 14;
      assert.ok(Math.abs(Number(q) - want) <= Math.abs(want) * 1e-13, `${amount}: ${q}, about ${want}`);
      assert.match(q, /^-?\d+\.\d{16}$/); // numeric at DECIMAL(38,16)'s scale, not a float
    }
  });

  test('nine nested rounds answer at once, exactly as PostgreSQL computes them', async () => {
    const t0 = Date.now();
    const { rows } = await c.query({
      text: `select amount::numeric(10,2), ${nest(9, (e) => `round(${e} * 1.1, 2)`)} from sales.orders order by order_id`,
      rowMode: 'array',
    });
    const ms = Date.now() - t0;
    assert.ok(ms < 5000, `answered after ${ms} ms`);
    for (const [amount, got] of rows) {
      let cents = BigInt(String(amount).replace('.', ''));
      for (let i = 0; i < 9; i++) cents = round2(cents * 11n);
      const sign = cents < 0n ? '-' : '';
      const abs = cents < 0n ? -cents : cents;
      assert.equal(got, `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`, `${amount}`);
    }
  });

  test('twenty nested rounds are refused 54001 at once (the rewrite judged each shared subtree once)', async () => {
    await refusedThenIdle(c, gw.s.proc.pid!, `select ${nest(20, (e) => `round(${e} * 1.1, 2)`)} from sales.orders`, {
      code: '54001',
      message: /too complex/,
      hint: /Nest fewer/,
      withinMs: 2000,
    });
    // Nothing changed: the session goes on.
    assert.equal((await c.query('select 2::int as n')).rows[0].n, 2);
  });
});
