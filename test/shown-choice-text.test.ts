/**
 * A shown CASE, COALESCE, GREATEST or LEAST is wrapped so that a numeric choice shows the chosen value's
 * scale (pg/pg-shown-calls.ts shownChoice), which pastes the choice three times. A choice that can only
 * give text (every result a string constant, NULL or a cast to a text type) has no scale to show and is
 * written once (issue 24): psql's `\d+` reads `CASE WHEN c.reloftype = 0 THEN '' ELSE
 * c.reloftype::pg_catalog.regtype::pg_catalog.text END`, whose wrapper made six correlated type lookups of
 * two. The answers are psql-describe's (compared with PostgreSQL 15 there).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteForDuckDB } from '../src/pg/rewrite.js';

const count = (text: string, word: string) => text.split(word).length - 1;

describe('a shown choice of texts is written once', () => {
  test("psql's \\d+ reloftype: no scale wrapper, two type lookups (six before)", () => {
    const sql = `SELECT c.relchecks, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END
      FROM pg_catalog.pg_class c WHERE c.oid = '16384'`;
    const out = rewriteForDuckDB(sql);
    assert.equal(count(out, '_pgsem_shown_scaled'), 0, out);
    assert.equal(count(out, '_regtype_name('), 2, out);
  });

  test("sqlsmith's type list: quote_ident and format give text, no scale wrapper (three pastes before)", () => {
    const sql = `select case typnamespace when 'pg_catalog'::regnamespace then quote_ident(typname)
      else format('%I.%I', typnamespace::regnamespace, typname) end name, oid from pg_type`;
    const out = rewriteForDuckDB(sql);
    assert.equal(count(out, '_pgsem_shown_scaled'), 0, out);
    // format's %I reads its value twice (the NULL check, quote_ident): two lookups, six before
    assert.equal(count(out, '_regnamespace_name('), 2, out);
    // another schema's function of that name is not PostgreSQL's
    const other = rewriteForDuckDB(`select case when oid > 1 then 1.5 else s.format(typname) end from pg_type`);
    assert.equal(count(other, '_pgsem_shown_scaled'), 1, other);
  });

  test('string constants, NULLs and text casts: unwrapped; a number among them, or none but NULL: wrapped as before', () => {
    const unwrapped = [
      `select case c.relkind when 'r' then 'table' when 'v' then 'view' end from pg_catalog.pg_class c`,
      `select coalesce(c.relname::text, 'none') from pg_catalog.pg_class c`,
      `select case when c.relhasindex then c.relname::varchar else null end from pg_catalog.pg_class c`,
    ];
    for (const sql of unwrapped) assert.equal(count(rewriteForDuckDB(sql), '_pgsem_shown_scaled'), 0, sql);
    const wrapped = [
      `select case when c.relhasindex then 1.50 else 2 end from pg_catalog.pg_class c`,
      `select case when c.relhasindex then c.reltuples else null end from pg_catalog.pg_class c`,
      `select coalesce(c.reltuples::numeric, 0.5) from pg_catalog.pg_class c`,
    ];
    for (const sql of wrapped) assert.equal(count(rewriteForDuckDB(sql), '_pgsem_shown_scaled'), 1, sql);
  });
});
