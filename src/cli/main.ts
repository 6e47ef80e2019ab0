#!/usr/bin/env node
/**
 * `fdl` command line. `fdl serve` is a contract other scripts rely on: it prints exactly one line
 * `listening on HOST:PORT` on stdout when ready; everything else (logs) goes to stderr.
 */
import './threadpool.js'; // first: sizes libuv's thread pool before anything uses it
import './allocator-env.js'; // and DuckDB's allocator options, read when the binding loads
import { Command } from 'commander';
import pino from 'pino';
import { openLogging } from './logging.js';
import { trustCaFile } from '../store/tls-trust.js';
import { makeScramVerifier } from '../wire/auth.js';
import { buildServiceConfig, ConfigError, type ServeFlags } from './config.js';
import { heldOffUsers, servingRestarts } from '../service/supervisor.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

// The AWS SDK warns on every S3 command that its future releases need Node 22: nine lines of
// stderr an operator cannot act on here (package.json pins the SDK). Read when a client is made.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const program = new Command();
program
  .name('fdl')
  .description('fdl-gateway: query versioned FDL data lakes (frozen DuckLake catalogs) with PostgreSQL clients')
  .version('0.1.0');

program
  .command('serve')
  .description('serve FDL repositories over the PostgreSQL wire protocol')
  .option(
    '--repo <NAME=LOCATION>',
    'serve the repository at LOCATION (a folder, file://, s3://bucket/prefix/ or https://host/prefix/) as database NAME; repeatable',
    collect,
  )
  .option('--listen <HOST:PORT>', 'address to listen on (port 0 picks a free port; default 127.0.0.1:5433)')
  .option('--cache-dir <DIR>', 'directory for the gateway cache (downloaded files, DuckDB temp files)')
  .option(
    '--state-dir <DIR>',
    'directory for the tag ledger and the verification ledger (default <cache-dir>.state; never inside the cache dir)',
  )
  .option('--cache-max-bytes <N>', 'byte budget of the disk cache for files of remote repositories (default 10 GiB)')
  .option('--download-concurrency <N>', 'parallel downloads of remote data files (default 8)')
  .option(
    '--result-cache-bytes <N>',
    'memory for results of repeatable queries, served again without running them (default 64 MiB; 0 = off)',
  )
  .option('--s3-endpoint <URL>', 'S3 endpoint (MinIO, R2, s3rver); default from AWS_ENDPOINT_URL')
  .option('--s3-region <REGION>', 'S3 region; default from AWS_REGION')
  .option('--s3-force-path-style', 'path-style S3 addressing (also FDL_S3_FORCE_PATH_STYLE=1)')
  .option('--config <FILE>', 'JSON configuration file (repos, listen, cacheDir, limits); flags win over it')
  .option(
    '--signatures <NAME=POLICY>',
    'signature policy of a repository: require, prefer (default) or off; repeatable',
    collect,
  )
  .option(
    '--data-hashes <NAME=POLICY>',
    'data hash policy of a repository: require (every file a version reads has a sha256 in files.json) or prefer (default); repeatable',
    collect,
  )
  .option(
    '--allowed-signers <NAME=FILE>',
    'OpenSSH allowed_signers file holding the keys trusted for a repository; repeatable',
    collect,
  )
  .option('--max-connections <N>', 'maximum concurrent client connections (default 100)')
  .option('--ref-ttl <MS>', 'how long a resolved branch is trusted before it is revalidated (default 2000)')
  .option('--statement-timeout <MS>', 'default statement_timeout of every session in milliseconds (0 = none)')
  .option('--memory-limit <SIZE>', 'DuckDB memory limit, e.g. 4GB')
  .option('--threads <N>', 'DuckDB worker threads')
  .option('--tls-cert <FILE>', 'PEM certificate: answer SSLRequest and speak TLS')
  .option('--tls-key <FILE>', 'PEM private key for --tls-cert')
  .option('--tls <MODE>', 'required (refuse plaintext sessions) or optional (default)')
  .option(
    '--log-level <LEVEL>',
    'log level: fatal, error, warn, info (default), debug; logs go to stderr, readable lines on a terminal, JSON lines otherwise',
  )
  .option(
    '--ca-file <PEM>',
    'trust the CA certificates in this PEM file (with the bundled ones) for https:// repositories and S3 endpoints (also "caFile" in the config file, FDL_CA_FILE)',
  )
  .option(
    '--http <HOST:PORT>',
    'HTTP listener for /healthz, /readyz, /metrics (Prometheus) and the status page at / (off by default; port 0 picks a free port)',
  )
  .option(
    '--drain-timeout <MS>',
    'on SIGTERM, how long running statements may finish before they are cancelled (default 30000)',
  )
  .option(
    '--no-restart-on-crash',
    'run the serving process alone: if it dies, fdl serve ends (default: its sessions end and a new one serves)',
  )
  .option(
    '--proxy-protocol',
    'expect a PROXY protocol v1/v2 header (HAProxy send-proxy-v2) on every connection; refuse connections without one',
  )
  .addHelpText(
    'after',
    `
Connect with any PostgreSQL client; the database name picks repository and version:
  NAME            HEAD of repository NAME (refs/heads/main when HEAD is missing)
  NAME@REF        a branch, tag, request or version: demo@v1, demo@tags/v1, demo@heads/dev,
                  demo@requests/1, demo@<version id>
  @REF            the only served repository at REF

Signals: SIGTERM/SIGINT drain (new connections refused, running statements finish, idle sessions
end with 57P01, exit 0; if DuckDB cannot stop a statement, the process dies of the signal after
--drain-timeout + 2 s); SIGHUP re-reads --config (users, grants, limits, repositories).
If the serving process dies (a statement met the memory ceiling outside DuckDB), its sessions end
and a new one serves on the same addresses, as PostgreSQL after a backend crash.

Example:
  fdl serve --repo demo=./examples/demo
  psql "host=127.0.0.1 port=5433 dbname=demo@v1 user=me"`,
  )
  .action(async (opts: ServeFlags) => {
    let service;
    try {
      service = buildServiceConfig(opts);
    } catch (e) {
      if (e instanceof ConfigError) {
        process.stderr.write(`fdl serve: ${e.message}\n`);
        process.exit(2);
      }
      throw e;
    }
    // A flag given wins; else the config file; else info.
    if (!pino.levels.values[service.logLevel]) {
      process.stderr.write(
        `fdl serve: log level expects fatal, error, warn, info, debug or trace, got "${service.logLevel}"\n`,
      );
      process.exit(2);
    }
    if (service.caFile) {
      try {
        trustCaFile(service.caFile);
      } catch (e) {
        process.stderr.write(`fdl serve: ${(e as Error).message}\n`);
        process.exit(2);
      }
    }
    const { log, say, exit } = openLogging(service.logLevel);
    const restarts = servingRestarts();
    if (restarts === null && opts.restartOnCrash !== false) {
      const { superviseServe } = await import('../service/supervisor.js');
      return superviseServe(process.argv.slice(1), { log, exit });
    }
    service.gateway.heldOff = heldOffUsers();
    // Loaded here, not at the top: the publisher's commands never pay for the gateway's modules.
    const { runService } = await import('../service/run.js');
    await runService(service.gateway, {
      http: service.http,
      drainTimeoutMs: service.drainTimeoutMs,
      // Flags stay as given; the file is read again.
      reloadConfig: () => buildServiceConfig(opts).gateway,
      restarts: restarts ?? 0,
      log,
      say,
      exit,
    });
  });

program
  .command('hash-password')
  .description('read a password on stdin and print its SCRAM-SHA-256 verifier for the config file\'s "users"')
  .action(async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    const password = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (!password) {
      process.stderr.write('fdl hash-password: empty password on stdin\n');
      process.exit(2);
    }
    process.stdout.write(`${makeScramVerifier(password)}\n`);
  });

(await import('../host/cli.js')).registerHostCommands(program);
// Publisher commands trust FDL_CA_FILE too (serve reads it with its flag and config file).
program.hook('preAction', (_program, command) => {
  if (command.name() !== 'serve' && process.env.FDL_CA_FILE) trustCaFile(process.env.FDL_CA_FILE);
});
program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`fdl: ${(e as Error).message}\n`);
  process.exit(1);
});
