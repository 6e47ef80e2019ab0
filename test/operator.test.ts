/**
 * An operator's first day: the config file's values apply unless a flag is given; logs readable on
 * a terminal and JSON otherwise; the psql hint last and right for the configured auth; `fdl` runs
 * as a command; no AWS SDK noise.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { psqlHint } from '../src/service/psql-hint.js';
import { CLI, FIXTURES, ROOT } from './support/gateway.js';

const run = promisify(execFile);
const BASIC = join(FIXTURES, 'repos', 'basic');
const work = mkdtempSync(join(tmpdir(), 'fdl-operator-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function config(name: string, body: object): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify({ repos: { basic: BASIC }, cacheDir: join(work, `${name}-cache`), ...body }));
  return file;
}

interface Served {
  stdout: string;
  /** stderr when the psql hint appeared (the end of the start-up output) */
  atReady: string;
  /** stderr up to the end, after `then` ran */
  stderr: string;
  code: number | null;
}

/**
 * `fdl serve ARGS` (under `wrap`, e.g. script(1) for a terminal, whose output all comes on stdout)
 * until it prints its psql hint; then `then(port)`, then SIGTERM.
 */
async function serveUntilReady(
  args: string[],
  opts: { wrap?: (argv: string[]) => string[]; then?: (port: number) => Promise<void> } = {},
): Promise<Served> {
  const argv = [process.execPath, CLI, 'serve', ...args];
  const [cmd, ...rest] = opts.wrap ? opts.wrap(argv) : argv;
  const proc: ChildProcess = spawn(cmd!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let atReady: string | undefined;
  const both = () => (opts.wrap ? stdout : stderr);
  const seen = async () => {
    if (atReady !== undefined || !/connect with: psql [^\n]*\n/.test(both())) return;
    atReady = both();
    const port = Number(/port=(\d+)/.exec(atReady)![1]);
    try {
      await opts.then?.(port);
      await new Promise((r) => setTimeout(r, 300)); // log lines are flushed every 100 ms
    } finally {
      // under script(1) the gateway runs in the background of its shell and prints its pid
      const inner = /^pid=(\d+)\r?$/m.exec(both());
      if (inner) process.kill(Number(inner[1]), 'SIGTERM');
      else proc.kill('SIGTERM');
    }
  };
  proc.stdout!.on('data', (d: Buffer) => ((stdout += d.toString()), void seen()));
  proc.stderr!.on('data', (d: Buffer) => ((stderr += d.toString()), void seen()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => (proc.kill('SIGKILL'), reject(new Error(`no hint in time; output:\n${stdout}\n${stderr}`))),
      60_000,
    );
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: both(), atReady: atReady ?? '', code });
    });
  });
}

const psql = (port: number) =>
  run('psql', ['-X', '-h', '127.0.0.1', '-p', String(port), '-d', 'basic', '-U', 'me', '-c', 'select 1']).then(
    () => undefined,
  );

describe('config file values apply unless a flag is given', () => {
  it("the file's listen is used without --listen; --listen wins over it", async () => {
    const port = await freePort();
    const file = config('listen.json', { listen: `127.0.0.1:${port}` });
    const fromFile = await serveUntilReady(['--config', file]);
    assert.match(fromFile.stdout, new RegExp(`^listening on 127\\.0\\.0\\.1:${port}$`, 'm'));
    const other = await freePort();
    const fromFlag = await serveUntilReady(['--config', file, '--listen', `127.0.0.1:${other}`]);
    assert.match(fromFlag.stdout, new RegExp(`^listening on 127\\.0\\.0\\.1:${other}$`, 'm'));
  });

  it("the file's logLevel is used without --log-level; --log-level wins over it", async () => {
    const file = config('level.json', { logLevel: 'warn', listen: '127.0.0.1:0' });
    const quiet = await serveUntilReady(['--config', file]);
    assert.doesNotMatch(quiet.stderr, /"level":30/, "no info line at the file's warn level");
    const loud = await serveUntilReady(['--config', file, '--log-level', 'info']);
    assert.match(loud.stderr, /"level":30/);
    const bad = await run(process.execPath, [
      CLI,
      'serve',
      '--config',
      config('badlevel.json', { logLevel: 'loud' }),
    ]).catch((e: { code: number; stderr: string }) => e);
    assert.equal((bad as { code: number }).code, 2);
    assert.match((bad as { stderr: string }).stderr, /log level expects .* got "loud"/);
  });
});

describe('start-up output', () => {
  it('JSON lines when stderr is not a terminal, the psql hint the last start-up line', async () => {
    const r = await serveUntilReady(
      ['--listen', '127.0.0.1:0', '--repo', `basic=${BASIC}`, '--cache-dir', join(work, 'json-cache')],
      { then: psql },
    );
    assert.match(
      r.atReady.trimEnd().split('\n').at(-1)!,
      /^connect with: psql "host=127\.0\.0\.1 port=\d+ dbname=basic user=\S+"$/,
    );
    const after = r.stderr.slice(r.atReady.length).trimEnd().split('\n');
    assert.ok(after.length > 0);
    for (const l of after) assert.doesNotThrow(() => JSON.parse(l), l);
    assert.ok(
      after.some((l) => JSON.parse(l).level === 30 && /select 1|statement|fingerprint/.test(l)),
      `an audit line for the statement: ${after.join('\n')}`,
    );
    assert.doesNotMatch(r.stderr, /NodeVersionSupportWarning|AWS SDK/);
  });

  it('readable lines on a terminal (pino-pretty), the psql hint the last start-up line', async () => {
    // script(1) gives the child a pseudo-terminal (its output comes back on script's stdout).
    const wrap = (argv: string[]) => [
      'script',
      '-qfec',
      `${argv.map((a) => `'${a}'`).join(' ')} & echo "pid=$!"; wait`,
      '/dev/null',
    ];
    const r = await serveUntilReady(
      ['--listen', '127.0.0.1:0', '--repo', `basic=${BASIC}`, '--cache-dir', join(work, 'tty-cache')],
      { wrap, then: psql },
    );
    const plain = (t: string) =>
      t
        .replace(/\x1b\[[0-9;]*m/g, '')
        .split(/\r?\n/)
        .filter((l) => l.trim() !== '');
    assert.match(plain(r.atReady).at(-1)!, /^connect with: psql /);
    const after = plain(r.stderr.slice(r.atReady.length));
    assert.ok(
      after.some((l) =>
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: statement session=\S+ user=me database=basic .*sqlstate=00000/.test(l),
      ),
      `one readable line per statement: ${after.join('\n')}`,
    );
    assert.ok(!after.some((l) => l.startsWith('{')), 'no JSON line');
  });

  it('the hint names a user the configured authentication accepts', () => {
    const repos = [{ name: 'sales', location: '/x' }];
    const addr = { host: '0.0.0.0', port: 5433 };
    assert.equal(
      psqlHint({ repos, auth: 'trust', users: {} }, addr, 'ann'),
      'connect with: psql "host=127.0.0.1 port=5433 dbname=sales user=ann"',
    );
    const users = { analyst: {}, ops: {} };
    assert.equal(
      psqlHint({ repos, auth: 'scram-sha-256', users, tls: { cert: 'c', key: 'k', mode: 'required' } }, addr, 'ann'),
      'connect with: psql "host=127.0.0.1 port=5433 dbname=sales user=analyst sslmode=require"   (scram-sha-256 authentication: psql asks for analyst\'s password; users: analyst, ops)',
    );
  });
});

describe('fdl as a command', () => {
  it('package.json names the bin, it starts with a shebang, and npx fdl runs it', async () => {
    const pkg = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })).default as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    assert.equal(pkg.bin.fdl, 'dist/src/cli/main.js');
    assert.match(pkg.scripts.prepare ?? '', /build/, 'npm ci builds dist/ (prepare)');
    // npm exec installs the project into its own cache first; --ignore-scripts keeps that from running
    // `prepare` (a whole tsc build, rewriting dist/ under the test files running beside this one).
    const r = await run('npx', ['--no-install', '--ignore-scripts', 'fdl', '--version'], { cwd: ROOT });
    assert.equal(r.stdout.trim(), '0.1.0');
  });
});

describe('--ca-file: HTTPS and S3 endpoints with a private CA', () => {
  const dir = join(work, 'pki');
  let server: HttpsServer;
  let url: string;
  const repo = join(FIXTURES, 'repos', 'basic');

  before(async () => {
    // A private CA and a server certificate for 127.0.0.1 signed by it, made by openssl.
    mkdirSync(dir, { recursive: true });
    const ssl = (args: string[]) => run('openssl', args, { cwd: dir });
    await ssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=fdl test CA',
    ]);
    await ssl([
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ]);
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    await ssl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    ]);
    server = createHttpsServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
      (req, res) => {
        const file = normalize(join(repo, decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname)));
        if (!file.startsWith(repo) || !existsSync(file) || !statSync(file).isFile())
          return void res.writeHead(404).end();
        const body = readFileSync(file);
        res.writeHead(200, { 'content-length': body.length }).end(req.method === 'HEAD' ? undefined : body);
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('without the CA the TLS failure is named; --ca-file and FDL_CA_FILE trust it (fdl push)', async () => {
    const fail = await run(process.execPath, [CLI, 'push', url, join(work, 'tls-none')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal((fail as { code: number }).code, 1);
    assert.match(
      (fail as { stderr: string }).stderr,
      /TLS: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\); .*--ca-file/,
    );
    assert.equal(existsSync(join(work, 'tls-none', 'refs')), false);
    const ok = await run(process.execPath, [
      CLI,
      'push',
      '--ca-file',
      join(dir, 'ca.pem'),
      url,
      join(work, 'tls-flag'),
    ]);
    assert.match(ok.stdout, /^pushed \d+ version/);
    const env = await run(process.execPath, [CLI, 'push', url, join(work, 'tls-env')], {
      env: { ...process.env, FDL_CA_FILE: join(dir, 'ca.pem') },
    });
    assert.match(env.stdout, /^pushed \d+ version/);
    const bad = await run(process.execPath, [
      CLI,
      'push',
      '--ca-file',
      join(dir, 'san.ext'),
      url,
      join(work, 'tls-bad'),
    ]).catch((e: { code: number; stderr: string }) => e);
    assert.match((bad as { stderr: string }).stderr, /CA file .*san\.ext holds no PEM certificate/);
  });

  it('fdl serve of an https:// repository: caFile in the config file trusts the CA; without it the client is told TLS', async () => {
    const withCa = config('ca.json', { repos: { basic: url }, caFile: join(dir, 'ca.pem'), listen: '127.0.0.1:0' });
    const rows: unknown[] = [];
    await serveUntilReady(['--config', withCa], {
      then: async (port) => {
        const r = await run('psql', [
          '-X',
          '-At',
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-d',
          'basic',
          '-U',
          'me',
          '-c',
          'show fdl.version',
        ]);
        rows.push(r.stdout.trim());
      },
    });
    assert.match(String(rows[0]), /^[0-9a-f]{8}-/);
    const without = config('noca.json', { repos: { basic: url }, listen: '127.0.0.1:0' });
    const errors: string[] = [];
    const served = await serveUntilReady(['--config', without], {
      then: async (port) => {
        await run('psql', [
          '-X',
          '-At',
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-d',
          'basic',
          '-U',
          'me',
          '-c',
          'select 1',
        ]).catch((e: { stderr: string }) => errors.push(e.stderr));
      },
    });
    // the gateway reaches the repository when a client asks for it, or at start: either way the failure names TLS
    assert.match(errors[0] ?? served.stderr, /TLS: .*--ca-file/);
  });
});
