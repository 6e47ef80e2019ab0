/**
 * A real `fdl serve` with its HTTP endpoint, and the work it counts per kind (fdl_statement_work_total in
 * /metrics, src/stages.ts): the tests asserting how often a statement is analysed, prepared, checked.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './gateway.js';

export interface Served {
  proc: ChildProcess;
  port: number;
  /** host:port of /metrics. */
  http: string;
  stderr(): string;
}

/** `fdl serve` on free ports (wire and HTTP) with `args`, ready once both are listening. */
export function serveWithMetrics(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const proc = spawn(
    process.execPath,
    [CLI, 'serve', '--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--no-restart-on-crash', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time; stderr:\n${err}`)), 60_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const l = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
      const h = /^http on (127\.0\.0\.1:\d+)$/m.exec(out);
      if (l && h) {
        clearTimeout(timer);
        resolve({ proc, port: Number(l[1]), http: h[1]!, stderr: () => err });
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code} before ready; stderr:\n${err}`)));
  });
}

/** The counts of `kinds` so far. */
export async function workCounts<K extends string>(s: Served, kinds: readonly K[]): Promise<Record<K, number>> {
  const text = await (await fetch(`http://${s.http}/metrics`)).text();
  const out = {} as Record<K, number>;
  for (const w of kinds) {
    const m = new RegExp(`^fdl_statement_work_total\\{work="${w}"\\} (\\d+)$`, 'm').exec(text);
    assert.ok(m, `fdl_statement_work_total{work="${w}"} is in /metrics`);
    out[w] = Number(m[1]);
  }
  return out;
}
