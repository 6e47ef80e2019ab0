/**
 * The catalog emulation's files (`fdl_pg`, 7 MB) are written once per gateway process and attached
 * READ_ONLY by every repository's engine (engine/emulation-files.ts), not once per engine; a restarted
 * gateway over the same cache writes its own and never attaches the previous process's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { EmulationFiles } from '../src/engine/emulation-files.js';
import { copyFixtures, startGateway, type RunningGateway } from './support/gateway.js';

/** Every `fdl_pg.duckdb` under `dir`, with when it was written. */
function emulationFiles(dir: string): { path: string; written: number }[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('fdl_pg.duckdb'))
    .map((f) => ({ path: f, written: statSync(join(dir, f)).mtimeMs }));
}

async function relations(gw: RunningGateway, database: string): Promise<string[]> {
  const c = new pg.Client({ host: gw.host, port: gw.port, user: 'x', database });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT n.nspname || '.' || c.relname AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    return r.rows.map((row: { name: string }) => row.name);
  } finally {
    await c.end();
  }
}

test('two repositories share one emulation file; a restart over the same cache writes its own', async () => {
  const repos = copyFixtures('repos/basic', 'repos/views');
  const cache = join(repos.dir, 'cache');
  const serve = () =>
    startGateway([
      '--repo',
      `basic=${repos.path('repos/basic')}`,
      '--repo',
      `views=${repos.path('repos/views')}`,
      '--cache-dir',
      cache,
    ]);
  try {
    let gw = await serve();
    let first: { path: string; written: number }[];
    try {
      const basic = await relations(gw, 'basic');
      const views = await relations(gw, 'views');
      assert.ok(basic.includes('sales.orders'), basic.join());
      assert.ok(views.length > 0 && views.join() !== basic.join(), views.join());
      first = emulationFiles(cache);
      assert.deepEqual(
        first.map((f) => f.path),
        [join('pg-catalog', 'fdl_pg.duckdb')],
        'one emulation file for both repositories',
      );
    } finally {
      await gw.stop();
    }
    gw = await serve();
    try {
      assert.ok((await relations(gw, 'basic')).includes('sales.orders'));
      assert.ok((await relations(gw, 'views')).length > 0);
      const again = emulationFiles(cache);
      assert.equal(again.length, 1);
      assert.ok(
        again[0]!.written > first[0]!.written,
        "the restarted gateway attached its own file, not the previous process's",
      );
    } finally {
      await gw.stop();
    }
  } finally {
    repos.cleanup();
  }
});

test('the files are written once, and again only when they are gone', async () => {
  const dir = copyFixtures();
  try {
    const files = new EmulationFiles(join(dir.dir, 'pg-catalog'));
    const [a, b] = await Promise.all([files.written(), files.written()]);
    assert.deepEqual(a, b);
    const first = statSync(a.compat).mtimeMs;
    assert.equal(statSync((await files.written()).compat).mtimeMs, first, 'not written again');
    rmSync(join(dir.dir, 'pg-catalog'), { recursive: true });
    const again = await files.written();
    assert.ok(statSync(again.compat).size > 1_000_000 && statSync(again.versions).size > 0);
  } finally {
    dir.cleanup();
  }
});
