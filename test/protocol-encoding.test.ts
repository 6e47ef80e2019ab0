/**
 * Bytes PostgreSQL 15 refuses, refused the same way (issue 23, F5), over raw sockets against the
 * gateway and a real PostgreSQL 15 side by side: a Query whose text has a NUL inside it is
 * 08P01 "invalid message format" followed by ReadyForQuery (PostgreSQL reads the string to the NUL,
 * then finds bytes left over) — DuckDB never runs the text before the NUL; a Bind parameter that is
 * not valid UTF-8, or holds a NUL, is 22021 "invalid byte sequence for encoding "UTF8": 0x..",
 * answered at Bind (after ParseComplete, no BindComplete) — never run with U+FFFD in its place.
 * Both sessions go on, and nothing of the refused message ran.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';

const msg = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const i16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const i32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const z = (s: string) => Buffer.from(s + '\0', 'utf8');
const sync = msg('S', Buffer.alloc(0));

/** Parse (unnamed, `oids` declared), Bind of one parameter in `format`, Execute, Sync. */
function extended(sql: string, oids: number[], format: number, value: Buffer): Buffer {
  return Buffer.concat([
    msg('P', Buffer.concat([z(''), z(sql), i16(oids.length), ...oids.map(i32)])),
    msg('B', Buffer.concat([z(''), z(''), i16(1), i16(format), i16(1), i32(value.length), value, i16(0)])),
    msg('E', Buffer.concat([z(''), i32(0)])),
    sync,
  ]);
}

describe('bytes PostgreSQL 15 refuses: NUL in a Query, invalid UTF-8 in Bind', () => {
  let gw: RunningGateway;
  let pg: PgCluster;

  before(async () => {
    [gw, pg] = await Promise.all([serveBasic(), startPgCluster()]);
  });
  after(() => Promise.all([gw?.stop(), pg?.stop()]));

  /** The messages' types and, for an error, its SQLSTATE and text — then the session's next answer. */
  const exchange = async (target: 'gateway' | 'pg', bytes: Buffer) => {
    const c =
      target === 'gateway'
        ? await RawPg.connect({ port: gw.port, host: gw.host, user: 'ann', database: 'basic' })
        : await RawPg.connect({ port: pg.port, host: pg.host, user: 'postgres', database: 'postgres' });
    try {
      c.send(bytes);
      const r = await c.untilReady();
      const seen = r.messages.map((m) =>
        m.code === 'E'
          ? `E ${(m.parsed as unknown as { code: string }).code} ${(m.parsed as unknown as { message: string }).message}`
          : m.code,
      );
      const after = await c.simple('SELECT 40 + 2');
      return { seen, rows: r.dataRows.length, after: after.dataRows.map((d) => d.subarray(-2).toString()) };
    } finally {
      await c.close();
    }
  };

  test('each answered as PostgreSQL 15 answers it, and the session goes on', async () => {
    const cases: [string, Buffer][] = [
      ['NUL inside a Query', msg('Q', Buffer.from('SELECT 1\0SELECT 2\0'))],
      ['NUL ending a comment', msg('Q', Buffer.from('SELECT 1 --\0; SELECT 2\0'))],
      ['invalid UTF-8, text format', extended('SELECT $1::text', [], 0, Buffer.from('a\xffb', 'latin1'))],
      ['invalid UTF-8, an int4 parameter', extended('SELECT $1', [23], 0, Buffer.from('1\xff', 'latin1'))],
      ['NUL inside a text parameter', extended('SELECT $1::text', [], 0, Buffer.from('a\0b', 'latin1'))],
      ['a truncated sequence', extended('SELECT $1::text', [], 0, Buffer.from([0x61, 0xc3]))],
      ['invalid UTF-8, binary text', extended('SELECT $1::text', [25], 1, Buffer.from('a\xffb', 'latin1'))],
    ];
    for (const [what, bytes] of cases) {
      const [ours, theirs] = await Promise.all([exchange('gateway', bytes), exchange('pg', bytes)]);
      assert.deepEqual(ours, theirs, what);
      assert.equal(ours.rows, 0, `${what}: nothing ran`);
      assert.ok(
        ours.seen.some((s) => /^E (08P01|22021) /.test(s)),
        `${what}: ${ours.seen.join(' | ')}`,
      );
      assert.deepEqual(ours.after, ['42'], what);
    }
  });

  test('a fastpath FunctionCall and a Query that is not UTF-8 are refused, then ReadyForQuery, as PostgreSQL 15 does', async () => {
    const cases: [string, Buffer, RegExp][] = [
      // PostgreSQL: 42883 (no function of that OID); the gateway has no fastpath at all: 0A000
      ['FunctionCall', msg('F', Buffer.concat([i32(1247), i16(0), i16(0), i16(0)])), /^E (0A000|42883) /],
      [
        'invalid UTF-8 in a Query',
        msg('Q', Buffer.from("SELECT '\xff'\0", 'latin1')),
        /^E 22021 invalid byte sequence for encoding "UTF8"/,
      ],
    ];
    for (const [what, bytes, error] of cases) {
      const [ours, theirs] = await Promise.all([exchange('gateway', bytes), exchange('pg', bytes)]);
      for (const side of [ours, theirs]) {
        assert.equal(side.seen.length, 2, `${what}: ${side.seen.join(' | ')}`);
        assert.match(side.seen[0]!, error, what);
        assert.equal(side.seen[1], 'Z', what);
        assert.deepEqual(side.after, ['42'], what);
      }
    }
  });
});
