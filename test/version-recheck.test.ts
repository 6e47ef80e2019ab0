/**
 * A local version's per-statement re-check (versions/version-recheck.ts, issue 26): decided without a
 * promise while the catalog and the files a statement reads stat as they did when verified; a file
 * that changed takes the full path again, which refuses it (XX001) and lets it back once restored.
 * Over the fixture `basic` through FsStore, the repository and version as the gateway opens them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsStore } from '../src/store/fs-store.js';
import { openRepository } from '../src/resolver/index.js';
import { SqlError } from '../src/errors.js';
import { VersionRecheck } from '../src/versions/version-recheck.js';
import type { LakeCatalog, LakeTable } from '../src/lake/index.js';
import { copyFixtures, FIXTURES } from './support/gateway.js';

test('an unchanged local version is re-checked without a promise; a changed file takes the full path (XX001) until restored', async () => {
  const repos = copyFixtures('repos/basic');
  try {
    const root = repos.path('repos/basic');
    const repo = await openRepository('basic', new FsStore(root), {
      allowedSigners: join(FIXTURES, 'keys/allowed_signers'),
      cacheDir: join(repos.dir, 'cache'),
      refTtlMs: 0,
    });
    const id = (await repo.resolve('main')).versionId;
    const version = await repo.openVersion(id);
    const listed = JSON.parse(readFileSync(join(root, 'versions', id, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: { path: string; size: number }[] }>;
    };
    const table = (schema: string, name: string) =>
      ({ schema, name, files: listed.tables[`${schema}.${name}`]!.files }) as unknown as LakeTable;
    const orders = table('sales', 'orders');
    const customers = table('sales', 'customers');
    const catalog = { tables: [orders, customers], views: [] } as unknown as LakeCatalog;
    const recheck = new VersionRecheck(repo, version, id, catalog, 60_000, true);
    const reads = [{ schema: 'sales', name: 'orders' }];

    // the catalog was hashed at open; this fixture's files are checked by size (no sha256 listed): as
    // they were, so no promise, for this statement's reads and for every table
    assert.equal(recheck.revalidate(reads), undefined);
    assert.equal(recheck.revalidate('all'), undefined);

    // a file of the table read changed (another size): the full path, which refuses it
    const path = join(root, 'data', orders.files[0]!.path);
    const good = readFileSync(path);
    writeFileSync(path, Buffer.concat([good, Buffer.from('x')]));
    const changed = recheck.revalidate(reads);
    assert.ok(changed instanceof Promise, 'a changed file is not answered from what was verified');
    await assert.rejects(
      changed,
      (e) => e instanceof SqlError && e.sqlstate === 'XX001' && /size mismatch/.test(e.message),
    );
    // a statement reading only the other table is not refused
    assert.equal(recheck.revalidate([{ schema: 'sales', name: 'customers' }]), undefined);
    // restored: verified again on the full path, then without a promise
    writeFileSync(path, good);
    await recheck.revalidate(reads);
    assert.equal(recheck.revalidate(reads), undefined);
    version.close();
  } finally {
    repos.cleanup();
  }
});
