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
 * host's local work folders whose writer is gone (work-folder.ts). A writer judged after the
 * inventory may have finished meanwhile (its marker gone with its process, its version complete):
 * versions/ is listed again before anything goes, and a version finished since means looking again.
 */
import { hostname } from 'node:os';
import { type Inventory, takeInventory, type VersionFolder } from './inventory.js';
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
  /** Tests: runs between the inventory and the judgement of its writers (a writer may finish meanwhile). */
  afterInventory?: () => Promise<void>;
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
  const target = openTarget(location, opts.s3);
  if (!opts.dryRun) await checkWritableTarget(target, ['versions/']);
  // this host's work folders of commands killed before they cleaned up (SIGKILL, the clean-up deadline)
  const workFolders = await clearDeadWorkFolders({ dryRun: opts.dryRun, report: say });
  // The inventory takes a while (every kept catalog is read): a writer seen running may finish, and
  // its process end, before its marker is judged. A version finished since the inventory means the
  // plan is stale (its files are live now, and its marker's writer only looks dead): look again.
  for (let attempt = 1; ; attempt++) {
    const inv = await takeInventory(target);
    await opts.afterInventory?.();
    const plan = planRemovals(inv, target, opts);
    const finished = await finishedSince(target, inv);
    if (finished.length === 0) {
      for (const line of plan.lines) say(line);
      return { ...(await removePlanned(target, inv, plan, opts, say)), workFolders };
    }
    if (attempt === 3)
      throw new Error(
        `versions kept being finished while gc looked (${finished[0]}${finished.length > 1 ? ', …' : ''}): nothing removed; run it again`,
      );
    say(`version ${finished[0]} was finished while gc looked: looking again`);
  }
}

/** Versions complete now (version.json there) that the inventory took for unfinished or did not see. */
async function finishedSince(target: WriteTarget, inv: Inventory): Promise<string[]> {
  const complete = new Set(inv.versions.filter((v) => v.complete).map((v) => v.id));
  return (await target.list('versions/'))
    .filter((k) => k.endsWith('/version.json') && k.split('/').length === 3)
    .map((k) => k.split('/')[1]!)
    .filter((id) => !complete.has(id));
}

interface Plan {
  removed: string[];
  unfinished: string[];
  keptYoung: string[];
  writers: string[];
  lines: string[];
}

/**
 * A version folder's writer: its marker's process, judged on this host; a folder with only the
 * marker's temp file (the writer between writing and renaming it) belongs to the pid the temp
 * name records, kept while that pid runs here, else judged by age.
 */
function writerOf(
  v: VersionFolder,
  target: WriteTarget,
): { since: number; state: 'alive' | 'dead' | 'unknown' } | null {
  if (v.complete) return null;
  if (v.pendingSince !== null) return { since: v.pendingSince, state: writerState(v.writer) };
  if (v.markerTemp && !target.remote) {
    const alive = writerState({ host: hostname(), pid: v.markerTemp.pid }) === 'alive';
    return { since: v.markerTemp.modified, state: alive ? 'alive' : 'unknown' };
  }
  return null;
}

function planRemovals(inv: Inventory, target: WriteTarget, opts: GcOptions): Plan {
  const grace = opts.graceMs ?? DEFAULT_GRACE_MS;
  const lines: string[] = [];
  const now = opts.now ?? Date.now();
  const old = (t: number) => t < now - grace;
  const judged = new Map(inv.versions.map((v) => [v.id, writerOf(v, target)]));
  const running = inv.versions.filter((v) => {
    const w = judged.get(v.id);
    return w && (w.state === 'alive' || (w.state === 'unknown' && !old(w.since)));
  });
  const dead = inv.versions.filter((v) => judged.get(v.id)?.state === 'dead');
  const writers = running.map((v) => v.id);
  for (const w of writers)
    lines.push(
      `writer running: versions/${w}/ (its process is alive, or another host's pending marker is younger than the grace period): kept, with expired versions' files and every object written since`,
    );
  for (const v of dead)
    lines.push(
      `writer gone: versions/${v.id}/ (process ${v.writer!.pid} on this host no longer runs): its folder and the ${v.writerKeys.length} key(s) its marker lists are removed now`,
    );
  const deadKeys = dead.flatMap((v) => v.writerKeys);
  const byDeadWriter = (key: string) => deadKeys.some((k) => (k.endsWith('/') ? key.startsWith(k) : key === k));
  const needed = writers.length ? inv.anyFiles : inv.liveFiles;
  // A running writer's own files are in no catalog yet: keep whatever is as new as its marker.
  const writersSince = Math.min(...running.map((v) => judged.get(v.id)!.since - WRITER_SLACK_MS));

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
  return { removed, unfinished, keptYoung, writers, lines };
}

async function removePlanned(
  target: WriteTarget,
  inv: Inventory,
  plan: Plan,
  opts: GcOptions,
  say: (line: string) => void,
): Promise<Omit<GcResult, 'workFolders'>> {
  const { removed, unfinished, keptYoung, writers } = plan;
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
  return { removed, unfinished, keptYoung, writers };
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
