/**
 * A writing command stopped by SIGINT or SIGTERM rolls back as on an error (named pipes, partial
 * data files, the pending marker, the version folder all go) and exits 130 / 143; the repository is
 * byte for byte what it was. A writer killed outright (SIGKILL) leaves debris whose marker names a
 * process that no longer runs: the default `fdl gc` (grace 24h) clears it at once, with the local
 * work folder (TMPDIR/fdl-import-*) the run had recorded itself in; a live writer's folder stays.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, waitFor } from './support/gateway.js';
import { treeBytes } from './support/tree.js';
import { thisWriter } from '../src/host/write-journal.js';

let work: string;
let big: string;

/** ~3M rows: long enough that an import is still writing when the signal comes. */
async function writeBigCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('id,grp,name,amount\n');
  const chunk = 50_000;
  for (let start = 0; start < rows; start += chunk) {
    let s = '';
    for (let i = start; i < Math.min(rows, start + chunk); i++) s += `${i},${i % 97},name-${i},${(i * 7) % 1000}.25\n`;
    if (!out.write(s)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `fdl …` (with `env` added, e.g. its own TMPDIR); `ended` resolves with how it ended. */
function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<Ran>((r) => child.on('exit', (code, signal) => r({ code, signal, stdout, stderr })));
  return { child, ended };
}

async function fdl(...args: string[]): Promise<Ran> {
  return start(args).ended;
}

/** A temp folder of the test's own, given to the commands as TMPDIR: their work folders land there. */
function ownTmp(name: string): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  return dir;
}

/** The fdl import work folders in `tmp` that have recorded their writer. */
const importFolders = (tmp: string) =>
  readdirSync(tmp).filter((n) => n.startsWith('fdl-import-') && existsSync(path.join(tmp, n, 'writer.json')));

/** True once a running import's named pipes (its scratch folder in the data folder) are there. */
const importWriting = (root: string) => () => {
  const walk = (d: string): boolean =>
    existsSync(d) &&
    readdirSync(d, { withFileTypes: true }).some((e) => e.isFIFO() || (e.isDirectory() && walk(path.join(d, e.name))));
  return walk(path.join(root, 'data'));
};

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-signals-'));
  big = path.join(work, 'big.csv');
  await writeBigCsv(big, 3_000_000);
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('signals during a writing command', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} in the middle of fdl import: rolled back, exit ${code}, the repository byte for byte as before`, async () => {
      const root = path.join(work, `import-${signal}`);
      assert.equal((await fdl('init', root)).code, 0);
      const small = path.join(work, 'small.csv');
      await writeBigCsv(small, 10);
      const first = await fdl('import', root, '--table', `main.t=${small}`);
      assert.equal(first.code, 0, first.stderr);
      const before = treeBytes(root);
      const run = start(['import', root, '--table', `main.t=${big}`, '--sort-by', 'main.t=name']);
      await waitFor(importWriting(root), 'the import writing its data', 120_000);
      assert.ok(
        treeBytes(root).some((l) => / fifo$/.test(l)),
        'named pipes are there mid-import',
      );
      run.child.kill(signal);
      const r = await run.ended;
      assert.equal(r.code, code, r.stderr);
      assert.equal(r.stdout, '', 'no version id printed');
      assert.match(
        r.stderr,
        new RegExp(`fdl: interrupted by ${signal}: stopped, and what this run had written was removed\\n$`),
      );
      assert.deepEqual(treeBytes(root), before);
    });
  }

  it('SIGINT in the middle of fdl update (the pending marker written, new data files on their way): rolled back, exit 130', async () => {
    const root = path.join(work, 'update-SIGINT');
    assert.equal((await fdl('init', root)).code, 0);
    const loaded = await fdl('import', root, '--table', `main.t=${big}`);
    assert.equal(loaded.code, 0, loaded.stderr);
    const before = treeBytes(root);
    const run = start(['update', root, '--table', 'main.t', '--set', 'amount = amount + 1', '--where', 'true']);
    const pending = () =>
      readdirSync(path.join(root, 'versions')).some((v) => existsSync(path.join(root, 'versions', v, 'pending')));
    await waitFor(pending, "the update's pending marker", 120_000, 10);
    run.child.kill('SIGINT');
    const r = await run.ended;
    assert.equal(r.code, 130, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /fdl: interrupted by SIGINT: stopped, and what this run had written was removed\n$/);
    assert.deepEqual(treeBytes(root), before);
  });

  it("SIGKILL leaves a dead writer's debris; the default fdl gc (grace 24h) removes all of it at once, and nothing else", async () => {
    const root = path.join(work, 'killed');
    assert.equal((await fdl('init', root)).code, 0);
    const small = path.join(work, 'small-k.csv');
    await writeBigCsv(small, 10);
    assert.equal((await fdl('import', root, '--table', `main.t=${small}`)).code, 0);
    const before = treeBytes(root);
    const tmp = ownTmp('tmp-killed');
    const run = start(['import', root, '--table', `main.t=${big}`], { TMPDIR: tmp });
    await waitFor(importWriting(root), 'the import writing its data', 120_000);
    run.child.kill('SIGKILL');
    await run.ended;
    assert.equal(importFolders(tmp).length, 1, 'the work folder is left, its writer recorded');
    const debris = treeBytes(root).filter((l) => !before.includes(l));
    assert.ok(
      debris.some((l) => /\/pending /.test(l)),
      'a pending marker is left',
    );
    assert.ok(
      debris.some((l) => / fifo$/.test(l)),
      'named pipes are left',
    );
    const gc = await start(['gc', root], { TMPDIR: tmp }).ended;
    assert.equal(gc.code, 0, gc.stderr);
    assert.match(
      gc.stdout,
      /^removed \d+ object\(s\) \(1 unfinished version folder\(s\)\) and 1 work folder\(s\) of dead writers; kept 0 younger than the grace period; 0 writer\(s\) running\n$/,
    );
    assert.match(gc.stderr, /writer gone: versions\/[0-9a-f-]+\/ \(process \d+ on this host no longer runs\)/);
    assert.match(gc.stderr, /removing work folder \S+\/fdl-import-\w{6} \(process \d+ on this host no longer runs\)/);
    assert.deepEqual(treeBytes(root), before);
    assert.deepEqual(readdirSync(tmp), [], 'the work folder is gone');
  });

  it("a live import's work folder survives fdl gc --grace 0 (the writer stopped with SIGSTOP, alive); its own clean-up removes it", async () => {
    const root = path.join(work, 'live');
    assert.equal((await fdl('init', root)).code, 0);
    const tmp = ownTmp('tmp-live');
    const run = start(['import', root, '--table', `main.t=${big}`], { TMPDIR: tmp });
    await waitFor(() => importFolders(tmp).length === 1, "the import's work folder", 120_000, 10);
    const folder = importFolders(tmp);
    run.child.kill('SIGSTOP');
    try {
      const gc = await start(['gc', root, '--grace', '0'], { TMPDIR: tmp }).ended;
      assert.equal(gc.code, 0, gc.stderr);
      assert.match(gc.stdout, / and 0 work folder\(s\) of dead writers; /);
      assert.doesNotMatch(gc.stderr, /work folder/);
      assert.deepEqual(importFolders(tmp), folder, 'the live writer keeps its work folder');
    } finally {
      run.child.kill('SIGTERM');
      run.child.kill('SIGCONT');
    }
    const r = await run.ended;
    assert.equal(r.code, 143, r.stderr);
    assert.deepEqual(readdirSync(tmp), [], 'removed by its own writer');
  });

  it("the next fdl import removes a dead writer's work folder, and leaves one without a record (an older fdl's)", async () => {
    const root = path.join(work, 'next');
    assert.equal((await fdl('init', root)).code, 0);
    const tmp = ownTmp('tmp-next');
    // a finished process's identity, recorded as a killed import would have left it
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(JSON.stringify({ pid: process.pid }))']);
    const { pid } = JSON.parse(gone.stdout.toString()) as { pid: number };
    const me = thisWriter();
    const dead = path.join(tmp, 'fdl-import-Dead01');
    mkdirSync(path.join(dead, 'spill'), { recursive: true });
    writeFileSync(path.join(dead, 'writer.json'), JSON.stringify({ ...me, pid, start: undefined }));
    const unknown = path.join(tmp, 'fdl-import-Old001');
    mkdirSync(unknown);
    const small = path.join(work, 'small-n.csv');
    await writeBigCsv(small, 10);
    const r = await start(['import', root, '--table', `main.t=${small}`], { TMPDIR: tmp }).ended;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`removing work folder ${dead} \\(process ${pid} on this host no longer runs\\)`));
    assert.deepEqual(readdirSync(tmp), ['fdl-import-Old001']);
  });

  it('a signal while I/O is stuck (an S3 endpoint that accepts and never answers) still ends the run: exit 143 within the stop deadline', async () => {
    const held: Socket[] = [];
    let connected = false;
    const blackHole = createServer((sock) => {
      connected = true;
      held.push(sock);
    });
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', () => r()));
    const port = (blackHole.address() as { port: number }).port;
    try {
      const small = path.join(work, 'small-s3.csv');
      await writeBigCsv(small, 10);
      const child = spawn(process.execPath, [CLI, 'import', 's3://stuck/repo', '--table', `main.t=${small}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: 'x',
          AWS_SECRET_ACCESS_KEY: 'y',
          AWS_REGION: 'us-east-1',
          AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
          FDL_S3_FORCE_PATH_STYLE: '1',
        },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const ended = new Promise<{ code: number | null }>((r) => child.on('exit', (code) => r({ code })));
      await waitFor(() => connected, 'the import asking the endpoint', 60_000);
      const t0 = Date.now();
      child.kill('SIGTERM');
      const r = await ended;
      const took = Date.now() - t0;
      assert.equal(r.code, 143, stderr);
      assert.ok(took < 40_000, `exited ${took} ms after SIGTERM`);
      assert.match(
        stderr,
        /fdl: the clean-up did not end within 10 s; exiting without finishing the clean-up \(run fdl gc to remove what is left\)\n$/,
      );
    } finally {
      for (const s of held) s.destroy();
      blackHole.close();
    }
  });
});
