/**
 * `fdl serve` serves on when its serving process dies (service/supervisor.ts), as PostgreSQL after a
 * backend crash: the dead process's sessions end, a new process serves the same addresses, the death
 * is logged and counted. Signals still reach the serving process, a start that fails still fails the
 * command, and a serving process whose supervisor was killed ends.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { copyFixtures, runServeExpectingFailure, waitFor } from './support/gateway.js';
import { client, connectError, get, serve } from './support/service.js';

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

describe('serve: the supervisor', { concurrency: 4 }, () => {
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
        const c2 = await client(s, 'basic').catch(() => null);
        if (!c2) return false;
        c2.on('error', () => undefined);
        try {
          again = (await c2.query('select count(*)::int as n from sales.orders')).rows[0].n as number;
          return true;
        } catch {
          return false;
        } finally {
          await c2.end().catch(() => undefined);
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

  test('a death right after the memory watchdog stopped a user’s statement is that user’s: their sessions are refused (53000) by the new process, others are served', async () => {
    const config = join(repos.dir, 'held-off.json');
    const grants = { grants: { basic: ['*'] } };
    writeFileSync(
      config,
      JSON.stringify({
        auth: 'trust',
        repos: { basic: repos.path('repos/basic') },
        users: { eve: grants, ann: grants },
      }),
    );
    const s = await serve(
      ['--http', '127.0.0.1:0', '--config', config, '--cache-dir', join(repos.dir, 'cache-d'), '--memory-limit', '1GB'],
      // every statement running 250 ms or more is over the watchdog's line
      { FDL_TEST_MEMORY_WATCH_LINE: '1', FDL_TEST_ADMISSION_I_AM_A_TEST: 'yes' },
      { supervised: true },
    );
    const [first] = childrenOf(s.proc.pid!);
    const eve = await client(s, 'basic', 'eve');
    eve.on('error', () => undefined);
    await assert.rejects(eve.query('select count(*) as n from range(200000000) t(i) where random() < 2'), {
      code: '53200',
    });
    // as the vector DuckDB could not stop would, had it gone on to the data limit
    process.kill(first!, 'SIGABRT');
    let annSees = NaN;
    await waitFor(
      async () => {
        const ann = await client(s, 'basic', 'ann').catch(() => null);
        if (!ann) return false;
        ann.on('error', () => undefined);
        try {
          // (a fresh process's first statement may run past the 250 ms the line allows: 53200, again)
          annSees = (await ann.query('select count(*)::int as n from sales.orders')).rows[0].n as number;
          return true;
        } catch {
          return false;
        } finally {
          await ann.end().catch(() => undefined);
        }
      },
      'ann served again',
      60_000,
    );
    assert.ok(annSees > 0);
    const refused = await connectError(s, 'basic', 'eve');
    assert.equal(refused.code, '53000');
    assert.match(
      refused.message,
      /sessions of user "eve" are refused until \S+: a statement of theirs was stopped for memory/,
    );
    const died = logLines(s.stderr()).find((l) => l.event === 'serving_process_died');
    assert.equal(died?.user, 'eve');
    assert.ok(Date.parse(String(died?.heldOffUntil)) > Date.now());
    assert.match((await get(s.http!, '/metrics')).body, /^fdl_connections_refused_total\{reason="held_off"\} 1$/m);
    s.proc.kill('SIGTERM');
    assert.equal(await s.exited, 0);
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
