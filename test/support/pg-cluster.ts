/**
 * A private, throw-away PostgreSQL 15 cluster for differential tests and benchmarks.
 *
 *   const pg = await startPgCluster();          // initdb's data dir (a copy) + postgres on 127.0.0.1:<free port>
 *   ... connect to pg.host / pg.port / pg.socketDir as user 'postgres', database 'postgres' (trust) ...
 *   await pg.stop();                            // fast shutdown, then the temp dir is removed
 *
 * Works as root (CI): the data dir is chowned to the `postgres` OS user and the server processes are
 * spawned with that uid/gid (PostgreSQL refuses to run as root). Not root: runs as the current user.
 * The server is a direct child of this process (no pg_ctl daemon), and an exit/signal hook kills it,
 * so a crashed or interrupted test run does not leave a postmaster behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orAfter } from './files.js';

export interface PgClusterOptions {
  /** Directory holding initdb/postgres; default: $PG_BIN or /usr/lib/postgresql/15/bin. */
  binDir?: string;
  /** Extra `-c name=value` server settings (e.g. { TimeZone: 'UTC', max_connections: '200' }). */
  settings?: Record<string, string>;
  /** TCP port; default: a free port on 127.0.0.1 chosen at start. */
  port?: number;
  /** Give up waiting for readiness after this many ms (default 30 s). */
  startTimeoutMs?: number;
}

export interface PgCluster {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** Unix socket directory (socket file `.s.PGSQL.<port>` inside). */
  readonly socketDir: string;
  readonly dataDir: string;
  readonly user: 'postgres';
  readonly database: 'postgres';
  /** postgres://postgres@127.0.0.1:port/postgres */
  readonly url: string;
  /** Server log so far (stderr of the postmaster). */
  log(): string;
  /** Run SQL through psql (as the OS user owning the cluster); returns stdout. For setup/load. */
  psql(sql: string, extraArgs?: string[]): string;
  /** Fast shutdown (SIGINT), escalating to SIGQUIT/SIGKILL; removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
const roots = new Set<string>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGQUIT makes the postmaster exit immediately.
  process.on('exit', () => {
    for (const c of live)
      try {
        c.kill('SIGQUIT');
      } catch {
        /* already gone */
      }
    // The server may still hold files open; removing the tree is still fine on Linux.
    for (const r of roots)
      try {
        rmSync(r, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      for (const c of live)
        try {
          c.kill('SIGQUIT');
        } catch {
          /* already gone */
        }
      process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
    });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function lookupPostgresUser(): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('running as root but there is no `postgres` OS user to run the server as');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * `dataDir` as initdb leaves it, copied (`cp -a` keeps the server user's ownership and modes) from a
 * template initdb made once per PostgreSQL build in the temp folder: initdb is most of a cluster's
 * start. The template is made aside and renamed into place, so files starting clusters side by side
 * never copy half of one.
 */
function copyInitializedDataDir(
  binDir: string,
  dataDir: string,
  ids: { uid: number; gid: number } | undefined,
  env: NodeJS.ProcessEnv,
): void {
  const initdb = statSync(join(binDir, 'initdb'));
  const build = createHash('sha256').update(`${binDir} ${initdb.size} ${initdb.mtimeMs}`).digest('hex').slice(0, 16);
  const template = join(tmpdir(), `fdl-pg-initdb-${process.getuid?.() ?? 0}-${build}`);
  if (!existsSync(join(template, 'global', 'pg_control'))) {
    const aside = mkdtempSync(`${template}.making-`);
    try {
      if (ids) chownSync(aside, ids.uid, ids.gid);
      const init = spawnSync(
        join(binDir, 'initdb'),
        [
          '-D',
          join(aside, 'data'),
          '-U',
          'postgres',
          '-A',
          'trust',
          '-E',
          'UTF8',
          '--locale=C',
          '--no-sync',
          '--no-instructions',
        ],
        { ...(ids ?? {}), cwd: aside, env, encoding: 'utf8', timeout: 120_000 },
      );
      if (init.status !== 0)
        throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.error?.message}`);
      try {
        renameSync(join(aside, 'data'), template);
      } catch (e) {
        // Another test file made it first: use theirs.
        if (!['ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      }
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
  }
  const cp = spawnSync('cp', ['-a', template, dataDir], { encoding: 'utf8' });
  if (cp.status !== 0) throw new Error(`copying the initdb template failed: ${cp.stderr || cp.error?.message}`);
}

export async function startPgCluster(opts: PgClusterOptions = {}): Promise<PgCluster> {
  const binDir = opts.binDir ?? process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
  if (!existsSync(join(binDir, 'postgres'))) throw new Error(`no postgres binary in ${binDir}`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const ids = asRoot ? lookupPostgresUser() : undefined;
  const spawnIds = ids ? { uid: ids.uid, gid: ids.gid } : {};

  const root = mkdtempSync(join(tmpdir(), 'fdl-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'sock');
  mkdirSync(socketDir);
  if (ids) {
    chownSync(root, ids.uid, ids.gid);
    chownSync(socketDir, ids.uid, ids.gid);
  }
  roots.add(root);
  const cleanupDir = () => {
    rmSync(root, { recursive: true, force: true });
    roots.delete(root);
  };
  const env = { ...process.env, HOME: root, LC_ALL: 'C', LANG: 'C', PGTZ: undefined, TZ: undefined };

  try {
    copyInitializedDataDir(binDir, dataDir, ids, env);
  } catch (e) {
    cleanupDir();
    throw e;
  }
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: socketDir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    TimeZone: 'UTC',
    log_timezone: 'UTC',
    max_connections: '100',
    ...opts.settings,
  };
  // Written to the conf file so both postgres and anyone inspecting the dir see the same settings.
  writeFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    Object.entries(settings)
      .map(([k, v]) => `${k} = '${v.replace(/'/g, "''")}'\n`)
      .join(''),
  );
  if (ids) chownSync(join(dataDir, 'postgresql.auto.conf'), ids.uid, ids.gid);

  installExitHooks();
  const timeout = opts.startTimeoutMs ?? 30_000;
  let lastErr = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = opts.port ?? (await freePort());
    const child = spawn(join(binDir, 'postgres'), ['-D', dataDir, '-p', String(port)], {
      ...spawnIds,
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    let log = '';
    child.stdout!.on('data', (d) => {
      log += d;
    });
    child.stderr!.on('data', (d) => {
      log += d;
    });
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        live.delete(child);
        resolve();
      }),
    );
    const ready = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), timeout);
      const check = setInterval(() => {
        if (log.includes('ready to accept connections')) {
          clearTimeout(t);
          clearInterval(check);
          resolve(true);
        }
      }, 20);
      void exited.then(() => {
        clearTimeout(t);
        clearInterval(check);
        resolve(false);
      });
    });
    if (!ready) {
      lastErr = log;
      child.kill('SIGQUIT');
      await orAfter(exited, 5000, undefined);
      if (/could not bind|Address already in use/.test(log) && opts.port === undefined) continue;
      cleanupDir();
      throw new Error(`postgres did not start:\n${log}`);
    }
    let stopped: Promise<void> | undefined;
    const cluster: PgCluster = {
      host: '127.0.0.1',
      port,
      socketDir,
      dataDir,
      user: 'postgres',
      database: 'postgres',
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      log: () => log,
      psql(sql, extraArgs = []) {
        const r = spawnSync(
          join(binDir, 'psql'),
          [
            '-X',
            '-q',
            '-v',
            'ON_ERROR_STOP=1',
            '-h',
            socketDir,
            '-p',
            String(port),
            '-U',
            'postgres',
            '-d',
            'postgres',
            ...extraArgs,
          ],
          { ...spawnIds, cwd: root, env, input: sql, encoding: 'utf8', maxBuffer: 1 << 28 },
        );
        if (r.status !== 0) throw new Error(`psql failed: ${r.stderr || r.error?.message}`);
        return r.stdout;
      },
      stop() {
        stopped ??= (async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGINT'); // fast shutdown: abort sessions, no checkpoint wait beyond the shutdown one
            const t1 = await orAfter(
              exited.then(() => true),
              10_000,
              false,
            );
            if (!t1) {
              child.kill('SIGQUIT');
              const t2 = await orAfter(
                exited.then(() => true),
                5_000,
                false,
              );
              if (!t2) child.kill('SIGKILL');
              await exited;
            }
          }
          cleanupDir();
        })();
        return stopped;
      },
    };
    return cluster;
  }
  cleanupDir();
  throw new Error(`postgres did not start after retries:\n${lastErr}`);
}
