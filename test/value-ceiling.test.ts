/**
 * One user growing a value, against a real `fdl serve` (memoryLimit 1GB) over real sockets: eve, who
 * may read only `basic`, doubles a text through CTE columns and a recursive CTE with concat, concat_ws,
 * list_concat and `||`, while bob reads `nested`. The concatenation ceiling (engine/concat-guards.ts)
 * refuses each at 64 MiB with 54000 and a hint. Bob's `select 1` answers all the while, the
 * gateway's RSS stays within memoryLimit + 1 GiB, and afterwards both sessions answer as before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, client, copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';

const MiB = 1024 * 1024;
const MEMORY_LIMIT = 1024 * MiB;

/** Resolves once the watchdog has had a few polls with RSS over `line` (or at once when it is under). */
async function waitForRss(pid: number, line: number): Promise<void> {
  for (let i = 0; i < 40 && rssBytes(pid) > line; i++) await new Promise((r) => setTimeout(r, 100));
}

function rssBytes(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** Levels of CTEs over a 250,000-byte text, each `copies` copies of the last: 250 KB × copies^(levels − 1). */
function chain(levels: number, copies: number, join: (s: string[]) => string, first = "repeat('x', 250000)"): string {
  let sql = `with l0 as (select ${first} s)`;
  for (let i = 1; i < levels; i++) sql += `, l${i} as (select ${join(Array(copies).fill('s'))} s from l${i - 1})`;
  return `${sql} select length(s) as n from l${levels - 1}`;
}

/** A recursive CTE doubling its text 40 times (1 KB × 2^40). */
const recursive = (double: string) =>
  `with recursive r(s, i) as (select repeat('x', 1000), 0 union all select ${double}, i + 1 from r where i < 40) select max(length(s)) as n from r`;

type PgError = { code?: string; message?: string; hint?: string };

/** basic and nested served with password logins: eve may read basic, bob nested. */
async function serveEveAndBob(
  repos: ReturnType<typeof copyFixtures>,
  memoryLimit: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  const password = execFileSync(process.execPath, [CLI, 'hash-password'], { input: 's3cret' }).toString().trim();
  const config = join(repos.dir, 'config.json');
  const grants = { eve: { password, grants: { basic: ['*'] } }, bob: { password, grants: { nested: ['*'] } } };
  writeFileSync(config, JSON.stringify({ users: grants, memoryLimit }));
  return startGateway(
    [
      ...['--repo', `basic=${repos.path('repos/basic')}`, '--repo', `nested=${repos.path('repos/nested')}`],
      ...['--config', config, '--cache-dir', join(repos.dir, 'cache')],
    ],
    { env },
  );
}

describe('one user growing a value: refused or stopped as theirs, another user answers throughout', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/nested');

  before(async () => {
    gw = await serveEveAndBob(repos, '1GB');
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('concat, concat_ws, list_concat and || through CTE columns and a recursive CTE: 54000 for eve, bob answers, RSS bounded, nothing changed after', async () => {
    const pid = gw.proc.pid!;
    const eve = await client(gw, 'basic', { user: 'eve', password: 's3cret' });
    const bob = await client(gw, 'nested', { user: 'bob', password: 's3cret' });
    const bobBefore = (await bob.query('select 41 + 1 as x')).rows;
    const eveBefore = (await eve.query(`select count(*)::int as n from information_schema.tables`)).rows;
    const start = rssBytes(pid);
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
    const bobErrors: string[] = [];
    let bobRan = 0;
    let slowest = 0;
    let going = true;
    const bobLoop = (async () => {
      while (going) {
        const t0 = Date.now();
        try {
          assert.equal((await bob.query('select 1 as x')).rows[0].x, 1);
        } catch (e) {
          bobErrors.push(`${(e as PgError).code} ${(e as PgError).message}`);
        }
        slowest = Math.max(slowest, Date.now() - t0);
        bobRan++;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const outcomes: string[] = [];
    const refusals = 7;
    try {
      // The value guards hold the other growing calls through CTE columns the same way (engine/value-guards.ts,
      // regex-guards.ts): at most 256 KiB more than the largest input per call, so a doubling stops there;
      // PostgreSQL's format is rewritten as concat (pg/pg-calls.ts), held at 64 MiB (nine doublings: 128 MB).
      for (const [fn, twice] of [
        ['repeat', 'repeat(s, 2)'],
        ['lpad', "lpad(s, 2 * length(s), 'y')"],
        ['replace', "replace(s, 'x', 'xx')"],
        ['regexp_replace', "regexp_replace(s, '(.*)', '\\1\\1')"],
        ['format', "format('%s%s', s, s)"],
      ]) {
        const e = await eve.query(chain(10, 1, () => twice!)).then(
          () => assert.fail(`${fn}: answered`),
          (err: PgError) => err,
        );
        outcomes.push(`${fn}: ${e.code}`);
        assert.equal(e.code, '54000', `${fn}: ${e.code} ${e.message}`);
      }
      // 16 MB is within the ceiling: served, as before.
      assert.equal((await eve.query(chain(3, 8, (s) => `concat(${s.join(', ')})`))).rows[0].n, 250000 * 64);
      const refused: [string, string][] = [
        ['concat', chain(5, 8, (s) => `concat(${s.join(', ')})`)],
        ['concat_ws', chain(5, 8, (s) => `concat_ws('', ${s.join(', ')})`)],
        ['list_concat', chain(5, 8, (s) => `list_concat(${s.join(', ')})`, "[repeat('x', 250000)]")],
        ['concat', recursive('concat(s, s)')],
        ['||', chain(5, 8, (s) => s.join(' || '))],
        ['||', recursive('s || s')],
        ['||', chain(5, 8, (s) => s.join(' || '), "[repeat('x', 250000)]")],
      ];
      for (const [fn, sql] of refused) {
        const e = await eve.query(sql).then(
          () => assert.fail(`${fn}: answered`),
          (err: PgError) => err,
        );
        outcomes.push(`${fn}: ${e.code} ${e.message}`);
        assert.deepEqual(
          [e.code, e.message, /at most 64 MiB/.test(e.hint ?? '')],
          ['54000', `${fn}: a concatenated value exceeds the per-call limit of ${64 * MiB} bytes`, true],
        );
      }
    } finally {
      going = false;
      await bobLoop;
      clearInterval(sampler);
      if (outcomes.length < refusals + 5) await Promise.all([eve.end(), bob.end()]).catch(() => undefined);
    }
    assert.ok(bobRan > 10, `bob ran ${bobRan} statements`);
    assert.deepEqual(bobErrors, [], `bob's statements failed while eve's ran (${outcomes.join('; ')})`);
    assert.ok(
      peak <= MEMORY_LIMIT + 1024 * MiB,
      `RSS peaked at ${(peak / MiB) | 0} MiB (start ${(start / MiB) | 0} MiB), over memoryLimit + 1 GiB`,
    );
    // Nothing changed: both sessions answer as before.
    assert.deepEqual((await bob.query('select 41 + 1 as x')).rows, bobBefore);
    assert.deepEqual((await eve.query(`select count(*)::int as n from information_schema.tables`)).rows, eveBefore);
    await eve.end();
    await bob.end();
    // And the memory comes back once the clients have left.
    let now = rssBytes(pid);
    for (let waited = 0; now > start + 64 * MiB && waited < 30_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      now = rssBytes(pid);
    }
    console.log(
      `RSS start ${(start / MiB) | 0} MiB, peak ${(peak / MiB) | 0} MiB, after ${(now / MiB) | 0} MiB; bob ran ${bobRan}, slowest ${slowest} ms; ${outcomes.join('; ')}`,
    );
    assert.ok(
      now <= start + 64 * MiB,
      `RSS ${(now / MiB) | 0} MiB 30 s after the clients left, ${(start / MiB) | 0} MiB at the start`,
    );
  });

  test('concatenation answers as before: NULLs, lists, BLOBs, numbers, folding, a 60-long || chain, 100 values to concat and concat_ws, a 60-field record as text', async () => {
    const c = await client(gw, 'basic', { user: 'eve', password: 's3cret' });
    try {
      const r = await c.query(
        `select 'ab' || NULL is null as n1, concat('a', NULL, 'b') as c1, concat_ws('-', 'a', NULL, 'b', '') as c2,
                concat_ws(NULL, 'a') is null as c3, 1 || 'x' as c4, array[1,2] || array[3] as l1,
                array_cat(array[1], array[2]) as l2, '\\x01'::bytea || '\\x02'::bytea as b1`,
      );
      assert.deepEqual(r.rows[0], {
        n1: true,
        c1: 'ab',
        c2: 'a-b-',
        c3: true,
        c4: '1x',
        l1: [1, 2, 3],
        l2: [1, 2],
        b1: Buffer.from([1, 2]),
      });
      // A constant concatenation still folds: its value reaches the scan as a filter.
      for (const w of [`'a' || 'b'`, `concat('a', 'b')`, `concat_ws('', 'a', 'b')`]) {
        const plan = (await c.query(`explain select * from main.all_types where s = ${w}`)).rows
          .map((row) => Object.values(row).join(' '))
          .join('\n');
        assert.match(plan, /Filters: \w+='ab'/, `${w} is not folded:\n${plan}`);
      }
      const long = Array.from({ length: 60 }, (_, i) => `'${i % 10}'`);
      assert.equal((await c.query(`select ${long.join(' || ')} as s`)).rows[0].s, long.map((x) => x[1]).join(''));
      const args = (n: number) => Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 'NULL' : `'${i % 10}'`));
      const text = (n: number, sep: string) =>
        args(n)
          .filter((a) => a !== 'NULL')
          .map((a) => a[1])
          .join(sep);
      for (const n of [31, 32, 100]) {
        assert.equal(
          (await c.query(`select concat(${args(n).join(', ')}) as s`)).rows[0].s,
          text(n, ''),
          `concat of ${n}`,
        );
        assert.equal(
          (await c.query(`select concat_ws('-', ${args(n).join(', ')}) as s`)).rows[0].s,
          text(n, '-'),
          `concat_ws of ${n}`,
        );
      }
      assert.equal(
        (await c.query(`select concat_ws('-', ${Array(40).fill('NULL::text').join(', ')}) as s`)).rows[0].s,
        '',
      );
      assert.equal((await c.query(`select concat_ws(NULL, ${Array(40).fill("'a'").join(', ')}) as s`)).rows[0].s, null);
      const fields = Array.from({ length: 60 }, (_, i) => `${i}`);
      assert.equal((await c.query(`select row(${fields.join(', ')})::text as s`)).rows[0].s, `(${fields.join(',')})`);
    } finally {
      await c.end();
    }
  });
});

describe('the memory watchdog over a real gateway: the user whose statement runs longest is stopped, not another', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic', 'repos/nested');
  /** The watchdog's line, low enough that a statement under DuckDB's memory_limit crosses it. */
  const LINE = 640 * MiB;

  before(async () => {
    gw = await serveEveAndBob(repos, '2GB', {
      FDL_TEST_MEMORY_WATCH_LINE: String(LINE),
      FDL_TEST_ADMISSION_I_AM_A_TEST: 'yes',
    });
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('string_agg building 1.2 GB that no result holds: eve’s statement 53200 as hers, bob’s select 1 answers throughout', async () => {
    const pid = gw.proc.pid!;
    const eve = await client(gw, 'basic', { user: 'eve', password: 's3cret' });
    const bob = await client(gw, 'nested', { user: 'bob', password: 's3cret' });
    assert.ok(rssBytes(pid) < LINE, `RSS ${(rssBytes(pid) / MiB) | 0} MiB at the start, over the test's line`);
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
    let e: PgError;
    try {
      e = await eve
        .query(
          `select string_agg(s, '') is null as n from (select repeat('x', 20000) || i as s from range(60000) r(i)) q`,
        )
        .then(
          (r) => ({ code: 'answered', message: JSON.stringify(r.rows) }),
          (err: PgError) => err,
        );
    } finally {
      going = false;
      await bobLoop;
    }
    try {
      assert.equal(e.code, '53200', `${e.code} ${e.message}`);
      assert.match(e.message ?? '', /this user's statements had run longest/);
      assert.ok(bobRan > 10, `bob ran ${bobRan} statements`);
      assert.deepEqual(bobErrors, [], 'bob’s statements failed while eve’s ran');
      // Nothing changed: eve's session goes on.
      assert.equal((await eve.query('select 41 + 1 as x')).rows[0].x, 42);
    } finally {
      await Promise.all([eve.end(), bob.end()]).catch(() => undefined);
    }
  });

  test('cursors parked in idle sessions holding DuckDB’s chunks: ended (53200 at their next FETCH) as holders, by what they hold, before any running statement is blamed', async () => {
    const pid = gw.proc.pid!;
    const parked = await Promise.all(
      Array.from({ length: 4 }, () => client(gw, 'basic', { user: 'eve', password: 's3cret' })),
    );
    try {
      // Parking: a later session's DECLARE/FETCH may itself be what the watchdog stops once the others hold
      // enough (53200 then, and that session is out of the check).
      const stoppedEarly: PgError[] = [];
      const kept: typeof parked = [];
      for (const [i, c] of parked.entries()) {
        try {
          await c.query('begin');
          await c.query(
            `declare c cursor for select repeat('x', 100000) || i::varchar || '${i}' as s from range(2048) t(i)`,
          );
          await c.query('fetch 1 from c');
          kept.push(c);
        } catch (e) {
          stoppedEarly.push(e as PgError);
        }
      }
      for (const e of stoppedEarly) assert.equal(e.code, '53200', e.message);
      // Idle now: over the line, the watchdog ends the parked results holding the most.
      await waitForRss(pid, LINE);
      let ended = 0;
      for (const c of kept) {
        const e = await c.query('fetch 1 from c').then(
          () => null,
          (err: PgError) => err,
        );
        if (e) {
          assert.equal(e.code, '53200', e.message);
          ended++;
        }
      }
      assert.ok(ended + stoppedEarly.length > 0, `no parked cursor was ended (RSS ${(rssBytes(pid) / MiB) | 0} MiB)`);
      // Nothing else changed: eve's sessions go on after their transaction.
      for (const c of parked) await c.query('rollback');
      assert.equal((await parked[0]!.query('select 41 + 1 as x')).rows[0].x, 42);
    } finally {
      await Promise.all(parked.map((c) => c.end())).catch(() => undefined);
    }
  });
});
