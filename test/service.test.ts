/**
 * `fdl serve` as a service, end to end with the real binary: the HTTP listener (health, readiness,
 * Prometheus metrics, the status page in headless Chromium) and the PROXY protocol. Signals
 * (graceful drain on SIGTERM, SIGHUP reload): service-signals.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { cancelFrom, copyFixtures, FIXTURES, waitFor } from './support/gateway.js';
import { encodeProxyV2 } from '../src/wire/proxy-protocol.js';
import { client, connectError, get, sample, serve, type Service } from './support/service.js';

const run = promisify(execFile);

describe('service: HTTP listener, metrics, status page', () => {
  const repos = copyFixtures('repos/basic');
  let s: Service;
  before(async () => {
    s = await serve([
      '--http',
      '127.0.0.1:0',
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--allowed-signers',
      `basic=${join(FIXTURES, 'keys', 'allowed_signers')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
      '--threads',
      '2',
    ]);
  });
  after(async () => {
    s?.proc.kill('SIGTERM');
    await s?.exited;
    repos.cleanup();
  });

  test('prints `http on HOST:PORT` after the `listening on` line; health and readiness answer', async () => {
    const lines = s.stdout().trim().split('\n');
    assert.match(lines[0]!, /^listening on /);
    assert.match(lines[1]!, /^http on 127\.0\.0\.1:\d+$/);
    assert.equal(lines.length, 2);
    assert.deepEqual(await get(s.http!, '/healthz'), { status: 200, body: 'ok\n', type: 'text/plain; charset=utf-8' });
    assert.equal((await get(s.http!, '/readyz')).status, 200);
    assert.equal((await get(s.http!, '/nope')).status, 404);
    assert.equal((await get(s.http!, '/metrics', 'POST')).status, 405);
  });

  test('200 idle sockets on the HTTP listener: /healthz still answers within 1 s (the longest idle ones make room)', async () => {
    const [host, port] = [s.http!.split(':')[0]!, Number(s.http!.split(':')[1])];
    const idle: net.Socket[] = [];
    let closedByServer = 0;
    try {
      for (let i = 0; i < 200; i++) {
        const sock = net.connect(port, host);
        sock.on('error', () => undefined);
        sock.resume();
        sock.once('close', () => closedByServer++);
        idle.push(sock);
        await new Promise<void>((r) => sock.once('connect', () => r()).once('close', () => r()));
      }
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const r = await fetch(`http://${s.http}/healthz`, { signal: AbortSignal.timeout(1000) });
        assert.equal(r.status, 200);
        assert.equal(await r.text(), 'ok\n');
        assert.ok(performance.now() - t0 < 1000);
      }
      assert.ok(closedByServer >= 200 - 64, `only ${closedByServer} idle sockets were closed`);
    } finally {
      for (const sock of idle) sock.destroy();
    }
  });

  test('metrics count connections, statements by outcome, durations and cache use', async () => {
    const before = (await get(s.http!, '/metrics')).body;
    assert.match(before, /^# TYPE fdl_query_duration_seconds histogram$/m);
    assert.match(before, /^process_resident_memory_bytes \d+/m);
    const ok0 = sample(before, 'fdl_queries_total', '{outcome="ok"}');
    const err0 = sample(before, 'fdl_queries_total', '{outcome="error"}');
    const can0 = sample(before, 'fdl_queries_total', '{outcome="cancelled"}');
    const res0 = sample(before, 'fdl_version_failures_total', '{kind="resolution"}');
    const c = await client(s, 'basic@v1');
    try {
      assert.equal(sample((await get(s.http!, '/metrics')).body, 'fdl_connections'), 1);
      await c.query('select count(*) from sales.orders');
      await c.query('select count(*) from sales.orders'); // the second answer comes from the result cache
      await assert.rejects(c.query('select * from no_such_table'), { code: '42P01' });
      const running = c.query('select count(*) from range(10000000000) t(i) where random() < 2');
      running.catch(() => undefined); // asserted below; the cancel may land before that line runs
      await new Promise((r) => setTimeout(r, 300));
      await cancelFrom({ host: '127.0.0.1', port: s.port }, c as unknown as { processID: number; secretKey: number });
      await assert.rejects(running, { code: '57014' });
    } finally {
      await c.end();
    }
    assert.equal((await connectError(s, 'basic@no-such-ref')).code, '3D000');
    await waitFor(
      async () => sample((await get(s.http!, '/metrics')).body, 'fdl_connections') === 0,
      'connection gauge back to 0',
      20_000,
    );
    const m = (await get(s.http!, '/metrics')).body;
    assert.equal(sample(m, 'fdl_queries_total', '{outcome="ok"}') - ok0, 2);
    assert.equal(sample(m, 'fdl_queries_total', '{outcome="error"}') - err0, 1);
    assert.equal(sample(m, 'fdl_queries_total', '{outcome="cancelled"}') - can0, 1);
    assert.equal(sample(m, 'fdl_version_failures_total', '{kind="resolution"}') - res0, 1);
    assert.ok(sample(m, 'fdl_result_cache_hits_total') >= 1);
    assert.ok(sample(m, 'fdl_cache_bytes', '{cache="results"}') > 0);
    assert.ok(sample(m, 'fdl_query_duration_seconds_count', '{outcome="ok"}') >= 2);
    // Labels are closed sets: no SQL, user, database or ref text reaches the metrics.
    assert.doesNotMatch(m, /no_such_table|sales\.orders|tester|no-such-ref|basic@/);
  });

  test('the status page lists running statements with user, application name and duration (longest first), not their text', async () => {
    const page = async () => (await get(s.http!, '/')).body;
    const runningRows = (html: string) => {
      const table = /<table class="running">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
      return [
        ...table.matchAll(
          /<tr><td>\d+<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td data-ms="(\d+)">([^<]*)<\/td><\/tr>/g,
        ),
      ].map((m) => ({ user: m[1], app: m[2], database: m[3], ms: Number(m[4]), shown: m[5] }));
    };
    assert.match(await page(), /No statement is running\./);
    const slow = new pg.Client({
      host: '127.0.0.1',
      port: s.port,
      user: 'analyst',
      database: 'basic@v1',
      application_name: 'nightly <report>',
    });
    const idle = new pg.Client({
      host: '127.0.0.1',
      port: s.port,
      user: 'tester',
      database: 'basic@v1',
      application_name: 'idle-app',
    });
    await slow.connect();
    await idle.connect();
    try {
      const running = slow.query(
        'select count(*) from range(100000000000) t(i) where i % 7 = 12345678901 -- secret literal',
      );
      running.catch(() => undefined);
      const first = await waitFor(
        async () => runningRows(await page()).find((r) => r.user === 'analyst' && r.ms >= 200),
        'the statement on the page',
        20_000,
      );
      assert.equal(first.app, 'nightly &lt;report&gt;', 'application name, escaped');
      assert.equal(first.database, 'basic@v1');
      assert.match(first.shown!, /^\d+\.\d s$/);
      const html = await page();
      assert.equal(runningRows(html).length, 1, 'the idle session runs nothing');
      assert.match(
        html,
        /<td>tester<\/td><td>idle-app<\/td><td>basic@v1<\/td>/,
        'the idle session is listed with its application name',
      );
      assert.doesNotMatch(html, /secret literal|12345678901/, 'no statement text');
      const later = await waitFor(
        async () => runningRows(await page()).find((r) => r.user === 'analyst' && r.ms > first.ms),
        'the duration grows',
        20_000,
      );
      assert.ok(later.ms > first.ms);
      await cancelFrom(
        { host: '127.0.0.1', port: s.port },
        slow as unknown as { processID: number; secretKey: number },
      );
      await assert.rejects(running, { code: '57014' });
      await waitFor(async () => /No statement is running\./.test(await page()), 'no statement running', 20_000);
    } finally {
      await slow.end();
      await idle.end();
    }
  });

  test('the status page shows datasets, refs, history and tables, without JavaScript, in headless Chromium', async () => {
    const c = await client(s, 'basic@v2');
    const dir = mkdtempSync(join(tmpdir(), 'fdl-chromium-'));
    try {
      const shot = join(dir, 'status.png');
      const flags = [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-javascript',
        `--user-data-dir=${join(dir, 'profile')}`,
      ];
      const url = `http://${s.http}/`;
      const { stdout: dom } = await run('/usr/bin/chromium', [...flags, '--dump-dom', url], {
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      for (const expected of [
        'Basic shop',
        'Two schemas, every common type, three versions.',
        'CC0-1.0',
        'heads/main',
        'tags/v1',
        'tags/v2',
        'requests/1',
        'sales.orders',
        'Orders (DuckLake table comment)',
        'One row per customer.',
        'customer_id',
        'Customer key',
        'signed, trusted key',
        'catalog + data files',
      ]) {
        assert.ok(dom.includes(expected), `status page should show ${expected}`);
      }
      // The graph: one dot per version, and the open session with its client address.
      assert.equal((dom.match(/<circle /g) ?? []).length, 5);
      assert.match(dom, /<td>tester<\/td><td><\/td><td>basic@v2<\/td><td>127\.0\.0\.1<\/td>/);
      // No server paths.
      assert.ok(!dom.includes(repos.dir), 'no server path on the page');
      await run('/usr/bin/chromium', [...flags, '--window-size=1200,1600', `--screenshot=${shot}`, url], {
        timeout: 120_000,
      });
      assert.ok(existsSync(shot) && statSync(shot).size > 10_000, 'screenshot written');
      const png = readFileSync(shot);
      assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    } finally {
      await c.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('service: PROXY protocol', () => {
  const repos = copyFixtures('repos/basic');
  let s: Service;
  before(async () => {
    s = await serve([
      '--http',
      '127.0.0.1:0',
      '--proxy-protocol',
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    s?.proc.kill('SIGTERM');
    await s?.exited;
    repos.cleanup();
  });

  /** A forwarder that speaks like HAProxy: the header first, then the client's bytes. */
  async function forwarder(header: (sock: net.Socket) => Buffer): Promise<{ port: number; close(): void }> {
    const server = net.createServer((inbound) => {
      const out = net.connect(s.port, '127.0.0.1', () => {
        out.write(header(inbound));
        inbound.pipe(out);
        out.pipe(inbound);
      });
      out.on('error', () => inbound.destroy());
      inbound.on('error', () => out.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
  }

  test('connections without a header are refused (08P01) and counted', async () => {
    const e = await connectError(s, 'basic');
    assert.equal(e.code, '08P01');
    assert.match(e.message, /PROXY protocol header/);
    const m = (await get(s.http!, '/metrics')).body;
    assert.ok(sample(m, 'fdl_connections_refused_total', '{reason="proxy_header"}') >= 1);
  });

  test('sockets waiting for their header are bounded: beyond maxAuthenticating (32) they are refused 53300', async () => {
    const silent: net.Socket[] = [];
    try {
      for (let i = 0; i < 32; i++) {
        const sock = net.connect(s.port, '127.0.0.1');
        sock.on('error', () => undefined);
        await new Promise((r) => sock.once('connect', r));
        silent.push(sock);
      }
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const sock = net.connect(s.port, '127.0.0.1');
        let got = Buffer.alloc(0);
        sock.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
        sock.on('close', () => resolve(got));
        sock.on('error', reject);
      });
      assert.equal(answer.subarray(0, 1).toString('latin1'), 'E');
      assert.match(answer.toString('latin1'), /C53300\0/);
    } finally {
      for (const sock of silent) sock.destroy();
    }
    // Room again once they are gone.
    const fw = await forwarder(() =>
      encodeProxyV2({ address: '203.0.113.8', port: 40003 }, { address: '127.0.0.1', port: s.port }),
    );
    try {
      await waitFor(
        async () => {
          const c = new pg.Client({ host: '127.0.0.1', port: fw.port, user: 'tester', database: 'basic' });
          c.on('error', () => undefined);
          try {
            await c.connect();
          } catch {
            return false;
          }
          await c.end();
          return true;
        },
        'a session through the forwarder',
        20_000,
      );
    } finally {
      fw.close();
    }
  });

  test('v1 and v2 headers: fdl.session, pg_stat_activity, inet_client_addr() and the audit log show the real client', async () => {
    const v1 = await forwarder((sock) => Buffer.from(`PROXY TCP4 198.51.100.23 127.0.0.1 40001 ${sock.localPort}\r\n`));
    const v2 = await forwarder(() =>
      encodeProxyV2({ address: '203.0.113.7', port: 40002 }, { address: '127.0.0.1', port: s.port }),
    );
    try {
      for (const [fw, addr] of [
        [v1, '198.51.100.23'],
        [v2, '203.0.113.7'],
      ] as const) {
        const c = new pg.Client({ host: '127.0.0.1', port: fw.port, user: 'tester', database: 'basic' });
        await c.connect();
        assert.equal((await c.query('select client_addr from fdl.session')).rows[0].client_addr, addr);
        assert.equal(
          (await c.query('select client_addr::text as a, usename from pg_stat_activity where pid = pg_backend_pid()'))
            .rows[0].a,
          addr,
        );
        assert.equal((await c.query('select inet_client_addr()::text as a')).rows[0].a, addr);
        await c.query('select count(*) from sales.orders');
        await c.end();
        await waitFor(() => s.stderr().includes(`"client":"${addr}"`), 'audit line', 20_000);
      }
    } finally {
      v1.close();
      v2.close();
    }
  });
});

describe('PROXY protocol header parser', () => {
  test('v1 and v2 addresses, LOCAL and UNKNOWN, bytes after the header kept', async () => {
    const { parseProxyHeader } = await import('../src/wire/proxy-protocol.js');
    const v1 = Buffer.from('PROXY TCP4 192.0.2.1 192.0.2.2 5000 5433\r\nXYZ');
    assert.deepEqual(parseProxyHeader(v1), {
      kind: 'done',
      client: { address: '192.0.2.1', port: 5000 },
      consumed: v1.length - 3,
    });
    assert.deepEqual(parseProxyHeader(Buffer.from('PROXY TCP6 2001:db8::1 2001:db8::2 5000 5433\r\n')).kind, 'done');
    assert.deepEqual(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n')), {
      kind: 'done',
      client: { address: null, port: null },
      consumed: 15,
    });
    const v2 = encodeProxyV2({ address: '203.0.113.9', port: 1234 }, { address: '10.0.0.1', port: 5433 });
    assert.deepEqual(parseProxyHeader(Buffer.concat([v2, Buffer.from([0, 0, 0, 8])])), {
      kind: 'done',
      client: { address: '203.0.113.9', port: 1234 },
      consumed: v2.length,
    });
    // IPv6 over v2, compressed as RFC 5952 writes it.
    const v6 = Buffer.concat([
      v2.subarray(0, 12),
      Buffer.from([0x21, 0x21, 0, 36]),
      Buffer.from('20010db8000000000000000000000001', 'hex'),
      Buffer.alloc(16),
      Buffer.from([0x13, 0x88, 0x15, 0x39]),
    ]);
    assert.deepEqual(parseProxyHeader(v6), {
      kind: 'done',
      client: { address: '2001:db8::1', port: 5000 },
      consumed: 52,
    });
    // LOCAL (the balancer's own health check): no client address.
    const local = Buffer.from(v2);
    local[12] = 0x20;
    assert.deepEqual(parseProxyHeader(local).kind === 'done' && parseProxyHeader(local), {
      kind: 'done',
      client: { address: null, port: null },
      consumed: v2.length,
    });
  });

  test('partial headers wait; malformed, oversized and missing headers are refused', async () => {
    const { parseProxyHeader } = await import('../src/wire/proxy-protocol.js');
    const v2 = encodeProxyV2({ address: '203.0.113.9', port: 1234 }, { address: '10.0.0.1', port: 5433 });
    for (let n = 1; n < v2.length; n++)
      assert.equal(parseProxyHeader(v2.subarray(0, n)).kind, 'incomplete', `v2 prefix of ${n} bytes`);
    assert.equal(parseProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4')).kind, 'incomplete');
    const refused = [
      Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]), // a plain PostgreSQL SSLRequest
      Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 99999\r\n'),
      Buffer.from('PROXY TCP4 1.2.3.999 5.6.7.8 1 2\r\n'),
      Buffer.from('PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n'),
      Buffer.from('PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n'),
      Buffer.from(`PROXY TCP4 ${'1'.repeat(120)}`),
      Buffer.concat([v2.subarray(0, 12), Buffer.from([0x21, 0x11, 0xff, 0xff])]),
      Buffer.concat([v2.subarray(0, 12), Buffer.from([0x31, 0x11, 0, 12]), Buffer.alloc(12)]),
      Buffer.concat([v2.subarray(0, 12), Buffer.from([0x21, 0x11, 0, 4]), Buffer.alloc(4)]),
    ];
    for (const b of refused) assert.equal(parseProxyHeader(b).kind, 'error', JSON.stringify(b.toString('latin1')));
  });
});
