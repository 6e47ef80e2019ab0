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
 */
import { Slots } from '../serial.js';

/** Threads of libuv's pool session DuckDB calls may hold at once: the rest are for everything else. */
export const ENGINE_CALL_SLOTS = 6;
/** Of those, how many one user's calls may hold: one user's stuck statements leave the others room. */
export const USER_ENGINE_CALLS = 2;

const processSlots = new Slots(ENGINE_CALL_SLOTS);
const userSlots = new Map<string, { slots: Slots; users: number }>();
const running = new WeakMap<object, Promise<unknown>>();
let callsRunning = 0;
let callsWaiting = 0;

/** A user's calls against the process' slots; `bound` races the wait with the statement's stop. */
export async function engineCall<T>(
  user: string,
  connection: object,
  work: () => Promise<T>,
  bound: <W>(waiting: Promise<W>) => Promise<W> = (w) => w,
): Promise<T> {
  const mine = userSlots.get(user) ?? { slots: new Slots(USER_ENGINE_CALLS), users: 0 };
  userSlots.set(user, mine);
  mine.users++;
  callsWaiting++;
  const granted = mine.slots.acquire().then(async (releaseUser) => {
    try {
      return [releaseUser, await processSlots.acquire()] as const;
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
  let call: Promise<T>;
  try {
    call = work();
  } catch (e) {
    call = Promise.reject(e);
  }
  running.set(connection, call);
  const ended = () => {
    callsRunning--;
    releases[1]();
    releases[0]();
    done(user, mine);
    if (running.get(connection) === call) running.delete(connection);
  };
  call.then(ended, ended);
  return call;
}

function done(user: string, mine: { slots: Slots; users: number }): void {
  if (--mine.users === 0 && userSlots.get(user) === mine) userSlots.delete(user);
}

/** Runs `work` in a slot of the process (the prepares of engine.ts share the budget). */
export function inEngineSlot<T>(work: () => Promise<T>): Promise<T> {
  return processSlots.run(async () => {
    callsRunning++;
    try {
      return await work();
    } finally {
      callsRunning--;
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

/** Session calls running and waiting for a slot now, and the process' slots (status, /readyz). */
export function engineCallLoad(): { running: number; waiting: number; slots: number; saturated: boolean } {
  return {
    running: callsRunning,
    waiting: callsWaiting,
    slots: ENGINE_CALL_SLOTS,
    saturated: callsRunning >= ENGINE_CALL_SLOTS,
  };
}
