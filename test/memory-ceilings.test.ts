/**
 * The process memory ceiling (sql/memory-ceiling.ts) against a real `fdl serve` with memoryLimit
 * 1GB: statements whose memory DuckDB does not count (a constant folded at prepare, a chunk of huge
 * values) end with 53200 while the gateway's RSS stays ≤ memoryLimit + 2 GiB, and RSS returns to
 * within 64 MiB of its start once the client has left. RSS is read from /proc/<pid>/status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { CLI, copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { query } from './support/fuzz.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { dataLimitFor } from '../src/engine/memory-ceiling.js';
import { checkSizeLimits } from '../src/analysis/size-limits.js';
import { SqlError } from '../src/errors.js';
import { within } from './support/files.js';

const MiB = 1024 * 1024;
const MEMORY_LIMIT = 1000 ** 3; // '1GB' in DuckDB's units
const CEILING = MEMORY_LIMIT + 2048 * MiB;

function rssBytes(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** Sample RSS every 20 ms until stopped; returns the peak. */
function watchRss(pid: number): { stop(): number } {
  let peak = rssBytes(pid);
  const t = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
  return { stop: () => (clearInterval(t), Math.max(peak, rssBytes(pid))) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('memory ceilings (memoryLimit 1GB)', () => {
  let gw: RunningGateway;
  let start = 0;
  const repos = copyFixtures('repos/basic');

  const login = async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'alice', password: 's3cret', database: 'basic' });
    await c.connect();
    return c;
  };

  /** RSS back within 64 MiB of the start after the client left (5 s at most). */
  const settled = async (what: string) => {
    let now = rssBytes(gw.proc.pid!);
    for (let i = 0; i < 25 && now - start > 64 * MiB; i++) {
      await sleep(200);
      now = rssBytes(gw.proc.pid!);
    }
    assert.ok(now - start <= 64 * MiB, `${what}: RSS ${(now - start) / MiB | 0} MiB above the start 5 s after the client left`);
    return now;
  };

  before(async () => {
    const password = execFileSync(process.execPath, [CLI, 'hash-password'], { input: 's3cret' }).toString().trim();
    writeFileSync(join(repos.dir, 'config.json'), JSON.stringify({ users: { alice: { password } }, memoryLimit: '1GB' }));
    gw = await startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--config', join(repos.dir, 'config.json'), '--cache-dir', join(repos.dir, 'cache')]);
    // Warm-up: a session and a result of 500 MB, so allocator arenas and the JIT exist before the start is taken.
    const c = await login();
    await c.query("select repeat('x', 5000000) as s from range(100)");
    await c.end();
    // The start: RSS once the warm-up's memory has been given back (after 3 s, steady over 1 s; 10 s at most).
    const samples = [rssBytes(gw.proc.pid!)];
    for (let i = 0; i < 50 && !(samples.length > 15 && Math.abs(samples.at(-1)! - samples.at(-6)!) < 4 * MiB); i++) {
      await sleep(200);
      samples.push(rssBytes(gw.proc.pid!));
    }
    start = samples.at(-1)!;
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('the process is limited to memoryLimit + 2 GiB (less its file-backed pages)', () => {
    const limits = readFileSync(`/proc/${gw.proc.pid}/limits`, 'utf8');
    const m = /^Max data size\s+(\d+)\s+(\d+)/m.exec(limits);
    assert.ok(m, limits);
    assert.equal(Number(m[1]), dataLimitFor('1GB'));
    assert.equal(Number(m[2]), dataLimitFor('1GB'), 'the hard limit too: nothing in the process can raise it');
  });

  test('constants folded at prepare (len(range(300000000)), repeat 1.5e9): refused before DuckDB folds them (54000, sql/size-limits.ts), RSS bounded, the session goes on', async () => {
    const pid = gw.proc.pid!;
    const c = await login();
    await c.query('set statement_timeout = 20000');
    const watch = watchRss(pid);
    for (const sql of ['select len(range(300000000))', "select length(repeat('x', 1500000000))"]) {
      const t0 = Date.now();
      await assert.rejects(c.query(sql), (e: { code?: string }) => e.code === '54000', sql);
      // Before the ceiling: 57014 after the timeout while DuckDB went on folding (RSS 2.4 → 6.4 GB).
      assert.ok(Date.now() - t0 < 15_000, `${sql}: answered after ${Date.now() - t0} ms`);
    }
    assert.equal((await c.query('select 41 + 1 as x')).rows[0].x, 42);
    await c.end();
    const peak = watch.stop();
    console.log(`folded constants: RSS ${start / MiB | 0} MiB at start, peak ${peak / MiB | 0} MiB`);
    assert.ok(peak <= CEILING, `peak RSS ${peak / MiB | 0} MiB`);
    await settled('folded constants');
  });

  test('200 rows of 50 MB, read or unread: 53200 with RSS ≤ memoryLimit + 2 GiB, back near the start once the client leaves; one 50 MB value is served', async () => {
    const pid = gw.proc.pid!;
    for (const reading of [true, false]) {
      const c = await login();
      const sock = (c as unknown as { connection: { stream: Socket } }).connection.stream;
      for (const e of ['data', 'error', 'close', 'end']) sock.removeAllListeners(e);
      sock.on('error', () => undefined);
      const closed = new Promise<void>((r) => sock.once('close', () => r()));
      let received = Buffer.alloc(0);
      let tail = '';
      const done = new Promise<void>((r) =>
        sock.on('data', (d: Buffer) => {
          if (received.length < 4096) received = Buffer.concat([received, d]);
          tail = (tail + d.subarray(-64).toString('latin1')).slice(-64);
          if (/Z\0\0\0\x05[IE]$/.test(tail)) r();
        }),
      );
      if (!reading) sock.pause();
      const watch = watchRss(pid);
      sock.write(query("select repeat('x', 50000000) as s from range(200)"));
      if (!reading) {
        // The client does not read until DuckDB has given up (RSS up, then back down), 30 s at most.
        let high = 0;
        for (let i = 0; i < 150; i++) {
          await sleep(200);
          const now = rssBytes(pid);
          high = Math.max(high, now);
          if (high - start > 200 * MiB && now - start < 128 * MiB) break;
        }
        sock.resume();
      }
      await within(done, 40_000, 'the answer to the huge result');
      const peak = watch.stop();
      assert.match(received.toString('latin1'), /C53200\0/, 'the statement failed with 53200');
      sock.destroy();
      await closed;
      const back = await settled(reading ? 'read' : 'unread');
      console.log(`200 × 50 MB ${reading ? 'read' : 'unread'}: RSS ${start / MiB | 0} MiB at start, peak ${peak / MiB | 0} MiB, ${back / MiB | 0} MiB after the client left`);
      assert.ok(peak - start > 200 * MiB, 'the values did pass through memory');
      assert.ok(peak <= CEILING, `peak RSS ${peak / MiB | 0} MiB over memoryLimit + 2 GiB`);
    }
    const c = await login();
    const r = await c.query("select repeat('x', 50000000) as s");
    assert.equal(r.rows[0].s.length, 50_000_000);
    await c.end();
  });
});

test('size limits: a value built from constant counts over 64 Mi is refused (54000) from the parse tree; streams, small and non-constant counts pass', async () => {
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const tree = async (sql: string) => JSON.parse(String((await conn.runAndReadAll('select json_serialize_sql($1::varchar)', [sql])).getRows()[0]![0])) as unknown;
  try {
    for (const sql of [
      'select len(range(300000000))',
      "select length(repeat('x', 1500000000))",
      "select repeat('ab', 40000000)",
      "select lpad('a', 100000000::bigint, 'x')",
      'select generate_series(1, 100000000, 1)',
      'select x from (select 1 as x) where x in (select unnest(range(-1, 99999999)))',
    ]) {
      const t = await tree(sql);
      assert.throws(() => checkSizeLimits(t), (e: unknown) => e instanceof SqlError && e.sqlstate === '54000', sql);
    }
    // A stream in FROM, small constants, the limit itself, counts that are not constants (left to the ceiling).
    for (const sql of ['select * from range(300000000)', "select repeat('-', 80), range(10), generate_series(0, 100, 5)", "select rpad('a', 67108864, 'x')", "select repeat(s, n) from (select 1000000000 as n, 'x' as s)"]) {
      const t = await tree(sql);
      assert.doesNotThrow(() => checkSizeLimits(t), sql);
    }
  } finally {
    conn.disconnectSync();
  }
});
