/**
 * List constructors over large values (engine/list-constructor-guards.ts), against a real `fdl serve`
 * (memoryLimit 1GB) over real sockets: eve, granted only `basic` at `tags/v1`, builds lists of ten or
 * three copies of 160 KB rows — `[t, t, …]::varchar`, PostgreSQL's `ARRAY[t, t, t]::text`,
 * `list_value`/`list_pack` in a FROM-first text. DuckDB copies every element into the list, and the
 * cast copies it again, in vector memory its memory_limit does not count: an attacker review took RSS
 * past memoryLimit to the kernel's data limit (other users got 53200). Each is refused 54000 with a
 * hint, bob's `select 1` answers throughout, RSS stays within memoryLimit + 1 GiB, and lists of
 * everyday sizes answer as before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';

const MiB = 1024 * 1024;
const MEMORY_LIMIT = 1024 * MiB;
const rssBytes = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** 4,096 rows (two of DuckDB's vectors) of a 160 KB text. */
const ROWS = "(select repeat('x', 160000 + (r % 2)::int) as t from range(4096) t(r))";
type PgError = { code?: string; message?: string; hint?: string };

describe('list constructors over large values: 54000 for the user, another user answers throughout', () => {
  let gw: ContainmentGateway;
  const users = { eve: { grants: { basic: ['tags/v1'] } }, bob: { grants: { basic: ['tags/v1'] } } };
  const login = async (user: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port: gw.s.port, user, database: 'basic@v1' });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };

  before(async () => {
    gw = await containmentGateway({ statementTimeoutMs: 60_000, config: { auth: 'trust', memoryLimit: '1GB', users } });
  });
  after(() => gw?.stop());

  test('ten and three copies of 160 KB rows in a list, cast to text or not: 54000, RSS within memoryLimit + 1 GiB, bob answers', async () => {
    const pid = gw.s.proc.pid!;
    const [eve, bob] = [await login('eve'), await login('bob')];
    const eveBefore = (await eve.query('select count(*)::int as n from sales.orders')).rows;
    const start = rssBytes(pid);
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
    const bobErrors: string[] = [];
    let bobRan = 0;
    let going = true;
    const bobLoop = (async () => {
      while (going) {
        try {
          assert.equal((await bob.query('select 1 as x')).rows[0].x, 1);
        } catch (e) {
          bobErrors.push(`${(e as PgError).code} ${(e as PgError).message}`);
        }
        bobRan++;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const ten = Array(10).fill('t').join(', ');
    const payloads: [fn: string, sql: string][] = [
      ['list_value', `select length([${ten}]::varchar) as n from ${ROWS} x`],
      ['list_value', `select length(ARRAY[t, t, t]::text) as n from ${ROWS} x`],
      ['list_value', `from ${ROWS} x select sum(len(list_value(t, t, t))) as n`],
      ['list_pack', `from ${ROWS} x select list_pack(${ten}) as l`],
    ];
    const outcomes: string[] = [];
    try {
      for (const [fn, sql] of payloads) {
        const e = await eve.query(sql).then(
          () => assert.fail(`${sql}: answered`),
          (err: PgError) => err,
        );
        outcomes.push(`${e.code} ${e.message}`);
        assert.deepEqual(
          [e.code, e.message, /256 KiB more than its largest element/.test(e.hint ?? '')],
          ['54000', `${fn}: a list exceeds the per-call limit of 262144 bytes more than its largest element`, true],
          sql,
        );
      }
    } finally {
      going = false;
      await bobLoop;
      clearInterval(sampler);
    }
    console.log(`RSS start ${(start / MiB) | 0} MiB, peak ${(peak / MiB) | 0} MiB; bob ran ${bobRan}`);
    assert.ok(bobRan > 10, `bob ran ${bobRan} statements`);
    assert.deepEqual(bobErrors, [], `bob's statements failed while eve's ran (${outcomes.join('; ')})`);
    assert.ok(
      peak <= MEMORY_LIMIT + 1024 * MiB,
      `RSS peaked at ${(peak / MiB) | 0} MiB (start ${(start / MiB) | 0} MiB), over memoryLimit + 1 GiB`,
    );
    // Nothing changed: eve's session answers as before.
    assert.deepEqual((await eve.query('select count(*)::int as n from sales.orders')).rows, eveBefore);
    await Promise.all([eve.end(), bob.end()]);
  });

  test('lists of everyday sizes answer as before: constants, nested, ARRAY(subquery), 1,000 elements through ARRAY[…]; a longer written-out list is 0A000', async () => {
    const c = await login('eve');
    try {
      const r = await c.query(
        `select ARRAY['x', NULL] as b, ARRAY[ARRAY[1, 2], ARRAY[3, 4]] as m, ARRAY[]::int[] as e,
                array(select order_id from sales.orders order by order_id limit 2) as s, ARRAY[t, t]::text as d,
                cardinality(ARRAY[${Array.from({ length: 1000 }, (_, i) => i).join(', ')}]) as n,
                3 = any(ARRAY[1, 2, 3]) as y
           from (select repeat('ab', 3) as t) x`,
      );
      const { s, ...rest } = r.rows[0];
      assert.deepEqual(rest, {
        b: ['x', null],
        m: [
          [1, 2],
          [3, 4],
        ],
        e: [],
        d: '{abababab,abababab}'.replace(/abababab/g, 'ababab'),
        n: 1000,
        y: true,
      });
      assert.equal(s.length, 2);
      // DuckDB's own spelling, and an ARRAY[…] where PostgreSQL's grammar cannot read the statement (0A000, with a hint).
      assert.deepEqual((await c.query('select [1, 2, 3] as a, list_pack([1], []) as p')).rows[0], {
        a: [1, 2, 3],
        p: [[1], []],
      });
      await assert.rejects(c.query('select [1] as a, ARRAY[2] as b'), {
        code: '0A000',
        hint: /write a list as \[a, b\]/,
      });
      // A constant list still folds: its value reaches the scan as a filter.
      const plan = (await c.query('explain select * from sales.orders where list_contains([1, 2, 3], order_id)')).rows
        .map((row) => Object.values(row).join(' '))
        .join('\n');
      assert.match(plan, /Filters: list_contains\(\[1, 2, 3\], \w+\)/, plan);
      await assert.rejects(c.query(`select [${Array.from({ length: 33 }, (_, i) => i).join(', ')}] as l`), {
        code: '0A000',
        message: 'a list written out with more than 32 elements is not supported by fdl-gateway',
      });
    } finally {
      await c.end();
    }
  });
});
