/**
 * A fresh gateway's first client does not wait for what the gateway can do before it comes (issue 24,
 * src/gateway-warmup.ts): the repository's first session connection, its guard macros installed, is
 * made at start and the first session takes it; admission's sets are read then too. Counted by the
 * gateway itself (fdl_statement_work_total{work="guard_install"} in /metrics), through a real
 * `fdl serve` and a real client; the first session's answers are those of any later one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixtures } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';
import { serveWithMetrics, workCounts, type Served } from './support/work-counts.js';

describe('gateway warm-up: the first client finds its session connection ready', () => {
  const repos = copyFixtures('repos/basic');
  let s: Served;
  /** Guard installs counted before any client connected. */
  let atStart = NaN;
  before(async () => {
    s = await serveWithMetrics(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', `${repos.dir}/cache`]);
    atStart = (await workCounts(s, ['guard_install'])).guard_install;
  });
  after(async () => {
    s?.proc.kill('SIGTERM');
    await new Promise((r) => s?.proc.once('exit', r));
    repos.cleanup();
  });

  test("the guards are installed once, at start, and the first session takes that connection; its admission answers as any other's", async () => {
    assert.equal(atStart, 1, 'one session connection made before any client came');
    const c = await RawPg.connect({ port: s.port, database: 'basic', user: 'ann' });
    try {
      assert.equal((await c.simple('select no_such_function_55(1)')).error?.code, '42883');
      assert.equal((await c.simple("select read_text('/etc/passwd')")).error?.code, '42501');
      assert.equal((await c.simple('select count(*) from sales.orders')).error, undefined);
      // the only session so far: it found the connection made at start
      assert.equal((await workCounts(s, ['guard_install'])).guard_install, 1, 'the first session installed no guards');
    } finally {
      await c.close();
    }
  });
});
