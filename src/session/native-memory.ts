/**
 * Memory returns when the client leaves. The DuckDB binding frees a result's chunks (native memory
 * V8 does not see) only when their JavaScript wrappers are collected; with a small JavaScript heap
 * V8 may not collect for a long time, so a client that left in the middle of a huge result kept
 * ~950 MiB resident. When a session closes and the process holds much more than its JavaScript heap,
 * one full collection (at most one per second) frees those wrappers; DuckDB's allocator then gives
 * the pages back (engine/engine.ts). The heap's own garbage and the memos are idle-memory.ts's.
 */
import { fullCollection } from '../idle-memory.js';

/** Native memory above the JavaScript heap that makes a closing session ask for a collection. */
const NATIVE_SLACK_BYTES = 256 * 1024 * 1024;
const MIN_INTERVAL_MS = 1000;

let last = 0;

/** A session closed: collect once if native memory (DuckDB results) is far above the JavaScript heap. */
export function releaseNativeMemory(): void {
  const now = Date.now();
  if (now - last < MIN_INTERVAL_MS) return;
  const { rss, heapTotal } = process.memoryUsage();
  if (rss - heapTotal < NATIVE_SLACK_BYTES) return;
  last = now;
  // After the close has finished unwinding, off the closing statement's own path.
  setImmediate(fullCollection);
}
