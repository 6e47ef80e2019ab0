import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineBatch } from '../src/cli/line-batch.js';

test('log lines reach the destination in order, in batches, and all of them on drain', () => {
  const written: string[] = [];
  const batch = new LineBatch({ write: (chunk) => (written.push(chunk), true) }, 100);
  const lines = Array.from({ length: 25 }, (_, i) => `{"n":${i}}\n`);
  for (const l of lines) batch.write(l);
  // batches of at least 100 characters were handed over as they filled; the rest waits for drain
  assert.ok(written.length >= 2 && written.length < lines.length, `${written.length} writes`);
  assert.ok(written.every((w) => w.length >= 100));
  const before = written.join('');
  assert.ok(lines.join('').startsWith(before));
  batch.drain();
  assert.equal(written.join(''), lines.join(''));
  batch.drain(); // nothing left: no empty write
  assert.equal(written.join(''), lines.join(''));
  assert.ok(written.every((w) => w.length > 0));
});

test('the batch says whether anything went to the destination since it was last asked', () => {
  const written: string[] = [];
  const batch = new LineBatch({ write: (chunk) => (written.push(chunk), true) }, 100);
  assert.equal(batch.handedOver(), false);
  batch.drain(); // nothing gathered: nothing handed over, so nothing to flush
  assert.equal(batch.handedOver(), false);
  batch.write('{"n":1}\n');
  assert.equal(batch.handedOver(), false); // gathered, not yet handed over
  batch.drain();
  assert.equal(batch.handedOver(), true);
  assert.equal(batch.handedOver(), false);
  batch.write('x'.repeat(150) + '\n'); // past the batch size: handed over at once
  assert.equal(batch.handedOver(), true);
  assert.deepEqual(written, ['{"n":1}\n', 'x'.repeat(150) + '\n']);
});
