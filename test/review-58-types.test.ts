/**
 * Result types the session-57 review found sent as another type (issue 25, session 58), each compared with
 * PostgreSQL 15 beside the gateway in text and binary: user, catalog and schema names are name (19), a cast to
 * varchar and a choice led by one varchar (1043), a cast to oid oid (26),
 * after which the session goes on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'pg-protocol';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { splitDataRow, type QueryResult, type RawPg } from './support/raw-pg.js';
import { REVIEW_58T } from './support/pg-corpus-review-58t.js';

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

/** RowDescription as a client reads it: name, type OID, typlen and typmod of each column. */
const fields = (r: QueryResult) =>
  r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID, f.dataTypeSize, f.dataTypeModifier]);

const answer = (r: QueryResult, binary: boolean) =>
  r.error
    ? { error: r.error.code }
    : {
        fields: fields(r),
        rows: r.dataRows.map((d) =>
          splitDataRow(d).map((v) => (v === null ? null : binary ? v.toString('hex') : v.toString('utf8'))),
        ),
      };

/** Each statement as PostgreSQL 15 answers it (its columns' types and values, or its SQLSTATE), in text and binary. */
async function sameAsPostgres(sqls: readonly string[]): Promise<void> {
  for (const sql of sqls)
    for (const binary of [false, true]) {
      const opts = binary ? { resultFormats: [1] } : {};
      const pg = answer(await conns.pg!.query(sql, opts), binary);
      const gw = answer(await conns.gw!.query(sql, opts), binary);
      assert.deepEqual(gw, pg, `${sql}${binary ? ' (binary)' : ''}`);
      if ('error' in pg) assert.deepEqual((await conns.gw!.query('select 1 as x')).error, undefined);
    }
}

describe('review 58: result types as PostgreSQL 15 sends them', () => {
  test('current_user, session_user, user, current_role, current_catalog, current_database(), current_schema: name (19)', async () => {
    const sql =
      'select current_user, session_user, user, current_role, current_catalog, current_database(), current_schema, current_schema(), pg_catalog.current_database()';
    for (const binary of [false, true]) {
      const opts = binary ? { resultFormats: [1] } : {};
      const [pg, gw] = [await conns.pg!.query(sql, opts), await conns.gw!.query(sql, opts)];
      assert.equal(gw.error, undefined, sql);
      // the two servers' user, database and schema differ by name: the types must not
      assert.deepEqual(
        gw.rowDescription?.fields.map((f) => [f.name, f.dataTypeID, f.dataTypeSize, f.dataTypeModifier]),
        pg.rowDescription?.fields.map((f) => [f.name, f.dataTypeID, f.dataTypeSize, f.dataTypeModifier]),
      );
      // a name's binary form is its text: the same bytes in both formats
      const text = splitDataRow((await conns.gw!.query(sql)).dataRows[0]!).map((v) => v?.toString('utf8'));
      assert.deepEqual(
        splitDataRow(gw.dataRows[0]!).map((v) => v?.toString('utf8')),
        text,
      );
    }
    // inside an expression the name is still the value (compared, concatenated, typed)
    await sameAsPostgres([
      'select current_user = current_user as u, current_schema() = current_schema as s, length(current_catalog) > 0 as c, pg_typeof(current_user), pg_typeof(current_schema)',
    ]);
  });

  test('the corpus rows of session 58 (varchar, oid, pg_typeof): PostgreSQL 15 answers', async () => {
    await sameAsPostgres(REVIEW_58T);
  });

  test('$1::oid is described and sent as oid (26), its parameter too', async () => {
    const run = async (c: RawPg, types: number[]) => {
      const sql = 'select $1::oid, pg_typeof($1::oid)';
      c.send(
        Buffer.concat([serialize.parse({ text: sql, types }), serialize.describe({ type: 'S' }), serialize.sync()]),
      );
      const d = await c.untilReady();
      const params = d.messages.find((m) => m.code === 't')?.parsed as { dataTypeIDs: number[] } | undefined;
      const rows = async (formats: number[], enc: BufferEncoding) => {
        const r = await c.query(sql, { params: ['42'], resultFormats: formats, paramTypes: types });
        return r.error ? r.error.code : r.dataRows.map((x) => splitDataRow(x).map((v) => v?.toString(enc)));
      };
      return {
        error: d.error?.code,
        params: params?.dataTypeIDs,
        columns: d.rowDescription?.fields.map((f) => f.dataTypeID),
        text: await rows([], 'utf8'),
        binary: await rows([1], 'hex'),
      };
    };
    for (const types of [[], [26]]) assert.deepEqual(await run(conns.gw!, types), await run(conns.pg!, types));
  });
});
