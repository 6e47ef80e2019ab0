/**
 * Memory an idle gateway gives back (issue 23: after an ordinary user's 4 sessions of thousands of
 * distinct named statements had left, RSS stayed 617–895 MB against 183 MB at boot). Process-wide, as
 * stages.ts: the session connections (engine/session-connections.ts) count sessions in and out, and
 * the process-wide memos (the analysis, PostgreSQL parses and rewrites, bind verdicts, settings'
 * fingerprints) register how they shrink.
 *
 * What stays behind clients that left:
 * - the memos, full: each is bounded (up to 96 MiB estimated), together ~240 MiB that serve only the
 *   statements of sessions to come. Once no session is open for IDLE_MS, each is trimmed to its
 *   least recently used entries beyond IDLE_KEPT_BYTES (the most recent stay for the next client);
 * - the JavaScript heap's garbage: V8 collects only when JavaScript allocates again, so an idle
 *   process kept its heap pages (boot 190 MiB, 307 MiB after 4 × 150 named statements had left; a
 *   full collection gave back ~70 MiB). After the trim, or IDLE_MS after a session ended while
 *   others stay open and the heap grew HEAP_GROWTH_BYTES since the last collection, one full
 *   collection runs; with sessions open at most one per MIN_BUSY_INTERVAL_MS (it pauses the event
 *   loop ~50 ms).
 * DuckDB's own memory needs nothing here: a session's prepared statements are destroyed when it ends
 * (session-connections.ts) and its allocator purges in the background (engine/engine.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { dataHeadroom } from './engine/memory-ceiling.js';

/** Quiet after the last session ended before memos are trimmed and the heap collected. */
export const IDLE_MS = 1000;
/** What each memo keeps of its most recently used entries while no session is open (its own size estimate). */
export const IDLE_KEPT_BYTES = 4 * 1024 * 1024;
const MIN_BUSY_INTERVAL_MS = 10_000;
/** Room under the data limit a full collection needs (V8's young generation is up to 2 × 16 MiB and more). */
const COLLECTION_HEADROOM_BYTES = 512 * 1024 * 1024;
const HEAP_GROWTH_BYTES = 32 * 1024 * 1024;

/** A memo's way to shrink to at most `keepBytes` of its most recently used entries. */
export type Trim = (keepBytes: number) => void;

const trims: Trim[] = [];
let open = 0;
let timer: NodeJS.Timeout | null = null;
let lastBusyCollection = 0;
let heapAfterCollection = 0;
let collect: (() => void) | null = null;
/** Idle trims run (tests, status). */
export let idleTrims = 0;

/** One full garbage collection, now. */
export function fullCollection(): void {
  if (!collect) {
    // Node has no collection API without --expose-gc; the flag exposes `gc` to contexts made after it.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  heapAfterCollection = process.memoryUsage().heapUsed;
}

/** `trim` runs whenever the gateway has had no session open for IDLE_MS. */
export function trimWhenIdle(trim: Trim): void {
  trims.push(trim);
}

/**
 * A trim for an lru-cache with a `maxSize`: evicts least recently used entries until its size
 * estimate is at most `keepBytes`.
 */
export function lruTrim(cache: { readonly calculatedSize: number | undefined; pop(): unknown }): Trim {
  return (keepBytes) => {
    while ((cache.calculatedSize ?? 0) > keepBytes && cache.pop() !== undefined);
  };
}

export function sessionStarted(): void {
  open++;
}

export function sessionEnded(): void {
  open = Math.max(0, open - 1);
  arm(IDLE_MS);
}

/** Sessions open now (tests). */
export function openSessions(): number {
  return open;
}

/**
 * A full collection, unless the process is near its data limit (engine/memory-ceiling.ts): the
 * collection commits V8's young generation again, and an allocation refused there ends the process
 * ("Committing semi space failed" inside this call: attacker review, session 48, a client gone while
 * its statement's vector was still filling memory). Tried again later.
 */
function collectIfRoom(): void {
  if (dataHeadroom() < COLLECTION_HEADROOM_BYTES) return arm(IDLE_MS);
  fullCollection();
}

/** (Re)arm the idle work `ms` from now: each session that ends pushes it back. */
function arm(ms: number): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = null;
    if (open === 0) {
      idleTrims++;
      for (const trim of trims) trim(IDLE_KEPT_BYTES);
      collectIfRoom();
      return;
    }
    const wait = lastBusyCollection + MIN_BUSY_INTERVAL_MS - Date.now();
    if (wait > 0) return arm(wait);
    if (process.memoryUsage().heapTotal < heapAfterCollection + HEAP_GROWTH_BYTES) return;
    lastBusyCollection = Date.now();
    collectIfRoom();
  }, ms);
  timer.unref(); // never what keeps the process alive
}
