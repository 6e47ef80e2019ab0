/**
 * fdl verify: every complete version — id and repository, sha256/size of every file version.json
 * names, the signature (required when trusted keys are given), the catalog opens with the
 * gateway's reader, and every data/delete file it references exists with the catalog's size and,
 * where files.json gives one, its sha256 (each mismatch named by file).
 * Also every ref must name a complete version. Warnings (a non-zero exit only with --strict):
 * unfinished version folders (no version.json) and orphans (objects under data_dir that no complete
 * version's snapshot reads; `fdl gc` removes both once they are old enough).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { notOneSelect, openCatalog, replaceCatalogPlaceholder } from '../lake/index.js';
import { catalogBodyJudge } from '../analysis/catalog-bodies.js';
import { isVersionId, refKind } from '../resolver/names.js';
import { parseFdlJson, parseVersionJson } from '../resolver/records.js';
import { parseAllowedSigners, verifySshsig, type TrustedSigner } from '../resolver/sshsig.js';
import { parentHashes } from './files-json.js';
import { writerState } from './write-journal.js';
import { hashFile, readStore } from './repo.js';
import { LocalTarget } from './target.js';
import { openTarget, type S3TargetOptions } from './target.js';
import { takeInventory } from './inventory.js';
import { makeWorkFolder } from './work-folder.js';
import { quoteIdent } from '../quote.js';

export interface VerifyReport {
  ok: boolean;
  versions: number;
  problems: string[];
  /** Unfinished versions and orphan data files: not failures, but debris `fdl gc` would remove. */
  warnings: string[];
}

export async function verifyRepository(
  location: string,
  opts: { allowedSigners?: string; s3?: S3TargetOptions; report?: (l: string) => void } = {},
): Promise<VerifyReport> {
  const say = opts.report ?? (() => undefined);
  const target = openTarget(location, opts.s3);
  const store = await readStore(target);
  const problems: string[] = [];
  const bad = (p: string) => (problems.push(p), say(`  FAIL ${p}`));
  const fdl = await target.read('fdl.json');
  if (!fdl) return { ok: false, versions: 0, problems: ['no fdl.json'], warnings: [] };
  const settings = parseFdlJson(fdl.body, location);
  let trusted: TrustedSigner[] | null = null;
  if (opts.allowedSigners) trusted = parseAllowedSigners(await readFile(opts.allowedSigners, 'utf8')).signers;

  const keys = await target.list('versions/');
  const ids = [
    ...new Set(keys.filter((k) => /^versions\/[^/]+\/version\.json$/.test(k)).map((k) => k.split('/')[1]!)),
  ].sort();
  const tmp = await makeWorkFolder('verify');
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    let n = 0;
    for (const id of ids) {
      say(`version ${id}`);
      const before = problems.length;
      const vbytes = (await target.read(`versions/${id}/version.json`))!.body;
      let rec;
      try {
        rec = parseVersionJson(vbytes, id);
      } catch (e) {
        bad(`${id}: ${(e as Error).message}`);
        continue;
      }
      if (rec.id !== id) bad(`${id}: version.json id is ${rec.id}`);
      if (rec.repository !== undefined && settings.id !== undefined && rec.repository !== settings.id)
        bad(`${id}: repository ${rec.repository} is not this repository (${settings.id})`);
      const sig = await target.read(`versions/${id}/version.json.sig`);
      const status = verifySshsig(vbytes, sig?.body ?? null, trusted ?? []);
      if (trusted) {
        if (status.status !== 'G') bad(`${id}: signature not trusted (${status.reason ?? status.status})`);
      } else if (status.status === 'B') bad(`${id}: bad signature (${status.reason ?? ''})`);
      const expired = await target.exists(`versions/${id}/expired.json`);
      // Every named file: download (local: copy) with the recorded size and sha256 checked.
      const named = [...rec.catalogs.map((c) => [c.path, c] as const), ...Object.entries(rec.files ?? {})];
      let catalogFile: string | null = null;
      for (const [path, entry] of named) {
        const dest = join(tmp, `${id}-${path.replaceAll('/', '_')}`);
        try {
          await store.download(`versions/${id}/${path}`, dest, { sha256: entry.sha256, expectedSize: entry.size });
          if (path === rec.catalogs[0]!.path) catalogFile = dest;
        } catch (e) {
          bad(`${id}: ${path}: ${(e as Error).message}`);
        }
      }
      if (expired) say(`  expired: data files not checked`);
      else if (catalogFile) {
        const alias = `v${n}`;
        try {
          const cat = await openCatalog(conn, catalogFile, alias);
          // what the gateway would leave out of the version (analysis/catalog-bodies.ts)
          const admitBody = catalogBodyJudge(conn, cat, alias);
          for (const v of cat.views) {
            const sql = replaceCatalogPlaceholder(v.sql, alias);
            const problem =
              (await notOneSelect(conn, sql)) ??
              (await admitBody(sql, v.schema).then(
                () => null,
                (e: Error) => `the gateway would not serve it: ${e.message}`,
              ));
            if (problem) bad(`${id}: view ${v.schema}.${v.name}: ${problem}`);
          }
          const filesJson = rec.files?.['files.json']
            ? ((await target.read(`versions/${id}/files.json`))?.body ?? null)
            : null;
          const sums = new Map(parentHashes(filesJson));
          let unhashed = 0;
          for (const t of cat.tables) {
            for (const f of t.files) {
              if (!sums.has(f.path)) unhashed++;
              const h = await store.head(`${settings.dataDir}${f.path}`);
              if (!h) bad(`${id}: ${t.schema}.${t.name}: missing ${f.kind} file ${f.path}`);
              else if (h.size !== f.size)
                bad(`${id}: ${t.schema}.${t.name}: ${f.path} has ${h.size} bytes, the catalog says ${f.size}`);
              else if (sums.has(f.path)) {
                const want = sums.get(f.path)!;
                const key = `${settings.dataDir}${f.path}`;
                if (target instanceof LocalTarget) {
                  if ((await hashFile(target.localPath(key))).sha256 !== want)
                    bad(`${id}: ${t.schema}.${t.name}: ${f.path}: sha256 differs from files.json`);
                } else {
                  const dest = join(tmp, `data-${n}`);
                  await store
                    .download(key, dest, { sha256: want, expectedSize: f.size })
                    .catch((e: Error) => bad(`${id}: ${f.path}: ${e.message}`));
                  await rm(dest, { force: true });
                }
              }
            }
          }
          if (unhashed > 0) say(`  ${unhashed} data/delete file(s) without sha256 in files.json: sizes checked only`);
          if (rec.catalogs[0]!.snapshot_id !== undefined && rec.catalogs[0]!.snapshot_id !== cat.snapshotId)
            bad(`${id}: catalog is at snapshot ${cat.snapshotId}, version.json says ${rec.catalogs[0]!.snapshot_id}`);
        } catch (e) {
          bad(`${id}: catalog: ${(e as Error).message.split('\n')[0]}`);
        } finally {
          await conn.run(`DETACH IF EXISTS ${quoteIdent(alias)}`).catch(() => undefined);
        }
      }
      n++;
      if (problems.length === before)
        say(
          `  ok (${status.status === 'G' ? `signed by ${status.signer}` : status.status === 'N' ? 'unsigned' : 'signature not checked against trusted keys'})`,
        );
    }
    for (const key of await target.list('refs/')) {
      if (!refKind(key)) continue;
      const body = (await target.read(key))?.body.toString('utf8').trim() ?? '';
      if (!isVersionId(body)) bad(`${key}: malformed ref`);
      else if (!ids.includes(body)) bad(`${key}: dangling ref to ${body}`);
    }
    return { ok: problems.length === 0, versions: ids.length, problems, warnings: await debris(target, say) };
  } finally {
    conn.closeSync();
    instance.closeSync();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Unfinished version folders and orphan data files, each a warning line. */
async function debris(target: ReturnType<typeof openTarget>, say: (l: string) => void): Promise<string[]> {
  const warnings: string[] = [];
  const warn = (w: string) => (warnings.push(w), say(`  WARN ${w}`));
  if (target instanceof LocalTarget)
    for (const lock of (await target.list('refs/')).filter((k) => k.endsWith('.lock')))
      warn(
        `${lock}: a branch lock (${await target.lockHolder(lock.slice(0, -'.lock'.length))}); fdl gc or the next writer clears it once its writer's process is gone (a lock naming no writer: once a minute old)`,
      );
  let inv;
  try {
    inv = await takeInventory(target);
  } catch (e) {
    warn(`orphans not checked: ${(e as Error).message}`);
    return warnings;
  }
  for (const v of inv.versions) {
    if (v.complete) continue;
    const state = v.pendingSince === null ? null : writerState(v.writer);
    const marker =
      state === 'dead'
        ? "; its writer's process no longer runs: fdl gc removes it now"
        : state === 'alive'
          ? '; its writer is running'
          : state
            ? "; a writer's pending marker is there: it may still be running"
            : '';
    warn(`versions/${v.id}/: unfinished version (no version.json${marker})`);
  }
  for (const o of inv.dataObjects) {
    if (!inv.anyFiles.has(o.key.slice(inv.dataDir.length))) warn(`${o.key}: orphan (no version reads it)`);
  }
  return warnings;
}
