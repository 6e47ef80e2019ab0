/**
 * PostgreSQL's array text with more than one dimension (`'{{a,b},{c,d}}'::text[]`): the rewrite reads array text
 * into DuckDB's list elements, and read one dimension deep it answered four wrong texts (`{a`, `b}`, …) in silence
 * (new-user review, session 58). PostgreSQL 15 answers it; the gateway refuses it with 0A000 and a hint, and a
 * stray brace is PostgreSQL's 22P02; the session goes on, and one-dimensional text is still read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pgTwinsInUtc } from './support/pg-twins.js';
import { splitDataRow } from './support/raw-pg.js';

const twins = pgTwinsInUtc();

const texts = async (which: 'pg' | 'gw', sql: string) => {
  const r = await twins.conns()[which].query(sql);
  return r.error ? { error: r.error.code } : r.dataRows.map((d) => splitDataRow(d).map((v) => v?.toString('utf8')));
};

test('a two-dimensional array text is refused (0A000 with a hint), never read as one dimension; PostgreSQL answers it', async () => {
  for (const sql of [
    "select '{{a,b},{c,d}}'::text[] as a",
    "select '{ {1,2},{3,4}}'::int[] as a",
    "select 'a' = any('{{a,b},{c,d}}'::text[]) as a",
  ]) {
    assert.ok(!('error' in (await texts('pg', sql))), `PostgreSQL answers ${sql}`);
    const r = await twins.conns().gw.query(sql);
    assert.equal(r.error?.code, '0A000', sql);
    assert.match(String(r.error?.hint ?? ''), /one dimension/);
    assert.deepEqual(await texts('gw', 'select 1 as x'), [['1']]);
  }
  // a stray brace inside an element is PostgreSQL's malformed literal
  assert.deepEqual(await texts('pg', "select '{a{b}'::text[]"), { error: '22P02' });
  assert.deepEqual(await texts('gw', "select '{a{b}'::text[]"), { error: '22P02' });
  // one dimension, quoted braces too, as PostgreSQL
  const one = `select '{a,"{b}",NULL}'::text[] as a, '{1,2}'::int[] as b`;
  assert.deepEqual(await texts('gw', one), await texts('pg', one));
});
