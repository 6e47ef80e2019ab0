/**
 * The gateway's own views (fdl.refs …) in the catalog (pg/catalog/fdl-views.ts): psql's `\d fdl.refs`
 * describes them as any view, their columns in pg_attribute are the types a statement reading them is
 * sent as, `'fdl.refs'::regclass` names them, and pg_dump, which takes them for a built-in extension's
 * members, dumps none of them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, type RunningGateway } from './support/gateway.js';
import { describeProbe, runProbe } from './support/probe.js';

const VIEWS = ['cache', 'dataset', 'refs', 'session', 'versions'];
let gw: RunningGateway;
let c: pg.Client;
const conninfo = () => `host=${gw.host} port=${gw.port} dbname=basic user=x sslmode=disable`;

before(async () => {
  gw = await serveBasic();
  c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic' });
  await c.connect();
});
after(async () => {
  await c?.end();
  await gw?.stop();
});

async function run(cmd: string, args: string[]): Promise<string> {
  const r = await runProbe(cmd, args, { env: { PGTZ: 'UTC' }, timeoutMs: 120_000 });
  assert.equal(r.code, 0, describeProbe(r));
  assert.doesNotMatch(r.stderr, /error|did not find/i, describeProbe(r));
  return r.stdout;
}

test("psql's \\d fdl.refs describes the view, \\dv fdl.* lists the five", async () => {
  const out = await run('psql', [conninfo(), '-X', '-A', '-c', '\\d fdl.refs', '-c', '\\dv fdl.*']);
  assert.equal(
    out,
    [
      'View "fdl.refs"',
      'Column|Type|Collation|Nullable|Default',
      'name|text|||',
      'kind|text|||',
      'version|text|||',
      'created|timestamp with time zone|||',
      'signature|text|||',
      'List of relations',
      'Schema|Name|Type|Owner',
      ...VIEWS.map((v) => `fdl|${v}|view|x`),
      '(5 rows)',
      '',
    ].join('\n'),
  );
});

test("psql's \\dx+ fdl lists the schema and the views as the extension's objects", async () => {
  const out = await run('psql', [conninfo(), '-X', '-A', '-c', '\\dx+ fdl']);
  assert.equal(
    out,
    [
      'Objects in extension "fdl"',
      'Object description',
      'schema fdl',
      ...VIEWS.map((v) => `view fdl.${v}`),
      '(6 rows)',
      '',
    ].join('\n'),
  );
});

test("each view's columns in pg_attribute are the names and types a statement reading it is sent", async () => {
  for (const view of VIEWS) {
    const sent = await c.query(`SELECT * FROM fdl.${view} LIMIT 0`);
    const listed = await c.query(
      `SELECT a.attname, a.atttypid::int AS oid FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'fdl.${view}'::regclass AND a.attnum > 0 ORDER BY a.attnum`,
    );
    assert.deepEqual(
      listed.rows.map((r: { attname: string; oid: number }) => [r.attname, r.oid]),
      sent.fields.map((f) => [f.name, f.dataTypeID]),
      view,
    );
  }
  const names = await c.query(
    `SELECT c.oid::regclass::text AS name, c.relkind, n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'fdl' ORDER BY 1`,
  );
  assert.deepEqual(
    names.rows,
    VIEWS.map((v) => ({ name: `fdl.${v}`, relkind: 'v', nspname: 'fdl' })),
  );
});

test("columns qualified with the view's schema and name, as SQLAlchemy Core writes them, read the view", async () => {
  // `fdl.versions.id` was spliced into the view's rows: "Subquery returns 8 columns - expected 1"
  for (const view of VIEWS) {
    const plain = await c.query(`SELECT * FROM fdl.${view}`);
    const column = plain.fields[0]!.name;
    const qualified = await c.query(
      `SELECT fdl.${view}.${column} AS q, fdl . ${view} . ${column} AS spaced FROM fdl.${view} WHERE fdl.${view}.${column} IS NOT DISTINCT FROM fdl.${view}.${column}`,
    );
    assert.deepEqual(
      qualified.rows,
      plain.rows.map((r: Record<string, unknown>) => ({ q: r[column], spaced: r[column] })),
      view,
    );
  }
});

test('pg_dump --schema-only dumps none of them (members of a built-in extension, as plpgsql)', async () => {
  const dump = await run('pg_dump', ['--schema-only', conninfo()]);
  assert.match(dump, /CREATE TABLE sales\.orders/);
  assert.doesNotMatch(dump, /\bfdl\b/);
});

test('the views named with quotes, as DBeaver and pgAdmin write every name, answer as unquoted (session 56 review)', async () => {
  const plain = await c.query('select name from fdl.refs order by name');
  for (const sql of [
    'select "name" from "fdl"."refs" order by 1',
    'select name from fdl."refs" order by 1',
    'select r.name from "fdl".refs r order by 1',
  ])
    assert.deepEqual((await c.query(sql)).rows, plain.rows, sql);
  // a string holding the quoted names is left as written, and another spelling is another name (42P01)
  assert.equal((await c.query(`select '"fdl"."refs"' as s`)).rows[0].s, '"fdl"."refs"');
  await assert.rejects(c.query('select * from "FDL"."refs"'), { code: '42P01' });
  assert.deepEqual((await c.query('select name from fdl.refs order by name')).rows, plain.rows);
});
