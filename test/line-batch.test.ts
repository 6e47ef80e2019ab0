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
