/**
 * `set_config(name, value, is_local)` applied as PostgreSQL 15 applies it (pg/set-config.ts): the same
 * values, SHOW and current_setting afterwards, the same SQLSTATEs as SET, over the simple and the
 * extended protocol; where the gateway cannot apply it (inside a query), 0A000 with a hint and nothing
 * changed. SET, SET LOCAL, set_config, RESET and RESET ALL inside a transaction block end as PostgreSQL's
 * do: ROLLBACK undoes every change, ROLLBACK TO SAVEPOINT those since the savepoint, COMMIT the local
 * ones; SET LOCAL outside a block changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPgTwins, type PgTwins } from './support/pg-twins.js';
import { splitDataRow, type QueryResult, type RawPg } from './support/raw-pg.js';

let twins: PgTwins | undefined;

before(
  async () => {
    twins = await startPgTwins({ settings: { TimeZone: 'UTC' }, params: { TimeZone: 'UTC' } });
  },
  { timeout: 120_000 },
);
after(() => twins?.stop(), { timeout: 30_000 });

/** What a client sees of one statement: the SQLSTATE, or the column names, rows and command tag. */
function seen(r: QueryResult) {
  if (r.error) return { error: r.error.code };
  return {
    columns: (r.rowDescription?.fields ?? []).map((f) => `${f.name}:${f.dataTypeID}`),
    rows: r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString('utf8') ?? null)),
    tag: r.commandTag,
  };
}

async function both(sql: string, extended: boolean) {
  const run = (c: RawPg) => (extended ? c.query(sql) : c.simple(sql));
  const [pg, gw] = await Promise.all([run(twins!.conns.pg), run(twins!.conns.gw)]);
  return { pg: seen(pg), gw: seen(gw) };
}

/** Each statement in order on both servers: equal answers (the later ones read what the earlier set). */
async function sameAsPostgres(statements: string[], extended = false) {
  for (const sql of statements) {
    const { pg, gw } = await both(sql, extended);
    assert.deepEqual(gw, pg, `${extended ? 'extended' : 'simple'}: ${sql}`);
  }
}

const SEQUENCE = [
  // pg_dump's prelude: an empty search_path, then nothing unqualified resolves
  "SELECT pg_catalog.set_config('search_path', '', false)",
  'SHOW search_path',
  'select count(*) from orders',
  // pg_dump 15.8+: set where the server has the parameter
  "SELECT set_config(name, 'view, foreign-table', false) FROM pg_settings WHERE name = 'restrict_nonsystem_relation_kind'",
  'SHOW restrict_nonsystem_relation_kind',
  "SELECT set_config(name, 'x', false) FROM pg_settings WHERE name = 'restrict_nonsystem_relation_kind'",
  "select set_config('search_path', 'sales', false) as path",
  'SHOW search_path',
  "select current_setting('search_path'), count(*) from orders",
  "select set_config('TimeZone', 'Asia/Tokyo', false), set_config('application_name', 'dump', false)",
  "select current_setting('TimeZone'), timestamptz '2024-01-01 00:00:00+00'::text, current_setting('application_name')",
  // a local setting outside a transaction block lasts for its own statement only
  "select set_config('TimeZone', 'Europe/Paris', true)",
  'SHOW TimeZone',
  // a custom (dotted) parameter, a NULL is_local, a NULL value (the reset value)
  "select set_config('myapp.tenant', 'acme', null)",
  "select current_setting('myapp.tenant')",
  "select set_config('TimeZone', null, false)",
  // what SET refuses, set_config refuses with the same SQLSTATE, and nothing changes
  "select set_config('no_such_setting', 'x', false)",
  "select set_config('server_version', '1', false)",
  "select set_config('TimeZone', 'Not/AZone', false)",
  'SHOW TimeZone',
  "select set_config('search_path', 'sales', false)",
  // a value with a unit shows as PostgreSQL prints it, in the largest unit that fits
  'SET statement_timeout = 5000',
  'SHOW statement_timeout',
  "SET statement_timeout = '1500ms'",
  'SHOW statement_timeout',
  "SET idle_in_transaction_session_timeout = '2min'",
  'SHOW idle_in_transaction_session_timeout',
  'RESET idle_in_transaction_session_timeout',
  'RESET statement_timeout',
];

test('SELECT set_config(...) applies the setting as PostgreSQL 15 does (simple protocol)', { timeout: 60_000 }, () =>
  sameAsPostgres(SEQUENCE),
);

test('SELECT set_config(...) applies the setting as PostgreSQL 15 does (extended protocol)', { timeout: 60_000 }, () =>
  sameAsPostgres(
    SEQUENCE.map((s) => s.replace("'sales'", "'sales, public'")),
    true,
  ),
);

test(
  'set_config where it cannot be applied: 0A000 with a hint, and the setting unchanged',
  { timeout: 60_000 },
  async () => {
    const gw = twins!.conns.gw;
    assert.equal((await gw.simple("SET search_path = 'sales'")).error, undefined);
    for (const sql of [
      "select set_config('search_path', '', false) from sales.orders limit 1",
      "select set_config('search_path', '', false), 1",
      "select upper(set_config('search_path', '', false))",
      "select * from sales.orders where set_config('search_path', '', false) = ''",
      "select set_config('search_path', status, false) from sales.orders",
    ]) {
      for (const r of [await gw.simple(sql), await gw.query(sql)]) {
        assert.equal(r.error?.code, '0A000', `${sql}: ${JSON.stringify(r.error)}`);
        assert.match(r.error?.hint ?? '', /SET name = value/);
      }
      assert.deepEqual(seen(await gw.simple('SHOW search_path')).rows, [['sales']], sql);
    }
    assert.deepEqual(seen(await gw.simple('SHOW search_path')).rows, [['sales']]);
  },
);

const BLOCKS = [
  'SET search_path = sales',
  // outside a block SET LOCAL changes nothing (PostgreSQL warns)
  'SET LOCAL search_path = public',
  'SHOW search_path',
  // SET LOCAL and set_config(…, true) last until the block ends, COMMIT or not
  'BEGIN',
  'SET LOCAL search_path = public',
  "select set_config('TimeZone', 'Asia/Tokyo', true)",
  'SHOW search_path',
  'SHOW TimeZone',
  'COMMIT',
  'SHOW search_path',
  'SHOW TimeZone',
  // ROLLBACK undoes a session-level SET made in the block, also after an error
  'BEGIN',
  "SET application_name = 'inside'",
  "select set_config('search_path', 'public', false)",
  'select 1/0',
  'ROLLBACK',
  'SHOW application_name',
  'SHOW search_path',
  // COMMIT keeps a session-level SET, and undoes a later SET LOCAL back to it
  'BEGIN',
  'SET search_path = public',
  'SET LOCAL search_path = sales',
  'SHOW search_path',
  'COMMIT',
  'SHOW search_path',
  'SET search_path = sales',
  // RESET and RESET ALL in a block: ROLLBACK undoes them as it undoes SET; COMMIT keeps them
  "SET application_name = 'kept'",
  "SET TimeZone = 'Asia/Tokyo'",
  'BEGIN',
  'RESET ALL',
  'SHOW application_name',
  'SHOW TimeZone',
  'ROLLBACK',
  'SHOW application_name',
  'SHOW TimeZone',
  'SHOW search_path',
  'BEGIN',
  'RESET application_name',
  'SHOW application_name',
  'ROLLBACK',
  'SHOW application_name',
  'BEGIN',
  'SAVEPOINT s',
  'RESET TimeZone',
  'select 1/0',
  'ROLLBACK',
  'SHOW TimeZone',
  'BEGIN',
  "SET LOCAL application_name = 'local'",
  'RESET ALL',
  'SHOW application_name',
  'COMMIT',
  'SHOW application_name',
  'SHOW TimeZone',
  'SET search_path = sales',
  "SET TimeZone = 'UTC'",
  // ROLLBACK TO SAVEPOINT undoes what was set since the savepoint; RELEASE keeps it
  'BEGIN',
  "SET application_name = 'one'",
  'SAVEPOINT a',
  "SET application_name = 'two'",
  "SET LOCAL TimeZone = 'Asia/Tokyo'",
  'SAVEPOINT b',
  'RESET ALL',
  'SHOW TimeZone',
  'ROLLBACK TO SAVEPOINT b',
  'SHOW application_name',
  'SHOW TimeZone',
  'ROLLBACK TO a',
  'SHOW application_name',
  'SHOW TimeZone',
  'SAVEPOINT c',
  "SET application_name = 'three'",
  'RELEASE c',
  'select 1/0',
  'ROLLBACK TO a',
  'SHOW application_name',
  "SET application_name = 'four'",
  'COMMIT',
  'SHOW application_name',
  "SET application_name = ''",
];

test(
  'SET, SET LOCAL and set_config in and out of transaction blocks end as in PostgreSQL 15',
  { timeout: 60_000 },
  async () => {
    await sameAsPostgres(BLOCKS);
    await sameAsPostgres(BLOCKS, true);
  },
);

test(
  "SET is read by PostgreSQL's grammar: words after the value are 42601 and change nothing, as are the other spellings PostgreSQL has",
  { timeout: 60_000 },
  async () => {
    // A pattern of the gateway's read `SET application_name = 'x' garbage` as an empty value and answered SET.
    await sameAsPostgres([
      "SET application_name = 'before'",
      "SET application_name = 'x' garbage",
      'SHOW application_name',
      "SET application_name TO 'x', 'y' z",
      'SHOW application_name',
      'SET search_path = sales',
      "SET search_path = 'a' 'b'",
      'SHOW search_path',
      "SET TIME ZONE 'Asia/Tokyo' 'x'",
      'SHOW TimeZone',
      "SET CATALOG 'x'",
      'SET NAMES utf8',
      "SET NAMES 'UTF8'",
      "SET client_encoding = 'UTF8'''",
      'SHOW client_encoding',
      "SET SCHEMA 'public'",
      'SHOW search_path',
      'SET application_name TO DEFAULT',
      'SHOW application_name',
      // a quoted dotted name is one name (a pattern of the gateway's had kept the quotes in it)
      'SET "my.var" = \'secret\'',
      'SHOW "my.var"',
      'SHOW my.var',
      'SHOW "TimeZone"',
      'RESET "my.var"',
      'SHOW my.var',
      'SET search_path = sales',
    ]);
  },
);

test(
  "transaction control is read by PostgreSQL's grammar: words after it are 42601, AND CHAIN begins the next block, and the gateway's other own statements are checked alike",
  { timeout: 60_000 },
  async () => {
    // Patterns of the gateway's had read these as COMMIT, BEGIN, ROLLBACK and DISCARD ALL, and AND CHAIN as an end.
    const statements = [
      'COMMIT garbage',
      'BEGIN READ ONLY garbage',
      'SHOW transaction_isolation',
      'BEGIN ISOLATION LEVEL REPEATABLE READ',
      'SHOW transaction_isolation',
      'COMMIT AND CHAIN',
      'SHOW transaction_isolation',
      'select 1/0',
      'COMMIT AND CHAIN',
      'SHOW transaction_isolation',
      'ROLLBACK AND CHAIN',
      'ROLLBACK garbage',
      'ROLLBACK',
      'COMMIT AND CHAIN',
      'ROLLBACK AND CHAIN',
      "COMMIT PREPARED 'x'",
      'SAVEPOINT a b',
      'DISCARD ALL x',
      'SHOW ALL TABLES',
      'CLOSE ALL x',
      'SHOW transaction_isolation',
      // a row lock in a read-only transaction (every session here is one): 25006 naming its strength (was 42601)
      'BEGIN READ ONLY',
      'select order_id from sales.orders where order_id = 1 for update',
      'ROLLBACK',
      'BEGIN READ ONLY',
      'select order_id from sales.orders for key share skip locked',
      'ROLLBACK',
    ];
    await sameAsPostgres(statements);
    await sameAsPostgres(statements, true);
  },
);

/** Every message a simple Query answers, in order: columns, rows, tags, SQLSTATEs, reported parameters, the transaction status. */
function seenWhole(r: QueryResult) {
  return r.messages.map((m) => {
    const p = m.parsed as any;
    if (m.code === 'T') return `T ${(p.fields as { name: string }[]).map((f) => f.name).join(',')}`;
    if (m.code === 'D') return `D ${splitDataRow(m.raw).map((v) => v?.toString('utf8') ?? null)}`;
    if (m.code === 'C') return `C ${p.text}`;
    // a syntax error's position: in the Query's string, as PostgreSQL's
    if (m.code === 'E') return `E ${p.code}${p.code === '42601' ? ` at ${p.position}` : ''}`;
    if (m.code === 'Z') return `Z ${p.status}`;
    if (m.code === 'S') return `S ${p.parameterName}=${p.parameterValue}`;
    return m.code;
  });
}

test(
  'a simple Query of several statements parses whole before the first runs: a syntax error anywhere runs none of them',
  { timeout: 60_000 },
  async () => {
    // Run one by one, `begin; commit x` had begun a block (status T, then E) where PostgreSQL runs nothing;
    // each SET told its value at once, where PostgreSQL 14+ tells the last before ReadyForQuery.
    const queries = [
      "SET application_name = 'before'",
      'begin; commit x',
      'select 1',
      '  commit   x',
      "select 'é' as a;\n  set x garbage",
      "select 'é' as a;\n\n  selec 2",
      "select 'é' as a; select 1 +",
      "set application_name = 'changed'; selec 2",
      'SHOW application_name',
      "select 1 as a; set application_name = 'x' garbage",
      'SHOW application_name',
      'begin; select 1; rollback garbage; select 2',
      'select 1 as a; select 1/0; select 2',
      'select 1 as a; select * from nosuch; select 2',
      'begin; select 1 as a; commit',
      'begin; select 1 as a',
      'select 2 as b; rollback',
      // a reported parameter is told once, before ReadyForQuery, and only if it differs from what the client knows
      "set application_name = 'one'; set application_name = 'two'",
      "begin; set application_name = 'three'; rollback",
      "begin; set application_name = 'two'; set application_name = 'four'",
      'rollback',
      "SET application_name = ''",
    ];
    for (const sql of queries) {
      const [pg, gw] = await Promise.all([twins!.conns.pg.simple(sql), twins!.conns.gw.simple(sql)]);
      assert.deepEqual(seenWhole(gw), seenWhole(pg), sql);
    }
  },
);

test(
  "now() and current_timestamp are the transaction's start: one time for every statement of a block and of a simple Query of several",
  { timeout: 60_000 },
  async () => {
    // Each statement read its own start (DuckDB's transaction is the statement), where PostgreSQL's read the block's.
    const clocks =
      'select now()::text as t, current_timestamp = now() and transaction_timestamp() = now() and localtimestamp = now()::timestamp and current_date = now()::date and current_time = now()::timetz as same';
    const pause = () => new Promise((r) => setTimeout(r, 30));
    const time = (r: QueryResult) => splitDataRow(r.dataRows[0]!)[0]!.toString('utf8');
    const flag = (r: QueryResult) => splitDataRow(r.dataRows[0]!)[1]!.toString('utf8');
    for (const [engine, c] of [
      ['pg', twins!.conns.pg],
      ['gw', twins!.conns.gw],
    ] as const) {
      await c.simple('BEGIN');
      const first = await c.simple(clocks);
      await pause();
      const second = await c.simple(clocks);
      await c.simple('COMMIT');
      await pause();
      const after = await c.simple(clocks);
      assert.equal(time(second), time(first), `${engine}: two statements of one block`);
      assert.equal(flag(second), 't', `${engine}: every clock of a block is its start`);
      assert.notEqual(time(after), time(first), `${engine}: a statement after the block`);
      const whole = await c.simple(`${clocks}; select count(*) from generate_series(1, 200000); ${clocks}`);
      const times = whole.dataRows.filter((_, i) => i !== 1).map((d) => splitDataRow(d)[0]!.toString('utf8'));
      assert.equal(times.length, 2, `${engine}: both clocks answered`);
      assert.equal(times[1], times[0], `${engine}: the statements of one simple Query`);
      const alone = await c.simple(clocks);
      assert.notEqual(time(alone), times[0], `${engine}: a Query after it`);
    }
  },
);

test(
  "statement_timestamp() is the statement's start and clock_timestamp()/timeofday() the instant, beside the transaction's now(), as PostgreSQL 15",
  { timeout: 60_000 },
  async () => {
    // They were 42883: DuckDB has neither clock.
    const clocks =
      "select statement_timestamp() = now() as at_start, statement_timestamp() > now() as later, clock_timestamp() >= statement_timestamp() as ahead, timeofday() like '___ ___ __ __:__:__.______ ____ UTC' as spelled, pg_typeof(clock_timestamp())::text || ' ' || pg_typeof(timeofday())::text as types";
    const pause = () => new Promise((r) => setTimeout(r, 30));
    const rows = (r: QueryResult) => {
      assert.equal(r.error, undefined, r.error?.message);
      return r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString('utf8')));
    };
    const seen: Record<string, unknown[]> = {};
    for (const [engine, c] of [
      ['pg', twins!.conns.pg],
      ['gw', twins!.conns.gw],
    ] as const) {
      const alone = rows(await c.simple(clocks));
      await c.simple('BEGIN');
      await pause();
      const inBlock = rows(await c.simple(clocks));
      await c.simple('COMMIT');
      // clock_timestamp() moves within one statement
      const moving = rows(
        await c.simple('select count(distinct clock_timestamp()) > 1 as moved from generate_series(1, 300000)'),
      );
      seen[engine] = [alone, inBlock, moving];
    }
    assert.deepEqual(seen.pg, [
      [['t', 'f', 't', 't', 'timestamp with time zone text']],
      [['f', 't', 't', 't', 'timestamp with time zone text']],
      [['t']],
    ]);
    assert.deepEqual(seen.gw, seen.pg);
  },
);

test(
  "set_config beside current_setting reads in order, and takes parameters as its name and value (asyncpg's type introspection, sqlx): as PostgreSQL 15",
  { timeout: 60_000 },
  async () => {
    // asyncpg 0.28+ opens its type introspection with `SELECT current_setting('jit') AS cur, set_config('jit',
    // 'off', false) AS new` and restores with `SELECT set_config('jit', $1, false)`: both were refused 0A000, so
    // no array parameter or result worked (jit itself the gateway shows as off, PostgreSQL as on).
    const listed = [
      "SET application_name = 'before'",
      "SELECT current_setting('application_name') AS cur, set_config('application_name', 'after', false) AS new, pg_catalog.current_setting('application_name')",
      'SHOW application_name',
      "SELECT current_setting('no_such_setting'), set_config('application_name', 'x', false)",
      'SHOW application_name',
      "SELECT set_config('application_name', $1, false)",
    ];
    await sameAsPostgres(listed);
    await sameAsPostgres(listed.slice(0, -1), true);
    const cases: Array<[string, (string | null)[], number[]]> = [
      ["SELECT set_config('application_name', $1, false)", ['by-param'], []],
      ['SELECT set_config($1, $2, false) AS v', ['application_name', 'both'], [25, 1043]],
      ["SELECT set_config('application_name', $1, false)", [null], []],
    ];
    for (const [sql, params, paramTypes] of cases) {
      const run = (c: RawPg) => c.query(sql, { params, paramTypes });
      const [pg, gw] = await Promise.all([run(twins!.conns.pg), run(twins!.conns.gw)]);
      assert.deepEqual(seen(gw), seen(pg), `${sql} ${JSON.stringify(params)}`);
      const show = (c: RawPg) => c.simple('SHOW application_name');
      assert.deepEqual(seen(await show(twins!.conns.gw)), seen(await show(twins!.conns.pg)), sql);
    }
    // a parameter declared other than text (PostgreSQL would cast it) is refused, nothing changed
    const gw = twins!.conns.gw;
    await gw.simple("SET application_name = 'kept'");
    const refused = await gw.query("SELECT set_config('application_name', $1, false)", {
      params: ['1'],
      paramTypes: [23],
    });
    assert.equal(refused.error?.code, '0A000');
    assert.deepEqual(seen(await gw.simple('SHOW application_name')).rows, [['kept']]);
  },
);
