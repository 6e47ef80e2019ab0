/**
 * fdl gc: removes data and delete files that no unexpired version reads, and version folders a
 * writer never finished — never anything a live version or a running writer may need.
 * A running writer is a pending marker younger than the grace period: while one exists, files of
 * expired versions are kept too (it may build on one). An object is removed only when it is older
 * than the grace period, so files of a writer that started after gc looked are safe as well.
 */
import { takeInventory } from './inventory.js';
import { checkWritableTarget } from './preflight.js';
import { openTarget, type S3TargetOptions } from './target.js';

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
  const now = opts.now ?? Date.now();
  const old = (t: number) => t < now - grace;
  const writers = inv.versions.filter((v) => !v.complete && v.pendingSince !== null && !old(v.pendingSince)).map((v) => v.id);
  for (const w of writers) say(`writer running: versions/${w}/ (pending marker younger than the grace period): kept, and expired versions' files too`);
  const needed = writers.length ? inv.anyFiles : inv.liveFiles;

  const removed: string[] = [];
  const unfinished: string[] = [];
  const keptYoung: string[] = [];
  for (const v of inv.versions) {
    if (v.complete || writers.includes(v.id)) continue;
    if (!old(v.newest)) {
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
    if (!old(o.modified)) keptYoung.push(o.key);
    else removed.push(o.key);
  }
  for (const k of removed) {
    say(`${opts.dryRun ? 'would remove' : 'removing'} ${k}`);
    if (!opts.dryRun) await target.remove(k);
  }
  if (keptYoung.length) say(`kept ${keptYoung.length} unreferenced object(s) younger than the grace period`);
  return { removed, unfinished, keptYoung, writers };
}
