/**
 * The gateway's own statements run with new values on a connection (engine/reused-statement.ts):
 * DuckDB's parse for the analysis and its plan for the engine line are prepared once per connection,
 * and runs that overlap on one connection never see each other's values. In-process DuckDB, real
 * analysis and engine line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, DuckDBPreparedStatement, DuckDBResult, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import { refuseSideEffects } from '../src/analysis/side-effects.js';
import { ReusedStatement } from '../src/engine/reused-statement.js';
import { SqlError } from '../src/errors.js';
import { workCount } from '../src/stages.js';

describe('statements reused with new values', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let prepares: string[];

  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await conn.run('CREATE TABLE t1 (a INTEGER); CREATE TABLE t2 (b INTEGER)');
    prepares = [];
    const prepare = conn.prepare.bind(conn);
    conn.prepare = (sql: string) => (prepares.push(sql), prepare(sql));
  });
  after(() => {
    conn.closeSync();
    instance.closeSync();
  });

  test('overlapping runs on one connection each get their own values, from one prepare', async () => {
    const echo = new ReusedStatement('SELECT $1::VARCHAR || $2::VARCHAR');
    const values = Array.from({ length: 40 }, (_, i) => [`a${i}`, `-b${i}`]);
    const rows = await Promise.all(values.map((v) => echo.firstRow(conn, v)));
    assert.deepEqual(
      rows.map((r) => r[0]),
      values.map(([a, b]) => a! + b!),
    );
    assert.equal(prepares.filter((p) => p.includes('$1::VARCHAR || $2')).length, 1);
  });

  test('new texts are analysed and judged by the engine line with one prepare each per connection', async () => {
    prepares.length = 0;
    const texts = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 2 ? `select * from duckdb_settings() /* ${i} */` : `select * from t${1 + (i % 2)} /* ${i} */`,
    );
    // overlapping, as a session's pipelined statements and the text pool's callers may be
    const analyses = await Promise.all(texts.map((t) => analyze(conn, t)));
    analyses.forEach((a, i) => {
      const want = i % 3 === 2 ? [] : [`t${1 + (i % 2)}`];
      assert.deepEqual(
        a.relations.map((r) => r.table),
        want,
        texts[i],
      );
    });
    const verdicts = await Promise.all(
      texts.map((t, i) =>
        refuseSideEffects(conn, t, analyses[i]!).then(
          () => 'read',
          (e: unknown) => (e instanceof SqlError ? `${e.sqlstate} ${e.message}` : String(e)),
        ),
      ),
    );
    verdicts.forEach((v, i) =>
      assert.equal(
        v,
        i % 3 === 2
          ? '42501 refused by the engine: table function duckdb_settings is not a read of this version'
          : 'read',
        texts[i],
      ),
    );
    // one parse statement and one plan statement for the connection, not one per text
    assert.equal(prepares.filter((p) => p.includes('json_serialize_sql')).length, 1, prepares.join('\n'));
    assert.equal(prepares.filter((p) => p.includes('json_serialize_plan')).length, 1, prepares.join('\n'));
  });

  test("the engine line's verdict is kept per scope and text for reads only: a refusal is bound again", async () => {
    const read = 'select a from t1 /* judged */';
    const refused = 'select * from duckdb_settings() /* judged */';
    const [ra, fa] = [await analyze(conn, read), await analyze(conn, refused)];
    const binds = async (work: () => Promise<unknown>) => {
      const before = workCount('bind_check');
      await work();
      return workCount('bind_check') - before;
    };
    assert.equal(await binds(() => refuseSideEffects(conn, read, ra, 'v1')), 1);
    assert.equal(await binds(() => refuseSideEffects(conn, read, ra, 'v1')), 0, 'the same text in the same scope');
    assert.equal(await binds(() => refuseSideEffects(conn, read, ra, 'v2')), 1, 'another scope');
    assert.equal(await binds(() => refuseSideEffects(conn, read, ra)), 1, 'no scope: always bound');
    for (let i = 0; i < 2; i++) {
      const n = await binds(() =>
        assert.rejects(
          refuseSideEffects(conn, refused, fa, 'v1'),
          (e: unknown) => e instanceof SqlError && e.sqlstate === '42501',
        ),
      );
      assert.equal(n, 1, 'a refused text is bound every time');
    }
  });

  test('a run is one DuckDB call: the row is read from the materialized result, no chunk fetched', async () => {
    const calls: string[] = [];
    const spied: [Record<string, unknown>, string][] = [
      [DuckDBPreparedStatement.prototype as unknown as Record<string, unknown>, 'run'],
      [DuckDBPreparedStatement.prototype as unknown as Record<string, unknown>, 'stream'],
      [DuckDBResult.prototype as unknown as Record<string, unknown>, 'fetchChunk'],
    ];
    const originals = spied.map(([proto, name]) => proto[name]);
    spied.forEach(([proto, name], i) => {
      const original = originals[i] as (...a: unknown[]) => unknown;
      proto[name] = function (this: unknown, ...a: unknown[]) {
        calls.push(name);
        return original.apply(this, a);
      };
    });
    try {
      const text = 'select a from t1 where a > 3 /* one call */';
      const [tree] = await new ReusedStatement('SELECT json_serialize_sql($1::VARCHAR)').firstRow(conn, [text]);
      assert.match(String(tree), /"table_name":"t1"/);
      calls.length = 0;
      const analysis = await analyze(conn, `${text} /* analysed */`);
      assert.deepEqual(
        analysis.relations.map((r) => r.table),
        ['t1'],
      );
      await refuseSideEffects(conn, analysis.sql, analysis);
      // the parse, the engine line's bind and its table's rows (its row bound): one run each, nothing streamed or fetched
      assert.deepEqual(calls, ['run', 'run', 'run']);
      // a statement without rows answers an empty row, as before
      calls.length = 0;
      assert.deepEqual(
        await new ReusedStatement('SELECT 1 WHERE $1::VARCHAR = $2::VARCHAR').firstRow(conn, ['a', 'b']),
        [],
      );
      assert.deepEqual(calls, ['run']);
    } finally {
      spied.forEach(([proto, name], i) => (proto[name] = originals[i]));
    }
  });
});
