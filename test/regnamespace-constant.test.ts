/**
 * `'pg_catalog'::regnamespace` is written as PostgreSQL's fixed OID of pg_catalog (pg/rewrite-casts.ts, issue 24):
 * sqlsmith's type list (`case typnamespace when 'pg_catalog'::regnamespace then … end … from pg_type`) ran the
 * lookup's subquery beside every row. The OID written is the one PostgreSQL 15 and the emulation's pg_namespace
 * give; any other name is still looked up (and refused when unknown). The shown value and its type are
 * pg-semantics' (compared with PostgreSQL 15 there).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { compatBesidePostgres } from './support/compat-beside-pg.js';

const twin = compatBesidePostgres();

const SQLSMITH_TYPES = `select case typnamespace when 'pg_catalog'::regnamespace then quote_ident(typname)
  else format('%I.%I', typnamespace::regnamespace, typname) end name, oid, typdelim, typrelid, typelem, typarray, typtype from pg_type`;

test("'pg_catalog'::regnamespace needs no lookup; other names are looked up", () => {
  assert.doesNotMatch(rewriteForDuckDB(SQLSMITH_TYPES), /_regnamespace_in/);
  for (const name of ['public', 'PG_CATALOG', '"pg_catalog"', 'nosuch'])
    assert.match(rewriteForDuckDB(`select '${name.replace(/'/g, "''")}'::regnamespace`), /_regnamespace_in/, name);
});

test("the OID written is pg_catalog's in PostgreSQL 15 and in the emulation's pg_namespace", async () => {
  // an oid item is the one-field struct the wire sends as oid (pg/oids.ts typedWrapper): its value read out of it
  const rewritten = rewriteForDuckDB("select 'pg_catalog'::regnamespace::oid as o");
  const written = (
    await twin.conn.runAndReadAll(`SELECT struct_extract(o, 'fdl_pg_oid') FROM (${rewritten}) AS w`)
  ).getRows();
  // pg_namespace's definition (each version's table of it is materialised from this; no version is attached here)
  const listed = (
    await twin.conn.runAndReadAll("SELECT oid FROM fdl_pg.pgcat._live_pg_namespace WHERE nspname = 'pg_catalog'")
  ).getRows();
  const theirs = (await twin.client.query<{ o: string }>("select 'pg_catalog'::regnamespace::oid::text as o")).rows;
  assert.deepEqual(
    listed.map((r) => String(r[0])),
    [theirs[0]!.o],
  );
  assert.deepEqual(
    written.map((r) => String(r[0])),
    [theirs[0]!.o],
  );
});
