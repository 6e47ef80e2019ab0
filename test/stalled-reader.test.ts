/**
 * A client that sends a query of wide rows and stops reading (a raw socket that never reads, the
 * attacker review's psql under kill -STOP): the gateway holds a bounded few chunks for it whatever
 * the result's size (wire/result-stream.ts, engine/memory-ceiling.ts STREAMING_BUFFER_SIZE), its
 * statement ends at statement_timeout (57014) and its memory is given back while the client still
 * reads nothing, and another user's statements answer meanwhile. The memory watchdog stops the
 * statement holding the memory, not every statement (engine/memory-watchdog.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { query, startupPacket } from './support/fuzz.js';
import { within } from './support/files.js';
import { HOLDER_BYTES, MemoryWatchdog, SUSPECT_MS, type MemoryHolder } from '../src/engine/memory-watchdog.js';
import { SqlError, SQLSTATE } from '../src/errors.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssBytes(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** A raw session of `user`, logged in (trust) and ready for a query. */
async function session(gw: RunningGateway, user: string): Promise<Socket> {
  const sock = connect(gw.port, gw.host);
  sock.on('error', () => undefined);
  let seen = '';
  sock.write(startupPacket({ user, database: 'basic' }));
  await within(
    new Promise<void>((ready) =>
      sock.on('data', (d: Buffer) => {
        seen += d.toString('latin1');
        if (/Z\0\0\0\x05I/.test(seen)) ready();
      }),
    ),
    30_000,
    `${user} logged in`,
  );
  sock.removeAllListeners('data');
  return sock;
}

/** Send `sql` and read the answer up to ReadyForQuery; returns it (latin1) and how long it took. */
async function ask(sock: Socket, sql: string): Promise<{ text: string; ms: number }> {
  const t0 = Date.now();
  let text = '';
  const done = new Promise<void>((r) =>
    sock.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (/Z\0\0\0\x05[IE]$/.test(text)) r();
    }),
  );
  sock.write(query(sql));
  await within(done, 60_000, sql);
  sock.removeAllListeners('data');
  return { text, ms: Date.now() - t0 };
}

describe('a client that stops reading wide rows', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await serveBasic([], {
      config: {
        auth: 'trust',
        users: { eve: { grants: { basic: ['*'] } }, bob: { grants: { basic: ['*'] } } },
        memoryLimit: '512MB',
      },
    });
  });
  after(() => gw?.stop());

  test('holds a bounded few chunks, its statement ends at the timeout (57014) and gives its memory back unread; another user answers meanwhile', async () => {
    const pid = gw.proc.pid!;
    const eve = await session(gw, 'eve');
    const bob = await session(gw, 'bob');
    await ask(eve, 'set statement_timeout = 10000');
    await ask(bob, 'select 1');
    const start = rssBytes(pid);
    // 20 KB rows: a chunk of 2,048 is 41 MB. DuckDB's default streaming buffer counts 16 bytes per
    // string, so it buffered ~20 of them (820 MB) before the first fetch, and the gateway fetched 4 ahead.
    let received = Buffer.alloc(0);
    eve.pause();
    eve.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
    const t0 = Date.now();
    eve.write(query('select repeat(chr(65 + (r % 26)::int), 20000) s, r from range(1000000) t(r)'));
    let peak = start;
    let slowest = 0;
    while (Date.now() - t0 < 9_000) {
      await sleep(250);
      peak = Math.max(peak, rssBytes(pid));
      const answer = await ask(bob, 'select 41 + 1 as x');
      assert.match(answer.text, /D\0\0\0\x0c\0\x01\0\0\0\x0242/, 'bob is answered');
      slowest = Math.max(slowest, answer.ms);
    }
    // The timeout has passed (10 s); the client still reads nothing: its result is given back.
    let after = rssBytes(pid);
    for (let i = 0; i < 40 && (Date.now() - t0 < 13_000 || after - start > 96 * MiB); i++) {
      await sleep(250);
      peak = Math.max(peak, rssBytes(pid));
      after = rssBytes(pid);
    }
    console.log(
      `stalled reader of 20 KB rows: RSS ${(start / MiB) | 0} MiB at start, peak ${(peak / MiB) | 0} MiB, ` +
        `${(after / MiB) | 0} MiB ${((Date.now() - t0) / 1000) | 0} s after the query, unread; bob's slowest answer ${slowest} ms`,
    );
    assert.ok(peak - start < 320 * MiB, `RSS grew by ${((peak - start) / MiB) | 0} MiB for a client reading nothing`);
    assert.ok(
      after - start < 96 * MiB,
      `RSS still ${((after - start) / MiB) | 0} MiB above the start after the timeout`,
    );
    // Now read: what was queued, then 57014 (nothing after it but ReadyForQuery).
    eve.resume();
    await within(
      new Promise<void>((r) => {
        const check = () => (/Z\0\0\0\x05I$/.test(received.subarray(-6).toString('latin1')) ? r() : undefined);
        check();
        eve.on('data', check);
      }),
      10_000,
      'the statement answered',
    );
    const text = received.toString('latin1');
    assert.match(text, /C57014\0Mcanceling statement due to statement timeout\0/);
    assert.ok(received.length < 64 * MiB, `${(received.length / MiB) | 0} MiB were sent before the timeout`);
    assert.match((await ask(eve, 'select 7 as y')).text, /D\0\0\0\x0b\0\x01\0\0\0\x017/, 'the session goes on');
    eve.destroy();
    bob.destroy();
  });
});

describe('the memory watchdog stops the statement holding the memory', () => {
  const error = (what: string) => () => new SqlError(SQLSTATE.outOfMemory, what);
  function holder(heldBytes: number): MemoryHolder & { stoppedWith: string[] } {
    const stoppedWith: string[] = [];
    return { heldBytes, runningMs: 0, user: 'u', stoppedWith, stop: (e) => stoppedWith.push(e.message) };
  }

  test('over the line: only the largest holder; others only after the settle time, never every statement', () => {
    let rss = 2000 * MiB;
    let now = 0;
    const big = holder(600 * MiB);
    const victim = holder(2 * MiB);
    const third = holder(HOLDER_BYTES / 2);
    let holders: MemoryHolder[] = [victim, big, third];
    const dog = new MemoryWatchdog({
      lineBytes: 1280 * MiB,
      holders: () => holders,
      holderError: error('holder'),
      suspectError: error('suspect'),
      settleMs: 1000,
      rss: () => rss,
      now: () => now,
    });
    dog.poll();
    assert.deepEqual(big.stoppedWith, ['holder']);
    assert.deepEqual(victim.stoppedWith, [], 'a statement holding little is not stopped for another');
    assert.deepEqual(third.stoppedWith, []);
    // While the holder's memory comes back, nothing else is stopped.
    holders = [victim, third];
    now = 500;
    dog.poll();
    assert.deepEqual(victim.stoppedWith, []);
    // Past the settle time but RSS still falling (the holder's memory coming back): nothing yet.
    now = 1100;
    rss = 1900 * MiB;
    dog.poll();
    assert.deepEqual(victim.stoppedWith, []);
    // Back under the line: nothing.
    now = 1500;
    rss = 1000 * MiB;
    dog.poll();
    assert.deepEqual(victim.stoppedWith, []);
    // Over again, no statement holds HOLDER_BYTES and none has run SUSPECT_MS: nothing, however long RSS stays over.
    rss = 2000 * MiB;
    dog.poll();
    now = 1500 + 10 * SUSPECT_MS;
    dog.poll();
    assert.deepEqual([victim.stoppedWith, third.stoppedWith, big.stoppedWith], [[], [], ['holder']]);
  });

  test('no result holds it: the longest-running user’s statements (running SUSPECT_MS or more) first, then the next user’s, never every user’s', () => {
    let now = 0;
    const running = (user: string, runningMs: number) => ({ ...holder(MiB), user, runningMs });
    const alice1 = running('alice', 4000);
    const alice2 = running('alice', 600);
    const aliceNew = running('alice', 10);
    const bobLong = running('bob', 900);
    const bobSmall = running('bob', 5);
    let holders: MemoryHolder[] = [bobSmall, alice2, bobLong, alice1, aliceNew];
    const dog = new MemoryWatchdog({
      lineBytes: 1280 * MiB,
      holders: () => holders,
      holderError: error('holder'),
      suspectError: error('suspect'),
      settleMs: 1000,
      rss: () => 2000 * MiB,
      now: () => now,
    });
    dog.poll();
    assert.deepEqual([alice1.stoppedWith, alice2.stoppedWith], [['suspect'], ['suspect']]);
    assert.deepEqual([aliceNew.stoppedWith, bobLong.stoppedWith, bobSmall.stoppedWith], [[], [], []]);
    holders = [bobSmall, bobLong, aliceNew];
    now = 1100;
    dog.poll();
    assert.deepEqual(bobLong.stoppedWith, ['suspect'], 'still over after the settle time: the next suspect');
    assert.deepEqual(bobSmall.stoppedWith, []);
    holders = [bobSmall, aliceNew];
    now = 2200;
    dog.poll();
    assert.deepEqual(
      [bobSmall.stoppedWith, aliceNew.stoppedWith],
      [[], []],
      'statements younger than SUSPECT_MS are never stopped',
    );
  });
});
