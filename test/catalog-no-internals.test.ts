/**
 * What the catalog emulation shows a client names nothing internal (issue 23, F3/F4): no view
 * definition, comment or setting carries the version's internal database name (`NAME@<id>`), the
 * frozen catalog (`__fdl_meta_*`), the emulation's database, a data file (`.parquet`, read_parquet)
 * or a server path. A table's definition is NULL, as in PostgreSQL (its DuckDB view is the
 * gateway's generated SQL); a DuckLake view's definition reads as the client would write it.
 * Superuser-only settings (file locations…) are absent from pg_settings and refused by SHOW and
 * current_setting (42501, PostgreSQL's text), as for an ordinary PostgreSQL 15 login.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';

describe('catalog texts name nothing internal', () => {
  let gw: RunningGateway;
  const repos = copyFixtures('repos/views', 'repos/basic');
  let c: pg.Client;

  before(async () => {
    gw = await startGateway([
      '--repo',
      `views=${repos.path('repos/views')}`,
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--cache-dir',
      join(repos.dir, 'cache'),
    ]);
    c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'views' });
    await c.connect();
  });
  after(async () => {
    await c?.end();
    await gw?.stop();
    repos.cleanup();
  });

  const internal = (text: string): string | null => {
    const checks: [RegExp, string][] = [
      [/@[0-9a-f]{8}-[0-9a-f]{4}-/i, 'an internal database name'],
      [
        /__fdl_meta|fdl_pg|__ducklake|ducklake_inlined|begin_snapshot|end_snapshot|snapshot_id/i,
        'an internal relation',
      ],
      [/\.parquet|read_parquet|parquet_scan/i, 'a data file'],
      [/(^|[\s'"(=,])\/(tmp|usr|var|etc|home|work|opt|root|run|srv|proc)\//, 'a server path'],
    ];
    if (text.includes(repos.dir)) return 'the test folder';
    for (const [re, what] of checks) if (re.test(text)) return what;
    return null;
  };
  const scan = async (what: string, sql: string) => {
    const r = await c.query({ text: sql, rowMode: 'array' });
    let cells = 0;
    for (const row of r.rows as unknown[][]) {
      for (const v of row) {
        if (v === null || v === undefined) continue;
        cells++;
        const bad = internal(String(v));
        assert.equal(bad, null, `${what}: ${bad} in ${String(v).slice(0, 300)}`);
      }
    }
    return cells;
  };

  test('view definitions, comments, settings and function sources: no internal name, data file or path', async () => {
    for (const db of ['views', 'basic']) {
      await c.end();
      c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: db });
      await c.connect();
      await scan('pg_views', 'select * from pg_views');
      await scan('information_schema.views', 'select * from information_schema.views');
      const defs = await scan(
        'pg_get_viewdef',
        'select c.relname, c.relkind, pg_get_viewdef(c.oid), pg_get_viewdef(c.oid, true) from pg_class c',
      );
      assert.ok(defs > 0);
      await scan('pg_description', 'select * from pg_description');
      await scan('obj_description', 'select obj_description(c.oid), col_description(c.oid, 1) from pg_class c');
      await scan('pg_settings', 'select * from pg_settings');
      await scan('pg_proc', 'select proname, prosrc from pg_proc');
      await scan('SHOW ALL', 'show all');
    }
  });

  test("a table has no definition (NULL, as in PostgreSQL); a view's reads as the client would write it", async () => {
    await c.end();
    c = new pg.Client({ host: gw.host, port: gw.port, user: 'ann', database: 'views' });
    await c.connect();
    const r = await c.query(
      `select c.relkind, pg_get_viewdef(c.oid) as d from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'main' and c.relname in ('base', 'v_qualified', 'v_literal') order by c.relname`,
    );
    assert.deepEqual(r.rows, [
      { relkind: 'r', d: null },
      { relkind: 'v', d: "SELECT 'l.main.base' AS s, id FROM base WHERE (id < 3);" },
      { relkind: 'v', d: 'SELECT count_star() AS n FROM main.base;' },
    ]);
    // the definitions still say what the views read: the view answers as before
    assert.equal((await c.query('select n::int as n from v_qualified')).rows[0].n > 0, true);
  });

  test('superuser-only settings: absent from pg_settings, SHOW and current_setting refuse them (42501), as PostgreSQL does for an ordinary login', async () => {
    const names = (await c.query('select name from pg_settings')).rows.map((r: { name: string }) => r.name);
    for (const n of [
      'data_directory',
      'config_file',
      'hba_file',
      'ident_file',
      'unix_socket_directories',
      'log_directory',
    ])
      assert.ok(!names.includes(n), n);
    assert.equal(names.length, 333, 'PostgreSQL 15 shows an ordinary login 333 settings');
    for (const sql of [
      'show data_directory',
      "select current_setting('data_directory')",
      "select current_setting('HBA_FILE')",
      'show unix_socket_directories',
    ]) {
      await assert.rejects(
        c.query(sql),
        (e: { code?: string; message?: string }) =>
          e.code === '42501' &&
          /^must be superuser or have privileges of pg_read_all_settings to examine "\w+"$/.test(e.message ?? ''),
        sql,
      );
    }
    // the session goes on
    assert.equal((await c.query("select current_setting('TimeZone') as tz")).rows[0].tz, 'UTC');
  });
});
