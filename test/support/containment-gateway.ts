/**
 * The fixture repository `basic` served by `fdl serve` with a statement timeout, as the containment
 * tests use it: logins that close with it, and a stop that kills (a refused statement still running
 * in DuckDB on the old code would hold a graceful one).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures } from './gateway.js';
import { serve, type Service } from './service.js';

export interface ContainmentGateway {
  readonly s: Service;
  /** The served copy of the repository (its refs may be moved). */
  readonly repoPath: string;
  /** A connected client of database `basic` (errors after the stop are ignored). */
  login(user: string): Promise<pg.Client>;
  stop(): Promise<void>;
}

export interface ContainmentOptions {
  statementTimeoutMs: number;
  /** Also serve /metrics and /readyz. */
  http?: boolean;
  /** Written as the config file (`--config`). */
  config?: object;
}

export async function containmentGateway(options: ContainmentOptions): Promise<ContainmentGateway> {
  const repos = copyFixtures('repos/basic');
  const args = ['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')];
  if (options.config) {
    const file = join(repos.dir, 'config.json');
    writeFileSync(file, JSON.stringify(options.config));
    args.push('--config', file);
  }
  args.push('--statement-timeout', String(options.statementTimeoutMs));
  if (options.http) args.push('--http', '127.0.0.1:0');
  let s: Service;
  try {
    s = await serve(args);
  } catch (e) {
    repos.cleanup();
    throw e;
  }
  const clients: pg.Client[] = [];
  return {
    s,
    repoPath: repos.path('repos/basic'),
    async login(user) {
      const c = new pg.Client({ host: '127.0.0.1', port: s.port, user, database: 'basic' });
      c.on('error', () => undefined);
      await c.connect();
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.connection.stream.destroy();
      s.proc.kill('SIGKILL');
      await s.exited;
      repos.cleanup();
    },
  };
}
