/**
 * Start the real `fdl serve` binary as a child process on a free port, the way users and scripts
 * do, and wait for its `listening on HOST:PORT` line.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { connect as netConnect } from 'node:net';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Project root (this file runs from dist/test/support). */
export const ROOT = resolve(here, '..', '..', '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface RunningGateway {
  host: string;
  port: number;
  proc: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

export async function startGateway(
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cli?: string } = {},
): Promise<RunningGateway> {
  // The serving process itself, not its supervisor: tests read its pid's memory and CPU (an older
  // build given as `cli` has no supervisor).
  const alone = opts.cli ? [] : ['--no-restart-on-crash'];
  const proc = spawn(process.execPath, [opts.cli ?? CLI, 'serve', '--listen', '127.0.0.1:0', ...alone, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // listened for from the start: a test that kills the process itself (SIGKILL leaves exitCode null)
  // and then calls stop() must not wait for an 'exit' already emitted
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const address = await new Promise<{ host: string; port: number }>((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start in time; stderr:\n${err}`)),
      opts.timeoutMs ?? 60_000,
    );
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening on (.+):(\d+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ host: m[1]!, port: Number(m[2]) });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening; stderr:\n${err}`));
    });
  });
  return {
    ...address,
    proc,
    stderr: () => err,
    stop: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * The gateway most end-to-end tests need: `fdl serve` over a private copy of repos/basic with its
 * own cache; `stop()` also removes the copy. `extraArgs` are more `serve` flags; `opts.config`, when
 * given, is written as the config file (`--config`: users, grants, authentication).
 */
export async function serveBasic(
  extraArgs: string[] = [],
  opts: { env?: NodeJS.ProcessEnv; config?: object } = {},
): Promise<RunningGateway> {
  const repos = copyFixtures('repos/basic');
  try {
    const config: string[] = [];
    if (opts.config) {
      writeFileSync(join(repos.dir, 'config.json'), JSON.stringify(opts.config));
      config.push('--config', join(repos.dir, 'config.json'));
    }
    const gw = await startGateway(
      [
        '--repo',
        `basic=${repos.path('repos/basic')}`,
        '--cache-dir',
        join(repos.dir, 'cache'),
        ...config,
        ...extraArgs,
      ],
      { env: opts.env },
    );
    return { ...gw, stop: () => gw.stop().finally(() => repos.cleanup()) };
  } catch (e) {
    repos.cleanup();
    throw e;
  }
}

/** Under trust authentication, user `ann` reads every ref of `basic`. */
export const TRUST_ANN_READS_BASIC = { auth: 'trust', users: { ann: { grants: { basic: ['*'] } } } } as const;

/** Run `fdl serve` expecting it to fail; resolves with exit code and stderr. */
export function runServeExpectingFailure(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res) => {
    const proc = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^listening on/m.test(out)) proc.kill('SIGTERM');
    });
    proc.on('exit', (code) => res({ code, stderr: err }));
  });
}

/** A private copy of fixture repositories (tests may tamper with them). */
export function copyFixtures(...names: string[]): { dir: string; path(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-test-'));
  for (const n of names) cpSync(join(FIXTURES, n), join(dir, n.replace(/\//g, '_')), { recursive: true });
  return {
    dir,
    path: (n) => join(dir, n.replace(/\//g, '_')),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A connected node-postgres client on `gw` (user `x` unless given); the caller ends it. One place
 * for the connection options every end-to-end test repeats.
 */
export async function client(
  gw: Pick<RunningGateway, 'host' | 'port'>,
  database: string,
  opts: { user?: string; password?: string } = {},
) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ host: gw.host, port: gw.port, user: opts.user ?? 'x', password: opts.password, database });
  await c.connect();
  return c;
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`
 * (generous: the machine may be loaded). Use for what happens in the background, never for a clock
 * a test can mock.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Resolves once the gateway process has spent `cpuSeconds` more CPU than when called (a statement
 * that burns CPU is running), or once `running` settles. A CancelRequest sent earlier, on a timer,
 * may find the session still idle on a loaded machine, and PostgreSQL and the gateway ignore it.
 */
export async function whenBusy(gw: Pick<RunningGateway, 'proc'>, running: Promise<unknown>, cpu = 0.3): Promise<void> {
  let settled = false;
  void running.then(
    () => (settled = true),
    () => (settled = true),
  );
  const from = cpuSeconds(gw.proc.pid!);
  await waitFor(
    () => settled || cpuSeconds(gw.proc.pid!) - from >= cpu,
    'the statement running in the gateway',
    60_000,
    20,
  );
}

/**
 * Sends a CancelRequest for the backend `key` names (node-postgres keeps it as processID/secretKey,
 * RawPg as processId/secretKey) over a socket of its own, as every driver does; resolves once the
 * gateway has handled it (it closes that socket).
 */
export async function cancelFrom(
  gw: Pick<RunningGateway, 'host' | 'port'>,
  key: { processID?: number; processId?: number; secretKey: number },
): Promise<void> {
  const sock = netConnect(gw.port, gw.host);
  const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  sock.on('error', () => undefined);
  await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
  const b = Buffer.alloc(16);
  b.writeInt32BE(16, 0);
  b.writeInt32BE(80877102, 4); // the CancelRequest code
  b.writeInt32BE(key.processId ?? key.processID ?? 0, 8);
  b.writeInt32BE(key.secretKey, 12);
  sock.write(b);
  await closed;
}

/** Runs the `fdl` CLI to its end: exit code (0 on success), stdout and stderr, never a throw. */
export function runFdl(args: string[], timeoutMs = 300_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [CLI, ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : 1
        : 0;
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks
}
