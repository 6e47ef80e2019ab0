/**
 * fdl gc: files only an expired version read go; nothing a live version reads, nothing younger
 * than the grace period, nothing a running writer is writing (even with --grace 0).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { expireVersion } from '../src/host/expire.js';
import { collectGarbage } from '../src/host/gc.js';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { verifyRepository } from '../src/host/verify.js';
import { uuidv7 } from '../src/host/uuid.js';
import { openRepository } from '../src/resolver/repository.js';
import { FsStore } from '../src/store/fs-store.js';
import { openVersion } from './support/lake-fixtures.js';
import { treeBytes } from './support/tree.js';
import { runFdl, waitFor } from './support/gateway.js';

const run = promisify(execFile);
const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../src/cli/main.js');
const quiet = { progress: () => undefined };
const HOUR = 3600_000;
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

let work: string;
let n = 0;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-gc-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

function csv(text: string): string {
  const p = path.join(work, `s${n++}.csv`);
  writeFileSync(p, text);
  return p;
}
const dataFiles = (root: string) =>
  treeBytes(root)
    .filter((l) => l.startsWith('data/') && !l.endsWith('/'))
    .map((l) => l.split(' ')[0]!);
/** Makes every file under `root` look `ms` old. */
function age(root: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else utimesSync(p, t, t);
    }
  };
  walk(root);
}
async function rowsOf(root: string, ref: string): Promise<string> {
  const repo = await openRepository('r', new FsStore(root), { signatures: 'off', refTtlMs: 0 });
  return (await repo.resolve(ref)).versionId;
}

/** Column a of main.t as the native reader sees version `id`. */
async function tRows(root: string, id: string): Promise<number[]> {
  const o = await openVersion({
    root,
    dataDir: 'data',
    catalogFile: path.join(root, 'versions', id, 'ducklake.duckdb'),
  });
  try {
    return (await o.conn.runAndReadAll('SELECT a FROM main.t ORDER BY a')).getRowsJson().map((r) => Number(r[0]));
  } finally {
    o.close();
  }
}

describe('fdl gc', () => {
  it("--grace 0 while an import runs: keeps the writer's files; afterwards every live version still reads its rows", async () => {
    const root = path.join(work, 'writer');
    await initRepository(root);
    const v1 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] }))
      .versionId;
    const v1Files = dataFiles(root);
    const v2 = (
      await importData(root, {
        ...quiet,
        mode: 'replace',
        tables: [
          { schema: 'main', table: 't', file: csv('a\n2\n') },
          { schema: 'main', table: 'u', file: csv('b\n2\n') },
        ],
      })
    ).versionId;
    const v3 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n3\n') }] }))
      .versionId;
    await expireVersion(root, v1);
    // v4 stops once its data file is in place (pending marker written, no version.json yet)
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let paused!: () => void;
    const atData = new Promise<void>((r) => (paused = r));
    const writer = importData(root, {
      ...quiet,
      tables: [{ schema: 'main', table: 't', file: csv('a\n4\n') }],
      step: async (s) => {
        if (s === 'data') {
          paused();
          await gate;
        }
      },
    });
    await atData;
    const before = dataFiles(root);
    const during = await collectGarbage(root, { graceMs: 0 });
    assert.equal(during.writers.length, 1, 'the paused import is a running writer, --grace 0 or not');
    assert.deepEqual(during.removed, []);
    assert.deepEqual(dataFiles(root), before);
    release();
    const v4 = (await writer).versionId;
    const r = await run(process.execPath, [CLI, 'gc', root, '--grace', '0']);
    assert.match(r.stdout, /^removed 1 object\(s\)/);
    assert.deepEqual(
      dataFiles(root),
      before.filter((f) => !v1Files.includes(f)),
      "only the expired version's own file went",
    );
    assert.deepEqual((await verifyRepository(root)).problems, []);
    assert.deepEqual(await tRows(root, v2), [2]);
    assert.deepEqual(await tRows(root, v3), [2, 3]);
    assert.deepEqual(await tRows(root, v4), [2, 3, 4]);
    assert.equal(await rowsOf(root, 'main'), v4);
  });

  it('an import that finishes while gc --grace 0 reads its inventory: gc looks again and removes nothing of it; the version verifies', async () => {
    const root = path.join(work, 'racing');
    await initRepository(root);
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] });
    const big = path.join(work, 'racing.csv');
    const rows: string[] = ['id,name,amount'];
    for (let i = 0; i < 1_000_000; i++) rows.push(`${i},name${i % 1000},${i * 1.5}`);
    writeFileSync(big, rows.join('\n') + '\n');
    const importing = runFdl(['import', root, '--table', `main.big=${big}`, '--target-file-size', '4MB']);
    const markers = () =>
      readdirSync(path.join(root, 'versions')).filter((id) => existsSync(path.join(root, 'versions', id, 'pending')));
    await waitFor(() => markers().length === 1, "the import's pending marker", 120_000, 10);
    const lines: string[] = [];
    // the import ends (published, its process gone) after gc listed its marker and before gc judges it
    const gc = await collectGarbage(root, {
      graceMs: 0,
      report: (l) => lines.push(l),
      afterInventory: async () => void (await importing),
    });
    const imported = await importing;
    assert.equal(imported.code, 0, imported.stderr);
    assert.ok(
      lines.some((l) => /was finished while gc looked: looking again/.test(l)),
      `gc saw the import running and then finished:\n${lines.join('\n')}`,
    );
    assert.ok(!lines.some((l) => /writer gone/.test(l)), lines.join('\n'));
    assert.deepEqual(gc.removed, []);
    const verified = await runFdl(['verify', root]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /ok: 2 version\(s\) verified/);
  });

  it('an import whose data file vanished before the branch moves fails and publishes nothing', async () => {
    const root = path.join(work, 'vanished');
    await initRepository(root);
    const v1 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] }))
      .versionId;
    const before = dataFiles(root);
    await assert.rejects(
      importData(root, {
        ...quiet,
        tables: [{ schema: 'main', table: 't', file: csv('a\n2\n') }],
        step: (s) => {
          if (s !== 'version') return;
          for (const f of dataFiles(root)) if (!before.includes(f)) rmSync(path.join(root, f));
        },
      }),
      /1 file\(s\) this run wrote are gone \(data\/main\/t\/[^)]+\.parquet\): removed while it ran, so the version is not published/,
    );
    assert.equal(await rowsOf(root, 'main'), v1, 'the branch did not move');
    assert.deepEqual(readdirSync(path.join(root, 'versions')), [v1], 'the unpublished version was rolled back');
    assert.deepEqual(dataFiles(root), before);
  });

  it("refuses to remove a file some kept version's files.json names, even when its catalog does not", async () => {
    const root = path.join(work, 'second-account');
    await initRepository(root);
    const v1 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] }))
      .versionId;
    writeFileSync(path.join(root, 'data/main/t/stray.parquet'), 'x');
    const fj = path.join(root, 'versions', v1, 'files.json');
    const j = JSON.parse(readFileSync(fj, 'utf8')) as { tables: Record<string, { files: { path: string }[] }> };
    j.tables['main.t']!.files.push({ path: 'main/t/stray.parquet' });
    writeFileSync(fj, JSON.stringify(j));
    const before = dataFiles(root);
    await assert.rejects(
      collectGarbage(root, { graceMs: 0 }),
      /files\.json names 1 file\(s\) its catalog does not \(data\/main\/t\/stray\.parquet\): nothing removed/,
    );
    assert.deepEqual(dataFiles(root), before);
  });

  it('removes only the files an expired version alone read; verify passes before and after', async () => {
    const root = path.join(work, 'expired');
    await initRepository(root);
    const v1 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] }))
      .versionId;
    const v1Files = dataFiles(root);
    const v2 = (
      await importData(root, {
        ...quiet,
        mode: 'replace',
        tables: [{ schema: 'main', table: 't', file: csv('a\n2\n') }],
      })
    ).versionId;
    const v2Files = dataFiles(root).filter((f) => !v1Files.includes(f));
    age(root, 2 * HOUR);
    // nothing to collect while v1 is live
    assert.deepEqual((await collectGarbage(root, { graceMs: HOUR })).removed, []);
    await expireVersion(root, v1);
    const dry = await collectGarbage(root, { graceMs: HOUR, dryRun: true });
    assert.deepEqual(dry.removed, v1Files);
    assert.deepEqual(dataFiles(root), [...v1Files, ...v2Files].sort(), 'a dry run removes nothing');
    // younger than the grace period: kept
    assert.deepEqual((await collectGarbage(root, { graceMs: 3 * HOUR })).removed, []);
    const r = await collectGarbage(root, { graceMs: HOUR });
    assert.deepEqual(r.removed, v1Files);
    assert.deepEqual(dataFiles(root), v2Files);
    assert.equal(await rowsOf(root, 'main'), v2);
    const v = await verifyRepository(root);
    assert.deepEqual(v.problems, []);
    assert.deepEqual((await collectGarbage(root, { graceMs: 0 })).removed, [], 'a second gc finds nothing');
  });

  it("a pending marker from this host whose process is gone is cleared at once with the keys it lists; another host's young marker is a running writer", async () => {
    const root = path.join(work, 'markers');
    await initRepository(root);
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('a\n1\n') }] });
    const before = treeBytes(root);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(); // exited
    const marker = (id: string, host: string, pid: number, key: string) => {
      mkdirSync(path.join(root, 'versions', id), { recursive: true });
      writeFileSync(
        path.join(root, 'versions', id, 'pending'),
        JSON.stringify({ started: new Date().toISOString(), host, pid, keys: [key] }) + '\n',
      );
      writeFileSync(path.join(root, key), 'partial');
    };
    const dead = uuidv7();
    const elsewhere = uuidv7();
    marker(dead, hostname(), Number(gone), 'data/main/t/ducklake-dead.parquet');
    marker(elsewhere, 'another-host', process.pid, 'data/main/t/ducklake-elsewhere.parquet');
    const r = await collectGarbage(root);
    assert.deepEqual(r.writers, [elsewhere], "the other host's writer is judged by the age of its marker");
    assert.deepEqual(r.removed.sort(), ['data/main/t/ducklake-dead.parquet', `versions/${dead}/pending`]);
    assert.deepEqual(r.unfinished, [dead]);
    assert.deepEqual(
      treeBytes(root),
      [
        ...before,
        `versions/${elsewhere}/`,
        `versions/${elsewhere}/pending 644 ${sha(path.join(root, 'versions', elsewhere, 'pending'))}`,
        `data/main/t/ducklake-elsewhere.parquet 644 ${sha(path.join(root, 'data/main/t/ducklake-elsewhere.parquet'))}`,
      ].sort(),
    );
  });

  it('--grace must be a duration', async () => {
    const root = path.join(work, 'grace');
    await initRepository(root);
    const r = await run(process.execPath, [CLI, 'gc', root, '--grace', 'soon']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal((r as { code: number }).code, 1);
    assert.equal((r as { stderr: string }).stderr, 'fdl: --grace wants a duration like 30m, 12h or 7d, not "soon"\n');
  });
});
