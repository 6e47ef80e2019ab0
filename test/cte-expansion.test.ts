/**
 * CTEs inlined at every reference are refused before DuckDB plans them (analysis/cte-expansion.ts).
 * An attacker review: 14 levels of NOT MATERIALIZED CTEs, each joining the one before with itself,
 * a 1 KB text that DuckDB's binder (which nothing interrupts) planned for about an hour; five sessions
 * of one user took every prepare slot and the whole gateway stopped answering.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { get, sample, type Service } from './support/service.js';

/** `levels` CTEs, each a NOT MATERIALIZED (or default, `how` '') self-join of the one before: 2^levels copies. */
function doubling(
  levels: number,
  how = 'not materialized',
  body = (p: string) => `select a.x from ${p} a, ${p} b where a.x = b.x`,
) {
  let sql = 'with c0 as (select i as x from range(10) t(i))';
  for (let i = 1; i <= levels; i++) sql += `, c${i} as ${how} (${body(`c${i - 1}`)})`;
  return `${sql} select count(*)::int as n from c${levels}`;
}
/** The same doubling from a WITH nested in a subquery of each level. */
const nestedDoubling = (levels: number) =>
  `select * from (${doubling(
    levels,
    'not materialized',
    (p) => `select * from (with n as not materialized (select x from ${p}) select a.x from n a, n b where a.x = b.x) s`,
  )}) q`;

const TIMEOUT_MS = 6000;

describe('CTEs inlined at every reference: refused 54001 before DuckDB plans them', () => {
  let gw: ContainmentGateway;
  let s: Service;
  const login = (user: string) => gw.login(user);
  before(async () => {
    gw = await containmentGateway({ statementTimeoutMs: TIMEOUT_MS, http: true });
    s = gw.s;
  });
  after(() => gw?.stop()); // on the old code DuckDB would plan on for an hour

  test("the attacker's statement and a nested-WITH variant, from five sessions: 54001 at once, another user answered meanwhile", async () => {
    const eve = await Promise.all([1, 2, 3, 4, 5].map(() => login('eve')));
    const bob = await login('bob');
    const t0 = Date.now();
    const refused = eve.map((c, i) =>
      c.query(i % 2 ? nestedDoubling(14) : doubling(14)).then(
        () => ({ code: 'answered', hint: undefined, ms: Date.now() - t0 }),
        (e: { code?: string; hint?: string }) => ({ code: e.code, hint: e.hint, ms: Date.now() - t0 }),
      ),
    );
    const answer = (await bob.query('select sum(i)::int as n from range(10) t(i)')).rows[0].n;
    const bobMs = Date.now() - t0;
    assert.equal(answer, 45);
    for (const r of await Promise.all(refused)) {
      assert.equal(r.code, '54001');
      assert.match(String(r.hint), /NOT MATERIALIZED/);
      // At once: on the old code each ended 57014 at the statement timeout, DuckDB planning on.
      assert.ok(r.ms < TIMEOUT_MS / 2, `refused after ${r.ms} ms`);
    }
    assert.ok(bobMs < TIMEOUT_MS / 2, `bob answered after ${bobMs} ms`);
    // Nothing changed: eve's sessions go on, nothing runs on, the process is ready.
    assert.equal((await eve[0]!.query('select 1::int as n')).rows[0].n, 1);
    assert.equal((await get(s.http!, '/readyz')).status, 200);
    assert.equal(sample((await get(s.http!, '/metrics')).body, 'fdl_engine_calls_stuck'), 0);
  });

  test('ordinary CTEs pass: default materialization at 14 levels, a few NOT MATERIALIZED references, recursion', async () => {
    const c = await login('alice');
    // Referenced twice, DuckDB materializes a CTE written without MATERIALIZED: one copy per level.
    assert.equal((await c.query(doubling(14, ''))).rows[0].n, 10);
    assert.equal((await c.query(doubling(3))).rows[0].n, 10);
    assert.equal((await c.query(nestedDoubling(2))).rows[0].n, 10);
    const recursive = await c.query(
      'with recursive t(n) as (select 1 union all select n + 1 from t where n < 5) select count(*)::int as n from t a, t b',
    );
    assert.equal(recursive.rows[0].n, 25);
  });

  test('the count follows the doubling: 9 levels of NOT MATERIALIZED answer, 10 are refused', async () => {
    const c = await login('alice');
    assert.equal((await c.query(doubling(9))).rows[0].n, 10);
    await assert.rejects(c.query(doubling(10)), { code: '54001' });
    assert.equal((await c.query('select 2::int as n')).rows[0].n, 2);
  });
});
