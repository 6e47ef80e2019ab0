/**
 * A version's open, raced by a store writer (attacker review, session 53): what it reads by path after the
 * gateway's hash — the Parquet footers DuckDB probes for a view's shape, the catalog DuckDB attaches — is read
 * between the gateway's check and the end of the open. The race is made deterministic by the repository's own
 * steps: the test acts when the version's files have just been hashed (its `ensureFiles`, its `openVersion`),
 * with the gateway served in this process to real clients over a socket.
 *
 * - a footer swapped for a forged one after the hash (and the genuine file back before the open's end), at the
 *   open and around the repair of a table whose files did not verify at first: XX001, never the forged shape;
 * - the catalog or a data file swapped for a named pipe after the hash: the open waits in DuckDB's open of the
 *   pipe. The client's statement ends 57014 at its cancel, the open is released (engine/fifo-opens.ts) and ends,
 *   and once the file is back a later statement opens the version and is answered.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { DuckDBInstance } from '@duckdb/node-api';
import { Gateway } from '../src/gateway.js';
import { buildConfig } from '../src/cli/config.js';
import type { Repository } from '../src/resolver/repository.js';
import type { VerifiedVersion } from '../src/resolver/types.js';
import { cancelFrom } from './support/gateway.js';
import { ServiceHttp } from '../src/service/http.js';
import { engineCallLoad } from '../src/engine/engine-calls.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures/repos/nested');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
// The statement timeout: a version's open after a released pipe took over 5 s in a loaded clean-clone CI run
// (the next statement then got 57014 and the files after it found the pipe's threads still waiting).
const TIMEOUT_MS = 12_000;
/** A file of main.n written before its struct's children evolved: its footer is read for the view's shape (lake/probe.ts). */
const PROBED = 'main/n/ducklake-01a23632-c7c4-7fbf-b1e9-df130ace668a.parquet';

let dir: string;
let root: string;
let gateway: Gateway;
let logged = '';
const clients: pg.Client[] = [];

/** The fixture copied, every version's files.json given each file's size and sha256 (unsigned now). */
function hashedCopy(to: string): void {
  cpSync(FIX, to, { recursive: true });
  for (const id of readdirSync(join(to, 'versions'))) {
    const versionDir = join(to, 'versions', id);
    const files = JSON.parse(readFileSync(join(versionDir, 'files.json'), 'utf8'));
    for (const t of Object.values(files.tables) as { files: Record<string, unknown>[] }[])
      for (const f of t.files) f.sha256 = sha(readFileSync(join(to, 'data', f.path as string)));
    const text = JSON.stringify(files, null, 2);
    writeFileSync(join(versionDir, 'files.json'), text);
    const vj = JSON.parse(readFileSync(join(versionDir, 'version.json'), 'utf8'));
    vj.files['files.json'] = { sha256: sha(text), size: Buffer.byteLength(text) };
    writeFileSync(join(versionDir, 'version.json'), JSON.stringify(vj, null, 2));
    rmSync(join(versionDir, 'version.json.sig'), { force: true });
  }
}

/** What the test does when the repository reaches a step of a version's open (null: nothing). */
const hooks: {
  opened: ((v: VerifiedVersion, repo: string) => void) | null;
  hashed: ((paths: string[]) => void) | null;
  checked: (() => void) | null;
} = { opened: null, hashed: null, checked: null };

/** The served repository's versions with the test's hooks at their steps (the repository's own code runs). */
function hook(repo: Repository): void {
  const openVersion = repo.openVersion.bind(repo);
  repo.openVersion = async (id: string) => {
    const v = await openVersion(id);
    const hooked: VerifiedVersion = Object.assign(Object.create(v) as VerifiedVersion, {
      ensureFiles: async (...args: Parameters<VerifiedVersion['ensureFiles']>) => {
        const lease = await v.ensureFiles(...args);
        hooks.hashed?.(args[0].map((f) => f.path));
        return lease;
      },
      unchangedNow: (files: Parameters<VerifiedVersion['unchangedNow']>[0]) => {
        hooks.checked?.();
        return v.unchangedNow(files);
      },
    });
    hooks.opened?.(hooked, repo.name);
    return hooked;
  };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 's54-races-open-'));
  root = join(dir, 'af');
  hashedCopy(root);
  // two more repositories: opens stuck in two of them, the third still opens (the last test)
  for (const name of ['bf', 'cf']) hashedCopy(join(dir, name));
  const config = join(dir, 'config.json');
  // every idle version detached at once (one byte of room): each login opens its version again
  writeFileSync(config, JSON.stringify({ auth: 'trust', maxIdleVersionBytes: 1, stuckCallGraceMs: 1500 }));
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  gateway = await Gateway.start(
    buildConfig({
      repo: ['af', 'bf', 'cf'].map((n) => `${n}=${join(dir, n)}`),
      dataHashes: ['af', 'bf', 'cf'].map((n) => `${n}=require`),
      listen: '127.0.0.1:0',
      cacheDir: join(dir, 'cache'),
      statementTimeout: String(TIMEOUT_MS),
      config,
    }),
    pino({ level: 'info' }, sink),
  );
  for (const name of ['af', 'bf', 'cf']) hook(gateway.repos.get(name)!);
});
after(async () => {
  for (const c of clients) c.connection.stream.destroy();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function login(ref = 'tags/v2', database = 'af'): Promise<pg.Client> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: gateway.address.port,
    user: 'alice',
    database,
    options: `-c fdl.ref=${ref}`,
  });
  c.on('error', () => undefined);
  clients.push(c);
  await c.connect();
  return c;
}

/** Every session ended: the versions they read are detached (maxIdleVersionBytes 1), the next login opens anew. */
async function endAll(): Promise<void> {
  for (const c of clients.splice(0)) await c.end().catch(() => undefined);
  for (let i = 0; i < 100 && gateway.caches().versions.attached > 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(gateway.caches().versions.attached, 0, 'every version detached');
}

const rowsOf = async (c: pg.Client, sql: string) => JSON.stringify((await c.query(sql)).rows);
const EXT = 'select * from main.n order by id';

/** The file's rows with its struct's child `b` named `z` (the same field id): the view would read no `b` from the genuine file. */
async function forgedFooter(genuine: string, to: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(
      `COPY (SELECT id, struct_pack(a := s.a, z := s.b) AS s, l, m, ls, sl FROM read_parquet('${genuine}')) TO '${to}' ` +
        `(FORMAT parquet, FIELD_IDS {id: 1, s: {__duckdb_field_id: 2, a: 3, z: 4}, l: {__duckdb_field_id: 5, element: 6}, ` +
        `m: {__duckdb_field_id: 7, key: 8, value: 9}, ls: {__duckdb_field_id: 10, element: {__duckdb_field_id: 11, x: 12, y: 13}}, ` +
        `sl: {__duckdb_field_id: 14, tags: {__duckdb_field_id: 15, element: 16}, n: 17}})`,
    );
  } finally {
    c.disconnectSync();
    db.closeSync();
  }
}

/** The version's genuine rows of main.n, read before any swap. */
let genuineExt = '';

test('the genuine rows, before any swap', async () => {
  const c = await login();
  genuineExt = await rowsOf(c, EXT);
  assert.match(genuineExt, /"b":"b0"/);
  await endAll();
});

test("a probed footer swapped for a forged one after its hash, and back before the open's end: the open fails XX001, the next serves the genuine shape", async () => {
  const path = join(root, 'data', PROBED);
  const forged = join(dir, 'forged.parquet');
  await forgedFooter(path, forged);
  linkSync(path, join(dir, 'genuine.parquet'));
  let swapped = false;
  hooks.hashed = (paths) => {
    if (swapped || !paths.includes(PROBED)) return;
    swapped = true;
    // the writer's swap, once the file was hashed: its shape is read from the forged footer
    linkSync(forged, `${path}.next`);
    renameSync(`${path}.next`, path);
    hooks.checked = () => {
      // and the genuine file back before the open's own checks: the per-statement re-check finds it again
      hooks.checked = null;
      linkSync(join(dir, 'genuine.parquet'), `${path}.next`);
      renameSync(`${path}.next`, path);
    };
  };
  try {
    await assert.rejects(login(), (e: { code?: string; message?: string }) => {
      assert.equal(e.code, 'XX001', e.message);
      assert.match(e.message ?? '', /changed while it was read/);
      return true;
    });
    assert.ok(swapped, 'the footer was swapped after its hash');
  } finally {
    hooks.hashed = null;
    hooks.checked = null;
  }
  const c = await login();
  assert.ok((await rowsOf(c, EXT)) === genuineExt, 'the next open serves the genuine shape');
  await endAll();
});

test("around the repair: a table whose file did not verify at the open, its file back, then swapped for a forged footer after the statement's hash: XX001, and the genuine rows once it is back", async () => {
  const path = join(root, 'data', PROBED);
  const aside = join(dir, 'part-1.aside');
  renameSync(path, aside);
  // the open: part-1 missing, main.n a placeholder refused until its files verify
  const c = await login();
  await assert.rejects(c.query(EXT), { code: 'XX001' });
  renameSync(aside, path);
  const forged = join(dir, 'forged.parquet');
  let swapped = false;
  hooks.hashed = (paths) => {
    if (swapped || !paths.includes(PROBED)) return;
    swapped = true;
    // the statement's re-check has hashed the genuine file; the repair builds the view from what is there now
    linkSync(path, aside);
    linkSync(forged, `${path}.next`);
    renameSync(`${path}.next`, path);
  };
  try {
    await assert.rejects(c.query(EXT), (e: { code?: string; message?: string }) => {
      assert.equal(e.code, 'XX001', e.message);
      return true;
    });
    assert.ok(swapped, 'the footer was swapped after its hash');
  } finally {
    hooks.hashed = null;
  }
  // the genuine file back: the view is built from it, the rows are the genuine ones
  renameSync(aside, path);
  assert.ok((await rowsOf(c, EXT)) === genuineExt, 'the genuine rows once the file is back');
  await endAll();
});

/** Threads of this process waiting in an open for a FIFO's writer. */
function fifoWaits(): string[] {
  const waits: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/wchan`, 'utf8').trim() === 'wait_for_partner') waits.push(tid);
    } catch {
      // the thread ended meanwhile
    }
  }
  return waits;
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`not in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A session on tags/v1 moves to heads/main (another version) while `swap` puts a named pipe at `target` once
 * that version's step `when` has run: its statement ends 57014 at a cancel, the open's wait is released, and with
 * the file back the move is made and main.n answered.
 */
async function stuckOnPipe(target: string, arm: (swap: () => void) => void): Promise<void> {
  const aside = `${target}.genuine`;
  const fifo = join(dir, `pipe-${Date.now()}`);
  execFileSync('mkfifo', [fifo]);
  let swapped = false;
  const releasedBefore = (logged.match(/"event":"fifo_open_released"/g) ?? []).length;
  const c = await login('tags/v1');
  arm(() => {
    if (swapped) return;
    swapped = true;
    linkSync(target, aside);
    renameSync(fifo, target);
  });
  try {
    const move = c.query("set fdl.ref = 'heads/main'").then(
      () => 'moved',
      (e: { code?: string }) => e.code,
    );
    await until('the open waits in the pipe', () => swapped && fifoWaits().length > 0);
    // the client gives up: its cancel ends the statement, whatever the open does
    const t0 = Date.now();
    await cancelFrom(
      { host: '127.0.0.1', port: gateway.address.port },
      c as unknown as { processID: number; secretKey: number },
    );
    assert.equal(await move, '57014');
    assert.ok(Date.now() - t0 < TIMEOUT_MS, 'the cancel answered before the timeout');
  } finally {
    hooks.opened = null;
    hooks.hashed = null;
  }
  // the open's wait is released, not left to some unrelated statement running long
  await until('no thread waits in the pipe', () => fifoWaits().length === 0);
  await until(
    'the release logged',
    () => (logged.match(/"event":"fifo_open_released"/g) ?? []).length > releasedBefore,
  );
  // the file back: a later statement opens the version and is answered (one that came while the released open
  // was still failing shares its failure: XX001, never a wait)
  renameSync(aside, target);
  const answers: string[] = [];
  for (let i = 0; i < 5 && answers.at(-1) !== 'moved'; i++) {
    const t0 = Date.now();
    answers.push(
      await c.query("set fdl.ref = 'heads/main'").then(
        () => 'moved',
        (e: { code?: string }) => e.code ?? 'gone',
      ),
    );
    assert.ok(Date.now() - t0 < TIMEOUT_MS, `answered before the timeout: ${answers.join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(answers.at(-1), 'moved', answers.join(', '));
  for (const a of answers.slice(0, -1)) assert.equal(a, 'XX001', answers.join(', '));
  assert.ok((await rowsOf(c, EXT)) === (await mainExt()), "heads/main's rows");
  await endAll();
}

/** heads/main's rows of main.n, from a login straight onto it. */
let mainRows = '';
async function mainExt(): Promise<string> {
  if (!mainRows) {
    const c = new pg.Client({
      host: '127.0.0.1',
      port: gateway.address.port,
      user: 'alice',
      database: 'af',
      options: '-c fdl.ref=heads/main',
    });
    clients.push(c);
    await c.connect();
    mainRows = await rowsOf(c, EXT);
  }
  return mainRows;
}

test("a version's catalog swapped for a named pipe after its hash: the statement ends 57014 at its cancel, the open is released, the next one opens it", async () => {
  await mainExt();
  await endAll();
  const main = readFileSync(join(root, 'refs', 'heads', 'main'), 'utf8').trim();
  const catalog = join(root, 'versions', main, 'ducklake.duckdb');
  await stuckOnPipe(catalog, (swap) => {
    hooks.opened = (_, repo) => repo === 'af' && swap();
  });
});

test("a version's probed data file swapped for a named pipe after its hash: the statement ends 57014 at its cancel, the open is released, the next one opens it", async () => {
  await stuckOnPipe(join(root, 'data', PROBED), (swap) => {
    hooks.hashed = (paths) => {
      if (paths.includes(PROBED)) swap();
    };
  });
});

test('opens that never return (the pipe moved to another folder while DuckDB waits in it): /readyz 503 after the grace, another repository still opens a version; 200 once they return', async () => {
  const http = await ServiceHttp.listen('127.0.0.1', 0, {
    readiness: () => 'ready',
    engineLoad: engineCallLoad,
    metrics: async () => ({ contentType: 'text/plain', body: '' }),
    statusPage: async () => '',
    log: { warn: () => undefined },
  });
  const readyz = async () => {
    const r = await fetch(`http://127.0.0.1:${http.address.port}/readyz`);
    return { status: r.status, body: await r.text() };
  };
  const moved: string[] = [];
  try {
    const expected = await mainExt(); // af's heads/main, read before its opens are stuck (cf is a copy of af)
    await endAll();
    assert.deepEqual(await readyz(), { status: 200, body: 'ready\n' });
    const main = readFileSync(join(root, 'refs', 'heads', 'main'), 'utf8').trim();
    const pending: Promise<string>[] = [];
    // af and bf: each a session moving to heads/main, whose catalog is a pipe the writer then moves away
    for (const name of ['af', 'bf']) {
      const catalog = join(dir, name, 'versions', main, 'ducklake.duckdb');
      const fifo = join(dir, `pipe-${name}`);
      execFileSync('mkfifo', [fifo]);
      const c = await login('tags/v1', name);
      let swapped = false;
      hooks.opened = (_, repo) => {
        if (repo !== name || swapped) return;
        swapped = true;
        linkSync(catalog, `${catalog}.genuine`);
        renameSync(fifo, catalog);
      };
      const waitsBefore = fifoWaits().length;
      pending.push(
        c.query("set fdl.ref = 'heads/main'").then(
          () => 'moved',
          (e: { code?: string }) => e.code ?? 'gone',
        ),
      );
      await until('the open waits in the pipe', () => swapped && fifoWaits().length > waitsBefore, 5_000);
      // moved to another folder (and the genuine catalog back): the release finds no pipe at the path or beside it
      const away = join(dir, `moved-${name}`);
      mkdirSync(away);
      renameSync(catalog, join(away, 'pipe'));
      renameSync(`${catalog}.genuine`, catalog);
      moved.push(join(away, 'pipe'));
      hooks.opened = null;
    }
    const t0 = Date.now();
    let r = await readyz();
    // (the first open may count stuck before the second is: both, within the grace of the second)
    for (let i = 0; i < 100 && !/^wedged: 2 /.test(r.body); i++) {
      await new Promise((done) => setTimeout(done, 100));
      r = await readyz();
    }
    assert.equal(r.status, 503, r.body);
    assert.match(r.body, /^wedged: 2 version opens still running after 1500 ms/);
    assert.equal(fifoWaits().length, 2, 'both opens still wait in their pipes');
    // the process serves on: a third repository opens a version (both process-wide open slots were theirs)
    const other = await Promise.race([
      login('heads/main', 'cf').then(async (c) => rowsOf(c, EXT)),
      new Promise<string>((done) => setTimeout(() => done('no answer'), 10_000)),
    ]);
    assert.ok(other === expected, `another repository's version opened: ${other.slice(0, 80)}`);
    // the sessions whose statements waited got their timeout, never an answer from the stuck opens
    assert.deepEqual(await Promise.all(pending), ['57014', '57014']);
    assert.ok(Date.now() - t0 < 30_000);
    // the pipes get a writer: the opens return, the process is ready again
    for (const p of moved) closeSync(openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
    moved.length = 0;
    for (let i = 0; i < 100 && (await readyz()).status !== 200; i++) await new Promise((done) => setTimeout(done, 100));
    assert.deepEqual(await readyz(), { status: 200, body: 'ready\n' });
    assert.match(logged, /"event":"version_open_stuck"/);
  } finally {
    for (const p of moved) {
      try {
        closeSync(openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader left
      }
    }
    await http.close();
    await endAll();
  }
});
