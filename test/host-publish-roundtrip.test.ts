/**
 * fdl publish end to end over every fixture repository: its newest catalog, used as a "working
 * catalog", is published into a fresh repository (same data_dir, data folder copied) with the real
 * CLI; the new version is read back by the project's lake reader and must give the fixture's
 * recorded answers, files.json must hash the bytes, and `fdl verify` names exactly the orphans.
 */
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runFdl } from './support/gateway.js';
import { FIXTURES } from './support/lake-fixtures.js';
import { checkExpected, fixtureRepo, headOf, prepare, stripSha, tableCounts } from './support/publish-fixtures.js';

let work: string;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-publish-test-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

const fdl = (...args: string[]) => runFdl(args);

// Independent publishes into separate folders: a few at once (each is mostly a child process waiting on I/O).
describe('fdl publish: every fixture repository round-trips through publish', { concurrency: 4 }, () => {
  const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: Record<string, { path: string; expected: string }>;
  };
  const onDisk = readdirSync(path.join(FIXTURES, 'repos')).sort();
  it('the manifest lists every fixture repository (none skipped)', () => {
    assert.deepEqual(Object.keys(manifest.repos).sort(), onDisk);
  });
  for (const name of onDisk) {
    it(`${name}: publish of its newest catalog gives the fixture's recorded answers; fdl verify passes`, async () => {
      const fx = fixtureRepo(name);
      const { root, working } = await prepare(work, fx);
      const r = await fdl(
        'publish',
        root,
        '--catalog',
        working,
        '--message',
        `republish ${name}`,
        '--author',
        'test@example.org',
      );
      assert.equal(r.code, 0, r.stderr);
      const id = r.stdout.trim();
      assert.equal(headOf(root), id);
      const vdir = path.join(root, 'versions', id);
      const rec = JSON.parse(readFileSync(path.join(vdir, 'version.json'), 'utf8')) as {
        parents: string[];
        message: string;
        catalogs: { path: string; format: { ducklake: string }; snapshot_id: number; size: number }[];
      };
      const orig = JSON.parse(readFileSync(path.join(fx.root, 'versions', fx.newest, 'version.json'), 'utf8')) as {
        catalogs: { snapshot_id: number }[];
      };
      assert.deepEqual(rec.parents, []);
      assert.equal(rec.message, `republish ${name}`);
      assert.equal(rec.catalogs[0]!.path, 'ducklake.duckdb');
      assert.equal(rec.catalogs[0]!.format.ducklake, '1.0');
      assert.equal(rec.catalogs[0]!.snapshot_id, orig.catalogs[0]!.snapshot_id, 'snapshot_id = newest snapshot');
      // A compacted, checkpointed copy: no WAL, the same tables (dynamic inlined ones too) with the same rows.
      assert.ok(!existsSync(path.join(vdir, 'ducklake.duckdb.wal')));
      assert.deepEqual(await tableCounts(path.join(vdir, 'ducklake.duckdb')), await tableCounts(working));
      // files.json as the fixture's own (built from the same catalog), plus sha256 per data file.
      const files = JSON.parse(readFileSync(path.join(vdir, 'files.json'), 'utf8')) as {
        tables: Record<
          string,
          {
            files: {
              path: string;
              sha256?: string;
              delete_file?: string;
              delete_file_size?: number;
              delete_file_sha256?: string;
            }[];
          }
        >;
      };
      assert.deepEqual(
        stripSha(files),
        JSON.parse(readFileSync(path.join(fx.root, 'versions', fx.newest, 'files.json'), 'utf8')),
      );
      // size and sha256 of every data and delete file, as the bytes in the repository
      for (const f of Object.values(files.tables).flatMap((t) => t.files)) {
        assert.equal(
          f.sha256,
          createHash('sha256')
            .update(readFileSync(path.join(root, fx.dataDir, f.path)))
            .digest('hex'),
          f.path,
        );
        if (f.delete_file === undefined) continue;
        const del = readFileSync(path.join(root, fx.dataDir, f.delete_file));
        assert.equal(f.delete_file_size, del.length, f.delete_file);
        assert.equal(f.delete_file_sha256, createHash('sha256').update(del).digest('hex'), f.delete_file);
      }
      const expected = path.join(FIXTURES, manifest.repos[name]!.expected, `${fx.newest}.json`);
      assert.ok(existsSync(expected), `expected results ${expected}`);
      const count = await checkExpected(root, fx.dataDir, id, expected);
      assert.ok(count > 0 || name === 'empty', `${name}: some queries checked`);
      // verify only reads: the plain and the strict run side by side.
      const [v, strict] = await Promise.all([fdl('verify', root), fdl('verify', root, '--strict')]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      // The whole fixture data folder was copied, but only the newest snapshot is published: files only
      // older versions read are orphans here. verify names exactly those (the second account:
      // files.json) as warnings; --strict fails on them.
      const named = new Set(
        Object.values(files.tables).flatMap((t) =>
          t.files.flatMap((f) => [f.path, ...(f.delete_file ? [f.delete_file] : [])]),
        ),
      );
      const onDiskFiles = readdirSync(path.join(root, fx.dataDir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(path.join(root, fx.dataDir), path.join(e.parentPath, e.name)));
      const orphans = onDiskFiles
        .filter((f) => !named.has(f))
        .map((f) => `${fx.dataDir}${f}`)
        .sort();
      const warned = [...v.stdout.matchAll(/WARN (\S+): orphan/g)].map((m) => m[1]!).sort();
      assert.deepEqual(warned, orphans, 'orphan warnings');
      assert.doesNotMatch(v.stdout, /WARN versions\//, 'no unfinished version');
      assert.equal(strict.code, orphans.length ? 1 : 0, strict.stdout);
    });
  }
});

// Each case in its own folders (prepare): a few at once.
