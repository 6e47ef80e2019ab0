/**
 * The result cache: which statements are repeatable (decided from DuckDB's parse tree and function
 * registry), the byte-budgeted cache itself, and the gateway answering repeated queries from it
 * through real clients — never for volatile functions, per version, per output setting.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { RawPg, splitDataRow } from './support/raw-pg.js';
import { consistentFunctions, isRepeatable } from '../src/analysis/determinism.js';
import { analyze } from '../src/analysis/analysis.js';
import { ResultCache, ResultRecorder, type ResultKey } from '../src/cache/result-cache.js';
import {
  client,
  copyFixtures,
  FIXTURES,
  serveBasic,
  startGateway,
  waitFor,
  type RunningGateway,
} from './support/gateway.js';

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8'));
const basic = manifest.repos.basic as { refs: Record<string, string> };

describe('result cache: which statements are repeatable', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let consistent: Set<string>;
  const tables = new Set(['main.t', 'sales.orders']);
  const macros = new Set(['lower']); // as if the version's DuckLake catalog defined a macro `lower`
  const repeatable = async (sql: string) =>
    isRepeatable(await analyze(conn, sql), consistent, 'v@1', {
      isVersionTable: (s, t) => tables.has(`${s}.${t}`),
      isVersionFunction: (f) => macros.has(f),
    });

  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    consistent = await consistentFunctions(conn);
  });
  after(() => {
    conn.disconnectSync();
    instance.closeSync();
  });

  test('the function registry: consistent built-ins in, volatile and clock functions and macros out', () => {
    // generate_series in an expression is its list form (in FROM a table function, listed apart); array_to_string is DuckDB's macro over list_aggr
    for (const f of [
      'abs',
      'sum',
      'count_star',
      'lower',
      '+',
      'strftime',
      'generate_series',
      'unnest',
      'array_to_string',
    ])
      assert.ok(consistent.has(f), f);
    for (const f of [
      'random',
      'now',
      'gen_random_uuid',
      'nextval',
      'current_date',
      'get_current_timestamp',
      'current_user',
    ]) {
      assert.ok(!consistent.has(f), f);
    }
  });

  test('constants, version tables, CTEs, consistent functions and window functions are repeatable', async () => {
    for (const sql of [
      'SELECT 1',
      'SELECT count(*) FROM t',
      'SELECT * FROM main.t WHERE x > 3 ORDER BY x LIMIT 5',
      'SELECT status, sum(amount) FROM sales.orders GROUP BY ALL',
      'SELECT o.* FROM "v@1".sales.orders o',
      'WITH c AS (SELECT * FROM t) SELECT upper(s), abs(x) + 1 FROM c',
      'SELECT row_number() OVER (ORDER BY x) FROM t',
      'SELECT x FROM t WHERE x IN (SELECT x FROM sales.orders)',
      "SELECT strftime(ts, '%Y') FROM t",
      "SELECT generate_series(1, x), unnest([x, 2]), array_to_string(['a', s], ',') FROM t",
      'SELECT * FROM range(3)',
      'SELECT * FROM generate_series(1, 3)',
    ]) {
      assert.equal(await repeatable(sql), true, sql);
    }
  });

  test('clock, randomness, session values, table functions, other relations are not', async () => {
    for (const sql of [
      'SELECT now()',
      'SELECT random()',
      'SELECT current_timestamp',
      'SELECT CURRENT_DATE',
      'SELECT current_user',
      'SELECT count(*) FROM t WHERE ts < now()',
      'SELECT gen_random_uuid()',
      "SELECT getvariable('pg_user')",
      "SELECT current_setting('TimeZone')",
      // the list functions in FROM are repeatable over repeatable arguments only (psql's \\d+ reads unnest)
      'SELECT * FROM generate_series(1, extract(epoch from now())::int)',
      'SELECT * FROM range(random()::int)',
      'SELECT * FROM t USING SAMPLE 10%',
      'SELECT * FROM sales.orders TABLESAMPLE 5 ROWS',
      'SELECT * FROM (SELECT * FROM t) USING SAMPLE 5 ROWS',
      'SELECT * FROM some_view',
      'SELECT * FROM other_db.main.t',
      'SELECT * FROM information_schema.tables',
      'SELECT * FROM pg_catalog.pg_class',
      'SELECT x FROM t WHERE x IN (SELECT random())',
      'SELECT main.some_macro(1)',
      'SELECT lower(s) FROM t',
    ]) {
      assert.equal(await repeatable(sql), false, sql);
    }
    // A statement DuckDB cannot parse has no analysis at all: it never reaches the cache.
    await assert.rejects(repeatable('SELEC broken'), (e: { sqlstate?: string }) => e.sqlstate === '42601');
  });
});

describe('result cache: the byte-budgeted store', () => {
  const key = (sql: string, over: Partial<ResultKey> = {}): ResultKey => ({
    versionId: 'v1',
    database: 'r@v1',
    attachId: 'meta1',
    user: 'alice',
    sql,
    settings: 'timezone=UTC',
    paramTypes: [23],
    resultFormats: [],
    paramFormats: [],
    params: [],
    ...over,
  });

  test('a hit needs every part of the key to match', () => {
    const c = new ResultCache({ maxBytes: 1024, maxEntryBytes: 512 });
    c.set(key('q', { params: [Buffer.from('1'), null] }), { rows: Buffer.from('abc'), rowCount: 1 });
    assert.equal(c.get(key('q', { params: [Buffer.from('1'), null] }))?.rowCount, 1);
    for (const other of [
      key('q', { params: [Buffer.from('2'), null] }),
      key('q', { params: [Buffer.from('1'), Buffer.from('')] }),
      key('q', { versionId: 'v2', params: [Buffer.from('1'), null] }),
      key('q', { settings: 'timezone=Europe/Paris', params: [Buffer.from('1'), null] }),
      key('q', { user: 'bob', params: [Buffer.from('1'), null] }),
      key('q', { paramTypes: [701], params: [Buffer.from('1'), null] }),
      key('q', { resultFormats: [1], params: [Buffer.from('1'), null] }),
      key('q2', { params: [Buffer.from('1'), null] }),
    ]) {
      assert.equal(c.get(other), undefined, JSON.stringify(other));
    }
    assert.equal(c.hits, 1);
  });

  test('oversized results are not kept; the budget evicts the least recently used', () => {
    const c = new ResultCache({ maxBytes: 1000, maxEntryBytes: 400 });
    c.set(key('big'), { rows: Buffer.alloc(401), rowCount: 1 });
    assert.equal(c.get(key('big')), undefined);
    c.set(key('a'), { rows: Buffer.alloc(400), rowCount: 1 });
    c.set(key('b'), { rows: Buffer.alloc(400), rowCount: 1 });
    c.get(key('a'));
    c.set(key('c'), { rows: Buffer.alloc(400), rowCount: 1 });
    assert.ok(c.get(key('a')));
    assert.equal(c.get(key('b')), undefined);
    assert.ok(c.bytes <= 1000);
    assert.equal(new ResultCache({ maxBytes: 0, maxEntryBytes: 10 }).enabled, false);
  });

  test('a recorder gives up past its limit and copies what it keeps', () => {
    const r = new ResultRecorder(8);
    const scratch = Buffer.from('1234');
    r.add(scratch);
    scratch.fill(0); // the connection reuses its buffer: the recording must not change
    r.add(Buffer.from('5678'));
    assert.equal(r.finish(2)?.rows.toString(), '12345678');
    const over = new ResultRecorder(8);
    over.add(Buffer.alloc(6));
    over.add(Buffer.alloc(6));
    assert.equal(over.finish(2), null);
  });
});

describe('result cache: through real clients', () => {
  let gw: RunningGateway;

  before(async () => {
    gw = await serveBasic();
  });
  after(() => gw?.stop());

  async function connect(database = 'basic@v1'): Promise<pg.Client> {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
    await c.connect();
    return c;
  }
  const stats = async (c: pg.Client) =>
    (
      await c.query(
        `SELECT hits::int AS hits, misses::int AS misses, entries::int AS entries FROM fdl.cache WHERE cache = 'results'`,
      )
    ).rows[0] as { hits: number; misses: number; entries: number };

  test('a repeated query is answered from the cache with the same rows, in text and binary, across sessions', async () => {
    const a = await connect();
    const b = await connect();
    try {
      const sql =
        'SELECT status, count(*) AS n, sum(amount) AS total FROM sales.orders GROUP BY status ORDER BY status';
      const first = await a.query({ text: sql, rowMode: 'array' });
      const s0 = await stats(a);
      const again = await b.query({ text: sql, rowMode: 'array' });
      const s1 = await stats(a);
      assert.deepEqual(again.rows, first.rows);
      assert.deepEqual(
        again.fields.map((f) => [f.name, f.dataTypeID]),
        first.fields.map((f) => [f.name, f.dataTypeID]),
      );
      assert.equal(s1.hits, s0.hits + 1, 'the second session was answered from the cache');
      assert.equal(again.rowCount, first.rowCount);
      // A division by a column is checked for zero (22012, error()), and still repeatable.
      const div = 'SELECT order_id, amount / qty AS per_item FROM sales.orders ORDER BY order_id';
      const d1 = await a.query({ text: div, rowMode: 'array' });
      const beforeDiv = (await stats(a)).hits;
      const d2 = await b.query({ text: div, rowMode: 'array' });
      assert.deepEqual(d2.rows, d1.rows);
      assert.equal(
        (await stats(a)).hits,
        beforeDiv + 1,
        'a statement with a checked division is answered from the cache',
      );
      // Extended protocol, with a parameter and binary results: keyed by both.
      const raw = { getTypeParser: () => (v: unknown) => v } as any; // the bytes as sent
      const q = (v: number, binary: boolean) => ({
        text: 'SELECT order_id, amount FROM sales.orders WHERE order_id > $1 ORDER BY order_id',
        values: [v],
        binary,
        types: raw,
      });
      const p1 = await a.query(q(2, true));
      const hitsBefore = (await stats(a)).hits;
      const p2 = await b.query(q(2, true));
      assert.equal((await stats(a)).hits, hitsBefore + 1, 'Parse/Bind/Execute answered from the cache');
      const p3 = await b.query(q(3, true));
      const p4 = await b.query(q(2, false));
      assert.ok(p1.rows.length > 0);
      assert.ok(Buffer.isBuffer(p2.rows[0].order_id));
      assert.deepEqual(p2.rows, p1.rows);
      assert.equal(p3.rows.length, p1.rows.length - 1, 'another parameter value is another result');
      assert.equal(typeof p4.rows[0].order_id, 'string', 'text format is another result');
      assert.deepEqual(
        p4.rows.map((r) => BigInt(r.order_id)),
        p1.rows.map((r) => (r.order_id as Buffer).readBigInt64BE()),
      );
    } finally {
      await a.end();
      await b.end();
    }
  });

  test('unnamed parameterised statements replay from the cache exactly when named ones do', async () => {
    const c = await connect();
    try {
      const sql = 'SELECT order_id, amount FROM sales.orders WHERE order_id = $1';
      const unnamed = (v: number) => c.query({ text: sql, values: [v] });
      const named = (v: number) => c.query({ name: 'point', text: sql, values: [v] });
      const delta = async (run: () => Promise<unknown>) => {
        const s0 = await stats(c);
        await run();
        const s1 = await stats(c);
        return { hits: s1.hits - s0.hits, misses: s1.misses - s0.misses };
      };
      // New values miss on both paths; the same value again is a hit on both, whichever path recorded it.
      assert.deepEqual(await delta(() => unnamed(11)), { hits: 0, misses: 1 });
      assert.deepEqual(
        await delta(() => unnamed(11)),
        { hits: 1, misses: 0 },
        'the unnamed repeat came from the cache',
      );
      assert.deepEqual(await delta(() => named(11)), { hits: 1, misses: 0 }, 'named reads what unnamed recorded');
      assert.deepEqual(await delta(() => named(12)), { hits: 0, misses: 1 });
      assert.deepEqual(await delta(() => unnamed(12)), { hits: 1, misses: 0 }, 'unnamed reads what named recorded');
      assert.deepEqual((await unnamed(12)).rows, (await named(12)).rows);
      // Never cached on either path: a volatile function with a parameter.
      const vol = 'SELECT random() AS r, order_id FROM sales.orders WHERE order_id = $1';
      const before = await stats(c);
      const r1 = (await c.query({ text: vol, values: [11] })).rows[0].r;
      const r2 = (await c.query({ text: vol, values: [11] })).rows[0].r;
      const r3 = (await c.query({ name: 'vol', text: vol, values: [11] })).rows[0].r;
      const r4 = (await c.query({ name: 'vol', text: vol, values: [11] })).rows[0].r;
      assert.equal(new Set([r1, r2, r3, r4]).size, 4);
      assert.equal((await stats(c)).hits, before.hits);
    } finally {
      await c.end();
    }
  });

  test('volatile functions run every time; fdl.result_cache = off bypasses the cache', async () => {
    const c = await connect();
    try {
      const r1 = (await c.query('SELECT random() AS r, count(*) FROM sales.orders')).rows[0].r;
      const r2 = (await c.query('SELECT random() AS r, count(*) FROM sales.orders')).rows[0].r;
      assert.notEqual(r1, r2);
      const t1 = (await c.query('SELECT now()::text AS t')).rows[0].t;
      await new Promise((r) => setTimeout(r, 5));
      const t2 = (await c.query('SELECT now()::text AS t')).rows[0].t;
      assert.notEqual(t1, t2);
      await c.query('SELECT count(*) FROM sales.customers');
      await c.query('SET fdl.result_cache = off');
      assert.equal((await c.query('SHOW fdl.result_cache')).rows[0]['fdl.result_cache'], 'off');
      const before = await stats(c);
      await c.query('SELECT count(*) FROM sales.customers');
      assert.equal((await stats(c)).hits, before.hits);
      await assert.rejects(c.query("SET fdl.result_cache = 'maybe'"), (e: { code?: string }) => e.code === '22023');
      await c.query('RESET fdl.result_cache');
      await c.query('SELECT count(*) FROM sales.customers');
      assert.equal((await stats(c)).hits, before.hits + 1);
    } finally {
      await c.end();
    }
  });

  test('results over the entry limit stream as usual and are not kept', async () => {
    const c = await connect();
    try {
      const big =
        'SELECT a.*, b.order_id AS b_id, c.order_id AS c_id FROM sales.orders a, sales.orders b, sales.orders c';
      const before = await stats(c);
      const first = await c.query({ text: big, rowMode: 'array' });
      assert.equal(first.rowCount, 50 ** 3);
      const again = await c.query({ text: big, rowMode: 'array' });
      assert.equal(again.rowCount, 50 ** 3);
      const after = await stats(c);
      assert.equal(after.entries, before.entries, 'nothing was kept');
      assert.equal(after.hits, before.hits, 'nothing was replayed');
      assert.equal(after.misses, before.misses + 2);
    } finally {
      await c.end();
    }
  });

  test('output settings are part of the key: TimeZone changes a cached timestamptz result', async () => {
    const c = await connect();
    try {
      const sql = 'SELECT min(ordered_at)::timestamptz AS t FROM sales.orders';
      const utc = (
        await c.query({ text: sql, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } as any })
      ).rows[0][0];
      await c.query("SET TimeZone = 'America/New_York'");
      const ny = (
        await c.query({ text: sql, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } as any })
      ).rows[0][0];
      assert.match(String(utc), /\+00$/);
      assert.match(String(ny), /-0[45]$/);
      await c.query("SET TimeZone = 'UTC'");
      const back = (
        await c.query({ text: sql, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } as any })
      ).rows[0][0];
      assert.equal(back, utc);
    } finally {
      await c.end();
    }
  });

  test('versions are part of the key: the same text on two tags gives each tag its rows', async () => {
    const v1 = await connect('basic@v1');
    const v2 = await connect('basic@v2');
    try {
      const sql = 'SELECT count(*)::int AS n FROM sales.orders';
      const n1 = (await v1.query(sql)).rows[0].n;
      const n2 = (await v2.query(sql)).rows[0].n;
      assert.equal((await v1.query(sql)).rows[0].n, n1);
      assert.equal((await v2.query(sql)).rows[0].n, n2);
      assert.notEqual(n1, n2, 'the fixture tags differ in orders');
      assert.notEqual(basic.refs['refs/tags/v1'], basic.refs['refs/tags/v2']);
    } finally {
      await v1.end();
      await v2.end();
    }
  });

  test('parameter types are part of the key: $1 / 2 is 1 for an int4 parameter and 1.5 for a float8 one (PREPARE and Parse)', async () => {
    const run = async (prepare: string, execute: string) => {
      const c = await connect();
      try {
        await c.query(prepare);
        return (await c.query(execute)).rows[0].v;
      } finally {
        await c.end();
      }
    };
    const text = 'select $1 / 2 as v';
    assert.equal(await run(`PREPARE p1(int) AS ${text}`, 'EXECUTE p1(3)'), 1);
    assert.equal(await run(`PREPARE p2(float8) AS ${text}`, 'EXECUTE p2(3)'), 1.5);
    // protocol Parse with declared OIDs 23 and 701: the same text and the same parameter bytes
    const typed = async (oid: number) => {
      const c = await RawPg.connect({ host: gw.host, port: gw.port, user: 'x', database: 'basic@v1' });
      try {
        const r = await c.query(`${text} /* parsed */`, { params: ['3'], paramTypes: [oid] });
        return splitDataRow(r.dataRows[0]!)[0]!.toString();
      } finally {
        await c.close();
      }
    };
    assert.equal(await typed(23), '1');
    assert.equal(await typed(701), '1.5');
  });

  test('the key names the authenticated user: session_authorization cannot be set to another role (42501, as PostgreSQL 15)', async () => {
    const c = await connect();
    try {
      for (const sql of [
        "SET session_authorization = 'y'",
        'SET SESSION AUTHORIZATION y',
        "SELECT set_config('session_authorization', 'y', false)",
      ]) {
        await assert.rejects(
          c.query(sql),
          (e: { code?: string; message?: string }) =>
            e.code === '42501' && e.message === 'permission denied to set session authorization "y"',
          sql,
        );
        assert.equal((await c.query('SHOW session_authorization')).rows[0].session_authorization, 'x');
      }
      // its own name, DEFAULT and RESET are allowed, as in PostgreSQL
      await c.query('SET SESSION AUTHORIZATION x');
      await c.query('SET SESSION AUTHORIZATION DEFAULT');
      await c.query('RESET SESSION AUTHORIZATION');
      assert.equal((await c.query('SELECT current_user AS u')).rows[0].u, 'x');
    } finally {
      await c.end();
    }
  });

  test('a cached answer is audited as such', async () => {
    const c = await connect();
    try {
      await c.query('SELECT max(order_id) FROM sales.orders');
      await c.query('SELECT max(order_id) FROM sales.orders');
    } finally {
      await c.end();
    }
    await new Promise((r) => setTimeout(r, 300));
    const lines = gw
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l.event === 'statement' && l.cached === true && l.rows === 1));
  });
});

describe('result cache: moving branches', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const branch = () => join(repos.path('repos/basic'), 'refs', 'heads', 'main');

  before(async () => {
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--ref-ttl',
      '0',
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('after a branch moves, statements prepared before and after it and the cache give each version its rows', async () => {
    const onMain = await client(gw, 'basic@main');
    const onV1 = await client(gw, 'basic@v1');
    const original = readFileSync(branch(), 'utf8');
    const sql = 'SELECT count(*)::int AS n FROM sales.orders';
    try {
      const named = { name: 'orders_count', text: sql };
      const before = (await onMain.query(named)).rows[0].n;
      writeFileSync(branch(), `${basic.refs['refs/tags/v1']}\n`); // main now points where v1 does
      // The named statement, prepared (and its result cached) on the old version, runs again: the
      // session has moved, so it reads the new version, first planned afresh and then from the cache.
      assert.equal((await onMain.query(named)).rows[0].n, 50, 'the named statement reads the version main moved to');
      assert.equal((await onMain.query(named)).rows[0].n, 50, 'and its repeat too');
      // The same text through the extended protocol on v1: the key it would share with a mislabeled entry.
      const v1 = (await onV1.query({ name: 'count_v1', text: sql })).rows[0].n;
      const v1Again = (await onV1.query({ name: 'count_v1', text: sql })).rows[0].n;
      assert.equal(v1, 50, 'v1 has 50 orders (fixture)');
      assert.equal(v1Again, 50);
      assert.notEqual(before, v1);
      assert.equal(
        (await onMain.query(sql)).rows[0].n,
        50,
        'a fresh statement on the moved branch reads the new version',
      );
    } finally {
      writeFileSync(branch(), original);
      await onMain.end();
      await onV1.end();
    }
  });
  test('a named statement whose columns change when the branch moves is refused with 0A000, as PostgreSQL refuses a cached plan, and the session reads on', async () => {
    const c = await client(gw, 'basic@main');
    const original = readFileSync(branch(), 'utf8');
    const named = { name: 'customers_all', text: 'SELECT * FROM sales.customers ORDER BY customer_id LIMIT 1' };
    try {
      const before = await c.query(named);
      assert.deepEqual(
        before.fields.map((f) => f.name),
        ['customer_id', 'name', 'email', 'country', 'signup', 'vip'],
      );
      writeFileSync(branch(), `${basic.refs['refs/heads/dev']}\n`); // dev's customers have one more column, segment
      const refused = async () => {
        const e = await c.query(named).then(
          () => null,
          (err: { code?: string; message: string }) => err,
        );
        assert.equal(e?.code, '0A000', `expected 0A000, got ${e?.code} ${e?.message}`);
        assert.equal(e?.message, 'cached plan must not change result type');
      };
      await refused();
      await refused(); // refused every time, never answered with the old columns
      // Nothing else changed: the session reads the version main moved to, its own statements included.
      assert.equal((await c.query('SHOW fdl.version')).rows[0]['fdl.version'], basic.refs['refs/heads/dev']);
      const fresh = await c.query('SELECT * FROM sales.customers ORDER BY customer_id LIMIT 1');
      assert.deepEqual(
        fresh.fields.map((f) => f.name),
        ['customer_id', 'name', 'email', 'country', 'signup', 'vip', 'segment'],
      );
      assert.equal(fresh.rows[0].customer_id, before.rows[0].customer_id);
    } finally {
      writeFileSync(branch(), original);
      await c.end();
    }
  });
});

describe('result cache: a moving branch on the hot path', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/basic');
  const branch = () => join(repos.path('repos/basic'), 'refs', 'heads', 'main');

  before(async () => {
    gw = await startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--ref-ttl',
      '300',
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  test('a repeated statement answered at once (plan and result cached, ref fresh) follows the branch once its TTL passes', async () => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database: 'basic@main' });
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(n.message ?? ''));
    await c.connect();
    const original = readFileSync(branch(), 'utf8');
    // unnamed Parse/Bind/Describe/Execute/Sync every time, as pgbench -M extended and most drivers send it
    const count = async () =>
      (await c.query({ text: 'SELECT count(*)::int AS n FROM sales.orders WHERE $1::int = 1', values: [1] })).rows[0]
        .n as number;
    try {
      const before = await count();
      for (let i = 0; i < 5; i++) assert.equal(await count(), before);
      writeFileSync(branch(), `${basic.refs['refs/tags/v1']}\n`); // main now points where v1 does (50 orders)
      assert.notEqual(before, 50);
      // the branch is re-read once the ref TTL (300 ms, in the gateway process) has passed
      const now = await waitFor(async () => {
        const n = await count();
        return n !== before && n;
      }, 'the session to follow the branch');
      assert.equal(now, 50, "the session moved to the branch's new version");
      assert.equal(await count(), 50);
      assert.ok(
        notices.some((m) => /moved from version/.test(m)),
        `a NOTICE says so: ${JSON.stringify(notices)}`,
      );
    } finally {
      writeFileSync(branch(), original);
      await c.end();
    }
  });
});
