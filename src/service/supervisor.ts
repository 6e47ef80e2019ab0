/**
 * `fdl serve` keeps a serving process running, as PostgreSQL's postmaster does: when the process
 * that holds DuckDB and the sessions dies, its sessions end with it and a new one serves on the
 * same addresses. Why it can die: DuckDB computes 2,048 rows in one step and the values it builds
 * there are outside its memory_limit; the process's data limit (engine/memory-ceiling.ts) turns such
 * an overrun into 53200 when DuckDB's own allocation is the one that fails, but the one that meets
 * the line may be V8 committing its young generation or a native allocation with no handler, and
 * either ends the process (docs/security.md › Known limits). The supervisor holds no DuckDB, no
 * client socket and no data limit, so nothing a statement does reaches it.
 *
 * The contract of `fdl serve` stays: one `listening on` line (and `http on`) on stdout, once; the
 * signals (SIGTERM/SIGINT drain, SIGHUP reload) are passed on, and the service ends as the
 * serving process ends when a stop was asked for (with its code, or dying of its signal).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';

/** Set in the serving process's environment: how many times it was started again (0 first). */
export const SERVING_ENV = 'FDL_SERVE_RESTARTS';
/** And the users it refuses until a time: `{"user": epochMs}` (GatewayConfig.heldOff). */
export const HELD_OFF_ENV = 'FDL_SERVE_HELD_OFF';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;
/** A serving process that lived this long restarts its backoff at FIRST_DELAY_MS. */
const STABLE_MS = 60_000;
/**
 * A death this soon after the memory watchdog stopped a user's statement is that user's: the vector
 * DuckDB could not stop went on to the data limit (the watchdog stops between vectors only). Of the
 * users stopped within it, the first: the watchdog stops the longest-running user's statements first
 * and others only while memory stays over its line, which the first one's vector may be causing.
 */
const BLAME_MS = 30_000;
/** How long the blamed user's sessions are refused, doubling with each death blamed on them. */
const HOLD_OFF_MS = 60_000;
const MAX_HOLD_OFF_MS = 3_600_000;

/** What a serving process tells its supervisor (over the IPC channel). */
export type ServingReport =
  /** The memory watchdog stopped a statement of this user. */
  | { memoryStopped: string }
  /** It serves at these addresses (HOST:PORT), its ready lines written. */
  | { listening: string; http?: string };

export interface SupervisorOptions {
  log: Logger;
  /** Flush logs, then end the process: with `code`, or by `signal`'s default action. */
  exit(code: number, signal?: NodeJS.Signals): void;
}

/** Restarts so far, in a serving process; null when this process is not one. */
export function servingRestarts(env: NodeJS.ProcessEnv = process.env): number | null {
  const v = env[SERVING_ENV];
  return v === undefined ? null : Number(v) || 0;
}

/** The users a serving process refuses, and until when (its supervisor's HELD_OFF_ENV). */
export function heldOffUsers(env: NodeJS.ProcessEnv = process.env): Map<string, number> {
  const held = new Map<string, number>();
  try {
    for (const [user, until] of Object.entries(JSON.parse(env[HELD_OFF_ENV] ?? '{}') as Record<string, unknown>)) {
      if (typeof until === 'number') held.set(user, until);
    }
  } catch {
    // not ours: nobody is held off
  }
  return held;
}

/** In a serving process: tell the supervisor, if there is one. */
export function reportToSupervisor(report: ServingReport): void {
  if (!process.connected) return;
  try {
    process.send?.(report);
  } catch {
    // the supervisor is gone: the serving process drains on 'disconnect'
  }
}

/** Run `argv` (this command line: script, `serve`, flags) as the serving process, again whenever it dies. */
export function superviseServe(argv: string[], opts: SupervisorOptions): void {
  const { log } = opts;
  let restarts = 0;
  let delay = FIRST_DELAY_MS;
  let stopSignal: NodeJS.Signals | null = null;
  let child: ChildProcess | null = null;
  let restartTimer: NodeJS.Timeout | null = null;
  // The first serving process's addresses: a restart binds the same ones (port 0 picked one).
  let pinned: string[] = [];
  let served = false;
  let stops: { user: string; at: number }[] = [];
  const strikes = new Map<string, number>();
  const heldOff = new Map<string, number>();

  const end = (code: number | null, signal: NodeJS.Signals | null) => {
    if (signal) {
      process.removeAllListeners(signal);
      return opts.exit(0, signal);
    }
    opts.exit(code ?? 1);
  };

  const start = () => {
    restartTimer = null;
    const startedAt = Date.now();
    const first = !served;
    const now = Date.now();
    const held = Object.fromEntries([...heldOff].filter(([, until]) => until > now));
    // The first one writes the ready lines itself, in order with its log lines (a terminal shows the hint
    // last); a restarted one's would repeat them.
    const c = spawn(process.execPath, [...process.execArgv, ...argv, ...pinned], {
      stdio: ['ignore', first ? 'inherit' : 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, [SERVING_ENV]: String(restarts), [HELD_OFF_ENV]: JSON.stringify(held) },
    });
    child = c;
    c.on('message', (report: ServingReport) => {
      const m = report as Partial<{ memoryStopped: string; listening: string; http: string }>;
      if (typeof m?.listening === 'string') {
        served = true;
        pinned = ['--listen', m.listening, ...(typeof m.http === 'string' ? ['--http', m.http] : [])];
        return;
      }
      if (typeof m?.memoryStopped !== 'string') return;
      const at = Date.now();
      stops = [...stops.filter((x) => x.at >= at - BLAME_MS), { user: m.memoryStopped, at }];
    });
    c.on('exit', (code, signal) => {
      child = null;
      if (stopSignal || !served) return end(code, signal);
      // Ended on its own with success: signalled directly, and drained.
      if (code === 0) return end(0, null);
      restarts++;
      const now = Date.now();
      if (now - startedAt >= STABLE_MS) delay = FIRST_DELAY_MS;
      const blamed = stops.find((x) => x.at >= now - BLAME_MS)?.user ?? null;
      stops = [];
      let heldOffUntil: string | undefined;
      if (blamed !== null) {
        const n = (strikes.get(blamed) ?? 0) + 1;
        strikes.set(blamed, n);
        const until = now + Math.min(HOLD_OFF_MS * 2 ** (n - 1), MAX_HOLD_OFF_MS);
        heldOff.set(blamed, until);
        heldOffUntil = new Date(until).toISOString();
      }
      log.error(
        {
          event: 'serving_process_died',
          pid: c.pid,
          code,
          signal,
          restarts,
          restartInMs: delay,
          ...(blamed !== null ? { user: blamed, heldOffUntil } : {}),
        },
        blamed !== null
          ? `the serving process died and its sessions ended; a new one starts on the same addresses, refusing ${blamed}'s sessions until ${heldOffUntil}: the memory watchdog had just stopped their statement`
          : 'the serving process died and its sessions ended; a new one starts on the same addresses',
      );
      restartTimer = setTimeout(start, delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    });
  };

  const stop = (signal: NodeJS.Signals) => {
    stopSignal ??= signal;
    if (child) child.kill(signal);
    else if (restartTimer) {
      clearTimeout(restartTimer);
      end(0, null);
    }
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => child?.kill('SIGHUP'));
  start();
}
