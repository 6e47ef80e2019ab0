// Seeded wire-protocol fuzzing over real sockets against a started gateway (issue 7): the server never
// crashes or hangs, every connection ends with an error/close or continues correctly, and a normal
// client is served afterwards. Seed: FDL_FUZZ_SEED (default: fixed), printed; budget 1,500 frames / 60 s.
// Reproduce one case: caseOf(seed, id, 'basic') in test/support/fuzz.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import pg from 'pg';
import { FIXTURES, startGateway, type RunningGateway } from './support/gateway.js';
import { bind, close, describe, execute, fuzz, msg, parse, query, runCase, startupPacket, type FuzzCase } from './support/fuzz.js';
import { join } from 'node:path';

const SEED = Number(process.env.FDL_FUZZ_SEED ?? 20_260_101);
let gw: RunningGateway;

before(async () => {
  gw = await startGateway(['--repo', `basic=${join(FIXTURES, 'repos', 'basic')}`, '--log-level', 'error']);
});
after(async () => {
  await gw?.stop();
});

const alive = () => gw.proc.exitCode === null && gw.proc.signalCode === null;

async function served(): Promise<void> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'after-fuzz', database: 'basic' });
  await c.connect();
  try {
    const r = await c.query('select count(*)::int as n from sales.orders where order_id > $1', [0]);
    assert.ok(r.rows[0].n > 0);
  } finally {
    await c.end();
  }
}

test(`fuzzed startup packets and frontend messages (seed ${SEED})`, { timeout: 120_000 }, async (t) => {
  t.diagnostic(`seed ${SEED} (set FDL_FUZZ_SEED to change)`);
  const s = await fuzz({ host: gw.host, port: gw.port, database: 'basic', seed: SEED, maxFrames: 1500, maxMs: 60_000, concurrency: 8, timeoutMs: 10_000, alive });
  t.diagnostic(`${s.cases} connections, ${s.frames} frames in ${(s.ms / 1000).toFixed(1)} s; outcomes ${JSON.stringify(s.outcomes)}; slowest case ${s.maxCaseMs.toFixed(0)} ms`);
  assert.ok(alive(), `gateway died; stderr:\n${gw.stderr().slice(-4000)}`);
  assert.deepEqual(s.findings.map((f) => `case ${f.id} [${f.kinds.join(',')}]: ${f.outcome} ${f.detail ?? ''}`), [], `seed ${SEED}`);
  assert.ok((s.outcomes.continued ?? 0) > 0, 'some fuzzed sessions must continue correctly');
  await served();
});

// Deterministic edge cases the random walk may not hit in 1,500 frames.
const edge = (name: string, chunks: Buffer[], framed: boolean, oversize: boolean): [string, FuzzCase] => [
  name,
  { id: -1, chunks, frames: chunks.length, framed, oversize, startupValid: true, singleByteAnswers: 0, kinds: [name] },
];
const sp = startupPacket({ user: 'fuzz', database: 'basic' });
const header = (type: string, len: number) => { const b = Buffer.alloc(5); b[0] = type.charCodeAt(0); b.writeInt32BE(len, 1); return b; };
for (const [name, c] of [
  edge('message length 0x7fffffff is refused at once', [sp, header('Q', 0x7fffffff)], false, true),
  edge('message length 3 is refused at once', [sp, header('Q', 3)], false, true),
  edge('startup length 0x7fffffff is refused at once', [Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0])], false, true),
  edge('message type 0 with empty body', [sp, msg(0, Buffer.alloc(0))], true, false),
  edge('Bind with 32767 parameter formats but no data', [sp, msg('P', Buffer.from('\0select $1\0\0\0', 'latin1')), msg('B', Buffer.concat([Buffer.from('\0\0'), Buffer.from([0x7f, 0xff])]))], true, false),
  edge('Execute of an unknown portal then Sync', [sp, msg('E', Buffer.from('nope\0\0\0\0\0', 'latin1')), msg('S', Buffer.alloc(0))], true, false),
  edge('1 MB Query of spaces', [sp, query(' '.repeat(1 << 20))], true, false),
  edge('Query without terminator', [sp, msg('Q', Buffer.from('select 1'))], true, false),
  edge('stream cut mid-header then EOF', [sp, header('Q', 20).subarray(0, 3)], false, false),
] as [string, FuzzCase][]) {
  test(`edge: ${name}`, { timeout: 30_000 }, async () => {
    const r = await runCase(gw.host, gw.port, c, 10_000);
    assert.ok(['continued', 'error-close', 'closed', 'eof-close'].includes(r.outcome), `${r.outcome}: ${r.detail}`);
    assert.ok(alive());
  });
}

test('many half-open connections closed abruptly do not leak or kill the server', { timeout: 60_000 }, async () => {
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      new Promise<void>((res) => {
        const s = netConnect(gw.port, gw.host, () => {
          s.write(i % 2 ? sp : sp.subarray(0, i % 7));
          setTimeout(() => { s.destroy(); res(); }, 20);
        });
        s.on('error', () => res());
      }),
    ),
  );
  assert.ok(alive());
  await served();
});

// Found by this fuzzer (differential against PostgreSQL 15, which answers each of these with a
// non-fatal ErrorResponse and serves the probe after Sync): a well-framed Parse/Bind/Describe/Close
// with a bad field is an error for the session, not the end of the connection.
const NON_FATAL: [string, Buffer[], string][] = [
  ['Bind with parameter format code 2', [parse('', 'select $1::text'), bind('', '', [2], [Buffer.from('x')], [])], '22023'],
  ['Bind with result format code 3', [parse('', 'select 1'), bind('', '', [], [], [3]), execute('', 0)], '22023'],
  ['Bind supplying 1 parameter to a statement needing 0', [parse('', 'select 1'), bind('', '', [], [Buffer.from('x')], [])], '08P01'],
  ['Describe with subtype X', [describe('X', '')], '08P01'],
  ['Close with subtype Z', [close('Z', '')], '08P01'],
  ['Bind whose body is too short', [parse('', 'select 1'), msg('B', Buffer.from([0, 0, 0, 1]))], '08P01'],
  ['Parse with an unterminated string', [msg('P', Buffer.from('abc'))], '08P01'],
];
for (const [name, frames, sqlstate] of NON_FATAL) {
  test(`a well-framed but invalid message is a non-fatal error, as in PostgreSQL: ${name}`, { timeout: 20_000 }, async () => {
    const c: FuzzCase = { id: -1, chunks: [sp, ...frames], frames: frames.length + 1, framed: true, oversize: false, startupValid: true, singleByteAnswers: 0, kinds: [name] };
    const r = await runCase(gw.host, gw.port, c, 10_000);
    assert.equal(r.outcome, 'continued', `${r.outcome}: ${r.detail}`);
    assert.match(r.detail ?? '', new RegExp(`^${sqlstate} `));
  });
}

// Found by this fuzzer (half-open test above, then narrowed): when a client disconnects while its
// query runs, Session.close() calls conn.disconnectSync() under the in-flight query. DuckDB then
// destroys the ClientContext from inside ClientContext::Execute on the libuv worker thread, which
// self-deadlocks in ClientContext::LockContext (seen with gdb: 4 worker threads stuck in
// ~PendingQueryResult → ClientContext::Destroy → LockContext) or, less often, segfaults (SIGSEGV).
// With the 4 libuv threads wedged no query is ever answered again, and SIGTERM never exits (the
// main thread joins the wedged pool in process.exit). Its own gateway, killed with SIGKILL after.
test('clients disconnecting mid-query do not wedge or crash the gateway', { timeout: 90_000 }, async () => {
  const own = await startGateway(['--repo', `basic=${join(FIXTURES, 'repos', 'basic')}`, '--log-level', 'error']);
  try {
    for (let i = 0; i < 8; i++) {
      await new Promise<void>((res) => {
        const s = netConnect(own.port, own.host, () => {
          s.write(Buffer.concat([sp, query('select sum(hash(i)) from range(20000000000) t(i)')]));
          setTimeout(() => { s.destroy(); res(); }, 300);
        });
        s.on('error', () => res());
      });
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(own.proc.exitCode === null && own.proc.signalCode === null, `gateway died: ${own.proc.signalCode ?? own.proc.exitCode}`);
    const c = new pg.Client({ host: own.host, port: own.port, user: 'after', database: 'basic', query_timeout: 10_000, connectionTimeoutMillis: 10_000 });
    try {
      await c.connect();
      const r = await c.query('select 1 as x');
      assert.equal(r.rows[0].x, 1);
    } finally {
      await c.end().catch(() => undefined);
    }
    const code = await Promise.race([own.stop(), new Promise((r) => setTimeout(() => r('no exit within 10 s of SIGTERM'), 10_000))]);
    assert.equal(code, 0);
  } finally {
    if (own.proc.exitCode === null && own.proc.signalCode === null) own.proc.kill('SIGKILL');
  }
});

test('a normal client is served after the fuzzing', async () => {
  await served();
  assert.ok(alive());
});
