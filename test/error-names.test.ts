/**
 * No internal name in an error a client sees: wrong arguments to functions the gateway gives
 * PostgreSQL's meaning through its own macros (sum, round…) or guards (repeat, printf) named
 * `fdl_pg.pgcat._pgsem_sum` and listed the macros' parameters before; now the client reads the
 * function it called. Each error keeps its SQLSTATE (not XX000), and the session goes on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, TRUST_ANN_READS_BASIC, type RunningGateway } from './support/gateway.js';

let gw: RunningGateway;
before(async () => {
  gw = await serveBasic([], { config: TRUST_ANN_READS_BASIC });
});
after(async () => {
  await gw?.stop();
});

test('wrong arguments to sum, round, repeat, printf…: the SQLSTATE kept, no internal macro name or parameter list in the text', async () => {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
  await c.connect();
  try {
    for (const [sql, code] of [
      ['select sum(i) from range(3)', '42725'],
      ["select sum(x) from (values ('a'), ('b')) t(x)", '42883'],
      ["select round('x', 2)", '42725'],
      ['select repeat(1)', '42883'],
      ["select printf('%s %s %s %s %s %s %s %s %s %s', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", '42883'],
      ['select lpad(1)', '42883'],
    ] as const) {
      const e = await c.query(sql).then(
        () => null,
        (err: { code?: string; message?: string; detail?: string; hint?: string }) => err,
      );
      assert.ok(e, `${sql}: refused`);
      assert.equal(e.code, code, `${sql}: ${e.message}`);
      const text = [e.message, e.detail, e.hint].join('\n');
      assert.doesNotMatch(text, /_pgsem_|fdl_pg|__fdl_|pgcat|a1 VARCHAR|system\.main/, sql);
    }
    assert.equal((await c.query('select sum(range)::int as s from range(3)')).rows[0].s, 3);
  } finally {
    await c.end();
  }
});
