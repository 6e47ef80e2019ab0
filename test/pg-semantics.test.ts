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
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';
import { startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { buildBind, RawPg, splitDataRow, type QueryResult } from './support/raw-pg.js';
import { runProbe, describeProbe } from './support/probe.js';
import { copySalesSchema } from './support/sales-mirror.js';

let pg: PgCluster;
let gw: RunningGateway;
const repos = copyFixtures('repos/basic');
/** One raw connection per engine, reused by every check. */
const conns: { pg?: RawPg; gw?: RawPg } = {};
type Engine = 'pg' | 'gw';
const ENGINES: Engine[] = ['pg', 'gw'];

before(async () => {
  [pg, gw] = await Promise.all([
    startPgCluster(),
    startGateway(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]),
  ]);
  conns.gw = await RawPg.connect({ port: gw.port, user: 'me', database: 'basic@v2' });
  conns.pg = await RawPg.connect({ port: pg.port });
  // PostgreSQL gets the fixture's sales schema and the gateway's default search_path.
  await copySalesSchema(pg, conns.gw);
  await conns.pg.close();
  conns.pg = await RawPg.connect({ port: pg.port });
}, { timeout: 120_000 });

after(async () => {
  await conns.gw?.close().catch(() => undefined);
  await conns.pg?.close().catch(() => undefined);
  await gw?.stop();
  await pg?.stop();
  repos.cleanup();
}, { timeout: 30_000 });

/** Rows as text; a check that expects rows never accepts an error. */
const text = (r: QueryResult) => {
  assert.equal(r.error, undefined, `unexpected error: ${r.error?.code} ${r.error?.message}`);
  return r.dataRows.map((d) => splitDataRow(d).map((v) => (v === null ? null : v.toString())));
};

/** Parse a named statement and Describe it (before any Bind), then Bind/Execute without Describe, as pgjdbc and postgres.js do. */
async function describeThenExecute(e: Engine, sql: string, params: (string | null)[]) {
  const c = conns[e]!;
  c.send(Buffer.concat([serialize.parse({ name: 's1', text: sql, types: [] }), serialize.describe({ type: 'S', name: 's1' }), serialize.sync()]));
  const described = await c.untilReady();
  assert.equal(described.error, undefined, `${e}: Describe ${sql}: ${described.error?.message}`);
  const paramOids = (described.messages.find((m) => m.code === 't')?.parsed as unknown as { dataTypeIDs: number[] }).dataTypeIDs;
  c.send(Buffer.concat([buildBind({ statement: 's1', params }), serialize.execute({ rows: 0 }), serialize.close({ type: 'S', name: 's1' }), serialize.sync()]));
  const executed = await c.untilReady();
  assert.equal(executed.error, undefined, `${e}: Execute ${sql}: ${executed.error?.message}`);
  const fields = described.rowDescription!.fields;
  for (const row of executed.dataRows) assert.equal(splitDataRow(row).length, fields.length, `${e}: DataRow field count matches Describe`);
  return { paramOids, fields: fields.map((f) => [f.name, f.dataTypeID]), rows: text(executed).sort() };
}

/** The same check on both engines must give equal results. */
async function same<T>(check: (e: Engine) => Promise<T>): Promise<T> {
  const [a, b] = [await check('pg'), await check('gw')];
  assert.deepEqual(b, a, 'gateway vs PostgreSQL 15');
  return b;
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
    const r = await same((e) => describeThenExecute(e, 'select attname, atttypid from pg_attribute where attrelid = cast($1 as regclass) and attnum > 0', ['sales.orders']));
    assert.deepEqual(r.paramOids, [2205]);
    assert.deepEqual(r.fields, [['attname', 19], ['atttypid', 26]]);
    assert.equal(r.rows.length, 6);
  });

  test('select cast($1 as regclass): typed regclass, and the text comes back', async () => {
    const r = await same((e) => describeThenExecute(e, 'select cast($1 as regclass)::text as r', ['sales.orders']));
    assert.deepEqual(r.rows, [['orders']]);
    // The column itself is regclass (2205), as are reg* literals, with PostgreSQL's output text.
    const typed = await same((e) => describeThenExecute(e, "select cast($1 as regclass) as r, 'sales.customers'::regclass as c, 'pg_class'::regclass as p, 'int4'::regtype as t, 'pg_catalog'::regnamespace as n", ['sales.orders']));
    assert.deepEqual(typed.fields, [['r', 2205], ['c', 2205], ['p', 2205], ['t', 2206], ['n', 4089]]);
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

  test('unknown reg* names give PostgreSQL\'s errors', async () => {
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
    const r = await same((e) => describeThenExecute(e, 'select count(*) from sales.orders where status = any($1)', ['{shipped,cancelled}']));
    assert.deepEqual(r.paramOids, [1009]);
    assert.deepEqual(r.rows, [['49']]);
  });

  test('<> all($1), IN with parameters, and array text in ANY/ALL, casts and comparisons', async () => {
    await same((e) => describeThenExecute(e, 'select count(*) from sales.orders where status <> all($1)', ['{shipped}']));
    await same((e) => describeThenExecute(e, 'select count(*) from sales.orders where status in ($1, $2)', ['open', 'shipped']));
    await same(async (e) => text(await conns[e]!.query("select relname from pg_class where relkind = ANY('{r,p,f}') and relname in ('orders', 'customers') order by 1")));
    await same(async (e) => text(await conns[e]!.query("select count(*) from sales.orders where status = ANY('{open,\"shipped\"}') and qty <> ALL('{1,2}')")));
    await same(async (e) => text(await conns[e]!.query("select '{1,2,3}'::int[] = ARRAY[1,2,3], array_length('{a,b}'::text[], 1)")));
  });
});

/** Parameter OIDs and result columns of a statement, as the unnamed statement's Describe answers them. */
async function describeOnly(e: Engine, sql: string) {
  const c = conns[e]!;
  c.send(Buffer.concat([serialize.parse({ name: '', text: sql, types: [] }), serialize.describe({ type: 'S', name: '' }), serialize.sync()]));
  const r = await c.untilReady();
  assert.equal(r.error, undefined, `${e}: Describe ${sql}: ${r.error?.code} ${r.error?.message}`);
  return (r.messages.find((m) => m.code === 't')?.parsed as unknown as { dataTypeIDs: number[] }).dataTypeIDs;
}

/**
 * Untyped parameters, each in a context where PostgreSQL infers its type; ParameterDescription must
 * be PostgreSQL 15's. With values: the rows must be equal too.
 */
const INFERENCE: ReadonlyArray<{ sql: string; oids: number[]; params?: string[] }> = [
  // ANY/ALL: an array of the other side's type
  { sql: 'select count(*) from sales.orders where qty < any($1)', oids: [1005], params: ['{2,3}'] },
  { sql: 'select count(*) from sales.orders where order_id > all($1)', oids: [1016], params: ['{10,20}'] },
  { sql: 'select count(*) from sales.orders where ordered_at >= any($1)', oids: [1115], params: ['{2024-03-01 00:00:00}'] },
  { sql: 'select count(*) from sales.orders where status <> all($1) and customer_id = any($2)', oids: [1009, 1007], params: ['{shipped}', '{1,2,3}'] },
  { sql: 'select count(*) from sales.orders where qty <= all($1) or status = any($2)', oids: [1005, 1009], params: ['{1}', '{open}'] },
  // comparisons, IN, BETWEEN, rows
  { sql: 'select count(*) from sales.orders where qty in ($1, $2) and order_id not in ($3)', oids: [21, 21, 20], params: ['1', '2', '7'] },
  { sql: 'select count(*) from sales.orders where amount between $1 and $2', oids: [1700, 1700], params: ['10', '100'] },
  { sql: 'select count(*) from sales.orders where $1 between qty and 10', oids: [21], params: ['2'] },
  { sql: 'select count(*) from sales.customers where signup > $1 and vip = $2', oids: [1082, 16], params: ['2023-06-01', 't'] },
  { sql: 'select count(*) from sales.orders where (qty, status) = ($1, $2)', oids: [21, 25], params: ['1', 'open'] },
  { sql: 'select now() > $1, current_date = $2', oids: [1184, 1082] },
  // arithmetic: the other side's type, or interval / float8 where PostgreSQL has no same-type operator
  { sql: 'select count(*) from sales.orders where qty + $1 > $2', oids: [21, 21], params: ['1', '3'] },
  { sql: 'select sum(qty - $1), sum(qty * $2), sum(qty / $3), sum(qty % $4), sum(order_id + $5) from sales.orders', oids: [21, 21, 21, 21, 20], params: ['1', '2', '3', '2', '5'] },
  { sql: 'select $1 + 1', oids: [23], params: ['41'] },
  { sql: "select max(ordered_at + $1)::text, max(ordered_at - $2)::text from sales.orders", oids: [1186, 1114], params: ['1 day', '2024-01-01'] },
  { sql: "select now() - $1 > interval '0'", oids: [1184] },
  { sql: "select $1 + interval '1 day', $2 - interval '1 day'", oids: [1186, 1186], params: ['1 hour', '2 days'] },
  { sql: "select interval '1 day' * $1", oids: [701], params: ['1.5'] },
  { sql: 'select min(signup - $1) from sales.customers', oids: [1082], params: ['2020-01-01'] },
  // COALESCE, GREATEST, LEAST, NULLIF: the other arguments' type
  { sql: "select coalesce($1, 1), nullif($2, 'x'), greatest($3, 2), least(4, $4)", oids: [23, 25, 23, 23], params: ['5', 'y', '1', '9'] },
  { sql: 'select sum(coalesce(qty, $1)) from sales.orders', oids: [21], params: ['0'] },
  // casts: the cast's type, even where DuckDB spells it differently (jsonb, varchar)
  {
    sql: 'select $1::int4, cast($2 as date), $3::numeric, $4::timestamptz, $5::bigint[], $6::text[], $7::uuid, $8::json, $9::jsonb, $10::bytea, $11::interval, $12::time, $13::float8, $14::real, $15::smallint, $16::bool, $17::varchar',
    oids: [23, 1082, 1700, 1184, 1016, 1009, 2950, 114, 3802, 17, 1186, 1083, 701, 700, 21, 16, 1043],
  },
  // function arguments
  { sql: 'select length($1), upper($2), lower($3)', oids: [25, 25, 25], params: ['abc', 'x', 'Y'] },
  { sql: 'select left($1, $2), right($3, $4), repeat($5, $6), lpad($7, $8, $9)', oids: [25, 23, 25, 23, 25, 23, 25, 23, 25], params: ['abc', '2', 'abc', '2', 'ab', '2', 'x', '3', '.'] },
  { sql: 'select substr(status, $1, $2), split_part(status, $3, $4) from sales.orders order by 1, 2 limit 1', oids: [23, 23, 25, 23], params: ['2', '3', 'p', '1'] },
  { sql: 'select abs($1), round($2), ceil($3), floor($4), sqrt($5), power($6, $7), exp($8), ln($9)', oids: [701, 701, 701, 701, 701, 701, 701, 701, 701] },
  { sql: 'select round(amount, $1) from sales.orders limit 0', oids: [23] },
  { sql: 'select make_date($1, $2, $3)', oids: [23, 23, 23], params: ['2024', '2', '29'] },
  { sql: 'select count(distinct date_trunc($1, ordered_at)) from sales.orders', oids: [25], params: ['month'] },
  { sql: 'select $1, $2 || \'x\'', oids: [25, 25], params: ['a', 'b'] },
  // LIMIT / OFFSET: int8
  { sql: 'select order_id from sales.orders order by 1 limit $1 offset $2', oids: [20, 20], params: ['3', '2'] },
  { sql: 'select order_id from sales.orders order by 1 offset $1 rows fetch first $2 rows only', oids: [20, 20], params: ['1', '2'] },
];

describe('parameter types PostgreSQL infers (ParameterDescription equals PostgreSQL 15\'s)', () => {
  for (const c of INFERENCE) {
    test(c.sql, async () => {
      const oids = await same((e) => describeOnly(e, c.sql));
      assert.deepEqual(oids, c.oids);
      if (c.params) await same(async (e) => text(await conns[e]!.query(c.sql, { params: c.params! })));
    });
  }
});

describe('catalog', () => {
  test('system columns of catalog tables: tableoid, xmin, ctid', async () => {
    for (const [rel, oid] of [['pg_class', 1259], ['pg_attribute', 1249], ['pg_type', 1247], ['pg_proc', 1255], ['pg_namespace', 2615]] as const) {
      const r = await same(async (e) => {
        const res = await conns[e]!.query(`select tableoid, xmin <> '0'::xid as live, ctid is not null as has_ctid from ${rel} limit 1`);
        return { rows: text(res), types: res.rowDescription!.fields.map((f) => f.dataTypeID) };
      });
      assert.deepEqual(r.rows, [[String(oid), 't', 't']]);
      assert.deepEqual(r.types, [26, 16, 16]);
    }
    await same(async (e) => text(await conns[e]!.query("select c.tableoid::regclass::text, c.relname from pg_class c where c.relname = 'orders'")));
    // SELECT * does not grow them (PostgreSQL lists system columns only by name).
    await same(async (e) => (await conns[e]!.query('select * from pg_namespace limit 0')).rowDescription!.fields.map((f) => f.name));
  });

  test('pg_index_column_has_property and relatives answer NULL for a table, as for any non-index', async () => {
    await same(async (e) => text(await conns[e]!.query(`select pg_index_column_has_property('sales.orders'::regclass, 1, 'asc') is null,
      pg_index_has_property('sales.orders'::regclass, 'clusterable') is null`)));
  });

  test('"char" columns are OID 18 and one byte in binary (asyncpg decodes b\'b\')', async () => {
    await same(async (e) => {
      const r = await conns[e]!.query("select typtype, typcategory from pg_type where oid = 16", { resultFormats: [1] });
      return { types: r.rowDescription!.fields.map((f) => [f.dataTypeID, f.dataTypeSize]), row: splitDataRow(r.dataRows[0]!).map((b) => b?.toString('hex')) };
    });
    // Aliased, as asyncpg's introspection reads them (`t.typtype AS kind`): the column's type, not its name, decides.
    const aliased = await same(async (e) => {
      const r = await conns[e]!.query(`select t.oid as id, t.typtype as kind, t.typname as tname, t.typlen as len, t.typelem as elem, n.nspname as ns
        from pg_type t join pg_namespace n on n.oid = t.typnamespace where t.oid = 1007`, { resultFormats: [1] });
      return { types: r.rowDescription!.fields.map((f) => f.dataTypeID), row: splitDataRow(r.dataRows[0]!).map((b) => b?.toString('hex')) };
    });
    assert.deepEqual(aliased.types, [26, 18, 19, 21, 26, 19]);
  });
});

describe('RowDescription source columns', () => {
  test('table OID and attnum for plain table columns agree with pg_class and pg_attribute; 0 for expressions', async () => {
    await same(async (e) => {
      const c = conns[e]!;
      const r = await c.query(`select o.order_id, o.amount * 2 as d, status, c.* from sales.orders o join sales.customers c on c.customer_id = o.customer_id limit 1`);
      const oids = text(await c.query("select 'sales.orders'::regclass::oid, 'sales.customers'::regclass::oid"))[0]!.map(Number);
      const atts = text(await c.query("select attname, attnum from pg_attribute where attrelid = 'sales.orders'::regclass and attname = 'status'"));
      const name = (oid: number) => (oid === 0 ? 0 : oid === oids[0] ? 'orders' : oid === oids[1] ? 'customers' : `other ${oid}`);
      return { fields: r.rowDescription!.fields.map((f) => [f.name, name(f.tableID), f.columnID]), atts };
    });
  });
});

describe('PostgreSQL arithmetic', () => {
  test('integer division truncates (7/2 = 3)', async () => {
    await same(async (e) => text(await conns[e]!.query('select 7/2, -7/2, 1/3, (-9)/4, 9 % 4, 2^3')));
  });
  test('division by zero: PostgreSQL raises 22012; the gateway answers NULL (docs/compatibility.md)', async () => {
    const p = await conns.pg!.query('select 1/0');
    assert.equal(p.error?.code, '22012');
    assert.deepEqual(text(await conns.gw!.query('select 1/0')), [[null]]);
  });
});

describe('visible schemas', () => {
  test('the default search_path lists the version\'s schemas: psql \\dt, pg_table_is_visible and unqualified names agree', async () => {
    const r = await runProbe('psql', [`host=${gw.host} port=${gw.port} dbname=basic@v2 user=me`, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
      '-c', 'show search_path', '-c', '\\dt', '-c', 'select count(*) from orders', '-c', "select count(*) from pg_class c where relkind = 'r' and pg_table_is_visible(c.oid) and relnamespace <> 'pg_catalog'::regnamespace"], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, describeProbe(r));
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[0], '"$user", public, sales');
    const dt = lines.filter((l) => l.split('|').length === 4).map((l) => l.split('|').slice(0, 2).join('.'));
    assert.deepEqual(dt, ['main.all_types', 'main.all_types_inlined', 'sales.customers', 'sales.orders']);
    assert.deepEqual(lines.slice(-2), ['80', String(dt.length)]);
    // A search_path the client sets is honoured: sales is no longer visible.
    const c = conns.gw!;
    assert.equal((await c.simple('set search_path = public')).error, undefined);
    assert.equal((await c.query('select count(*) from orders')).error?.code, '42P01');
    assert.equal((await c.simple('reset search_path')).error, undefined);
    assert.deepEqual(text(await c.query('select count(*) from orders')), [['80']]);
  });
});
