/**
 * fdl push SRC DST: copies a repository's versions, their data and its refs to another location
 * byte for byte, so version IDs and signatures stay valid. Only what DST lacks is written; every
 * file is downloaded with the size and sha256 its version records (catalog and JSON from
 * version.json, data and delete files from files.json) before it is created in DST. A version
 * becomes visible in DST only when its version.json lands, after everything it names, so an
 * interrupted push leaves nothing a reader sees and the next run continues where it stopped.
 * Refs move last: tags are created, never rewritten; branches and requests move by the same
 * compare-and-swap as publishing, and only forward (DST's version must be an ancestor).
 * Each version is written under a pending marker (write-journal.ts): a failure or SIGINT/SIGTERM
 * removes what was written for the version in progress (versions already complete stay, so the next
 * run continues with the next one), and a run that completed no version removes the fdl.json it
 * created. An expired version (expired.json, which travels with it) is never served again, so its
 * data files are not copied: a source whose gc removed them pushes as well as one that kept them.
 */
import { readFile, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openCatalog } from '../lake/index.js';
import { refKind } from '../resolver/names.js';
import { parseFdlJson, type FdlSettings } from '../resolver/records.js';
import { verifySshsig } from '../resolver/sshsig.js';
import { openStore, type ObjectStore } from '../store/index.js';
import { parentHashes } from './files-json.js';
import { readStore } from './repo.js';
import { FileCopier, OtherContent } from './push-copier.js';
import {
  getBytes,
  sourceRefs,
  versionsInOrder,
  type SourceRefs,
  type VersionRecord,
  type VersionRecords,
} from './push-source.js';
import { checkNoCollision, readRef, writeRefsJson } from './refs-writer.js';
import { openTarget, type S3TargetOptions, type WriteTarget } from './target.js';
import { checkWritableFolder, checkWritableTarget } from './preflight.js';
import { checkInterrupt } from './interrupt.js';
import { WriteJournal } from './write-journal.js';
import { openWorkspace } from './workspace.js';
import { quoteIdent } from '../quote.js';

export interface PushOptions {
  s3?: S3TargetOptions;
  progress?: (line: string) => void;
  /** Called after each file is created in DST (tests interrupt a push here). */
  afterFile?: (key: string) => void;
}

export interface PushReport {
  versionsCopied: string[];
  versionsPresent: number;
  filesCopied: number;
  filesPresent: number;
  refsMoved: string[];
  /** Refs DST keeps because moving them would rewrite a tag or move a branch backwards/sideways. */
  refsRefused: string[];
}

export async function pushRepository(src: string, dst: string, opts: PushOptions = {}): Promise<PushReport> {
  const say = opts.progress ?? (() => undefined);
  const source = await openStore(src, {
    s3: { endpoint: opts.s3?.endpoint, region: opts.s3?.region, forcePathStyle: opts.s3?.forcePathStyle },
  });
  const target = openTarget(dst, opts.s3);
  const report: PushReport = {
    versionsCopied: [],
    versionsPresent: 0,
    filesCopied: 0,
    filesPresent: 0,
    refsMoved: [],
    refsRefused: [],
  };
  // Checked before anything is written: DST (or the folder it will be made in) can be written to.
  const madeRoot = await checkPushTarget(target);
  const ws = await openWorkspace('push');
  const { tmp, conn } = ws;
  let createdFdl = false;
  let journal: WriteJournal | null = null;
  try {
    const { srcSettings, dstSettings, created } = await matchRepositories(source, target, src, dst);
    createdFdl = created;
    const dstStore = await readStore(target); // after fdl.json: a new folder exists only now
    const refs = await sourceRefs(source);
    const records: VersionRecords = new Map();
    const order = await versionsInOrder(source, refs, records);
    const copier = new FileCopier(source, target, dstStore, tmp, report, opts.afterFile);
    for (const id of order) {
      const { bytes, rec } = records.get(id)!;
      const present = await target.read(`versions/${id}/version.json`);
      if (present) {
        if (!present.body.equals(bytes))
          throw new Error(`versions/${id}/version.json differs between ${src} and ${dst}: not the same version`);
        report.versionsPresent++;
        await copyExpiry(id, source, copier, say); // expired in SRC since an earlier push
        continue;
      }
      say(`version ${id}`);
      journal = copier.journal = await WriteJournal.begin(target, id);
      await copyVersion(id, bytes, rec, copier, conn, srcSettings, dstSettings, source, tmp, say);
      await journal.commit();
      journal = copier.journal = null;
      report.versionsCopied.push(id);
    }
    await moveRefs(source, target, refs, records, report, say);
    return report;
  } catch (e) {
    await journal?.rollback();
    if (createdFdl && report.versionsCopied.length === 0) {
      await target.remove('fdl.json').catch(() => undefined);
      if (madeRoot) await rmdir(target.location).catch(() => undefined);
    }
    throw e;
  } finally {
    await ws.close();
  }
}

/** DST gets SRC's fdl.json when it has none; otherwise both must be the same repository. */
async function matchRepositories(
  source: ObjectStore,
  target: WriteTarget,
  src: string,
  dst: string,
): Promise<{ srcSettings: FdlSettings; dstSettings: FdlSettings; created: boolean }> {
  const fdl = await getBytes(source, 'fdl.json');
  if (!fdl) throw new Error(`${src} is not an FDL repository (no fdl.json)`);
  const srcSettings = parseFdlJson(fdl, src);
  checkInterrupt();
  if (await target.create('fdl.json', fdl)) return { srcSettings, dstSettings: srcSettings, created: true };
  const theirs = (await target.read('fdl.json'))!.body;
  const dstSettings = parseFdlJson(theirs, dst);
  if (srcSettings.id !== dstSettings.id)
    throw new Error(
      `${dst} holds another repository (id ${dstSettings.id ?? 'none'}, ${src} has ${srcSettings.id ?? 'none'}): signed versions name their repository`,
    );
  return { srcSettings, dstSettings, created: false };
}

/**
 * DST must be writable before anything is copied: a local folder (or, when it does not exist yet,
 * the nearest folder above it, where it will be made); S3 by a probe object put and deleted. Returns
 * whether the root folder is still to be made (a failed push removes it again).
 */
async function checkPushTarget(target: WriteTarget): Promise<boolean> {
  if (!target.localPath) {
    await checkWritableTarget(target); // S3: the bucket exists and takes a probe object
    return false;
  }
  const root = target.location;
  if (
    await stat(root).then(
      () => true,
      () => false,
    )
  ) {
    await checkWritableTarget(target, ['versions/', 'refs/']);
    return false;
  }
  let above = dirname(root);
  while (
    !(await stat(above).then(
      () => true,
      () => false,
    )) &&
    dirname(above) !== above
  )
    above = dirname(above);
  await checkWritableFolder(above, `${root} cannot be created: `);
  return true;
}

/**
 * An expiry that SRC has and DST's copy of the version lacks. With `say`, the version was already in
 * DST: an expiry DST has in other words (its own record) is kept, said, and the push goes on.
 */
async function copyExpiry(
  id: string,
  source: ObjectStore,
  copier: FileCopier,
  say?: (line: string) => void,
): Promise<void> {
  for (const extra of ['expired.json', 'expired.json.sig']) {
    const b = await getBytes(source, `versions/${id}/${extra}`);
    if (!b) continue;
    try {
      await copier.createBytes(`versions/${id}/${extra}`, b);
    } catch (e) {
      if (!say || !(e instanceof OtherContent)) throw e;
      say(`kept DST's versions/${id}/${extra}: it differs from SRC's (an expiry is never rewritten)`);
    }
  }
}

async function copyVersion(
  id: string,
  bytes: Buffer,
  rec: VersionRecord,
  copier: FileCopier,
  conn: DuckDBConnection,
  srcSettings: FdlSettings,
  dstSettings: FdlSettings,
  source: ObjectStore,
  tmp: string,
  say: (line: string) => void,
): Promise<void> {
  const vdir = `versions/${id}`;
  // No reader serves an expired version: its data files (perhaps gone, by gc) are not copied.
  const expired = (await getBytes(source, `${vdir}/expired.json`)) !== null;
  const sig = await getBytes(source, `${vdir}/version.json.sig`);
  // A signature that does not verify over these bytes would be refused by every reader.
  if (verifySshsig(bytes, sig, []).status === 'B')
    throw new Error(`${vdir}/version.json.sig does not verify: not copied`);
  const catalogPath = rec.catalogs[0]!.path;
  const local = join(tmp, `${id}-catalog`);
  for (const c of rec.catalogs)
    await copier.copy(`${vdir}/${c.path}`, `${vdir}/${c.path}`, c, c.path === catalogPath ? local : undefined);
  let filesJson: Buffer | null = null;
  for (const [path, entry] of Object.entries(rec.files ?? {})) {
    const keep = path === 'files.json' ? join(tmp, `${id}-files.json`) : undefined;
    await copier.copy(`${vdir}/${path}`, `${vdir}/${path}`, entry, keep);
    if (keep) filesJson = await readFile(keep);
  }
  if (expired) {
    say(`  expired: its data files are not copied`);
    await rm(local, { force: true });
  } else await copyData(local, filesJson, copier, conn, srcSettings, dstSettings, id);
  // An expiry travels with its version, and lands before version.json so the copy is never briefly live.
  await copyExpiry(id, source, copier);
  if (sig) await copier.createBytes(`${vdir}/version.json.sig`, sig);
  await copier.createBytes(`${vdir}/version.json`, bytes);
}

/** The data and delete files a version's catalog reads, checked against its files.json. */
async function copyData(
  local: string,
  filesJson: Buffer | null,
  copier: FileCopier,
  conn: DuckDBConnection,
  srcSettings: FdlSettings,
  dstSettings: FdlSettings,
  id: string,
): Promise<void> {
  const sums = new Map(parentHashes(filesJson));
  const alias = `push_${id.replace(/[^a-z0-9]/g, '_')}`;
  const catalog = await openCatalog(conn, local, alias);
  try {
    for (const t of catalog.tables) {
      for (const f of t.files)
        await copier.copy(`${srcSettings.dataDir}${f.path}`, `${dstSettings.dataDir}${f.path}`, {
          sha256: sums.get(f.path),
          size: f.size,
        });
    }
  } finally {
    await conn.run(`DETACH IF EXISTS ${quoteIdent(alias)}`).catch(() => undefined);
    await rm(local, { force: true });
  }
}

/** Refs after every version they name is complete in DST; refs.json rebuilt once at the end. */
async function moveRefs(
  source: ObjectStore,
  target: WriteTarget,
  { refs, head }: SourceRefs,
  records: VersionRecords,
  report: PushReport,
  say: (l: string) => void,
): Promise<void> {
  if (head) await target.create('HEAD', head);
  const ancestors = (id: string): Set<string> => {
    const seen = new Set<string>();
    const walk = [id];
    while (walk.length) {
      const v = walk.pop()!;
      if (seen.has(v)) continue;
      seen.add(v);
      walk.push(...(records.get(v)?.rec.parents ?? []));
    }
    return seen;
  };
  for (const [full, id] of [...refs].sort()) {
    const cur = await readRef(target, full);
    if (cur === id) continue;
    const refuse = (why: string) => {
      report.refsRefused.push(full);
      say(`refused ${full}: ${why}`);
    };
    const collides =
      cur === null
        ? await checkNoCollision(target, full).then(
            () => null,
            (e: Error) => e.message,
          )
        : null;
    if (collides) {
      refuse(`DST: ${collides}`);
      continue;
    }
    if (refKind(full) === 'tag') {
      if (cur !== null) refuse(`DST has it at ${cur}, ${source.location} at ${id}; tags are never rewritten`);
      else if (await target.create(full, Buffer.from(`${id}\n`))) report.refsMoved.push(full);
      else refuse('created by another writer meanwhile');
      continue;
    }
    if (cur !== null && !ancestors(id).has(cur)) {
      refuse(`DST's ${cur} is not an ancestor of ${id} (not a fast-forward)`);
      continue;
    }
    await target.swap(full, cur, Buffer.from(`${id}\n`));
    report.refsMoved.push(full);
  }
  await writeRefsJson(target);
}
