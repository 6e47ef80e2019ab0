/**
 * format, concat and concat_ws read a reg* value as its output function writes it, the name (issue 24): sqlsmith's
 * type list writes `format('%I.%I', typnamespace::regnamespace, typname)`, which wrote the OID's digits. Compared
 * with PostgreSQL 15 over the types and functions the emulation holds without a version (its static tables).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { compatBesidePostgres } from './support/compat-beside-pg.js';

const twin = compatBesidePostgres();

test('format, concat and concat_ws of reg* values: their names, as PostgreSQL 15', async () => {
  const texts = [
    "select format('%s|%I|%L', 'int4'::regtype, 'character varying'::regtype, 23::regtype)",
    "select format('%2$s.%1$I', 'array_in'::regproc, 1043::regtype)",
    "select concat('x', 'int8'::regtype, 1), concat_ws('-', 'array_in'::regproc, 'int4'::regtype, 0::regtype)",
    "select format('%s', t), concat(t::regtype, '!') from (values (16::oid), (1009::oid)) v(t)",
    "select format('%s', t::regtype) from (values (16::oid), (1009::oid)) v(t)",
  ];
  for (const sql of texts) {
    const ours = (await twin.conn.runAndReadAll(rewriteForDuckDB(sql))).getRows().map((r) => r.map(String));
    const theirs = (await twin.client.query({ text: sql, rowMode: 'array' })).rows.map((r: unknown[]) => r.map(String));
    assert.deepEqual(ours, theirs, sql);
  }
});
