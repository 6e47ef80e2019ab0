/**
 * One worker thread (text-thread.ts) for the work on long statement texts — analysis and the
 * PostgreSQL-grammar rewrite — started on first use and never keeping the process alive when idle.
 * Below OFF_THREAD_CHARS the same work stays on the loop (well under a millisecond; a thread hop
 * would cost more).
 *
 * Users take turns (serial.ts FairSlots): one task at a time on the worker, the next from the user
 * after the last one served. First in, first out let one user's eight big texts hold another's 9 KB
 * statement for 27.5 s (an attacker review). One task at a time also means a worker that dies (out
 * of its heap, resourceLimits below) fails only the task it was running; the next starts a new one.
 * A reply arrives as bytes and is deserialised here only within its ceiling (maxReplyBytes).
 *
 * A task has a time limit (TEXT_TASK_LIMIT_MS): past it the thread is ended — the only way to stop
 * synchronous WebAssembly or a JSON walk — the task is answered 54001 and the next task starts a new
 * thread, so no text holds the one slot every long statement of every user waits for.
 *
 * The thread ends once the gateway is idle (no session open: idle-memory.ts) — one that only took texts
 * up to KEEP_THREAD_MAX_CHARS some minutes later (below) — and the next long text starts a new one: the PostgreSQL grammar's WebAssembly memory only ever grows (a 256 KiB text took
 * it ~100 MB up, for the life of the thread), and its parse-only DuckDB and memos go with it.
 */
import { Worker } from 'node:worker_threads';
import { deserialize } from 'node:v8';
import { SqlError, SQLSTATE } from '../errors.js';
import { FairSlots } from '../serial.js';
import type { Analysis } from '../analysis/analysis.js';
import type { RewriteResult } from '../pg/rewrite.js';
import type { TextReply, TextTask } from './text-thread.js';
import { openSessions, trimWhenIdle } from '../idle-memory.js';

/**
 * Longer texts are worked on off the loop: their DuckDB parse tree's JSON grows to megabytes, and
 * parsing and walking it here (plus the garbage it leaves) stalled other sessions for 100+ ms.
 */
export const OFF_THREAD_CHARS = 8 * 1024;

/** The worker's JavaScript heap: a 256 KB text's analysis or rewrite needs about 25 MB of it. */
export const TEXT_WORKER_HEAP_MB = 512;

/**
 * The most bytes a reply may take, by its text's length: an analysis measured up to 68 bytes per
 * character (`select [1,1,…]`), a rewrite two bytes per character of at most 16× the text plus 64 KiB
 * (text/composed-ceiling.ts).
 */
export const maxReplyBytes = (chars: number): number => 128 * chars + 1024 * 1024;

/**
 * The longest one task may take. On the shared 2-core machine under a load of 15, the rewrite of a
 * 240 KiB catalog text took 3 s (test/text-pool.test.ts); the limit leaves room for a machine 10×
 * slower, and bounds how long one user's text can keep another's waiting for the thread.
 */
export const TEXT_TASK_LIMIT_MS = 30_000;
let taskLimitMs = TEXT_TASK_LIMIT_MS;

/** Tests: a shorter limit (the default again without an argument). */
export function setTextTaskLimit(ms = TEXT_TASK_LIMIT_MS): void {
  taskLimitMs = ms;
}

/** Tasks ended by the limit (tests). */
export let textTasksTimedOut = 0;

let worker: Worker | null = null;
/** The task on the worker now (one at a time). */
let current: { id: number; resolve(v: unknown): void; reject(e: Error): void } | null = null;
let nextId = 1;
const turns = new FairSlots(1);

function start(): Worker {
  textThreadsStarted++;
  const w = new Worker(new URL('./text-thread.js', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: TEXT_WORKER_HEAP_MB },
  });
  w.on('message', (m: TextReply) => {
    const task = current;
    if (!task || task.id !== m.id) return;
    current = null;
    w.unref();
    if (m.ok) task.resolve(m.value);
    else task.reject(m.sqlstate ? new SqlError(m.sqlstate, m.message, m.detail, m.hint) : new Error(m.message));
  });
  const fail = (e: unknown) => {
    // a thread ended when idle (below) had no task; a task now running is a newer thread's
    if (worker !== w) return;
    worker = null;
    const task = current;
    current = null;
    if (!task) return;
    const outOfMemory = (e as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    task.reject(
      outOfMemory
        ? new SqlError(
            SQLSTATE.statementTooComplex,
            `statement is too complex: working on its text needed more than the gateway's ${TEXT_WORKER_HEAP_MB} MB for it`,
            undefined,
            'Split it into smaller statements.',
          )
        : new Error(`statement text work failed: ${(e as Error)?.message ?? e}`),
    );
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

/**
 * A thread that has only worked on texts up to this long is kept through the gateway's idle moments,
 * for TEXT_THREAD_KEEP_MS: its grammar's memory stayed small, and starting a thread again (its
 * modules, the WebAssembly grammar: 0.6–2.6 s of CPU) fell on the first catalog statement of every
 * client that connects anew — SQLAlchemy 2's first `get_columns` took 2.0–2.9 s, 0.3 s with the thread
 * warm. A thread that took a longer text ends at idle as before, giving its memory back.
 */
export const KEEP_THREAD_MAX_CHARS = 4 * 1024;
export const TEXT_THREAD_KEEP_MS = 10 * 60_000;
/** The longest text the running thread has worked on. */
let longestText = 0;
let keepTimer: NodeJS.Timeout | undefined;

function endThread(): void {
  const w = worker;
  if (!w || current !== null) return;
  worker = null;
  void w.terminate();
}

trimWhenIdle(() => {
  clearTimeout(keepTimer);
  if (longestText > KEEP_THREAD_MAX_CHARS) return endThread();
  keepTimer = setTimeout(() => openSessions() === 0 && endThread(), TEXT_THREAD_KEEP_MS);
  keepTimer.unref();
});

/** One task on the worker, once it is this owner's turn; the reply deserialised within its ceiling. */
function post(op: TextTask['op'], sql: string, owner: string): Promise<unknown> {
  return turns.run(owner, async () => {
    const limit = maxReplyBytes(sql.length);
    let timer: NodeJS.Timeout | undefined;
    const bytes = await new Promise<unknown>((resolve, reject) => {
      if (!worker) longestText = 0;
      const w = (worker ??= start());
      longestText = Math.max(longestText, sql.length);
      const id = nextId++;
      current = { id, resolve, reject };
      w.ref();
      w.postMessage({ id, op, sql, maxReplyBytes: limit } satisfies TextTask);
      const ms = taskLimitMs;
      timer = setTimeout(() => {
        if (current?.id !== id || worker !== w) return;
        // Its exit is not a failure of a later task: the thread is no longer `worker` (start's fail).
        worker = null;
        current = null;
        textTasksTimedOut++;
        void w.terminate();
        reject(
          new SqlError(
            SQLSTATE.statementTooComplex,
            `statement is too complex: working on its text took longer than the gateway's limit of ${ms / 1000} s`,
            undefined,
            'Split it into smaller statements.',
          ),
        );
      }, ms);
    }).finally(() => clearTimeout(timer));
    const reply = bytes as ArrayBuffer;
    if (reply.byteLength > limit) throw new Error(`statement text work replied ${reply.byteLength} bytes`);
    return deserialize(new Uint8Array(reply));
  });
}

/** analysis.ts analyzeText, on the worker thread, in `owner`'s turn. */
export function analyzeOffThread(sql: string, owner: string): Promise<Analysis> {
  return post('analyze', sql, owner) as Promise<Analysis>;
}

/** rewrite.ts rewriteForDuckDBDetailed, on the worker thread, in `owner`'s turn. */
export function rewriteOffThread(sql: string, owner: string): Promise<RewriteResult> {
  return post('rewrite', sql, owner) as Promise<RewriteResult>;
}
