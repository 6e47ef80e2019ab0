/**
 * Two replicas of `fdl serve` over one S3 repository (s3rver), behind a real HAProxy running the
 * configuration printed in docs/operations.md: sessions spread over both, the real client address
 * reaches the gateway through PROXY v2, and when one replica is stopped new sessions land on the
 * other with the same rows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CLI, FIXTURES, ROOT, waitFor } from './support/gateway.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';

interface Replica {
  proc: ChildProcess;
  port: number;
  http: string;
  exited: Promise<number | null>;
  stderr(): string;
}

async function replica(args: string[], env: NodeJS.ProcessEnv): Promise<Replica> {
  const proc = spawn(
    process.execPath,
    [CLI, 'serve', '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--proxy-protocol', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const ready = await new Promise<{ port: number; http: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica not ready; stderr:\n${err}`)), 60_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const l = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
      const h = /^http on (127\.0\.0\.1:\d+)$/m.exec(out);
      if (l && h) {
        clearTimeout(timer);
        resolve({ port: Number(l[1]), http: h[1]! });
      }
    });
    void exited.then((c) => reject(new Error(`replica exited with ${c}; stderr:\n${err}`)));
  });
  return { proc, ...ready, exited, stderr: () => err };
}

/** The HAProxy configuration block of docs/operations.md, exactly as documented. */
function documentedHaproxyConfig(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const m = /```haproxy\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, 'docs/operations.md holds a ```haproxy block');
  return m[1]!;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A client whose socket leaves from 127.0.0.2: the balancer connects from 127.0.0.1, so only PROXY v2 can tell the gateway. */
function clientVia(port: number, database = 'basic@v1'): pg.Client {
  return new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'analyst',
    database,
    stream: () => {
      const sock = new net.Socket();
      const connect = sock.connect.bind(sock) as (o: net.TcpSocketConnectOpts) => net.Socket;
      (sock as unknown as { connect: (port: number, host: string) => net.Socket }).connect = (p: number, h: string) =>
        connect({ port: p, host: h, localAddress: '127.0.0.2' });
      return sock;
    },
  });
}

async function metric(r: Replica, name: string): Promise<number> {
  const text = await (await fetch(`http://${r.http}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

describe('two replicas over one S3 repository behind HAProxy', () => {
  let s3: S3Server;
  let dir: string;
  const replicas: Replica[] = [];
  let haproxy: ChildProcess;
  let haproxyErr = '';
  let lbPort: number;
  let expected: string[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fdl-lb-'));
    s3 = await startS3('lake');
    await s3.upload(join(FIXTURES, 'repos', 'basic'), 'basic/');
    const env = {
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    const config = join(dir, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        repos: { basic: `s3://${s3.bucket}/basic/` },
        s3: { endpoint: s3.endpoint, forcePathStyle: true },
      }),
    );
    for (const i of [1, 2])
      replicas.push(await replica(['--config', config, '--cache-dir', join(dir, `cache${i}`)], env));
    lbPort = await freePort();
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, documentedHaproxyConfig());
    haproxy = spawn('haproxy', ['-db', '-f', cfg], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        FDL_LB_BIND: `127.0.0.1:${lbPort}`,
        FDL_GW1: `127.0.0.1:${replicas[0]!.port}`,
        FDL_GW1_HTTP_PORT: replicas[0]!.http.split(':')[1],
        FDL_GW2: `127.0.0.1:${replicas[1]!.port}`,
        FDL_GW2_HTTP_PORT: replicas[1]!.http.split(':')[1],
      },
    });
    haproxy.stderr!.on('data', (d: Buffer) => (haproxyErr += d.toString()));
    await waitFor(
      async () => {
        const c = clientVia(lbPort);
        return c
          .connect()
          .then(() => c.end())
          .then(
            () => true,
            () => false,
          );
      },
      'HAProxy listening',
      30_000,
    ).catch((e: Error) => assert.fail(`${e.message}; stderr:\n${haproxyErr}`));
    // The oracle: the same query straight from the fixture's expected rows is not needed — both
    // replicas must agree with each other and with the first answer.
    const c = clientVia(lbPort);
    await c.connect();
    expected = (await c.query({ text: 'select * from sales.orders order by 1', rowMode: 'array' })).rows.map((r) =>
      JSON.stringify(r),
    );
    await c.end();
    assert.ok(expected.length > 0);
  });

  after(async () => {
    haproxy?.kill('SIGTERM');
    for (const r of replicas) {
      r.proc.kill('SIGTERM');
      await r.exited;
    }
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('sessions spread over both replicas and see the real client address', async () => {
    const clients: pg.Client[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const c = clientVia(lbPort);
        await c.connect();
        clients.push(c);
        const rows = (await c.query({ text: 'select * from sales.orders order by 1', rowMode: 'array' })).rows.map(
          (r) => JSON.stringify(r),
        );
        assert.deepEqual(rows, expected);
        assert.equal((await c.query('select client_addr from fdl.session')).rows[0].client_addr, '127.0.0.2');
        assert.equal((await c.query('select client_addr::text as a from pg_stat_activity')).rows[0].a, '127.0.0.2');
      }
      // leastconn: two each.
      assert.deepEqual(await Promise.all(replicas.map((r) => metric(r, 'fdl_connections'))), [2, 2]);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    for (const r of replicas) assert.match(r.stderr(), /"event":"connect".*"client":"127\.0\.0\.2"/);
  });

  test('stop one replica: its idle sessions end with 57P01, new sessions land on the other with correct rows', async () => {
    const [first, second] = replicas as [Replica, Replica];
    const idle = clientVia(lbPort);
    await idle.connect();
    const ended = new Promise<{ code?: string }>((r) => idle.on('error', (e) => r(e as { code?: string })));
    const onFirst = (await metric(first, 'fdl_connections')) === 1;
    first.proc.kill('SIGTERM');
    if (onFirst) assert.equal((await ended).code, '57P01');
    assert.equal(await first.exited, 0);
    const sessionsOk = async () => {
      const text = await (await fetch(`http://${second.http}/metrics`)).text();
      return Number(/^fdl_sessions_total\{outcome="ok"\} (\d+)/m.exec(text)?.[1]);
    };
    const base = await sessionsOk();
    for (let i = 0; i < 6; i++) {
      const c = clientVia(lbPort, i % 2 ? 'basic@v1' : 'basic');
      await c.connect();
      if (i % 2) {
        const rows = (await c.query({ text: 'select * from sales.orders order by 1', rowMode: 'array' })).rows.map(
          (r) => JSON.stringify(r),
        );
        assert.deepEqual(rows, expected);
      } else {
        assert.ok(Number((await c.query('select count(*) as n from sales.orders')).rows[0].n) > 0);
      }
      await c.end();
    }
    assert.equal((await sessionsOk()) - base, 6);
    if (!onFirst) await idle.end();
  });
});
