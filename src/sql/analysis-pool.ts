/**
 * One worker thread (analysis-thread.ts) for the analysis of long statement texts, started on first
 * use and never keeping the process alive when idle. Tasks queue on it one after another: a long
 * text costs its own session time, not the event loop's.
 */
import { Worker } from 'node:worker_threads';
import { SqlError } from '../errors.js';
import type { Analysis } from './analysis.js';
import type { AnalysisReply, AnalysisTask } from './analysis-thread.js';

interface Pending {
  resolve(a: Analysis): void;
  reject(e: Error): void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function start(): Worker {
  const w = new Worker(new URL('./analysis-thread.js', import.meta.url));
  w.on('message', (m: AnalysisReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) w.unref();
    if (m.ok) p.resolve(m.analysis as Analysis);
    else p.reject(m.sqlstate ? new SqlError(m.sqlstate, m.message, m.detail, m.hint) : new Error(m.message));
  });
  const fail = (e: unknown) => {
    if (worker === w) worker = null;
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new Error(`statement analysis failed: ${(e as Error)?.message ?? e}`));
    }
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`its thread exited with code ${code}`)));
  w.unref();
  return w;
}

/** The analysis of `sql` (see analysis.ts analyzeText), computed on the worker thread. */
export function analyzeOffThread(sql: string): Promise<Analysis> {
  worker ??= start();
  const id = nextId++;
  const w = worker;
  return new Promise<Analysis>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, sql } satisfies AnalysisTask);
  });
}
