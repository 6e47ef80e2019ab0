/**
 * pg_proc lists each type's input function (clients join pg_type.typinput to it), and a tool that builds calls from
 * pg_proc calls them (sqlsmith: `pg_catalog.int4in(cast(null as cstring))`); every one was 42883 here. Each listed
 * input function is called through the gateway and PostgreSQL 15 with a sample cstring and with NULL: those of the
 * types the gateway serves answer as PostgreSQL does (value, type, column name; pg/type-input-calls.ts), the others
 * are refused 0A000 by name and the session goes on; an argument that is not a cstring is 42883 in both.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { splitDataRow, type QueryResult, type RawPg } from './support/raw-pg.js';

let twins: PgTwins | undefined;
const conns: { pg?: RawPg; gw?: RawPg } = {};

before(
  async () => {
    twins = await startPgTwins({ settings: { TimeZone: 'UTC' } });
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

const answer = (r: QueryResult) =>
  r.error
    ? { error: r.error.code }
    : {
        columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]),
        rows: r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString('utf8')))),
      };

/** A cstring each served type's input reads, written as people write its values. */
const SAMPLES: Readonly<Record<string, string>> = {
  boolin: 'yes',
  int2in: ' 12',
  int4in: '5',
  int8in: '-9000000000',
  float4in: '1.5',
  float8in: '1e-3',
  textin: 'héllo',
  namein: 'abc',
  charin: 'ab',
  byteain: '\\x4142',
  date_in: '2024-02-29',
  json_in: '{"a": 1}',
  jsonb_in: '{"b": 1, "a": [1.50]}',
  uuid_in: 'A0EEBC99-9c0b-4ef8-bb6d-6bb9bd380a11',
  regclassin: 'pg_class',
  regtypein: 'int4',
  regnamespacein: 'pg_catalog',
  regprocin: 'now',
  regprocedurein: 'lower(text)',
  numeric_in: '1.50',
  bpcharin: 'ab ',
  time_in: '01:02:03.5',
  timetz_in: '01:02+03',
  timestamp_in: '2024-01-01 01:02:03',
  timestamptz_in: '2024-01-01 01:02:03+03',
  interval_in: '1 year 2 mons -3 days',
};

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

test("every type's input function pg_proc lists answers as PostgreSQL 15 or is refused 0A000 by name", async () => {
  // the listed input functions, as a client reads them (ruby-pg's join), with their argument counts
  const listed = (
    await conns.gw!.query(
      'select p.proname, p.pronargs from pg_type t join pg_proc p on p.oid = t.typinput group by 1, 2 order by 1',
    )
  ).dataRows.map((d) => splitDataRow(d).map((v) => v!.toString('utf8')));
  assert.ok(listed.length > 90, `${listed.length} input functions listed`);
  const answered: string[] = [];
  const differing: string[] = [];
  for (const [name, nargs] of listed) {
    const rest = nargs === '3' ? ', 0, -1' : '';
    const sample = SAMPLES[name!];
    if (sample === undefined) {
      const sql = `select pg_catalog.${name}(cast('x' as cstring)${rest})`;
      const gw = await conns.gw!.query(sql);
      assert.equal(gw.error?.code, '0A000', `${sql}: ${JSON.stringify(answer(gw))}`);
      assert.match(gw.error!.message, new RegExp(`^${name}\\(\\) \\(the input function of type `), sql);
      assert.deepEqual(answer(await conns.gw!.query('select 1 as one')), { columns: [['one', 23]], rows: [['1']] });
      continue;
    }
    for (const sql of [
      `select ${name}(${lit(sample)}${rest})`,
      `select pg_catalog.${name}(cast(${lit(sample)} as cstring)${rest}) as v`,
      // sqlsmith's form: strict, a NULL of the type
      `select pg_catalog.${name}(cast(null as cstring)${rest}) as v`,
    ]) {
      const pg = answer(await conns.pg!.query(sql));
      assert.equal('error' in pg, false, `PostgreSQL answers ${sql}: ${JSON.stringify(pg)}`);
      const gw = answer(await conns.gw!.query(sql));
      if (JSON.stringify(gw) !== JSON.stringify(pg))
        differing.push(`${sql}: ${JSON.stringify(gw)} ≠ ${JSON.stringify(pg)}`);
    }
    answered.push(name!);
  }
  assert.deepEqual(differing, [], 'answered as PostgreSQL 15');
  assert.deepEqual(answered.sort(), Object.keys(SAMPLES).sort(), 'every served type answers');
});

test('an input function given a value that is not a cstring is 42883, as in PostgreSQL 15', async () => {
  for (const sql of [
    'select int4in(5)',
    "select int4in('5'::text)",
    'select date_in(signup) from sales.customers limit 1',
  ]) {
    const pg = answer(await conns.pg!.query(sql));
    assert.deepEqual(pg, { error: '42883' }, sql);
    assert.deepEqual(answer(await conns.gw!.query(sql)), pg, sql);
  }
});

test('a typmod other than -1 is refused 0A000 with a hint (PostgreSQL reads the text at that modifier)', async () => {
  const gw = await conns.gw!.query("select bpcharin('abc', 0, 7)");
  assert.equal(gw.error?.code, '0A000');
  assert.match(gw.error!.hint ?? '', /'…'::bpchar\(n\)/);
  assert.deepEqual(answer(await conns.gw!.query("select bpcharin('abc', 0, -1) as v")), {
    columns: [['v', 1042]],
    rows: [['abc']],
  });
});
