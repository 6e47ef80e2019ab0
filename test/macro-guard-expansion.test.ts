/**
 * The session guards (engine/*-guards.ts) are temporary macros shadowing built-ins, and DuckDB pastes a
 * macro's body into every use. Inside the gateway's own exact numeric division, called many times per
 * `avg`, each guarded built-in multiplied the binder's work: `select avg(qty)` cost 2–4 s. Those helpers
 * take bounded inputs (digit counts, the digits of a number) and call the built-ins as `system.main`'s;
 * this holds them to it, read from the emulation file's own macro definitions and the guards' own list.
 * The catalog's helpers the same: every client's catalog queries call them per row (format_type,
 * `oid::regclass`, has_*_privilege …), and the guards pasted into them doubled a catalog statement's
 * bind and run (has_table_privilege over 15 rows: 56 ms to prepare with the guards, 4 without).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EmulationFiles } from '../src/engine/emulation-files.js';
import { guardStatements } from '../src/engine/session-connections.js';
import { copyFixtures } from './support/gateway.js';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';
import { installCompat } from '../src/pg/catalog/index.js';

/** Exact numeric division and what it calls (pg/pg-macros.ts). */
const BOUNDED_HELPERS = [
  '_pgsem_ndiv',
  '_pgsem_p10',
  '_pgsem_scale',
  '_pgsem_unscaled',
  '_pgsem_weight',
  '_pgsem_first',
  '_pgsem_zeros',
  '_pgsem_qdigits',
  '_pgsem_decimal',
  '_pgsem_indiv',
  '_pgsem_iscale',
  '_pgsem_iweight',
  '_pgsem_ifirst',
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The catalog's helpers that take names, type spellings, numbers and privilege words (pg/catalog/): their
 * texts are joined by the built-in `||` and split by the built-ins, with constant patterns and separators.
 */
const CATALOG_HELPERS = [
  'format_type',
  '_regclass_name',
  '_regclass_oid',
  '_regclass_in',
  '_regtype_oid',
  '_regtype_in',
  '_regnamespace_in',
  '_regrole_in',
  '_parse_ident',
  '_regproc_matches',
  '_regproc_oid',
  '_regproc_in',
  '_regprocedure_name',
  '_regprocedure_in',
  'pg_describe_object',
  'pg_get_userbyid',
  'quote_ident',
  'quote_literal',
  '_privilege_held',
  'has_table_privilege',
  'has_column_privilege',
  'has_schema_privilege',
  'has_database_privilege',
  'has_function_privilege',
  '_var',
  '_setting',
  '_viewdef',
  'acldefault',
  'version',
];

/**
 * Each of `helpers`' bodies, as the emulation file holds them, calls no built-in the guards shadow unqualified
 * (of `only`, where given).
 */
async function assertUnguarded(helpers: readonly string[], only?: readonly string[]): Promise<void> {
  const dir = copyFixtures();
  const db = await DuckDBInstance.create(':memory:');
  try {
    const files = await new EmulationFiles(join(dir.dir, 'pg-catalog')).written();
    const conn = await db.connect();
    await conn.run(`ATTACH '${files.compat}' AS fdl_pg (READ_ONLY)`);
    await conn.run(await guardStatements(db));
    const guarded = (
      await conn.runAndReadAll(
        "SELECT DISTINCT function_name FROM duckdb_functions() WHERE database_name = 'temp' AND function_type = 'macro'",
      )
    )
      .getRows()
      .map((r) => String(r[0]));
    assert.ok(guarded.includes('repeat') && guarded.includes('||'), guarded.join(' '));
    const bodies = (
      await conn.runAndReadAll(
        `SELECT function_name, macro_definition FROM duckdb_functions() WHERE database_name = 'fdl_pg'
           AND function_name IN (${helpers.map((n) => `'${n}'`).join(', ')})`,
      )
    ).getRows();
    assert.deepEqual([...new Set(bodies.map((r) => String(r[0])))].sort(), [...helpers].sort());
    for (const [name, body] of bodies) {
      for (const g of guarded.filter((n) => !only || only.includes(n))) {
        // a call not spelled system.main.<name>(…), or the operator between spaces
        const call = new RegExp(`(?<![.\\w"])"?${escape(g)}"?\\(`);
        const operator = /^\W+$/.test(g) ? ` ${g} ` : null;
        assert.ok(
          !call.test(String(body)) && !(operator && String(body).includes(operator)),
          `${String(name)} calls the guarded ${g}: ${String(body)}`,
        );
      }
    }
    conn.disconnectSync();
  } finally {
    db.closeSync();
    dir.cleanup();
  }
}

test("exact numeric division's helpers call no built-in the session guards shadow", () =>
  assertUnguarded(BOUNDED_HELPERS));

test("the catalog's helpers call no built-in the session guards shadow", () => assertUnguarded(CATALOG_HELPERS));

test('a list holding a subquery is named once by the text rewrite of array_to_string and ||', () => {
  // psql's \d+ table query: the ARRAY(…) was its own overload tag inside `||`, and the `||` again inside
  // array_to_string's, so the rewrite named it four times (each a correlated join DuckDB runs: 60 ms).
  const sql = `SELECT pg_catalog.array_to_string(c.reloptions || array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x), ', ')
    FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid) WHERE c.relname = 'orders'`;
  const rewritten = rewriteForDuckDB(sql);
  assert.equal(rewritten.split('unnest(tc.reloptions)').length - 1, 1, rewritten);
  // an ARRAY(subquery) is a list, which `||`'s text rule returns as it is: no lambda around it (8 of 25 ms)
  assert.doesNotMatch(rewritten, /_pgsem_cat_sub\(/, rewritten);
  // a plain column is still its own tag: no lambda around it
  assert.match(
    rewriteForDuckDB('SELECT array_to_string(c.reloptions, $$,$$) FROM pg_catalog.pg_class c'),
    /_pgsem_elems\(/,
  );
});

test("the catalog's per-row name helpers bind small: format_type and oid::regclass read precomputed rows", async () => {
  // A version's catalog is immutable and PostgreSQL's types are fixed, so what these helpers show is computed
  // once (_type_formats per process, _relall's quoted names per version) and a call is one lookup: format_type
  // spelled 48 WHENs by OID around its lookup, _regclass_name called quote_ident three times per row. Their bound
  // plans, with the session guards installed as on every session connection (deterministic bytes of DuckDB's
  // json_serialize_plan): format_type 122 → 53 KB, _regclass_name 63 → 24 KB, pg_describe_object 218 → 133 KB.
  const db = await DuckDBInstance.create(':memory:');
  try {
    const conn = await db.connect();
    await installCompat(conn);
    await conn.run(await guardStatements(db));
    const planBytes = async (sql: string) =>
      String((await conn.runAndReadAll(`SELECT json_serialize_plan('${sql.replace(/'/g, "''")}')`)).getRows()[0]?.[0])
        .length;
    const formatType = await planBytes(
      'SELECT fdl_pg.pgcat.format_type(a.atttypid, a.atttypmod) FROM fdl_pg.pgcat.pg_attribute a',
    );
    const regclass = await planBytes('SELECT fdl_pg.pgcat._regclass_name(c.oid) FROM fdl_pg.pgcat.pg_class c');
    const describe = await planBytes(
      'SELECT fdl_pg.pgcat.pg_describe_object(1259, c.oid, 0) FROM fdl_pg.pgcat.pg_class c',
    );
    assert.ok(formatType < 80_000, `format_type: ${formatType} bytes of bound plan`);
    assert.ok(regclass < 40_000, `_regclass_name: ${regclass} bytes of bound plan`);
    assert.ok(describe < 170_000, `pg_describe_object: ${describe} bytes of bound plan`);
    conn.disconnectSync();
  } finally {
    db.closeSync();
  }
});
