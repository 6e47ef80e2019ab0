/**
 * No internal name in an error a client sees: wrong arguments to functions the gateway gives
 * PostgreSQL's meaning through its own macros (sum, round…) or guards (repeat, printf) named
 * `fdl_pg.pgcat._pgsem_sum` and listed the macros' parameters before; now the client reads the
 * function it called. Each error keeps its SQLSTATE (not XX000), and the session goes on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { serveBasic, TRUST_ANN_READS_BASIC, type RunningGateway } from './support/gateway.js';
import { startPgCluster } from './support/pg-cluster.js';
import { SqlError } from '../src/errors.js';
import { toNotice } from '../src/wire/error-notice.js';

let gw: RunningGateway;
before(async () => {
  gw = await serveBasic([], { config: TRUST_ANN_READS_BASIC });
});
after(async () => {
  await gw?.stop();
});

test('wrong arguments to sum, round, repeat, printf…: the SQLSTATE kept, no internal macro name or parameter list in the text', async () => {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
  await c.connect();
  try {
    for (const [sql, code] of [
      ['select sum(i) from range(3)', '42703'],
      ["select sum(x) from (values ('a'), ('b')) t(x)", '42883'],
      ["select round('x', 2)", '42725'],
      ['select repeat(1)', '42883'],
      ["select printf('%s %s %s %s %s %s %s %s %s %s', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", '42883'],
      ['select lpad(1)', '42883'],
    ] as const) {
      const e = await c.query(sql).then(
        () => null,
        (err: { code?: string; message?: string; detail?: string; hint?: string }) => err,
      );
      assert.ok(e, `${sql}: refused`);
      assert.equal(e.code, code, `${sql}: ${e.message}`);
      const text = [e.message, e.detail, e.hint].join('\n');
      assert.doesNotMatch(text, /_pgsem_|fdl_pg|__fdl_|pgcat|a1 VARCHAR|system\.main/, sql);
    }
    assert.equal((await c.query('select sum(range)::int as s from range(3)')).rows[0].s, 3);
  } finally {
    await c.end();
  }
});

test('an unknown column in an argument of sum, avg, round answers 42703 as PostgreSQL 15 does (not 42725 from the PostgreSQL-semantics macros); a list of group names for regexp_extract_all is 0A000 with a hint', async () => {
  const pgc = await startPgCluster();
  const twin = new pg.Client({ connectionString: pgc.url });
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
  await twin.connect();
  await c.connect();
  const code = (client: pg.Client, sql: string) =>
    client.query(sql).then(
      () => 'ok',
      (err: { code?: string }) => err.code,
    );
  try {
    for (const sql of [
      'select sum(i) from generate_series(1, 3) t(x)',
      'select avg(nope) from generate_series(1, 3) t(x)',
      'select sum(x + nope) from generate_series(1, 3) t(x)',
      'select round(nope, 2) from generate_series(1, 3) t(x)',
      'select sum(x), avg(x)::float8 from generate_series(1, 3) t(x)',
      "select sum(x) from (values ('a'), ('b')) t(x)",
    ]) {
      assert.equal(await code(c, sql), await code(twin, sql), sql);
    }
    await assert.rejects(
      c.query("select regexp_extract_all('ab12 cd34', '([a-z]+)([0-9]+)', ['name', 'num'])"),
      (e: { code?: string; hint?: string }) => e.code === '0A000' && /regexp_extract\(s, pattern/.test(e.hint ?? ''),
    );
    assert.deepEqual((await c.query("select regexp_extract_all('ab12 cd34', '([a-z]+)([0-9]+)', 2) as n")).rows[0].n, [
      '12',
      '34',
    ]);
  } finally {
    await c.end();
    await twin.end();
    await pgc.stop();
  }
});

test("a LINE n: quote is kept only of the client's own text: not of an expanded system view, not of a rewrite", async () => {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
  await c.connect();
  const refused = (sql: string) =>
    c.query(sql).then(
      () => assert.fail(`${sql}: answered`),
      (err: { code?: string; message?: string; detail?: string; hint?: string }) => err,
    );
  try {
    // fdl.refs has no column version_id: DuckDB's quote is of the expanded view's text (LINE 3)
    const own = await refused('select name, version_id from fdl.refs');
    assert.equal(own.code, '42703', own.message);
    assert.match(own.message!, /version_id/);
    assert.doesNotMatch([own.message, own.detail, own.hint].join('\n'), /LINE \d+:/, 'no position in text not sent');
    // the client's own text: DuckDB's quote becomes the error's position, as PostgreSQL sends it (psql draws the LINE)
    const plain = await refused('select nosuch from (select 1 as a) t');
    assert.equal(plain.code, '42703', plain.message);
    assert.equal((plain as { position?: string }).position, '8');
    assert.doesNotMatch([plain.message, plain.detail, plain.hint].join('\n'), /LINE \d+:/);
    assert.deepEqual((await c.query('select 1 as one')).rows, [{ one: 1 }], 'the session goes on');
  } finally {
    await c.end();
  }
});

test('an error with no client text (at connect: attaching a version) keeps no LINE n: quote of the SQL the gateway ran', () => {
  const duck = new SqlError(
    '58030',
    'No files found that match the pattern "…/ducklake-x.parquet"\n\nLINE 1: ...(r.c3 AS DOUBLE) AS "v" FROM read_parquet([\'…/x\'])\n                                              ^',
  );
  const notice = toNotice(duck, []);
  assert.equal(notice.message, 'No files found that match the pattern "…/ducklake-x.parquet"');
  assert.equal(notice.hint, undefined);
  // the same quote of a statement the client sent on that line is its position (the caret's character)
  const sent = `select 1,\n (r.c3 AS DOUBLE) AS "v" FROM read_parquet(['…/x'])`;
  const own = toNotice(new SqlError('58030', duck.message.replace('LINE 1:', 'LINE 2:')), [], sent);
  assert.equal(own.hint, undefined);
  assert.equal(sent.slice(own.position! - 1, own.position! + 4), 'arque'); // the caret's column in DuckDB's quote
});

test("DuckDB's binder and catalog errors in PostgreSQL 15's words: an unknown column, an operator or a function with no overload (no candidate list), a type of an extension (never the advice to install it), SET TIME ZONE INTERVAL refused with nothing changed", async () => {
  const pgc = await startPgCluster({ settings: { TimeZone: 'UTC' } });
  const twin = new pg.Client({ connectionString: pgc.url });
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'basic' });
  await twin.connect();
  await c.connect();
  type PgError = { code?: string; message?: string; hint?: string };
  const error = (client: pg.Client, sql: string) =>
    client.query(sql).then(
      () => undefined,
      (e: PgError) => e,
    );
  try {
    // the same SQLSTATE and message as PostgreSQL 15; no DuckDB list of candidates in the hint
    for (const sql of [
      'select nope from (values (1)) t(a)',
      'select now()::timestamp + 1',
      "select '2024-01-01'::timestamptz + 1",
      'select -true',
      "select substr(1, 'a', 3)",
      'select sqrt(true)',
      "select interval '1 month - x'",
      "select 'x'::float8",
      "select 'x'::date",
      // to_date/to_timestamp: the field PostgreSQL names and the input there (it was `… for its format`)
      "select to_date('x', 'YYYY')",
      "select to_date('2024-xx-01', 'YYYY-MM-DD')",
      "select to_date('2024-01-x1', 'YYYY-MM-DD')",
      "select to_timestamp('2024-01-01 ab:00', 'YYYY-MM-DD HH24:MI')",
    ]) {
      const [p, g] = [await error(twin, sql), await error(c, sql)];
      assert.ok(p && g, `${sql}: refused by both`);
      assert.deepEqual([g.code, g.message], [p.code, p.message], sql);
      assert.doesNotMatch(g.hint ?? '', /Candidate|->/, sql);
    }
    // a function that does not exist, or no overload for the arguments: PostgreSQL's message naming the
    // arguments' types, its hint and the call's position (admission refuses an unknown name before DuckDB
    // binds: the types are read from the parse, analysis.ts)
    // (a text the PostgreSQL rewrite changed keeps no position: DuckDB parsed another text)
    for (const [sql, positioned] of [
      ['select int4()', true],
      ["select nosuch(1, 'a')", true],
      ['select lower(1, 2)', true],
      ["select 1 as x,\n  nosuch('é', 2, 2.5, false)", true],
      ["select nosuch(1.5, 1e5, 3000000000, true, NULL, 1::int8, '2020-01-01'::date, 2::smallint, 2.5::float8)", false],
    ] as const) {
      const [p, g] = [await error(twin, sql), await error(c, sql)];
      assert.ok(p && g, `${sql}: refused by both`);
      const seen = (e: PgError & { position?: string }) => [e.code, e.message, e.hint, positioned ? e.position : ''];
      assert.deepEqual(seen(g), seen(p), sql);
    }
    // PostgreSQL has inet; the gateway's engine has not, and never tells a client to install an extension
    const inet = await error(c, "select '192.168.0.1'::inet");
    assert.deepEqual([inet?.code, inet?.message], ['42704', 'type "inet" does not exist']);
    assert.doesNotMatch(`${inet?.message}\n${inet?.hint}`, /INSTALL|LOAD|autoinstall|autoload/i);
    // a comparison with no operator: PostgreSQL's SQLSTATE (DuckDB's binder names no operator)
    const compared = await error(c, 'select now()::timestamp > 5');
    assert.equal(compared?.code, (await error(twin, 'select now()::timestamp > 5'))?.code);
    // a fixed-offset zone no zone of the tz database has kept (fixed-zones.ts): refused 0A000 with a hint, the session's zone unchanged
    const before = (await c.query('show timezone')).rows[0].TimeZone;
    for (const sql of ["SET TIME ZONE INTERVAL '+05:45' HOUR TO MINUTE", 'SET TIME ZONE 5.75']) {
      const e = await error(c, sql);
      assert.equal(e?.code, '0A000', sql);
      assert.match(e?.hint ?? '', /tz database/, sql);
      assert.equal((await c.query('show timezone')).rows[0].TimeZone, before, sql);
    }
  } finally {
    await c.end();
    await twin.end();
    await pgc.stop();
  }
});
