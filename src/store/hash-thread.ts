/**
 * Worker body for offloaded sha256 (see offloaded-hash.ts): keeps one hash per stream id, hashes the
 * buffers it is handed in order and hands each back (transferred, so nothing is copied either way).
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { HashReply, HashRequest } from './offloaded-hash.js';

const port = parentPort!;
const streams = new Map<number, Hash>();
const reply = (m: HashReply, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

port.on('message', (m: HashRequest) => {
  switch (m.op) {
    case 'start':
      streams.set(m.id, createHash('sha256'));
      return;
    case 'data':
      streams.get(m.id)?.update(new Uint8Array(m.buf, 0, m.len));
      return reply({ op: 'back', id: m.id, buf: m.buf }, [m.buf]);
    case 'end': {
      const hex = streams.get(m.id)?.digest('hex') ?? '';
      streams.delete(m.id);
      return reply({ op: 'digest', id: m.id, hex });
    }
    case 'drop':
      streams.delete(m.id);
      return;
  }
});
