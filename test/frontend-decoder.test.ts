/**
 * The frontend codec (src/wire/frontend.ts) on its own: messages cut at any byte boundary decode
 * the same, fields are read within their own message only, text is strict UTF-8, and a repeated
 * statement text comes back as the same string without being decoded again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrontendDecoder } from '../src/wire/frontend.js';
import type { FrontendMessage } from '../src/wire/messages.js';

const cstr = (s: string | Buffer) => Buffer.concat([typeof s === 'string' ? Buffer.from(s) : s, Buffer.from([0])]);
const i16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const i32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
function msg(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(type), i32(body.length + 4), body]);
}
const parse = (name: string, sql: string | Buffer, types: number[] = []) =>
  msg('P', cstr(name), cstr(sql), i16(types.length), ...types.map(i32));
const bind = (params: (Buffer | null)[], resultFormats: number[] = []) =>
  msg(
    'B',
    cstr(''),
    cstr(''),
    i16(0),
    i16(params.length),
    ...params.flatMap((p) => (p === null ? [i32(-1)] : [i32(p.length), p])),
    i16(resultFormats.length),
    ...resultFormats.map(i16),
  );

function decodeAll(chunks: Buffer[]): FrontendMessage[] {
  const d = new FrontendDecoder(1 << 20);
  const out: FrontendMessage[] = [];
  for (const c of chunks) {
    d.push(c);
    for (let m = d.next(); m; m = d.next()) out.push(m);
  }
  assert.equal(d.pending, 0);
  return out;
}

const stream = Buffer.concat([
  parse('s1', 'SELECT $1::int + 1', [23]),
  bind([Buffer.from('41'), null], [1]),
  msg('D', Buffer.from('P'), cstr('')),
  msg('E', cstr(''), i32(0)),
  msg('S'),
  msg('Q', cstr("select 'é', '日本語', '🐘' -- a longer text than the short-ASCII path takes")),
  msg('C', Buffer.from('S'), cstr('s1')),
]);

test('messages cut at every byte boundary decode as the whole stream does', () => {
  const whole = decodeAll([stream]);
  assert.deepEqual(
    whole.map((m) => m.type),
    ['Parse', 'Bind', 'Describe', 'Execute', 'Sync', 'Query', 'Close'],
  );
  assert.deepEqual(whole[0], { type: 'Parse', name: 's1', sql: 'SELECT $1::int + 1', paramTypes: [23] });
  assert.deepEqual(whole[1], {
    type: 'Bind',
    portal: '',
    statement: '',
    paramFormats: [],
    params: [Buffer.from('41'), null],
    resultFormats: [1],
  });
  assert.deepEqual(whole[5], {
    type: 'Query',
    sql: "select 'é', '日本語', '🐘' -- a longer text than the short-ASCII path takes",
  });
  for (let cut = 1; cut < stream.length; cut++) {
    assert.deepEqual(decodeAll([stream.subarray(0, cut), stream.subarray(cut)]), whole, `cut at ${cut}`);
  }
  assert.deepEqual(decodeAll([...stream].map((b) => Buffer.from([b]))), whole);
});

test('a field never reads into the next message', () => {
  // The Parse body ends before its text's terminator; the next message has a NUL the reader must not reach.
  const body = Buffer.concat([cstr(''), Buffer.from('SELECT 1')]);
  const truncated = Buffer.concat([Buffer.from('P'), i32(body.length + 4), body]);
  const [bad, next] = decodeAll([Buffer.concat([truncated, msg('Q', cstr('SELECT 2'))])]);
  assert.equal(bad!.type, 'Invalid');
  assert.equal(bad!.type === 'Invalid' && bad.error.sqlstate, '08P01');
  assert.deepEqual(next, { type: 'Query', sql: 'SELECT 2' }); // the stream stays in step
  const short = msg('E', cstr('')); // Execute without its row count
  const [e] = decodeAll([short]);
  assert.equal(e!.type === 'Invalid' && e.error.message, 'message too short');
});

test('text is strict UTF-8: 22021 for invalid bytes, short or long, and the stream goes on', () => {
  for (const bytes of [
    Buffer.from([0x73, 0xc3, 0x28]),
    Buffer.concat([Buffer.from('select '.repeat(10)), Buffer.from([0xed, 0xa0, 0x80])]),
  ]) {
    const [bad, next] = decodeAll([Buffer.concat([parse('', bytes), msg('S')])]);
    assert.equal(bad!.type === 'Invalid' && bad.error.sqlstate, '22021');
    assert.equal(next!.type, 'Sync');
  }
});

test('a repeated statement text is the same string; other bytes of the same length are not', () => {
  const d = new FrontendDecoder(1 << 20);
  const texts = ['SELECT 1', 'SELECT 2', 'SELECT 1', 'SELECT é', 'SELECT 1'];
  const seen: string[] = [];
  for (const t of texts) {
    d.push(parse('', t));
    const m = d.next();
    assert.equal(m?.type, 'Parse');
    seen.push(m!.type === 'Parse' ? m.sql : '');
  }
  assert.deepEqual(seen, texts);
  assert.equal(seen[0], seen[2]);
  // Bind's parameters are copies: the received chunk may be reused or kept no longer than the message.
  const chunk = bind([Buffer.from('abc')]);
  d.push(chunk);
  const b = d.next();
  chunk.fill(0);
  assert.deepEqual(b!.type === 'Bind' && b.params, [Buffer.from('abc')]);
});

test('format codes other than 0 and 1 are refused as PostgreSQL does', () => {
  const [m] = decodeAll([bind([], [2])]);
  assert.equal(m!.type === 'Invalid' && m.error.sqlstate, '22023');
});

test('a large message taken from a chunk holding the start of the next does not keep that chunk alive', () => {
  const d = new FrontendDecoder(64 * 1024 * 1024);
  const body = Buffer.alloc(4 * 1024 * 1024, 0x41);
  const query = Buffer.concat([Buffer.from('Q'), Buffer.alloc(4), body, Buffer.from([0])]);
  query.writeInt32BE(query.length - 1, 1);
  // The whole Query and the first byte of a Sync arrive in one 4 MiB chunk; the client then idles.
  d.push(Buffer.concat([query, Buffer.from('S')]));
  const m = d.next();
  assert.equal(m?.type, 'Query');
  assert.equal(d.pending, 1);
  const held = (d as unknown as { chunks: Buffer[] }).chunks;
  assert.ok(
    held.every((c) => c.buffer.byteLength < 1024 * 1024),
    `the decoder still holds ${held.map((c) => c.buffer.byteLength)} bytes`,
  );
  d.push(Buffer.from([0, 0, 0, 4]));
  assert.equal(d.next()?.type, 'Sync');
});

test('parameter and format counts are unsigned, as PostgreSQL reads them: 65,535 parameters decode', () => {
  const n = 65535;
  // built without spreading 65,535 arguments (the helpers above would overflow the stack)
  const parseBody = Buffer.concat([
    cstr('big'),
    cstr('SELECT 1'),
    i16(n),
    Buffer.concat(Array.from({ length: n }, () => i32(23))),
  ]);
  const [p] = decodeAll([Buffer.concat([Buffer.from('P'), i32(parseBody.length + 4), parseBody])]);
  assert.equal(p?.type === 'Parse' && p.paramTypes.length, n);
  const values = Array.from({ length: n }, (_, i) => Buffer.from(String(i)));
  const bindBody = Buffer.concat([
    cstr(''),
    cstr(''),
    i16(0),
    i16(n),
    Buffer.concat(values.flatMap((v) => [i32(v.length), v])),
    i16(0),
  ]);
  const [b] = decodeAll([Buffer.concat([Buffer.from('B'), i32(bindBody.length + 4), bindBody])]);
  assert.equal(b?.type === 'Bind' && b.params.length, n);
  assert.deepEqual(b?.type === 'Bind' && b.params[n - 1], Buffer.from(String(n - 1)));
});
