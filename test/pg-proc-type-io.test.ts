/**
 * pg_proc lists of PostgreSQL's type I/O functions only those clients read (issue 24): each type's input function
 * (ruby-pg, Rails and Sequel join pg_type.typinput to pg_proc) and array_recv (Npgsql's array test). sqlsmith builds
 * calls from pg_proc and called the others, all failing (the input functions' calls: type-input-calls.test.ts).
 * In-process over the emulation, every row of pg_proc that is not one of its callable functions is checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { installCompat } from '../src/pg/catalog/install.js';
import { snapshotVersionCatalog } from '../src/pg/catalog/version-snapshot.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';

test('pg_proc lists only the type I/O functions clients read: input functions and array_recv', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await installCompat(conn);
    // pg_proc is read from a version's snapshot: the in-memory database stands for one
    await snapshotVersionCatalog(conn, 'memory');
    const rows = async (sql: string) =>
      (await conn.runAndReadAll(rewriteForDuckDB(sql))).getRows().map((r) => r.map(String));
    // pg_proc's rows that are type I/O functions (the emulation's table of them), and why each is listed
    const listed = await rows(`select p.proname,
        exists (select 1 from pg_type t where t.typinput = p.oid) as an_input,
        exists (select 1 from pg_type t where t.typoutput = p.oid or t.typreceive = p.oid or t.typsend = p.oid) as other_io
      from pg_proc p where p.oid in (select oid from fdl_pg.pgcat._procs) order by 1`);
    assert.ok(listed.length > 90, `${listed.length} input functions listed`);
    const unread = listed.filter(([name, input]) => input !== 'true' && name !== 'array_recv');
    assert.deepEqual(unread, [], 'type I/O functions no client reads');
    // every type's input function is there: ruby-pg's inner join keeps every type
    assert.deepEqual(
      await rows(
        'select t.typname from pg_type t where t.typnamespace = 11 and not exists (select 1 from pg_proc p where p.oid = t.typinput)',
      ),
      [],
    );
    assert.deepEqual(
      await rows("select count(*) from pg_proc where proname in ('textout', 'int4recv', 'numeric_send')"),
      [['0']],
    );
    // regproc still names the functions pg_proc leaves out, as PostgreSQL's catalog columns show them
    assert.deepEqual(await rows("select typoutput::text, typsend::text from pg_type where typname = 'int4'"), [
      ['int4out', 'int4send'],
    ]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
});
