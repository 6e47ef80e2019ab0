/**
 * Who writes: host, boot, pid and the process's start time, enough to tell on the same host whether
 * that process still runs. Pending markers (write-journal.ts), work folders (work-folder.ts) and
 * branch locks (target.ts) record it.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who wrote a pending marker: enough to tell, on the same host, whether that process still runs. */
export interface WriterId {
  host: string;
  pid: number;
  /** /proc/sys/kernel/random/boot_id: a pid from before a reboot names another process. */
  boot?: string;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat): a reused pid has another. */
  start?: number;
}

const readProc = (p: string): string | null => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
};

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
export function processStart(pid: number): number | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const v = Number(fields[19]);
  return Number.isFinite(v) ? v : null;
}

export function thisWriter(): WriterId {
  const boot = readProc('/proc/sys/kernel/random/boot_id')?.trim();
  const start = processStart(process.pid);
  return { host: hostname(), pid: process.pid, ...(boot ? { boot } : {}), ...(start !== null ? { start } : {}) };
}

/**
 * 'alive' or 'dead' when the writer ran on this host (its pid checked with signal 0 and, where
 * recorded, its boot and start time); 'unknown' for another host's writer (judged by age alone).
 */
export function writerState(w: WriterId | null): 'alive' | 'dead' | 'unknown' {
  if (!w || w.host !== hostname()) return 'unknown';
  const me = thisWriter();
  if (w.boot && me.boot && w.boot !== me.boot) return 'dead';
  try {
    process.kill(w.pid, 0);
  } catch (e) {
    if ((e as { code?: string }).code !== 'EPERM') return 'dead'; // EPERM: alive, someone else's
  }
  if (w.start !== undefined) {
    const start = processStart(w.pid);
    if (start !== null && start !== w.start) return 'dead'; // the pid was reused
  }
  return 'alive';
}
