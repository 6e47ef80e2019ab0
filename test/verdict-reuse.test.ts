/**
 * The engine line's verdict reused by shape (analysis/side-effects.ts, analysis/bind-shape.ts), on an
 * in-process DuckDB: a text whose literals alone differ from one judged a read is not bound again,
 * and no text whose plan would be refused ever takes an admitted verdict — a file by path, a
 * replacement scan, a macro (one shadowing an operator) or a table macro handed a path, query() and
 * query_table() strings, a variable, casts, EXPLAIN. Admission is not involved: the check alone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { analyze } from '../src/analysis/analysis.js';
import { refuseSideEffects } from '../src/analysis/side-effects.js';
import { SqlError } from '../src/errors.js';
import { workCount } from '../src/stages.js';

describe('the engine line reuses a verdict only for texts that bind alike', () => {
  let dir: string;
  let inside: string;
  let outside: string;
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let scopes = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fdl-verdicts-'));
    inside = join(dir, 'inside', 'a.parquet');
    outside = join(dir, 'outside', 'b.parquet');
    mkdirSync(join(dir, 'inside'));
    mkdirSync(join(dir, 'outside'));
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    for (const f of [inside, outside]) await conn.run(`COPY (SELECT 1 AS x) TO '${f}'`);
    // the check reads the instance's sealed folders from allowed_directories (set unenforced here, so
    // DuckDB binds a file outside and only the check can refuse it)
    await conn.run(`SET allowed_directories = ['${join(dir, 'inside')}/']`);
    await conn.run(`CREATE VIEW vin AS SELECT * FROM read_parquet('${inside}')`);
    await conn.run(`CREATE VIEW vout AS SELECT * FROM read_parquet('${outside}')`);
    await conn.run('CREATE MACRO m(p) AS (SELECT count(*) FROM read_parquet(p))');
    await conn.run('CREATE MACRO tm(p) AS TABLE SELECT * FROM read_parquet(p)');
    // a macro shadowing an operator: `'path' + 1` reads a file
    await conn.run('CREATE MACRO "+"(a, b) AS (SELECT count(*) FROM read_parquet(a))');
  });
  after(() => {
    conn?.disconnectSync();
    rmSync(dir, { recursive: true, force: true });
  });

  const verdict = async (sql: string, scope: string) => {
    try {
      const a = await analyze(conn, sql);
      await refuseSideEffects(conn, a.sql, a, scope);
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof SqlError, String(e));
      return e.sqlstate;
    }
  };
  /** Verdicts of `texts` in order, in a scope of their own, and how many were bound and reused. */
  const judge = async (texts: string[]) => {
    const scope = `scope-${scopes++}`;
    const binds = workCount('bind_check');
    const reuses = workCount('verdict_reuse');
    const got: string[] = [];
    for (const t of texts) got.push(await verdict(t, scope));
    return { got, binds: workCount('bind_check') - binds, reuses: workCount('verdict_reuse') - reuses };
  };

  test("a dashboard's new literals reuse the verdict; a comment does not matter", async () => {
    const r = await judge([
      'SELECT x FROM vin WHERE x = 1 AND x BETWEEN 0 AND 5 AND x IN (1, 2) LIMIT 10',
      'SELECT x FROM vin WHERE x = 7 AND x BETWEEN 3 AND 9 AND x IN (4, 5) LIMIT 3 /* new */',
      "SELECT x FROM vin WHERE x = 'seven'", // another shape: a literal of another type
    ]);
    assert.deepEqual(r, { got: ['ok', 'ok', 'ok'], binds: 2, reuses: 1 });
  });

  test("an operator's literal arguments: out of the shape where no macro has the operator's name, in it where one has", async () => {
    const r = await judge([
      'SELECT x * 2, x - 1 FROM vin WHERE x = 1',
      'SELECT x * 7, x - 3 FROM vin WHERE x = 2', // `*` and `-` are DuckDB's own here
      `SELECT x, '${inside}' + 1 FROM vin`, // `+` is a macro here (before()): its arguments are in the key
      `SELECT x, '${inside}' + 2 FROM vin`,
    ]);
    assert.deepEqual(r, { got: ['ok', 'ok', 'ok', 'ok'], binds: 3, reuses: 1 });
  });

  test('what stays in the shape: literals DuckDB binds as values leave it, any other stays', async () => {
    const shape = async (sql: string) => (await analyze(conn, sql)).bindShape.shape;
    const same = async (a: string, b: string) => (await shape(a)) === (await shape(b));
    // values: comparisons, IN, BETWEEN, CASE, casts, COALESCE, LIMIT, VALUES
    assert.ok(await same('SELECT 1 WHERE 2 IN (3, 4) LIMIT 5', 'SELECT 9 WHERE 8 IN (7, 6) LIMIT 5 /* c */'));
    assert.ok(
      await same(
        "SELECT CASE WHEN 1 BETWEEN 0 AND 2 THEN 'a'::VARCHAR END",
        "SELECT CASE WHEN 5 BETWEEN 4 AND 6 THEN 'b'::VARCHAR END",
      ),
    );
    assert.ok(
      await same('SELECT coalesce(NULL, 1) FROM (VALUES (1)) t(x)', 'SELECT coalesce(NULL, 2) FROM (VALUES (3)) t(x)'),
    );
    // bound through a function looked up by name, or read at bind: stays
    for (const [a, b] of [
      ["SELECT ('a')[1]", "SELECT ('b')[1]"],
      ["SELECT ('ab')[1:2]", "SELECT ('ab')[1:3]"],
      ['SELECT abs(1)', 'SELECT abs(2)'],
      ["SELECT columns('x') FROM vin", "SELECT columns('y') FROM vin"],
      ['SELECT sum(x) OVER (ROWS 1 PRECEDING) FROM vin', 'SELECT sum(x) OVER (ROWS 2 PRECEDING) FROM vin'],
      ['SELECT * FROM range(3)', 'SELECT * FROM range(4)'],
      ['SELECT 1 = 1', "SELECT '1' = 1"], // another type
    ])
      assert.ok(!(await same(a!, b!)), `${a} / ${b}`);
  });

  // each case: a text judged a read first, then texts of the same form that bind to a refused plan
  const cases: Record<string, () => string[]> = {
    'a path read by a table function': () => [
      `SELECT * FROM read_parquet('${inside}') WHERE x = 1`,
      `SELECT * FROM read_parquet('${outside}') WHERE x = 1`,
      `SELECT * FROM read_parquet('${outside}'::VARCHAR) WHERE x = 1`,
    ],
    'a path read by a replacement scan': () => [`SELECT * FROM '${inside}' WHERE x = 1`, `SELECT * FROM '${outside}'`],
    "a macro's argument": () => [
      `SELECT m('${inside}') WHERE 1 = 1`,
      `SELECT m('${outside}') WHERE 1 = 1`,
      `SELECT m(CASE WHEN 1 = 1 THEN '${outside}' END) WHERE 1 = 1`,
      `SELECT m(CAST('${outside}' AS VARCHAR)) WHERE 1 = 1`,
    ],
    "an operator's argument, the operator a macro": () => [`SELECT '${inside}' + 1`, `SELECT '${outside}' + 1`],
    "a table macro's argument": () => [`SELECT * FROM tm('${inside}')`, `SELECT * FROM tm('${outside}')`],
    "query()'s string": () => [
      `SELECT * FROM query('SELECT * FROM vin WHERE x = 1')`,
      `SELECT * FROM query('SELECT * FROM vout WHERE x = 1')`,
    ],
    "query_table()'s name": () => [`SELECT * FROM query_table('vin')`, `SELECT * FROM query_table('vout')`],
    "a variable's name": () => [
      `SELECT * FROM read_parquet(getvariable('pin'))`,
      `SELECT * FROM read_parquet(getvariable('pout'))`,
    ],
    'EXPLAIN of each': () => [
      `EXPLAIN SELECT * FROM read_parquet('${inside}') WHERE x = 1`,
      `EXPLAIN SELECT * FROM read_parquet('${outside}') WHERE x = 1`,
      `SELECT * FROM read_parquet('${outside}') WHERE x = 1`,
    ],
  };
  for (const [name, texts] of Object.entries(cases)) {
    test(`${name}: never takes an admitted verdict`, async () => {
      await conn.run(`SET VARIABLE pin = '${inside}'`);
      await conn.run(`SET VARIABLE pout = '${outside}'`);
      const t = texts();
      const r = await judge(t);
      assert.deepEqual(r.got, ['ok', ...t.slice(1).map(() => '42501')], JSON.stringify(r));
      assert.equal(r.reuses, 0);
    });
  }

  test("a variable's value is not in the text: a text reading one is bound every time", async () => {
    const text = `SELECT * FROM read_parquet(getvariable('p')) WHERE x = 1`;
    await conn.run(`SET VARIABLE p = '${inside}'`);
    const scope = `scope-${scopes++}`;
    assert.equal(await verdict(text, scope), 'ok');
    await conn.run(`SET VARIABLE p = '${outside}'`);
    assert.equal(await verdict(text, scope), '42501');
  });

  test('PREPARE and EXECUTE never reach a verdict: the analysis refuses them as no query', async () => {
    for (const t of [`PREPARE p AS SELECT * FROM read_parquet('${outside}')`, 'EXECUTE p']) {
      await assert.rejects(analyze(conn, t), (e: unknown) => e instanceof SqlError);
    }
  });
});
