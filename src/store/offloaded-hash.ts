/**
 * sha256 on another thread, so hashing a download does not serialize with receiving and writing it
 * on the main thread. A small shared pool of workers (started on first use, kept while streams are
 * open, never keeping the process alive when idle); each stream sticks to one worker, so its buffers
 * are hashed in order. Buffers are transferred, not copied: the caller hands over a batch it has
 * finished writing and gets the same memory back to refill, which also bounds memory per stream.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TransientError } from './retry.js';

export type HashRequest =
  | { op: 'start'; id: number }
  | { op: 'data'; id: number; buf: ArrayBuffer; len: number }
  | { op: 'end'; id: number }
  | { op: 'drop'; id: number };
export type HashReply = { op: 'back'; id: number; buf: ArrayBuffer } | { op: 'digest'; id: number; hex: string };

export interface OffloadedHash {
  /** Hashes buf[0, len); `buf` is unusable until the promise gives it back. */
  update(buf: ArrayBuffer, len: number): Promise<ArrayBuffer>;
  /** The hex digest of everything updated, in order. */
  digest(): Promise<string>;
  /** Forgets the stream (after a failed transfer); pending promises are left to be dropped. */
  drop(): void;
}

interface Waiting {
  resolve: (v: never) => void;
  reject: (e: unknown) => void;
}
interface StreamState {
  backs: Waiting[];
  digest?: Waiting;
}
interface Slot {
  worker: Worker;
  streams: Map<number, StreamState>;
}

const POOL_SIZE = Math.max(1, Math.min(4, availableParallelism() - 1));
const slots: Slot[] = [];
let nextId = 1;

function startSlot(): Slot {
  const worker = new Worker(new URL('./hash-thread.js', import.meta.url));
  const slot: Slot = { worker, streams: new Map() };
  worker.unref();
  worker.on('message', (m: HashReply) => {
    const s = slot.streams.get(m.id);
    if (!s) return;
    if (m.op === 'back') (s.backs.shift()?.resolve as ((b: ArrayBuffer) => void) | undefined)?.(m.buf);
    else {
      slot.streams.delete(m.id);
      if (slot.streams.size === 0) worker.unref();
      (s.digest?.resolve as ((h: string) => void) | undefined)?.(m.hex);
    }
  });
  const fail = (e: unknown) => {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    const err = new TransientError('hash worker failed', e);
    for (const s of slot.streams.values()) for (const w of [...s.backs, ...(s.digest ? [s.digest] : [])]) w.reject(err);
    slot.streams.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  return slot;
}

/** The least busy worker, starting another while the pool is not full. */
function pick(): Slot {
  const idle = slots.find((s) => s.streams.size === 0);
  if (idle) return idle;
  if (slots.length < POOL_SIZE) {
    const s = startSlot();
    slots.push(s);
    return s;
  }
  return slots.reduce((a, b) => (b.streams.size < a.streams.size ? b : a));
}

export function offloadedSha256(): OffloadedHash {
  const slot = pick();
  const id = nextId++;
  const state: StreamState = { backs: [] };
  slot.streams.set(id, state);
  slot.worker.ref(); // an open stream must keep the process alive until its digest arrives
  const send = (m: HashRequest, transfer: ArrayBuffer[] = []) => slot.worker.postMessage(m, transfer);
  send({ op: 'start', id });
  const gone = () => !slot.streams.has(id);
  return {
    update(buf, len) {
      if (gone()) return Promise.reject(new TransientError('hash worker failed'));
      return new Promise<ArrayBuffer>((resolve, reject) => {
        state.backs.push({ resolve: resolve as (v: never) => void, reject });
        send({ op: 'data', id, buf, len }, [buf]);
      });
    },
    digest() {
      if (gone()) return Promise.reject(new TransientError('hash worker failed'));
      return new Promise<string>((resolve, reject) => {
        state.digest = { resolve: resolve as (v: never) => void, reject };
        send({ op: 'end', id });
      });
    },
    drop() {
      if (gone()) return;
      slot.streams.delete(id);
      if (slot.streams.size === 0) slot.worker.unref();
      send({ op: 'drop', id });
    },
  };
}
