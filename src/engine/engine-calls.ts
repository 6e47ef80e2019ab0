/**
 * How many DuckDB calls of sessions run at once, process-wide and per user. The DuckDB binding runs
 * each call (a prepare, a query's start, each chunk fetched) as a task on libuv's thread pool (8
 * threads, cli/threadpool.ts), next to file system calls and SCRAM's key derivation; DuckDB checks
 * for an interrupt only between vectors, so a statement computing one huge vector cannot be stopped
 * and holds its thread until it ends, whatever its client was told. Four such statements of one user
 * took every thread and the whole gateway stopped answering. A call here waits for a slot of its user
 * (USER_ENGINE_CALLS) and of the process (ENGINE_CALL_SLOTS, shared with the prepares of engine.ts),
 * under its statement's clock; a slot is given back only when DuckDB's call has really returned.
 * A session's connection is reset for the next one only once its calls have returned
 * (`connectionCallsDone`): a call queued behind a running one would hold a second thread.
 *
 * A thread so held never comes back before DuckDB's vector ends, possibly hours later. A call still
 * running `stuckGraceMs` after its statement was stopped (timeout, cancel, client gone, drain) is
 * counted as stuck: while any is, the process is wedged (`engineCallLoad().stuck`: /readyz 503
 * with the reason, `fdl_engine_calls_stuck`), so a balancer routes new sessions elsewhere and a
 * supervisor can restart it once drained (docs/operations.md).
 *
 * One kind of held thread is released: DuckDB's open of a data file a store writer swapped for a
 * named pipe waits for the pipe's writer for ever. While any call has run `FIFO_CHECK_MS`, the
 * process's threads are looked at that often and such an open is released (fifo-opens.ts).
 */
import { Slots } from '../serial.js';
import { releaseFifoOpens } from './fifo-opens.js';

/** Threads of libuv's pool session DuckDB calls may hold at once: the rest are for everything else. */
export const ENGINE_CALL_SLOTS = 6;
/** Of those, how many one user's calls may hold by default (`maxEngineCallsPerUser`): one user's stuck statements leave the others room. */
export const USER_ENGINE_CALLS = 2;
/** How long a call may run on after its statement was stopped before it counts as stuck, by default. */
export const STUCK_CALL_GRACE_MS = 60_000;

/** How often, while a call has run this long, threads waiting in an open of a named pipe are looked for. */
export const FIFO_CHECK_MS = 500;

/** What a released open of a named pipe reports (logged by the gateway): the paths. */
export type FifoOpenReport = (paths: string[]) => void;

/** What a stuck call reports (logged by the gateway): its user and how long it has run. */
export type StuckCallReport = (e: { user: string; runningMs: number; stuck: number }) => void;

/** What the gateway's own stuck engine work (a version's open) reports: how long it has run, how many are stuck. */
export type StuckWorkReport = (e: { runningMs: number; stuck: number }) => void;

const settings = {
  perUser: USER_ENGINE_CALLS,
  stuckGraceMs: STUCK_CALL_GRACE_MS,
  report: (() => undefined) as StuckCallReport,
  fifoReport: (() => undefined) as FifoOpenReport,
  workReport: (() => undefined) as StuckWorkReport,
};

/**
 * The per-user share of the slots (1 … ENGINE_CALL_SLOTS; a user's new calls take it once none of
 * theirs runs), the grace after a stop, and where a stuck call is reported. Process-wide, as the slots.
 */
export function configureEngineCalls(c: {
  perUser?: number;
  stuckGraceMs?: number;
  report?: StuckCallReport;
  fifoReport?: FifoOpenReport;
  workReport?: StuckWorkReport;
}): void {
  if (c.perUser !== undefined) settings.perUser = Math.min(ENGINE_CALL_SLOTS, Math.max(1, c.perUser));
  if (c.stuckGraceMs !== undefined) settings.stuckGraceMs = c.stuckGraceMs;
  if (c.report) settings.report = c.report;
  if (c.fifoReport) settings.fifoReport = c.fifoReport;
  if (c.workReport) settings.workReport = c.workReport;
}

/** When each DuckDB call running now started (performance.now()). */
const callStarts = new Set<{ at: number }>();
let fifoWatch: NodeJS.Timeout | null = null;
let fifoChecking = false;

/** A DuckDB call starts: the returned function ends it. While one runs, the FIFO watch runs. */
function callStarted(): () => void {
  const call = { at: performance.now() };
  callStarts.add(call);
  if (!fifoWatch) {
    fifoWatch = setInterval(() => void watchFifoOpens(), FIFO_CHECK_MS);
    fifoWatch.unref();
  }
  return () => callStarts.delete(call);
}

/** The gateway's own engine work running past the grace now, and ever (watchedEngineWork). */
let workStuck = 0;
let workStuckTotal = 0;

/**
 * The gateway's own DuckDB work outside a session's statement (a version's open: its catalog read, its views
 * built, footers probed) watched as a call is: a named pipe a store writer swaps in under it is released
 * after FIFO_CHECK_MS as a statement's is (attacker review, session 53: an open waited on one for good).
 * One the release cannot reach (the pipe moved to another folder while DuckDB waits in its open) never returns:
 * once it has run `stuckGraceMs` (the ceilings bound an open to seconds) it counts as stuck — the process is
 * wedged, /readyz 503 — and `onStuck` lets its caller give back what others wait for.
 */
export async function watchedEngineWork<T>(work: () => Promise<T>, onStuck?: () => void): Promise<T> {
  const ended = callStarted();
  const started = performance.now();
  let stuck = false;
  const grace = setTimeout(() => {
    stuck = true;
    workStuck++;
    workStuckTotal++;
    settings.workReport({ runningMs: Math.round(performance.now() - started), stuck: workStuck });
    onStuck?.();
  }, settings.stuckGraceMs);
  grace.unref();
  try {
    return await work();
  } finally {
    clearTimeout(grace);
    if (stuck) workStuck--;
    ended();
  }
}

/** Releases opens of named pipes once a call has run FIFO_CHECK_MS; stops when no call runs. */
async function watchFifoOpens(): Promise<void> {
  if (callStarts.size === 0) {
    if (fifoWatch) clearInterval(fifoWatch);
    fifoWatch = null;
    return;
  }
  const now = performance.now();
  if (fifoChecking || ![...callStarts].some((c) => now - c.at >= FIFO_CHECK_MS)) return;
  fifoChecking = true;
  try {
    const paths = await releaseFifoOpens();
    if (paths.length) settings.fifoReport(paths);
  } finally {
    fifoChecking = false;
  }
}

const processSlots = new Slots(ENGINE_CALL_SLOTS);
const userSlots = new Map<string, { slots: Slots; users: number }>();
const running = new WeakMap<object, Promise<unknown>>();
let callsRunning = 0;
let callsWaiting = 0;
/** Calls running on past their statement's stop + grace now, and ever. */
let callsStuck = 0;
let callsStuckTotal = 0;

/** Races work with the running statement's stop (its StatementClock's `bound`). */
export type StatementBound = <W>(waiting: Promise<W>) => Promise<W>;

/**
 * A user's calls against the process' slots; `bound` races the wait with the statement's stop.
 * `acquire` takes the slots after the user's (by default the process'; a prepare's take its prepare slots too).
 */
export async function engineCall<T>(
  user: string,
  connection: object,
  work: () => Promise<T>,
  bound: StatementBound = (w) => w,
  acquire: () => Promise<() => void> = () => processSlots.acquire(),
): Promise<T> {
  const mine = userSlots.get(user) ?? { slots: new Slots(settings.perUser), users: 0 };
  userSlots.set(user, mine);
  mine.users++;
  callsWaiting++;
  const granted = mine.slots.acquire().then(async (releaseUser) => {
    try {
      return [releaseUser, await acquire()] as const;
    } catch (e) {
      releaseUser();
      throw e;
    }
  });
  let releases: readonly [() => void, () => void];
  try {
    releases = await bound(granted);
  } catch (e) {
    // The statement stopped while waiting: the slots, once granted, go straight back.
    void granted.then(([u, p]) => (p(), u(), done(user, mine)));
    throw e;
  } finally {
    callsWaiting--;
  }
  callsRunning++;
  const callEnded = callStarted();
  let call: Promise<T>;
  try {
    call = work();
  } catch (e) {
    call = Promise.reject(e);
  }
  running.set(connection, call);
  const started = performance.now();
  let settled = false;
  let grace: NodeJS.Timeout | null = null;
  let stuck = false;
  const ended = () => {
    settled = true;
    if (grace) clearTimeout(grace);
    if (stuck) callsStuck--;
    callsRunning--;
    callEnded();
    releases[1]();
    releases[0]();
    done(user, mine);
    if (running.get(connection) === call) running.delete(connection);
  };
  call.then(ended, ended);
  // The statement's stop (bound rejects) while DuckDB's call runs on starts the grace.
  bound(call).catch(() => {
    if (settled) return;
    grace = setTimeout(() => {
      if (settled) return;
      stuck = true;
      callsStuck++;
      callsStuckTotal++;
      settings.report({ user, runningMs: Math.round(performance.now() - started), stuck: callsStuck });
    }, settings.stuckGraceMs);
    grace.unref();
  });
  return call;
}

/** Whether a call runs on `connection` now. */
export function callRunningOn(connection: object): boolean {
  return running.has(connection);
}

function done(user: string, mine: { slots: Slots; users: number }): void {
  if (--mine.users === 0 && userSlots.get(user) === mine) userSlots.delete(user);
}

/** Whose calls a session's connection runs, and its statement clock: set by its session (wire/session.ts). */
const owners = new WeakMap<object, { user: string; bound: StatementBound }>();

/** The calls made on `connection` (its prepares too) are `user`'s, raced with `bound`, from now on. */
export function ownEngineCalls(connection: object, user: string, bound: StatementBound): void {
  owners.set(connection, { user, bound });
}

/**
 * A prepare (engine.ts) on `connection`, in the slots `acquire` takes, then the process'. On a
 * session's connection it is one of its user's calls, as engineCall's: in the user's share (a user's
 * uninterruptible prepares took every prepare slot, and every other user's statements and logins
 * waited) and counted stuck when it runs on past its statement's stop. Otherwise (a connection
 * being set up) only the slots.
 */
export async function enginePrepare<T>(
  connection: object | undefined,
  work: () => Promise<T>,
  acquire: () => Promise<() => void>,
): Promise<T> {
  const owner = connection && owners.get(connection);
  if (!owner) {
    const release = await acquire();
    try {
      return await inEngineSlot(work);
    } finally {
      release();
    }
  }
  return engineCall(owner.user, connection, work, owner.bound, async () => {
    const release = await acquire();
    try {
      const releaseProcess = await processSlots.acquire();
      return () => (releaseProcess(), release());
    } catch (e) {
      release();
      throw e;
    }
  });
}

/** Runs `work` in a slot of the process (the prepares of engine.ts share the budget). */
export function inEngineSlot<T>(work: () => Promise<T>): Promise<T> {
  return processSlots.run(async () => {
    callsRunning++;
    const callEnded = callStarted();
    try {
      return await work();
    } finally {
      callsRunning--;
      callEnded();
    }
  });
}

/** Resolves once the last call started on `connection` has returned (failed or not). */
export async function connectionCallsDone(connection: object): Promise<void> {
  for (let call = running.get(connection); call; call = running.get(connection)) {
    await call.catch(() => undefined);
    if (running.get(connection) === call) running.delete(connection);
  }
}

/**
 * Session calls running, waiting for a slot and stuck now, the process' slots, and the gateway's own engine work
 * (versions' opens) stuck now and ever (status, /readyz, metrics).
 */
export function engineCallLoad(): {
  running: number;
  waiting: number;
  slots: number;
  saturated: boolean;
  stuck: number;
  stuckTotal: number;
  stuckGraceMs: number;
  stuckOpens: number;
  stuckOpensTotal: number;
} {
  return {
    running: callsRunning,
    waiting: callsWaiting,
    slots: ENGINE_CALL_SLOTS,
    saturated: callsRunning >= ENGINE_CALL_SLOTS,
    stuck: callsStuck,
    stuckTotal: callsStuckTotal,
    stuckGraceMs: settings.stuckGraceMs,
    stuckOpens: workStuck,
    stuckOpensTotal: workStuckTotal,
  };
}
