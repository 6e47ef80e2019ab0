/**
 * The last steps every new version takes, in the order the spec requires (Part 3): the catalog,
 * dataset.json and files.json, the signature, version.json last (its presence means complete),
 * then the branch moves with a conditional write. Shared by `fdl import` and `fdl publish`.
 */
import { readFile } from 'node:fs/promises';
import { moveBranch } from './refs-writer.js';
import { hashBytes, hashFile } from './repo.js';
import { sshSign } from './sign.js';
import type { WriteTarget } from './target.js';
import type { WriteJournal } from './write-journal.js';

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

export async function writeVersion(target: WriteTarget, v: NewVersion, step: (name: string) => Promise<void> | void, journal?: WriteJournal): Promise<void> {
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
    catalogs: [{ path: 'ducklake.duckdb', format: { ducklake: v.formatVersion }, ...catHash, snapshot_id: v.snapshotId }],
    files: { 'dataset.json': hashBytes(v.dataset), 'files.json': hashBytes(files) },
  };
  const vbytes = Buffer.from(JSON.stringify(record, null, 2) + '\n');
  // The signature goes first so that a complete version (version.json present) is never unsigned.
  if (v.signKey) await createOrFail(target, `${vdir}/version.json.sig`, await sshSign(vbytes, v.signKey), journal);
  await createOrFail(target, `${vdir}/version.json`, vbytes, journal);
  await step('version');
  await moveBranch(target, v.branch, v.parent, v.id);
}

export async function createOrFail(target: WriteTarget, key: string, body: Buffer | { file: string }, journal?: WriteJournal): Promise<void> {
  if (!(await target.create(key, body))) throw new Error(`${key} already exists in ${target.location}`);
  journal?.created(key);
}

/** A --dataset file: read and checked to be JSON. */
export async function readJsonFile(path: string): Promise<Buffer> {
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
