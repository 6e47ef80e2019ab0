/**
 * Every publisher command checks its inputs before it writes (signing key readable, private,
 * usable without a terminal and one the allowed signers list; sources readable; target writable) and a failure after writing began
 * leaves nothing behind. Each case asserts the exact error and that the repository — every folder,
 * file, mode and byte — is what it was. Runs on a local folder through the real CLI (no terminal:
 * the child's stdio are pipes), and on s3rver through the library.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { S3Client } from '@aws-sdk/client-s3';
import { importData } from '../src/host/import.js';
import { initRepository } from '../src/host/repo.js';
import type { S3TargetOptions } from '../src/host/target.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';
import { runFdl } from './support/gateway.js';
import { bucketBytes, treeBytes } from './support/tree.js';
import { startFaultyProxy } from './support/faulty-proxy.js';

const quiet = { progress: () => undefined };

const fdl = (...args: string[]) => runFdl(args, 120_000);

let work: string;
let root: string; // a repository with one version, the target of every refused command
let csv: string;
let key: string; // a usable private key (0600, no passphrase)
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'fdl-preflight-'));
  root = path.join(work, 'repo');
  csv = path.join(work, 'rows.csv');
  writeFileSync(csv, 'a,b\n1,x\n2,y\n');
  key = path.join(work, 'key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  assert.equal((await fdl('init', root)).code, 0);
  const first = await fdl('import', root, '--table', `main.t=${csv}`, '--sign-key', key);
  assert.equal(first.code, 0, first.stderr);
  assert.equal((await fdl('tag', root, 'v1')).code, 0);
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Runs the command, expects exit 1 with exactly `fdl: <message>` and the repository unchanged. */
async function refused(message: string, ...args: string[]): Promise<void> {
  const before = treeBytes(root);
  const r = await fdl(...args);
  assert.equal(r.code, 1, `exit code of fdl ${args.join(' ')}`);
  assert.equal(
    r.stderr
      .split('\n')
      .filter((l) => l.startsWith('fdl: '))
      .join('\n'),
    `fdl: ${message}`,
  );
  assert.equal(r.stdout, '');
  assert.deepEqual(treeBytes(root), before, 'the repository is byte-identical');
}

describe('preflight: the signing key', () => {
  it('a missing key file', async () => {
    const k = path.join(work, 'no-such-key');
    await refused(`--sign-key ${k}: no such file`, 'import', root, '--table', `main.t=${csv}`, '--sign-key', k);
    await refused(
      `--sign-key ${k}: no such file`,
      'publish',
      root,
      '--catalog',
      path.join(root, 'versions', readFileSync(path.join(root, 'refs/heads/main'), 'utf8').trim(), 'ducklake.duckdb'),
      '--sign-key',
      k,
    );
  });

  it('a key others can read (mode 0644), as a git checkout leaves it', async () => {
    const k = path.join(work, 'open-key');
    copyFileSync(key, k);
    chmodSync(k, 0o644);
    const msg = `--sign-key ${k} can be read by others (mode 0644): run chmod 600 ${k}`;
    await refused(msg, 'import', root, '--table', `main.t=${csv}`, '--sign-key', k);
    await refused(msg, 'expire', root, readFileSync(path.join(root, 'refs/tags/v1'), 'utf8').trim(), '--sign-key', k);
  });

  it('a public key, a folder, and garbage are not private keys', async () => {
    const pub = path.join(work, 'pub-as-key');
    copyFileSync(`${key}.pub`, pub);
    chmodSync(pub, 0o600);
    await refused(
      `--sign-key ${pub} is a public key; give the private key (the same path without .pub)`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--sign-key',
      pub,
    );
    // as ssh-keygen leaves it (0644): named a public key, not blamed on its mode
    await refused(
      `--sign-key ${key}.pub is a public key; give the private key (the same path without .pub)`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--sign-key',
      `${key}.pub`,
    );
    const junk = path.join(work, 'junk-key');
    writeFileSync(junk, 'not a key\n', { mode: 0o600 });
    await refused(
      `--sign-key ${junk} is not an OpenSSH private key (Load key "${junk}": error in libcrypto)`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--sign-key',
      junk,
    );
    await refused(`--sign-key ${work}: not a file`, 'import', root, '--table', `main.t=${csv}`, '--sign-key', work);
  });

  it('a passphrase-protected key with no terminal is refused at once (it used to hang after writing)', async () => {
    const k = path.join(work, 'locked-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret words', '-f', k]);
    await refused(
      `--sign-key ${k} is protected by a passphrase and there is no terminal to ask for it: use a key without a passphrase for unattended runs`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--sign-key',
      k,
    );
  });
});

describe('preflight: sources and target', () => {
  it('a missing source, a folder as source, an unknown format', async () => {
    const gone = path.join(work, 'gone.csv');
    await refused(
      `--table main.u=${gone}: no such file`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--table',
      `main.u=${gone}`,
    );
    await refused(`--table main.t=${work}: not a file`, 'import', root, '--table', `main.t=${work}`);
    const odd = path.join(work, 'rows.xlsx');
    writeFileSync(odd, 'x');
    await refused(
      `cannot tell the format of ${odd}: use .csv, .tsv, .parquet, .json, .ndjson or .jsonl`,
      'import',
      root,
      '--table',
      `main.t=${odd}`,
    );
  });

  it('a named pipe with no writer as source or --dataset is refused at once, never opened (it used to hang)', async () => {
    const fifo = path.join(work, 'fifo.csv');
    execFileSync('mkfifo', [fifo]);
    const t0 = Date.now();
    await refused(`--table main.t=${fifo}: not a file`, 'import', root, '--table', `main.t=${fifo}`, '--sign-key', key);
    const fifoJson = path.join(work, 'fifo.json');
    execFileSync('mkfifo', [fifoJson]);
    await refused(
      `--dataset ${fifoJson}: not a file`,
      'import',
      root,
      '--table',
      `main.t=${csv}`,
      '--dataset',
      fifoJson,
    );
    assert.ok(Date.now() - t0 < 60_000, 'refused without waiting for a writer');
  });

  it('a --dataset that is not JSON, a missing --data-from', async () => {
    const bad = path.join(work, 'dataset.json');
    writeFileSync(bad, '{ nope');
    const r = await fdl('import', root, '--table', `main.t=${csv}`, '--dataset', bad);
    assert.match(r.stderr, new RegExp(`^fdl: ${bad.replaceAll('.', '\\.')} is not JSON: `));
    await refused(
      `--data-from ${path.join(work, 'nowhere')}: no such folder`,
      'publish',
      root,
      '--catalog',
      path.join(root, 'versions', readFileSync(path.join(root, 'refs/heads/main'), 'utf8').trim(), 'ducklake.duckdb'),
      '--data-from',
      path.join(work, 'nowhere'),
    );
  });

  it('a target whose versions/ or refs/ is not a folder', async () => {
    const other = path.join(work, 'blocked');
    assert.equal((await fdl('init', other)).code, 0);
    writeFileSync(path.join(other, 'versions'), 'in the way\n');
    const before = treeBytes(other);
    const r = await fdl('import', other, '--table', `main.t=${csv}`);
    assert.equal(
      r.stderr,
      `fdl: ${path.join(other, 'versions')} is not a folder, so nothing can be written under it\n`,
    );
    assert.deepEqual(treeBytes(other), before);
    rmSync(path.join(other, 'versions'));
    assert.equal((await fdl('import', other, '--table', `main.t=${csv}`)).code, 0);
    rmSync(path.join(other, 'refs/tags'), { recursive: true, force: true });
    writeFileSync(path.join(other, 'refs/tags'), 'in the way\n');
    const before2 = treeBytes(other);
    const t = await fdl('tag', other, 'v1');
    assert.equal(t.code, 1);
    assert.deepEqual(treeBytes(other), before2);
  });
});

describe('preflight: the signing key must be one readers trust', () => {
  const fingerprint = (k: string) =>
    /SHA256:\S+/.exec(execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', k], { encoding: 'utf8' }))![0];
  const pub = (k: string) => readFileSync(`${k}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  let other: string; // a usable key no allowed_signers lists
  let signers: string; // allowed_signers listing `key` only
  const parentCatalog = () =>
    path.join(root, 'versions', readFileSync(path.join(root, 'refs/heads/main'), 'utf8').trim(), 'ducklake.duckdb');
  /** Every command that writes a version, with `extra` flags. */
  const writers = (...extra: string[]) => [
    ['import', root, '--table', `main.t=${csv}`, ...extra],
    ['publish', root, '--catalog', parentCatalog(), ...extra],
    ['delete', root, '--table', 'main.t', '--where', 'a = 1', ...extra],
    ['update', root, '--table', 'main.t', '--set', "b = 'z'", '--where', 'a = 1', ...extra],
  ];
  before(() => {
    other = path.join(work, 'other-key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    signers = path.join(work, 'allowed_signers');
    writeFileSync(signers, `alice@example.org namespaces="fdl" ${pub(key)}\n`);
  });

  it('a key not in --allowed-signers: import, publish, delete and update refuse before writing', async () => {
    const msg = `--sign-key ${other} (${fingerprint(other)}) is not in --allowed-signers ${signers}: readers that trust those keys would refuse the version`;
    await Promise.all(writers('--sign-key', other, '--allowed-signers', signers).map((a) => refused(msg, ...a)));
  });

  it('a listed key for another namespace, or past its valid-before, is refused too; --allowed-signers without --sign-key too', async () => {
    const gitOnly = path.join(work, 'allowed_signers-git');
    writeFileSync(gitOnly, `alice@example.org namespaces="git" ${pub(key)}\n`);
    const expired = path.join(work, 'allowed_signers-expired');
    writeFileSync(expired, `alice@example.org valid-before="20200101Z" ${pub(key)}\n`);
    const fp = fingerprint(key);
    await Promise.all([
      refused(
        `--sign-key ${key} (${fp}): alice@example.org (${gitOnly} line 1) may sign only for namespaces git, not fdl, so readers would refuse the version`,
        ...writers('--sign-key', key, '--allowed-signers', gitOnly)[0]!,
      ),
      refused(
        `--sign-key ${key} (${fp}): alice@example.org (${expired} line 1) was valid only before 2020-01-01T00:00:00.000Z, so readers would refuse the version`,
        ...writers('--sign-key', key, '--allowed-signers', expired)[2]!,
      ),
      refused(
        `--allowed-signers ${signers} is given but no --sign-key: the version would be unsigned, and readers that require signatures would refuse it`,
        ...writers('--allowed-signers', signers)[1]!,
      ),
    ]);
  });

  it("without --allowed-signers, the signers the repository's fdl.json lists; a listed key publishes", async () => {
    const listed = path.join(work, 'listed');
    await initRepository(listed, { signers: [`alice@example.org ${pub(key)}`] });
    const before = treeBytes(listed);
    const r = await fdl('import', listed, '--table', `main.t=${csv}`, '--sign-key', other);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `fdl: --sign-key ${other} (${fingerprint(other)}) is not in the signers ${listed}/fdl.json lists: readers that trust those keys would refuse the version\n`,
    );
    assert.deepEqual(treeBytes(listed), before);
    const ok = await fdl('import', listed, '--table', `main.t=${csv}`, '--sign-key', key);
    assert.equal(ok.code, 0, ok.stderr);
    const ok2 = await fdl(
      'delete',
      listed,
      '--table',
      'main.t',
      '--where',
      'a = 2',
      '--sign-key',
      key,
      '--allowed-signers',
      signers,
    );
    assert.equal(ok2.code, 0, ok2.stderr);
    assert.match(ok2.stdout, /^[0-9a-f-]{36}\n$/);
  });
});

describe('rollback: a failure after writing began leaves nothing', () => {
  for (const at of ['data', 'catalog', 'version']) {
    it(`an import that fails after step "${at}" (local folder)`, async () => {
      const before = treeBytes(root);
      await assert.rejects(
        importData(root, {
          ...quiet,
          signKey: key,
          tables: [{ schema: 'main', table: 't', file: csv }],
          step: (s) => {
            if (s === at) throw new Error(`failed at ${at}`);
          },
        }),
        new RegExp(`^Error: failed at ${at}$`),
      );
      assert.deepEqual(treeBytes(root), before);
    });
  }

  it('the loser of a branch race removes its whole version', async () => {
    const other = path.join(work, 'race');
    await initRepository(other);
    await importData(other, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv }] });
    let snapshot: string[] = [];
    await assert.rejects(
      importData(other, {
        ...quiet,
        tables: [{ schema: 'main', table: 't', file: csv }],
        step: async (s) => {
          if (s !== 'version') return;
          await importData(other, { ...quiet, tables: [{ schema: 'main', table: 't', file: csv }] });
          snapshot = treeBytes(other).filter((l) => !l.startsWith('versions/') || true);
        },
      }),
      /branch moved, retry/,
    );
    // what the winner left, minus the loser's files: exactly the winner's repository
    const loserFree = treeBytes(other);
    assert.equal(loserFree.length, snapshot.length - snapshot.filter((l) => !loserFree.includes(l)).length);
    const versions = loserFree.filter((l) => /^versions\/[^/]+\/$/.test(l));
    assert.equal(versions.length, 2, "two published versions, the loser's is gone");
    assert.equal(loserFree.filter((l) => l.includes('/pending ')).length, 0, 'no pending marker left');
  });
});

describe('on S3 (s3rver)', () => {
  let s3: S3Server;
  let opts: S3TargetOptions;
  let client: S3Client;
  const loc = 's3://lake/pre/';
  before(async () => {
    s3 = await startS3('lake');
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    opts = { client, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS };
    await initRepository(loc, { s3: opts });
    await importData(loc, { ...quiet, s3: opts, tables: [{ schema: 'main', table: 't', file: csv }] });
  });
  after(async () => {
    await s3?.close();
  });

  it('a bad key is refused before any write; a failed upload run is rolled back', async () => {
    const before = await bucketBytes(client, 'lake', 'pre/');
    const open = path.join(work, 's3-open-key');
    copyFileSync(key, open);
    chmodSync(open, 0o640);
    await assert.rejects(
      importData(loc, { ...quiet, s3: opts, signKey: open, tables: [{ schema: 'main', table: 't', file: csv }] }),
      { message: `--sign-key ${open} can be read by others (mode 0640): run chmod 600 ${open}` },
    );
    assert.deepEqual(await bucketBytes(client, 'lake', 'pre/'), before);
    for (const at of ['data', 'version']) {
      await assert.rejects(
        importData(loc, {
          ...quiet,
          s3: opts,
          signKey: key,
          tables: [{ schema: 'main', table: 't', file: csv }],
          step: (s) => {
            if (s === at) throw new Error(`failed at ${at}`);
          },
        }),
        { message: `failed at ${at}` },
      );
      assert.deepEqual(await bucketBytes(client, 'lake', 'pre/'), before, `nothing left after a failure at ${at}`);
    }
  });

  it('a key that may read but not write (every PUT 403) is refused before any data is written, naming the prefix', async () => {
    const before = await bucketBytes(client, 'lake', 'pre/');
    const readOnly = await startFaultyProxy(s3.endpoint);
    readOnly.rules.push({ match: /^\/lake\//, method: 'PUT', fault: '403' });
    try {
      const viaProxy = new S3Client({
        endpoint: readOnly.url,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3_CREDENTIALS,
      });
      await assert.rejects(
        importData(loc, {
          ...quiet,
          s3: { ...opts, client: viaProxy, endpoint: readOnly.url },
          tables: [{ schema: 'main', table: 't', file: csv }],
        }),
        { message: `${loc} is not writable: access denied (AccessDenied) (checked before writing anything)` },
      );
      assert.equal(readOnly.faults, 1, 'the probe was the only write tried');
    } finally {
      await readOnly.close();
    }
    assert.deepEqual(await bucketBytes(client, 'lake', 'pre/'), before);
  });
});
void mkdirSync;
