/**
 * A catalog's own SQL (a view's definition, a macro's body or a parameter's default) is the
 * publisher's or a store writer's input: opening a version runs it as exactly one CREATE, never as
 * extra statements. An attacker review wrote `SELECT 1; COPY … TO …` and `…; CREATE OR REPLACE MACRO
 * fdl_pg…` into `ducklake_view`: opening the version wrote a file and replaced the gateway's own sum.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { FIXTURES } from './support/lake-fixtures.js';
import { runFdl } from './support/gateway.js';
import { fixtureRepo, prepare } from './support/publish-fixtures.js';
import { admittedBodies } from '../src/analysis/catalog-bodies.js';
import { CATALOG_CEILINGS } from '../src/lake/catalog-ceilings.js';
import type { SqlError } from '../src/errors.js';

const work = mkdtempSync(join(tmpdir(), 'fdl-catalog-sql-'));
const root = join(FIXTURES, 'repos/views');
const id = readFileSync(join(root, 'refs/heads/main'), 'utf8').trim();
const catalogFile = join(work, 'ducklake.duckdb');
const written = join(work, 'pwned.csv');
let instance: DuckDBInstance;
let conn: DuckDBConnection;

/** A writer of `file`'s catalog tables, as a store writer would write them; `view` adds a view at the newest snapshot in schema main. */
async function catalogWriter(file: string) {
  const writer = await DuckDBInstance.create(file);
  const w = await writer.connect();
  const one = async (sql: string) => Number((await w.runAndReadAll(sql)).getRows()[0]![0]);
  const snapshot = await one('SELECT max(snapshot_id) FROM ducklake_snapshot');
  const schema = await one("SELECT schema_id FROM ducklake_schema WHERE schema_name = 'main'");
  const q = (t: string) => `'${t.replace(/'/g, "''")}'`;
  return {
    w,
    one,
    snapshot,
    schema,
    view: (name: string, sql: string) =>
      w.run(
        `INSERT INTO ducklake_view VALUES ((SELECT max(view_id) + 1 FROM ducklake_view), uuid(), ${snapshot}, NULL, ${schema}, ${q(name)}, 'duckdb', ${q(sql)}, '')`,
      ),
    close() {
      w.closeSync();
      writer.closeSync();
    },
  };
}

/** The attacker's rows, written as a store writer would: straight into the catalog's tables. */
async function plantViews(file: string): Promise<void> {
  const { view, close } = await catalogWriter(file);
  await view('innocent', 'SELECT 1 AS x; CREATE TABLE memory.main.pwn_marker(a INTEGER)');
  await view('copier', `SELECT 2 AS y; COPY (SELECT 'pwned' AS p) TO '${written}'`);
  await view('fine', 'SELECT 3 AS z');
  close();
}

before(async () => {
  copyFileSync(join(root, 'versions', id, 'ducklake.duckdb'), catalogFile);
  await plantViews(catalogFile);
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});

after(() => {
  conn?.closeSync();
  instance?.closeSync();
  rmSync(work, { recursive: true, force: true });
});

test('a view whose SQL holds more than one statement is not created, and none of its statements runs', async () => {
  const catalog = await openCatalog(conn, catalogFile, 'meta');
  const { warnings } = await attachCatalog(conn, catalog, 'v', (rel) => join(root, 'data', rel));
  assert.equal(existsSync(written), false, 'no file written');
  const marker = await conn.runAndReadAll("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'pwn_marker'");
  assert.equal(Number(marker.getRows()[0]![0]), 0, 'no table created');
  const views = (await conn.runAndReadAll("SELECT view_name FROM duckdb_views() WHERE database_name = 'v' ORDER BY 1"))
    .getRows()
    .map((r) => r[0]);
  assert.ok(views.includes('fine'), `a one-statement view is created: ${views}`);
  assert.ok(!views.includes('innocent') && !views.includes('copier'), `the others are not: ${views}`);
  for (const name of ['innocent', 'copier'])
    assert.ok(
      warnings.some((m) => m.includes(`main.${name}`) && /not one CREATE/.test(m)),
      `warned: ${warnings.join(' | ')}`,
    );
});

test('fdl publish refuses such a catalog and writes nothing', async () => {
  const { root: repo, working } = await prepare(work, fixtureRepo('views'));
  await plantViews(working);
  const r = await runFdl(['publish', repo, '--catalog', working]);
  assert.notEqual(r.code, 0, 'publish must fail');
  assert.match(r.stderr, /view main\.innocent of the working catalog is refused: Only SELECT statements/);
  assert.equal(existsSync(written), false, 'no file written');
  assert.equal(existsSync(join(repo, 'refs/heads/main')), false, 'no ref');
});

/** Views and macros that read past the version (an attacker review, session 48), planted beside fair ones. */
async function plantReaders(file: string): Promise<void> {
  const { w, one, snapshot, schema, view, close } = await catalogWriter(file);
  const q = (t: string) => `'${t.replace(/'/g, "''")}'`;
  await view('files', `SELECT * FROM read_parquet(${q(join(root, 'data/**/*.parquet'))})`);
  await view('by_path', `SELECT * FROM ${q(join(root, 'data/main/base/*.parquet'))}`);
  await view('settings', "SELECT current_setting('allowed_directories') AS a");
  await view('meta', 'SELECT snapshot_id FROM __fdl_meta_2.main.ducklake_snapshot');
  await view('fair', 'SELECT id * 10 AS id10 FROM base');
  await view('fair_macro', 'SELECT double_it(id) AS d FROM base');
  const macro = async (name: string, type: 'scalar' | 'table', sql: string) => {
    const id = await one('SELECT max(macro_id) + 1 FROM ducklake_macro');
    await w.run(`INSERT INTO ducklake_macro VALUES (${schema}, ${id}, ${q(name)}, ${snapshot}, NULL)`);
    await w.run(`INSERT INTO ducklake_macro_impl VALUES (${id}, 0, 'duckdb', ${q(sql)}, '${type}')`);
  };
  // DuckDB computes these when it creates the view or macro, where nothing interrupts it (attacker review 2, session 48)
  await view('computed_range', "SELECT * FROM range(levenshtein('ab', 'cd'))");
  await view('computed_limit', "SELECT id FROM base LIMIT length(repeat('x', 3))");
  // a name DuckDB has (its own duckdb_tables) beside a file read: not taken for a dangling view's
  await view(
    'decoy',
    `SELECT count(*) AS n FROM ${q(join(root, 'data/main/base/*.parquet'))} UNION ALL SELECT 0 FROM duckdb_tables WHERE false`,
  );
  await view('fair_dangling', 'SELECT * FROM gone_table');
  await macro('computed_tm', 'table', "SELECT * FROM base LIMIT levenshtein('a', 'b')");
  await macro('fair_tm', 'table', 'SELECT * FROM base LIMIT n');
  const fairTm = await one("SELECT macro_id FROM ducklake_macro WHERE macro_name = 'fair_tm'");
  await w.run(`INSERT INTO ducklake_macro_parameters VALUES (${fairTm}, 0, 0, 'n', 'unknown', '2', 'unknown')`);
  await macro('computed_default', 'scalar', 'a + 1');
  const computedDefault = await one("SELECT macro_id FROM ducklake_macro WHERE macro_name = 'computed_default'");
  await w.run(
    `INSERT INTO ducklake_macro_parameters VALUES (${computedDefault}, 0, 0, 'a', 'unknown', 'levenshtein(''a'', ''b'')', 'unknown')`,
  );
  await macro('leak', 'scalar', "current_setting('temp_directory')");
  await macro('files_of', 'table', `SELECT * FROM read_parquet(${q(join(root, 'data/**/*.parquet'))})`);
  await macro('tripled', 'scalar', '3 * 7');
  close();
}

test('a view or macro of the catalog is judged as a client statement: those reading files, settings or another database are left out, with a warning; the others are built', async () => {
  const file = join(work, 'readers.duckdb');
  copyFileSync(join(root, 'versions', id, 'ducklake.duckdb'), file);
  await plantReaders(file);
  const admitted = await admittedBodies(conn, await openCatalog(conn, file, 'meta_r'), 'r');
  const { warnings } = await attachCatalog(conn, admitted.catalog, 'r', (rel) => join(root, 'data', rel));
  warnings.push(...admitted.warnings);
  const names = async (sql: string) => (await conn.runAndReadAll(sql)).getRows().map((r) => String(r[0]));
  const views = await names("SELECT view_name FROM duckdb_views() WHERE database_name = 'r'");
  const macros = await names("SELECT DISTINCT function_name FROM duckdb_functions() WHERE database_name = 'r'");
  for (const refused of ['files', 'by_path', 'settings', 'meta', 'computed_range', 'computed_limit', 'decoy']) {
    assert.ok(!views.includes(refused), `view ${refused} left out: ${views}`);
    assert.ok(
      warnings.some((m) => m.startsWith(`view main.${refused} refused:`)),
      `warned of ${refused}: ${warnings.join(' | ')}`,
    );
  }
  assert.ok(!macros.includes('computed_default'), `a macro with a computed default is left out: ${macros}`);
  assert.ok(
    macros.includes('fair_tm') && views.includes('fair_dangling') && views.includes('v_table_macro'),
    `${views} ${macros}`,
  );
  for (const refused of ['leak', 'files_of', 'computed_tm']) {
    assert.ok(!macros.includes(refused), `macro ${refused} left out: ${macros}`);
    assert.ok(
      warnings.some((m) => m.startsWith(`macro main.${refused} refused:`)),
      warnings.join(' | '),
    );
  }
  assert.ok(views.includes('fair') && views.includes('fair_macro'), `fair views built: ${views}`);
  assert.ok(macros.includes('tripled') && macros.includes('double_it'), `fair macros built: ${macros}`);
  const fair = await conn.runAndReadAll('SELECT sum(id10) = 10 * (SELECT sum(id) FROM r.main.base) FROM r.main.fair');
  assert.equal(fair.getRows()[0]![0], true);
});

test('fdl verify reports a view the gateway would not serve', async () => {
  const { root: repo, working } = await prepare(work, fixtureRepo('views'));
  await plantReaders(working);
  const published = await runFdl(['publish', repo, '--catalog', working]);
  assert.equal(published.code, 0, published.stderr);
  const r = await runFdl(['verify', repo]);
  const out = r.stdout + r.stderr;
  assert.notEqual(r.code, 0, out);
  for (const name of ['files', 'by_path', 'settings', 'meta'])
    assert.match(out, new RegExp(`view main\\.${name}: the gateway would not serve it`));
  assert.doesNotMatch(out, /view main\.fair/);
});

test('a catalog with more objects or files than the ceilings is refused 54000 before it is read, and nothing stays attached', async () => {
  const grown = (kind: string) => join(work, `grown-${kind}.duckdb`);
  const grow = async (kind: 'objects' | 'files', rows: number) => {
    const file = grown(kind);
    copyFileSync(join(root, 'versions', id, 'ducklake.duckdb'), file);
    const { w, snapshot, schema, close } = await catalogWriter(file);
    if (kind === 'objects')
      await w.run(
        `INSERT INTO ducklake_view SELECT (SELECT max(view_id) FROM ducklake_view) + 1 + i, uuid(), ${snapshot}, NULL,
           ${schema}, 'v' || i, 'duckdb', 'SELECT ' || i || ' AS x', ''
         FROM range(${rows}) t(i)`,
      );
    else
      await w.run(
        `INSERT INTO ducklake_data_file SELECT f.* REPLACE ((SELECT max(data_file_id) FROM ducklake_data_file) + 1 + i AS data_file_id, f.path || i AS path)
         FROM (SELECT * FROM ducklake_data_file LIMIT 1) f, range(${rows}) t(i)`,
      );
    close();
    return file;
  };
  const attached = async () =>
    (
      await conn.runAndReadAll("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE 'meta_big%'")
    ).getRows()[0]![0];
  for (const [kind, rows] of [
    ['objects', CATALOG_CEILINGS.objects],
    ['files', CATALOG_CEILINGS.files],
  ] as const) {
    const file = await grow(kind, rows);
    await assert.rejects(openCatalog(conn, file, `meta_big_${kind}`), (e: SqlError) => {
      assert.equal(e.sqlstate, '54000', e.message);
      assert.match(
        e.message,
        new RegExp(`holds \\d+ ${kind} rows, more than the gateway reads \\(${CATALOG_CEILINGS[kind]}\\)`),
      );
      return true;
    });
    assert.equal(Number(await attached()), 0, 'the refused catalog is detached again');
  }
  // at the ceiling (the fixture's own rows plus these) the same catalog opens
  const fixtureObjects = (await openCatalog(conn, join(root, 'versions', id, 'ducklake.duckdb'), 'meta_small')).views
    .length;
  const atCeiling = await grow('objects', CATALOG_CEILINGS.objects - fixtureObjects - 64);
  const opened = await openCatalog(conn, atCeiling, 'meta_big_ok');
  assert.ok(opened.views.length > CATALOG_CEILINGS.objects - 100, `${opened.views.length} views read`);
});

test('views that each read the one before twice are refused past the bound of what DuckDB would bind, before anything is built; shallow ones are served', async () => {
  const file = join(work, 'doubling.duckdb');
  copyFileSync(join(root, 'versions', id, 'ducklake.duckdb'), file);
  const { view, close } = await catalogWriter(file);
  const levels = 24;
  for (let i = levels - 1; i >= 0; i--)
    await view(`d${i}`, i === 0 ? 'SELECT * FROM base' : `SELECT * FROM d${i - 1} UNION ALL SELECT * FROM d${i - 1}`);
  close();
  const { catalog, warnings } = await admittedBodies(conn, await openCatalog(conn, file, 'meta_doubling'), 'dbl');
  const kept = new Set(catalog.views.map((v) => v.name));
  assert.ok(kept.has('d0') && kept.has('d5'), `shallow views kept: ${[...kept]}`);
  for (let i = 12; i < levels; i++) {
    assert.ok(!kept.has(`d${i}`), `d${i} refused`);
    assert.ok(
      warnings.some((m) => m.startsWith(`view main.d${i} refused:`) && /parse-tree nodes/.test(m)),
      warnings.join(' | '),
    );
  }
  // what is kept is built at once (the refused ones are dangling names)
  await attachCatalog(conn, catalog, 'dbl', (rel) => join(root, 'data', rel));
  const rows = await conn.runAndReadAll('SELECT count(*) FROM dbl.main.d5');
  const base = await conn.runAndReadAll('SELECT count(*) FROM dbl.main.base');
  assert.equal(Number(rows.getRows()[0]![0]), 32 * Number(base.getRows()[0]![0]));
});
