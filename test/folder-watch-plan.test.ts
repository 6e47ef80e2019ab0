/**
 * The folders a run's watch covers (versions/folder-watch.ts watchPlan): every folder from the repository's real root
 * down to each file's own, whatever the depth. Counted from a file's path in the data folder, a `data_dir` of several
 * parts or a table folder that is a symlink (resolved deeper) had left folders between unwatched, and a swap there
 * served forged rows with CommandComplete (attacker review, session 56).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchPlan } from '../src/versions/folder-watch.js';

const folders = (plan: ReturnType<typeof watchPlan>) => plan.map((p) => `${p.folder}:${p.names.sort().join(',')}`);

test('every folder from the root down to the files, parents first, whatever the depth', () => {
  const file = (path: string) => ({ path, rel: 'sales/orders/f.parquet' });
  assert.deepEqual(folders(watchPlan([file('/r/data/sales/orders/f.parquet')], '/r')), [
    '/r:data,r',
    '/r/data:sales',
    '/r/data/sales:orders',
    '/r/data/sales/orders:f.parquet',
  ]);
  // data_dir "a/b/c/": three folders where the path in the data folder says one
  assert.deepEqual(folders(watchPlan([file('/r/a/b/c/sales/orders/f.parquet')], '/r')), [
    '/r:a,r',
    '/r/a:b',
    '/r/a/b:c',
    '/r/a/b/c:sales',
    '/r/a/b/c/sales:orders',
    '/r/a/b/c/sales/orders:f.parquet',
  ]);
  // a symlinked table folder, resolved by the store to another place under the root
  assert.deepEqual(folders(watchPlan([file('/r/x/y/z/w/orders/f.parquet')], '/r')), [
    '/r:r,x',
    '/r/x:y',
    '/r/x/y:z',
    '/r/x/y/z:w',
    '/r/x/y/z/w:orders',
    '/r/x/y/z/w/orders:f.parquet',
  ]);
});
