/**
 * A streamed run whose data file's folder is renamed away and back while it runs (a forged file read from the
 * folder in between) does not complete normally: the file's own identity is the verified one again, but not its
 * folder's ctime (issue 23). The swap is made deterministic by suspending the portal (Execute with a row limit)
 * and renaming the folder between two Executes. Before: the rest of the rows and CommandComplete.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'pg-protocol';
import { buildDemo } from '../src/host/demo.js';
import { serve, type Service } from './support/service.js';
import { buildBind, RawPg } from './support/raw-pg.js';

let dir: string;
let s: Service;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fdl-stream-swap-'));
  await buildDemo(join(dir, 'demo'), () => undefined);
  s = await serve([
    '--repo',
    `demo=${join(dir, 'demo')}`,
    '--data-hashes',
    'demo=require',
    '--cache-dir',
    join(dir, 'cache'),
  ]);
});
after(async () => {
  s?.proc.kill('SIGTERM');
  await s?.exited;
  rmSync(dir, { recursive: true, force: true });
});

/** Parse/Bind/Execute of one row, Flush; then `between`, then Execute of the rest and Sync: the codes answered. */
async function suspendedRun(c: RawPg, sql: string, between: () => void): Promise<string[]> {
  c.send(
    Buffer.concat([serialize.parse({ text: sql }), buildBind({}), serialize.execute({ rows: 1 }), serialize.flush()]),
  );
  const codes: string[] = [];
  for (let m = await c.next(); ; m = await c.next()) {
    codes.push(m.code);
    if (m.code === 's' || m.code === 'E') break;
  }
  between();
  c.send(Buffer.concat([serialize.execute({ rows: 0 }), serialize.sync()]));
  for (let m = await c.next(); ; m = await c.next()) {
    codes.push(m.code === 'E' ? `E${(m.parsed as { code?: string }).code}` : m.code);
    if (m.code === 'Z') return codes;
  }
}

test('a data folder renamed away and back during a streamed run: XX001 before CommandComplete; the next run completes', async () => {
  const c = await RawPg.connect({ port: s.port, user: 'x', database: 'demo' });
  try {
    const sql = (k: number) => `select order_id + ${k} as o from sales.orders`;
    const folder = join(dir, 'demo', 'data', 'sales', 'orders');
    const swapped = await suspendedRun(c, sql(1), () => {
      renameSync(folder, `${folder}.aside`);
      renameSync(`${folder}.aside`, folder);
    });
    assert.equal(swapped.slice(0, 2).join(','), '1,2', swapped.join(','));
    assert.ok(swapped.includes('s'), `suspended after one row: ${swapped.join(',')}`);
    assert.ok(swapped.includes('EXX001'), `the run ends XX001: ${swapped.join(',')}`);
    assert.ok(!swapped.includes('C'), `no CommandComplete: ${swapped.join(',')}`);
    // untouched, the same run completes
    const plain = await suspendedRun(c, sql(2), () => undefined);
    assert.ok(plain.includes('C') && !plain.some((x) => x.startsWith('E')), plain.join(','));
  } finally {
    await c.close();
  }
});
