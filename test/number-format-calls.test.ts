/**
 * to_char of a number is PostgreSQL's (pg/number-formats.ts), each call a DuckDB bind of its picture's own
 * expression, which no timeout interrupts: a statement holds at most MAX_NUMBER_FORMAT_CALLS of them, else
 * 54001 before DuckDB sees it (200 calls held a DuckDB thread 22 s past the statement's timeout; lead,
 * session 53).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { MAX_NUMBER_FORMAT_CALLS } from '../src/pg/number-formats.js';

let gw: ContainmentGateway;
before(async () => {
  gw = await containmentGateway({ statementTimeoutMs: 60_000 });
});
after(async () => {
  await gw?.stop();
});

const calls = (n: number) =>
  `select ${Array.from({ length: n }, (_, i) => `to_char(${i + 1}234.5, '9,999.99') as c${i}`).join(', ')}`;

test('a statement of many to_char calls of a number is refused 54001 at once; the limit itself answers', async () => {
  const c = await gw.login('alice');
  try {
    const started = Date.now();
    await assert.rejects(c.query(calls(200)), (e: { code?: string; message?: string; hint?: string }) => {
      assert.equal(e.code, '54001');
      assert.match(e.message ?? '', /formats numbers with to_char 200 times/);
      assert.match(e.hint ?? '', /printf/);
      return true;
    });
    assert.ok(Date.now() - started < 5_000, `refused before DuckDB binds it (${Date.now() - started} ms)`);
    // the session is usable, and the limit's own count answers as PostgreSQL would
    assert.deepEqual((await c.query('select 1 as one')).rows, [{ one: 1 }]);
    const { rows } = await c.query(calls(MAX_NUMBER_FORMAT_CALLS));
    assert.equal(rows[0].c0, ' 1,234.50');
    assert.equal(Object.keys(rows[0]).length, MAX_NUMBER_FORMAT_CALLS);
  } finally {
    await c.end();
  }
});
