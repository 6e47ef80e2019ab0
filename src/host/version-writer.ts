/**
 * The first and last steps every new version takes (fdl import, publish, delete, update). First the
 * checks before any write (preflightVersion). Last, in the order the spec requires (Part 3): the
 * catalog, dataset.json and files.json, the signature, version.json last (its presence means
 * complete), then the branch moves with a conditional write and the pending marker goes.
 */
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FdlSettings } from '../resolver/records.js';
import type { ObjectStore } from '../store/index.js';
import { lit } from './coltypes.js';
import { checkInterrupt } from './interrupt.js';
import { checkAllowedSigner, checkReadableFile, checkSignKey, checkWritableTarget } from './preflight.js';
import { buildFilesJson } from './files-json.js';
import { checkNoCollision, checkRefName, moveBranch, readRef } from './refs-writer.js';
import { hashBytes, hashFile, hashStored, readSettings } from './repo.js';
import { sshSign } from './sign.js';
import { LocalTarget, openTarget, type S3TargetOptions, type WriteTarget } from './target.js';
import type { WriteJournal } from './write-journal.js';

/** What preflightVersion found: where to write and what the branch names now. */
export interface VersionTarget {
  target: WriteTarget;
  settings: FdlSettings;
  branch: string;
  refKey: string;
  parent: string | null;
  /** --dataset's bytes (checked JSON), null without one. */
  dataset: Buffer | null;
}

/**
 * Every check a version writer makes before its first write: the target's fdl.json, the branch
 * name, --sign-key (and that the allowed signers list it), the command's own inputs (`inputs`), --dataset, a writable target; then the
 * branch's current version.
 */
export async function preflightVersion(
  location: string,
  opts: { branch?: string; signKey?: string; allowedSigners?: string; dataset?: string; s3?: S3TargetOptions },
  inputs: () => Promise<void> = async () => undefined,
): Promise<VersionTarget> {
  const target = openTarget(location, opts.s3);
  const settings = await readSettings(target);
  const branch = opts.branch ?? 'main';
  const refKey = checkRefName('heads', branch);
  await checkSignKey(opts.signKey);
  await checkAllowedSigner(opts.signKey, opts.allowedSigners, settings.signers, target.location);
  await inputs();
  const dataset = opts.dataset ? await readJsonFile(opts.dataset) : null;
  await checkWritableTarget(target, ['versions/', settings.dataDir, 'refs/']);
  if (target instanceof LocalTarget) await target.checkLock(refKey); // not after all the work
  const parent = await readRef(target, refKey);
  if (parent === null)
    await checkNoCollision(target, refKey); // a new branch: not a tag's name
  // An expired version's data may already be gone (fdl gc): a version built on it would carry missing files.
  else if (await target.exists(`versions/${parent}/expired.json`))
    throw new Error(
      `branch ${branch} is at version ${parent}, which is expired: fdl gc may already have removed its data, so no version can build on it; start a branch at a live version (fdl branch ${target.location} NAME VERSION) and write there with --branch NAME`,
    );
  return { target, settings, branch, refKey, parent, dataset };
}

/** A working catalog (attached as `from`) copied into a fresh file with small blocks (as the fixtures' catalogs); attached as `f` afterwards. */
export async function compactCatalog(conn: DuckDBConnection, from: string, work: string, final: string): Promise<void> {
  await conn.run(`DETACH ${from}`);
  await conn.run(`ATTACH ${lit(work)} AS w (READ_ONLY)`);
  await conn.run(`ATTACH ${lit(final)} AS f (BLOCK_SIZE 16384)`);
  await conn.run('COPY FROM DATABASE w TO f');
  await conn.run('DETACH w');
}

export interface Finish {
  vt: VersionTarget;
  id: string;
  journal: WriteJournal;
  /** The frozen catalog file, attached as `f` (detached here). */
  catalogFile: string;
  formatVersion: string;
  snapshotId: number;
  /** sha256 by data-dir-relative path of files this run wrote or the parent hashed; others are read once. */
  hashes: Map<string, string>;
  store: ObjectStore;
  tmp: string;
  /** The parent's dataset.json (used when no --dataset was given). */
  parentDataset: Buffer | null;
  author?: string;
  message?: string;
  signKey?: string;
  say: (line: string) => void;
  step: (name: string) => Promise<void> | void;
  /** Said with the version id, e.g. `(snapshot 3)`. */
  detail: string;
}

/** files.json from `f`, then writeVersion, the branch move and the marker's removal. */
export async function finishVersion(conn: DuckDBConnection, x: Finish): Promise<void> {
  const { target, settings, parent, branch, refKey } = x.vt;
  const filesJson = await buildFilesJson(
    conn,
    'f',
    x.snapshotId,
    async (rel) => x.hashes.get(rel) ?? (await hashStored(target, x.store, `${settings.dataDir}${rel}`, x.tmp)),
  );
  await conn.run('DETACH f');
  x.say(`writing version ${x.id} ${x.detail} …`);
  await writeVersion(
    target,
    {
      id: x.id,
      repository: settings.id,
      parent,
      branch,
      catalogFile: x.catalogFile,
      formatVersion: x.formatVersion,
      snapshotId: x.snapshotId,
      dataset: x.vt.dataset ?? x.parentDataset ?? Buffer.from('{}\n'),
      filesJson,
      author: x.author,
      message: x.message,
      signKey: x.signKey,
    },
    x.step,
    x.journal,
  );
  await x.journal.commit();
  x.say(`${refKey} → ${x.id}${parent ? ` (was ${parent})` : ''}`);
  await x.step('ref');
}

export interface NewVersion {
  id: string;
  /** Repository id from fdl.json, recorded so a signed version cannot be replayed elsewhere. */
  repository?: string;
  parent: string | null;
  branch: string;
  /** The finished catalog file to upload as ducklake.duckdb. */
  catalogFile: string;
  formatVersion: string;
  snapshotId: number;
  dataset: Buffer;
  filesJson: unknown;
  author?: string;
  message?: string;
  signKey?: string;
}

export async function writeVersion(
  target: WriteTarget,
  v: NewVersion,
  step: (name: string) => Promise<void> | void,
  journal?: WriteJournal,
): Promise<void> {
  const vdir = `versions/${v.id}`;
  const catHash = await hashFile(v.catalogFile);
  await createOrFail(target, `${vdir}/ducklake.duckdb`, { file: v.catalogFile }, journal);
  await step('catalog');
  const files = Buffer.from(JSON.stringify(v.filesJson, null, 2) + '\n');
  await createOrFail(target, `${vdir}/dataset.json`, v.dataset, journal);
  await createOrFail(target, `${vdir}/files.json`, files, journal);
  const record = {
    fdl: '0.1',
    id: v.id,
    ...(v.repository ? { repository: v.repository } : {}),
    parents: v.parent ? [v.parent] : [],
    created: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    author: v.author ?? process.env.USER ?? 'unknown',
    message: v.message ?? '',
    catalogs: [
      { path: 'ducklake.duckdb', format: { ducklake: v.formatVersion }, ...catHash, snapshot_id: v.snapshotId },
    ],
    files: { 'dataset.json': hashBytes(v.dataset), 'files.json': hashBytes(files) },
  };
  const vbytes = Buffer.from(JSON.stringify(record, null, 2) + '\n');
  // The signature goes first so that a complete version (version.json present) is never unsigned.
  if (v.signKey) await createOrFail(target, `${vdir}/version.json.sig`, await sshSign(vbytes, v.signKey), journal);
  await createOrFail(target, `${vdir}/version.json`, vbytes, journal);
  await step('version');
  checkInterrupt(); // the last moment a signal can stop the version: after the move it is published
  const gone = (await journal?.missing()) ?? [];
  if (gone.length)
    throw new Error(
      `${gone.length} file(s) this run wrote are gone (${gone[0]}${gone.length > 1 ? ', …' : ''}): removed while it ran, so the version is not published`,
    );
  await moveBranch(target, v.branch, v.parent, v.id);
}

export async function createOrFail(
  target: WriteTarget,
  key: string,
  body: Buffer | { file: string },
  journal?: WriteJournal,
): Promise<void> {
  await journal?.intend(key);
  if (!(await target.create(key, body))) {
    const e = new Error(`${key} already exists in ${target.location}`);
    throw journal ? journal.forget(key, e) : e;
  }
}

/** A --dataset file: read and checked to be JSON. */
export async function readJsonFile(path: string): Promise<Buffer> {
  await checkReadableFile('--dataset', path); // a named pipe is refused before anything opens it
  const b = await readFile(path).catch((e: Error) => {
    throw new Error(`--dataset ${path}: ${e.message}`);
  });
  try {
    JSON.parse(b.toString('utf8'));
  } catch (e) {
    throw new Error(`${path} is not JSON: ${(e as Error).message}`);
  }
  return b;
}
