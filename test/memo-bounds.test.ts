/**
 * The analysis memo is bounded by bytes, not only by entries: a second attacker review sent distinct
 * ~63 KB texts (each ~4.7 MB of parsed objects, kept even when the statement was then refused) until
 * the process died of a JavaScript heap OOM. Here forty such texts leave at most the byte budget held.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { analysesHeld, analyze, forgetAnalyses } from '../src/analysis/analysis.js';
import { fullCollection } from '../src/idle-memory.js';

const BUDGET = 96 * 1024 * 1024;

test('forty distinct 63 KB texts: the analysis memo keeps within its byte budget', { timeout: 300_000 }, async () => {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  forgetAnalyses();
  try {
    fullCollection();
    const heap0 = process.memoryUsage().heapUsed;
    for (let n = 0; n < 40; n++) {
      const sql = `select ${n} as k, ${Array(8800).fill('abs(x)').join(',')} from nosuch_tbl`;
      assert.ok(sql.length > 60_000 && sql.length < 64 * 1024);
      await analyze(conn, sql);
    }
    const held = analysesHeld();
    assert.ok(held.bytes <= BUDGET, `memo holds ${held.bytes} estimated bytes`);
    assert.ok(held.entries < 40, `memo kept all ${held.entries} texts`);
    // what the memo holds, not the garbage its parses left (V8 collects only when JavaScript allocates again)
    fullCollection();
    const grown = process.memoryUsage().heapUsed - heap0;
    assert.ok(grown < 2 * BUDGET, `heap grew ${(grown / 1e6).toFixed(0)} MB`);
  } finally {
    forgetAnalyses();
    conn.closeSync();
    db.closeSync();
  }
});
