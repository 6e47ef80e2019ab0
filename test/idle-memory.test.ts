/**
 * An idle gateway gives memory back (issue 23, src/idle-memory.ts): after an ordinary user's sessions
 * prepared hundreds of distinct named statements and left, the gateway's RSS returns within 64 MiB
 * of its RSS at boot (before: it stayed ~120 MiB above it for good). And the mechanism itself, with
 * the clock mocked: memos trimmed and the heap collected only once no session is open.
 */
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { serialize } from 'pg-protocol';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';

const MiB = 1024 * 1024;
const rss = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS once it is steady (two readings 500 ms apart within 4 MiB; 8 s at most). */
async function steadyRss(pid: number): Promise<number> {
  let before = rss(pid);
  for (let i = 0; i < 16; i++) {
    await sleep(500);
    const now = rss(pid);
    if (Math.abs(now - before) < 4 * MiB) return now;
    before = now;
  }
  return before;
}

describe('an idle gateway gives memory back', () => {
  const repos = copyFixtures('repos/basic');
  let gw: RunningGateway;

  before(async () => {
    const config = join(repos.dir, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        repos: { basic: repos.path('repos/basic') },
        auth: 'trust',
        users: { ann: { grants: { basic: ['*'] } } },
        memoryLimit: '1GB',
      }),
    );
    gw = await startGateway(['--config', config, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test("4 sessions' hundreds of distinct named statements: RSS back within 64 MiB of boot once they left", async () => {
    const pid = gw.proc.pid!;
    // Boot: once a first session has come and gone (the JIT, DuckDB's first connection, the pools).
    const warm = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    assert.equal((await warm.simple('select count(*) from sales.orders')).error, undefined);
    await warm.close();
    await sleep(1500);
    const boot = await steadyRss(pid);
    // ≈ 7,000 characters each, all distinct (every one a new DuckDB parse, analysis and plan).
    const statement = (s: number, i: number) =>
      `select count(*) + ${s * 100_000 + i} from sales.orders where order_id in (${Array.from({ length: 1000 }, (_, k) => 1000 + i + k).join(',')})`;
    const sessions = await Promise.all(
      Array.from({ length: 4 }, () => RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' })),
    );
    for (const [s, c] of sessions.entries()) {
      for (let i = 0; i < 120; i += 40) {
        const batch: Buffer[] = [];
        for (let j = i; j < i + 40; j++)
          batch.push(serialize.parse({ name: `s${j}`, text: statement(s, j) }), serialize.sync());
        c.send(Buffer.concat(batch));
        for (let j = i; j < i + 40; j++) assert.equal((await c.untilReady()).error, undefined);
      }
    }
    const held = rss(pid);
    await Promise.all(sessions.map((c) => c.close()));
    // Back within 64 MiB of boot in 6 s at most.
    let left = rss(pid);
    for (let i = 0; i < 30 && left - boot > 64 * MiB; i++) {
      await sleep(200);
      left = rss(pid);
    }
    console.log(
      `# boot RSS ${(boot / MiB) | 0} MiB, ${(held / MiB) | 0} MiB while held, ${(left / MiB) | 0} MiB after the clients left`,
    );
    assert.ok(
      held - boot > 100 * MiB,
      `the statements held only ${((held - boot) / MiB) | 0} MiB: the test proves nothing`,
    );
    assert.ok(
      left - boot <= 64 * MiB,
      `RSS stayed ${((left - boot) / MiB) | 0} MiB above boot 6 s after the clients left`,
    );
  });

  test("a long catalog text's PostgreSQL-grammar memory (WebAssembly, it only grows) is given back once idle: the text thread ends (engine/text-pool.ts)", async () => {
    const pid = gw.proc.pid!;
    const warm = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    assert.equal((await warm.simple('select 1')).error, undefined);
    await warm.close();
    await sleep(1500);
    const boot = await steadyRss(pid);
    // ≈ 235 KB, rewritten by the PostgreSQL grammar on the text thread (before: ~130–230 MiB kept for good).
    const names = Array.from({ length: 20_000 }, (_, i) => `'r${i}'`.padEnd(10)).join(',');
    const text = `select relname from pg_catalog.pg_class where relname in (${names})`;
    for (let round = 0; round < 2; round++) {
      const c = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
      assert.equal((await c.simple(text)).error, undefined);
      const held = rss(pid);
      await c.close();
      let left = rss(pid);
      for (let i = 0; i < 40 && left - boot > 64 * MiB; i++) {
        await sleep(200);
        left = rss(pid);
      }
      console.log(
        `# round ${round}: boot ${(boot / MiB) | 0} MiB, held ${(held / MiB) | 0}, after ${(left / MiB) | 0}`,
      );
      assert.ok(
        left - boot <= 64 * MiB,
        `RSS stayed ${((left - boot) / MiB) | 0} MiB above boot after the client left`,
      );
    }
  });
});

describe('idle-memory: trims and collections only once no session is open', () => {
  test('memos are trimmed to their most recent entries IDLE_MS after the last session ended, not while one is open', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const idle = await import('../src/idle-memory.js');
      const memo = new LRUCache<string, string>({ max: 1000, maxSize: 64 * MiB, sizeCalculation: (v) => v.length });
      idle.trimWhenIdle(idle.lruTrim(memo));
      for (let i = 0; i < 10; i++) memo.set(`k${i}`, 'x'.repeat(MiB));
      const trimsBefore = idle.idleTrims;
      idle.sessionStarted();
      idle.sessionStarted();
      idle.sessionEnded();
      mock.timers.tick(idle.IDLE_MS + 1);
      assert.equal(memo.size, 10, 'one session still open: nothing trimmed');
      assert.equal(idle.idleTrims, trimsBefore);
      idle.sessionEnded();
      mock.timers.tick(idle.IDLE_MS - 1);
      assert.equal(memo.size, 10, 'not before IDLE_MS');
      mock.timers.tick(1);
      assert.equal(idle.idleTrims, trimsBefore + 1);
      // IDLE_KEPT_BYTES of the most recently used stay.
      assert.equal(memo.size, idle.IDLE_KEPT_BYTES / MiB);
      assert.ok(memo.has('k9') && !memo.has('k0'));
      assert.equal(idle.openSessions(), 0);
    } finally {
      mock.timers.reset();
    }
  });
});
