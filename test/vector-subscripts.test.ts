/**
 * The catalog's oidvector and int2vector columns count their subscripts from 0, as PostgreSQL's do (issue 24):
 * `proargtypes[0]` is a function's first argument type. Compared with PostgreSQL 15 over the functions the emulation
 * lists with three arguments or more: elements (in bounds, past them, below 0, computed), slices and their bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotVersionCatalog } from '../src/pg/catalog/version-snapshot.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { compatBesidePostgres } from './support/compat-beside-pg.js';

const twin = compatBesidePostgres();

/** A DuckDB value as PostgreSQL's text output writes it (integers and one-dimensional arrays of them). */
const pgText = (v: unknown): string | null =>
  v === null ? null : Array.isArray(v) ? `{${v.map(pgText).join(',')}}` : String(v);
const asText = { getTypeParser: () => (v: string) => v };

test('proargtypes subscripts start at 0, as PostgreSQL 15', async () => {
  // pg_proc is read from a version's snapshot: the in-memory database stands for one
  await snapshotVersionCatalog(twin.conn, 'memory');
  const listed = (
    await twin.conn.runAndReadAll(rewriteForDuckDB('select oid from pg_proc where pronargs >= 3 order by oid limit 12'))
  ).getRows();
  assert.ok(listed.length >= 5, 'the emulation lists functions of three arguments');
  const oids = listed.map((r) => Number(r[0])).join(', ');
  const texts = [
    `select oid, proargtypes[0], proargtypes[1], proargtypes[2], proargtypes[3], proargtypes[-1] from pg_proc where oid in (${oids}) order by oid`,
    `select oid, p.proargtypes[0:0], p.proargtypes[:1], p.proargtypes[1:], p.proargtypes[-5:0], (p.proargtypes)[2] from pg_catalog.pg_proc p where oid in (${oids}) order by oid`,
    `select oid, proargtypes[pronargs - 1], proargtypes[pronargs] from pg_proc where oid in (${oids}) order by oid`,
    `select oid from pg_proc where oid in (${oids}) and proargtypes[0] = 25 order by oid`,
  ];
  for (const sql of texts) {
    const ours = (await twin.conn.runAndReadAll(rewriteForDuckDB(sql))).getRowsJS().map((r) => r.map(pgText));
    const theirs = (await twin.client.query({ text: sql, rowMode: 'array', types: asText })).rows;
    assert.deepEqual(ours, theirs, sql);
  }
});
