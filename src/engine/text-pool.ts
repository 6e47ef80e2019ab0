/**
 * One worker thread (text-thread.ts) for the work on long statement texts — analysis and the
 * PostgreSQL-grammar rewrite — started on first use and never keeping the process alive when idle.
 * Tasks queue on it one after another: a long text costs its own session time, not the event loop's.
 * Below OFF_THREAD_CHARS the same work stays on the loop (well under a millisecond; a thread hop
 * would cost more).
 *
 * The thread ends once the gateway is idle (no session open: idle-memory.ts), and the next long text
 * starts a new one: the PostgreSQL grammar's WebAssembly memory only ever grows (a 256 KiB text took
 * it ~100 MB up, for the life of the thread), and its parse-only DuckDB and memos go with it.
 */
import { Worker } from 'node:worker_threads';
import { SqlError } from '../errors.js';
import type { Analysis } from '../analysis/analysis.js';
import type { RewriteResult } from '../pg/rewrite.js';
import type { TextReply, TextTask } from './text-thread.js';
import { trimWhenIdle } from '../idle-memory.js';

/**
 * Longer texts are worked on off the loop: their DuckDB parse tree's JSON grows to megabytes, and
 * parsing and walking it here (plus the garbage it leaves) stalled other sessions for 100+ ms.
 */
export const OFF_THREAD_CHARS = 8 * 1024;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function start(): Worker {
  textThreadsStarted++;
  const w = new Worker(new URL('./text-thread.js', import.meta.url));
  w.on('message', (m: TextReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(m.sqlstate ? new SqlError(m.sqlstate, m.message, m.detail, m.hint) : new Error(m.message));
  });
  const fail = (e: unknown) => {
    // a thread ended when idle (below) had nothing pending; the tasks now pending are a newer thread's
    if (worker !== w) return;
    worker = null;
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new Error(`statement text work failed: ${(e as Error)?.message ?? e}`));
    }
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`its thread exited with code ${code}`)));
  w.unref();
  return w;
}

/** Threads started (tests: one ended when idle is started again on the next long text). */
export let textThreadsStarted = 0;

/** Whether the thread runs now (tests). */
export const textThreadRunning = () => worker !== null;

trimWhenIdle(() => {
  const w = worker;
  if (!w || pending.size > 0) return;
  worker = null;
  void w.terminate();
});

function post(op: TextTask['op'], sql: string): Promise<unknown> {
  worker ??= start();
  const id = nextId++;
  const w = worker;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, op, sql } satisfies TextTask);
  });
}

/** analysis.ts analyzeText, on the worker thread. */
export function analyzeOffThread(sql: string): Promise<Analysis> {
  return post('analyze', sql) as Promise<Analysis>;
}

/** rewrite.ts rewriteForDuckDBDetailed, on the worker thread. */
export function rewriteOffThread(sql: string): Promise<RewriteResult> {
  return post('rewrite', sql) as Promise<RewriteResult>;
}
