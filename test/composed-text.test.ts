/**
 * What the gateway composes from a client's text stays within a bound of it (an attacker review of
 * main): LIKE ALL over 4,000 patterns spelled its 20 KB left side per pattern (80 MB of SQL: the
 * whole process ran out of memory with three sessions); nested divisions copied their operands' tags,
 * 4× per level (80 characters ran the process out of memory); a row comparison grew as the square of
 * its width; a 1,000-term `||` chain overflowed the rewrite's stack (XX000); `SET "TimeZone"` was
 * refused. Refusals are 54001, and the process and another user's session answer after each.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { composedTextLimit, refuseOverComposed } from '../src/text/composed-ceiling.js';
import { FairSlots } from '../src/serial.js';

const CONFIG = {
  auth: 'trust',
  memoryLimit: '1GB',
  users: { ann: { grants: { basic: ['*'] } }, bob: { grants: { basic: ['*'] } } },
};
const likeAll = "select '" + 'x'.repeat(20_000) + "' like all (array[" + Array(4000).fill("'%y'").join(',') + ']) as m';
const divisions = (depth: number) => `select ${'a/('.repeat(depth)}b${')'.repeat(depth)} from (select 8 as a, 2 as b)`;
const row = (n: number) => `(${Array.from({ length: n }, (_, i) => i).join(',')})`;

describe('composed text: bounded by the client’s text', () => {
  let gw: RunningGateway;
  const login = async (user: string) => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user, database: 'basic' });
    await c.connect();
    return c;
  };
  const alive = async (other: pg.Client, shown: string) => {
    assert.equal(gw.proc.exitCode, null, `${shown}: the gateway exited`);
    assert.equal(gw.proc.signalCode, null, `${shown}: the gateway died`);
    assert.equal((await other.query('select 1 as one')).rows[0].one, 1, shown);
  };

  before(async () => {
    gw = await serveBasic([], { config: CONFIG });
  });
  after(async () => {
    await gw?.stop();
  });

  test('LIKE ALL over 4,000 patterns of a 20 KB text, three sessions at once: answered, the process lives', async () => {
    const sessions = await Promise.all([login('ann'), login('ann'), login('ann')]);
    const bob = await login('bob');
    const answers = await Promise.all(sessions.map((c) => c.query(likeAll)));
    for (const a of answers) assert.equal(a.rows[0].m, false);
    await alive(bob, 'like all');
    await Promise.all([...sessions, bob].map((c) => c.end()));
  });

  test('LIKE/ILIKE ANY/ALL keep PostgreSQL’s NULL logic with the left side named once', async () => {
    const c = await login('ann');
    const r = await c.query(
      `select 'abc' like any (array['x', null]) as a1, 'abc' like any (array['%c', null]) as a2,
        'abc' like all (array['%c', null]) as a3, 'abc' like all (array['x', null]) as a4,
        'abc' not like any (array['abc', 'x']) as a5, 'abc' not like all (array['abc', 'x']) as a6,
        (select 'abc') ilike any (array['A%']) as a7, null::text like any (array['x']) as a8,
        'a_c' like any (array['a\\_c']) as a9, x like all (array['%', x]) as a10
       from (select 'q' as x union all select null) t order by x nulls last`,
    );
    assert.deepEqual(r.rows[0], {
      a1: null,
      a2: true,
      a3: null,
      a4: false,
      a5: true,
      a6: false,
      a7: true,
      a8: null,
      a9: true,
      a10: true,
    });
    assert.equal(r.rows[1].a10, null);
    await c.end();
  });

  test('nested divisions: within the ceiling answered, beyond it 54001 before printing', async () => {
    const c = await login('ann');
    const bob = await login('bob');
    assert.equal(Number((await c.query(divisions(3))).rows[0]['?column?']), 4);
    for (const depth of [8, 14]) {
      await assert.rejects(c.query(divisions(depth)), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, '54001', e.message);
        assert.match(e.message ?? '', /statement is too complex/);
        return true;
      });
      await alive(bob, `divisions ${depth}`);
    }
    assert.equal((await c.query('select 2 as two')).rows[0].two, 2);
    await Promise.all([c.end(), bob.end()]);
  });

  test('a 1,000-term || chain: 54001, not the stack’s XX000', async () => {
    const c = await login('ann');
    const bob = await login('bob');
    await assert.rejects(c.query('select ' + Array(1000).fill("'a'").join(' || ')), (e: { code?: string }) => {
      assert.equal(e.code, '54001');
      return true;
    });
    await alive(bob, 'concat');
    // Up to the text's nesting ceiling a chain answers (longer ones: analysis/expression-work.ts, cost-guards.test.ts).
    assert.equal((await c.query('select ' + Array(256).fill("'a'").join(' || ') + ' as s')).rows[0].s, 'a'.repeat(256));
    await Promise.all([c.end(), bob.end()]);
  });

  test('row comparison: linear in the width, PostgreSQL’s answer with NULLs', async () => {
    const c = await login('ann');
    const wide = rewriteForDuckDB(`select ${row(300)} < ${row(300)}`);
    assert.ok(wide.length < 40 * 300 * 4, `${wide.length} characters for 300 pairs`);
    assert.equal((await c.query(`select ${row(300)} < ${row(300)} as lt`)).rows[0].lt, false);
    const r = await c.query(
      `select (1, null) < (2, null) as a, (null, 1) < (1, 2) as b, (1, null) < (1, 0) as c, (1, 2, 3) <= (1, 2, 3) as d,
        (1, 2, 4) > (1, 2, 3) as e, (2, null) >= (1, 5) as f`,
    );
    assert.deepEqual(r.rows[0], { a: true, b: null, c: null, d: true, e: true, f: true });
    await c.end();
  });

  test('SET "TimeZone" and "timezone": parameter names ignore case, quoted or not', async () => {
    const c = await login('ann');
    await c.query(`SET "TimeZone" = 'Europe/Berlin'`);
    assert.equal(
      (await c.query('show timezone')).rows[0].TimeZone ?? (await c.query('show timezone')).rows[0].timezone,
      'Europe/Berlin',
    );
    await c.query(`SET "timezone" = 'UTC'`);
    const shown = (await c.query('SHOW "TIMEZONE"')).rows[0];
    assert.equal(Object.values(shown)[0], 'UTC');
    await c.query('RESET "TimeZone"');
    await c.end();
  });
});

describe('composed text: the ceiling and the text worker’s turns', () => {
  test('over 64× + 64 KiB: 54001 with a hint; within it nothing', () => {
    assert.equal(composedTextLimit(100), 64 * 100 + 64 * 1024);
    refuseOverComposed('x'.repeat(100), 'y'.repeat(composedTextLimit(100)));
    assert.throws(
      () => refuseOverComposed('x'.repeat(100), 'y'.repeat(composedTextLimit(100) + 1)),
      (e: { sqlstate?: string; hint?: string }) => e.sqlstate === '54001' && /fewer repetitions/.test(e.hint ?? ''),
    );
  });

  test('users take turns: one user’s queue does not hold another’s next task', async () => {
    const slots = new FairSlots(1);
    const order: string[] = [];
    const task = (owner: string, name: string) =>
      slots.run(owner, async () => {
        order.push(name);
        await new Promise((r) => setTimeout(r, 5));
      });
    const all = [1, 2, 3, 4, 5].map((i) => task('eve', `eve${i}`));
    all.push(task('bob', 'bob1'), task('bob', 'bob2'));
    all.push(
      slots
        .run('eve', () => Promise.reject(new Error('only mine')))
        .catch(() => {
          order.push('eve-failed');
        }),
    );
    await Promise.all(all);
    assert.deepEqual(order.slice(0, 4), ['eve1', 'eve2', 'bob1', 'eve3']);
    assert.ok(order.indexOf('bob2') < order.indexOf('eve5'), order.join(','));
    assert.ok(order.includes('eve-failed'));
  });
});
