/**
 * Memory returns when the client leaves. Two kinds stay behind a session that closed:
 *
 * - Native memory V8 does not see. The DuckDB binding frees a result's chunks only when their
 *   JavaScript wrappers are collected; with a small JavaScript heap V8 may not collect for a long
 *   time, so a client that left in the middle of a huge result kept ~950 MiB resident. When a session
 *   closes and the process holds much more than its JavaScript heap, one full collection (at most one
 *   per second) frees those wrappers; DuckDB's allocator then gives the pages back (engine/engine.ts).
 * - The JavaScript heap's own garbage. Planning thousands of distinct statements (their DuckDB
 *   parses, analyses, PostgreSQL parse trees) grows the heap by tens of MiB per thousand, most of it
 *   garbage once memos evicted it or its session ended; V8 collects only when JavaScript allocates
 *   again, so an idle gateway kept it resident for good (boot 191 MiB, 307 MiB after 4 sessions × 150
 *   named statements had left; a full collection gave back ~90 MiB of heap pages). Once no session has
 *   closed for IDLE_MS and the heap has grown HEAP_GROWTH_BYTES past what the last such collection
 *   left, one full collection runs (at most one per MIN_IDLE_INTERVAL_MS: a busy gateway's own
 *   collections make most of them unneeded, and a full collection pauses the event loop ~50 ms).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Native memory above the JavaScript heap that makes a closing session ask for a collection. */
const NATIVE_SLACK_BYTES = 256 * 1024 * 1024;
const MIN_INTERVAL_MS = 1000;
/** Quiet after the last session closed before the heap's garbage is collected. */
export const IDLE_MS = 1000;
const MIN_IDLE_INTERVAL_MS = 10_000;
/** Heap grown past what the last idle collection left that is worth a collection. */
const HEAP_GROWTH_BYTES = 32 * 1024 * 1024;

let collect: (() => void) | null = null;
let last = 0;
let idleTimer: NodeJS.Timeout | null = null;
let lastIdle = 0;
/** The heap in use just after the last idle collection (the process's start: none yet). */
let heapAfterIdle = 0;

function collector(): () => void {
  if (!collect) {
    // Node has no collection API without --expose-gc; the flag exposes `gc` to contexts made after it.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

/**
 * A session closed: collect once if native memory (DuckDB results) is far above the JavaScript
 * heap, and arm the idle collection of the heap's garbage.
 */
export function releaseNativeMemory(): void {
  collectWhenIdle(IDLE_MS);
  const now = Date.now();
  if (now - last < MIN_INTERVAL_MS) return;
  const { rss, heapTotal } = process.memoryUsage();
  if (rss - heapTotal < NATIVE_SLACK_BYTES) return;
  last = now;
  // After the close has finished unwinding, off the closing statement's own path.
  setImmediate(() => collector()());
}

/** (Re)arm the idle collection `ms` from now: each closing session pushes it back. */
function collectWhenIdle(ms: number): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    const wait = lastIdle + MIN_IDLE_INTERVAL_MS - Date.now();
    if (wait > 0) return collectWhenIdle(wait);
    if (process.memoryUsage().heapTotal < heapAfterIdle + HEAP_GROWTH_BYTES) return;
    lastIdle = Date.now();
    collector()();
    heapAfterIdle = process.memoryUsage().heapUsed;
  }, ms);
  idleTimer.unref(); // never what keeps the process alive
}
