/**
 * `fdl serve` serves on when its serving process dies (service/supervisor.ts), as PostgreSQL after a
 * backend crash: the dead process's sessions end, a new process serves the same addresses, the death
 * is logged and counted. Signals still reach the serving process, a start that fails still fails the
 * command, and a serving process whose supervisor was killed ends.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { copyFixtures, runServeExpectingFailure, waitFor } from './support/gateway.js';
import { client, get, serve } from './support/service.js';

/** The pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid …; comm may hold spaces and parentheses
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(name));
    } catch {
      // ended while listed
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('serve: the supervisor', { concurrency: 3 }, () => {
  const repos = copyFixtures('repos/basic');
  after(() => repos.cleanup());
  const args = (cache: string) => [
    '--http',
    '127.0.0.1:0',
    '--repo',
    `basic=${repos.path('repos/basic')}`,
    '--cache-dir',
    join(repos.dir, cache),
  ];

  test('a serving process that dies is replaced on the same addresses: its sessions end, the death is logged and counted, signals reach the new one', async () => {
    const s = await serve(args('cache-a'), {}, { supervised: true });
    const [first] = childrenOf(s.proc.pid!);
    assert.ok(first, 'a serving process under the supervisor');
    const c = await client(s, 'basic');
    const before = (await c.query('select count(*)::int as n from sales.orders')).rows[0].n as number;
    const lost = new Promise<Error>((r) => c.on('error', r));

    process.kill(first, 'SIGABRT'); // as V8 or a native allocation ends it at the data limit
    assert.match((await lost).message, /terminated|ECONNRESET|closed/i);
    let again = NaN;
    await waitFor(
      async () => {
        try {
          const c2 = await client(s, 'basic');
          again = (await c2.query('select count(*)::int as n from sales.orders')).rows[0].n as number;
          await c2.end();
          return true;
        } catch {
          return false;
        }
      },
      'served again on the same port',
      60_000,
    );
    assert.equal(again, before);
    const [second] = childrenOf(s.proc.pid!);
    assert.ok(second && second !== first && !alive(first));

    const died = logLines(s.stderr()).filter((l) => l.event === 'serving_process_died');
    assert.equal(died.length, 1);
    assert.equal(died[0]!.signal, 'SIGABRT');
    assert.equal(died[0]!.restarts, 1);
    assert.match((await get(s.http!, '/metrics')).body, /^fdl_serving_restarts 1$/m);
    // the service announced itself once
    assert.equal(s.stdout().match(/^listening on /gm)?.length, 1);

    s.proc.kill('SIGHUP');
    await waitFor(() => logLines(s.stderr()).some((l) => l.event === 'reload'), 'the new process reloads', 20_000);
    s.proc.kill('SIGTERM');
    assert.equal(await s.exited, 0);
    assert.ok(!alive(second));
    assert.ok(logLines(s.stderr()).some((l) => l.event === 'stopped'));
  });

  test('a start that fails ends the command with its code, once', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await runServeExpectingFailure([
        '--listen',
        `127.0.0.1:${port}`,
        '--repo',
        `basic=${repos.path('repos/basic')}`,
        '--cache-dir',
        join(repos.dir, 'cache-b'),
      ]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /EADDRINUSE/);
      assert.doesNotMatch(r.stderr, /serving_process_died/);
    } finally {
      taken.close();
    }
  });

  test('a serving process whose supervisor was killed drains and ends', async () => {
    const s = await serve(args('cache-c'), {}, { supervised: true });
    const [serving] = childrenOf(s.proc.pid!);
    assert.ok(serving);
    s.proc.kill('SIGKILL');
    await waitFor(() => !alive(serving), 'the orphaned serving process ends', 30_000);
  });
});
