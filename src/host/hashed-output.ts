/**
 * Hashes the files DuckDB writes while it writes them, not by reading them back: COPY writes into
 * a folder of named pipes (`data_0.parquet`, `data_1.parquet`, … from FILENAME_PATTERN 'data_{i}'),
 * and worker threads read each pipe, hash the bytes and write them to the real file. DuckDB's
 * Parquet writer writes strictly in order (a pipe cannot seek; a writer that tried would fail the
 * COPY, never write a wrong file). DuckDB picks how many files it writes, so pipes are made a few
 * indexes ahead of the highest one DuckDB has opened; if it ever outruns that window it creates a
 * regular file, which is then hashed by one read (correct, only slower). Pipes left unused when the
 * COPY ends are released by opening and closing their write end.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { lstat, mkdir, rename } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { hashFile } from './repo.js';

export type PipeTask = { id: number; pipe: string; dest: string };
export type PipeReply =
  | { op: 'opened'; id: number }
  | { op: 'done'; id: number; size: number; sha256: string }
  | { op: 'failed'; id: number; message: string; code?: string };

/**
 * Writing a real file from its pipe failed (a full disk, a quota, an I/O error). DuckDB then only
 * sees its pipe closed ("Broken pipe"); this is the cause to report. `dest` is the file.
 */
export class OutputWriteError extends Error {
  constructor(
    readonly code: string | undefined,
    readonly dest: string,
    message: string,
  ) {
    super(message);
  }
}

/** Pipes kept ready beyond the highest index DuckDB has opened (it writes at most a few files at once). */
const WINDOW = 4;
/** The FILENAME_PATTERN the COPY must use, and the names it gives. */
export const PIPE_PATTERN = 'data_{i}';
const pipeName = (i: number) => `data_${i}.parquet`;

export interface HashedFile {
  /** The real file (in the output folder). */
  file: string;
  size: number;
  sha256: string;
  /** True when DuckDB outran the pipes and the file was hashed by reading it back. */
  readBack: boolean;
}

interface Task {
  index: number;
  opened: boolean;
  settled: Promise<{ size: number; sha256: string }>;
}

interface Slot {
  worker: Worker;
  busy: boolean;
}

interface Pending {
  index: number;
  dest: string;
  opened(): void;
  resolve(v: { size: number; sha256: string }): void;
  reject(e: Error): void;
}

const run = promisify(execFile);

/**
 * Worker threads shared by every output (starting one costs tens of milliseconds, a partitioned
 * import has many small COPYs); one more is started whenever every one is blocked on a pipe, so
 * each pipe always has a reader. Idle workers never keep the process alive.
 */
const slots: Slot[] = [];
const pending = new Map<number, Pending>();
let nextId = 1;

function dispatch(task: Omit<PipeTask, 'id'>, p: Pending): void {
  const id = nextId++;
  pending.set(id, p);
  const slot = slots.find((s) => !s.busy) ?? addSlot();
  slot.busy = true;
  slot.worker.ref();
  slot.worker.postMessage({ id, ...task } satisfies PipeTask);
}

function addSlot(): Slot {
  const worker = new Worker(new URL('./pipe-thread.js', import.meta.url));
  const slot: Slot = { worker, busy: false };
  const mine = new Set<number>();
  worker.on('message', (m: PipeReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    if (m.op === 'opened') {
      mine.add(m.id);
      return p.opened();
    }
    pending.delete(m.id);
    mine.delete(m.id);
    slot.busy = false;
    worker.unref();
    if (m.op === 'done') p.resolve({ size: m.size, sha256: m.sha256 });
    else p.reject(new OutputWriteError(m.code, p.dest, `writing ${p.dest}: ${m.message}`));
  });
  const fail = (e: unknown) => {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    for (const [id, p] of pending) {
      if (!mine.has(id)) continue;
      pending.delete(id);
      p.reject(new Error(`hashing output failed: ${(e as Error).message ?? e}`));
    }
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  worker.unref();
  slots.push(slot);
  return slot;
}

/** One COPY's output: pipes in `pipeDir`, real files in `outDir`. */
export class HashedOutput {
  private readonly tasks = new Map<number, Task>();
  private readonly fallbacks = new Set<number>();
  private highest = -1;
  private made: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private finishing = false;

  private constructor(
    readonly pipeDir: string,
    readonly outDir: string,
  ) {}

  static async open(pipeDir: string, outDir: string): Promise<HashedOutput> {
    await mkdir(pipeDir, { recursive: true });
    await mkdir(outDir, { recursive: true });
    const out = new HashedOutput(pipeDir, outDir);
    await out.extendTo(WINDOW - 1);
    return out;
  }

  /**
   * After the COPY: the real file, size and sha256 for each file DuckDB reported (by the name it
   * reported), once every pipe is drained and the unused ones released.
   */
  async finish(reported: string[]): Promise<Map<string, HashedFile>> {
    this.finishing = true;
    await this.made;
    await this.releaseUnused();
    const results = new Map<number, { size: number; sha256: string }>();
    let error: Error | null = this.failure;
    for (const [i, t] of this.tasks) {
      try {
        results.set(i, await t.settled);
      } catch (e) {
        error ??= e as Error;
      }
    }
    if (error) throw error;
    const out = new Map<string, HashedFile>();
    for (const name of reported) {
      const base = name.slice(name.lastIndexOf('/') + 1);
      const m = /^data_(\d+)\.parquet$/.exec(base);
      if (!m) throw new Error(`DuckDB wrote ${name}, not a name of the pattern ${PIPE_PATTERN}`);
      const i = Number(m[1]);
      const file = join(this.outDir, base);
      const piped = results.get(i);
      if (piped && piped.size > 0 && !this.fallbacks.has(i)) {
        out.set(name, { file, ...piped, readBack: false });
      } else {
        // DuckDB created it as a regular file before its pipe existed: hash it by reading it back.
        await rename(join(this.pipeDir, base), file);
        out.set(name, { file, ...(await hashFile(file)), readBack: true });
      }
    }
    return out;
  }

  /**
   * After a failed COPY: drains and stops; what was written stays in outDir for the caller to
   * remove. Returns the first failure to write a real file (the cause when DuckDB reports a broken pipe).
   */
  async abandon(): Promise<OutputWriteError | null> {
    this.finishing = true;
    await this.made.catch(() => undefined);
    await this.releaseUnused().catch(() => undefined);
    let cause: OutputWriteError | null = null;
    for (const t of this.tasks.values())
      await t.settled.catch((e) => {
        if (e instanceof OutputWriteError) cause ??= e;
      });
    return cause;
  }

  private extendTo(last: number): Promise<void> {
    this.made = this.made
      .then(async () => {
        const first = this.highest + 1;
        if (last < first) return;
        this.highest = last;
        const indexes = Array.from({ length: last - first + 1 }, (_, k) => first + k);
        const paths = indexes.map((i) => join(this.pipeDir, pipeName(i)));
        // one mkfifo for the batch; a name that already exists is a file DuckDB created first
        await run('mkfifo', ['-m', '600', ...paths]).catch(() => undefined);
        for (let k = 0; k < indexes.length; k++) {
          if ((await lstat(paths[k]!).catch(() => null))?.isFIFO()) this.start(indexes[k]!, paths[k]!);
          else this.fallbacks.add(indexes[k]!);
        }
      })
      .catch((e) => {
        this.failure ??= e as Error;
      });
    return this.made;
  }

  private start(index: number, pipe: string): void {
    let resolve!: (v: { size: number; sha256: string }) => void;
    let reject!: (e: Error) => void;
    const settled = new Promise<{ size: number; sha256: string }>((res, rej) => ((resolve = res), (reject = rej)));
    settled.catch(() => undefined);
    const task: Task = { index, opened: false, settled };
    this.tasks.set(index, task);
    const dest = join(this.outDir, pipeName(index));
    dispatch(
      { pipe, dest },
      {
        index,
        dest,
        resolve,
        reject,
        opened: () => {
          task.opened = true;
          // DuckDB opened this one: keep at least WINDOW - 1 pipes ready after it (made in batches)
          if (!this.finishing && index + WINDOW - 1 > this.highest) void this.extendTo(index + 2 * WINDOW - 1);
        },
      },
    );
  }

  /** Opens and closes the write end of every pipe DuckDB never opened: its reader sees an empty file. */
  private async releaseUnused(): Promise<void> {
    for (const t of this.tasks.values()) {
      let done = false;
      t.settled.then(
        () => (done = true),
        () => (done = true),
      );
      const pipe = join(this.pipeDir, pipeName(t.index));
      while (!t.opened && !done) {
        try {
          // Non-blocking: succeeds only once the worker waits on the read end (else ENXIO: try again).
          closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK));
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENXIO') throw e;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    }
  }
}
