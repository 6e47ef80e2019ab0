/**
 * Exact numeric division has two forms (pg/pg-macros.ts): the general one over numerics of any scale, and
 * the integer one (`avg` of integers, `sum(x) / count(*)`), which reads PostgreSQL's result scale off the
 * operands' digits. The integer form must give the general form's digits for every pair of integers; the
 * general form is held to PostgreSQL 15 by the corpus (pg-corpus.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EmulationFiles } from '../src/engine/emulation-files.js';
import { copyFixtures } from './support/gateway.js';
import { Prng } from './support/fuzz.js';

test('the integer form of exact division gives the general form’s digits', async () => {
  const dir = copyFixtures();
  const db = await DuckDBInstance.create(':memory:');
  try {
    const files = await new EmulationFiles(join(dir.dir, 'pg-catalog')).written();
    const conn = await db.connect();
    await conn.run(`ATTACH '${files.compat}' AS fdl_pg (READ_ONLY)`);
    const random = new Prng(26); // seeded: the same pairs every run
    const digits = (n: number) => {
      const len = 1 + random.int(n);
      let s = String(1 + random.int(9));
      for (let i = 1; i < len; i++) s += random.int(10);
      return (random.chance(0.3) ? '-' : '') + s;
    };
    const pairs: [string, string][] = [
      ['0', '5'],
      ['1', '3'],
      ['2', '3'],
      ['-2', '3'],
      ['5', '-10'],
      ['9999', '10000'],
      ['10000', '9999'],
      ['99999999', '100000000'],
      ['1', '99999'],
      ['7', '0'],
      ['999999999999999999', '1'],
      ['-170141183460469231731687303', '1000000000'],
    ];
    // sums of up to 18 digits over counts of up to 12 (avg's operands, and sum(x) / count(*)'s): the
    // result column is DECIMAL(38,20), so a quotient of more than 18 integer digits fails in both forms
    for (let i = 0; i < 2000; i++) pairs.push([digits(18), digits(12)]);
    const values = pairs.map(([a, b]) => `(${a}::HUGEINT, ${b}::BIGINT)`).join(', ');
    await conn.run(`CREATE TABLE p AS SELECT * FROM (VALUES ${values}) v(a, b)`);
    const differ = (
      await conn.runAndReadAll(`SELECT a::VARCHAR, b::VARCHAR, fdl_pg.pgcat._pgsem_ndiv(a, b)::VARCHAR,
        fdl_pg.pgcat._pgsem_indiv(a, b)::VARCHAR FROM p
        WHERE fdl_pg.pgcat._pgsem_ndiv(a, b) IS DISTINCT FROM fdl_pg.pgcat._pgsem_indiv(a, b) LIMIT 5`)
    ).getRows();
    assert.deepEqual(differ, []);
    // and the answers are numbers, not NULLs that agree: division by zero is the only NULL
    const nulls = (
      await conn.runAndReadAll(`SELECT count(*) FROM p WHERE fdl_pg.pgcat._pgsem_indiv(a, b) IS NULL AND b <> 0`)
    ).getRows();
    assert.equal(Number(nulls[0]![0]), 0);
    conn.disconnectSync();
  } finally {
    db.closeSync();
    dir.cleanup();
  }
});
