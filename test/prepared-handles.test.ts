/**
 * The DuckDB prepared statements one user holds are bounded across their sessions (issue 23,
 * session/handle-budget.ts): an attacker review opened 14 sessions and Parse+Describe'd 1,000 named
 * statements in each; every DuckDB statement held its plan (≈ 125 KB for a 3-table join) outside
 * memory_limit, ≈ 1.7 GB. Past `maxPreparedHandles` the least recently used statements let go of
 * their DuckDB statement and are prepared again at their next run, with the answer and the row
 * description the client was given; pooled clients that hold many named statements go on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { containmentGateway, type ContainmentGateway } from './support/containment-gateway.js';
import { FIXTURES } from './support/gateway.js';
import { buildBind, RawPg, splitDataRow } from './support/raw-pg.js';
import { ConfigFile } from '../src/cli/config.js';
import { DEFAULT_MAX_PREPARED_HANDLES } from '../src/session/handle-budget.js';

const basic = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')).repos.basic as {
  refs: Record<string, string>;
};
const rssMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The budget this gateway runs with: small, so the attack passes it many times over. */
const BUDGET = 256;
const SESSIONS = 14;
const PER_SESSION = 150;

/** Each a distinct text; `n` is the join's row count plus `i`, so every answer is known. */
const joinText = (i: number) =>
  `select count(*) + ${i} as n from sales.orders o join sales.customers c using (customer_id) ` +
  `join sales.orders o2 on o2.customer_id = c.customer_id where o.order_id > 0`;

/** RowDescription of a raw message list, as name:type pairs. */
const described = (m: { code: string; parsed: unknown }) =>
  (m.parsed as { fields: { name: string; dataTypeID: number }[] }).fields
    .map((f) => `${f.name}:${f.dataTypeID}`)
    .join();

describe('DuckDB prepared statements: a per-user budget of live handles', () => {
  let gw: ContainmentGateway;
  const sessions: RawPg[] = [];
  const connect = async (user: string) => {
    const c = await RawPg.connect({ port: gw.s.port, user, database: 'basic' });
    sessions.push(c);
    return c;
  };

  before(async () => {
    gw = await containmentGateway({
      statementTimeoutMs: 120_000,
      config: { auth: 'trust', refTtlMs: 0, maxPreparedHandles: BUDGET },
    });
  });
  after(async () => {
    for (const c of sessions) await c.close().catch(() => undefined);
    await gw?.stop();
  });

  test('configured in the config file: a positive integer, the default DEFAULT_MAX_PREPARED_HANDLES', () => {
    for (const bad of [0, -1, 1.5, '256'])
      assert.equal(ConfigFile.safeParse({ maxPreparedHandles: bad }).success, false, JSON.stringify(bad));
    assert.equal(ConfigFile.safeParse({ maxPreparedHandles: 1 }).success, true);
    assert.equal(DEFAULT_MAX_PREPARED_HANDLES, 1024);
  });

  test("the attacker's pattern keeps RSS bounded, another user answers promptly, and every statement answers as described afterwards", async (t) => {
    const pid = gw.s.proc.pid!;
    const other = await connect('other');
    const rows = Number(splitDataRow((await other.simple(joinText(0))).dataRows[0]!)[0]!.toString());
    assert.ok(rows > 0);
    const attacker: RawPg[] = [];
    for (let k = 0; k < SESSIONS; k++) attacker.push(await connect('attacker'));
    await new Promise((r) => setTimeout(r, 500));
    const start = rssMiB(pid);
    let peak = start;
    const sampling = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    // Another user's `select 1` meanwhile: its slowest answer.
    let slowest = 0;
    let attacking = true;
    const probing = (async () => {
      while (attacking) {
        const t = Date.now();
        assert.equal((await other.simple('select 1')).error, undefined);
        slowest = Math.max(slowest, Date.now() - t);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // Parse+Describe, 50 to a Sync, as the attacker sent them: each statement's description kept.
    const descriptions = await Promise.all(
      attacker.map(async (c, k) => {
        const seen: string[] = [];
        for (let i = 0; i < PER_SESSION; i += 50) {
          const batch: Buffer[] = [];
          for (let j = i; j < i + 50; j++) {
            batch.push(serialize.parse({ name: `s${j}`, text: joinText(k * PER_SESSION + j), types: [] }));
            batch.push(serialize.describe({ type: 'S', name: `s${j}` }));
          }
          c.send(Buffer.concat([...batch, serialize.sync()]));
          const res = await c.untilReady();
          assert.equal(res.error, undefined, res.error?.message);
          seen.push(...res.messages.filter((m) => m.code === 'T').map(described));
        }
        return seen;
      }),
    );
    attacking = false;
    await probing;
    await new Promise((r) => setTimeout(r, 1000));
    clearInterval(sampling);
    const grown = Math.max(peak, rssMiB(pid)) - start;
    // 2,100 statements held ≈ 250 MiB of DuckDB plans on the code before the budget. With it: at most
    // BUDGET live plans (256 × ≈ 145 KB ≈ 36 MiB) plus what the gateway keeps per named statement
    // (its text, description and analysis: ≈ 21 KB of heap each, ≈ 44 MiB), and 70 MiB for the
    // heap's garbage and the allocator's slack under load.
    t.diagnostic(`RSS grew ${grown.toFixed(0)} MiB; another user's slowest select 1: ${slowest} ms`);
    assert.ok(grown < 150, `RSS grew ${grown.toFixed(0)} MiB`);
    assert.ok(slowest < 3000, `another user's select 1 took ${slowest} ms`);
    for (const seen of descriptions) {
      assert.equal(seen.length, PER_SESSION);
      for (const d of seen) assert.equal(d, 'n:20');
    }
    // Every statement, Bound and Executed now (most prepared again), answers its own row with the same description.
    await Promise.all(
      attacker.map(async (c, k) => {
        for (let j = 0; j < PER_SESSION; j++) {
          c.send(
            Buffer.concat([
              buildBind({ statement: `s${j}` }),
              serialize.describe({ type: 'P' }),
              serialize.execute({ rows: 0 }),
              serialize.sync(),
            ]),
          );
          const res = await c.untilReady();
          assert.equal(res.error, undefined, res.error?.message);
          assert.equal(described(res.messages.find((m) => m.code === 'T')!), descriptions[k]![j]);
          assert.deepEqual(
            res.dataRows.map((r) => splitDataRow(r)[0]!.toString()),
            [String(rows + k * PER_SESSION + j)],
          );
        }
      }),
    );
    t.diagnostic(`RSS after every statement ran: +${(rssMiB(pid) - start).toFixed(0)} MiB`);
    for (const c of attacker) await c.close();
  });

  test('a pooled client: 10 sessions × 256 named statements, reused round-robin, answer correctly', async () => {
    const pool: RawPg[] = [];
    for (let k = 0; k < 10; k++) pool.push(await connect('pooled'));
    const text = (i: number) => `select $1::int + ${i} as v`;
    await Promise.all(
      pool.map(async (c) => {
        for (let i = 0; i < 256; i += 64) {
          const batch: Buffer[] = [];
          for (let j = i; j < i + 64; j++) batch.push(serialize.parse({ name: `p${j}`, text: text(j), types: [23] }));
          c.send(Buffer.concat([...batch, serialize.sync()]));
          assert.equal((await c.untilReady()).error, undefined);
        }
      }),
    );
    for (let round = 0; round < 2; round++) {
      await Promise.all(
        pool.map(async (c, k) => {
          for (let j = 0; j < 256; j++) {
            c.send(
              Buffer.concat([
                buildBind({ statement: `p${j}`, params: [String(k * 1000 + round)] }),
                serialize.describe({ type: 'P' }),
                serialize.execute({ rows: 0 }),
                serialize.sync(),
              ]),
            );
            const res = await c.untilReady();
            assert.equal(res.error, undefined, res.error?.message);
            assert.equal(described(res.messages.find((m) => m.code === 'T')!), 'v:23');
            assert.deepEqual(
              res.dataRows.map((r) => splitDataRow(r)[0]!.toString()),
              [String(k * 1000 + round + j)],
            );
          }
        }),
      );
    }
    for (const c of pool) await c.close();
  });

  test('a statement that gave its DuckDB statement back and whose columns changed when the branch moved is refused 0A000; one whose columns stayed answers the new version', async () => {
    const c = await gw.login('mover');
    const branch = join(gw.repoPath, 'refs', 'heads', 'main');
    const original = readFileSync(branch, 'utf8');
    const customers = { name: 'customers_all', text: 'SELECT * FROM sales.customers ORDER BY customer_id LIMIT 1' };
    const count = { name: 'orders_count', text: 'SELECT count(*)::int AS n FROM sales.orders' };
    try {
      const before = await c.query(customers);
      const counted = (await c.query(count)).rows[0].n;
      // BUDGET more statements of the same user: the two above are the least recent, let go.
      for (let i = 0; i < BUDGET; i++) await c.query({ name: `f${i}`, text: `select ${i} as f` });
      writeFileSync(branch, `${basic.refs['refs/heads/dev']}\n`); // dev's customers have one more column
      for (let i = 0; i < 2; i++) {
        const e = await c.query(customers).then(
          () => null,
          (err: { code?: string; message: string }) => err,
        );
        assert.equal(e?.code, '0A000', `expected 0A000, got ${e?.code} ${e?.message}`);
        assert.equal(e?.message, 'cached plan must not change result type');
      }
      const moved = await c.query(count);
      assert.deepEqual(
        moved.fields.map((f) => `${f.name}:${f.dataTypeID}`),
        ['n:23'],
      );
      assert.equal(typeof moved.rows[0].n, 'number');
      writeFileSync(branch, original);
      assert.deepEqual((await c.query(customers)).rows, before.rows, 'back on its version, it answers as before');
      assert.equal((await c.query(count)).rows[0].n, counted);
    } finally {
      writeFileSync(branch, original);
      await c.end();
    }
  });

  test("a plan sharing another's DuckDB statement (texts differing only in comments) answers after that one was let go, and so does the planned one", async () => {
    const c = await gw.login('sharer');
    try {
      const text = (tag: string) =>
        `/* ${tag} */ select count(*)::int as n, 'x' as t from sales.orders where order_id > $1::int`;
      const planned = (await c.query({ name: 'planned', text: text('a'), values: [0] })).rows;
      const shared = await c.query({ name: 'shared', text: text('b'), values: [0] });
      assert.deepEqual(shared.rows, planned);
      for (let i = 0; i < BUDGET + 8; i++) await c.query({ name: `g${i}`, text: `select ${i} as g` });
      for (const name of ['shared', 'planned', 'shared']) {
        const r = await c.query({ name, text: text(name === 'planned' ? 'a' : 'b'), values: [0] });
        assert.deepEqual(r.rows, planned, name);
        assert.deepEqual(
          r.fields.map((f) => `${f.name}:${f.dataTypeID}`),
          ['n:23', 't:25'],
        );
      }
    } finally {
      await c.end();
    }
  });
});
