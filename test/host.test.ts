/**
 * Host tooling end to end: repositories written by init/import are read back by the project's own
 * lake reader and compared with the source files read by plain DuckDB; catalogs are compared with
 * extension-written fixtures; signatures checked by real ssh-keygen; races, crashes, tags, verify,
 * expire, the demo, and S3 conditional-write headers.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { thisWriter } from '../src/host/write-journal.js';
import { collectGarbage } from '../src/host/gc.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { importData, type ImportOptions } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import { tagCommand, branchCommand } from '../src/host/refs-cmd.js';
import { expireVersion } from '../src/host/expire.js';
import { verifyRepository } from '../src/host/verify.js';
import { buildDemo, demoDataDir } from '../src/host/demo.js';
import { openRepository } from '../src/resolver/repository.js';
import { FsStore } from '../src/store/fs-store.js';
import { FIXTURES, openVersion, sortRows } from './support/lake-fixtures.js';

const run = promisify(execFile);
const CLI = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../src/cli/main.js');
let work: string;

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-host-test-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

let n = 0;
async function newRepo(): Promise<string> {
  const root = path.join(work, `repo${n++}`);
  await initRepository(root, {});
  return root;
}

async function plain(sql: string): Promise<unknown[][]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    await conn.run("SET TimeZone='UTC'");
    return (await conn.runAndReadAll(sql)).getRowsJson() as unknown[][];
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

/** Every column of a relation as text, so comparisons do not depend on type mapping of the client. */
function asText(cols: string[], from: string): string {
  return `SELECT ${cols.map((c) => `CAST("${c}" AS VARCHAR)`).join(', ')} FROM ${from}`;
}

async function columnsOf(from: string): Promise<string[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    return (await conn.runAndReadAll(`SELECT * FROM ${from} LIMIT 0`)).columnNames();
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

function versionOf(root: string, ref = 'refs/heads/main'): string {
  return readFileSync(path.join(root, ref), 'utf8').trim();
}

/** Rows of a table in a version, served by the project's lake reader (openCatalog + attachCatalog). */
async function served(root: string, version: string, table: string, cols: string[]): Promise<unknown[][]> {
  const o = await openVersion({
    root,
    dataDir: 'data/',
    catalogFile: path.join(root, 'versions', version, 'ducklake.duckdb'),
  });
  try {
    return (await o.conn.runAndReadAll(asText(cols, table))).getRowsJson() as unknown[][];
  } finally {
    o.close();
  }
}

function csv(name: string, text: string): string {
  const p = path.join(work, name);
  writeFileSync(p, text);
  return p;
}

const quiet: Pick<ImportOptions, 'progress'> = { progress: () => undefined };

describe('import round trip (served by the lake reader = source read by plain DuckDB)', () => {
  it('CSV, Parquet (nested types) and JSON', async () => {
    const root = await newRepo();
    const a = csv(
      'types.csv',
      'id,name,amount,day,at,flag\n1,"Zoë ""quoted""",12.50,2024-01-02,2024-01-02 03:04:05,true\n2,,-0.01,,2024-12-31 23:59:59,false\n3,"line\nbreak",99999.99,2000-02-29,,\n',
    );
    const pq = path.join(work, 'nested.parquet');
    await plain(
      `COPY (SELECT i AS id, {'x': i, 'y': 'v' || i} AS s, [i, i + 1] AS l, MAP {'k' || i: i * 2} AS m, i::DECIMAL(18,3) / 7 AS d, TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) HOUR AS tz FROM range(1000) t(i)) TO '${pq}' (FORMAT parquet)`,
    );
    const js = csv('events.ndjson', '{"k": 1, "v": "a", "tags": ["x", "y"]}\n{"k": 2, "v": null, "tags": []}\n');
    const r = await importData(root, {
      ...quiet,
      tables: [
        { schema: 'main', table: 'types', file: a },
        { schema: 'lab', table: 'nested', file: pq },
        { schema: 'lab', table: 'events', file: js },
      ],
      message: 'first',
    });
    assert.equal(r.parent, null);
    assert.deepEqual(r.rows, { 'main.types': 3, 'lab.nested': 1000, 'lab.events': 2 });
    for (const [table, src] of [
      ['main.types', `read_csv('${a}')`],
      ['lab.nested', `read_parquet('${pq}')`],
      ['lab.events', `read_json_auto('${js}')`],
    ] as const) {
      const cols = await columnsOf(src);
      const got = await served(root, r.versionId, table, cols);
      const want = await plain(asText(cols, src));
      assert.deepEqual(sortRows(got), sortRows(want), table);
    }
    // data files carry field ids = ducklake_column.column_id
    const files = JSON.parse(readFileSync(path.join(root, 'versions', r.versionId, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: { path: string; rows: number }[] }>;
    };
    const f = files.tables['lab.nested']!.files[0]!;
    assert.match(f.path, /^lab\/nested\/ducklake-[0-9a-f-]{36}\.parquet$/);
    const ids = await plain(
      `SELECT name, field_id FROM parquet_schema('${path.join(root, 'data', f.path)}') WHERE field_id IS NOT NULL ORDER BY field_id`,
    );
    assert.deepEqual(
      ids.map((x) => x[0]),
      ['id', 's', 'x', 'y', 'l', 'element', 'm', 'key', 'value', 'd', 'tz'],
    );
  });

  it('append, then replace (old versions keep their rows)', async () => {
    const root = await newRepo();
    const a = csv('a.csv', 'id,v\n1,a\n2,b\n');
    const b = csv('b.csv', 'v,id\nc,3\n'); // other column order: matched by name
    const c = csv('c.csv', 'id,w,x\n10,1.5,z\n');
    const v1 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: a }] })).versionId;
    const v2 = (await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: b }] })).versionId;
    assert.deepEqual(sortRows(await served(root, v2, 't', ['id', 'v'])), [
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'c'],
    ]);
    const v3 = (
      await importData(root, { ...quiet, mode: 'replace', tables: [{ schema: 'main', table: 't', file: c }] })
    ).versionId;
    assert.deepEqual(await served(root, v3, 't', ['id', 'w', 'x']), [['10', '1.5', 'z']]);
    assert.deepEqual(sortRows(await served(root, v1, 't', ['id', 'v'])), [
      ['1', 'a'],
      ['2', 'b'],
    ]);
    const vj = JSON.parse(readFileSync(path.join(root, 'versions', v3, 'version.json'), 'utf8')) as {
      parents: string[];
      catalogs: { snapshot_id: number }[];
    };
    assert.deepEqual(vj.parents, [v2]);
    assert.equal(vj.catalogs[0]!.snapshot_id, 3);
    await assert.rejects(
      importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: a }] }),
      /not in the table/,
    );
  });
});

describe('catalog structure', () => {
  it('has exactly the metadata tables, columns, types and keys of an extension-written 1.0 catalog', async () => {
    const root = await newRepo();
    const v = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('s.csv', 'a\n1\n') }] })
    ).versionId;
    const basic = path.join(FIXTURES, 'repos/basic');
    const fixture = path.join(
      basic,
      'versions',
      readFileSync(path.join(basic, 'refs/tags/v1'), 'utf8').trim(),
      'ducklake.duckdb',
    );
    const shape = (file: string) =>
      plain(`ATTACH '${file}' AS c (READ_ONLY);
      SELECT table_name, column_index, column_name, data_type, is_nullable FROM duckdb_columns() WHERE database_name = 'c' AND table_name NOT LIKE 'ducklake_inlined_%' ORDER BY ALL`);
    const keys = (file: string) =>
      plain(
        `ATTACH '${file}' AS c (READ_ONLY); SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints() WHERE database_name = 'c' ORDER BY ALL`,
      );
    const ours = path.join(root, 'versions', v, 'ducklake.duckdb');
    assert.deepEqual(await shape(ours), await shape(fixture));
    assert.deepEqual(await keys(ours), await keys(fixture));
    const meta = await plain(
      `ATTACH '${ours}' AS c (READ_ONLY); SELECT key, scope FROM c.ducklake_metadata ORDER BY key`,
    );
    assert.deepEqual(meta, [
      ['created_by', null],
      ['data_path', null],
      ['encrypted', null],
      ['version', null],
    ]);
    const files = await plain(
      `ATTACH '${ours}' AS c (READ_ONLY); SELECT path_is_relative, footer_size > 0, row_id_start FROM c.ducklake_data_file`,
    );
    assert.deepEqual(files, [[true, true, '0']]);
  });
});

describe('signatures', () => {
  it('version.json.sig verifies with ssh-keygen -Y verify and with fdl verify', async () => {
    const key = path.join(work, 'alice');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'alice', '-f', key]);
    const signers = path.join(work, 'allowed_signers');
    writeFileSync(
      signers,
      `alice@example.org namespaces="fdl" ${readFileSync(`${key}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`,
    );
    const root = await newRepo();
    const v = (
      await importData(root, {
        ...quiet,
        signKey: key,
        author: 'alice@example.org',
        tables: [{ schema: 'main', table: 't', file: csv('sig.csv', 'a\n1\n') }],
      })
    ).versionId;
    const dir = path.join(root, 'versions', v);
    const out = execFileSync(
      'ssh-keygen',
      ['-Y', 'verify', '-f', signers, '-I', 'alice@example.org', '-n', 'fdl', '-s', path.join(dir, 'version.json.sig')],
      { input: readFileSync(path.join(dir, 'version.json')) },
    ).toString();
    assert.match(out, /Good "fdl" signature for alice@example.org/);
    assert.equal((await verifyRepository(root, { allowedSigners: signers })).ok, true);
    // an unsigned version fails verification against trusted keys
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('sig2.csv', 'a\n2\n') }] });
    const r = await verifyRepository(root, { allowedSigners: signers });
    assert.equal(r.ok, false);
    assert.match(r.problems.join('\n'), /signature not trusted/);
  });
});

describe('refs', () => {
  it('two imports racing on one branch: exactly one wins, the other fails with "branch moved"', async () => {
    const root = await newRepo();
    const base = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('r0.csv', 'a\n0\n') }] })
    ).versionId;
    const results = await Promise.allSettled(
      [1, 2].map((i) =>
        importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv(`r${i}.csv`, `a\n${i}\n`) }] }),
      ),
    );
    const won = results.filter((x) => x.status === 'fulfilled');
    const lost = results.filter((x) => x.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.match(String((lost[0] as PromiseRejectedResult).reason), /branch moved, retry/);
    const winner = (won[0] as PromiseFulfilledResult<{ versionId: string; parent: string | null }>).value;
    assert.equal(winner.parent, base);
    assert.equal(versionOf(root), winner.versionId);
    assert.equal(existsSync(path.join(root, 'refs/heads/main.lock')), false);
  });

  it('deterministic race: the ref moves while an import is between version.json and its branch move', async () => {
    const root = await newRepo();
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('d0.csv', 'a\n0\n') }] });
    let other = '';
    await assert.rejects(
      importData(root, {
        ...quiet,
        tables: [{ schema: 'main', table: 't', file: csv('d1.csv', 'a\n1\n') }],
        step: async (s) => {
          if (s === 'version')
            other = (
              await importData(root, {
                ...quiet,
                tables: [{ schema: 'main', table: 't', file: csv('d2.csv', 'a\n2\n') }],
              })
            ).versionId;
        },
      }),
      /branch moved, retry/,
    );
    assert.equal(versionOf(root), other);
  });

  it('an import interrupted at any step leaves no ref on an incomplete version', async () => {
    const root = await newRepo();
    const good = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('c0.csv', 'a\n0\n') }] })
    ).versionId;
    for (const at of ['data', 'catalog']) {
      await assert.rejects(
        importData(root, {
          ...quiet,
          tables: [{ schema: 'main', table: 't', file: csv('c1.csv', 'a\n1\n') }],
          step: (s) => {
            if (s === at) throw new Error(`killed at ${at}`);
          },
        }),
        /killed/,
      );
      assert.equal(versionOf(root), good);
    }
    const refsJson = JSON.parse(readFileSync(path.join(root, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
    assert.equal(refsJson.refs['refs/heads/main'], good);
    // the failed runs rolled back: only the good version's folder is left, and verify finds no debris
    assert.deepEqual(readdirSync(path.join(root, 'versions')), [good]);
    const vr = await verifyRepository(root);
    assert.equal(vr.ok, true);
    assert.deepEqual(vr.warnings, [], 'no unfinished version, no orphan');
    const repo = await openRepository('r', new FsStore(root), { signatures: 'off' });
    assert.equal((await repo.resolve('main')).versionId, good);
  });

  it('a real process killed mid-import leaves main on a complete version', async () => {
    const root = await newRepo();
    const good = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('k0.csv', 'a\n0\n') }] })
    ).versionId;
    const big = path.join(work, 'k1.csv');
    await plain(`COPY (SELECT range AS a FROM range(3000000)) TO '${big}' (HEADER)`);
    for (const delay of [150, 400, 900]) {
      const child = execFile(process.execPath, [CLI, 'import', root, '--table', `main.t=${big}`]);
      // Listened for from the start: on a quiet machine the import may finish before the kill.
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited;
      const now = versionOf(root);
      assert.ok(
        existsSync(path.join(root, 'versions', now, 'version.json')),
        `main → complete version after kill at ${delay} ms`,
      );
    }
    assert.ok(good);
    assert.equal((await verifyRepository(root)).ok, true);
  });

  it('tags are create-only; branches are created at a ref', async () => {
    const root = await newRepo();
    const v1 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('t1.csv', 'a\n1\n') }] })
    ).versionId;
    const v2 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('t2.csv', 'a\n2\n') }] })
    ).versionId;
    assert.equal(await tagCommand(root, 'v1', v1), v1);
    await assert.rejects(tagCommand(root, 'v1', v2), /already exists.*never rewritten/);
    assert.equal(versionOf(root, 'refs/tags/v1'), v1);
    assert.equal(await tagCommand(root, 'v2'), v2); // default: HEAD
    assert.equal(await branchCommand(root, 'dev', 'v1'), v1);
    await assert.rejects(tagCommand(root, 'Bad Name', v1), /invalid tag name/);
    const refs = JSON.parse(readFileSync(path.join(root, 'refs.json'), 'utf8')) as { refs: Record<string, string> };
    assert.deepEqual(refs.refs, {
      'refs/heads/dev': v1,
      'refs/heads/main': v2,
      'refs/tags/v1': v1,
      'refs/tags/v2': v2,
    });
    // an import on a new branch starts from nothing; on dev it builds on v1
    const d = await importData(root, {
      ...quiet,
      branch: 'dev',
      tables: [{ schema: 'main', table: 't', file: csv('t3.csv', 'a\n3\n') }],
    });
    assert.equal(d.parent, v1);
    assert.deepEqual(sortRows(await served(root, d.versionId, 't', ['a'])), [['1'], ['3']]);
  });
});

describe('branch locks name their writer', () => {
  it("a dead writer's refs/heads/main.lock is cleared by the next import and by gc; a live writer's refuses an import before it writes anything", async () => {
    const root = await newRepo();
    const v1 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('l1.csv', 'a\n1\n') }] })
    ).versionId;
    const lock = path.join(root, 'refs', 'heads', 'main.lock');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadWriter = JSON.stringify({ ...thisWriter(), pid: Number(gone.stdout.toString()), start: undefined });
    // a live writer (this process) holds the lock: refused before any data is written
    writeFileSync(lock, JSON.stringify(thisWriter()));
    const versionsBefore = readdirSync(path.join(root, 'versions'));
    await assert.rejects(
      importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('l2.csv', 'a\n2\n') }] }),
      new RegExp(
        `branch moved, retry: refs/heads/main is being moved by another writer \\(refs/heads/main.lock is held by process ${process.pid} on `,
      ),
    );
    assert.deepEqual(readdirSync(path.join(root, 'versions')), versionsBefore, 'no version folder written');
    // a killed writer's lock: the next import clears it and publishes
    writeFileSync(lock, deadWriter);
    const v2 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('l3.csv', 'a\n3\n') }] })
    ).versionId;
    assert.equal(versionOf(root, 'refs/heads/main'), v2);
    assert.ok(!existsSync(lock));
    assert.notEqual(v1, v2);
    // verify reports it, and gc clears it
    writeFileSync(lock, deadWriter);
    const v = await verifyRepository(root);
    assert.ok(
      v.warnings.some((w) =>
        /^refs\/heads\/main\.lock: a branch lock \(refs\/heads\/main\.lock is held by process \d+ on /.test(w),
      ),
      v.warnings.join('\n'),
    );
    const lines: string[] = [];
    await collectGarbage(root, { report: (l) => lines.push(l) });
    assert.ok(!existsSync(lock));
    assert.ok(
      lines.includes("removed refs/heads/main.lock: its writer's process is gone from this host"),
      lines.join('\n'),
    );
  });

  it('a lock that names no writer is refused while young and cleared by the next import once a minute old', async () => {
    const root = await newRepo();
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('n1.csv', 'a\n1\n') }] });
    const lock = path.join(root, 'refs', 'heads', 'main.lock');
    writeFileSync(lock, ''); // a writer killed between creating the lock and naming itself in it
    const versionsBefore = readdirSync(path.join(root, 'versions'));
    await assert.rejects(
      importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('n2.csv', 'a\n2\n') }] }),
      /refs\/heads\/main\.lock exists and names no writer/,
    );
    assert.deepEqual(readdirSync(path.join(root, 'versions')), versionsBefore, 'no version folder written');
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    const v = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('n3.csv', 'a\n3\n') }] })
    ).versionId;
    assert.equal(versionOf(root, 'refs/heads/main'), v);
    assert.ok(!existsSync(lock));
  });
});

describe('ref names: a short name is a branch or a tag, never both (CLI)', () => {
  it('fdl tag over a branch name, fdl branch over a tag name and an import onto a new branch named like a tag are refused; nothing written', async () => {
    const root = await newRepo();
    const v1 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('c1.csv', 'a\n1\n') }] })
    ).versionId;
    assert.equal(await tagCommand(root, 'v1', v1), v1);
    const refsBefore = readFileSync(path.join(root, 'refs.json'), 'utf8');
    const listing = () => execFileSync('find', [root, '-type', 'f'], { encoding: 'utf8' }).split('\n').sort();
    const filesBefore = listing();
    const fdl = (...args: string[]) =>
      run(process.execPath, [CLI, ...args]).then(
        (r) => ({ code: 0, stderr: r.stderr }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
    const tag = await fdl('tag', root, 'main');
    assert.equal(tag.code, 1);
    assert.match(
      tag.stderr,
      /main is already a branch \(refs\/heads\/main\): a short name must not be both a branch and a tag, or @main would be ambiguous/,
    );
    const branch = await fdl('branch', root, 'v1');
    assert.equal(branch.code, 1);
    assert.match(branch.stderr, /v1 is already a tag \(refs\/tags\/v1\)/);
    const imp = await fdl('import', root, '--branch', 'v1', '--table', `main.t=${csv('c2.csv', 'a\n2\n')}`);
    assert.equal(imp.code, 1);
    assert.match(imp.stderr, /v1 is already a tag/);
    assert.deepEqual(listing(), filesBefore, 'nothing written');
    assert.equal(readFileSync(path.join(root, 'refs.json'), 'utf8'), refsBefore);
    const repo = await openRepository('r', new FsStore(root), { signatures: 'off', refTtlMs: 0 });
    assert.equal((await repo.resolve('v1')).versionId, v1, '@v1 still resolves (not ambiguous)');
    assert.equal((await repo.resolve('main')).versionId, v1);
  });
});

describe('version ID prefixes in the CLI (as readers resolve them: at least 8 hex digits, unambiguous)', () => {
  it('fdl expire, --successor, fdl log and fdl tag take a prefix; a short or unknown one is refused and nothing written', async () => {
    const root = await newRepo();
    const v1 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('p1.csv', 'a\n1\n') }] })
    ).versionId;
    const v2 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('p2.csv', 'a\n2\n') }] })
    ).versionId;
    const fdl = (...args: string[]) =>
      run(process.execPath, [CLI, ...args]).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const short = v1.slice(0, 6);
    const bad = await fdl('expire', root, short);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, new RegExp(`no version ${short} in `));
    assert.ok(!existsSync(path.join(root, 'versions', v1, 'expired.json')));
    const log = await fdl('log', root, v2.slice(0, 13));
    assert.equal(log.code, 0, log.stderr);
    assert.match(log.stdout, new RegExp(`^version ${v2}`));
    const tag = await fdl('tag', root, 'p', v1.slice(0, 13));
    assert.equal(tag.code, 0, tag.stderr);
    assert.equal(versionOf(root, 'refs/tags/p'), v1);
    const ex = await fdl('expire', root, v1.slice(0, 13), '--successor', v2.slice(0, 23));
    assert.equal(ex.code, 0, ex.stderr);
    assert.equal(ex.stdout, `version ${v1} expired\n`);
    const rec = JSON.parse(readFileSync(path.join(root, 'versions', v1, 'expired.json'), 'utf8')) as {
      id: string;
      successor: string;
    };
    assert.deepEqual([rec.id, rec.successor], [v1, v2]);
  });
});

describe('init, verify, expire (CLI)', () => {
  it('init keeps the first settings', async () => {
    const root = path.join(work, 'init');
    const first = await run(process.execPath, [
      CLI,
      'init',
      root,
      '--id',
      '11111111-2222-4333-8444-555555555555',
      '--data-dir',
      'warehouse',
    ]);
    assert.match(first.stdout, /initialized/);
    const second = await run(process.execPath, [CLI, 'init', root, '--id', '99999999-2222-4333-8444-555555555555']);
    assert.match(second.stdout, /already an FDL repository.*kept its settings/);
    const fdl = JSON.parse(readFileSync(path.join(root, 'fdl.json'), 'utf8')) as { id: string; data_dir: string };
    assert.deepEqual([fdl.id, fdl.data_dir], ['11111111-2222-4333-8444-555555555555', 'warehouse/']);
    assert.equal(readFileSync(path.join(root, 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    const out = await run(process.execPath, [CLI, 'import', root, '--table', `s.t=${csv('w.csv', 'a\n1\n')}`]);
    const v = out.stdout.trim();
    const files = JSON.parse(readFileSync(path.join(root, 'versions', v, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: { path: string }[] }>;
    };
    assert.ok(existsSync(path.join(root, 'warehouse', files.tables['s.t']!.files[0]!.path)));
  });

  it('no version builds on an expired branch head (fdl gc may have removed its data): refused, nothing written', async () => {
    const root = await newRepo();
    const head = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('x.csv', 'a\n1\n') }] })
    ).versionId;
    await expireVersion(root, head);
    const tree = () =>
      execFileSync('sh', ['-c', 'find . | sort && find . -type f -exec sha256sum {} + | sort'], {
        cwd: root,
        encoding: 'utf8',
      });
    const before = tree();
    const out = spawnSync(process.execPath, [CLI, 'import', root, '--table', `main.u=${csv('y.csv', 'b\n2\n')}`], {
      encoding: 'utf8',
    });
    assert.equal(out.status, 1, out.stdout);
    assert.match(out.stderr, new RegExp(`branch main is at version ${head}, which is expired`));
    assert.equal(tree(), before, 'nothing written');
    assert.equal(versionOf(root), head);
  });

  it('verify exits 0 on a good repository and non-zero after a flipped byte', async () => {
    const root = await newRepo();
    const v = (
      await importData(root, {
        ...quiet,
        tables: [{ schema: 'main', table: 't', file: csv('v.csv', 'a,b\n1,x\n2,y\n') }],
      })
    ).versionId;
    await run(process.execPath, [CLI, 'verify', root]);
    const files = JSON.parse(readFileSync(path.join(root, 'versions', v, 'files.json'), 'utf8')) as {
      tables: Record<string, { files: { path: string }[] }>;
    };
    for (const victim of [
      path.join(root, 'data', files.tables['main.t']!.files[0]!.path),
      path.join(root, 'versions', v, 'ducklake.duckdb'),
    ]) {
      const orig = readFileSync(victim);
      const bad = Buffer.from(orig);
      bad[Math.floor(bad.length / 2)]! ^= 0xff;
      writeFileSync(victim, bad);
      await assert.rejects(
        run(process.execPath, [CLI, 'verify', root]),
        (e: { code?: number; stdout?: string }) => e.code === 1 && /FAIL/.test(e.stdout ?? ''),
      );
      writeFileSync(victim, orig);
      await run(process.execPath, [CLI, 'verify', root]);
    }
  });

  it('verify warns of unfinished versions and orphan data files; only --strict makes them fail', async () => {
    const root = await newRepo();
    await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('o.csv', 'a\n1\n') }] });
    const clean = await run(process.execPath, [CLI, 'verify', root, '--strict']);
    assert.match(clean.stdout, /^ok: 1 version\(s\) verified\n$/m);
    // what a crashed writer leaves: a version folder without version.json and a data file nothing reads
    const unfinished = '01a2419b-0000-7000-8000-000000000001';
    mkdirSync(path.join(root, 'versions', unfinished), { recursive: true });
    writeFileSync(path.join(root, 'versions', unfinished, 'ducklake.duckdb'), 'x');
    mkdirSync(path.join(root, 'data', 'main', 't'), { recursive: true });
    writeFileSync(path.join(root, 'data', 'main', 't', 'ducklake-orphan.parquet'), 'x');
    const warned = await run(process.execPath, [CLI, 'verify', root]);
    assert.match(warned.stdout, new RegExp(`WARN versions/${unfinished}/: unfinished version`));
    assert.match(warned.stdout, /WARN data\/main\/t\/ducklake-orphan\.parquet: orphan/);
    assert.match(warned.stdout, /^ok: 1 version\(s\) verified, 2 warning\(s\)/m);
    await assert.rejects(
      run(process.execPath, [CLI, 'verify', root, '--strict']),
      (e: { code?: number; stdout?: string }) => e.code === 1 && /2 warning/.test(e.stdout ?? ''),
    );
    const r = await verifyRepository(root);
    assert.deepEqual(r.problems, []);
    assert.equal(r.warnings.length, 2);
  });

  it('expire writes expired.json and readers refuse the version', async () => {
    const root = await newRepo();
    const v1 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('e1.csv', 'a\n1\n') }] })
    ).versionId;
    const v2 = (
      await importData(root, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv('e2.csv', 'a\n2\n') }] })
    ).versionId;
    await run(process.execPath, [CLI, 'expire', root, v1, '--successor', v2]);
    const mark = JSON.parse(readFileSync(path.join(root, 'versions', v1, 'expired.json'), 'utf8')) as {
      expired: string;
      successor: string;
      reason: string;
    };
    assert.equal(mark.successor, v2);
    assert.match(mark.expired, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const repo = await openRepository('r', new FsStore(root), { signatures: 'off' });
    await assert.rejects(repo.openVersion(v1), new RegExp(`expired.*successor ${v2}`));
    await assert.rejects(expireVersion(root, v1), /already expired/);
    await assert.rejects(expireVersion(root, 'nope'), /no version/);
    const log = await run(process.execPath, [CLI, 'log', root]);
    assert.match(log.stdout, new RegExp(`version ${v2} \\(main\\)[\\s\\S]*version ${v1}[\\s\\S]*Expired:`));
  });
});

describe('fdl demo', () => {
  it('builds two signed versions with tags v1, v2 and branch dev; sales.orders is queryable', async () => {
    const dir = path.join(work, 'demo');
    const r = await buildDemo(dir, () => undefined);
    const signers = path.join(demoDataDir(), 'allowed_signers');
    assert.equal((await verifyRepository(dir, { allowedSigners: signers })).ok, true);
    assert.equal(versionOf(dir, 'refs/tags/v1'), r.v1);
    assert.equal(versionOf(dir, 'refs/tags/v2'), r.v2);
    assert.equal(versionOf(dir, 'refs/heads/main'), r.v2);
    assert.equal(versionOf(dir, 'refs/heads/dev'), r.v1);
    const count = async (v: string) => {
      const o = await openVersion({
        root: dir,
        dataDir: 'data/',
        catalogFile: path.join(dir, 'versions', v, 'ducklake.duckdb'),
      });
      try {
        return (await o.conn.runAndReadAll('select count(*) from sales.orders')).getRowsJson()[0]![0];
      } finally {
        o.close();
      }
    };
    assert.equal(await count(r.v1), '50');
    assert.equal(await count(r.v2), '80');
    const repo = await openRepository('demo', new FsStore(dir), { signatures: 'require', allowedSigners: signers });
    const opened = await repo.openVersion((await repo.resolve('v2')).versionId);
    assert.equal(opened.signature.status, 'G');
    assert.equal((opened.dataset as { title: string }).title, 'FDL demo shop');
    opened.close();
    await assert.rejects(buildDemo(dir), /already holds a repository/);
  });
});
