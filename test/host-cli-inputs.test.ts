/**
 * What `fdl` says about a user's input, through the real CLI: --where and --set are judged by
 * DuckDB's parse (one expression; no FROM, subquery, table or file), a CSV that DuckDB cannot read
 * is reported with the file's line and DuckDB's reason (never our generated SQL), a delete that
 * matches nothing exits 0 saying no version was written, and a read-only file system or a full disk
 * (ENOSPC, which DuckDB sees only as a broken pipe) is named as such. Every refusal leaves the repository byte for byte as it was.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CLI, runFdl } from './support/gateway.js';
import { treeBytes } from './support/tree.js';

const run = promisify(execFile);

const fdl = (...args: string[]) => runFdl(args, 120_000);

let work: string;
let root: string;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-inputs-'));
  root = path.join(work, 'repo');
  const csv = path.join(work, 'orders.csv');
  writeFileSync(csv, 'order_id,qty,note\n1,5,a\n2,7,b\n3,9,c\n');
  assert.equal((await fdl('init', root)).code, 0);
  const r = await fdl('import', root, '--table', `sales.orders=${csv}`);
  assert.equal(r.code, 0, r.stderr);
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Exit 1, exactly `fdl: <message>` as the last stderr line, and the repository unchanged. */
async function refused(message: string, ...args: string[]): Promise<void> {
  const before = treeBytes(root);
  const r = await fdl(...args);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(
    r.stderr
      .split('\n')
      .filter((l) => l.startsWith('fdl: '))
      .join('\n'),
    `fdl: ${message}`,
  );
  assert.deepEqual(treeBytes(root), before);
}

describe('--where and --set are what DuckDB parses them to be', () => {
  const del = (where: string) => ['delete', root, '--table', 'sales.orders', '--where', where];
  it('text that only balances once wrapped in parentheses is not one expression', async () => {
    await refused('--where: syntax error at or near ")"', ...del('false) or (true'));
    await refused(
      '--where: DuckDB reads 2 expressions in it; give one predicate (combine conditions with AND / OR)',
      ...del('order_id = 1, true'),
    );
    await refused(
      '--where: DuckDB reads more than one statement in it; give a single expression',
      ...del('order_id = 1; drop table x'),
    );
    await refused(
      '--where: DuckDB reads 2 statements in it; give a single expression',
      ...del('order_id = 1; SELECT 2'),
    );
  });

  it("no file, table or subquery: only the table's columns", async () => {
    const only = "the expression may use the table's columns only (no subquery, table or file)";
    await refused(
      `--where: DuckDB reads a subquery in it; ${only}`,
      ...del("order_id IN (SELECT 1 FROM read_csv('/etc/passwd'))"),
    );
    await refused(`--where: DuckDB reads a subquery in it; ${only}`, ...del("EXISTS (FROM '/etc/passwd')"));
    await refused(
      "--where: DuckDB reads FROM in it; give an expression over the table's columns only",
      ...del("true FROM '/etc/passwd'"),
    );
    await refused(
      "--where: DuckDB reads ORDER BY / LIMIT / DISTINCT in it; give an expression over the table's columns only",
      ...del('true LIMIT 1'),
    );
    await refused(
      "--set: DuckDB reads WHERE in it; give an expression over the table's columns only",
      'update',
      root,
      '--table',
      'sales.orders',
      '--set',
      'qty = 0 WHERE false',
      '--where',
      'order_id = 1',
    );
    await refused(
      `--set: DuckDB reads a subquery in it; ${only}`,
      'update',
      root,
      '--table',
      'sales.orders',
      '--set',
      "note = (SELECT content FROM read_text('/etc/passwd'))",
      '--where',
      'order_id = 1',
    );
  });

  it("a comment cannot reach the statement the predicate is placed in: DuckDB's rendering runs, not the text", async () => {
    const before = treeBytes(root);
    const r = await fdl(
      'update',
      root,
      '--table',
      'sales.orders',
      '--set',
      'qty = qty + 1 -- and more',
      '--where',
      'order_id = 3 -- only three',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^updated 1 row\(s\)/m);
    assert.notDeepEqual(treeBytes(root), before);
  });

  it('a delete that matches no row exits 0, prints no version id and writes nothing', async () => {
    const before = treeBytes(root);
    const r = await fdl(...del('order_id > 100'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^fdl: no row of sales\.orders matches --where order_id > 100: nothing to delete; no version written \(refs\/heads\/main stays at [0-9a-f-]{36}\)\n$/,
    );
    assert.deepEqual(treeBytes(root), before);
  });
});

describe("import errors name the user's input, not our SQL", () => {
  it("a CSV row DuckDB cannot read: the line and DuckDB's reason", async () => {
    const bad = path.join(work, 'bad.csv');
    writeFileSync(
      bad,
      'order_id,qty,note\n' + Array.from({ length: 30_000 }, (_, i) => `${i},1,x\n`).join('') + '7,8,9,10\n',
    );
    const before = treeBytes(root);
    const r = await fdl('import', root, '--table', `sales.orders=${bad}`);
    assert.equal(r.code, 1);
    const said = r.stderr.slice(r.stderr.indexOf('fdl: '));
    assert.equal(
      said,
      `fdl: ${bad}: Invalid Input Error: CSV Error on Line: 30002\nOriginal Line: 7,8,9,10\nExpected Number of Columns: 3 Found: 4\n`,
    );
    assert.deepEqual(treeBytes(root), before);
  });

  it("a value the table's column type cannot hold", async () => {
    const bad = path.join(work, 'bad-type.csv');
    writeFileSync(bad, 'order_id,qty,note\nseven,1,x\n');
    const before = treeBytes(root);
    const r = await fdl('import', root, '--table', `sales.orders=${bad}`);
    assert.equal(r.code, 1);
    const said = r.stderr.slice(r.stderr.indexOf('fdl: '));
    assert.doesNotMatch(said, /COPY|SELECT|read_csv|LINE 1/);
    assert.equal(
      said,
      `fdl: ${bad}: Conversion Error: Could not convert string 'seven' to INT64 when casting from source column order_id\n`,
    );
    assert.deepEqual(treeBytes(root), before);
  });
});

describe('a read-only file system is named as such', () => {
  it('fdl import into a repository on a read-only mount (a private mount namespace)', async () => {
    const mnt = path.join(work, 'ro');
    const csv = path.join(work, 'one.csv');
    writeFileSync(csv, 'a\n1\n');
    const sh = `mkdir -p ${mnt} && mount -t tmpfs tmpfs ${mnt} && ${process.execPath} ${CLI} init ${mnt}/r >/dev/null && mount -o remount,ro ${mnt} && exec ${process.execPath} ${CLI} import ${mnt}/r --table main.t=${csv}`;
    const r = await run('unshare', ['-m', 'sh', '-c', sh]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `fdl: ${mnt}/r is on a read-only file system\n`);
  });

  it('fdl import onto a full disk says "no space left on device", names the repository and leaves nothing behind', async () => {
    // A 256 KiB file system and a CSV of random hex whose Parquet needs more: the pipe thread's write
    // fails with ENOSPC, which DuckDB sees only as a broken pipe.
    const mnt = path.join(work, 'full');
    const out = path.join(work, 'full-out');
    const tmp = path.join(out, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const csv = path.join(work, 'random.csv');
    const rows = Array.from({ length: 40_000 }, (_, i) => `${i},${randomBytes(16).toString('hex')}`);
    writeFileSync(csv, `id,h\n${rows.join('\n')}\n`);
    const snap = `(cd ${mnt}/r && find . | sort && find . -type f -exec sha256sum {} + | sort)`;
    const sh = [
      `set -e`,
      `mkdir -p ${mnt} && mount -t tmpfs -o size=256k tmpfs ${mnt}`,
      `${process.execPath} ${CLI} init ${mnt}/r >/dev/null`,
      `${snap} > ${out}/before`,
      `set +e`,
      `TMPDIR=${tmp} ${process.execPath} ${CLI} import ${mnt}/r --table main.t=${csv} >${out}/stdout 2>${out}/stderr`,
      `echo $? > ${out}/rc`,
      `${snap} > ${out}/after`,
    ].join('\n');
    await run('unshare', ['-m', 'sh', '-c', sh], { timeout: 120_000 });
    const stderr = readFileSync(path.join(out, 'stderr'), 'utf8');
    assert.equal(readFileSync(path.join(out, 'rc'), 'utf8').trim(), '1', stderr);
    assert.equal(readFileSync(path.join(out, 'stdout'), 'utf8'), '');
    assert.equal(
      stderr.slice(stderr.indexOf('fdl: ')),
      `fdl: no space left on device: cannot write main.t's data files in ${mnt}/r\n`,
    );
    assert.equal(readFileSync(path.join(out, 'after'), 'utf8'), readFileSync(path.join(out, 'before'), 'utf8'));
    assert.deepEqual(readdirSync(tmp), [], 'the work folder is removed');
  });
});
