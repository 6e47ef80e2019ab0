/**
 * Silent differences and small holes left by the reviews (issues 25 and 23, session 57), each compared with
 * PostgreSQL 15 beside the gateway: the same answer in text and binary, or PostgreSQL's own error
 * (SQLSTATE and words), after which the session goes on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'pg-protocol';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { splitDataRow, type QueryResult, type RawPg } from './support/raw-pg.js';

let twins: PgTwins | undefined;
const conns: { pg?: RawPg; gw?: RawPg } = {};

before(
  async () => {
    twins = await startPgTwins({ settings: { TimeZone: 'UTC' }, params: { TimeZone: 'UTC' } });
    Object.assign(conns, twins.conns);
  },
  { timeout: 120_000 },
);
after(
  async () => {
    await twins?.stop();
  },
  { timeout: 30_000 },
);

const answer = (r: QueryResult, binary = false) =>
  r.error
    ? { error: r.error.code, message: r.error.message }
    : {
        columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]),
        rows: r.dataRows.map((d) =>
          splitDataRow(d).map((v) => (v === null ? null : binary ? v.toString('hex') : v.toString('utf8'))),
        ),
      };

/** Each statement as PostgreSQL 15 answers it, in text and binary; `refused`: PostgreSQL's error, and the session goes on. */
async function sameAsPostgres(sqls: readonly string[], refused: boolean): Promise<void> {
  for (const sql of sqls)
    for (const binary of [false, true]) {
      const opts = binary ? { resultFormats: [1] } : {};
      const pg = answer(await conns.pg!.query(sql, opts), binary);
      assert.equal(
        'error' in pg,
        refused,
        `PostgreSQL ${refused ? 'refuses' : 'answers'} ${sql}: ${JSON.stringify(pg)}`,
      );
      assert.deepEqual(answer(await conns.gw!.query(sql, opts), binary), pg, `${sql}${binary ? ' (binary)' : ''}`);
      if (refused) assert.deepEqual(answer(await conns.gw!.query('select 1 as x')).rows, [['1']]);
    }
}

/** Parse with declared types, Describe the statement: its parameter and column types, or the error. */
async function described(c: RawPg, sql: string, types: number[]) {
  c.send(Buffer.concat([serialize.parse({ text: sql, types }), serialize.describe({ type: 'S' }), serialize.sync()]));
  const r = await c.untilReady();
  if (r.error) return { error: r.error.code, message: r.error.message };
  const params = r.messages.find((m) => m.code === 't')?.parsed as { dataTypeIDs: number[] } | undefined;
  return { params: params?.dataTypeIDs, columns: r.rowDescription?.fields.map((f) => f.dataTypeID) };
}

describe('review 57: answers and errors as PostgreSQL 15', () => {
  test('ORDER BY or DISTINCT ON naming two result columns of different expressions: 42702 (DuckDB took the first)', async () => {
    await sameAsPostgres(
      [
        'select 1 a, 2 a order by a',
        'select 1 a, 2 a order by a desc',
        'select qty as a, customer_id as a from sales.orders order by a limit 1',
        'select 1 a, 2 a union select 3, 4 order by a',
        'select distinct on (a) 1 a, 2 a',
        'select order_id, qty as order_id from sales.orders order by order_id',
      ],
      true,
    );
    // one expression twice, another name, a position, a qualified name: answered
    await sameAsPostgres(
      [
        'select 1 a, 1 a order by a',
        'select qty a, qty a, order_id from sales.orders order by a, order_id limit 3',
        'select 1 "A", 2 a order by a',
        'select 1 a, 2 a order by 1',
        'select o.qty a, o.order_id a from sales.orders o order by o.order_id limit 2',
      ],
      false,
    );
  });

  test('a timestamp at second 60 is the next minute (into the next year); a fraction past it 22008', async () => {
    await sameAsPostgres(
      [
        "select '2024-12-31 23:59:60'::timestamp as a, '2024-02-28 23:59:60+02'::timestamptz as b, timestamp '2024-01-01 10:00:60.000' as c",
        "select '2024-02-28 23:59:60'::timestamp as a, timestamptz '2016-12-31 23:59:60 UTC' as b, '2024-01-01T10:59:60'::timestamp as c",
      ],
      false,
    );
    await sameAsPostgres(
      ["select '2024-01-01 23:59:60.5'::timestamp", "select '2024-01-01 23:59:60.25+01'::timestamptz"],
      true,
    );
  });

  test('parameters: an unused, undeclared one 42P18; a used one of a type OID that does not exist XX000; a bare item typed otherwise later 42P08', async () => {
    for (const [sql, types] of [
      ['select $1, $65535', []],
      ['select $2', []],
      ['select $1', [25, 0]],
      ['select $1', [999999999]],
      ['select $1::int', [999999999]],
      ['select $1, $1 + 1', []],
      // answered
      ['select $2', [0, 25]],
      ['select $1 + 1, $1', []],
      ['select $1, $2', [23]],
    ] as [string, number[]][]) {
      const pg = await described(conns.pg!, sql, types);
      assert.deepEqual(await described(conns.gw!, sql, types), pg, `${sql} ${JSON.stringify(types)}`);
      assert.deepEqual(answer(await conns.gw!.query('select 1 as x')).rows, [['1']]);
    }
  });
});
