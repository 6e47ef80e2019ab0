/**
 * Where `fdl serve`'s log lines go. On a terminal: pino-pretty, one readable line per event,
 * written synchronously (a person is reading, not a collector). Otherwise: JSON lines, batched in
 * memory in front of pino's asynchronous destination (line-batch.ts) and flushed every 100 ms and
 * on the way out. `say` writes a plain line in order with the log lines (the psql hint).
 */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { LineBatch } from './line-batch.js';

export interface ServeLogging {
  log: Logger;
  /** A plain line for a person, after every log line written so far. */
  say(line: string): void;
  /**
   * Flush what is buffered (for at most 2 s), then end the process: with `code`, or, given
   * `signal`, by that signal's default action (see endProcess).
   */
  exit(code: number, signal?: NodeJS.Signals): void;
}

/**
 * End the process now. process.exit joins libuv's thread pool, where DuckDB runs a statement: one
 * that DuckDB cannot interrupt (a constant folded while it prepares) holds the exit until it ends,
 * minutes on end. Dying of the signal that asked for the stop (its handler removed, so the kernel
 * applies the default action) joins nothing, and a supervisor reads it as the stop it asked for.
 */
export function endProcess(code: number, signal?: NodeJS.Signals): void {
  if (!signal) process.exit(code);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}

const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'svc', 'event', 'msg']);

/** `statement user=me database=sales ms=2.9 sqlstate=00000`: the event, then its fields as key=value. */
function readableLine(line: Record<string, unknown>): string {
  const fields = Object.entries(line)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`);
  return [line.event ?? line.msg ?? '', ...fields].join(' ');
}

export function openLogging(level: string, terminal = process.stderr.isTTY === true): ServeLogging {
  const base = { svc: 'fdl-gateway' };
  if (terminal) {
    const stream = pretty({
      destination: 2,
      sync: true,
      colorize: true,
      hideObject: true,
      ignore: 'pid,hostname',
      translateTime: 'SYS:HH:MM:ss.l',
      messageFormat: readableLine,
    });
    return {
      log: pino({ level, base }, stream),
      say: (line) => process.stderr.write(line + '\n'),
      exit: endProcess,
    };
  }
  // Audit lines are written in batches (one per statement would be a write(2) per query on the
  // hot path) and at least every 100 ms, and synchronously on the way out.
  const logDest = pino.destination({ dest: 2, sync: false, minLength: 8 * 1024 });
  const lines = new LineBatch(logDest);
  // An idle gateway writes nothing: pino's destination writes an empty buffer when flushed with none.
  setInterval(() => {
    lines.drain();
    if (lines.handedOver()) logDest.flush();
  }, 100).unref();
  // On the way out every audit line must reach stderr: wait for the write in flight and the
  // buffer behind it (a synchronous flush would throw while a write is in flight and lose them),
  // for at most 2 s.
  let exiting = false;
  const exit = (code: number, signal?: NodeJS.Signals): void => {
    if (exiting) return;
    exiting = true;
    lines.drain();
    const done = () => {
      lines.drain();
      try {
        logDest.flushSync();
      } catch {
        /* still busy after the grace period: what is left is lost with the process */
      }
      endProcess(code, signal);
    };
    setTimeout(done, 2000).unref();
    try {
      logDest.flush(() => done());
    } catch {
      done();
    }
  };
  return {
    log: pino({ level, base }, lines),
    say: (line) => {
      lines.write(line + '\n');
      lines.drain();
    },
    exit,
  };
}
