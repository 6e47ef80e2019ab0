/** `fdl serve` run as an operator runs it (stdout's ready lines, stderr's JSON log) and asked over SQL and HTTP. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { CLI } from './gateway.js';

export interface Service {
  proc: ChildProcess;
  port: number;
  http: string | null;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Start `fdl serve` and wait for its ready lines (`listening on`, then `http on` when asked for). */
export async function serve(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { supervised?: boolean } = {},
): Promise<Service> {
  const wantHttp = args.includes('--http');
  // Alone unless asked: tests read the serving process's pid (CPU, memory, signals' effects).
  const alone = opts.supervised ? [] : ['--no-restart-on-crash'];
  const proc = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0', ...alone, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) =>
    proc.once('exit', (code, signal) => r(code ?? (signal ? -1 : null))),
  );
  const ready = await new Promise<{ port: number; http: string | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time; stderr:\n${err}`)), 60_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const l = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
      const h = /^http on (127\.0\.0\.1:\d+)$/m.exec(out);
      if (l && (!wantHttp || h)) {
        clearTimeout(timer);
        resolve({ port: Number(l[1]), http: h ? h[1]! : null });
      }
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before ready; stderr:\n${err}`)));
  });
  return { proc, ...ready, stdout: () => out, stderr: () => err, exited };
}

export async function client(s: Service, database: string, user = 'tester'): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: s.port, user, database });
  await c.connect();
  return c;
}

export async function connectError(
  s: Service,
  database: string,
  user = 'tester',
): Promise<{ code?: string; message: string }> {
  const c = new pg.Client({ host: '127.0.0.1', port: s.port, user, database });
  try {
    await c.connect();
  } catch (e) {
    return e as { code?: string; message: string };
  }
  await c.end();
  assert.fail(`connecting to ${database} as ${user} should fail`);
}

export async function get(
  base: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; type: string | null }> {
  const r = await fetch(`http://${base}${path}`, { method });
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') };
}

/** Value of an unlabelled or labelled sample in Prometheus text. */
export function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  assert.ok(line, `metric ${name}${labels} missing`);
  return Number(line.split(' ')[1]);
}

export const SLOW = 'select count(*) as n from range(10000000) t(i) where random() < 2';
