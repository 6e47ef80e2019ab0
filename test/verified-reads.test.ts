/**
 * What the gateway reads itself into a version's views — the deletion vectors it decodes once and keeps as
 * constants for the version's life — is hashed as it is read, not trusted from an earlier check: a store writer
 * who puts other bytes at the path after the files were verified (and the genuine file back later, which the
 * per-statement re-check would find) would otherwise hide or show rows for good.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../src/store/index.js';
import { openRepository } from '../src/resolver/index.js';
import { openCatalog, tableContext } from '../src/lake/index.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures/repos/deletion_vectors');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The deletion-vector fixture copied, its files.json given every file's size and sha256 (unsigned now). */
function hashedCopy(dir: string): { versionDir: string; puffin: string; puffinRel: string } {
  cpSync(FIX, dir, { recursive: true });
  const [id] = readdirSync(join(dir, 'versions')); // the fixture's one version
  const versionDir = join(dir, 'versions', id!);
  const filesPath = join(versionDir, 'files.json');
  const files = JSON.parse(readFileSync(filesPath, 'utf8'));
  let puffinRel = '';
  for (const t of Object.values(files.tables) as { files: Record<string, unknown>[] }[]) {
    for (const f of t.files) {
      const data = readFileSync(join(dir, 'data', f.path as string));
      f.sha256 = sha(data);
      if (typeof f.delete_file === 'string') {
        const del = readFileSync(join(dir, 'data', f.delete_file));
        f.delete_file_size = del.length;
        f.delete_file_sha256 = sha(del);
        puffinRel = f.delete_file;
      }
    }
  }
  const text = JSON.stringify(files, null, 2);
  writeFileSync(filesPath, text);
  const vj = JSON.parse(readFileSync(join(versionDir, 'version.json'), 'utf8'));
  vj.files['files.json'] = { sha256: sha(text), size: Buffer.byteLength(text) };
  writeFileSync(join(versionDir, 'version.json'), JSON.stringify(vj, null, 2));
  unlinkSync(join(versionDir, 'version.json.sig'));
  return { versionDir, puffin: join(dir, 'data', puffinRel), puffinRel };
}

test('a deletion vector is hashed as the gateway reads it: other bytes put there after the check are XX001, never decoded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-verified-reads-'));
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const { puffin, puffinRel } = hashedCopy(dir);
    const repo = await openRepository('dv', await openStore(dir), {
      dataHashes: 'require',
      cacheDir: join(dir, '.cache'),
    });
    const v = await repo.openVersion((await repo.resolve('main')).versionId);
    const catalog = await openCatalog(conn, v.catalogFile, 'meta');
    const table = catalog.tables[0]!;
    const lease = await v.ensureFiles(table.files);
    const genuine = readFileSync(puffin);
    // read hashed: the genuine bytes decode as before
    assert.ok((await v.readVerified({ path: puffinRel })).equals(genuine));
    // the table's context as a version's open builds it: its deletion vector read through readVerified
    const context = () =>
      tableContext(
        conn,
        catalog,
        [table],
        (rel) => v.locate(rel),
        undefined,
        (rel) => v.readVerified({ path: rel }),
      );
    const ctx = await context();
    assert.equal(ctx.dvPositions.size, 1);
    // the store writer's bytes, same size, after ensureFiles verified the genuine file
    const forged = Buffer.from(genuine);
    forged[forged.length - 20] ^= 0xff;
    writeFileSync(puffin, forged);
    assert.equal(statSync(puffin).size, genuine.length);
    await assert.rejects(
      context(),
      (e: { sqlstate?: string; message?: string }) =>
        e.sqlstate === 'XX001' && /sha256 mismatch/.test(e.message ?? '') && e.message!.includes(puffinRel),
    );
    lease.release();
    v.close();
  } finally {
    conn.disconnectSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
});
