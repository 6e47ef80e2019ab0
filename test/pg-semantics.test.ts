/**
 * Differential checks of PostgreSQL semantics drivers rely on, each run first against a private
 * PostgreSQL 15 holding a copy of the fixture's sales schema, then against the gateway serving the
 * fixture: Describe matches Execute, parameter inference (a table of statements whose ParameterDescription
 * must equal PostgreSQL 15's: operators, ANY/ALL, rows, casts, function arguments, LIMIT/OFFSET),
 * PostgreSQL array text, catalog system columns and "char", RowDescription table OID/attnum,
 * integer division, and the version's schemas on the default search_path.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize } from 'pg-protocol';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { buildBind, RawPg, splitDataRow, type QueryResult } from './support/raw-pg.js';
import { runProbe, describeProbe } from './support/probe.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';

let twins: PgTwins | undefined;
/** One raw connection per engine, reused by every check. */
const conns: { pg?: RawPg; gw?: RawPg } = {};
type Engine = 'pg' | 'gw';
const ENGINES: Engine[] = ['pg', 'gw'];

before(
  async () => {
    // PostgreSQL gets the fixture's sales schema and the gateway's default search_path.
    twins = await startPgTwins();
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

/** Rows as text; a check that expects rows never accepts an error. */
const text = (r: QueryResult) => {
  assert.equal(r.error, undefined, `unexpected error: ${r.error?.code} ${r.error?.message}`);
  return r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString())));
};

/** Parse a named statement and Describe it (before any Bind), then Bind/Execute without Describe, as pgjdbc and postgres.js do. */
async function describeThenExecute(e: Engine, sql: string, params: (string | null)[]) {
  const c = conns[e]!;
  c.send(
    Buffer.concat([
      serialize.parse({ name: 's1', text: sql, types: [] }),
      serialize.describe({ type: 'S', name: 's1' }),
      serialize.sync(),
    ]),
  );
  const described = await c.untilReady();
  assert.equal(described.error, undefined, `${e}: Describe ${sql}: ${described.error?.message}`);
  const paramOids = (described.messages.find((m) => m.code === 't')?.parsed as unknown as { dataTypeIDs: number[] })
    .dataTypeIDs;
  c.send(
    Buffer.concat([
      buildBind({ statement: 's1', params }),
      serialize.execute({ rows: 0 }),
      serialize.close({ type: 'S', name: 's1' }),
      serialize.sync(),
    ]),
  );
  const executed = await c.untilReady();
  assert.equal(executed.error, undefined, `${e}: Execute ${sql}: ${executed.error?.message}`);
  const fields = described.rowDescription!.fields;
  for (const row of executed.dataRows)
    assert.equal(splitDataRow(row).length, fields.length, `${e}: DataRow field count matches Describe`);
  return { paramOids, fields: fields.map((f) => [f.name, f.dataTypeID]), rows: text(executed).sort() };
}

/** The same check on both engines must give equal results. */
async function same<T>(check: (e: Engine) => Promise<T>): Promise<T> {
  const [a, b] = [await check('pg'), await check('gw')];
  assert.deepEqual(b, a, 'gateway vs PostgreSQL 15');
  return b;
}

/** A statement's column names and type OIDs and its rows as text, on one engine (compared with `same`). */
async function answerOf(e: Engine, sql: string) {
  const r = await conns[e]!.query(sql);
  return { columns: r.rowDescription?.fields.map((f) => [f.name, f.dataTypeID]), rows: text(r) };
}

/** A statement that must fail with `code` on both engines; the connection stays usable and unchanged. */
async function refusedOnBoth(sql: string, params: (string | null)[], code: string): Promise<void> {
  for (const e of ENGINES) {
    const r = await conns[e]!.query(sql, { params });
    assert.equal(r.error?.code, code, `${e}: ${sql} → ${JSON.stringify(r.error)}`);
    const after = await conns[e]!.query('SELECT count(*) FROM sales.orders');
    assert.deepEqual(text(after), [['80']], `${e}: nothing changed after the error`);
  }
}

describe('Describe always matches Execute', () => {
  test('a statement DuckDB binds only with values (attrelid = cast($1 as regclass)) is described with its real columns', async () => {
    const r = await same((e) =>
      describeThenExecute(
        e,
        'select attname, atttypid from pg_attribute where attrelid = cast($1 as regclass) and attnum > 0',
        ['sales.orders'],
      ),
    );
    assert.deepEqual(r.paramOids, [2205]);
    assert.deepEqual(r.fields, [
      ['attname', 19],
      ['atttypid', 26],
    ]);
    assert.equal(r.rows.length, 6);
  });

  test('select cast($1 as regclass): typed regclass, and the text comes back', async () => {
    const r = await same((e) => describeThenExecute(e, 'select cast($1 as regclass)::text as r', ['sales.orders']));
    assert.deepEqual(r.rows, [['orders']]);
    // The column itself is regclass (2205), as are reg* literals, with PostgreSQL's output text.
    const typed = await same((e) =>
      describeThenExecute(
        e,
        "select cast($1 as regclass) as r, 'sales.customers'::regclass as c, 'pg_class'::regclass as p, 'int4'::regtype as t, 'pg_catalog'::regnamespace as n",
        ['sales.orders'],
      ),
    );
    assert.deepEqual(typed.fields, [
      ['r', 2205],
      ['c', 2205],
      ['p', 2205],
      ['t', 2206],
      ['n', 4089],
    ]);
    assert.deepEqual(typed.rows, [['orders', 'customers', 'pg_class', 'integer', 'pg_catalog']]);
  });

  test('a reg* name column requested in binary is refused with 0A000 (its binary form is the OID); the connection goes on', async () => {
    const c = conns.gw!;
    const r = await c.query('select cast($1 as regclass) as r', { params: ['sales.orders'], resultFormats: [1] });
    assert.equal(r.error?.code, '0A000');
    assert.deepEqual(text(await c.query('SELECT count(*) FROM sales.orders')), [['80']]);
  });

  test('a regclass parameter declared in Parse, sent as text or as a binary OID', async () => {
    await same(async (e) => {
      const c = conns[e]!;
      const oid = Number(text(await c.query("select 'sales.orders'::regclass::oid"))[0]![0]);
      const bin = Buffer.alloc(4);
      bin.writeUInt32BE(oid);
      const sql = 'select attname from pg_attribute where attrelid = $1::regclass and attnum = 2';
      const uncast = 'select attname from pg_attribute where attrelid = $1 and attnum = 3';
      return [
        text(await c.query(sql, { paramTypes: [2205], params: ['sales.orders'] })),
        text(await c.query(sql, { paramTypes: [2205], params: [bin] })),
        text(await c.query(uncast, { paramTypes: [2205], params: ['sales.orders'] })),
        text(await c.query(uncast, { paramTypes: [2205], params: [bin] })),
        text(await c.query('select $1::regclass::text', { paramTypes: [2205], params: [bin] })),
      ];
    });
  });

  test("unknown reg* names give PostgreSQL's errors", async () => {
    await refusedOnBoth('select cast($1 as regclass)', ['sales.nope'], '42P01');
    await refusedOnBoth('select cast($1 as regclass)', ['nope.nope'], '3F000');
    await refusedOnBoth("select 'nope'::regclass", [], '42P01');
    await refusedOnBoth("select 'nosuchtype'::regtype", [], '42704');
    await refusedOnBoth("select 'nosuchschema'::regnamespace", [], '3F000');
    // to_regclass answers NULL instead of failing, on both.
    await same(async (e) => text(await conns[e]!.query("select to_regclass('nope.nope') is null")));
  });
});

describe('parameter inference and array text', () => {
  test('= any($1) with an untyped parameter is text[]', async () => {
    const r = await same((e) =>
      describeThenExecute(e, 'select count(*) from sales.orders where status = any($1)', ['{shipped,cancelled}']),
    );
    assert.deepEqual(r.paramOids, [1009]);
    assert.deepEqual(r.rows, [['49']]);
  });

  test('<> all($1), IN with parameters (NULL elements, numeric lists), and array text in ANY/ALL, casts and comparisons', async () => {
    await same((e) =>
      describeThenExecute(e, 'select count(*) from sales.orders where status <> all($1)', ['{shipped}']),
    );
    await same((e) =>
      describeThenExecute(e, 'select count(*) from sales.orders where status in ($1, $2)', ['open', 'shipped']),
    );
    // A NULL element: PostgreSQL's three values (list_contains skipped it: 76 rows where PostgreSQL has 0);
    // a numeric list beside qty::numeric keeps its fraction (DECIMAL(38,0)'s common type matched 7.5 to 7 and 8).
    for (const [sql, list] of [
      ['select count(*) from sales.orders where customer_id <> all($1)', '{2,NULL}'],
      ['select count(*) from sales.orders where customer_id = any($1) or qty = 7', '{2,NULL}'],
      ['select count(*) from sales.orders where qty::numeric = any($1)', '{7.5}'],
      ['select count(*) from sales.orders where qty::numeric = any($1)', '{7.0,2}'],
    ] as const)
      await same((e) => describeThenExecute(e, sql, [list]));
    await same(async (e) =>
      text(
        await conns[e]!.query(
          "select relname from pg_class where relkind = ANY('{r,p,f}') and relname in ('orders', 'customers') order by 1",
        ),
      ),
    );
    await same(async (e) =>
      text(
        await conns[e]!.query(
          "select count(*) from sales.orders where status = ANY('{open,\"shipped\"}') and qty <> ALL('{1,2}')",
        ),
      ),
    );
    await same(async (e) =>
      text(await conns[e]!.query("select '{1,2,3}'::int[] = ARRAY[1,2,3], array_length('{a,b}'::text[], 1)")),
    );
  });
});

/** What a client sees of one statement: Describe's parameter and column OIDs, then its rows with the values given. */
interface Outcome {
  /** SQLSTATE when Parse/Describe fails (then nothing else is filled). */
  error?: string;
  params?: number[];
  columns?: number[];
  /** Rows with text parameters and text results; a string is the SQLSTATE of a failed execution. */
  text?: (string | null)[][] | string;
  /** The same with binary results (hex). */
  binary?: (string | null)[][] | string;
  /** Binary parameters (PostgreSQL 15's own binary form of each value), text results. */
  binaryParams?: (string | null)[][] | string;
}

const rowsOf = (r: QueryResult, hex = false) =>
  r.error
    ? r.error.code
    : r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString(hex ? 'hex' : 'utf8'))));

/** PostgreSQL 15's binary form of each text value as the type `oid` (its typsend), read back from PostgreSQL itself. */
async function binaryForms(values: (string | null)[], oids: number[]): Promise<(Buffer | null)[] | string> {
  const out: (Buffer | null)[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) {
      out.push(null);
      continue;
    }
    const r = await conns.pg!.query('select $1', { paramTypes: [oids[i]!], params: [v], resultFormats: [1] });
    if (r.error) return `no binary form: ${r.error.code}`;
    out.push(splitDataRow(r.dataRows[0]!)[0]!);
  }
  return out;
}

async function outcomeOf(e: Engine, sql: string, params: (string | null)[] | undefined): Promise<Outcome> {
  const c = conns[e]!;
  c.send(
    Buffer.concat([
      serialize.parse({ name: '', text: sql, types: [] }),
      serialize.describe({ type: 'S', name: '' }),
      serialize.sync(),
    ]),
  );
  const d = await c.untilReady();
  if (d.error) return { error: d.error.code };
  const out: Outcome = {
    params: (d.messages.find((m) => m.code === 't')?.parsed as unknown as { dataTypeIDs: number[] }).dataTypeIDs,
    columns: d.rowDescription?.fields.map((f) => f.dataTypeID) ?? [],
  };
  if (!params) return out;
  out.text = rowsOf(await c.query(sql, { params }));
  out.binary = rowsOf(await c.query(sql, { params, resultFormats: [1] }), true);
  const binaryParams = await binaryForms(params, out.params!);
  out.binaryParams =
    typeof binaryParams === 'string' ? binaryParams : rowsOf(await c.query(sql, { params: binaryParams }));
  return out;
}

interface InferenceCase {
  sql: string;
  /** PostgreSQL 15's ParameterDescription (asserted on PostgreSQL; the gateway must agree unless `differs`). */
  oids: number[];
  /** Sample values: the rows must be equal in text and binary results, with text and binary parameters. */
  params?: (string | null)[];
  /** PostgreSQL 15 refuses the statement at Parse with this SQLSTATE. */
  pgError?: string;
  /** A known difference (docs/compatibility.md): why, and what the gateway answers instead. */
  differs?: { why: string; gateway: Partial<Outcome> };
}

/**
 * Untyped parameters, each in a context where PostgreSQL infers its type: ParameterDescription and
 * RowDescription OIDs must be PostgreSQL 15's, and with sample values the rows too, in text and
 * binary. Known differences are listed with their reason; the gateway's answer there is asserted,
 * so a fix shows up as a failing case to move back into agreement.
 */
const O = 'from sales.orders';
const INFERENCE: ReadonlyArray<InferenceCase> = [
  // ANY/ALL: an array of the other side's type, for every comparison operator
  { sql: `select count(*) ${O} where qty < any($1)`, oids: [1005], params: ['{2,3}'] },
  { sql: `select count(*) ${O} where order_id > all($1)`, oids: [1016], params: ['{10,20}'] },
  { sql: `select count(*) ${O} where ordered_at >= any($1)`, oids: [1115], params: ['{2024-03-01 00:00:00}'] },
  {
    sql: `select count(*) ${O} where status <> all($1) and customer_id = any($2)`,
    oids: [1009, 1007],
    params: ['{shipped}', '{1,2,3}'],
  },
  {
    sql: `select count(*) ${O} where qty <= all($1) or status = any($2)`,
    oids: [1005, 1009],
    params: ['{1}', '{open}'],
  },
  {
    sql: `select count(*) ${O} where qty = any($1) and qty <> all($2)`,
    oids: [1005, 1005],
    params: ['{1,2,3}', '{2}'],
  },
  {
    sql: `select count(*) ${O} where amount > any($1) and amount < all($2)`,
    oids: [1231, 1231],
    params: ['{10,20.5}', '{500.125}'],
  },
  // numeric[]: elements of different scales compare exactly; empty and NULL arrays
  {
    sql: `select count(*) ${O} where amount = any($1) or amount < all($2)`,
    oids: [1231, 1231],
    params: ['{1,13.73}', '{100000,13.725}'],
  },
  { sql: `select count(*) ${O} where amount > any($1) or amount = any($2)`, oids: [1231, 1231], params: ['{}', null] },
  {
    sql: `select count(*) ${O} where status >= any($1) and status <= all($2)`,
    oids: [1009, 1009],
    params: ['{open}', '{zzz}'],
  },
  {
    sql: `select count(*) ${O} where ordered_at < any($1) or ordered_at <> any($2)`,
    oids: [1115, 1115],
    params: ['{2024-02-01}', '{2024-02-01}'],
  },
  { sql: `select count(*) ${O} where status = any(array[$1, $2])`, oids: [25, 25], params: ['open', 'shipped'] },
  // comparisons, IN, BETWEEN, rows, subqueries
  {
    sql: `select count(*) ${O} where qty in ($1, $2) and order_id not in ($3)`,
    oids: [21, 21, 20],
    params: ['1', '2', '7'],
  },
  {
    sql: `select count(*) ${O} where status in ($1, $2) and customer_id in ($3)`,
    oids: [25, 25, 23],
    params: ['open', 'shipped', '3'],
  },
  { sql: `select count(*) ${O} where amount between $1 and $2`, oids: [1700, 1700], params: ['10', '100.005'] },
  { sql: `select count(*) ${O} where $1 between qty and 10`, oids: [21], params: ['2'] },
  {
    sql: `select count(*) ${O} where ordered_at between $1 and $2`,
    oids: [1114, 1114],
    params: ['2024-01-01', '2024-03-01 12:00'],
  },
  { sql: `select count(*) ${O} where qty not between $1 and $2`, oids: [21, 21], params: ['2', '3'] },
  { sql: `select count(*) ${O} where amount between symmetric $1 and $2`, oids: [1700, 1700], params: ['100', '10'] },
  {
    sql: 'select count(*) from sales.customers where signup > $1 and vip = $2',
    oids: [1082, 16],
    params: ['2023-06-01', 't'],
  },
  {
    sql: 'select count(*) from sales.customers where email is not distinct from $1 or vip = $2',
    oids: [25, 16],
    params: ['x', 't'],
  },
  { sql: `select count(*) ${O} where (qty, status) = ($1, $2)`, oids: [21, 25], params: ['1', 'open'] },
  { sql: 'select now() > $1, current_date = $2', oids: [1184, 1082] },
  {
    sql: `select count(*) ${O} where status like $1 or status ilike $2 or $3 like 'a%'`,
    oids: [25, 25, 25],
    params: ['op%', 'SH%', 'b'],
  },
  {
    sql: `select exists(select 1 ${O} where status = $1), (select count(*) ${O} where qty > $2)`,
    oids: [25, 21],
    params: ['open', '2'],
  },
  {
    sql: `select count(*) ${O} where customer_id in (select customer_id from sales.customers where country = $1)`,
    oids: [25],
    params: ['DE'],
  },
  { sql: `select status, count(*) ${O} group by status having count(*) > $1 order by 1`, oids: [20], params: ['5'] },
  { sql: `select count(*) filter (where qty > $1) ${O}`, oids: [21], params: ['2'] },
  // arithmetic: the other side's type, or interval / float8 where PostgreSQL has no same-type operator
  { sql: `select count(*) ${O} where qty + $1 > $2`, oids: [21, 21], params: ['1', '3'] },
  {
    sql: `select max(qty - $1), min(qty * $2), max(qty / $3), max(qty % $4), max(order_id + $5) ${O}`,
    oids: [21, 21, 21, 21, 20],
    params: ['1', '2', '3', '2', '5'],
  },
  {
    sql: `select sum(qty * $1) ${O}`,
    oids: [21],
    params: ['2'],
    differs: {
      why: 'sum of integers is HUGEINT (served as numeric) in DuckDB, int8 in PostgreSQL',
      gateway: { columns: [1700], binary: [['00010000000000000280']] },
    },
  },
  { sql: 'select $1 + 1', oids: [23], params: ['41'] },
  { sql: 'select $1 * 2.5, 10 - $2, $3 / 2, $4 % 7', oids: [1700, 23, 23, 23], params: ['2', '3', '7', '15'] },
  { sql: `select qty * $1 ${O} order by order_id limit 3`, oids: [21], params: ['3'] },
  {
    sql: `select amount * $1, amount - $2, amount + $3 ${O} order by order_id limit 3`,
    oids: [1700, 1700, 1700],
    params: ['2', '0.5', '1.125'],
  },
  { sql: `select count(*) ${O} where amount > $1 * 1.1`, oids: [1700], params: ['20'] },
  {
    sql: `select amount * $1, $2 * 2.5, round($3, 2) ${O} order by order_id limit 1`,
    oids: [1700, 1700, 1700],
    params: [null, null, null],
  },
  {
    sql: 'select round($1, 2), round(amount, $2) ' + O + ' order by order_id limit 2',
    oids: [1700, 23],
    params: ['3.14159', '1'],
  },
  { sql: `select count(*) * $1, sum(amount) - $2 ${O}`, oids: [20, 1700], params: ['3', '0.25'] },
  {
    sql: `select sum(amount) / $1 ${O}`,
    oids: [1700],
    params: ['4'],
    differs: {
      why: 'DuckDB divides DECIMALs as DOUBLE',
      gateway: { columns: [701], text: [['6401.725']], binary: [['40b901b99999999a']], binaryParams: [['6401.725']] },
    },
  },
  // one parameter used beside two types: PostgreSQL's type is its first use's (the probe found none and prepared it as text)
  { sql: `select qty * $1, amount * $1 ${O} where order_id = 3`, oids: [21], params: ['3'] },
  { sql: `select amount * $1, amount::numeric(10,4) * $1 ${O} where order_id = 3`, oids: [1700], params: ['3'] },
  { sql: `select order_id ${O} where amount > $1 and qty < $1 order by order_id limit 3`, oids: [1700], params: ['3'] },
  {
    sql: `select amount / $1, amount::numeric(10,4) * $1 ${O} where order_id = 3`,
    oids: [1700],
    params: ['3'],
    differs: {
      why: 'DuckDB divides DECIMALs as DOUBLE',
      gateway: {
        columns: [701, 1700],
        text: [['13.729999999999999', '123.5700']],
        binary: [['402b75c28f5c28f5', '0002000000000004007b1644']],
        binaryParams: [['13.729999999999999', '123.5700']],
      },
    },
  },
  {
    sql: `select avg(qty) * $1 ${O}`,
    oids: [1700],
    params: ['2'],
    differs: {
      why: "avg of integers is numeric with PostgreSQL's value, its scale padded to 20 (one scale per column)",
      gateway: {
        text: [['8.00000000000000000000']],
        binary: [['00010000000000140008']],
        binaryParams: [['8.00000000000000000000']],
      },
    },
  },
  // `$n::numeric` keeps the value's own precision and scale (it was DuckDB's DECIMAL(18,3): 0.0004 gave 0.000)
  { sql: 'select $1::numeric * 2', oids: [1700], params: ['1.25'] },
  { sql: 'select $1::numeric, $2::decimal + 1', oids: [1700, 1700], params: ['0.0004', '2.00025'] },
  { sql: `select sum($1::numeric), max(amount * $2::numeric) ${O}`, oids: [1700, 1700], params: ['0.0004', '0.125'] },
  { sql: `select count(*) ${O} where amount > $1::numeric`, oids: [1700], params: ['20.0001'] },
  { sql: 'select $1 + 1.5::float8, 2 ^ $2', oids: [701, 701], params: ['1', '3'] },
  { sql: `select qty::float8 / $1 ${O} order by order_id limit 2`, oids: [701], params: ['4'] },
  { sql: `select abs(qty - $1) ${O} order by order_id limit 3`, oids: [21], params: ['3'] },
  { sql: 'select $1::text::int + 1', oids: [25], params: ['4'] },
  { sql: 'with t as (select $1::int as x) select x + 1 from t', oids: [23], params: ['4'] },
  {
    sql: 'select max(ordered_at + $1)::text, max(ordered_at - $2)::text ' + O,
    oids: [1186, 1114],
    params: ['1 day', '2024-01-01'],
  },
  { sql: "select now() - $1 > interval '0'", oids: [1184] },
  { sql: "select now() - $1::interval > timestamptz '2000-01-01'", oids: [1186], params: ['1 day'] },
  { sql: "select $1 + interval '1 day', $2 - interval '1 day'", oids: [1186, 1186], params: ['1 hour', '2 days'] },
  { sql: "select interval '1 day' * $1", oids: [701], params: ['1.5'] },
  // one operator DuckDB has only as `x op y` does not undo the others' inference
  {
    sql: "select now() - $1 > interval '0', interval '1 day' * $2",
    oids: [1184, 701],
    params: ['2020-01-01 00:00+00', '1.5'],
  },
  {
    sql: "select max(ordered_at + $1)::text, interval '2 hours' * $2, $3 * 2.5, max(qty + $4) " + O,
    oids: [1186, 701, 1700, 21],
    params: ['1 day', '3', '2', '1'],
  },
  {
    sql: 'select min(signup - $1) from sales.customers',
    oids: [1082],
    params: ['2020-01-01'],
    differs: {
      why: 'date - date is BIGINT in DuckDB, int4 in PostgreSQL',
      gateway: { columns: [20], binary: [['0000000000000453']] },
    },
  },
  { sql: 'select $1::date + 1, $2::date - 1', oids: [1082, 1082], params: ['2024-02-28', '2024-03-01'] },
  // int4, as PostgreSQL (session 40: a cast parameter is its own type tag; it was DuckDB's BIGINT)
  { sql: 'select $1::date - $2::date', oids: [1082, 1082], params: ['2024-03-01', '2024-02-01'] },
  { sql: 'select current_date - $1 > 0', oids: [1082], params: ['2020-01-01'] },
  {
    sql: `select count(*) ${O} where ordered_at > $1::timestamp - interval '1 day'`,
    oids: [1114],
    params: ['2024-03-01'],
  },
  { sql: `select count(*) ${O} where ordered_at::date = $1`, oids: [1082], params: ['2024-03-01'] },
  {
    sql: 'select $1::date + $2',
    oids: [],
    pgError: '42725',
    differs: {
      why: 'PostgreSQL finds date + unknown ambiguous; DuckDB tries date + date',
      gateway: { error: '42883' },
    },
  },
  {
    sql: 'select -$1',
    oids: [],
    pgError: '42725',
    differs: { why: 'PostgreSQL finds - unknown ambiguous; DuckDB has no -VARCHAR', gateway: { error: '42883' } },
  },
  // COALESCE, GREATEST, LEAST, NULLIF, CASE: the other arguments' type
  {
    sql: "select coalesce($1, 1), nullif($2, 'x'), greatest($3, 2), least(4, $4)",
    oids: [23, 25, 23, 23],
    params: ['5', 'y', '1', '9'],
  },
  { sql: 'select max(coalesce(qty, $1)) ' + O, oids: [21], params: ['0'] },
  { sql: "select coalesce($1, 'x'), coalesce($2, $3)", oids: [25, 25, 25], params: ['a', null, 'b'] },
  {
    sql: `select greatest(qty, $1), nullif(qty, $2) ${O} order by order_id limit 3`,
    oids: [21, 21],
    params: ['2', '1'],
  },
  {
    sql: "select case when $1 then 1 end, case when true then $2 else 1 end, case when false then 'x' else $3 end",
    oids: [16, 23, 25],
    params: ['t', '5', 'y'],
  },
  // casts: the cast's type, even where DuckDB spells it differently (jsonb, varchar)
  {
    sql: 'select $1::int4, cast($2 as date), $3::numeric, $4::timestamptz, $5::bigint[], $6::text[], $7::uuid, $8::json, $9::jsonb, $10::bytea, $11::interval, $12::time, $13::float8, $14::real, $15::smallint, $16::bool, $17::varchar',
    oids: [23, 1082, 1700, 1184, 1016, 1009, 2950, 114, 3802, 17, 1186, 1083, 701, 700, 21, 16, 1043],
  },
  {
    sql: "select array_length($1::int[], 1) > 2, $2::text[] = array['a']",
    oids: [1007, 1009],
    params: ['{1,2,3}', '{a}'],
  },
  {
    sql: "select $1::jsonb ->> 'a', json_extract_path_text($2::json, 'a')",
    oids: [3802, 114],
    params: ['{"a":1}', '{"a":"x"}'],
  },
  // function arguments
  { sql: 'select length($1) > 2, upper($2), lower($3)', oids: [25, 25, 25], params: ['abc', 'x', 'Y'] },
  {
    sql: 'select left($1, $2), right($3, $4), repeat($5, $6), lpad($7, $8, $9)',
    oids: [25, 23, 25, 23, 25, 23, 25, 23, 25],
    params: ['abc', '2', 'abc', '2', 'ab', '2', 'x', '3', '.'],
  },
  {
    sql: 'select left($1, 2), right(status, $2) ' + O + ' order by order_id limit 1',
    oids: [25, 23],
    params: ['hello', '2'],
  },
  {
    sql: 'select substr(status, $1, $2), split_part(status, $3, $4) ' + O + ' order by 1, 2 limit 1',
    oids: [23, 23, 25, 23],
    params: ['2', '3', 'p', '1'],
  },
  {
    sql:
      'select substring($1 from 2), substring($2, 2, 3), substring(status, 2, $3) ' + O + ' order by order_id limit 1',
    oids: [25, 25, 23],
    params: ['hello', 'world', '3'],
  },
  {
    sql: 'select substring(status from $1) ' + O + ' order by order_id limit 1',
    oids: [25],
    params: ['o.e'],
    differs: {
      why: 'PostgreSQL reads substring(text from unknown) as the regular-expression form; the gateway has only the positional one',
      gateway: { params: [23], text: '22P02', binary: '22P02', binaryParams: 'no binary form: 22P02' },
    },
  },
  { sql: "select position($1 in 'hello') > 2, strpos('abc', $2) > 2", oids: [25, 25], params: ['l', 'c'] },
  { sql: 'select position($1 in $2), length($3)', oids: [25, 25, 25], params: ['l', 'hello', 'abc'] },
  {
    sql: 'select replace($1, $2, $3), replace(status, $4, $5) ' + O + ' order by order_id limit 1',
    oids: [25, 25, 25, 25, 25],
    params: ['hello', 'l', 'L', 'o', '0'],
  },
  {
    sql: "select split_part($1, ',', $2), trim($3), md5($4)",
    oids: [25, 23, 25, 25],
    params: ['a,b,c', '2', ' x ', 'abc'],
  },
  { sql: `select $1 || status ${O} order by order_id limit 1`, oids: [25], params: ['s:'] },
  { sql: "select array[$1, 'a'], $2 ~ 'a', $3, $4 || 'x'", oids: [25, 25, 25, 25], params: ['b', 'bab', 'a', 'b'] },
  {
    sql: 'select abs($1), round($2), ceil($3), floor($4), sqrt($5), power($6, $7), exp($8), ln($9)',
    oids: [701, 701, 701, 701, 701, 701, 701, 701, 701],
  },
  { sql: 'select round(amount, $1) ' + O + ' limit 0', oids: [23] },
  { sql: 'select make_date($1, $2, $3)', oids: [23, 23, 23], params: ['2024', '2', '29'] },
  { sql: 'select count(distinct date_trunc($1, ordered_at)) ' + O, oids: [25], params: ['month'] },
  { sql: `select date_trunc($1, ordered_at) ${O} order by order_id limit 2`, oids: [25], params: ['day'] },
  { sql: "select date_trunc('month', $1)", oids: [], pgError: '42725' },
  { sql: 'select extract(year from $1::date)', oids: [1082], params: ['2024-03-15'] },
  { sql: 'select count(*) from generate_series(1, $1)', oids: [23], params: ['5'] },
  // a timestamp series' other bound is a timestamp and its step an interval (it was 42725 in DuckDB's words)
  {
    sql: 'select generate_series($1::timestamp, $2, $3)',
    oids: [1114, 1114, 1186],
    params: ['2024-01-01', '2024-01-03', '1 day'],
  },
  {
    sql: "select count(*) from generate_series(timestamp '2024-01-01', $1, $2)",
    oids: [1114, 1186],
    params: ['2024-01-05', '12 hours'],
  },
  // width_bucket's bounds take the operand's type, its count int4; percentile_cont's fraction float8 (42883 through node pg)
  {
    sql: `select width_bucket(amount, $1, $2, $3) ${O} order by order_id limit 3`,
    oids: [1700, 1700, 23],
    params: ['0', '500', '4'],
  },
  {
    sql: `select percentile_cont($1) within group (order by amount), percentile_disc($2) within group (order by qty) ${O}`,
    oids: [701, 701],
    params: ['0.5', '0.25'],
  },
  {
    sql: 'select to_timestamp($1)',
    oids: [701],
    params: ['0'],
  },
  // A parameter where the translation needs a constant: planned with its value at Bind (session/value-plans.ts)
  { sql: `select to_char(ordered_at, $1) ${O} order by order_id limit 2`, oids: [25], params: ['YYYY-MM'] },
  {
    sql: `select to_char(ordered_at, $1), round(amount, $2), qty + $3 ${O} order by order_id limit 2`,
    oids: [25, 23, 21],
    params: ['TMMon DD', '1', '2'],
  },
  {
    sql: 'select to_date($1, $2), to_number($3, $4)',
    oids: [25, 25, 25, 25],
    params: ['05 Mar 2024', 'DD Mon YYYY', '1,234.5', '9G999D9'],
  },
  // PostgreSQL cannot type a parameter only tested for NULL (42P18; the gateway had said text, session 56)
  { sql: 'select $1 is null', oids: [], pgError: '42P18' },
  { sql: `select count(*) ${O} where $1 is null or $1 is not null`, oids: [], pgError: '42P18' },
  // a NullTest's parameter typed by a later use (or a bare select-list item) keeps its unknown node: 42P08
  { sql: 'select $1 is null, $1', oids: [], pgError: '42P08' },
  { sql: `select count(*) ${O} where $1 is null or qty = $1`, oids: [], pgError: '42P08' },
  { sql: `select count(*) ${O} where qty = $1 or $1 is null`, oids: [21], params: ['3'] },
  // a bare select-list parameter is text unless an earlier use typed it: 42P08 (the gateway had said int4, session 56)
  { sql: 'select $1, $1::int', oids: [], pgError: '42P08' },
  { sql: `select $1 ${O} where qty = $1`, oids: [], pgError: '42P08' },
  { sql: 'select $1 is null, $1, $1::int', oids: [], pgError: '42P08' },
  { sql: 'select $1::int, $1', oids: [23], params: ['7'] },
  { sql: 'select $1 + 1, $1', oids: [23], params: ['7'] },
  { sql: 'select $1, $1::text', oids: [25], params: ['a'] },
  { sql: 'select $1 from (select $1::int as y) s', oids: [23], params: ['7'] },
  // PostgreSQL cannot type these; the gateway types them as text
  {
    sql: 'select concat($1, $2)',
    oids: [],
    pgError: '42P18',
    differs: {
      why: 'concat(VARIADIC "any") leaves the unknowns unknown in PostgreSQL; text in the gateway',
      gateway: { params: [25, 25], columns: [25] },
    },
  },
  // shapes BI tools and ORMs send
  { sql: `select count(*) ${O} where status like $1 || '%'`, oids: [25], params: ['op'] },
  // LIKE's default escape is a backslash (issue 25): `\p` is a literal p, `\_` a literal underscore
  {
    sql: `select count(*) ${O} where status like $1 or status ilike $2`,
    oids: [25, 25],
    params: ['o\\pen', 'SHIPPE\\D'],
  },
  { sql: `select count(*) ${O} where status not like $1`, oids: [25], params: ['o\\pen'] },
  { sql: "select 'a_b' like $1, 'axb' not like $1", oids: [25], params: ['a\\_b'] },
  {
    sql: `select count(*) ${O} where ordered_at >= $1::date and ordered_at < $1::date + 1`,
    oids: [1082],
    params: ['2024-01-05'],
  },
  {
    sql: `select count(*) ${O} where ordered_at >= date_trunc('month', $1::timestamp)`,
    oids: [1114],
    params: ['2024-02-15'],
  },
  { sql: 'select $1 = $2, cast($3 as integer) * 2', oids: [25, 25, 23], params: ['a', 'a', '21'] },
  { sql: `select count(*) ${O} where qty > $1 and qty < $1 * 2`, oids: [21], params: ['1'] },
  {
    sql: `select count(*) ${O} where amount >= $1::numeric(12,2) or amount = $2`,
    oids: [1700, 1700],
    params: ['50.5', '13.73'],
  },
  {
    sql: `select count(*) ${O} where lower(status) = lower($1) or status = upper($2)`,
    oids: [25, 25],
    params: ['OPEN', 'x'],
  },
  {
    sql: `select count(*) ${O} where ordered_at > timestamp '2024-03-01' - $1 * interval '1 day'`,
    oids: [701],
    params: ['30'],
  },
  { sql: 'select $1::int4 = any($2)', oids: [23, 1007], params: ['3', '{1,3}'] },
  {
    sql: `select count(*) ${O} where order_id = any($1::bigint[]) or status in (select unnest($2::text[]))`,
    oids: [1016, 1009],
    params: ['{1,2,3}', '{open}'],
  },
  { sql: `select count(*) ${O} where status similar to $1`, oids: [25], params: ['(open|shipped)'] },
  { sql: `select ordered_at at time zone $1 ${O} order by order_id limit 1`, oids: [25], params: ['UTC'] },
  { sql: `select order_id, amount ${O} where customer_id = $1 order by order_id`, oids: [23], params: ['3'] },
  { sql: `select string_agg(status, $1 order by order_id) ${O} where order_id < 4`, oids: [25], params: [','] },
  { sql: 'select $1::int8 / $2::int8, $3::int2 % $4', oids: [20, 20, 21, 21], params: ['7', '2', '7', '3'] },
  { sql: `select extract(year from ordered_at) = $1 ${O} order by order_id limit 1`, oids: [1700], params: ['2024'] },
  {
    sql: `select greatest(amount, $1) ${O} order by order_id limit 2`,
    oids: [1700],
    params: ['20.005'],
    differs: {
      why: "DuckDB gives GREATEST one DECIMAL type (the widest scale); PostgreSQL's numeric keeps each value's scale",
      gateway: {
        text: [['20.005'], ['27.460']],
        binary: [['000200000000000300140032'], ['0002000000000003001b11f8']],
        binaryParams: [['20.005'], ['27.460']],
      },
    },
  },
  // round(x, n) over a parameter: $1 is x's type, so round(int2 / int2, 2) is numeric at scale 2 (it was int2)
  { sql: `select round(qty / $1, 2) ${O} order by order_id limit 3`, oids: [21], params: ['3'] },
  {
    sql: `select round(qty * $1 + 1, 1), round(customer_id - $2, 3) ${O} order by order_id limit 2`,
    oids: [21, 23],
    params: ['3', '2'],
  },
  {
    // (issue 25, session 40: it answered 3.33)
    sql: 'select round(x / $1, 2) from (values (10::float8)) v(x)',
    oids: [],
    pgError: '42883',
    differs: {
      why: 'PostgreSQL has no round(double precision, integer) and says so at Parse; the gateway when a row reaches the call (42883 too, below)',
      gateway: { params: [701], columns: [701] },
    },
  },
  // LIMIT / OFFSET: int8
  { sql: 'select order_id ' + O + ' order by 1 limit $1 offset $2', oids: [20, 20], params: ['3', '2'] },
  {
    sql: 'select order_id ' + O + ' order by 1 offset $1 rows fetch first $2 rows only',
    oids: [20, 20],
    params: ['1', '2'],
  },
];

describe("parameter types PostgreSQL infers (ParameterDescription, RowDescription and rows equal PostgreSQL 15's)", () => {
  test('the table has at least 70 statements', () => assert.ok(INFERENCE.length >= 70, String(INFERENCE.length)));
  for (const c of INFERENCE) {
    test(c.differs ? `${c.sql} — known difference: ${c.differs.why}` : c.sql, async () => {
      const pg = await outcomeOf('pg', c.sql, c.params);
      const gw = await outcomeOf('gw', c.sql, c.params);
      if (c.pgError) assert.equal(pg.error, c.pgError, JSON.stringify(pg));
      else {
        assert.equal(pg.error, undefined, JSON.stringify(pg));
        assert.deepEqual(pg.params, c.oids, "PostgreSQL 15's ParameterDescription");
      }
      if (!c.differs) return assert.deepEqual(gw, pg, 'gateway vs PostgreSQL 15');
      // A known difference: the gateway answers what is recorded, and agrees in everything else.
      const expected: Outcome = c.differs.gateway.error
        ? { error: c.differs.gateway.error }
        : { ...(pg.error ? {} : pg), ...c.differs.gateway };
      assert.deepEqual(gw, expected, "the gateway's recorded answer");
      assert.notDeepEqual(gw, pg);
    });
  }
});

test('round(float8 / $1, n) is 42883 when it runs, as PostgreSQL has no round(double precision, integer)', async () => {
  for (const sql of [
    'select round(x / $1, 2) from (values (10::float8)) v(x)',
    `select round(qty::float4 * $1, 1) ${O} order by order_id limit 2`,
  ]) {
    const [pg, gw] = [await conns.pg!.query(sql, { params: ['3'] }), await conns.gw!.query(sql, { params: ['3'] })];
    assert.equal(pg.error?.code, '42883', sql);
    assert.equal(gw.error?.code, '42883', sql);
    assert.match(gw.error!.message, /^function round\((double precision|real), integer\) does not exist$/);
    assert.match(gw.error!.hint ?? '', /round\(x::numeric, n\)/);
  }
});

test("START TRANSACTION's command tag is START TRANSACTION, BEGIN's BEGIN, inside a block too (PostgreSQL 15's)", async () => {
  const tags = async (c: RawPg) => {
    const out: Array<[string | undefined, string | undefined]> = [];
    for (const sql of [
      'START TRANSACTION',
      'START TRANSACTION READ ONLY',
      'COMMIT',
      'start transaction isolation level repeatable read',
      'BEGIN',
      'ROLLBACK',
      'BEGIN',
      'START TRANSACTION',
      'ROLLBACK',
    ]) {
      const r = await c.simple(sql);
      const notice = r.messages.find((m) => m.code === 'N')?.parsed as { code?: string } | undefined;
      out.push([r.commandTag ?? r.error?.code, notice?.code]);
    }
    return out;
  };
  const [pg, gw] = [await tags(conns.pg!), await tags(conns.gw!)];
  assert.equal(pg[0]![0], 'START TRANSACTION');
  assert.deepEqual(gw, pg);
});

describe('declared numeric parameters (pgjdbc setBigDecimal, Npgsql decimal)', () => {
  test("numeric declared in Parse keeps the value's scale; Describe before Bind gives PostgreSQL's column types", async () => {
    const sql = 'select qty + $1, amount * $1, round($1, 1) from sales.orders order by order_id limit 2';
    await same(async (e) => {
      const c = conns[e]!;
      c.send(
        Buffer.concat([
          serialize.parse({ name: '', text: sql, types: [1700] }),
          serialize.describe({ type: 'S', name: '' }),
          serialize.sync(),
        ]),
      );
      const d = await c.untilReady();
      assert.equal(d.error, undefined, `${e}: ${d.error?.message}`);
      return {
        columns: d.rowDescription!.fields.map((f) => f.dataTypeID),
        text: text(await c.query(sql, { paramTypes: [1700], params: ['1.25'] })),
        binary: rowsOf(await c.query(sql, { paramTypes: [1700], params: ['1.25'], resultFormats: [1] }), true),
      };
    });
  });

  test('a declared numeric beside an integer constant stays numeric (psycopg Decimal: 3.7 + 1 is 4.7, not 5)', async () => {
    const sql = 'select $1 + 1, $2 * 2, 2 - $3, $4 > 3, $5 = 3.7, -$6';
    const paramTypes = Array<number>(6).fill(1700);
    const params = Array<string>(6).fill('3.7');
    const r = await same(async (e) => ({
      text: text(await conns[e]!.query(sql, { paramTypes, params })),
      binary: rowsOf(await conns[e]!.query(sql, { paramTypes, params, resultFormats: [1] }), true),
    }));
    assert.deepEqual(r.text, [['4.7', '7.4', '-1.7', 't', 't', '-3.7']]);
  });

  test("`$n::numeric` keeps a declared numeric's digits, an integer's scale 0, a float's float8out digits; a text declared is refused, never rounded", async () => {
    const sql = 'select $1::numeric, sum($2::numeric) from sales.orders';
    const r = await same(async (e) => ({
      text: text(await conns[e]!.query(sql, { paramTypes: [1700, 1700], params: ['0.0004', '0.0004'] })),
      binary: rowsOf(
        await conns[e]!.query(sql, { paramTypes: [1700, 1700], params: ['0.0004', '0.0004'], resultFormats: [1] }),
        true,
      ),
      int: text(await conns[e]!.query('select $1::numeric', { paramTypes: [23], params: ['5'] })),
      float: text(await conns[e]!.query('select $1::numeric', { paramTypes: [701], params: ['0.0004'] })),
    }));
    assert.deepEqual(r.text, [['0.0004', '0.0320']]);
    for (const oid of [25]) {
      const g = await conns.gw!.query('select $1::numeric', { paramTypes: [oid], params: ['0.0004'] });
      assert.equal(g.error?.code, '0A000', `declared ${oid}: ${JSON.stringify(g.error)}`);
      assert.ok(g.error?.hint, 'with a hint');
      assert.deepEqual(text(await conns.gw!.query('SELECT count(*) FROM sales.orders')), [['80']]);
    }
  });
});

describe('numeric parameters past 38 digits', () => {
  test('refused 0A000 with a hint (DuckDB holds 38), never typed text or answered with a cast error', async () => {
    const big = '123456789012345678901234567890.123456789'; // 39 digits
    for (const sql of ['select $1', 'select $1 * 2', 'select count(*) from sales.orders where amount < $1']) {
      for (const format of [0, 1] as const) {
        const r = await conns.gw!.query(sql, { paramTypes: [1700], params: [big], resultFormats: [format] });
        assert.equal(r.error?.code, '0A000', `${sql}: ${JSON.stringify(r.error)}`);
        assert.match(r.error!.hint ?? '', /38 significant digits/);
      }
    }
    // 38 digits are PostgreSQL's answer
    const fits = '12345678901234567890123456789.123456789';
    const r = await same(async (e) =>
      text(await conns[e]!.query('select $1 * 2', { paramTypes: [1700], params: [fits] })),
    );
    assert.deepEqual(r, [['24691357802469135780246913578.246913578']]);
  });
});

describe('date and time parameters', () => {
  test('a date, time or float out of range is refused as in PostgreSQL (22008/22003), never rolled over or rounded to infinity', async () => {
    const values = [
      '2024-02-30',
      '2024-02-29',
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '0000-01-01',
      '2024-01-01 24:00:00',
      '2024-01-01 24:00:01',
      '2024-01-01 24:00:00.5',
      '2024-01-01 23:59:60',
      '2024-01-01 23:60:00',
      '2024-01-01 23:59:60.5',
      '2024-04-31 10:00',
      '5874898-01-01',
      '294277-01-01',
    ];
    const cases: [number, string[]][] = [
      [1082, values],
      [1114, values],
      [1184, values],
      [1083, ['25:00', '24:00', '24:00:01', '23:60', '12:34:60', '12:34:60.5']],
      [701, ['1e309', '-1e309', '1e-400', '1.7976931348623157e308', '4.9e-324', '0x10']],
      [700, ['1e39', '1e-46', '3.4e38']],
    ];
    for (const [oid, sent] of cases) {
      const r = await same(async (e) => {
        const out: string[] = [];
        for (const v of sent) {
          const res = await conns[e]!.query('select $1', { paramTypes: [oid], params: [v] });
          out.push(res.error ? `${v} → ${res.error.code}` : `${v} → ${text(res)[0]![0]}`);
        }
        return out;
      });
      assert.ok(
        r.some((line) => / → 22(008|003)$/.test(line)),
        r.join('\n'),
      );
    }
  });
});

describe('catalog', () => {
  test('names of over 1,024 characters built per row are unknown names at once: to_regclass, current_setting, has_*_privilege, reg* casts', async () => {
    // An attacker review: 2,048 rows of 240 KB names ran 48–112 s past statement_timeout inside one vector
    // (every name compared with every catalog row) and once took the process past its data limit.
    for (const e of ENGINES) await conns[e]!.query("SET statement_timeout = '60s'");
    try {
      const long = "repeat('a', 240000) || i";
      for (const sql of [
        `select count(to_regclass(${long})) from generate_series(1, 2048) i`,
        `select count(to_regnamespace(${long})) + count(to_regtype(${long})) from generate_series(1, 300) i`,
        `select count(current_setting(${long}, true)) from generate_series(1, 300) i`,
      ])
        await same((e) => answerOf(e, sql));
      const name = "repeat('a', 2000)";
      await refusedOnBoth(`select has_table_privilege(${name}, 'select')`, [], '42P01');
      await refusedOnBoth(`select ${name}::regclass`, [], '42P01');
      await refusedOnBoth(`select ${name}::regtype`, [], '42704');
      await refusedOnBoth(`select current_setting(${name})`, [], '42704');
      await refusedOnBoth(`select has_function_privilege(${name} || '()', 'execute')`, [], '42883');
    } finally {
      for (const e of ENGINES) await conns[e]!.query('RESET statement_timeout');
    }
  });

  test('system columns of catalog tables: tableoid, xmin, ctid', async () => {
    for (const [rel, oid] of [
      ['pg_class', 1259],
      ['pg_attribute', 1249],
      ['pg_type', 1247],
      ['pg_proc', 1255],
      ['pg_namespace', 2615],
    ] as const) {
      const r = await same(async (e) => {
        const res = await conns[e]!.query(
          `select tableoid, xmin <> '0'::xid as live, ctid is not null as has_ctid from ${rel} limit 1`,
        );
        return { rows: text(res), types: res.rowDescription!.fields.map((f) => f.dataTypeID) };
      });
      assert.deepEqual(r.rows, [[String(oid), 't', 't']]);
      assert.deepEqual(r.types, [26, 16, 16]);
    }
    await same(async (e) =>
      text(
        await conns[e]!.query(
          "select c.tableoid::regclass::text, c.relname from pg_class c where c.relname = 'orders'",
        ),
      ),
    );
    // SELECT * does not grow them (PostgreSQL lists system columns only by name).
    await same(async (e) =>
      (await conns[e]!.query('select * from pg_namespace limit 0')).rowDescription!.fields.map((f) => f.name),
    );
  });

  test('pg_index_column_has_property and relatives answer NULL for a table, as for any non-index', async () => {
    await same(async (e) =>
      text(
        await conns[e]!.query(`select pg_index_column_has_property('sales.orders'::regclass, 1, 'asc') is null,
      pg_index_has_property('sales.orders'::regclass, 'clusterable') is null`),
      ),
    );
  });

  test('"char" columns are OID 18 and one byte in binary (asyncpg decodes b\'b\')', async () => {
    await same(async (e) => {
      const r = await conns[e]!.query('select typtype, typcategory from pg_type where oid = 16', {
        resultFormats: [1],
      });
      return {
        types: r.rowDescription!.fields.map((f) => [f.dataTypeID, f.dataTypeSize]),
        row: splitDataRow(r.dataRows[0]!).map((b) => b?.toString('hex')),
      };
    });
    // Aliased, as asyncpg's introspection reads them (`t.typtype AS kind`): the column's type, not its name, decides.
    const aliased = await same(async (e) => {
      const r = await conns[e]!.query(
        `select t.oid as id, t.typtype as kind, t.typname as tname, t.typlen as len, t.typelem as elem, n.nspname as ns
        from pg_type t join pg_namespace n on n.oid = t.typnamespace where t.oid = 1007`,
        { resultFormats: [1] },
      );
      return {
        types: r.rowDescription!.fields.map((f) => f.dataTypeID),
        row: splitDataRow(r.dataRows[0]!).map((b) => b?.toString('hex')),
      };
    });
    assert.deepEqual(aliased.types, [26, 18, 19, 21, 26, 19]);
  });
});

describe('RowDescription source columns', () => {
  test('table OID and attnum for plain table columns agree with pg_class and pg_attribute; 0 for expressions', async () => {
    await same(async (e) => {
      const c = conns[e]!;
      const r = await c.query(
        `select o.order_id, o.amount * 2 as d, status, c.* from sales.orders o join sales.customers c on c.customer_id = o.customer_id limit 1`,
      );
      const oids = text(
        await c.query("select 'sales.orders'::regclass::oid, 'sales.customers'::regclass::oid"),
      )[0]!.map(Number);
      const atts = text(
        await c.query(
          "select attname, attnum from pg_attribute where attrelid = 'sales.orders'::regclass and attname = 'status'",
        ),
      );
      const name = (oid: number) =>
        oid === 0 ? 0 : oid === oids[0] ? 'orders' : oid === oids[1] ? 'customers' : `other ${oid}`;
      return { fields: r.rowDescription!.fields.map((f) => [f.name, name(f.tableID), f.columnID]), atts };
    });
  });
});

describe('PostgreSQL arithmetic', () => {
  test('integer division truncates (7/2 = 3)', async () => {
    await same(async (e) => text(await conns[e]!.query('select 7/2, -7/2, 1/3, (-9)/4, 9 % 4, 2^3')));
  });
  test('division by zero raises 22012 as in PostgreSQL; a bare parameter divisor still answers NULL (docs/compatibility.md)', async () => {
    for (const sql of [
      'select 1/0',
      'select 1.0::float8/0',
      'select qty % (qty - qty) from sales.orders',
      'select amount / (qty * 0) from sales.orders',
    ]) {
      for (const e of ENGINES) assert.equal((await conns[e]!.query(sql)).error?.code, '22012', `${e}: ${sql}`);
    }
    const sql = 'select qty % $1 from sales.orders limit 1';
    assert.equal((await conns.pg!.query(sql, { params: ['0'] })).error?.code, '22012');
    assert.deepEqual(text(await conns.gw!.query(sql, { params: ['0'] })), [[null]]);
    // The connection is usable and answers as before.
    await same(async (e) => text(await conns[e]!.query('select 7 / 2, count(*) from sales.orders')));
  });
});

describe('PostgreSQL meanings DuckDB spells differently (compat/pg-calls.ts)', () => {
  const SAME = [
    'select generate_series(1, 3)',
    'select generate_series(1, 3) + 1 as g, 2 as h',
    'select a from generate_series(1, 3) a',
    'select g from generate_series(2, 10, 4) g',
    "select d::date from generate_series(timestamp '2024-01-01', timestamp '2024-01-03', interval '1 day') d",
    "select format('%s has %s', name, country) from sales.customers order by customer_id limit 3",
    "select format('%I %L %L %% %2$s', 'Ab', 'it''s', null), format('x'), format('%s|%s', null, 1)",
    'select 1234567890123456::numeric, 12345678901234567890.123456789::numeric * 2',
    'select 1::float / 3, 16777217::float, cast(16777217 as float), pg_typeof(1::float), pg_typeof(cast(1 as float(10)))',
    'select qty::float / 7 from sales.orders order by order_id limit 3',
    "select '1.50'::numeric, cast('0.000123' as numeric), 1.5::decimal + 1",
    "select 'abc'::char(2), 'a'::char(3) || '|', 'abc'::varchar(2), cast('abcd' as character varying(3))",
    "select 'a'::char(3) = 'a'",
    'select count(*) from sales.orders tablesample bernoulli (100)',
    'select count(*) from sales.orders tablesample system (0)',
    'select count(*) between 1 and 79 from sales.orders tablesample bernoulli (50) repeatable (7)',
    "select row(1, 'a'), (1, 'x', null) as r, 2 as b",
    "select row(name, 'a b', '', null, signup, amount) from sales.customers c join sales.orders o using (customer_id) order by order_id limit 2",
    "select count(*) from sales.orders where (qty, status) = (1, 'paid')",
    `select to_char(ordered_at, 'YYYY-MM-DD HH24:MI:SS'), to_char(ordered_at, 'FMDD Month YYYY'), to_char(ordered_at, 'Dy, DD Mon YY "at" HH12 AM Q D') from sales.orders order by order_id limit 3`,
    "select to_char(signup, 'MONTH|Day|FMMonth|mon|DDD|FMHH24:MI') from sales.customers order by customer_id limit 3",
    "select to_date('05 Dec 2000', 'DD Mon YYYY'), to_timestamp('2024-03-01 10:11:12', 'YYYY-MM-DD HH24:MI:SS'), to_number('12,454.8', '99G999D9')",
    "select initcap('hello wORLD-foo bar2baz'), initcap(name) from sales.customers order by customer_id limit 3",
    'select width_bucket(5.35, 0.024, 10.06, 5), width_bucket(-1, 0, 10, 5), width_bucket(10, 0, 10, 5), width_bucket(qty, 0, 10, 4) from sales.orders order by order_id limit 3',
    'select json_agg(qty) from sales.orders where order_id < 4',
    "select json_agg(name order by name) filter (where name like 'C%'), jsonb_agg(customer_id order by customer_id) from sales.customers",
    "select date_bin(interval '15 minutes', timestamp '2020-02-11 15:44:17', timestamp '2001-01-01'), date_bin(interval '1 day', ordered_at, timestamp '2000-01-01') from sales.orders order by order_id limit 2",
    "select date_trunc('day', timestamptz '2024-03-10 05:00+00', 'America/New_York'), date_trunc('hour', timestamptz '2024-11-03 06:30+00', 'America/New_York'), date_trunc('month', timestamptz '2024-01-31 20:00+00', 'Asia/Kolkata'), date_trunc('week', ordered_at::timestamptz, 'Europe/Paris') from sales.orders order by order_id limit 3",
    'select pg_size_pretty(1024::bigint), pg_size_pretty(10240::bigint), pg_size_pretty(123456789::bigint), pg_size_pretty(99999999999999::bigint), pg_size_pretty(-20000::bigint)',
    "select encode('abc'::bytea, 'base64'), encode('abc'::bytea, 'hex'), decode('616263', 'hex'), decode('YWJj', 'base64')",
    "select name similar to 'C%', name not similar to '%(1|2)', status similar to '_pen' from sales.customers join sales.orders using (customer_id) order by order_id limit 5",
    'select pg_typeof(amount), pg_typeof(qty), pg_typeof(name), pg_typeof(ordered_at), pg_typeof(1.5), pg_typeof(order_id) from sales.orders join sales.customers using (customer_id) limit 1',
  ];
  for (const sql of SAME) {
    test(sql, async () => {
      await same(async (e) => {
        const r = await conns[e]!.query(sql);
        return { names: r.rowDescription?.fields.map((f) => f.name), rows: text(r) };
      });
    });
  }
  test('row constructors are records (2249) in text and binary', async () => {
    await same(async (e) => {
      const r = await conns[e]!.query("select row(1::int4, 'a b'::text, null::int8, 2.50::numeric(5,2)) as r", {
        resultFormats: [1],
      });
      return {
        types: r.rowDescription!.fields.map((f) => f.dataTypeID),
        row: splitDataRow(r.dataRows[0]!).map((b) => b?.toString('hex')),
      };
    });
  });
  test('what has no faithful translation is refused 0A000 with a hint: format() of a non-constant or with a width from an argument, TABLESAMPLE of a non-constant, regexp_matches, to_char of a number in EEEE form', async () => {
    for (const sql of [
      'select format(name, 1) from sales.customers',
      "select format('%*s', 10, 'a')",
      'select count(*) from sales.orders tablesample bernoulli (1 + 1)',
      "select regexp_matches('abc123', '[0-9]+')",
      "select to_char(amount, '9.99EEEE') from sales.orders",
      "select to_char(ordered_at, 'TZ') from sales.orders",
    ]) {
      const r = await conns.gw!.query(sql);
      assert.equal(r.error?.code, '0A000', sql);
      assert.ok(r.error?.hint, `a hint: ${sql}`);
    }
    await same(async (e) => text(await conns[e]!.query('select count(*) from sales.orders')));
  });
  test("a value's text inside a subquery, and a subquery's array as text: PostgreSQL 15's, each value and subquery bound once", async () => {
    for (const sql of [
      'select (select array[o.qty]::text) as a from sales.orders o order by order_id limit 3',
      "select (select concat(o.qty, true, 1.0::float8, interval '14 months', array[o.qty])) as c from sales.orders o order by order_id limit 2",
      "select array_to_string(array(select o2.status from sales.orders o2 where o2.customer_id = o.customer_id order by o2.order_id), ',') as s from sales.orders o order by order_id limit 3",
      "select (select string_agg(o2.amount::text, ';' order by o2.order_id) from sales.orders o2 where o2.customer_id = o.customer_id) as s from sales.orders o order by order_id limit 3",
    ]) {
      const [p, g] = [await conns.pg!.query(sql), await conns.gw!.query(sql)];
      assert.deepEqual(text(g), text(p), sql);
    }
    // psql's \dp: each ARRAY(subquery) was its own overload tag, so bound twice (and the text of its
    // elements read by type name at run time, every type's branch bound): 29 MB of bound plan, 7-21 s
    const dp = `SELECT c.relname, pg_catalog.array_to_string(ARRAY(SELECT attname || E':\\n  ' || pg_catalog.array_to_string(attacl, E'\\n  ')
      FROM pg_catalog.pg_attribute a WHERE attrelid = c.oid AND NOT attisdropped AND attacl IS NOT NULL), E'\\n') AS "Column privileges"
      FROM pg_catalog.pg_class c WHERE c.relname = 'orders'`;
    const rewritten = rewriteForDuckDB(dp);
    assert.equal(rewritten.split('pgcat.pg_attribute').length - 1, 1, rewritten);
    assert.doesNotMatch(rewritten, /_pgsem_\w+_any\(/, rewritten);
    assert.deepEqual(text(await conns.gw!.query(dp)), text(await conns.pg!.query(dp)));
  });

  test("column names as PostgreSQL 15 figures them when the rewrite changed the item: a CASE by its ELSE branch's name, a scalar subquery by its column's", async () => {
    // Before (new-user review): `case` for the CASE, the type's name for the cast subquery (`text`, `numeric`, `varchar`).
    for (const sql of [
      'select case when qty > 5 then amount else amount end, case when true then 1 else qty end, case when qty > 1 then 1 end from sales.orders order by order_id limit 1',
      'select (select max(amount) from sales.orders)::text, (select sum(amount) from sales.orders)::numeric, (select status from sales.orders order by order_id limit 1)::varchar, (select max(qty) m from sales.orders)::text, (select 1)::text, array(select 1), exists(select 1)',
    ]) {
      const [p, g] = [await conns.pg!.query(sql), await conns.gw!.query(sql)];
      const names = (r: QueryResult) => r.rowDescription?.fields.map((f) => f.name);
      assert.deepEqual(names(g), names(p), sql);
      assert.deepEqual(text(g), text(p), sql);
    }
  });

  test('to_regclass, to_regtype and to_regnamespace in a select list are their reg* type, shown by name; elsewhere compared as OIDs', async () => {
    // Before (new-user review): to_regclass('…') answered the bare OID, typed bigint.
    const sql =
      "select to_regclass('pg_catalog.pg_class'), to_regclass('nosuch'), to_regtype('int4'), to_regnamespace('sales'), (select count(*) from pg_class where oid = to_regclass('pg_catalog.pg_class')) as n";
    await same((e) => answerOf(e, sql));
  });

  test("a type's name as regtype and regprocedure read it: aliases, typmods, case, spaces, arrays (as PostgreSQL's grammar)", async () => {
    // Before (new-user review): 'int'::regtype and 'varchar(10)'::regtype were 42704, so \\sf abs(int) failed.
    const names = [
      'int',
      'varchar(10)',
      'float(24)',
      'float',
      'DOUBLE  PRECISION',
      'pg_catalog.int4[]',
      'int4[][]',
      '_int4',
      'int[]',
      '"char"',
      'char',
      'character varying(3)',
      'timestamp(3) with time zone',
      'numeric(10,2)',
      'decimal',
      'bool',
      'Integer',
      'float(25)',
      'bit varying(3)',
      'national character varying',
    ];
    // and regprocedure's argument types the same way (`\\sf abs(int)`)
    const sql = `select ${names.map((n) => `'${n.replace(/'/g, "''")}'::regtype`).join(', ')}, to_regtype('int'), to_regtype('nosuch'), 'abs(int)'::regprocedure, 'abs(INTEGER)'::regprocedure, 'round(decimal, int)'::regprocedure, 'pg_catalog.abs(pg_catalog.int4)'::regprocedure`;
    await same((e) => answerOf(e, sql));
  });

  test("regproc and regprocedure name every PostgreSQL function as its output functions do: operators', aggregates' and casts' too, an overloaded name qualified", async () => {
    // Before (new-user review): the functions pg_proc does not list printed as OIDs (oprcode 177 for int4pl, aggtransfn
    // 1841, castfunc 481), and an overloaded name was bare (`sum`, `int8`) where regprocout says `pg_catalog.sum`.
    for (const sql of [
      "select oprcode from pg_operator where oprname = '+' and oprleft = 'int4'::regtype and oprright = 'int4'::regtype",
      "select aggtransfn, aggfnoid from pg_aggregate where aggfnoid = 'pg_catalog.sum(int4)'::regprocedure",
      "select castfunc::regproc, castfunc::regprocedure, castfunc::regproc::text from pg_cast where castsource = 'int4'::regtype and casttarget = 'int8'::regtype",
      'select 78::regproc, 78::regprocedure, 1841::regproc, 177::regprocedure, 2108::regproc::text, 0::regproc',
      "select o.oprleft::regtype, o.oprright::regtype, o.oprcode, o.oprcode::regprocedure from pg_operator o where o.oprname in ('+', '-', '*', '/', '=', '<') and o.oprleft in ('int4'::regtype, 'int8'::regtype, 'float8'::regtype) and o.oprright in ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'float8'::regtype) order by o.oid",
      "select a.aggfnoid, a.aggfnoid::regprocedure, a.aggtransfn, a.aggfinalfn, a.aggcombinefn from pg_aggregate a where a.aggfnoid in ('pg_catalog.sum(int4)'::regprocedure, 'pg_catalog.avg(int8)'::regprocedure, 'pg_catalog.count()'::regprocedure) order by a.aggfnoid::oid",
      // the type I/O functions stay as they were (unique names, bare)
      "select t.typname, t.typinput, t.typoutput, t.typreceive, t.typsend, t.typinput::text from pg_type t where t.typname in ('int4', '_int4', 'char', 'numeric', 'text') order by t.oid",
    ])
      await same((e) => answerOf(e, sql));
  });

  test("extract of the seconds' fields by any of PostgreSQL's spellings: numeric at scale 6 / 3 / 0, of timestamps, intervals and times", async () => {
    // Before (new-user review): extract(millisecond …) was DuckDB's integer (0, 1500); only `milliseconds` was PostgreSQL's.
    const sql =
      "select extract(millisecond from ordered_at), extract(ms from ordered_at), extract(msec from ordered_at + interval '1.2345 s'), extract(secs from ordered_at), extract(us from ordered_at), extract(millisecond from interval '1.5 seconds'), extract(sec from interval '1.5 seconds'), extract(usec from time '10:00:01.5') from sales.orders order by order_id limit 2";
    await same((e) => answerOf(e, sql));
  });

  test('a bare NULL in a select list is text, as PostgreSQL types its unknown; beside another branch of a UNION it takes that type', async () => {
    // Before (new-user review): int4, DuckDB's type for a NULL result column.
    for (const sql of [
      'select null',
      'select null as x, 1 as y, null',
      'select null, status from sales.orders order by order_id limit 2',
      'select null union all select 1',
    ])
      await same((e) => answerOf(e, sql));
  });

  test('unknown functions are 42883 "does not exist" with what to use instead (not 42501)', async () => {
    for (const [sql, hint] of [
      ['select nosuchfunc(1)', /No function/],
      ['select json_object_agg(name) from sales.customers', /json_group_object/],
      ['select jsonb_build_array(1, 2)', /json_build_array/],
      ['select to_jsonb(1)', /to_json\(x\)/],
    ] as const) {
      const r = await conns.gw!.query(sql);
      assert.equal(r.error?.code, '42883', sql);
      assert.match(r.error?.hint ?? '', hint, sql);
    }
    // Refused on purpose stays a permission error.
    assert.equal((await conns.gw!.query("select getenv('HOME')")).error?.code, '42501');
  });
});

describe('visible schemas', () => {
  test("the default search_path lists the version's schemas: psql \\dt, pg_table_is_visible and unqualified names agree", async () => {
    const r = await runProbe(
      'psql',
      [
        `host=${twins!.gw.host} port=${twins!.gw.port} dbname=basic@v2 user=me`,
        '-X',
        '-A',
        '-t',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        'show search_path',
        '-c',
        '\\dt',
        '-c',
        'select count(*) from orders',
        '-c',
        'select count(*) from all_types',
        '-c',
        "select count(*) from pg_class c where relkind = 'r' and pg_table_is_visible(c.oid) and relnamespace <> 'pg_catalog'::regnamespace",
      ],
      { timeoutMs: 30_000 },
    );
    assert.equal(r.code, 0, describeProbe(r));
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[0], '"$user", public, main, sales');
    const dt = lines.filter((l) => l.split('|').length === 4).map((l) => l.split('|').slice(0, 2).join('.'));
    assert.deepEqual(dt, ['main.all_types', 'main.all_types_inlined', 'sales.customers', 'sales.orders']);
    // DuckLake's default schema main stands for PostgreSQL's public: its tables resolve unqualified.
    assert.deepEqual(lines.slice(-3), ['80', lines.at(-2), String(dt.length)]);
    assert.match(lines.at(-2)!, /^\d+$/);
    // A search_path the client sets is honoured: sales is no longer visible.
    const c = conns.gw!;
    assert.equal((await c.simple('set search_path = public')).error, undefined);
    assert.equal((await c.query('select count(*) from orders')).error?.code, '42P01');
    assert.deepEqual(
      text(await c.query('select count(*) from all_types')),
      [[lines.at(-2)!]],
      "public is DuckLake's main",
    );
    assert.equal((await c.simple('set search_path = main')).error, undefined);
    assert.deepEqual(text(await c.query('select count(*) from all_types')), [[lines.at(-2)!]], 'main by its own name');
    assert.equal((await c.simple('reset search_path')).error, undefined);
    assert.deepEqual(text(await c.query('select count(*) from orders')), [['80']]);
  });
});

test("current_setting('fdl.ref' | 'fdl.version' | 'fdl.repository' | 'search_path') answers as SHOW does, also after SET fdl.ref", async () => {
  const c = await RawPg.connect({ port: twins!.gw.port, user: 'me', database: 'basic@v2' });
  try {
    const settings = async () =>
      text(
        await c.query(
          "select current_setting('fdl.ref'), current_setting('fdl.version'), current_setting('fdl.repository'), current_setting('search_path')",
        ),
      )[0]!;
    const shown = async () => {
      const out: (string | null)[] = [];
      for (const n of ['fdl.ref', 'fdl.version', 'fdl.repository', 'search_path'])
        out.push(text(await c.simple(`show ${n}`))[0]![0]!);
      return out;
    };
    const before = await settings();
    assert.equal(before[0], 'v2');
    assert.equal(before[2], 'basic');
    assert.deepEqual(before, await shown());
    assert.ok(text(await c.simple('set fdl.ref = v1')));
    const after = await settings();
    assert.equal(after[0], 'v1');
    assert.notEqual(after[1], before[1], 'the version follows the ref');
    assert.deepEqual(after, await shown());
  } finally {
    await c.close();
  }
});

describe('errors worded as PostgreSQL', () => {
  test("integer and numeric overflow: 22003 with PostgreSQL's message", async () => {
    for (const sql of [
      'select 99999999999::int',
      'select 2147483647::int4 + 1',
      'select 9223372036854775807::int8 + 1',
      'select 32767::int2 + 1::int2',
      'select 99.995::numeric(4,2)',
      "select current_setting('threads')",
    ]) {
      const [p, g] = await Promise.all([conns.pg!.query(sql), conns.gw!.query(sql)]);
      assert.ok(p.error, `PostgreSQL refuses ${sql}`);
      assert.deepEqual([g.error?.code, g.error?.message], [p.error.code, p.error.message], sql);
    }
  });
});

describe('settings PostgreSQL shows', () => {
  test('SET of a setting SHOW answers is kept and shown back (no effect); a bad value 22023, a server-wide setting 55P02', async () => {
    const steps = [
      "SET work_mem = '64MB'",
      'SHOW work_mem',
      'SET maintenance_work_mem = 131072',
      'SHOW maintenance_work_mem',
      "SET work_mem = '1GB'",
      "select current_setting('work_mem')",
      "select setting, unit from pg_settings where name in ('work_mem', 'maintenance_work_mem') order by name",
      'SET enable_seqscan = off',
      'SHOW enable_seqscan',
      "SET enable_seqscan TO 'TRUE'",
      'SHOW enable_seqscan',
      "SET synchronous_commit TO 'local'",
      'SHOW synchronous_commit',
      "SET random_page_cost = '1.5'",
      'SHOW random_page_cost',
      "SET lock_timeout = '2s'",
      "SET work_mem = 'lots'",
      "SET work_mem = '64 parsecs'",
      'SET work_mem = 10',
      "SET enable_seqscan = 'maybe'",
      "SET synchronous_commit = 'sometimes'",
      "SET shared_buffers = '1GB'",
      'RESET work_mem',
      'SHOW work_mem',
      "select setting from pg_settings where name = 'work_mem'",
      'RESET enable_seqscan',
      'SHOW enable_seqscan',
    ];
    await same(async (e) => {
      const out: unknown[] = [];
      for (const sql of steps) {
        const r = await conns[e]!.query(sql);
        out.push(r.error ? `${sql} → ${r.error.code}` : [sql, text(r)]);
      }
      return out;
    });
  });
});

describe("errors at PostgreSQL's SQLSTATE and position (issue 25, session 46)", () => {
  /** The ErrorResponse's SQLSTATE and position (1-based characters), as a client reads them. */
  const failure = async (c: RawPg, sql: string) => {
    const r = await c.query(sql);
    const e = r.messages.find((m) => m.code === 'E')?.parsed as unknown as { code: string; position?: string };
    return { code: e?.code, position: e?.position };
  };
  test('a syntax error reports where it is, as PostgreSQL does (psql draws the LINE and caret)', async () => {
    for (const sql of [
      'select 1 +',
      'selec 1',
      'select 1 from where',
      "select 'é' from where",
      'select 1,\n 2 from where',
    ]) {
      const [p, g] = await Promise.all([failure(conns.pg!, sql), failure(conns.gw!, sql)]);
      assert.equal(p.code, '42601', sql);
      assert.ok(p.position, sql);
      assert.deepEqual(g, p, sql);
    }
  });
  test('date_trunc of an unknown unit 22023, to_timestamp past the range 22008, ORDER BY past the select list 42P10 at its place', async () => {
    for (const sql of [
      "select date_trunc('bogus', ordered_at) from sales.orders",
      "select date_part('bogus', ordered_at) from sales.orders",
      'select to_timestamp(1e20)',
      'select 1 from sales.orders order by 2',
    ]) {
      const [p, g] = await Promise.all([failure(conns.pg!, sql), failure(conns.gw!, sql)]);
      assert.ok(p.code, sql);
      assert.deepEqual(g, p, sql);
    }
    const g = await conns.gw!.query('select 1 from sales.orders order by 2');
    assert.equal(g.error?.message, 'ORDER BY position 2 is not in select list');
  });
  test('inet_server_port() is the port the client reached over TCP, as PostgreSQL answers it (it was NULL)', async () => {
    const sql =
      'select inet_server_port(), inet_client_port() > 0, inet_server_addr() is not null, (select count(*) from pg_stat_activity where client_port = inet_client_port())';
    const [p, g] = await Promise.all([conns.pg!.query(sql), conns.gw!.query(sql)]);
    assert.deepEqual(text(p), [[String(twins!.pg.port), 't', 't', '1']]);
    assert.deepEqual(text(g), [[String(twins!.gw.port), 't', 't', '1']]);
  });
  test('setseed and pg_sleep, which PostgreSQL answers for any user: 0A000 with a hint, not 42501', async () => {
    for (const sql of ['select setseed(0.5)', 'select pg_sleep(0)']) {
      const g = await conns.gw!.query(sql);
      assert.equal(g.error?.code, '0A000', sql);
      assert.ok(g.error?.hint, sql);
      assert.equal((await conns.gw!.query('select 1')).error, undefined);
    }
  });
});

describe('ordered-set aggregates over intervals, times, dates and text (issue 24, session 47)', () => {
  const ivals =
    "(values (interval '1 year 5 months 3 days'), (interval '-7 months 20 days 5 hours'), (interval '13 days 0.000007 seconds'), (null)) t(x)";
  /** Rows as text, or the error's SQLSTATE, message and hint: what a client reads either way. */
  const outcome = async (c: RawPg, sql: string) => {
    const r = await c.query(sql);
    if (r.error) return { code: r.error.code, message: r.error.message, hint: r.error.hint };
    return { rows: text(r), types: r.rowDescription?.fields.map((f) => f.dataTypeID) };
  };
  test("percentile_cont of intervals (a time read as one) interpolated as PostgreSQL's interval_lerp; of other types its 42883, never DuckDB's quantile_cont", async () => {
    for (const sql of [
      `select percentile_cont(0.5) within group (order by x) from ${ivals}`,
      `select percentile_cont(0.3) within group (order by x), percentile_cont(0.71) within group (order by x desc) from ${ivals}`,
      `select percentile_cont(array[0.25, null, 0.9, 1]) within group (order by x) from ${ivals}`,
      `select percentile_cont(0.5) within group (order by x) filter (where x > interval '1 day') from ${ivals}`,
      `select percentile_cont(0.5) within group (order by x) from ${ivals} where false`,
      `select percentile_cont(1.5) within group (order by x) from ${ivals}`,
      `select percentile_cont(array[0.25, 1.5]) within group (order by x) from ${ivals}`,
      "select status, percentile_cont(0.5) within group (order by ordered_at - timestamp '2024-01-01') from sales.orders group by status order by status",
      'select percentile_cont(0.5) within group (order by ordered_at::time) from sales.orders',
      'select percentile_cont(array[0.25, 0.5, 0.9]) within group (order by amount) from sales.orders',
      'select percentile_cont(0.5) within group (order by ordered_at) from sales.orders',
      'select percentile_cont(0.5::float8) within group (order by ordered_at::date) from sales.orders',
      'select percentile_cont(array[0.5]) within group (order by ordered_at::timestamptz) from sales.orders',
      'select percentile_cont(1) within group (order by status) from sales.orders',
      'select percentile_cont(0.5) within group (order by qty > 1) from sales.orders',
      // percentile_disc and mode keep the ordered type, as in PostgreSQL
      `select percentile_disc(0.5) within group (order by x), mode() within group (order by x) from ${ivals}`,
      'select percentile_disc(array[0.5, 1]) within group (order by ordered_at::date), mode() within group (order by status) from sales.orders',
      'select percentile_disc(0.5) within group (order by status), percentile_disc(0.5) within group (order by ordered_at) from sales.orders',
    ]) {
      const [p, g] = await Promise.all([outcome(conns.pg!, sql), outcome(conns.gw!, sql)]);
      assert.deepEqual(g, p, sql);
    }
  });
});

describe('numeric typmods in RowDescription (issue 24, session 47)', () => {
  /** Each column's type OID and typmod, as a driver reads them (node pg's fields[].dataTypeModifier, psql's \gdesc). */
  const typmods = async (c: RawPg, sql: string) => {
    const r = await c.query(sql);
    assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
    return r.rowDescription!.fields.map((f) => `${f.name} ${f.dataTypeID}/${f.dataTypeModifier}`);
  };
  test('a numeric(p,s) column and a cast to numeric(p,s) keep it; computed columns and literals are -1, as PostgreSQL sends them', async () => {
    for (const sql of [
      'select amount, sum(amount) as s, amount * 2 as m, round(amount, 2) as r, amount + amount as p, -amount as neg, abs(amount) as ab, min(amount) as mn, avg(amount) as a from sales.orders group by amount order by amount limit 1',
      'select amount::numeric(10,3) as c, amount::numeric as bare, (select max(amount) from sales.orders) as sub, 1.5 as lit, 1.5::numeric(5,2) as lit52, 2::numeric as n from sales.orders limit 1',
      'select o.*, amount - 1 as d from sales.orders o limit 1',
      'select amount from sales.orders union all select amount from sales.orders limit 1',
      'select x, x * 2 as m from (values (1.5::numeric(10,2))) t(x)',
      'select case when false then amount else 0 end as c from sales.orders limit 1',
    ]) {
      const [p, g] = await Promise.all([typmods(conns.pg!, sql), typmods(conns.gw!, sql)]);
      assert.deepEqual(g, p, sql);
    }
  });
  test("a choice among numerics (CASE, COALESCE, NULLIF, GREATEST, LEAST) keeps the typmod its branches agree on; a derived table's, CTE's, VALUES' or set operation's column its items'", async () => {
    for (const sql of [
      // branches that agree keep it; a NULL (CASE's missing ELSE), a literal or another typmod makes it -1
      'select coalesce(amount, amount) as c, coalesce(amount, 0) as z, coalesce(amount, null) as n, coalesce(amount, amount::numeric(10,2)) as d from sales.orders limit 1',
      'select case when qty > 1 then amount else amount end as c, case when qty > 1 then amount end as n, case qty when 1 then amount else null end as e from sales.orders limit 1',
      'select nullif(amount, 0) as c, nullif(1.5, amount) as l, greatest(amount, amount) as g, least(amount, amount, amount::numeric(12,2)) as l2, greatest(amount, 1) as g1 from sales.orders limit 1',
      'select coalesce(amount::numeric(10,3), amount::numeric(10,3)) as c, coalesce(amount::numeric(10,3), amount) as d, coalesce(nullif(o.amount, 0), case when qty > 1 then o.amount else amount end) as e from sales.orders o limit 1',
      'select coalesce(o.amount, p.amount) as e, nullif(o.amount, 1) as n from sales.orders o join sales.orders p using (order_id) limit 1',
      // through a derived table, a CTE, VALUES and a set operation
      'select c, t.d from (select amount * 2 as c, coalesce(amount, amount) as d from sales.orders) t limit 1',
      'with w as (select amount * 2 as c, amount, round(amount, 1) as r from sales.orders) select * from w limit 1',
      'with w(a, b) as (select amount, amount * 2 from sales.orders) select coalesce(a, a) as x, b, a from w limit 1',
      'select x.*, coalesce(x.amount, x.amount) as c from (select amount, amount * 2 as d from sales.orders) x limit 1',
      'select * from (values (1.5::numeric(10,2)), (2.5)) t(x)',
      'select coalesce(x, x) as c, y from (values (1.5::numeric(10,2), 2.5::numeric(5,1)), (1, 2.5::numeric(5,1))) t(x, y)',
      'select amount from (select amount from sales.orders union select amount * 1 from sales.orders) t limit 1',
      'select amount from sales.orders union select amount::numeric(10,3) from sales.orders limit 1',
      'select coalesce(amount, amount) as c from sales.orders union all select nullif(amount, 3) from sales.orders limit 1',
    ]) {
      const [p, g] = await Promise.all([typmods(conns.pg!, sql), typmods(conns.gw!, sql)]);
      assert.deepEqual(g, p, sql);
    }
  });
});

test("date_part and extract of a unit a time of day has not: PostgreSQL's 0A000 and words (DuckDB's binder answered 42883); the units it has, and other types, answered", async () => {
  for (const sql of [
    "select date_part('year', ordered_at::time) from sales.orders",
    "select date_part('Day', time '10:00')",
    'select extract(year from ordered_at::time) from sales.orders',
    "select date_part('dow', timetz '10:00+02')",
    "select extract(month from timetz '10:00+02')",
    "select date_part('isoyear', max(ordered_at::time)) from sales.orders",
    "select date_part('timezone', time '10:00')",
    "select date_part('timezone_hour', ordered_at) from sales.orders",
  ]) {
    const [p, g] = [await conns.pg!.query(sql), await conns.gw!.query(sql)];
    assert.equal(p.error?.code, '0A000', sql);
    assert.deepEqual([g.error?.code, g.error?.message], [p.error?.code, p.error?.message], sql);
  }
  for (const sql of [
    "select date_part('hour', ordered_at::time), extract(minute from ordered_at::time), date_part('epoch', ordered_at::time) from sales.orders order by order_id",
    "select date_part('timezone', timetz '10:00+02'), date_part('year', ordered_at), extract(day from ordered_at), date_part('month', interval '14 months') from sales.orders order by order_id",
    "select date_part('year', null::time), extract(day from null::timetz), date_part('timezone', null::time)",
  ]) {
    const [p, g] = [await conns.pg!.query(sql), await conns.gw!.query(sql)];
    assert.deepEqual(text(g), text(p), sql);
  }
});

test('JSON set-returning functions: bound parameters described and answered as PostgreSQL 15; a value DuckDB would print differently refused 0A000', async () => {
  const doc = '{"b":2,"a":"x","c":null,"d":[1,{"e":true}]}';
  for (const [sql, params] of [
    ['select key, value from json_each($1::json) order by key', [doc]],
    ['select * from json_each_text($1::json) with ordinality as t(k, v, n)', [doc]],
    ['select k from jsonb_object_keys($1::jsonb) k', ['{"bb": 1, "a": 2, "c": 3}']],
    ['select e ->> $2::text from json_array_elements($1::json) e', ['[{"a":1},{"a":"two"},{}]', 'a']],
    ['select value, ordinality from json_array_elements($1::json) with ordinality', ['[1, "x", null, true]']],
    ['select json_array_elements_text($1::json), generate_series(1, 2)', ['["x", "y", "z"]']],
  ] as const)
    await same((e) => describeThenExecute(e, sql, [...params]));
  // PostgreSQL keeps json's number text (1.50); DuckDB would print 1.5: refused, and the session goes on
  const refused = await conns.gw!.query("select * from json_array_elements('[1.50, 2]')");
  assert.equal(refused.error?.code, '0A000');
  assert.match(refused.error?.hint ?? '', /->>/);
  assert.deepEqual(text(await conns.gw!.query("select * from json_array_elements('[1.5, 2]')")), [['1.5'], ['2']]);
  // the wrong shape: PostgreSQL's SQLSTATE and words on both
  for (const [sql, message] of [
    ["select * from jsonb_array_elements_text('{}')", 'cannot extract elements from an object'],
    ["select json_object_keys('[1]')", 'cannot call json_object_keys on an array'],
  ] as const) {
    const [p, g] = [await conns.pg!.query(sql), await conns.gw!.query(sql)];
    assert.equal(p.error?.code, '22023', sql);
    assert.equal(g.error?.code, '22023', sql);
    assert.equal(g.error?.message, message, sql);
    assert.equal(p.error?.message, message, sql);
  }
});

describe('float arithmetic over the version’s columns (issue 26, session 57)', () => {
  before(async () => {
    // PostgreSQL gets the integers and floats of the fixture's main.all_types (NULL, NaN, ±Infinity among them)
    const r = await conns.gw!.simple('select id, i32, i64, f64 from all_types');
    assert.equal(r.error, undefined, r.error?.message);
    const values = r.dataRows.map((d) => `(${splitDataRow(d).map((v) => (v === null ? 'NULL' : `'${v}'`))})`);
    twins!.pg.psql(
      `CREATE TABLE all_types (id int, i32 int, i64 bigint, f64 float8); INSERT INTO all_types VALUES ${values.join(', ')}`,
    );
  });

  /** Each statement's rows, or its SQLSTATE and message, the same on both; the connection unchanged after each. */
  async function sameOutcomes(cases: readonly (readonly [string, readonly (string | null)[]])[]): Promise<string[]> {
    const refused: string[] = [];
    for (const [sql, params] of cases) {
      const answer = await same(async (e) => {
        const res = await conns[e]!.query(sql, { params: [...params] });
        return res.error ? `${res.error.code} ${res.error.message}` : text(res);
      });
      if (typeof answer === 'string') refused.push(answer);
      for (const e of ENGINES)
        assert.deepEqual(text(await conns[e]!.query('SELECT count(*) FROM sales.orders')), [['80']], `${e}: ${sql}`);
    }
    return refused;
  }

  test('a float sum or difference of a NULL is NULL, not 22003: the check asks for an overflow, not for a finite value', async () => {
    const refused = await sameOutcomes([
      [
        'select id, f64 + f64 as x, f64 - 1.5::float8 as y, f64 * 2.5::float8 + f64 as z from all_types order by id',
        [],
      ],
      ['select sum(f64 + f64) as s from all_types where id in (1, 2)', []],
      ['select f64 + 1.7e308::float8 + 1.7e308::float8 as x from all_types where id = 2', []],
    ]);
    assert.deepEqual(refused, []);
    // and an overflow of finite values is still PostgreSQL's 22003
    assert.deepEqual(
      await sameOutcomes([['select f64 + 1.7e308::float8 + 1.7e308::float8 as x from all_types where id = 1', []]]),
      ['22003 value out of range: overflow'],
    );
  });

  test('where a column is a float, + - * overflow is 22003 as PostgreSQL’s; over integer and numeric columns, left unchecked (pg/operand-types.ts), the same answers', async () => {
    const product = Array.from({ length: 9 }, () => '1e37').join(' * ');
    const refused = await sameOutcomes([
      // a float column by its name, through an alias, from a correlated subquery: checked
      [`select f64 * ${product} as x from all_types where id = 1`, []],
      [`select a.f64 * ${product} as x from all_types a where a.id = 1`, []],
      [`select (select a.f64 * ${product} from sales.orders limit 1) as x from all_types a where a.id = 1`, []],
      [`select f64 * ${product} as x from all_types where id in (2, 3, 4, 5) order by id`, []],
      ['select i64 * f64 - f64 as x from all_types where id <> 2 order by id', []],
      ['select i32 * 2 + f64 as x from all_types where id = 4', []],
      // integer and numeric columns: DuckDB's own operators, PostgreSQL's answers and errors
      ['select (i32 - id) * 2 as x, i64 - i32 * 3 as y from all_types where id in (1, 6, 8, 9) order by id', []],
      ['select (i32 - id) * 2 as x from all_types where id = 3', []],
      ['select i64 * i64 as x from all_types where id = 4', []],
      ['select $1::int + i32 as x from all_types where id = $2', ['5', '6']],
      ['select $1::int + order_id as n from sales.orders where order_id = $2', ['100', '3']],
      [
        'select o.qty * c.customer_id - o.amount as x from sales.orders o join sales.customers c using (customer_id) order by order_id limit 5',
        [],
      ],
    ]);
    assert.deepEqual(refused, [
      '22003 value out of range: overflow',
      '22003 value out of range: overflow',
      '22003 value out of range: overflow',
      '22003 integer out of range',
      '22003 integer out of range',
      '22003 bigint out of range',
    ]);
  });
});
