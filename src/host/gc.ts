/**
 * fdl gc: removes data and delete files that no unexpired version reads, and version folders a
 * writer never finished — never anything a live version or a running writer may need.
 * A running writer is a pending marker whose process is alive on this host (whatever --grace says),
 * or another host's marker younger than the grace period: while one exists, files of expired
 * versions are kept too (it may build on one), and so is every object written since its marker (the
 * files it is writing, which no catalog names yet). A marker whose process is gone from this host
 * (killed, crashed, the pid reused or the host rebooted) is a dead writer: its folder and the keys
 * its marker lists go at once, whatever their age. Any other object is removed only when it is older
 * than the grace period, so files of a writer that started after gc looked are safe as well. Before
 * removing anything, the files.json of every version gc must keep is read as a second, independent
 * account: a candidate it names (or a version without one) stops the run. It also clears this
 * host's local work folders whose writer is gone (work-folder.ts).
 */
import { type Inventory, takeInventory } from './inventory.js';
import { checkWritableTarget } from './preflight.js';
import { openTarget, type S3TargetOptions, type WriteTarget } from './target.js';
import { writerState } from './write-journal.js';
import { checkInterrupt } from './interrupt.js';
import { clearDeadWorkFolders } from './work-folder.js';

/** Clock and timestamp-granularity slack when comparing an object's age with a writer's marker. */
const WRITER_SLACK_MS = 60_000;

export const DEFAULT_GRACE_MS = 24 * 3600_000;

export interface GcOptions {
  dryRun?: boolean;
  graceMs?: number;
  s3?: S3TargetOptions;
  report?: (line: string) => void;
  /** Tests: the clock. */
  now?: number;
}

export interface GcResult {
  /** Keys removed (or, with dryRun, that would be). */
  removed: string[];
  /** Local work folders of dead writers removed (or, with dryRun, that would be): work-folder.ts. */
  workFolders: string[];
  unfinished: string[];
  /** Unreferenced objects kept because they are younger than the grace period or a writer is running. */
  keptYoung: string[];
  writers: string[];
}

/** `30s`, `15m`, `2h`, `7d` or milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(s.trim());
  if (!m) throw new Error(`--grace wants a duration like 30m, 12h or 7d, not ${JSON.stringify(s)}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.round(Number(m[1]) * unit);
}

export async function collectGarbage(location: string, opts: GcOptions = {}): Promise<GcResult> {
  const say = opts.report ?? (() => undefined);
  const grace = opts.graceMs ?? DEFAULT_GRACE_MS;
  const target = openTarget(location, opts.s3);
  if (!opts.dryRun) await checkWritableTarget(target, ['versions/']);
  const inv = await takeInventory(target);
  // this host's work folders of commands killed before they cleaned up (SIGKILL, the clean-up deadline)
  const workFolders = await clearDeadWorkFolders({ dryRun: opts.dryRun, report: say });
  const now = opts.now ?? Date.now();
  const old = (t: number) => t < now - grace;
  const pending = inv.versions.filter((v) => !v.complete && v.pendingSince !== null);
  const state = new Map(pending.map((v) => [v.id, writerState(v.writer)]));
  const running = pending.filter(
    (v) => state.get(v.id) === 'alive' || (state.get(v.id) === 'unknown' && !old(v.pendingSince!)),
  );
  const dead = pending.filter((v) => state.get(v.id) === 'dead');
  const writers = running.map((v) => v.id);
  for (const w of writers)
    say(
      `writer running: versions/${w}/ (its process is alive, or another host's pending marker is younger than the grace period): kept, with expired versions' files and every object written since`,
    );
  for (const v of dead)
    say(
      `writer gone: versions/${v.id}/ (process ${v.writer!.pid} on this host no longer runs): its folder and the ${v.writerKeys.length} key(s) its marker lists are removed now`,
    );
  const deadKeys = dead.flatMap((v) => v.writerKeys);
  const byDeadWriter = (key: string) => deadKeys.some((k) => (k.endsWith('/') ? key.startsWith(k) : key === k));
  const needed = writers.length ? inv.anyFiles : inv.liveFiles;
  // A running writer's own files are in no catalog yet: keep whatever is as new as its marker.
  const writersSince = Math.min(...running.map((v) => v.pendingSince! - WRITER_SLACK_MS));

  const removed: string[] = [];
  const unfinished: string[] = [];
  const keptYoung: string[] = [];
  for (const v of inv.versions) {
    if (v.complete || writers.includes(v.id)) continue;
    if (!old(v.newest) && !dead.includes(v)) {
      keptYoung.push(`versions/${v.id}/`);
      continue;
    }
    unfinished.push(v.id);
    // version.json never came: remove newest first is unnecessary, nothing reads an unfinished folder
    for (const k of v.keys) removed.push(k.key);
  }
  for (const o of inv.dataObjects) {
    const rel = o.key.slice(inv.dataDir.length);
    if (needed.has(rel)) continue;
    if (byDeadWriter(o.key)) removed.push(o.key);
    else if (!old(o.modified) || o.modified >= writersSince) keptYoung.push(o.key);
    else removed.push(o.key);
  }
  const candidates = removed.filter((k) => k.startsWith(inv.dataDir) && !k.startsWith('versions/'));
  try {
    await confirmUnreferenced(target, inv, writers.length > 0, candidates);
  } catch (e) {
    if (!opts.dryRun) throw e;
    say(`a real run would stop here: ${(e as Error).message}`);
  }
  for (const k of removed) {
    say(`${opts.dryRun ? 'would remove' : 'removing'} ${k}`);
    if (!opts.dryRun) {
      checkInterrupt(); // SIGINT/SIGTERM: stop between removals (each one is whole; a later run finishes)
      await target.remove(k);
    }
  }
  if (keptYoung.length) say(`kept ${keptYoung.length} unreferenced object(s) younger than the grace period`);
  return { removed, workFolders, unfinished, keptYoung, writers };
}

/**
 * The second account: every data and delete file named by the files.json of a version gc keeps
 * (every complete version while a writer runs, else the unexpired ones). Any candidate named
 * there, or a kept version without files.json, means the two accounts disagree: nothing is removed.
 */
async function confirmUnreferenced(
  target: WriteTarget,
  inv: Inventory,
  withExpired: boolean,
  candidates: string[],
): Promise<void> {
  if (candidates.length === 0) return;
  const named = new Set<string>();
  for (const v of inv.versions) {
    if (!v.complete || (v.expired && !withExpired)) continue;
    const r = await target.read(`versions/${v.id}/files.json`);
    if (!r)
      throw new Error(
        `version ${v.id} has no files.json, so gc cannot confirm what it reads: nothing removed (use --dry-run to list)`,
      );
    const j = JSON.parse(r.body.toString('utf8')) as {
      tables?: Record<string, { files?: { path?: unknown; delete_file?: unknown }[] }>;
    };
    for (const t of Object.values(j.tables ?? {})) {
      for (const f of t.files ?? []) {
        if (typeof f.path === 'string') named.add(f.path);
        if (typeof f.delete_file === 'string') named.add(f.delete_file);
      }
    }
  }
  const clash = candidates.filter((k) => named.has(k.slice(inv.dataDir.length)));
  if (clash.length)
    throw new Error(
      `a version's files.json names ${clash.length} file(s) its catalog does not (${clash[0]}${clash.length > 1 ? ', …' : ''}): nothing removed`,
    );
}
