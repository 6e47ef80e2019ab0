/**
 * SIGINT/SIGTERM during a writing command become an error the command's own rollback handles, the
 * same path as any failure: the running DuckDB statement is interrupted (registered hooks), and the
 * next checkpoint (each journal entry, each step, before the branch moves) throws `Interrupted`.
 * The command line then exits 130 (SIGINT) or 143 (SIGTERM). A signal that arrives after the branch
 * moved finds nothing left to stop: the version stays published and the command ends normally.
 */
import { errorLine } from '../store/tls-trust.js';

export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }
}

let received: NodeJS.Signals | null = null;
const hooks = new Set<() => void>();

/** The signal this process received while a guarded command ran, if any. */
export function interruptedBy(): NodeJS.Signals | null {
  return received;
}

/** Throws once a signal has arrived: called before every write a rollback would have to undo. */
export function checkInterrupt(): void {
  if (received) throw new Interrupted(received);
}

/** Runs `stop` when a signal arrives (e.g. DuckDB's interrupt); the returned function unregisters it. */
export function onInterrupt(stop: () => void): () => void {
  if (received) stop();
  hooks.add(stop);
  return () => hooks.delete(stop);
}

/** The exit code of a command stopped by `signal`, as a shell reports it (128 + signal number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1;
}

/** How long the rollback after a signal may take before the process exits anyway. */
export const STOP_DEADLINE_MS = 10_000;

/**
 * Ends the process with `signal`'s exit code although some I/O may still be stuck (a dead network
 * peer, a hung file system): what the rollback did not reach is left for `fdl gc`.
 */
function exitNow(signal: NodeJS.Signals, why: string): never {
  process.stderr.write(`fdl: ${why}; exiting without finishing the clean-up (run fdl gc to remove what is left)\n`);
  process.exit(signalExitCode(signal));
}

/**
 * Runs a writing command with SIGINT and SIGTERM turned into a rollback instead of an abrupt exit.
 * The rollback is bounded: a second signal, or STOP_DEADLINE_MS after the first, ends the process.
 */
export async function guardSignals<T>(run: () => Promise<T>): Promise<T> {
  const handler = (signal: NodeJS.Signals) => {
    if (received) exitNow(received, `${signal} again`);
    received = signal;
    process.stderr.write(`fdl: ${signal}: stopping; removing what this run wrote (a second signal stops at once) …\n`);
    setTimeout(
      () => exitNow(signal, `the clean-up did not end within ${STOP_DEADLINE_MS / 1000} s`),
      STOP_DEADLINE_MS,
    ).unref();
    for (const stop of hooks) {
      try {
        stop();
      } catch {
        // a hook that cannot stop its work leaves it to the next checkpoint
      }
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    return await run();
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}

/**
 * A command's action: errors print one line (`fdl: …`) and exit 1, a number returned is the exit
 * code; a writing command runs under guardSignals and, stopped by a signal, says so and exits 130/143.
 */
export function commandAction<A extends unknown[]>(fn: (...a: A) => Promise<number | void>, writes = true) {
  return async (...a: A): Promise<void> => {
    try {
      const code = await (writes ? guardSignals(() => fn(...a)) : fn(...a));
      if (typeof code === 'number' && code !== 0) process.exitCode = code;
    } catch (e) {
      const signal = interruptedBy();
      if (signal) {
        process.stderr.write(`fdl: interrupted by ${signal}: stopped, and what this run had written was removed\n`);
        process.exitCode = signalExitCode(signal);
        return;
      }
      process.stderr.write(`fdl: ${errorLine(e)}\n`);
      process.exitCode = 1;
    }
  };
}
