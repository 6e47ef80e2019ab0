/**
 * A gateway child process for the statement benches: `fdl serve` (any build's CLI) over one repository
 * on free ports, the result cache off unless asked, resolved once both its pg and http lines are out.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Served {
  proc: ChildProcess;
  port: number;
  http: string;
}

export function serveForBench(opts: {
  cli: string;
  repo: string;
  cacheDir: string;
  /** Extra `serve` arguments (e.g. the result cache's size, a connection limit). */
  args?: string[];
  /** Node's own arguments before the CLI (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}): Promise<Served> {
  const proc = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      opts.cli,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--http',
      '127.0.0.1:0',
      '--repo',
      `basic=${opts.repo}`,
      '--cache-dir',
      opts.cacheDir,
      '--log-level',
      'warn',
      // the serving process itself, not a supervisor over it: the benches read its CPU from /proc/<pid>
      '--no-restart-on-crash',
      ...(opts.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const l = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
      const h = /^http on (127\.0\.0\.1:\d+)$/m.exec(out);
      if (l && h) resolve({ proc, port: Number(l[1]), http: h[1]! });
    });
    proc.once('exit', (c) => reject(new Error(`gateway exited with ${c}`)));
  });
}
