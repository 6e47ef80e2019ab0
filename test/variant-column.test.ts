/**
 * A version published with a VARIANT column (a store writer's doing: DuckLake lets one be written)
 * is refused where it is opened (lake/metadata.ts refuseVariant): DuckDB 1.5.6 crashes the process or
 * invalidates its instance in list and variant functions over VARIANT values, which admission keeps
 * from a client's text but not from a table's rows. The catalog is made by hand from a fixture: one
 * column's type set to `variant` in the frozen catalog, version.json's hash of it updated, unsigned.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFixtures } from './support/gateway.js';
import { serve, type Service } from './support/service.js';

describe('a version with a VARIANT column', () => {
  const repos = copyFixtures('repos/basic');
  let s: Service;

  before(async () => {
    const versions = join(repos.path('repos/basic'), 'versions');
    for (const id of readdirSync(versions)) {
      const dir = join(versions, id);
      const catalog = join(dir, 'ducklake.duckdb');
      const db = await DuckDBInstance.create(catalog);
      const c = await db.connect();
      await c.run("UPDATE ducklake_column SET column_type = 'variant' WHERE column_name = 'b'");
      await c.run('CHECKPOINT');
      c.disconnectSync();
      db.closeSync();
      const bytes = readFileSync(catalog);
      const meta = JSON.parse(readFileSync(join(dir, 'version.json'), 'utf8')) as {
        catalogs: { sha256: string; size: number }[];
      };
      meta.catalogs[0]!.sha256 = createHash('sha256').update(bytes).digest('hex');
      meta.catalogs[0]!.size = bytes.length;
      writeFileSync(join(dir, 'version.json'), JSON.stringify(meta, null, 2));
      rmSync(join(dir, 'version.json.sig'), { force: true });
    }
    s = await serve(['--repo', `basic=${repos.path('repos/basic')}`, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    s?.proc.kill('SIGTERM');
    await s?.exited;
    repos.cleanup();
  });

  test('is refused where it is opened: 0A000 naming the column, never a crash; the gateway serves on', async () => {
    for (let i = 0; i < 2; i++) {
      const c = new pg.Client({ host: '127.0.0.1', port: s.port, user: 'tester', database: 'basic' });
      c.on('error', () => undefined);
      const e = await c.connect().then(
        () => null,
        (err: pg.DatabaseError) => err,
      );
      await c.end().catch(() => undefined);
      assert.equal(e?.code, '0A000', String(e?.message));
      assert.match(e!.message, /column b of table .* has type VARIANT/);
    }
    assert.equal(s.proc.exitCode, null, 'the gateway runs on');
  });
});
