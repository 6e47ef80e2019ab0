/**
 * `fdl serve` as a long-running service: the HTTP listener (health, readiness, metrics, status
 * page), the gateway, and the signals a supervisor sends — SIGTERM/SIGINT drain and exit 0,
 * SIGHUP re-reads the configuration.
 */
import type { Logger } from 'pino';
import { Gateway, type GatewayConfig } from '../gateway.js';
import { ServiceHttp, type Readiness } from './http.js';
import { Metrics } from './metrics.js';
import { gatherStatus } from './status.js';
import { renderStatusPage } from './status-page.js';
import { armWatchdog } from './watchdog.js';
import { psqlHint } from './psql-hint.js';
import { SQLSTATE } from '../errors.js';
import { Slots } from '../serial.js';
import { engineCallLoad } from '../engine/engine-calls.js';
import { reportToSupervisor } from './supervisor.js';

export interface ServiceOptions {
  /** HOST:PORT of the HTTP listener, or null for none. */
  http: { host: string; port: number } | null;
  drainTimeoutMs: number;
  /** Builds the configuration again from the same flags and file (SIGHUP). */
  reloadConfig(): GatewayConfig;
  /** Times the supervisor started a serving process again after one died (service/supervisor.ts). */
  restarts?: number;
  log: Logger;
  /** A plain line for the person who started the service, in order with the log lines. */
  say?(line: string): void;
  /** Flush logs, then end the process (asynchronously): with `code`, or by `signal`'s default action. */
  exit(code: number, signal?: NodeJS.Signals): void;
}

/**
 * Beyond the drain timeout: time for cancelled statements to answer and for DuckDB to hand back
 * their connections (server.ts drain), then the main-thread fallback, then the watchdog.
 */
const CANCEL_GRACE_MS = 2_000;
const FORCE_EXIT_MS = 5_000;

const hostPort = (a: { host: string; port: number }) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;

export async function runService(config: GatewayConfig, opts: ServiceOptions): Promise<void> {
  const { log } = opts;
  const metrics = new Metrics();
  metrics.restarts.set(opts.restarts ?? 0);
  let readiness: Readiness = 'starting';
  let gateway: Gateway | null = null;
  let http: ServiceHttp | null = null;
  // Handlers before anything starts: a supervisor may signal at any moment.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    readiness = 'draining';
    log.info({ event: 'shutdown', signal, drainTimeoutMs: opts.drainTimeoutMs });
    // Whatever happens below, the process ends: first a main-thread timer, then one in a child
    // process in case the main thread is blocked (even inside process.exit).
    const deadline = opts.drainTimeoutMs + CANCEL_GRACE_MS + FORCE_EXIT_MS;
    setTimeout(() => {
      log.warn({ event: 'shutdown_forced', afterMs: deadline });
      opts.exit(0, signal);
    }, deadline).unref();
    armWatchdog(deadline + FORCE_EXIT_MS);
    if (!gateway) return opts.exit(0); // still starting: nothing to drain
    let engineBusy = false;
    gateway
      .drain(opts.drainTimeoutMs)
      // A call whose session is gone (its client left) may still be running in DuckDB: busy too.
      .then((released) => (engineBusy = !released || engineCallLoad().running > 0))
      .catch((e: Error) => log.warn({ event: 'drain_error', err: e.message }))
      .then(() => http?.close())
      .finally(() => {
        // Every session has been told (57P01). A statement DuckDB cannot interrupt would hold
        // process.exit until it ends (logging.ts endProcess): die of the signal instead.
        if (engineBusy) log.warn({ event: 'stopped', engine: 'busy', exit: signal });
        else log.info({ event: 'stopped' });
        opts.exit(0, engineBusy ? signal : undefined);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Under the supervisor: if it is gone (killed), nothing would start another; drain and end.
  if (process.channel) {
    process.channel.unref();
    process.on('disconnect', () => stop('SIGTERM'));
  }

  const reloads = new Slots(1); // one reload at a time, in the order the signals came
  process.on('SIGHUP', () => {
    void reloads.run(async () => {
      if (stopping || !gateway) return;
      const gw = gateway;
      let next: GatewayConfig;
      try {
        next = opts.reloadConfig();
        const r = await gw.reload(next);
        metrics.reloads.inc({ outcome: 'ok' });
        log.info({
          event: 'reload',
          added: r.added,
          removed: r.removed,
          ...(r.ignored.length ? { needs_restart: r.ignored } : {}),
        });
      } catch (e) {
        metrics.reloads.inc({ outcome: 'error' });
        log.error(
          { event: 'reload_rejected', err: (e as Error).message },
          'configuration not reloaded; the previous one stays in force',
        );
      }
    });
  });

  const listening = opts.http
    ? await ServiceHttp.listen(opts.http.host, opts.http.port, {
        readiness: () => readiness,
        engineLoad: engineCallLoad,
        metrics: () => metrics.text(),
        statusPage: async () =>
          gateway
            ? renderStatusPage(await gatherStatus(gateway, readiness))
            : '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>fdl-gateway status</title></head><body><h1>fdl-gateway</h1><p id="state">starting</p></body></html>',
        log,
      }).catch((e: Error) => {
        process.stderr.write(`fdl serve: cannot listen for HTTP on ${hostPort(opts.http!)}: ${e.message}\n`);
        return 'failed' as const;
      })
    : null;
  if (listening === 'failed') return opts.exit(1);
  http = listening;

  try {
    gateway = await Gateway.start(config, log, {
      opened: () => metrics.connections.inc(),
      closed: () => metrics.connections.dec(),
      refused: (reason) => metrics.refused.inc({ reason }),
      statement: (e) =>
        metrics.statement(String(e.sqlstate ?? SQLSTATE.internalError), typeof e.ms === 'number' ? e.ms : undefined),
      startup: (sqlstate) => {
        metrics.connectionsTotal.inc({ outcome: sqlstate === SQLSTATE.successfulCompletion ? 'ok' : 'error' });
        // Wrong password or unknown user only (28000 also means a refused signature or plaintext).
        if (sqlstate === SQLSTATE.invalidPassword) metrics.refused.inc({ reason: 'auth_failed' });
      },
      versionFailure: (sqlstate) => metrics.versionFailure(sqlstate),
      // Should the process die now, the supervisor knows whose statement it was likely to be.
      memoryStopped: (user) => reportToSupervisor({ memoryStopped: user }),
    });
  } catch (e) {
    process.stderr.write(`fdl serve: cannot start: ${(e as Error).message}\n`);
    return opts.exit(1);
  }
  // SIGTERM while starting: the process is already on its way out.
  if (stopping) return;
  const gw = gateway;
  metrics.observeCaches({
    files: () => gw.caches().files,
    results: () => gw.caches().results,
    versions: () => gw.caches().versions.attached,
  });

  process.stdout.write(`listening on ${hostPort(gw.address)}\n`);
  if (http) process.stdout.write(`http on ${hostPort(http.address)}\n`);
  // the addresses a restarted serving process binds again (service/supervisor.ts)
  reportToSupervisor({ listening: hostPort(gw.address), ...(http ? { http: hostPort(http.address) } : {}) });
  readiness = 'ready';
  // A restarted process's start was announced by the first one.
  if (opts.restarts) return;
  // Last of the start-up output, after every start-up log line.
  const hint = psqlHint(config, gw.address);
  if (opts.say) opts.say(hint);
  else process.stderr.write(hint + '\n');
}
